"""`compare --counterpart cheapest-topology`: the same cluster on the topology that costs least.

The first design's servers, technology and oversubscription are rebuilt with every other
template (leaf-spine, fat-tree, rail-optimized, rail-only), each sized and priced as `new` does
(the cheapest switch and layout of the technology, the whole bill of materials); the cheapest
priced one is the counterpart. The comparison then sets it beside the design with its collective
times (a rail-only fabric's all-to-all pays its NVLink forward, performance/rail_only.py) and the
verdict weighs that in the step time and the cost per million tokens.
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
from designer.model.topology.sizing import SizingError, resolve
from designer.model.topology.switch_choice import SwitchChoice

CHEAPEST_TOPOLOGY = "cheapest-topology"


def _priced(choice: SwitchChoice) -> float | None:
    chosen = choice.chosen
    return chosen.cost if chosen is not None else None


def cheapest_topology(design: FabricDesign, catalog: Catalog, prices: PriceBook | None = None) -> Counterpart:
    """The cluster of `design` on the cheapest other template; raises SizingError when none builds."""
    book = prices or default_prices()
    cost, bound = fabric_cost(catalog, book), fabric_bound(catalog, book)
    r = resolve(design, catalog)
    f = design.fabric
    built: list[tuple[float, str, SwitchChoice]] = []
    refused: list[str] = []
    for template in TEMPLATES:
        if template == f.template:
            continue
        try:
            choice = new_design_choice(
                catalog, template, nodes=design.cluster.servers, server=r.server.id, technology=r.technology.id,
                oversubscription=f.leaf.oversubscription, spine_oversubscription=f.spine.oversubscription,
                planes=f.planes, cost=cost, bound=bound)
        except (SizingError, UnknownPartError, ValueError) as exc:
            refused.append(f"{template}: {exc}")
            continue
        total = _priced(choice)
        if total is None:
            refused.append(f"{template}: not fully priced")
            continue
        built.append((total, template, choice))
    if not built:
        raise SizingError(f"no other topology of this cluster could be built and priced ({'; '.join(refused)})")
    total, template, best = min(built, key=lambda b: b[0])
    label = f"{design.meta.name.rstrip()} \u2013 {template}"
    made = dataclasses.replace(best.design, meta=dataclasses.replace(best.design.meta, name=label),
                               networks=design.networks)
    priced = "; ".join(f"{t} {c.chosen.label if c.chosen else ''}" for _, t, c in sorted(built, key=lambda b: b[0]))
    notes = (f"cheapest topology of {len(built)} other templates: {template} (fabric bill at price-book "
             f"estimates: {priced})",
             *(f"not built: {why}" for why in refused),
             *best.notes)
    return Counterpart(made, notes)
