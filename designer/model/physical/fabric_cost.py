"""What a candidate fabric costs, for choosing the switch: its whole bill of materials.

Sizing compares the technology's switches by this (topology/switch_choice.py). Switches, optics,
cables and network racks all count, so a switch whose port mode needs more or dearer optics is
not mistaken for the cheaper one. A bill with any part unpriced has no total: it is reported,
never taken as free.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from designer.catalog import Catalog, Switch
from designer.model.common.cache import ContentCache
from designer.model.intent.design import FabricDesign, content_key
from designer.model.intent.serde import to_data
from designer.model.physical.bom import build_bom
from designer.model.physical.closed_form_bom import PhysicalCounts
from designer.model.physical.edited_bom import physical_counts
from designer.model.physical.prices import PriceBook
from designer.model.topology.derive import Derived, derive
from designer.model.topology.switch_choice import FabricCost

# Candidate fabrics priced, by what their bill of materials reads: sizing prices the same
# candidate again for every counterpart of a comparison, and two technologies of one family on
# the same switches (static and enhanced ECMP) give the same bill. A value keeps its catalog and
# price book alive, so the ids in its key name no other object while it is cached.
_COSTS: ContentCache[tuple[tuple[float | None, str], Any, Any]] = ContentCache(size=2048)

# Physical counts (racks, media, optics, cables) of candidate fabrics, by what the physical layer
# reads of them: a switch by its physical make-up, not its name. Sizing prices the same layouts
# on every switch model of a technology and on each counterpart's switches, and two switches
# alike in cages, port modes, rack units and optics (Spectrum-4 SN5600 and a Tomahawk 5 box) give
# the same counts; only the switches' own line differs. A value keeps its catalog alive.
_COUNTS: ContentCache[tuple[PhysicalCounts | None, Any]] = ContentCache(size=512)

# What a switch entry says about where it comes from and what it is called, not what it is
# physically: the physical layer reads none of these (a field not listed here is part of the key,
# so a field added to Switch never makes two different switches share counts).
_NOT_PHYSICAL = frozenset({"id", "name", "source", "vendor", "part_number", "notes", "estimates",
                           "estimate_basis", "available", "status", "currency_source", "stand_in",
                           "load_balancing"})


def _bill_key(design: FabricDesign, catalog: Catalog) -> str:
    """The design's content as its bill of materials reads it: the name left out, and the
    technology by its family (the physical layer reads nothing else of it: media, optics and the
    switches' and NIC's families)."""
    data = to_data(design)
    data.pop("meta", None)
    tech = catalog.technologies.get(design.fabric.technology)
    data["fabric"]["technology"] = f"family:{tech.family}" if tech is not None else design.fabric.technology
    return content_key(data)


def _physical_make(switch: Switch) -> str:
    """The switch as the physical layer reads it: every field but its names and provenance."""
    return repr([(f.name, getattr(switch, f.name)) for f in dataclasses.fields(switch)
                 if f.name not in _NOT_PHYSICAL])


# Makes by switch object: sizing keys every candidate of a technology with the same few catalog
# switches. A value holds its switch, so the id names no other object while it is kept.
_MAKES: dict[int, tuple[Switch, str]] = {}


def _make_of(switch: Switch) -> str:
    known = _MAKES.get(id(switch))
    if known is None or known[0] is not switch:
        if len(_MAKES) > 256:
            _MAKES.clear()
        known = _MAKES[id(switch)] = (switch, _physical_make(switch))
    return known[1]


def _fields_but(obj: Any, left_out: frozenset[str]) -> list[tuple[str, Any]]:
    return [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.name not in left_out]


_FABRIC_OWN = frozenset({"technology", "switch", "leaf", "spine", "core"})
_TIER_OWN = frozenset({"switch"})


def physical_key(derived: Derived, catalog: Catalog) -> str:
    """The design's content as the physical layer reads it: `_bill_key`'s content (no name, the
    technology by its family) with each tier's switch, as sizing resolved it, by its physical
    make-up instead of its id.

    Built from the fields' reprs, not the project file's form: sizing keys every candidate it
    bounds, and serialising each would cost more than the floor's cached look-up it serves.
    """
    design, r = derived.design, derived.resolved
    fabric = design.fabric
    tiers = [(tier, _fields_but(fabric.tier(tier), _TIER_OWN), _make_of(switch))
             for tier, switch in (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch))]
    text = repr((f"family:{r.technology.family}", _fields_but(fabric, _FABRIC_OWN), tiers,
                 _fields_but(design, frozenset({"meta", "fabric"}))))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def shared_counts(derived: Derived, catalog: Catalog) -> PhysicalCounts | None:
    """The design's physical counts, shared with every design of the same physical key."""
    key = (physical_key(derived, catalog), id(catalog))
    return _COUNTS.get_or_compute(key, lambda: (physical_counts(derived, catalog), catalog))[0]


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
        bom = build_bom(derived, catalog, prices, physical=shared_counts(derived, catalog))
        unfit = next((f for f in bom.findings if f.severity == "error"), None)
        if unfit is not None:
            # Links no cable or transceiver fits are left out of the bill: its total would pass a
            # fabric that cannot be cabled as the cheapest.
            return None, f"not buildable: {unfit.message}"
        if bom.incomplete:
            return None, bom.incomplete_note()
        return bom.total_cost, prices.currency

    return cost
