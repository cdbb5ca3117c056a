"""The InfiniBand-or-Ethernet verdict in dollars of training, with its confidence.

The same training work costs, per step, what the whole cluster costs for the step's duration:
the network's TCO over the comparison period, the GPU servers' capex over the same period and
their energy, all per hour, times the step time. A fabric whose step waits longer on the
network keeps every GPU idle for that wait, so its step costs more even when its switches cost
less. The figures are given per step, per million tokens of the example workload, and as the
time to train a token budget.

Confidence: every price is drawn within its class band (the price book's `class_band`, one
multiplier per class shared by every design that uses it), and every efficiency within its
stated range (protocol efficiency per family, NCCL's channels and queue pairs for hashed load
balancing); 1,000 seeded draws give the share in which each design costs least per token.
The step time under a draw moves with the network's exposed time (linear in 1/efficiency,
fitted on two re-runs of the step): an approximation, named as such in the output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from designer.model.performance import fleet
from designer.model.performance.collective_costs import load_balancing_mode
from designer.model.performance.flow_placement import (
    MODE_NAMES,
    Placement,
    flows_per_nic,
    full_load,
    place,
    placement_constants,
)
from designer.model.physical.prices import PriceBook

HOURS_PER_YEAR = 8760
DRAWS = 1000
SEED = 20241
# Protocol efficiency ranges sampled per family (share of line rate NCCL moves as payload):
# InfiniBand 0.92-0.96 measured with nccl-tests on NDR (resources/catalog/technologies.toml);
# RoCE 0.85-0.95, the literature's claim for tuned RoCE (REFERENCE.md, a heuristic).
PROTOCOL_RANGE = {"infiniband": (0.92, 0.96), "ethernet": (0.85, 0.95)}
HIST_BINS = 24


@dataclass(frozen=True)
class TrainingCost:
    """One design's cost of the example training work."""

    name: str
    family: str
    servers: int
    server_key: str
    server_price: float | None       # USD per server (price book), None when the book has none
    server_price_basis: str
    network_usd_per_hour: float      # network capex + energy over the period, per hour
    gpu_capex_usd: float | None
    gpu_usd_per_hour: float | None   # server capex over the period + server energy, per hour
    gpu_capex_usd_per_hour: float | None
    step_ms: float
    network_ms: float                # exposed network time of the step (the GPUs wait on it)
    tokens_per_step: float | None
    token_budget: float
    load_balancing: str
    placement: Placement | None      # full-load flow placement on the design's uplinks

    @property
    def usd_per_hour(self) -> float | None:
        return None if self.gpu_usd_per_hour is None else self.network_usd_per_hour + self.gpu_usd_per_hour

    @property
    def cost_per_step(self) -> float | None:
        per_hour = self.usd_per_hour
        return None if per_hour is None else per_hour * self.step_ms / 3.6e6

    @property
    def idle_gpu_per_step(self) -> float | None:
        """GPU capex and energy spent while the step waits on the network."""
        return None if self.gpu_usd_per_hour is None else self.gpu_usd_per_hour * self.network_ms / 3.6e6

    @property
    def cost_per_mtok(self) -> float | None:
        step = self.cost_per_step
        return None if step is None or not self.tokens_per_step else step / self.tokens_per_step * 1e6

    @property
    def train_days(self) -> float | None:
        if not self.tokens_per_step:
            return None
        return self.token_budget / self.tokens_per_step * self.step_ms / 1000 / 86400

    @property
    def load_balance_efficiency(self) -> float:
        return 1.0 if self.placement is None else self.placement.expected

    def to_json(self) -> dict[str, Any]:
        return {"design": self.name, "family": self.family, "servers": self.servers,
                "server_price_usd": self.server_price, "server_price_basis": self.server_price_basis,
                "gpu_capex_usd": self.gpu_capex_usd, "network_usd_per_hour": self.network_usd_per_hour,
                "gpu_usd_per_hour": self.gpu_usd_per_hour, "step_ms": self.step_ms,
                "network_wait_ms": self.network_ms, "tokens_per_step": self.tokens_per_step,
                "cost_per_step_usd": self.cost_per_step, "idle_gpu_usd_per_step": self.idle_gpu_per_step,
                "cost_per_mtok_usd": self.cost_per_mtok, "token_budget": self.token_budget,
                "train_days": self.train_days, "load_balancing": self.load_balancing,
                "load_balance_efficiency": self.load_balance_efficiency,
                "flow_placement": self.placement.to_json() if self.placement else None}


def network_wait_ms(step: Any) -> float:
    """The step's exposed network time: the collectives on the network not hidden behind compute."""
    if step.collectives:
        return float(sum(c.exposed_ms for c in step.collectives if c.where == "network"))
    return float(step.exposed_comm_ms)


def design_placement(derived: Any) -> Placement | None:
    """The design's load balance at full bisection load: every NIC sends its full rate up."""
    mode, _ = load_balancing_mode(derived.resolved.technology, derived.resolved, derived.design.performance)
    plan = derived.plan
    if derived.design.performance.load_balance_efficiency is not None or plan.leaf_up <= 0 or plan.leaves < 2:
        return None
    return full_load(mode, plan.leaves, plan.leaf_up, plan.leaf_down, derived.resolved.technology.qps_per_connection)


def training_cost(name: str, derived: Any, bom: Any, step: Any, prices: PriceBook, years: int,
                  energy_usd_per_kwh: float, pue: float, token_budget: float,
                  network_energy_usd: float) -> TrainingCost:
    """What the example step costs on this design (cluster cost per hour x step time)."""
    hours = years * HOURS_PER_YEAR
    server = derived.resolved.server
    servers = derived.plan.servers
    price = prices.get(server.id)
    per_hour_net = (bom.total_cost + network_energy_usd) / hours
    if price is not None:
        capex = price.unit_price * servers
        energy_per_hour = servers * server.power_w / 1000 * pue * energy_usd_per_kwh
        gpu_capex_hour = capex / hours
        gpu_hour: float | None = gpu_capex_hour + energy_per_hour
    else:
        capex = gpu_hour = gpu_capex_hour = None
    tokens = float(step.workload.global_batch_tokens) if step.workload is not None else None
    placement = design_placement(derived)
    mode = placement.mode if placement else derived.resolved.technology.placement
    return TrainingCost(name, derived.resolved.family, servers, server.id,
                        price.unit_price if price else None, price.basis if price else "", per_hour_net,
                        capex, gpu_hour, gpu_capex_hour, float(step.step_ms), network_wait_ms(step), tokens,
                        token_budget, mode, placement)


# ---------------------------------------------------------------------------------------------
# Confidence: seeded draws of prices and efficiencies


@dataclass(frozen=True)
class Sensitivity:
    """How one design's step time moves with its efficiencies (fitted on re-runs of its step)."""

    protocol_ms: float     # network ms that scale with 1/protocol efficiency
    balance_ms: float      # step ms added per unit of (1/load-balance efficiency - 1)
    protocol: float        # the nominal protocol efficiency
    mode: str
    qps: int
    leaves: int = 0
    uplinks: int = 0
    nics_per_leaf: int = 0
    # The fleet: the step with the ranks placed the other way, minus the computed one, and the
    # step's change at other jobs' load over `background_grid` (interpolated between them).
    placement_ms: float = 0.0
    background_grid: tuple[float, ...] = ()
    background_ms: tuple[float, ...] = ()


def balance_fit(rerun: Callable[..., Any]) -> float:
    """Step ms added between perfect load balance and half of it (re-runs of the step)."""
    at_one, at_half = rerun(load_balance_efficiency=1.0), rerun(load_balance_efficiency=0.5)
    if at_one is None or at_half is None:
        return 0.0
    return max(0.0, float(at_half.step_ms - at_one.step_ms))


def sensitivity(derived: Any, step: Any, rerun: Callable[..., Any] | None) -> Sensitivity:
    """Fit the step's dependence on load balance: the step at perfect balance and at half."""
    perf = derived.design.performance
    tech = derived.resolved.technology
    pe = perf.protocol_efficiency or tech.protocol_efficiency
    placement = design_placement(derived)
    balance_ms, protocol_ms = 0.0, network_wait_ms(step)
    mode = placement.mode if placement else tech.placement
    # The draws move the load balance of hashed fabrics only; the break-evens fit it for the
    # Ethernet design they weigh (balance_fit) when it is not hashed.
    if rerun is not None and mode in ("ecmp", "ecmp-qp"):
        balance_ms = balance_fit(rerun)
    if rerun is not None:
        # step(pe) = a + b / pe, fitted on the step at pe and at 3/4 of it: protocol_ms = b / pe.
        slower = rerun(protocol_efficiency=0.75 * pe)
        if slower is not None:
            protocol_ms = max(0.0, (slower.step_ms - step.step_ms) / (1 / 0.75 - 1))
    placement_ms = 0.0
    grid: tuple[float, ...] = ()
    grid_ms: tuple[float, ...] = ()
    if rerun is not None:
        other = rerun(placement=fleet.other_placement(perf.placement))
        if other is not None:
            placement_ms = other.step_ms - step.step_ms
        bg = fleet.background_load(perf)
        lo, hi = fleet.background_range(bg)
        points = sorted({lo, bg, hi})
        steps = [step if abs(b - bg) < 1e-12 else rerun(background_load=b) for b in points]
        if all(x is not None for x in steps):
            grid, grid_ms = tuple(points), tuple(x.step_ms - step.step_ms for x in steps)
    plan = derived.plan
    return Sensitivity(protocol_ms, balance_ms, pe, placement.mode if placement else tech.placement,
                       tech.qps_per_connection, plan.leaves, plan.leaf_up, plan.leaf_down, placement_ms,
                       grid, grid_ms)


@dataclass(frozen=True)
class Confidence:
    draws: int
    seed: int
    win_share: tuple[float, ...]      # share of draws each design is cheapest alone (ties excluded)
    cost_per_mtok: tuple[tuple[float, float, float], ...]   # p10, p50, p90 per design
    hist_edges: tuple[float, ...]
    hist_counts: tuple[tuple[int, ...], ...]
    unit: str                                               # "USD per million tokens" or "USD per step"
    varied: tuple[str, ...] = field(default=())
    # Share of draws in which each design ties for the lowest cost with another (never split
    # into the win shares), and the share of draws that end in any tie.
    tie_share: tuple[float, ...] = field(default=())
    tied: float = 0.0

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        ties = self.tie_share or tuple(0.0 for _ in names)
        return {"draws": self.draws, "seed": self.seed, "unit": self.unit, "varied": list(self.varied),
                "approximation": "step time moves linearly in 1/efficiency around the computed step",
                "tied_share": self.tied,
                "designs": [{"design": n, "win_share": w, "tie_share": t, "p10": q[0], "p50": q[1], "p90": q[2],
                             "histogram": list(h)}
                            for n, w, t, q, h in zip(names, self.win_share, ties, self.cost_per_mtok,
                                                     self.hist_counts, strict=True)],
                "histogram_edges": list(self.hist_edges)}

    def overlap(self, a: int, b: int) -> bool:
        """Whether designs a and b have overlapping p10-p90 ranges."""
        (lo_a, _, hi_a), (lo_b, _, hi_b) = self.cost_per_mtok[a], self.cost_per_mtok[b]
        return lo_a <= hi_b and lo_b <= hi_a


def _balance_table(s: Sensitivity) -> np.ndarray:
    """Load-balance efficiencies across the heuristic ranges of NCCL channels and queue pairs."""
    if s.mode not in ("ecmp", "ecmp-qp") or s.leaves < 2 or s.uplinks <= 0:
        return np.array([1.0])
    consts = placement_constants()
    # The ends and the middle of each range: enough for a draw's spread, cheap at 16K GPUs.
    channels = sorted({consts.channels_range[0], sum(consts.channels_range) // 2, consts.channels_range[1]})
    qps = sorted({consts.qps_range[0], sum(consts.qps_range) // 2, consts.qps_range[1]}) \
        if s.mode == "ecmp-qp" else [1]
    load = s.nics_per_leaf / s.uplinks
    budget = consts.max_samples // 8
    # The delivered throughput is a mean over flows: it barely moves with the number of leaves
    # beyond a few dozen (unlike the busiest link), so the draws' table places 32 leaves at most.
    leaves = min(s.leaves, 32)
    out = [place(s.mode, leaves, s.uplinks, s.nics_per_leaf, load, flows_per_nic(s.mode, q, ch),
                 budget=budget).expected for ch in channels for q in qps]
    return np.array(out)


# Costs of one draw within this share of each other are a tie.
TIE_REL = 1e-9


# The parts whose discounts are drawn on their own, by BOM category.
DISCOUNT_GROUPS = {"Switches": "switches", "NICs": "NICs", "Transceivers": "transceivers",
                   "Copper cables": "cables", "Fiber": "cables", "Accessories": "accessories"}


# Part groups whose products form a line per fabric family: one vendor's InfiniBand switches and
# its Ethernet switches (Quantum and Spectrum), or its InfiniBand and Ethernet modules, are sold
# and discounted as separate product lines, so their discounts are drawn apart. A NIC that runs
# either family, cables, fiber and the GPU servers are one product whatever the fabric.
FAMILY_LINES = frozenset({"switches", "transceivers"})


def _vendor_costs(bom: Any, vendor_of: Callable[[str], str], family: str = "") -> dict[str, float]:
    """The network's capex by (part group, vendor, and the fabric family for the groups sold as
    one line per family): each vendor's discount is drawn on its own."""
    out: dict[str, float] = {}
    for item in bom.items:
        if not item.extended_price:
            continue
        group = DISCOUNT_GROUPS.get(item.category, item.category)
        key = f"{group}:{vendor_of(item.key) if item.key else ''}"
        if group in FAMILY_LINES and family:
            key += f":{family}"
        out[key] = out.get(key, 0.0) + item.extended_price
    return out


def confidence(costs: Sequence[TrainingCost], sens: Sequence[Sensitivity], boms: Sequence[Any], prices: PriceBook,
               network_energy: Sequence[float], years: int, draws: int = DRAWS, seed: int = SEED,
               vendor_of: Callable[[str], str] | None = None) -> Confidence | None:
    """Share of seeded price and efficiency draws in which each design costs least per token (or step)."""
    if any(c.usd_per_hour is None for c in costs):
        return None
    rng = np.random.default_rng(seed)
    band = prices.class_band or 1.5
    half = math.log(band) / 2
    hours = years * HOURS_PER_YEAR
    who = vendor_of or (lambda key: key)
    by_class = [_vendor_costs(b, who, c.family) for b, c in zip(boms, costs, strict=True)]
    server_class = {c.server_key: f"GPU servers:{who(c.server_key)}" for c in costs}
    classes = sorted({k for d in by_class for k in d} | set(server_class.values()))
    # One discount per vendor and part group, shared by every design buying from it.
    mult = {k: np.exp(rng.uniform(-half, half, draws)) for k in classes}
    fam_pe = {f: rng.uniform(lo, hi, draws) for f, (lo, hi) in PROTOCOL_RANGE.items()}
    # One draw of NCCL's channels / queue pairs per draw, shared by every hashed design.
    pick = rng.random(draws)
    # The fleet of a draw is every design's: the ranks placed the other way in some draws, other
    # jobs' load drawn around the assumed figure (fleet.toml [draws], assumptions).
    fd = fleet.fleet_defaults()
    moved = rng.random(draws) < fd.other_placement_share
    grid = next((s.background_grid for s in sens if s.background_grid), ())
    background = rng.uniform(grid[0], grid[-1], draws) if grid else np.zeros(draws)
    per_token = costs[0].tokens_per_step is not None and all(c.tokens_per_step for c in costs)
    values = []
    for c, s, cls_cost, energy in zip(costs, sens, by_class, network_energy, strict=True):
        capex = sum(mult[k] * v for k, v in cls_cost.items()) if cls_cost else np.zeros(draws)
        net_hour = (capex + energy) / hours
        server_mult = mult[server_class[c.server_key]]
        capex_hour, all_hour = c.gpu_capex_usd_per_hour or 0.0, c.gpu_usd_per_hour or 0.0
        gpu_hour = capex_hour * server_mult + (all_hour - capex_hour)
        pe = fam_pe.get(c.family, np.full(draws, s.protocol))
        table = _balance_table(s)
        lb = table[np.minimum((pick * len(table)).astype(int), len(table) - 1)]
        nominal_lb = c.load_balance_efficiency
        step = (c.step_ms + s.protocol_ms * (s.protocol / pe - 1.0)
                + s.balance_ms * (1.0 / lb - 1.0 / nominal_lb))
        step = step + np.where(moved, s.placement_ms, 0.0)
        if s.background_grid:
            step = step + np.interp(background, s.background_grid, s.background_ms)
        cost = (net_hour + gpu_hour) * np.maximum(step, 0.0) / 3.6e6
        if per_token:
            cost = cost / c.tokens_per_step * 1e6
        values.append(cost)
    v = np.vstack(values)
    # Designs that cost the same in a draw tie: the draw is nobody's win (two fabrics that differ
    # only where the job's traffic never goes), counted apart and never split into shares.
    lowest = v <= v.min(axis=0) * (1 + TIE_REL)
    alone = lowest.sum(axis=0) == 1
    share = (lowest & alone).sum(axis=1) / draws
    tie_share = (lowest & ~alone).sum(axis=1) / draws
    lo, hi = float(v.min()), float(v.max())
    edges = np.linspace(lo, hi if hi > lo else lo + 1e-9, HIST_BINS + 1)
    hists = tuple(tuple(int(x) for x in np.histogram(row, bins=edges)[0]) for row in v)
    quant = tuple(_three(np.percentile(row, (10, 50, 90))) for row in v)
    varied = (f"each vendor's discount on switches, NICs, transceivers, cables and GPU servers on its own (on "
              "switches and transceivers per fabric family too: a vendor's InfiniBand and Ethernet lines apart), "
              "within "
              f"the price book's class band ({band:g}x max/min, the spread its illustrative prices are held to; no "
              "vendor publishes its discounts)",
              "protocol efficiency: InfiniBand 0.92-0.96, RoCE 0.85-0.95",
              "hashed load balance: NCCL channels per peer "
              f"{placement_constants().channels_range[0]}-{placement_constants().channels_range[1]}, "
              f"queue pairs {placement_constants().qps_range[0]}-{placement_constants().qps_range[1]} (enhanced ECMP)",
              f"the fleet: ranks placed the other way in {fd.other_placement_share:.0%} of draws, other jobs' "
              + (f"load {grid[0]:.0%}-{grid[-1]:.0%} of every uplink" if grid else "load as assumed")
              + f" ({fd.draws_basis})")
    return Confidence(draws, seed, tuple(float(x) for x in share), quant, tuple(float(e) for e in edges), hists,
                      "USD per million tokens" if per_token else "USD per step", varied,
                      tuple(float(x) for x in tie_share), float((~alone).mean()))


def _three(values: Any) -> tuple[float, float, float]:
    return float(values[0]), float(values[1]), float(values[2])


def mode_name(mode: str) -> str:
    return MODE_NAMES.get(mode, mode)
