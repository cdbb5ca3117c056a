"""A failure measured without the device graph: what is cut off, bisection, oversubscription.

What-if analysis of a three-tier or edited fabric used to copy the device graph, remove the
failed switches and cables, look for connected components and run max-flow on it: seconds on a
65,536-GPU fabric, for every failure of an N-1 sweep. Here the failure is replayed as edits on
the template's switch pairs (designer/model/topology/edited_fabric.py), components are found on
the switches alone, and bisection is the same reduced max-flow, between the halves of the
intact fabric. The result equals designer/model/decisions/whatif.py's graph method exactly
(tests/test_failed_fabric.py compares them on random designs and failures), cables to endpoints
included. Designs whose edits name an endpoint, and manual links between planes, are left to
the graph: `measure_failure` returns None.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from designer.model.intent.design import Edit, FabricDesign
from designer.model.topology import closed_form
from designer.model.topology.edited_fabric import (
    Assignment,
    SwitchPairs,
    assignment_columns,
    fabric_state,
    pair_bisection,
    plan_assignment,
    replay_edits,
    switch_links,
)
from designer.model.topology.sizing import Plan, Resolved


@dataclass(frozen=True)
class AfterFailure:
    cut: set[tuple[int, int, int]]          # endpoints cut off: (plane, server, rail)
    bisection_gbps: float                   # between the intact halves, endpoints still connected
    oversub: dict[str, float | None]        # leaf id -> down/up after the failure (None: no uplinks)
    degraded_pods: set[int]                 # pods (SUs) with a leaf that lost a link


def _components(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each switch's component, labelled by its smallest member (label propagation; a Clos has a
    small diameter, so a few rounds settle it)."""
    label = np.arange(n, dtype=np.int64)
    while True:
        low = np.minimum(label[u], label[v])
        new = label.copy()
        np.minimum.at(new, u, low)
        np.minimum.at(new, v, low)
        new = new[new]   # jump to the label's own label: halves the rounds on long paths
        if np.array_equal(new, label):
            return label
        label = new


def _failed_endpoint_cables(f: SwitchPairs, assignment: Sequence[tuple[int, int]],
                            links: Iterable[tuple[str, str]], alive0: np.ndarray, alive: np.ndarray,
                            nics: np.ndarray) -> np.ndarray:
    """Endpoints whose own cable (endpoint to leaf) failed, per plane; `nics` loses them.

    A cable that the fabric does not have (another leaf, a removed one) fails nothing, as in the
    graph, where such an edge is not there to remove."""
    e = f.r.rails
    dropped = np.zeros((f.planes, len(assignment)), dtype=bool)
    for a, b in links:
        nic, other = (a, b) if f.is_nic(a) else (b, a)
        if not f.is_nic(nic):
            continue
        server, port = (int(x) - 1 for x in nic[4:].split(".nic-"))
        plane, rail = divmod(port, e)
        k = server * e + rail
        node = plane * f.per_plane + assignment[k][0]
        if f.index(other) != node or not alive0[node] or dropped[plane, k]:
            continue
        dropped[plane, k] = True
        if alive[node]:
            nics[node] -= 1
    return dropped


def _planes_hit(f: SwitchPairs, devices: Sequence[str], links: Sequence[tuple[str, str]]) -> set[int] | None:
    """The planes holding a failed switch or cable; None if a name is not of this fabric."""
    hit: set[int] = set()
    for name in [*devices, *(x for link in links for x in link)]:
        if f.is_nic(name):
            hit.add((int(name.rsplit(".nic-", 1)[1]) - 1) // f.r.rails)
            continue
        node = f.index(name)
        if node is None:
            return None
        hit.add(node // f.per_plane)
    return hit


# The flow of one intact plane of an unedited template, by what it reads of the plan.
_INTACT_PLANE: dict[tuple[object, ...], float] = {}


def _intact_plane_flow(f: SwitchPairs) -> float:
    """One intact plane's maximum flow between the halves, in closed form: the template's
    bisection (closed_form.bisection_gbps, what its metrics state, held equal to the maximum flow
    on the graph) is its planes' flows, alike, added. The same as `pair_bisection` on the plane's
    switch pairs (a property test holds it), without the partition: 0.2 s at a million GPUs."""
    key = (f.plan, f.r.rails, f.r.planes, f.r.link_gbps, f.r.uplink_gbps)
    if key not in _INTACT_PLANE:
        if len(_INTACT_PLANE) >= 8:
            _INTACT_PLANE.clear()
        _INTACT_PLANE[key] = closed_form.bisection_gbps(f.plan, f.r) / f.r.planes
    return _INTACT_PLANE[key]


# The intact fabric of an unedited template, by its plan: an N-1 sweep or the expected
# interruptions measure many failures of one fabric, each against the same intact state.
_INTACT_STATE: dict[tuple[object, ...], tuple[np.ndarray, ...]] = {}


def _intact_state(f: SwitchPairs, design: FabricDesign, keys: np.ndarray,
                  template: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                 Assignment]:
    """(u, v, links, alive, endpoints per switch, assignment) of the fabric before the failure."""
    key = (f.plan, f.r.rails, f.r.planes) if not design.edits else None
    if key is not None and key in _INTACT_STATE:
        u, v, total, alive, nics = _INTACT_STATE[key]
        return u, v, total, alive, nics, plan_assignment(f.plan, f.r.rails)
    removed, touched, _ = replay_edits(design.edits, f, keys, template)
    u, v, _, _, total, alive, nics, assignment = fabric_state(f, keys, template, removed, touched)
    if key is not None:
        for array in (u, v, total, alive, nics):
            array.flags.writeable = False   # shared by later failures: read, never written
        if len(_INTACT_STATE) >= 4:
            _INTACT_STATE.clear()
        _INTACT_STATE[key] = (u, v, total, alive, nics)
    return u, v, total, alive, nics, assignment


def measure_failure(design: FabricDesign, r: Resolved, plan: Plan, devices: Sequence[str],
                    links: Sequence[tuple[str, str]],
                    flow: bool = True) -> AfterFailure | None:
    """The fabric after `devices` and cables `links` fail; None when the graph must decide.

    In an unedited template the planes share no switch and are alike, so a failure changes only
    the planes it names: those are measured on their own switch pairs, and every other plane
    gives what it gives intact (`_intact_plane`, kept per plan).
    """
    f = SwitchPairs(plan, r)
    names = [x for e in design.edits for x in (e.a, e.b) if x] + list(devices)
    if any(f.is_nic(x) for x in names):
        return None
    for edit in design.edits:
        a, b = f.index(edit.a), f.index(edit.b) if edit.b else None
        if edit.op == "add-links" and a is not None and b is not None and a // f.per_plane != b // f.per_plane:
            return None   # a component could then span planes
    between_switches = [(a, b) for a, b in links if not f.is_nic(a) and not f.is_nic(b)]
    keys, template = f.template_pairs()
    u0, v0, total0, alive0, nics0, assignment = _intact_state(f, design, keys, template)
    hit = None if design.edits else _planes_hit(f, devices, links)
    measured = sorted(hit) if hit is not None else list(range(f.planes))
    if hit is not None:
        # An unedited template: the failure is the intact planes' pairs less what it removes, so
        # the state shared by every failure of these planes is masked, not replayed and rebuilt.
        u, v, total, alive, nics, degree = _failed_planes(f, design, u0, v0, total0, alive0, nics0, measured,
                                                           devices, between_switches)
    else:
        failing = design.edits + tuple(Edit("remove-device", d) for d in devices) + \
            tuple(Edit("remove-links", a, b, 1) for a, b in between_switches)
        removed1, touched1, _ = replay_edits(failing, f, keys, template)
        u, v, _, _, total, alive, nics, _ = fabric_state(f, keys, template, removed1, touched1)
        degree = np.add(*switch_links(f, u, v, total))   # switch links of each switch, endpoints not counted
    dropped = _failed_endpoint_cables(f, assignment, links, alive0, alive, nics)
    e, s_d, s_u = r.rails, r.link_gbps, r.uplink_gbps

    label = _components(f.n, u, v)
    leaf = assignment_columns(f, assignment)[0]
    main = np.zeros(f.n, dtype=bool)
    for plane in measured:
        _mark_main(main, f, plane, label, alive, nics, leaf, dropped[plane])
    cut: set[tuple[int, int, int]] = set()
    for plane in measured:
        cut.update(_plane_cut(f, leaf, plane, main, dropped[plane]))
    bisection = float("nan")
    if flow:
        if hit is not None and len(hit) < f.planes:
            # The planes the failure leaves alone carry the intact plane's flow, the same in every
            # plane of an unedited template: its closed form, not a flow solved per failure.
            bisection = (_intact_plane_flow(f) * (f.planes - len(hit))
                         + pair_bisection(f, assignment, u, v, total, alive, ordered=alive0, counted=main,
                                          dropped=dropped, planes=hit))
        else:
            bisection = pair_bisection(f, assignment, u, v, total, alive, ordered=alive0, counted=main,
                                       dropped=dropped)

    oversub: dict[str, float | None] = {}
    degraded: set[int] = set()
    degree0 = _intact_degree(f, design, u0, v0, total0)
    lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    leaf_names = _leaf_names(f)
    for plane in range(f.planes):
        if plane not in measured:   # as intact: no leaf changed
            intact_cut, intact_oversub = _intact_plane(f, design, plane)
            cut.update(intact_cut)
            oversub.update(intact_oversub)
            continue
        base = plane * f.per_plane
        # plain lists: the loop reads every leaf of the plane (4,096 of them at 131,072 GPUs)
        span = slice(base, base + plan.leaves)
        alive_p, nics_p, degree_p = alive[span].tolist(), nics[span].tolist(), degree[span].tolist()
        changed = (nics0[span] + degree0[span] != nics[span] + degree[span]).tolist()
        names = leaf_names[plane]
        for i in range(plan.leaves):
            if not alive_p[i]:
                continue
            down = nics_p[i] * s_d
            up = degree_p[i] * s_u
            if down:
                oversub[names[i]] = down / up if up else None
            if changed[i]:
                degraded.add(int(plan.leaf_su(i, e)) if plan.rail_su_size else (i // lpp if plan.tiers == 3 else 0))
    return AfterFailure(cut, bisection, oversub, degraded)


# The intact pairs of some planes of an unedited template, by plan and planes: every failure of
# those planes (an N-1 sweep's kinds of switch, all in the first plane) starts from them.
_PLANES_STATE: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _failed_planes(f: SwitchPairs, design: FabricDesign, u0: np.ndarray, v0: np.ndarray, total0: np.ndarray,
                   alive0: np.ndarray, nics0: np.ndarray, measured: Sequence[int], devices: Sequence[str],
                   between_switches: Sequence[tuple[str, str]]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, links, alive, endpoints per switch, switch links per switch) of the `measured`
    planes of an unedited template after `devices` and the cables `between_switches` fail: what
    replaying them as edits on those planes' pairs gives (a removed switch takes its pairs with
    it; a failed cable takes one link of its pair, if the template has that pair). The links of
    each switch are right on the measured planes, the only ones read."""
    key = (f.plan, f.r.rails, f.r.planes, tuple(measured))
    if key not in _PLANES_STATE:
        plane_of = u0 // f.per_plane
        inside = np.isin(plane_of, measured) if len(measured) < f.planes else np.ones(len(u0), dtype=bool)
        arrays = (u0[inside], v0[inside], total0[inside], u0[inside] * f.n + v0[inside])
        for array in arrays:
            array.flags.writeable = False
        if len(_PLANES_STATE) >= 8:
            _PLANES_STATE.clear()
        _PLANES_STATE[key] = arrays
    u, v, intact, pair_keys = _PLANES_STATE[key]
    alive = alive0.copy()
    for name in devices:
        alive[f.index(name)] = False
    total = intact.copy()
    for a, b in between_switches:
        ia, ib = f.index(a), f.index(b)
        if ia is None or ib is None or not (alive[ia] and alive[ib]):
            continue   # a cable of a failed switch is gone with it
        at = int(np.searchsorted(pair_keys, min(ia, ib) * f.n + max(ia, ib)))
        if at < len(pair_keys) and pair_keys[at] == min(ia, ib) * f.n + max(ia, ib) and total[at] > 0:
            total[at] -= 1
    keep = alive[u] & alive[v] & (total > 0)
    lost = intact - np.where(keep, total, 0)   # links each pair lost
    hurt = np.flatnonzero(lost)
    degree = _intact_degree(f, design, u0, v0, total0).astype(np.int64)   # a copy, writable
    degree -= (np.bincount(u[hurt], weights=lost[hurt], minlength=f.n)
               + np.bincount(v[hurt], weights=lost[hurt], minlength=f.n)).astype(np.int64)
    nics = nics0.copy()
    nics[~alive] = 0
    return u[keep], v[keep], total[keep], alive, nics, degree


def _mark_main(main: np.ndarray, f: SwitchPairs, plane: int, label: np.ndarray, alive: np.ndarray,
               nics: np.ndarray, leaf: np.ndarray, dropped: np.ndarray) -> None:
    """Marks the plane's main component in `main`: the one with the most endpoints (ties: the
    lowest index)."""
    base = plane * f.per_plane
    nodes = base + np.arange(f.plan.leaves)
    # A leaf left with no switch link is a component of its own with its endpoints, as in the
    # graph; a removed leaf's endpoints reach nothing.
    ok = alive[nodes] & (nics[nodes] > 0)
    if not ok.any():
        return
    endpoints = len(leaf)
    first_index = np.full(f.plan.leaves, endpoints, dtype=np.int64)   # lowest endpoint still cabled
    np.minimum.at(first_index, leaf[~dropped], np.flatnonzero(~dropped))
    comps: dict[int, list[int]] = {}
    for node, lab in zip(nodes[ok].tolist(), label[nodes[ok]].tolist(), strict=True):
        comps.setdefault(lab, []).append(node)
    best = max(comps.values(), key=lambda members: (int(nics[members].sum()),
                                                    -int(first_index[np.array(members) - base].min())))
    main[best] = True


def _plane_cut(f: SwitchPairs, leaf: np.ndarray, plane: int, main: np.ndarray,
               dropped: np.ndarray) -> list[tuple[int, int, int]]:
    """The plane's endpoints cut off: their leaf is off the main component, or their cable failed."""
    lost = ~main[plane * f.per_plane + leaf] | dropped
    e = f.r.rails
    return [(plane, k // e, k % e) for k in np.flatnonzero(lost).tolist()]


# What each plane of an unedited template's intact fabric gives when a failure is elsewhere:
# its endpoints cut off and its leaves' oversubscription, by plan and plane.
_INTACT_PLANES: dict[tuple[object, ...], tuple[list[tuple[int, int, int]], dict[str, float | None]]] = {}


def _intact_plane(f: SwitchPairs, design: FabricDesign,
                  plane: int) -> tuple[list[tuple[int, int, int]], dict[str, float | None]]:
    """(endpoints cut off, leaf id -> down/up) of one plane of the intact fabric (unedited)."""
    key = (f.plan, f.r.rails, f.r.planes, f.r.link_gbps, f.r.uplink_gbps, plane)
    if key not in _INTACT_PLANES:
        keys, template = f.template_pairs()
        u0, v0, total0, alive0, nics0, assignment = _intact_state(f, design, keys, template)
        degree0 = _intact_degree(f, design, u0, v0, total0)
        leaf = assignment_columns(f, assignment)[0]
        none_dropped = np.zeros(len(leaf), dtype=bool)
        main = np.zeros(f.n, dtype=bool)
        _mark_main(main, f, plane, _intact_labels(f, u0, v0), alive0, nics0, leaf, none_dropped)
        cut = _plane_cut(f, leaf, plane, main, none_dropped)
        s_d, s_u = f.r.link_gbps, f.r.uplink_gbps
        span = slice(plane * f.per_plane, plane * f.per_plane + f.plan.leaves)
        oversub: dict[str, float | None] = {}
        for name, alive, nics, degree in zip(_leaf_names(f)[plane], alive0[span].tolist(), nics0[span].tolist(),
                                             degree0[span].tolist(), strict=True):
            down = nics * s_d
            if alive and down:
                up = degree * s_u
                oversub[name] = down / up if up else None
        if len(_INTACT_PLANES) >= 16:
            _INTACT_PLANES.clear()
        _INTACT_PLANES[key] = (cut, oversub)
    return _INTACT_PLANES[key]


# Switch components of an unedited template's intact fabric, by its plan (as _INTACT_STATE).
_INTACT_LABELS: dict[tuple[object, ...], np.ndarray] = {}


def _intact_labels(f: SwitchPairs, u0: np.ndarray, v0: np.ndarray) -> np.ndarray:
    key = (f.plan, f.r.rails, f.r.planes)
    if key not in _INTACT_LABELS:
        label = _components(f.n, u0, v0)
        label.flags.writeable = False
        if len(_INTACT_LABELS) >= 4:
            _INTACT_LABELS.clear()
        _INTACT_LABELS[key] = label
    return _INTACT_LABELS[key]


def _leaf_names(f: SwitchPairs) -> list[list[str]]:
    """Each plane's leaf names, by number (kept per plan: an N-1 sweep names them per failure)."""
    key = (f.plan, f.planes)
    if key not in _LEAF_NAMES:
        if len(_LEAF_NAMES) >= 8:
            _LEAF_NAMES.clear()
        _LEAF_NAMES[key] = [[f.name(plane * f.per_plane + i) for i in range(f.plan.leaves)]
                            for plane in range(f.planes)]
    return _LEAF_NAMES[key]


_LEAF_NAMES: dict[tuple[object, ...], list[list[str]]] = {}

# Links down and up of each switch of an unedited template's intact fabric, by its plan (as
# _INTACT_STATE): every failure of an N-1 sweep compares against them, and the sweep's kinds of
# switch are read off them.
_INTACT_LINKS: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _intact_links(f: SwitchPairs, design: FabricDesign, u0: np.ndarray, v0: np.ndarray,
                  total0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(links down, links up, all links) of each switch of the fabric before the failure,
    endpoints not counted."""
    key = (f.plan, f.r.rails, f.r.planes) if not design.edits else None
    if key is not None and key in _INTACT_LINKS:
        return _INTACT_LINKS[key]
    down, up = switch_links(f, u0, v0, total0)
    links = (down, up, down + up)
    if key is not None:
        for array in links:
            array.flags.writeable = False
        if len(_INTACT_LINKS) >= 4:
            _INTACT_LINKS.clear()
        _INTACT_LINKS[key] = links
    return links


def _intact_degree(f: SwitchPairs, design: FabricDesign, u0: np.ndarray, v0: np.ndarray,
                   total0: np.ndarray) -> np.ndarray:
    return _intact_links(f, design, u0, v0, total0)[2]


def switch_signatures(design: FabricDesign, r: Resolved, plan: Plan) -> dict[str, tuple[int, int]] | None:
    """Every switch left after the design's edits, in build order, with (links to the tier below,
    all links): the kinds of switch an N-1 sweep needs one of each. None if an edit names an
    endpoint (the graph must tell)."""
    intact = _intact_degrees(design, r, plan)
    if intact is None:
        return None
    f, alive, down_a, degree_a = intact
    down, degree = down_a.tolist(), degree_a.tolist()
    names = f.names()
    return {names[n]: (down[n], degree[n]) for n in np.flatnonzero(alive).tolist()}


def _intact_degrees(design: FabricDesign, r: Resolved, plan: Plan
                    ) -> tuple[SwitchPairs, np.ndarray, np.ndarray, np.ndarray] | None:
    """The fabric left after the design's edits: which devices are alive, and each device's links
    to the tier below and all its links, NICs included. None if an edit names an endpoint (the
    graph must tell)."""
    f = SwitchPairs(plan, r)
    if any(f.is_nic(x) for e in design.edits for x in (e.a, e.b) if x):
        return None
    keys, template = f.template_pairs()
    u, v, total, alive, nics, _ = _intact_state(f, design, keys, template)
    down, _, links = _intact_links(f, design, u, v, total)
    return f, alive, down + nics, links + nics


@dataclass(frozen=True)
class SwitchKinds:
    """The switches left after a design's edits, by tier: how many, and the first of each kind
    (links to the tier below, all links), in build order: the failures an N-1 sweep measures."""

    counts: dict[str, int]
    first: dict[str, list[str]]


_TIER_OF_LEVEL = {1: "leaf", 2: "spine", 3: "core"}


def switch_kinds(design: FabricDesign, r: Resolved, plan: Plan) -> SwitchKinds | None:
    """`switch_signatures` grouped by tier and kind as arrays, naming only the first switch of
    each kind (a 131,072-GPU fabric has 10,240 switches and three kinds). None where
    `switch_signatures` is None."""
    intact = _intact_degrees(design, r, plan)
    if intact is None:
        return None
    f, alive, down, degree = intact
    nodes = np.flatnonzero(alive)
    level = f.level[nodes].astype(np.int64)
    rows = np.column_stack([level, down[nodes], degree[nodes]])
    # return_index: the first switch of each kind, by number (a stable sort keeps the first)
    _, first = np.unique(rows, axis=0, return_index=True)
    counts = np.bincount(level, minlength=4).tolist()
    out = SwitchKinds({tier: counts[lv] for lv, tier in _TIER_OF_LEVEL.items() if counts[lv]},
                      {tier: [] for lv, tier in _TIER_OF_LEVEL.items() if counts[lv]})
    for node in np.sort(nodes[first]).tolist():
        out.first[_TIER_OF_LEVEL[int(f.level[node])]].append(f.name(node))
    return out
