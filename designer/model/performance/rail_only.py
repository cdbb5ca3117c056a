"""All-to-all on a rail-only fabric: cross-rail data must cross NVLink first.

On a rail-only fabric (topology/rail_only.py) the NIC of GPU g reaches only rail g of the other
servers. Ring and tree collectives pair GPUs of the same local rank, so all-reduce, all-gather
and reduce-scatter keep their rail and are estimated as on any fabric. All-to-all sends a share
to every GPU; a share for a GPU of another rank goes first over NVLink to the sender server's
GPU on the destination's rail (NCCL PXN), then over that rail.

On a fabric with a spine, the pairwise exchange overlaps its NVLink and network traffic
(collectives._alltoall). Without a spine there is no other path, so the forward is a stage of
its own: the NVLink stage and the rail stage follow one another (their bandwidth terms add), and
the forward stage adds one NVLink step of latency. This is the two-step forwarding Wang et al.
describe (arXiv 2307.12169, who report 8.2-11.2% more all-to-all time); the stages' rates and
latencies are the design's own (NCCL constants, the server's NVLink and NICs), and the serial
stages are a labelled heuristic: NCCL may pipeline part of the forward.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


# What the stages read of collective_costs.FabricContext, named here so that this module does not
# import the module that calls into it (no two modules import each other).
class _Limit(Protocol):
    @property
    def factor(self) -> float: ...
    @property
    def name(self) -> str: ...
    @property
    def hops(self) -> int: ...


class _Constants(Protocol):
    @property
    def ring_protocol_factor(self) -> tuple[float, ...]: ...
    @property
    def net_ring_step_us(self) -> tuple[float, ...]: ...
    @property
    def base_ring_us(self) -> tuple[float, ...]: ...
    @property
    def nvlink_ring_step_us(self) -> tuple[float, ...]: ...


class FabricContext(Protocol):
    """The fabric as all-to-all sees it (collective_costs.FabricContext has these members)."""

    @property
    def gpus(self) -> int: ...
    @property
    def domains(self) -> int: ...
    @property
    def per_domain(self) -> float: ...
    @property
    def nvlink_GBps(self) -> float: ...
    @property
    def nic_GBps(self) -> float: ...
    @property
    def limits(self) -> Mapping[str, _Limit]: ...
    @property
    def extra_us(self) -> Mapping[int, float]: ...
    @property
    def constants(self) -> _Constants: ...

# How the overhead is labelled wherever it is shown.
HEURISTIC = ("heuristic: the NVLink forward and the rail transfer run one after the other "
             "(two-step forwarding, Wang et al., arXiv 2307.12169)")


@dataclass(frozen=True)
class Stages:
    """One protocol's pairwise all-to-all, in microseconds and microseconds per user byte."""

    protocol: int             # index into NCCL's protocols (LL, LL128, Simple)
    latency_spine_us: float   # with a spine: NVLink and network steps overlap
    latency_us: float         # rail-only: plus one NVLink step, the forward stage's fill
    nvlink_us_per_byte: float
    network_us_per_byte: float
    network_name: str         # "NIC", or the tier that limits the rate

    @property
    def us_per_byte(self) -> float:
        """Rail-only: the forward and the rail transfer in series."""
        return self.nvlink_us_per_byte + self.network_us_per_byte

    @property
    def spine_us_per_byte(self) -> float:
        """With a spine: the larger of the two, as collectives._alltoall has it."""
        return max(self.nvlink_us_per_byte, self.network_us_per_byte)

    @property
    def bottleneck(self) -> str:
        return self.network_name if self.network_us_per_byte >= self.nvlink_us_per_byte else "NVLink"


def _per_byte(load: float, rate_GBps: float) -> float:
    return load / (rate_GBps * 1e3) if load > 0 else 0.0


def stages(ctx: FabricContext) -> list[Stages]:
    """The pairwise exchange's stages per protocol (the loads of collectives._alltoall)."""
    c = ctx.constants
    n, L = ctx.gpus, ctx.per_domain
    lim = ctx.limits["alltoall"]
    local, remote = (L - 1) / n, (n - L) / n
    nvl_load = local + remote * (L - 1) / L      # PXN: to the sender's GPU on the destination rail
    out = []
    for i, f in enumerate(c.ring_protocol_factor):
        rate = ctx.nic_GBps * lim.factor * f
        name = lim.name if lim.factor < 1 else "NIC"
        net_step = max(0.0, c.net_ring_step_us[i] + ctx.extra_us.get(lim.hops, 0.0))
        spine = c.base_ring_us[i] + (L - 1) * c.nvlink_ring_step_us[i] + (n - L) * net_step
        out.append(Stages(i, spine, spine + c.nvlink_ring_step_us[i],
                          _per_byte(nvl_load, ctx.nvlink_GBps * f), _per_byte(remote, rate), name))
    return out


def alltoall_overhead(ctx: FabricContext, size_bytes: int = 1 << 30) -> tuple[float, float, float]:
    """(microseconds on this rail-only fabric, microseconds with a spine, overhead share) of one
    all-to-all of `size_bytes` per GPU, each with its fastest protocol."""
    all_stages = stages(ctx)
    rail_only = min(s.latency_us + s.us_per_byte * size_bytes for s in all_stages)
    spine = min(s.latency_spine_us + s.spine_us_per_byte * size_bytes for s in all_stages)
    return rail_only, spine, (rail_only / spine - 1.0) if spine > 0 else 0.0


def overhead_note(ctx: FabricContext, size_bytes: int = 1 << 30) -> str:
    """One line: what all-to-all pays on this rail-only fabric, against the same servers with a spine."""
    if ctx.domains <= 1:
        return "Rail-only: the job fits one NVLink domain, so all-to-all never reaches the rails."
    if ctx.per_domain <= 1:
        return "Rail-only: one GPU per server in the job, every share stays on its rail: no NVLink forward."
    ro, spine, share = alltoall_overhead(ctx, size_bytes)
    size = f"{size_bytes / (1 << 30):g} GiB" if size_bytes >= 1 << 30 else f"{size_bytes / (1 << 20):g} MiB"
    return (f"Rail-only: no spine joins the rails, so all-to-all forwards cross-rail shares over NVLink "
            f"(PXN) first: {ro / 1e3:,.2f} ms for {size} per GPU against {spine / 1e3:,.2f} ms were a spine to "
            f"join these rails at the same switch hops, {share:+.1%} ({HEURISTIC}); `compare` with the "
            "rail-optimized design gives that fabric's own time, its extra tier included. All-reduce, "
            "all-gather and reduce-scatter stay on their rails and are unchanged.")
