"""What if it grows: a phased build-out, what each phase adds, and where recabling begins.

Each phase is the design sized for that phase's servers. Two phases are compared link by
link on the device graph (links join named devices, which keep their names as the fabric
grows): a link of the earlier phase that the later one no longer has must be
moved, which is recabling. It appears where a core tier is added (leaf-spine links move to
pod spines) or where the spine count changes, so the uplinks of the installed leaves spread
over more spines. The alternative sizes spines (and the core) for the final phase from day
one, and it is checked the same way; both paths are priced from the price book.

Counts and recabling are computed; prices are the price book's (illustrative unless a
source says otherwise); labour for recabling is not priced because no figure is published.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from designer.catalog import Catalog, default_catalog
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import Bom, build_bom
from designer.model.physical.prices import PriceBook
from designer.model.topology.derive import Derived, derive
from designer.model.topology.sizing import SizingError

RECABLING_LABOUR = "recabling labour is not priced: no published figure"


class GrowthError(ValueError):
    """A phase list that cannot be grown: one line for the user."""


@dataclass(frozen=True)
class Phase:
    number: int
    sus: int                     # scalable units (rail-optimized), else 0
    servers: int
    gpus: int
    tiers: int
    switches: dict[str, int]
    links: dict[str, int]        # cabled in this phase (all links of the phase's fabric)
    reserved_ports: dict[str, int]   # spine/core ports installed now, cabled only in later phases
    free_ports: dict[str, int]   # ports free on the installed switches after this phase
    bom_delta: tuple[dict[str, Any], ...]  # items bought in this phase: key, description, quantity, cost
    cost: float                  # whole fabric at this phase
    cost_delta: float            # bought in this phase
    recabled_links: int          # links of the previous phase that have to move
    recabling: tuple[str, ...]   # where and why
    design: FabricDesign = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"phase": self.number, "sus": self.sus, "servers": self.servers, "gpus": self.gpus,
                "tiers": self.tiers, "switches": dict(self.switches), "links": dict(self.links),
                "reserved_ports": dict(self.reserved_ports), "free_ports": dict(self.free_ports),
                "bom_delta": list(self.bom_delta), "cost": self.cost, "cost_delta": self.cost_delta,
                "recabled_links": self.recabled_links, "recabling": list(self.recabling)}


@dataclass(frozen=True)
class GrowthPath:
    label: str
    phases: tuple[Phase, ...]

    @property
    def needs_recabling(self) -> bool:
        return any(p.recabled_links for p in self.phases)

    @property
    def day_one_cost(self) -> float:
        return self.phases[0].cost if self.phases else 0.0

    @property
    def final_cost(self) -> float:
        return sum(p.cost_delta for p in self.phases)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "needs_recabling": self.needs_recabling,
                "day_one_cost": self.day_one_cost, "total_cost": self.final_cost,
                "phases": [p.to_json() for p in self.phases]}


@dataclass(frozen=True)
class Growth:
    target_gpus: int
    unit: str                    # "SU" or "GPUs": what the phase numbers count
    path: GrowthPath
    alternative: GrowthPath | None
    currency: str
    prices_note: str
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"target_gpus": self.target_gpus, "unit": self.unit, "currency": self.currency,
                "prices": self.prices_note, "computed": ["switches", "links", "ports", "recabling"],
                "estimated": ["cost"], "path": self.path.to_json(),
                "alternative": self.alternative.to_json() if self.alternative else None,
                "notes": list(self.notes)}


def _servers_for(design: FabricDesign, value: int, unit: str, gpus_per_server: int) -> int:
    if unit == "SU":
        return value * design.fabric.nodes_per_su
    if value % gpus_per_server:
        raise GrowthError(f"{value:,} GPUs is not a whole number of {gpus_per_server}-GPU servers")
    return value // gpus_per_server


def phase_values(derived: Derived, to_gpus: int, phases: list[int] | None) -> tuple[list[int], str]:
    """Phase sizes in SUs (rail-optimized) or GPUs, ending at the target."""
    design, r = derived.design, derived.resolved
    rail = design.fabric.template == "rail-optimized"
    unit = "SU" if rail else "GPUs"
    per_unit = design.fabric.nodes_per_su * r.gpus_per_server if rail else 1
    if to_gpus <= 0:
        raise GrowthError(f"the target must be a positive GPU count, got {to_gpus}")
    if to_gpus % per_unit or to_gpus % r.gpus_per_server:
        raise GrowthError(f"{to_gpus:,} GPUs is not a whole number of {per_unit:,}-GPU {unit if rail else 'servers'}")
    target = to_gpus // per_unit
    if phases:
        values = list(phases)
        if any(v <= 0 for v in values) or values != sorted(set(values)):
            raise GrowthError("phases must be positive and increasing, e.g. 4,8,16")
        if values[-1] > target:
            raise GrowthError(f"phase {values[-1]} {unit} is beyond the target of {target:,} {unit}")
        if values[-1] < target:
            values.append(target)
    else:
        now = derived.plan.sus if rail else derived.plan.servers * r.gpus_per_server
        values = [now] if now < target else []
        while values and values[-1] * 2 < target:
            values.append(values[-1] * 2)
        values.append(target)
    return values, unit


def _links(d: Derived) -> Counter[tuple[str, str]]:
    """Links by the pair of devices they join (device names persist from phase to phase).

    Counting by pair, not by port, gives the fewest links that have to move: a link whose
    pair keeps at least as many links can stay where it is.
    """
    out: Counter[tuple[str, str]] = Counter()
    for u, v in d.graph.edges():
        out[(u, v) if u < v else (v, u)] += 1
    return out


def _switch_ports(d: Derived) -> dict[str, tuple[str, int]]:
    g = d.graph
    return {n: (data["role"], g.degree(n)) for n, data in g.nodes(data=True) if data["role"] != "nic"}


def _bom_items(bom: Bom) -> dict[tuple[str, str], tuple[str, int, float]]:
    out: dict[tuple[str, str], tuple[str, int, float]] = {}
    for it in bom.items:
        key = (it.category, it.part_number)
        desc, q, c = out.get(key, (it.description, 0, 0.0))
        out[key] = (desc, q + it.quantity, c + it.extended_price)
    return out


def _build_path(label: str, designs: list[FabricDesign], values: list[int], unit: str,
                catalog: Catalog, prices: PriceBook | None) -> tuple[GrowthPath, str, str]:
    derived = [derive(d, catalog) for d in designs]
    final_ports = _switch_ports(derived[-1])
    phases: list[Phase] = []
    prev_links: Counter[tuple[str, str]] = Counter()
    prev_items: dict[tuple[str, str], tuple[str, int, float]] = {}
    prev_cost = 0.0
    currency, note = "USD", ""
    for n, (d, value) in enumerate(zip(derived, values, strict=True), start=1):
        m = d.metrics
        bom = build_bom(d, catalog, prices)
        currency = bom.currency
        note = "illustrative estimate, not a quote" if bom.illustrative_prices else "from the price book"
        items = _bom_items(bom)
        delta = []
        for key in sorted(set(items) | set(prev_items)):
            desc, q, c = items.get(key, prev_items.get(key, ("", 0, 0.0)))
            q0, c0 = prev_items.get(key, ("", 0, 0.0))[1:]
            q1, c1 = (items[key][1], items[key][2]) if key in items else (0, 0.0)
            if q1 != q0:
                delta.append({"category": key[0], "part_number": key[1], "description": desc,
                              "quantity": q1 - q0, "cost": round(c1 - c0, 2)})
        links = _links(d)
        moved = sum((prev_links - links).values())
        reasons = []
        if n > 1 and moved:
            before = phases[-1]
            if m.tiers > before.tiers:
                reasons.append(f"phase {n} adds a core tier: {moved:,} links of phase {n - 1} move "
                               "(leaf uplinks go to pod spines, spine uplinks to the core)")
            elif m.switches_by_tier.get("spine", 0) != before.switches.get("spine", 0):
                reasons.append(f"phase {n} takes spines from {before.switches.get('spine', 0)} to "
                               f"{m.switches_by_tier.get('spine', 0)}: the installed leaves spread their uplinks "
                               f"over more spines, so {moved:,} links move")
            else:
                reasons.append(f"phase {n} moves {moved:,} links of phase {n - 1} "
                               "(servers or uplinks are spread differently at the new size)")
        ports = _switch_ports(d)
        reserved: Counter[str] = Counter()
        for sw, (role, used) in ports.items():
            final = final_ports.get(sw)
            if role in ("spine", "core") and final and final[0] == role and final[1] > used:
                reserved[role] += final[1] - used
        free = {t: p.ports_free for t, p in m.ports_by_tier.items()}
        phases.append(Phase(n, value if unit == "SU" else 0, m.servers, m.gpus, m.tiers,
                            dict(m.switches_by_tier), dict(m.links_by_tier), dict(reserved), free,
                            tuple(delta), bom.total_cost, round(bom.total_cost - prev_cost, 2), moved,
                            tuple(reasons), d.design))
        prev_links, prev_items, prev_cost = links, items, bom.total_cost
    return GrowthPath(label, tuple(phases)), currency, note


def _sized(design: FabricDesign, servers: int, **fabric: Any) -> FabricDesign:
    return replace(design, cluster=replace(design.cluster, servers=servers),
                   fabric=replace(design.fabric, **fabric) if fabric else design.fabric)


def grow(design: FabricDesign, to_gpus: int, phases: list[int] | None = None,
         catalog: Catalog | None = None, prices: PriceBook | None = None) -> Growth:
    """The phase path from the design's own sizing, and the alternative that avoids recabling."""
    catalog = catalog or default_catalog()
    if design.edits:
        raise GrowthError("growth phases are sized from the template; this design has manual edits")
    base = derive(design, catalog)
    values, unit = phase_values(base, to_gpus, phases)
    g = base.resolved.gpus_per_server
    servers = [_servers_for(design, v, unit, g) for v in values]
    try:
        designs = [_sized(design, s) for s in servers]
        path, currency, note = _build_path("as sized for each phase", designs, values, unit, catalog, prices)
    except SizingError as exc:
        raise GrowthError(f"a phase cannot be sized: {exc}") from None
    notes = [RECABLING_LABOUR]
    alternative = None
    if path.needs_recabling:
        final = path.phases[-1]
        final_plan = derive(designs[-1], catalog).plan
        if final.tiers == 2:
            fixed = {"spine": replace(design.fabric.spine, count=final_plan.spines), "tiers": 2}
            label = f"{final_plan.spines} spines from day one"
        else:
            fixed = {"tiers": 3, "core": replace(design.fabric.core, count=final_plan.cores)}
            label = f"three tiers with {final_plan.cores} core switches from day one"
        try:
            alt_designs = [_sized(design, s, **fixed) for s in servers]
            alternative, _, _ = _build_path(label, alt_designs, values, unit, catalog, prices)
        except SizingError as exc:
            notes.append(f"no alternative: {label} cannot be sized ({exc})")
        if alternative and alternative.needs_recabling:
            notes.append(f"{label} still moves links; no recabling-free path was found")
    return Growth(to_gpus, unit, path, alternative, currency, note, tuple(notes))
