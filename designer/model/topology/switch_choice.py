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

A port mode is chosen as a switch is (`mode_variants`): where the switch's modes share its cages
(a 102.4T switch as 512 x 200G, 128 x 800G or 64 x 1.6T), each speed of its switch-to-switch
links is a candidate of its own, sized and priced with its optics and breakouts, and the note
says which mode won and what the others cost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from designer.catalog import Catalog, Switch, Technology, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.topology.bounds import plan_totals
from designer.model.topology.sizing import SizingError, plan_fabric, resolve

# What a design's fabric costs: (total, currency) or (None, why it has no total).
FabricCost = Callable[[FabricDesign], "tuple[float | None, str]"]
# A floor under a design's fabric cost, cheaper to compute than the cost (None: no floor known).
FabricBound = Callable[[FabricDesign], "float | None"]


# How candidates rank: cost, switches, ports, then the order they were built in.
OptionKey = tuple[float, int, int, int]


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
    uplink_gbps: int = 0   # switch-to-switch speed (0: as link_gbps); a mode of the same cages

    @property
    def mode(self) -> str:
        """'Spectrum-4 SN5600 in 128 x 400G mode'."""
        return f"{self.switch.name} in {self.switch.ports_at(self.link_gbps)} x {self.link_gbps}G mode"

    @property
    def up_gbps(self) -> int:
        return self.uplink_gbps or self.link_gbps

    @property
    def modes_text(self) -> str:
        """'512 x 200G' or '512 x 200G to the servers, 128 x 800G between switches'."""
        return modes_text(self.switch, self.link_gbps, self.up_gbps)

    @property
    def label(self) -> str:
        cost = f"{self.cost_text} {self.cost:,.0f}" if self.cost is not None else self.cost_text
        return f"{self.mode}: {self.switches:,} switches, {cost}"


@dataclass(frozen=True)
class SwitchChoice:
    design: FabricDesign
    # every candidate that could be built and was priced, in catalog order (price_candidates)
    options: tuple[Option, ...] = ()
    notes: tuple[str, ...] = ()        # empty when the switch was named, not chosen
    # the layout (SU size, rails per leaf) was chosen by switch and port counts, not by price
    # (above LAYOUTS_BY_COUNT_LINKS): no note may call it the cheapest
    layout_by_counts: bool = False

    @property
    def chosen(self) -> Option | None:
        return next((o for o in self.options if o.design is self.design), None)


def modes_text(switch: Switch, down: int, up: int) -> str:
    """The modes a switch runs its cages in: '512 x 200G', or '512 x 200G to the servers, 128 x
    800G between switches' when the switch-to-switch links run another mode of the same cages."""
    if up == down:
        return f"{switch.ports_at(down)} x {down}G"
    return f"{switch.ports_at(down)} x {down}G to the servers, {switch.ports_at(up)} x {up}G between switches"


def design_modes_text(design: FabricDesign, catalog: Catalog) -> str:
    """`modes_text` of a design's leaf switch; '' when the design cannot be resolved."""
    try:
        r = resolve(design, catalog)
    except (SizingError, UnknownPartError):
        return ""
    return modes_text(r.leaf_switch, r.link_gbps, r.uplink_gbps)


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
    return _priced(_sized(design, catalog), cost)


def _sized(design: FabricDesign, catalog: Catalog) -> Option:
    """`design` sized, not yet priced; raises SizingError when it cannot be built."""
    r = resolve(design, catalog)
    plan = plan_fabric(design, r)
    count = (plan.leaves + plan.spines + plan.cores) * r.planes
    ports = count * r.leaf_switch.ports_at(r.link_gbps)
    down = plan.leaf_down * r.link_gbps
    ratio = down / (plan.leaf_up * r.uplink_gbps) if plan.leaf_up else float("inf")
    return Option(r.leaf_switch, design, count, ports, None, "", ratio, design.fabric.leaf.oversubscription,
                  r.link_gbps, r.uplink_gbps)


def mode_variants(design: FabricDesign, catalog: Catalog) -> list[FabricDesign]:
    """`design`, then its twins with the switch-to-switch links in each other mode its switches
    offer: every speed of the leaf's modes at least the NIC-facing speed and a whole multiple of
    it (the cages are shared, so 200G down and 800G up is one cage broken out 8 x 200G beside
    another run 2 x 800G), that the spines and cores also run. A design without switch-to-switch
    links (one tier) has no other mode; one that cannot be resolved is returned alone."""
    try:
        r = resolve(design, catalog)
        if plan_fabric(design, r).tiers == 1:
            return [design]
    except (SizingError, UnknownPartError):
        return [design]
    link, f = r.link_gbps, design.fabric
    speeds = [g for g in r.leaf_switch.speeds if g >= link and g % link == 0 and g != r.uplink_gbps
              and r.spine_switch.ports_at(g) and r.core_switch.ports_at(g)]
    if not speeds:
        return [design]
    out = [design]
    for gbps in speeds:
        fabric = dataclasses.replace(f, uplink_gbps=gbps if gbps != link else None)
        out.append(dataclasses.replace(design, fabric=fabric))
    return out


def _priced(option: Option, cost: FabricCost | None) -> Option:
    total, text = cost(option.design) if cost is not None else (None, "no price book given")
    return dataclasses.replace(option, cost=total, cost_text=text)


def _layout_text(o: Option) -> str:
    f = o.design.fabric
    if f.template != "rail-optimized":
        return ""
    k = f.rails_per_leaf or 1
    return f", SU of {f.nodes_per_su}" + (f", {k} rails per leaf" if k > 1 else "")


# Layouts of one switch model whose costs differ by less than this share are taken as equal: cable
# lengths rounded to stock lengths move a total by less (USD 40 in 4.1 million for a 64-node DGX
# B300 SU), and the price book's estimates carry far more error than that.
LAYOUT_COST_TIE = 0.005


def _layout_preference(o: Option) -> tuple[int, int]:
    """Published layout first: the larger SU (more servers one hop apart on each rail), then the
    fewer rails per leaf (one per leaf, as the reference architectures build it)."""
    f = o.design.fabric
    return (-f.nodes_per_su, f.rails_per_leaf or 1)


def _published_layout_within(best: Option, priced: list[Option], key: Callable[[Option], OptionKey]) -> Option:
    """Among `best`'s switch model's layouts within LAYOUT_COST_TIE of its cost, the one closest to
    the published layout."""
    if best.design.fabric.template != "rail-optimized" or best.cost is None:
        return best
    limit = best.cost * (1 + LAYOUT_COST_TIE)
    near = [o for o in priced if o.switch.id == best.switch.id and o.cost is not None and o.cost <= limit
            and o.switches <= best.switches]
    return min(near, key=lambda o: (_layout_preference(o), key(o)))


def _mode_note(best: Option, options: list[Option], key: Callable[[Option], OptionKey], why: str) -> list[str]:
    """Which mode of its switch the chosen fabric runs and why, with the best fabric of each other
    mode of the same switch and layout (SU, rails per leaf), when it was offered more than one."""
    same = [o for o in options if _layout_of(o) == _layout_of(best)]
    by_mode: dict[int, Option] = {}
    for o in sorted(same, key=key):
        by_mode.setdefault(o.up_gbps, o)
    if len(by_mode) < 2:
        return []
    def priced_text(o: Option) -> str:
        if o.cost is None:
            return f"{o.switches:,} switches, {o.cost_text}"
        return f"{o.switches:,} switches, {o.cost_text} {o.cost:,.0f}"

    others = "; ".join(f"{o.modes_text}: {priced_text(o)}" for g, o in by_mode.items() if g != best.up_gbps)
    basis = ", optics and breakouts included" if best.cost is not None else ""
    if any(key(o)[:3] == key(best)[:3] for g, o in by_mode.items() if g != best.up_gbps):
        basis += "; a tie goes to the mode sized first"
    return [f"port modes: of the {best.switch.name}'s {len(by_mode)} modes that meet the design, {best.modes_text} "
            f"is {why} ({priced_text(best)}{basis}); also sized: {others}"]


def pick(options: list[Option]) -> tuple[Option, list[str]]:
    """The cheapest priced option (ties: fewer switches, fewer ports, candidate order), with notes.

    Candidates come in the order they were built: catalog order of the switches, and for each the
    reference SU and one rail per leaf first, so a tie keeps the published layout.
    """
    order = {id(o): i for i, o in enumerate(options)}
    priced = [o for o in options if o.cost is not None]
    if priced:
        def key(o: Option) -> OptionKey:
            return (o.cost or 0.0, o.switches, o.ports, order[id(o)])
        best = _published_layout_within(min(priced, key=key), priced, key)
        why, basis = "the cheapest fabric", " (the whole bill of materials at price-book estimates)"
    else:
        def key(o: Option) -> OptionKey:
            return (0.0, o.switches, o.ports, order[id(o)])
        best = min(options, key=key)
        why, basis = "the fewest switches", " (no candidate has a full price, so switch and then port counts decide)"
    notes: list[str] = _mode_note(best, options, key, why)
    models = list(dict.fromkeys(o.switch.id for o in options))
    if len(models) > 1:
        # One line per other switch model: its best layout.
        others = []
        for sid in models:
            if sid == best.switch.id:
                continue
            mine = [o for o in options if o.switch.id == sid]
            top = min([o for o in mine if o.cost is not None] or mine, key=key)
            others.append(top.label + _layout_text(top))
        notes.append(f"switch: {why} of {len(models)} candidates at {best.asked_ratio:g}:1 is "
                     f"{best.label}{basis}; also sized: {'; '.join(others)}")
        if priced:
            notes.extend(f"{o.switch.name} was not compared by cost ({o.cost_text})"
                         + ("" if o.cost_text.startswith("not buildable") else
                            "; add the missing prices to the price book to include it")
                         for o in options if o.cost is None and o is min(
                             [p for p in options if p.switch.id == o.switch.id], key=lambda p: order[id(p)]))
    return best, notes


def choose_switch(catalog: Catalog, tech: Technology,
                  build: Callable[[Switch], FabricDesign | Sequence[FabricDesign]],
                  cost: FabricCost | None, switches: Sequence[Switch] | None = None,
                  bound: FabricBound | None = None, modes: bool = False) -> SwitchChoice:
    """Size `build(switch)` for each of the technology's switches and keep the cheapest.

    `build` makes the design for one switch, or several layouts of it (SU size and rails per
    leaf, rail_layout.py), each priced; it may raise SizingError, e.g. when an SU does not fit
    the switch. `switches` limits the candidates (a switch the user named). If no candidate can
    be sized, the first switch's design is returned as it is, so that deriving it reports why it
    cannot be built. `bound`, a floor under `cost`, lets candidates that cannot be chosen go
    unpriced (`price_candidates`); the choice and its notes are the same as without it. With
    `modes`, each design is also sized in every other mode of its switches (`mode_variants`), so
    the uplink speed is chosen by price as the switch is; a caller whose request fixes the uplink
    speed leaves it off.
    """
    sized: list[Option] = []
    seen: set[FabricDesign] = set()    # a set: a request offers a hundred candidates or more
    pool = tuple(switches) if switches is not None else candidates(catalog, tech)
    for sw in pool:
        try:
            built = build(sw)
        except (SizingError, UnknownPartError):
            continue
        for made in ([built] if isinstance(built, FabricDesign) else built):
            for design in (mode_variants(made, catalog) if modes else [made]):
                if design in seen:   # a layout's twin already sized (split_uplink_variants)
                    continue
                seen.add(design)
                try:
                    sized.append(_sized(design, catalog))
                except (SizingError, UnknownPartError):
                    continue
    # Every switch model and port mode is priced at every size (a million GPUs' bill is counted
    # by class of link, in seconds). Above LAYOUTS_BY_COUNT_LINKS the layouts of a switch model
    # (SU size, rails per leaf) are not all priced: a dozen bills of a million links or more each
    # would take minutes, so the counts choose the layout and its modes are priced.
    layout_note: list[str] = []
    if sized and all(_links(o, catalog) > LAYOUTS_BY_COUNT_LINKS for o in sized):
        sized, layout_note = _layouts_by_count(sized)
    # Where every candidate is a mode of one switch and layout, the note prices them all anyway,
    # so a floor would skip none: it is left out.
    if len({_layout_of(o) for o in sized}) <= 1:
        bound = None
    options = price_candidates(sized, catalog, cost, bound)
    if not options:
        first = pool[0] if switches is not None and pool else catalog.switch(tech.default_switch)
        built = build(first)
        return SwitchChoice(built if isinstance(built, FabricDesign) else built[0])
    best, notes = pick(options)
    notes = notes + layout_note
    # The note on port modes gives every mode of the chosen switch and layout its price, also
    # those the floor left unpriced (they cost more than the choice, so it stays the same).
    done = {id(o.design): o for o in options}
    layout = _layout_of(best)
    if any(id(o.design) not in done and _layout_of(o) == layout for o in sized):
        options = []
        for o in sized:
            if id(o.design) in done:
                options.append(done[id(o.design)])
            elif _layout_of(o) == layout:
                try:
                    options.append(_priced(o, cost))
                except (SizingError, UnknownPartError):
                    continue
        best, notes = pick(options)
        notes = notes + layout_note
    return SwitchChoice(best.design, tuple(options), tuple(notes), bool(layout_note))


# Above this many links in every candidate, a switch model's layouts are chosen by counts and only
# the chosen layout's port modes are priced (a heuristic: each bill of a million links or more
# takes one to several seconds of CPU, and a rail-optimized request offers a dozen layouts).
LAYOUTS_BY_COUNT_LINKS = 500_000


def _links(option: Option, catalog: Catalog) -> int:
    r = resolve(option.design, catalog)
    return plan_totals(option.design, r, plan_fabric(option.design, r))["links"]


def _layouts_by_count(sized: list[Option]) -> tuple[list[Option], list[str]]:
    """Per switch model, the candidates of the layout with the fewest switches, then switch
    ports (a tie: the layout sized first, the published one), in every port mode; and a note
    when other layouts were left out."""
    order = {id(o): i for i, o in enumerate(sized)}
    kept: set[tuple[str, int, int | None, int]] = set()
    for sid in dict.fromkeys(o.switch.id for o in sized):
        top = min((o for o in sized if o.switch.id == sid), key=lambda o: (o.switches, o.ports, order[id(o)]))
        kept.add(_layout_of(top))
    chosen = [o for o in sized if _layout_of(o) in kept]
    left = len({_layout_of(o) for o in sized}) - len(kept)
    if not left:
        return chosen, []
    return chosen, [f"layouts: above {LAYOUTS_BY_COUNT_LINKS:,} links each switch model's layout (SU size, rails "
                    f"per leaf) is the one with the fewest switches, then switch ports; its port modes are priced, "
                    f"the {left} other layout(s) are not (a bill of this size takes seconds each)"]


def _layout_of(o: Option) -> tuple[str, int, int | None, int]:
    """What sets one candidate's modes apart from another's layout: switch, SU, rails per leaf
    and NIC-facing speed."""
    f = o.design.fabric
    return (o.switch.id, f.nodes_per_su, f.rails_per_leaf, o.link_gbps)


# A floor this close above the cut still gets priced: the floor and the bill add their figures
# in different orders, so equal sums may differ in the last bits.
_FLOOR_SLACK = 1e-9


def price_candidates(sized: list[Option], catalog: Catalog, cost: FabricCost | None,
                     bound: FabricBound | None) -> list[Option]:
    """The candidates priced, in the order given, leaving out those `pick` cannot take.

    Branch and bound, switch model by switch model: the first candidate of each model (its
    published layout) is always priced; the others in the order of their floor, and once a
    floor exceeds the model's cheapest price so far by more than LAYOUT_COST_TIE, that candidate
    and all after it cost more than anything `pick` looks at for the model (its cheapest, and
    its layouts within the tie), so they are left out. A candidate without a floor is priced.
    Without a floor function (or a cost) every candidate is priced.
    """
    priced: dict[int, Option] = {}

    def price(i: int) -> float | None:
        """Price candidate i (a candidate that cannot be derived is left out); its cost."""
        try:
            priced[i] = _priced(sized[i], cost)
        except (SizingError, UnknownPartError):
            return None
        return priced[i].cost

    if cost is None or bound is None:
        for i in range(len(sized)):
            price(i)
        return [priced[i] for i in range(len(sized)) if i in priced]
    models: dict[str, list[int]] = {}
    for i, o in enumerate(sized):
        models.setdefault(o.switch.id, []).append(i)
    for members in models.values():
        costs: list[float] = []
        first = 0
        while first < len(members):   # the first candidate that prices, as without a floor
            total = price(members[first])
            first += 1
            if members[first - 1] in priced:
                costs.extend([total] if total is not None else [])
                break
        floors: list[tuple[float, int]] = []
        for i in members[first:]:
            floor = bound(sized[i].design)
            if floor is None:
                total = price(i)
                costs.extend([total] if total is not None else [])
            else:
                floors.append((floor, i))
        for floor, i in sorted(floors):
            if costs and floor * (1 - _FLOOR_SLACK) > min(costs) * (1 + LAYOUT_COST_TIE):
                break
            total = price(i)
            costs.extend([total] if total is not None else [])
    return [priced[i] for i in range(len(sized)) if i in priced]
