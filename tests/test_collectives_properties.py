"""Properties of the collective estimate that must hold for any design, job and size."""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.performance import collectives as C
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import examples

CAT = default_catalog()

# A spread of fabrics: one server, IB and RoCE SUs, HDR, NVL72 racks, two planes, a leaf-spine
# at 3:1, a three-tier fat-tree.
DESIGNS = {
    "one-h100": ("rail-optimized", dict(nodes=1, server="dgx-h100", switch="qm9700")),
    "ib-16": ("rail-optimized", dict(nodes=16, server="dgx-h100", switch="qm9700")),
    "roce-40": ("rail-optimized", dict(nodes=40, server="dgx-h100", switch="sn5600", technology="roce-400g",
                                       nodes_per_su=16)),
    "hdr-24": ("rail-optimized", dict(nodes=24, server="dgx-a100", switch="qm8700", nodes_per_su=16)),
    "nvl72": ("rail-optimized", dict(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18)),
    "b300-2planes": ("rail-optimized", dict(nodes=32, server="dgx-b300-eth", switch="sn5600",
                                            technology="roce-800g")),
    "leafspine-3to1": ("leaf-spine", dict(nodes=48, server="dgx-h100", switch="qm9700", oversubscription=3.0)),
    "fat-tree-3": ("fat-tree", dict(nodes=96, server="hgx-h100", switch="qm9700", tiers=3)),
}


@cache
def derived(name: str):
    template, kw = DESIGNS[name]
    return derive(new_design(CAT, template, **kw), CAT)


@st.composite
def jobs(draw):
    """A design, a job size the design can hold, a placement, a collective and an algorithm."""
    name = draw(st.sampled_from(sorted(DESIGNS)))
    d = derived(name)
    g = d.resolved.gpus_per_server
    servers = d.plan.servers
    gpus = draw(st.integers(2, g)) if draw(st.booleans()) or servers == 1 else g * draw(st.integers(1, servers))
    return (name, gpus, draw(st.sampled_from(C.PLACEMENTS)), draw(st.sampled_from(C.COLLECTIVES)),
            draw(st.sampled_from(C.ALGORITHMS)))


def _sweep_or_none(name, gpus, placement, collective, algorithm, sizes=None):
    try:
        return C.sweep(derived(name), collective, gpus, algorithm, placement, sizes)
    except C.CollectiveError:
        return None   # this algorithm does not exist for this collective or design


FAST = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(jobs(), st.lists(st.integers(1, 1 << 36), min_size=2, max_size=40))
def test_time_never_falls_as_size_grows(job, sizes):
    sizes = sorted(sizes)
    s = _sweep_or_none(*job, sizes=sizes)
    if s is None:
        return
    assert np.all(np.isfinite(s.time_us)) and np.all(s.time_us > 0)
    assert np.all(np.diff(s.time_us) >= 0), (job, sizes, s.time_us)


def _physical_busbw_bound(d, ctx, collective: str) -> float:
    """The most busbw the hardware allows without in-network reduction, from first principles.

    Inside one NVLink domain every rank must move its share over its own NVLink: busbw <= the
    catalog's NVLink bandwidth per GPU. Across N domains, each domain must push its part of the
    data through its NICs at line rate: for all-reduce, all-gather and reduce-scatter at least
    (N-1)/N of the buffer crosses the domain's boundary per phase; for all-to-all the data for
    other domains; for broadcast the whole buffer enters every domain.
    """
    r = d.resolved
    n, N, L = ctx.gpus, ctx.domains, ctx.per_domain
    if N == 1:
        return r.server.nvlink_GBps_per_gpu
    nic_per_gpu = r.ports_per_server * r.link_gbps / 8 / r.gpus_per_server   # line rate, GB/s
    domain = L * nic_per_gpu
    if collective == "broadcast":
        return domain
    if collective == "alltoall":
        return nic_per_gpu * (n - 1) / (n - L)
    return domain * N * (n - 1) / (n * (N - 1))


@FAST
@given(jobs())
def test_busbw_never_exceeds_the_physical_bottleneck_except_with_in_network_reduction(job):
    name, gpus, placement, collective, algorithm = job
    s = _sweep_or_none(name, gpus, placement, collective, algorithm)
    if s is None:
        return
    bound = _physical_busbw_bound(derived(name), s.context, collective)
    for busbw, alg in zip(s.busbw_GBps, s.algorithms, strict=True):
        if alg in C.IN_NETWORK:
            continue
        assert busbw <= bound * (1 + 1e-9), (job, alg, busbw, bound)


def test_in_network_reduction_is_the_exception_the_bound_allows():
    """NVLS on one H100 server goes past the NVLink line rate, as nccl-tests measures (~475 GB/s)."""
    d = derived("one-h100")
    r = C.estimate(d, "allreduce", 8 << 30, algorithm="innetwork")
    assert r.busbw_GBps > d.resolved.server.nvlink_GBps_per_gpu


@cache
def _su_fabric(sus: int, oversubscription: float):
    return derive(new_design(CAT, "rail-optimized", nodes=32 * sus, server="dgx-h100", switch="qm9700",
                             oversubscription=oversubscription), CAT)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 6), st.integers(28, 34))
def test_two_to_one_spine_slows_cross_su_alltoall_but_not_a_rail_local_ring(sus, log_size):
    size = 1 << log_size   # 256 MiB and up: bandwidth-bound (send/receive pays a step per peer)
    flat, over = _su_fabric(sus, 1.0), _su_fabric(sus, 2.0)
    a2a_flat = C.estimate(flat, "alltoall", size)
    a2a_over = C.estimate(over, "alltoall", size)
    assert a2a_over.time_us > a2a_flat.time_us
    assert a2a_over.bottleneck.startswith("oversubscription at leaf tier")
    for log in (3, 20, log_size):
        ring_flat = C.estimate(flat, "allreduce", 1 << log, algorithm="ring")
        ring_over = C.estimate(over, "allreduce", 1 << log, algorithm="ring")
        assert ring_over.time_us == ring_flat.time_us
        assert not ring_over.bottleneck.startswith("oversubscription")
