"""Choosing the switch: the cheapest fabric among a technology's switches that meets the targets.

Every candidate is sized by the same `plan_fabric` that builds the design, so the ratio it meets
is the one the design will have: sizing never exceeds the requested oversubscription, and the
achieved ratio is reported beside the one asked for. One switch model serves every tier (spares
and operations stay common); a switch the user names, in the design or with `--switch`, is never
replaced. `new`, `counterpart`, the palette and the inspector all choose through `choose_switch`.

What a fabric costs is the caller's `cost` function: the physical layer prices the whole bill of
materials (switches, optics, cables, racks) from the price book, so the port modes a switch runs
in (an 800G cage as 2 x 400G on twin-port optics, or a 400G cage per link) count as they should.
A fabric with anything unpriced is never taken as free: priced candidates are compared by cost;
when none is priced (or no cost is given), the fewest switches win, then the fewest switch ports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from designer.catalog import Catalog, Switch, Technology, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.topology.sizing import SizingError, plan_fabric, resolve

# What a design's fabric costs: (total, currency) or (None, why it has no total).
FabricCost = Callable[[FabricDesign], "tuple[float | None, str]"]


@dataclass(frozen=True)
class Option:
    """One candidate switch, sized."""

    switch: Switch
    design: FabricDesign
    switches: int          # all tiers and planes
    ports: int             # the switches' ports at the NIC-facing speed
    cost: float | None     # the fabric's cost, None when not (fully) priced
    cost_text: str         # the currency, or why there is no cost
    leaf_ratio: float      # achieved leaf oversubscription (downlink : uplink bandwidth)
    asked_ratio: float
    link_gbps: int         # NIC-facing speed: the port mode the switch runs in

    @property
    def mode(self) -> str:
        """'Spectrum-4 SN5600 in 128 x 400G mode'."""
        return f"{self.switch.name} in {self.switch.ports_at(self.link_gbps)} x {self.link_gbps}G mode"

    @property
    def label(self) -> str:
        cost = f"{self.cost_text} {self.cost:,.0f}" if self.cost is not None else self.cost_text
        return f"{self.mode}: {self.switches:,} switches, {cost}"


@dataclass(frozen=True)
class SwitchChoice:
    design: FabricDesign
    options: tuple[Option, ...] = ()   # every candidate that could be built, in catalog order
    notes: tuple[str, ...] = ()        # empty when the switch was named, not chosen

    @property
    def chosen(self) -> Option | None:
        return next((o for o in self.options if o.design is self.design), None)


def candidates(catalog: Catalog, tech: Technology) -> tuple[Switch, ...]:
    """The technology's switches that run its switch-to-switch speed (800G leaf-spine for RoCE 800G)."""
    out = []
    for sid in tech.switch_options:
        sw = catalog.switch(sid)
        if sw.ports_at(tech.uplink_gbps) or sid == tech.default_switch:
            out.append(sw)
    return tuple(out)


def size_option(design: FabricDesign, catalog: Catalog, cost: FabricCost | None) -> Option:
    """`design` sized with its own switch; raises SizingError when it cannot be built."""
    r = resolve(design, catalog)
    plan = plan_fabric(design, r)
    count = (plan.leaves + plan.spines + plan.cores) * r.planes
    ports = count * r.leaf_switch.ports_at(r.link_gbps)
    down = plan.leaf_down * r.link_gbps
    ratio = down / (plan.leaf_up * r.uplink_gbps) if plan.leaf_up else float("inf")
    total, text = cost(design) if cost is not None else (None, "no price book given")
    return Option(r.leaf_switch, design, count, ports, total, text, ratio,
                  design.fabric.leaf.oversubscription, r.link_gbps)


def pick(options: list[Option]) -> tuple[Option, list[str]]:
    """The cheapest priced option (ties: fewer switches, fewer ports, catalog order), with notes."""
    order = {id(o): i for i, o in enumerate(options)}
    priced = [o for o in options if o.cost is not None]
    if priced:
        best = min(priced, key=lambda o: (o.cost, o.switches, o.ports, order[id(o)]))
        why, basis = "the cheapest fabric", " (the whole bill of materials at price-book estimates)"
    else:
        best = min(options, key=lambda o: (o.switches, o.ports, order[id(o)]))
        why, basis = "the fewest switches", " (no candidate has a full price, so switch and then port counts decide)"
    notes: list[str] = []
    if len(options) > 1:
        others = "; ".join(o.label for o in options if o is not best)
        notes.append(f"switch: {why} of {len(options)} candidates at {best.asked_ratio:g}:1 is "
                     f"{best.label}{basis}; also sized: {others}")
        if priced:
            notes.extend(f"{o.switch.name} was not compared by cost ({o.cost_text}); add the missing "
                         "prices to the price book to include it" for o in options if o.cost is None)
    return best, notes


def choose_switch(catalog: Catalog, tech: Technology, build: Callable[[Switch], FabricDesign],
                  cost: FabricCost | None) -> SwitchChoice:
    """Size `build(switch)` for each of the technology's switches and keep the cheapest.

    `build` makes the design for one switch (it may raise SizingError, e.g. when an SU does not
    fit the switch); if no candidate can be sized, the default switch's design is returned as
    it is, so that deriving it reports why it cannot be built.
    """
    options: list[Option] = []
    for sw in candidates(catalog, tech):
        try:
            options.append(size_option(build(sw), catalog, cost))
        except (SizingError, UnknownPartError):
            continue
    if not options:
        return SwitchChoice(build(catalog.switch(tech.default_switch)))
    best, notes = pick(options)
    return SwitchChoice(best.design, tuple(options), tuple(notes))
