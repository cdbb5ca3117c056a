"""What a candidate fabric costs, for choosing the switch: its whole bill of materials.

Sizing compares the technology's switches by this (topology/switch_choice.py). Switches, optics,
cables and network racks all count, so a switch whose port mode needs more or dearer optics is
not mistaken for the cheaper one. A bill with any part unpriced has no total: it is reported,
never taken as free.
"""

from __future__ import annotations

from typing import Any

from designer.catalog import Catalog
from designer.model.common.cache import ContentCache
from designer.model.intent.design import FabricDesign, content_key
from designer.model.intent.serde import to_data
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import PriceBook
from designer.model.topology.derive import derive
from designer.model.topology.switch_choice import FabricCost

# Candidate fabrics priced, by what their bill of materials reads: sizing prices the same
# candidate again for every counterpart of a comparison, and two technologies of one family on
# the same switches (static and enhanced ECMP) give the same bill. A value keeps its catalog and
# price book alive, so the ids in its key name no other object while it is cached.
_COSTS: ContentCache[tuple[tuple[float | None, str], Any, Any]] = ContentCache(size=2048)


def _bill_key(design: FabricDesign, catalog: Catalog) -> str:
    """The design's content as its bill of materials reads it: the name left out, and the
    technology by its family (the physical layer reads nothing else of it: media, optics and the
    switches' and NIC's families)."""
    data = to_data(design)
    data.pop("meta", None)
    tech = catalog.technologies.get(design.fabric.technology)
    data["fabric"]["technology"] = f"family:{tech.family}" if tech is not None else design.fabric.technology
    return content_key(data)


def fabric_cost(catalog: Catalog, prices: PriceBook | None) -> FabricCost | None:
    """A cost function over designs priced from `prices`; None (fewest switches) without a book."""
    if prices is None:
        return None

    def cost(design: FabricDesign) -> tuple[float | None, str]:
        key = (_bill_key(design, catalog), id(catalog), id(prices))
        return _COSTS.get_or_compute(key, lambda: (priced(design), catalog, prices))[0]

    def priced(design: FabricDesign) -> tuple[float | None, str]:
        derived = derive(design, catalog)
        if derived.metrics.errors:
            return None, "not buildable"
        bom = build_bom(derived, catalog, prices)
        if bom.incomplete:
            return None, bom.incomplete_note()
        return bom.total_cost, prices.currency

    return cost
