"""`compare --counterpart cheapest-topology`: the same cluster on the topology that costs least.

The first design's servers, technology and oversubscription are rebuilt on every template
(leaf-spine, fat-tree, rail-optimized, rail-only) with the fewest tiers that fit, and on the
design's own template in each other tier count, on the technology's switches and on the design's
own switch (a three-tier fabric beside the two-tier one a
102.4T switch in 512 x 200G mode makes of 100K GPUs), each sized as `new` does (the cheapest
switch, port mode, uplink speed and layout of the technology) and priced from its whole bill of
materials; one that is the design itself again is left out. The cheapest priced one is the
counterpart. The comparison then sets it beside the design with its collective times (a
rail-only fabric's all-to-all pays its NVLink forward, performance/rail_only.py) and the verdict
weighs that in the step time and the cost per million tokens.
"""

from __future__ import annotations

import dataclasses

from designer.catalog import Catalog, UnknownPartError
from designer.model.decisions.counterpart import Counterpart
from designer.model.intent.design import FabricDesign
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import PriceBook, default_prices
from designer.model.topology.presets import TEMPLATES, new_design_choice
from designer.model.topology.sizing import SizingError, plan_fabric, resolve
from designer.model.topology.switch_choice import FabricCost, SwitchChoice, candidates

CHEAPEST_TOPOLOGY = "cheapest-topology"


def _priced(choice: SwitchChoice, cost: FabricCost) -> tuple[float | None, str]:
    """The chosen fabric's bill: as sizing priced it, or priced now where sizing left it unpriced
    (a fabric of more links than sizing prices per candidate: one bill per template here)."""
    chosen = choice.chosen
    if chosen is not None and chosen.cost is not None:
        return chosen.cost, chosen.cost_text
    try:
        return cost(choice.design)
    except (SizingError, UnknownPartError, ValueError) as exc:
        return None, str(exc)


def _shape(design: FabricDesign, catalog: Catalog) -> tuple[str, int, str, int, int]:
    """What makes two designs of one cluster the same fabric: template, tiers, switch and modes."""
    r = resolve(design, catalog)
    return (design.fabric.template, plan_fabric(design, r).tiers, r.leaf_switch.id, r.link_gbps, r.uplink_gbps)


def _variants(design: FabricDesign, catalog: Catalog) -> list[tuple[str, int | None, str | None]]:
    """(template, tiers, switch) to try: every template with the fewest tiers that fit, and the
    design's own template in each other tier count of two or more; each on the technology's
    switches (switch None: the cheapest of them) and on the design's own switch where the
    technology does not offer it (a 102.4T stand-in the user named)."""
    own = design.fabric.template
    r = resolve(design, catalog)
    tiers = _shape(design, catalog)[1]
    shapes: list[tuple[str, int | None]] = [(t, None) for t in TEMPLATES]
    shapes += [(own, n) for n in (2, 3) if n != tiers and own != "rail-only"]
    offered = {sw.id for sw in candidates(catalog, r.technology)}
    switches: list[str | None] = [None] if r.leaf_switch.id in offered else [None, r.leaf_switch.id]
    return [(t, n, sw) for sw in switches for t, n in shapes]


def _label(template: str, tiers: int | None, design: FabricDesign, catalog: Catalog) -> str:
    n = tiers or _shape(design, catalog)[1]
    return f"{template} in {n} tier{'s' if n != 1 else ''}"


def cheapest_topology(design: FabricDesign, catalog: Catalog, prices: PriceBook | None = None) -> Counterpart:
    """The cluster of `design` on the cheapest other topology; raises SizingError when none builds."""
    book = prices or default_prices()
    cost, bound = fabric_cost(catalog, book), fabric_bound(catalog, book)
    if cost is None:
        raise SizingError("no price book to price the topologies by")
    r = resolve(design, catalog)
    f = design.fabric
    mine = _shape(design, catalog)
    built: list[tuple[float, str, str, SwitchChoice]] = []
    refused: list[str] = []
    seen: set[tuple[str, int, str, int, int]] = {mine}
    for template, tiers, switch in _variants(design, catalog):
        name = (template if tiers is None else f"{template} in {tiers} tiers") + (f" on {switch}" if switch else "")
        try:
            choice = new_design_choice(
                catalog, template, nodes=design.cluster.servers, server=r.server.id, technology=r.technology.id,
                oversubscription=f.leaf.oversubscription, spine_oversubscription=f.spine.oversubscription,
                planes=f.planes, tiers=tiers, switch=switch, cost=cost, bound=bound)
            shape = _shape(choice.design, catalog)
        except (SizingError, UnknownPartError, ValueError) as exc:
            refused.append(f"{name}: {exc}")
            continue
        if shape in seen:
            continue          # the design itself, or a fabric already tried
        seen.add(shape)
        total, why = _priced(choice, cost)
        if total is None:
            refused.append(f"{name}: not fully priced ({why})")
            continue
        built.append((total, why, _label(template, tiers, choice.design, catalog), choice))
    if not built:
        raise SizingError(f"no other topology of this cluster could be built and priced ({'; '.join(refused)})")
    _, _, label_text, best = min(built, key=lambda b: b[0])
    label = f"{design.meta.name.rstrip()} \u2013 {label_text}"
    made = dataclasses.replace(best.design, meta=dataclasses.replace(best.design.meta, name=label),
                               networks=design.networks)
    priced = "; ".join(f"{t}: {_option_text(c, total, currency)}"
                       for total, currency, t, c in sorted(built, key=lambda b: b[0]))
    notes = (f"cheapest topology of {len(built)} other designs: {label_text} (fabric bill at price-book "
             f"estimates: {priced})",
             *(f"not built: {why}" for why in refused),
             *best.notes)
    return Counterpart(made, notes)


def _option_text(choice: SwitchChoice, total: float, currency: str) -> str:
    """'Tomahawk 6 class 102.4T switch in 512 x 200G: 3,072 switches, USD 1,330,612,720'."""
    chosen = choice.chosen
    if chosen is None:
        return f"{currency} {total:,.0f}"
    return f"{chosen.switch.name} in {chosen.modes_text}: {chosen.switches:,} switches, {currency} {total:,.0f}"
