"""Every port mode a design's fabric could run, priced: the Inspector's table of modes.

A mode is a switch model with the speed its switch-to-switch links run at in cages shared with
the server-facing ports (a 102.4T switch as 512 x 200G, or 200G to the servers and 800G between
switches). Each (switch, mode) that the design's technology offers is sized on the design as it
stands (servers, template, tiers, oversubscription, layout), by the same `plan_fabric` as the
design itself, and priced from its whole bill of materials (switches, optics, breakout cables,
racks), so the figures are those `bom` gives once the mode is chosen. A mode that cannot be built
says why in one line.

Which one sizing takes is `switch_choice.pick`'s rule, the one `new` applies: the cheapest
priced fabric (then the fewest switches and ports); without full prices, the fewest switches.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from designer.catalog import Catalog, Switch, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import Bom, build_bom
from designer.model.physical.fabric_cost import shared_counts
from designer.model.physical.prices import PriceBook
from designer.model.topology.bounds import plan_totals
from designer.model.topology.derive import derive
from designer.model.topology.sizing import SizingError, resolve
from designer.model.topology.switch_choice import FabricCost, Option, candidates, modes_text, pick, size_option

_ERRORS = (SizingError, UnknownPartError, ValueError)

# A heuristic ceiling: a mode whose fabric has more links than this is sized (switches, tiers,
# links) but its bill is not priced in the table. A million-GPU bill counted by class of link takes
# 2 to 5 s of CPU and 0.5 to 0.7 GB (oversubscribed fabrics included), and the table holds up to a
# dozen modes of several switches; `new` prices the modes of its one switch, and `bom` on the
# design in a mode prices it. The 131,072-GPU two-tier fabric (about a million links) stays priced.
TABLE_PRICE_MAX_LINKS = 2_000_000


@dataclass(frozen=True)
class ModeRow:
    """One (switch, mode) of the table: its figures when it builds, else why not."""

    switch: Switch
    link_gbps: int                 # to the servers
    uplink_gbps: int               # between switches (equal to link_gbps: one mode for every port)
    design: FabricDesign | None    # the design in this mode; None when it cannot be built
    why_not: str = ""              # why it cannot be built
    tiers: int = 0
    switches: int = 0
    transceivers: int = 0          # modules, both ends
    breakouts: int = 0             # cables with more than one far-end leg (splitters, breakout fibers)
    links: int = 0
    power_w: float = 0.0           # switches, NICs and optics, as the bill gives it
    cost: float | None = None      # the fabric's bill; None when a part is unpriced
    cost_text: str = ""            # the currency, or why there is no total
    priced: bool = True            # its bill was built (False: too many links to price here)
    current: bool = False          # the mode the design runs now
    chosen: bool = False           # the mode sizing takes

    @property
    def modes_text(self) -> str:
        return modes_text(self.switch, self.link_gbps, self.uplink_gbps)

    @property
    def feasible(self) -> bool:
        return self.design is not None


@dataclass(frozen=True)
class ModeTable:
    rows: tuple[ModeRow, ...]
    why: str                       # which mode sizing takes and why, one sentence
    currency: str

    @property
    def current(self) -> ModeRow | None:
        return next((r for r in self.rows if r.current), None)

    @property
    def chosen(self) -> ModeRow | None:
        return next((r for r in self.rows if r.chosen), None)


def in_mode(design: FabricDesign, switch_id: str, link_gbps: int, uplink_gbps: int) -> FabricDesign:
    """`design` with its fabric switch and switch-to-switch speed set to a mode (the uplink speed
    left unset where it equals the server links', as `new` writes it); every other field kept.
    Another switch model than the fabric's serves every tier, as sizing's candidates do: a tier's
    own switch is then dropped (the design's own switch keeps its tiers' choices)."""
    f = design.fabric
    fabric = dataclasses.replace(f, switch=switch_id, uplink_gbps=uplink_gbps if uplink_gbps != link_gbps else None)
    if switch_id != f.switch:
        fabric = dataclasses.replace(fabric, leaf=dataclasses.replace(f.leaf, switch=None),
                                     spine=dataclasses.replace(f.spine, switch=None),
                                     core=dataclasses.replace(f.core, switch=None))
    return dataclasses.replace(design, fabric=fabric)


def _speeds(switch: Switch, link: int) -> list[int]:
    """The switch-to-switch speeds of `switch` for servers at `link`: its own modes at least as
    fast and a whole multiple of it (the cages are shared: 8 x 200G beside 2 x 800G)."""
    return [g for g in switch.speeds if g >= link and g % link == 0]


def _breakouts(bom: Bom, catalog: Catalog) -> int:
    return sum(i.quantity for i in bom.items if i.key in catalog.cables and catalog.cables[i.key].legs > 1)


def _row(design: FabricDesign, switch: Switch, link: int, up: int, catalog: Catalog,
         prices: PriceBook) -> ModeRow:
    made = in_mode(design, switch.id, link, up)
    try:
        derived = derive(made, catalog)
    except _ERRORS as exc:
        return ModeRow(switch, link, up, None, why_not=str(exc))
    if derived.metrics.errors:
        return ModeRow(switch, link, up, None, why_not=derived.metrics.errors[0].message)
    r = derived.resolved
    if up != link and (r.spine_switch.ports_at(up) == 0 or r.core_switch.ports_at(up) == 0):
        return ModeRow(switch, link, up, None, why_not=f"a tier's switch has no {up}G ports")
    m = derived.metrics
    links = plan_totals(made, r, derived.plan)["links"]
    if links > TABLE_PRICE_MAX_LINKS:
        return ModeRow(switch, link, up, made, tiers=m.tiers, switches=m.switches_total, links=links,
                       priced=False, cost_text=f"not priced here ({links:,} links): bom prices the design in "
                                               "this mode")
    bom = build_bom(derived, catalog, prices, physical=shared_counts(derived, catalog))
    unfit = next((f.message for f in bom.findings if f.severity == "error"), "")
    # As fabric_cost: a bill that leaves out links no cable fits, or a part without a price, has no total.
    cost = None if unfit or bom.incomplete else bom.total_cost
    text = f"not buildable: {unfit}" if unfit else bom.incomplete_note() if bom.incomplete else prices.currency
    return ModeRow(switch, link, up, made, tiers=m.tiers, switches=m.switches_total,
                   transceivers=bom.optics_count, breakouts=_breakouts(bom, catalog),
                   links=int(bom.counts["links_total"]), power_w=bom.total_power_w, cost=cost,
                   cost_text=text)


def _known_cost(total: float | None, text: str) -> FabricCost:
    """The cost function `pick` reads, answering with the row's bill already priced."""
    def cost(_design: FabricDesign) -> tuple[float | None, str]:
        return total, text
    return cost


def mode_table(design: FabricDesign, catalog: Catalog, prices: PriceBook) -> ModeTable:
    """Every (switch, mode) of the design's technology sized on the design and priced; raises
    SizingError when the design itself cannot be resolved."""
    r = resolve(design, catalog)
    link = r.link_gbps
    pool: dict[str, Switch] = {r.leaf_switch.id: r.leaf_switch}
    for sw in candidates(catalog, r.technology):
        pool.setdefault(sw.id, sw)
    rows: list[ModeRow] = []
    options: list[Option] = []
    by_design: dict[int, int] = {}
    current = (r.leaf_switch.id, r.uplink_gbps)
    for sw in pool.values():
        speeds = _speeds(sw, link)
        if not sw.ports_at(link):
            rows.append(ModeRow(sw, link, link, None, why_not=f"no {link}G ports for the servers' links "
                                                                f"(it offers {sw.radix_label()})"))
            continue
        one_tier = False
        for up in speeds:
            if one_tier:
                break       # one switch per plane: no switch-to-switch links, so no other mode
            row = _row(design, sw, link, up, catalog, prices)
            if row.design is not None and row.tiers == 1:
                one_tier = True
                row = dataclasses.replace(row, uplink_gbps=link)
            rows.append(row)
            if row.design is not None:
                option = size_option(row.design, catalog, _known_cost(row.cost, row.cost_text))
                by_design[id(option)] = len(rows) - 1
                options.append(option)
    chosen_at = -1
    why = "no mode of the technology's switches builds this design"
    if options:
        best, _ = pick(options)
        chosen_at = by_design[id(best)]
        priced = best.cost is not None
        why = (f"Sizing takes the cheapest fabric that meets the design, the whole bill at price-book "
               f"estimates: {_label(rows[chosen_at])}" if priced else
               f"No mode has a full price here, so sizing takes the fewest switches (a tie: the mode sized "
               f"first): {_label(rows[chosen_at])}")
    marked = []
    for i, row in enumerate(rows):
        is_current = row.feasible and (row.switch.id, row.uplink_gbps) == current
        marked.append(dataclasses.replace(row, chosen=i == chosen_at, current=is_current))
    if not any(r.current for r in marked) and r.uplink_gbps != link:
        # The design's own mode on a tier whose switch lacks it, or a speed no mode offers: said, not hidden.
        row = _row(design, r.leaf_switch, link, r.uplink_gbps, catalog, prices)
        marked.insert(0, dataclasses.replace(row, current=row.feasible))
    table = ModeTable(tuple(marked), why, prices.currency)
    mine, best_row = table.current, table.chosen
    if mine is not None and best_row is not None and mine is not best_row:
        table = dataclasses.replace(table, why=f"{why}. This design runs {_label(mine)}"
                                    + _difference(mine, best_row))
    elif mine is not None and best_row is mine:
        table = dataclasses.replace(table, why=f"{why}, the mode this design runs")
    return table


def _label(row: ModeRow) -> str:
    return f"{row.switch.name} in {row.modes_text}"


def _difference(mine: ModeRow, best: ModeRow) -> str:
    if mine.cost is None or best.cost is None:
        return f" ({mine.switches:,} switches against {best.switches:,})"
    more = mine.cost - best.cost
    if abs(more) < 0.5:
        return ", at the same price (a tie goes to the fewer switches, then the mode sized first)"
    return f", {best.cost_text} {abs(more):,.0f} {'more' if more > 0 else 'less'}"
