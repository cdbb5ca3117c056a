"""What a candidate fabric costs, for choosing the switch: its whole bill of materials.

Sizing compares the technology's switches by this (topology/switch_choice.py). Switches, optics,
cables and network racks all count, so a switch whose port mode needs more or dearer optics is
not mistaken for the cheaper one. A bill with any part unpriced has no total: it is reported,
never taken as free.
"""

from __future__ import annotations

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import PriceBook
from designer.model.topology.derive import derive
from designer.model.topology.switch_choice import FabricCost


def fabric_cost(catalog: Catalog, prices: PriceBook | None) -> FabricCost | None:
    """A cost function over designs priced from `prices`; None (fewest switches) without a book."""
    if prices is None:
        return None

    def cost(design: FabricDesign) -> tuple[float | None, str]:
        derived = derive(design, catalog)
        if derived.metrics.errors:
            return None, "not buildable"
        bom = build_bom(derived, catalog, prices)
        if bom.incomplete:
            return None, bom.incomplete_note()
        return bom.total_cost, prices.currency

    return cost
