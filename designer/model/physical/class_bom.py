"""The physical layer's counts of a template design by class of link, from one plane's tiers.

Every plane repeats the first plane's links (its switches elsewhere on the floor), and each
plane's runs are counted by `link_runs`' arithmetic. Where the template's arithmetic gives a
tier's shape (tier_shapes.py: the server links as segments of a server's ports on one leaf, the
tiers between switches as blocks of pods or core groups) its cages, runs and breakout slots are
counted from the shape, and its links are generated only if a count below reads them (its
groups); otherwise the first plane's links are generated (class_parts.py). Each tier is then
counted in the cheapest of three ways that give the per-link count exactly:

- **One class.** A tier joins one kind of cage below (a server's NIC cage, or a switch's cage at
  the tier's speed) to one kind above. Where no copper cable can join them (every run beyond the
  copper reach, no cable with the cages' breakout at the tier's speed, or no group with a cage on
  all its links), a group's medium depends on its runs only through the reach each cage needs,
  and a longer run never finds a module a shorter one does not. So when every run of the tier
  gets the same optic and the same module on each side, every group does, and the bill is
  arithmetic: a transceiver per cage of each side (cages counted on one plane), a fiber per link
  from a histogram of runs, or a splitter per breakout slot from a histogram of each slot's
  longest run.
- **One link per group** (one port per cage at both ends): a link's medium is its run's, read
  once per bin of runs.
- **Groups, class by class** (class_groups.py): the groups found once on the first plane, a
  class per shape of group and bins of its runs, its choice from its first group, as
  `closed_form_bom.counts_from_links` chooses. Tiers that share a switch cage (an oversubscribed
  leaf's cage of server ports and uplinks) are counted so as one. Where a server's NIC cage joins
  a block of planes, a group without one (an idle leaf's uplink cages) is a group per plane: it
  is counted with its copies only where each plane alone gets the same medium, else not by class.

Media, links by tier, findings and power come out as the link-by-link path words and adds them.
Where none applies, `class_physical` returns None and the per-link count
(closed_form_bom.`closed_form_physical`) counts the design; tests/test_class_bom.py holds the two
equal on random designs.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from designer.catalog import Catalog
from designer.model.common.arrays import sorted_distinct
from designer.model.physical.class_groups import block_planes, count_groups
from designer.model.physical.class_parts import Bill, Runs, Tier, first_plane_tiers
from designer.model.physical.closed_form_bom import (
    MEDIA_CODES,
    TIERS,
    PhysicalCounts,
    first_plane_links,
    host_cages,
    length_bins,
)
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.media import (
    Choice,
    End,
    LinkPlan,
    MediaIndex,
    _findings,
    choose_medium,
    host_ports_per_cage,
)
from designer.model.physical.template_layout import template_positions
from designer.model.physical.tier_shapes import shaped_first_plane

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived


def _copper_impossible(tier: Tier, media: MediaIndex, shortest: float, block: int | None, k_host: int,
                       planes: int, rails: int) -> bool:
    """No copper or AOC cable can join any group of the tier's cages: every run is beyond the
    copper reach, or no cable has a port mode at the tier's speed and either side's breakout
    (what `_try_copper` requires of the cage at a cable's main end), or no group has a cage on
    all its links (a cable's main end must be)."""
    if shortest > media.copper_reach_m:
        return True
    capacities = {tier.lower.capacity, tier.upper.capacity}
    if not any(m.gbps == tier.gbps and m.count in capacities for c in media.cables for m in c.port_modes):
        return True
    return block is not None and _no_center(tier, block, k_host, planes, rails)


def _no_center(tier: Tier, block: int, k_host: int, planes: int, rails: int) -> bool:
    """Whether every cage of the tier is linked to two cages or more of the other side. Then no
    group has a cage on all its links: were one, a cage it links to would link to another cage,
    on a link of the group that misses it."""
    n0 = len(tier.a_dev)
    if tier.host:
        # a NIC cage's ports on the planes that share it: each plane's leaf is another device
        a_cage = host_cages(tier.a_port, k_host, planes, rails)[0]
        lower = tier.a_dev * (int(a_cage.max()) + 1) + a_cage
        lower_ok: bool | None = True if block > 1 else None
    else:
        lower = (tier.a_dev - int(tier.a_dev.min())) * (int(tier.a_cage.max()) + 1) + tier.a_cage
        lower_ok = None
    upper = (tier.b_dev - int(tier.b_dev.min())) * (int(tier.b_cage.max()) + 1) + tier.b_cage
    if not n0:
        return True
    pairs = sorted_distinct(lower * (int(upper.max()) + 1) + upper)
    lower_of, upper_of = pairs // (int(upper.max()) + 1), pairs % (int(upper.max()) + 1)
    # every cage of a side appears in `pairs` at least once: twice or more for two partners
    partners = np.bincount(upper_of)
    uppers_ok = bool((partners[partners > 0] >= 2).all())
    if lower_ok is None:
        partners = np.bincount(lower_of)
        lower_ok = bool((partners[partners > 0] >= 2).all())
    return lower_ok and uppers_ok


def _choice_at(tier: Tier, media: MediaIndex, forced: str, length: float) -> Choice | None:
    """`choose_medium` for one link of the tier at `length`, between a cage of each side."""
    # the devices' roles as names: copper is tried on the cages in name order
    lower_name, upper_name = {"node-leaf": ("srv-1", "leaf-1"), "leaf-spine": ("leaf-1", "spine-1"),
                              "spine-core": ("spine-1", "core-1")}[tier.name]
    lower = End(lower_name, "1", 0, 0, tier.lower.host, tier.lower.cage_type, tier.lower.capacity)
    upper = End(upper_name, "1", 0, 0, False, tier.upper.cage_type, tier.upper.capacity)
    return choose_medium([LinkPlan(0, tier.name, tier.gbps, lower, upper, length)], media, forced)


def _outcome(choice: Choice | None) -> tuple[object, ...]:
    if choice is None:
        return (None,)
    modules = tuple(m.id if m is not None else None for m in choice.modules.values())
    return (choice.kind, choice.cable.id if choice.cable else None, choice.optic, modules, choice.forced_failed)


def _tier_counts(first: LinkArrays, planes: int) -> tuple[dict[str, int], list[str]]:
    """Links per tier, and the tiers in the order of their first link in the device graph's edge
    order: there each leaf gives its server links, then its uplinks, leaf by leaf; the spines'
    uplinks come last."""
    bounds = np.searchsorted(first.tier, np.arange(4))
    counts = {TIERS[t]: int(bounds[t + 1] - bounds[t]) * planes for t in range(3) if bounds[t + 1] > bounds[t]}
    first_leaf = {}
    if "node-leaf" in counts:
        first_leaf["node-leaf"] = int(first.b_dev[bounds[0]:bounds[1]].min())
    if "leaf-spine" in counts:
        first_leaf["leaf-spine"] = int(first.a_dev[bounds[1]:bounds[2]].min())
    names = sorted(first_leaf, key=lambda name: (first_leaf[name], TIERS.index(name)))
    return counts, names + (["spine-core"] if "spine-core" in counts else [])


def _one_class(bill: Bill, tier: Tier, runs: Runs, choice: Choice | None, forced: str, planes: int) -> None:
    """Every link of the tier in one class: `choice`."""
    n_links = tier.first_plane_links * planes
    links = runs.links()
    if choice is None:
        bill.problems[(tier.name, tier.gbps)] += n_links
        bill.media[tier.name] = {MEDIA_CODES[0]: n_links}
        return
    if choice.forced_failed:
        bill.forced_failed[(tier.name, forced)] += n_links
    bill.media[tier.name] = {choice.kind: n_links}
    bill.optics(tier, choice, runs, links, n_links, tier.lower.cages, tier.upper.cages)


def _single_links(bill: Bill, tier: Tier, runs: Runs, choice_of: dict[float, Choice | None], forced: str) -> None:
    """Each link its own group (one port per cage at both ends): a class per medium's choice,
    read from the link's run."""
    by_choice: dict[int, tuple[Choice | None, Counter[float]]] = {}
    for length, n in runs.links().items():
        choice = choice_of[length]
        by_choice.setdefault(id(choice), (choice, Counter()))[1][length] += n
    medium_of: dict[float, str] = {}
    for choice, links in by_choice.values():
        n = sum(links.values())
        medium = MEDIA_CODES[0] if choice is None else choice.kind
        medium_of.update(dict.fromkeys(links, medium))
        if choice is None:
            bill.problems[(tier.name, tier.gbps)] += n
            continue
        if choice.forced_failed:
            bill.forced_failed[(tier.name, forced)] += n
        if choice.cable:
            cable = choice.cable
            bill.add(cable, links, 1, cable.power_w + cable.leg_power_w, tier.name)
            continue
        bill.optics(tier, choice, runs, links, n, n, n)
    bill.media[tier.name] = runs.media_in_order(medium_of)


def class_physical(derived: Derived, catalog: Catalog) -> PhysicalCounts | None:
    """The counts by class of link (module docstring), or None where a tier's links are not
    counted so: count those link by link."""
    r, plan, design = derived.resolved, derived.plan, derived.design
    fp = design.floorplan
    servers, planes = design.cluster.servers, r.planes
    dev = DeviceCodes(servers, plan, planes)
    shaped = shaped_first_plane(derived, catalog, dev)
    if shaped is not None:
        # every tier from its template's arithmetic (tier_shapes.py): no link generated unless a
        # count below reads a tier's links
        tiers: list[Tier] = shaped.tiers
        seg = shaped.segments
        row, slot, layout = template_positions(fp, servers, plan, planes, r.rails, dev, seg.leaf, seg.server,
                                               weights=seg.count)
        tier_counts, present = shaped.links_by_tier, shaped.order
    else:
        first, server_of_ep, leaf_of = first_plane_links(r, plan, dev, ordered=False)
        if not len(first.tier) or int(first.tier.max()) > 2:
            return None
        if np.any(np.diff(first.tier) < 0):
            return None   # not tier by tier: a template this count does not know
        listed = first_plane_tiers(derived, catalog, first)
        if listed is None:
            return None
        tiers = listed
        row, slot, layout = template_positions(fp, servers, plan, planes, r.rails, dev, leaf_of, server_of_ep)
        tier_counts, present = _tier_counts(first, planes)
    media = MediaIndex(catalog, r.technology.family)
    k_host = host_ports_per_cage(catalog, derived)[0]
    bill = Bill(catalog)
    for tier in tiers:
        runs = Runs(derived, tier, dev, row, slot, media)
        if tier.merged:
            if not count_groups(bill, tier, runs, derived, dev, k_host):
                return None
            continue
        lengths = np.array(sorted(runs.links()), np.float64)
        forced = fp.forced_medium(tier.name)
        bins = length_bins(media, lengths)
        firsts = np.unique(bins, return_index=True)[1]
        choice_of_bin = {int(bins[i]): _choice_at(tier, media, forced, float(lengths[i])) for i in firsts.tolist()}
        if tier.lower.capacity == 1 and tier.upper.capacity == 1:
            choice_of = {float(v): choice_of_bin[int(b)] for v, b in zip(lengths, bins, strict=True)}
            _single_links(bill, tier, runs, choice_of, forced)
            continue
        outcomes = {_outcome(c) for c in choice_of_bin.values()}
        block = block_planes(tier, k_host, planes, r.rails)
        if len(outcomes) == 1 and _copper_impossible(tier, media, float(lengths[0]), block, k_host, planes, r.rails):
            _one_class(bill, tier, runs, next(iter(choice_of_bin.values())), forced, planes)
        elif not count_groups(bill, tier, runs, derived, dev, k_host):
            return None

    findings = _findings(bill.problems, bill.forced_failed, bill.custom, r.technology.family)
    power = bill.power()
    if power is None:
        return None
    return PhysicalCounts(layout, bill.transceivers, bill.ends, bill.cables, power, bill.custom, findings,
                          {name: tier_counts[name] for name in present}, {name: bill.media[name] for name in present})
