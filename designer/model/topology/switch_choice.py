"""Choosing the switch: the cheapest fabric among a technology's switches that meets the targets.

Every candidate is sized by the same `plan_fabric` that builds the design, so the ratio it meets
is the one the design will have: sizing never exceeds the requested oversubscription, and the
achieved ratio is reported beside the one asked for. One switch model serves every tier (spares
and operations stay common); a switch the user names, in the design or with `--switch`, is never
replaced. `new`, `counterpart`, the palette and the inspector all choose through `choose_switch`.

Cost is the switches' price from the price book (chassis only: the links and their optics are
the same count for every candidate that meets the ratio, to within the spare uplinks a full
spine takes). A switch without a price is never taken as free: priced candidates are compared
by cost; when none is priced, the fewest switches win, then the fewest switch ports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from designer.catalog import Catalog, Switch, Technology, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.topology.sizing import SizingError, plan_fabric, resolve


class _Price(Protocol):
    unit_price: float


class PriceLookup(Protocol):
    """What choosing needs of a price book (designer.model.physical.prices.PriceBook)."""

    currency: str

    def get(self, key: str) -> _Price | None: ...


@dataclass(frozen=True)
class Option:
    """One candidate switch, sized."""

    switch: Switch
    design: FabricDesign
    switches: int          # all tiers and planes
    ports: int             # the switches' ports at the NIC-facing speed
    unit_price: float | None
    leaf_ratio: float      # achieved leaf oversubscription (downlink : uplink bandwidth)
    asked_ratio: float
    link_gbps: int = 0     # NIC-facing speed: the port mode the switch runs in

    @property
    def mode(self) -> str:
        """'Spectrum-4 SN5600 in 128 x 400G mode'."""
        return f"{self.switch.name} in {self.switch.ports_at(self.link_gbps)} x {self.link_gbps}G mode"

    @property
    def cost(self) -> float | None:
        return None if self.unit_price is None else self.unit_price * self.switches


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


def size_option(design: FabricDesign, catalog: Catalog, prices: PriceLookup | None) -> Option:
    """`design` sized with its own switch; raises SizingError when it cannot be built."""
    r = resolve(design, catalog)
    plan = plan_fabric(design, r)
    count = (plan.leaves + plan.spines + plan.cores) * r.planes
    ports = ((plan.leaves * r.leaf_switch.ports_at(r.link_gbps))
             + (plan.spines + plan.cores) * r.spine_switch.ports_at(r.link_gbps)) * r.planes
    entry = prices.get(r.leaf_switch.id) if prices is not None else None
    down = min(plan.leaf_down, max(1, plan.endpoints)) * r.link_gbps
    ratio = down / (plan.leaf_up * r.uplink_gbps) if plan.leaf_up else float("inf")
    return Option(r.leaf_switch, design, count, ports, entry.unit_price if entry is not None else None,
                  ratio, design.fabric.leaf.oversubscription, r.link_gbps)


def _money(value: float, currency: str) -> str:
    return f"{currency} {value:,.0f}"


def _label(o: Option, currency: str) -> str:
    cost = _money(o.cost, currency) if o.cost is not None else "no price"
    return f"{o.mode}: {o.switches:,} switches, {cost}"


def pick(options: list[Option], prices: PriceLookup | None) -> tuple[Option, list[str]]:
    """The cheapest priced option (ties: fewer switches, fewer ports, catalog order), with notes."""
    currency = getattr(prices, "currency", "USD") if prices is not None else "USD"
    order = {id(o): i for i, o in enumerate(options)}
    priced = [o for o in options if o.cost is not None]
    if priced:
        best = min(priced, key=lambda o: (o.cost, o.switches, o.ports, order[id(o)]))
        why = "the cheapest fabric"
        basis = " (switch chassis at price-book estimates)"
    else:
        best = min(options, key=lambda o: (o.switches, o.ports, order[id(o)]))
        why = "the fewest switches"
        basis = (" (no candidate has a price, so switch and then port counts decide)" if prices is not None
                 else " (no price book given, so switch and then port counts decide)")
    notes: list[str] = []
    if len(options) > 1:
        others = "; ".join(_label(o, currency) for o in options if o is not best)
        notes.append(f"switch: {why} of {len(options)} candidates at {best.asked_ratio:g}:1 is "
                     f"{_label(best, currency)}{basis}; also sized: {others}")
        unpriced = [o.switch.name for o in options if o.cost is None]
        if priced and unpriced:
            notes.append(f"{', '.join(unpriced)} {'has' if len(unpriced) == 1 else 'have'} no price in the "
                         "price book and so could not be compared by cost; add a price to include it")
    return best, notes


def choose_switch(catalog: Catalog, tech: Technology, build: Callable[[Switch], FabricDesign],
                  prices: PriceLookup | None) -> SwitchChoice:
    """Size `build(switch)` for each of the technology's switches and keep the cheapest.

    `build` makes the design for one switch (it may raise SizingError, e.g. when an SU does not
    fit the switch); if no candidate can be sized, the default switch's design is returned as
    it is, so that deriving it reports why it cannot be built.
    """
    options: list[Option] = []
    for sw in candidates(catalog, tech):
        try:
            options.append(size_option(build(sw), catalog, prices))
        except (SizingError, UnknownPartError):
            continue
    if not options:
        return SwitchChoice(build(catalog.switch(tech.default_switch)))
    best, notes = pick(options, prices)
    return SwitchChoice(best.design, tuple(options), tuple(notes))
