"""Placing a capture's spines and cores: each on a design switch whose lower neighbours it shares.

Design switches with the same lower neighbours form one class (any of them will do in the wiring
rule); a capture switch goes to the class its links to placed lower devices share most with, a
full class passing its weakest members on to their next choice, and within a class by the
numbers in the names. `place_upper` counts the shared links on the link arrays and the design's
pair arrays (a 131,072-GPU capture has 6,144 spines and cores over 262,144 switch pairs);
`place_upper_by_objects` is the link-by-link reading it is held equal to.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from designer.model.topology.asbuilt import (
    KIND_SWITCH,
    AsBuilt,
    ColumnDevices,
    device_table,
    link_ends,
    natural_key,
)
from designer.model.topology.design_view import DesignView, PlanNodes

_DIGITS = re.compile(r"\d+", re.ASCII)
_LEVEL = {"spine": 2, "core": 3}


def place_upper(fabric: AsBuilt, roles: dict[str, str], g: DesignView, mapping: dict[str, str],
                same_name: dict[str, str], names: Mapping[str, str] | None = None) -> None:
    """Spines, then cores: to the design switches whose lower neighbours they share most.
    `names`: the switches' names by id (`switch_names`), when the caller has them."""
    ends = link_ends(fabric)
    if ends is None:
        place_upper_by_objects(fabric, roles, g, mapping, same_name)
        return
    devs = switch_names(fabric) if names is None else names
    da = g.arrays()
    n_nodes = max(1, len(da.names))
    d_lo, d_hi = np.divmod(da.pair_key, n_nodes)
    x, y = np.concatenate([ends.a, ends.b]), np.concatenate([ends.b, ends.a])
    switches = switch_ids(fabric)
    for role in ("spine", "core"):
        level = _LEVEL[role]
        built = [d for d in switches if roles.get(d) == role]
        design = [da.names[c] for c in np.flatnonzero(da.level == level).tolist()]
        if not isinstance(g.nodes, PlanNodes):
            design = [n for n in design if g.nodes[n]["role"] == role]
            design.sort(key=lambda n: (g.nodes[n]["plane"], g.nodes[n]["index"]))
        # A template's switches are its role by their level, and in (plane, index) order by
        # code (`view_from_plan` numbers each plane's switches in turn): 6,144 records unmade.
        # Design switches with the same lower neighbours form one class: any of them will do.
        code = da.code
        is_top = np.zeros(n_nodes, dtype=bool)
        is_top[[code[n] for n in design]] = True
        sel = is_top[d_hi] & (da.level[d_lo] == level - 1)
        order = np.lexsort((d_lo[sel], d_hi[sel]))
        hi, lo = d_hi[sel][order], d_lo[sel][order]
        cut = np.flatnonzero(hi[1:] != hi[:-1]) + 1
        below_of = {int(h[0]): tuple(part.tolist())
                    for h, part in zip(np.split(hi, cut), np.split(lo, cut), strict=True) if len(h)}
        classes: dict[tuple[int, ...], list[str]] = defaultdict(list)
        for n in design:
            classes[below_of.get(code[n], ())].append(n)
        keys = list(classes)
        # The links each switch has to the design devices its neighbours are placed on, counted
        # before this tier's switches are placed.
        # Only the switches' placements are read: a class's key holds leaves or spines, and
        # the mapping's 131,072 HCAs at 131K GPUs are on NICs.
        placed_on = np.full(len(ends.ids), -1, dtype=np.int64)
        index = ends.index
        rows = [index[d] for d in switches if d in mapping and d in index]
        placed_on[rows] = [code.get(mapping[ends.ids[r]], -1) for r in rows]
        rest = _same_names_first(built, same_name, mapping, classes, devs)
        shared = _shared(x, y, placed_on, rest, index, keys, n_nodes)
        _assign(rest, shared, [classes[key] for key in keys], devs, mapping)


def _shared(x: np.ndarray, y: np.ndarray, placed_on: np.ndarray, rest: list[str], index: Mapping[str, int],
            keys: list[tuple[int, ...]], n_nodes: int) -> dict[str, Counter[int]]:
    """Per switch of `rest`, class k -> its links to the design devices of class k's key."""
    # Which classes each lower design device belongs to (p ascending, then k).
    member_p = np.array([p for key in keys for p in key], dtype=np.int64)
    member_k = np.array([k for k, key in enumerate(keys) for _ in key], dtype=np.int64)
    by_p = np.lexsort((member_k, member_p))
    member_p, member_k = member_p[by_p], member_k[by_p]
    per_p = np.bincount(member_p, minlength=n_nodes)
    start_p = np.concatenate([[0], np.cumsum(per_p)[:-1]])
    is_rest = np.zeros(len(placed_on), dtype=bool)
    rest_rows = np.array([index[b] for b in rest if b in index], dtype=np.int64)
    is_rest[rest_rows] = True
    on = placed_on[y]
    pick = is_rest[x] & (on >= 0)
    pick[pick] = per_p[on[pick]] > 0
    px, pp = x[pick], on[pick]
    times = per_p[pp]
    total = int(times.sum())
    first = np.repeat(np.cumsum(times) - times, times)
    at = np.repeat(start_p[pp], times) + (np.arange(total, dtype=np.int64) - first)
    n_keys = max(1, len(keys))
    found, counts = np.unique(np.repeat(px, times) * n_keys + member_k[at], return_counts=True)
    row_of = {index[b]: b for b in rest if b in index}
    shared: dict[str, Counter[int]] = {b: Counter() for b in rest}
    for key, c in zip(found.tolist(), counts.tolist(), strict=True):
        r, k = divmod(key, n_keys)
        shared[row_of[r]][k] = c
    return shared


def _assign(rest: list[str], shared: dict[str, Counter[int]], classes: list[list[str]], devs: Mapping[str, str],
            mapping: dict[str, str]) -> None:
    """Each switch goes to the class it shares most neighbours with (the first on a tie); a full
    class passes its weakest members on to their next choice; within a class by number."""
    n = len(classes)
    if not n:
        return          # no design switch of this tier: none is placed
    order = list(range(n))
    choices: dict[str, list[int]] = {}

    def choice(b: str, step: int) -> int:
        if step == 0:
            # The first of the classes it shares most with (the full order only when it moves on).
            c = shared[b]
            if not c:
                return 0
            best = max(c.values())
            return min(k for k, v in c.items() if v == best)
        if b not in choices:
            choices[b] = sorted(order, key=shared[b].__getitem__, reverse=True)
        return choices[b][step]

    step = dict.fromkeys(rest, 0)
    members: dict[int, list[str]] = defaultdict(list)
    for b in rest:
        members[choice(b, 0)].append(b)
    moved = True
    while moved:
        moved = False
        for k in list(members):
            cap = len(classes[k])
            if len(members[k]) > cap:
                members[k].sort(key=partial(_strength, shared, devs, k))
                for b in members[k][cap:]:
                    step[b] += 1
                    if step[b] < n:
                        members[choice(b, step[b])].append(b)
                        moved = True
                members[k] = members[k][:cap]
    for k, bs in members.items():
        for slot, d in zip(_by_number(bs, devs, classes[k]), classes[k], strict=False):
            if slot is not None:
                mapping[slot] = d


def place_upper_by_objects(fabric: AsBuilt, roles: dict[str, str], g: DesignView, mapping: dict[str, str],
                 same_name: dict[str, str]) -> None:
    """`place_upper` read link by link and class by class (the reference it is held equal to)."""
    devs = {d: fabric.devices[d].name for d in switch_ids(fabric)}
    below: dict[str, Counter[str]] = defaultdict(Counter)
    # Sets of the upper tiers, read once per link end: a 131,072-GPU capture has 400,000 links.
    upper = {d for d, role in roles.items() if role in ("spine", "core")}
    _count_below(fabric, below, upper, mapping)
    switches = switch_ids(fabric)
    for level, role in ((2, "spine"), (3, "core")):
        built = [d for d in switches if roles.get(d) == role]
        design = g.by_role(role)
        # Design switches with the same lower neighbours form one class: any of them will do.
        classes: dict[frozenset[str], list[str]] = defaultdict(list)
        for n in sorted(design, key=lambda n: (g.nodes[n]["plane"], g.nodes[n]["index"])):
            classes[frozenset(p for p in g.below(n) if g.nodes[p]["level"] == level - 1)].append(n)
        keys = list(classes)
        rest = _same_names_first(built, same_name, mapping, classes, devs)
        # Which classes each lower design device belongs to, so a switch's overlap with every
        # class is one pass over its own neighbours.
        lower_in: dict[str, list[int]] = defaultdict(list)
        for k, key in enumerate(keys):
            for p in key:
                lower_in[p].append(k)
        shared: dict[str, Counter[int]] = {}
        for b in rest:
            c: Counter[int] = Counter()
            for p, links in below.get(b, Counter()).items():
                for k in lower_in.get(p, ()):
                    c[k] += links
            shared[b] = c
        _assign(rest, shared, [classes[key] for key in keys], devs, mapping)
        # Spines mapped above feed the cores above them.
        if role == "spine":
            cores = {d for d, r in roles.items() if r == "core"}
            spines = {d for d, r in roles.items() if r == "spine"}
            if cores:
                _count_below(fabric, below, cores, {d: mapping[d] for d in spines if d in mapping})


def _same_names_first(built: list[str], same_name: dict[str, str], mapping: dict[str, str],
                      classes: Any, devs: Mapping[str, str]) -> list[str]:
    """Place the built switches that carry a design switch's name on it, take those design
    switches out of their classes, and return the others in the order of their names."""
    taken = {same_name[b] for b in built if b in same_name}
    for b in built:
        if b in same_name:
            mapping[b] = same_name[b]
    for key in list(classes):
        if taken & set(classes[key]):
            classes[key] = [n for n in classes[key] if n not in taken]
    return sorted((b for b in built if b not in same_name), key=lambda b: natural_key(devs[b]))


def switch_names(fabric: AsBuilt) -> dict[str, str]:
    """Each switch's name by id, in the capture's order (read-only): the switches' (10,240 at
    131K GPUs) read off the device table's name column without making their `Device` objects,
    once per capture read as columns (until a device is rewritten, which makes its table anew):
    the groups' leaf names and the placement both ask."""
    table = device_table(fabric)
    devs = fabric.devices
    cached = fabric.__dict__.get("_switch_names")
    if cached is not None and cached[0] is table and isinstance(devs, ColumnDevices):
        return cached[1]  # type: ignore[no-any-return]
    ids, names = table.ids, table.name
    made = {ids[i]: names[i] for i in np.flatnonzero(table.kind == KIND_SWITCH).tolist()}
    if isinstance(devs, ColumnDevices):
        fabric.__dict__["_switch_names"] = (table, made)
    return made


def switch_ids(fabric: AsBuilt) -> list[str]:
    """The capture's switches, in its order (read on its columns)."""
    table = device_table(fabric)
    ids = table.ids
    return [ids[i] for i in np.flatnonzero(table.kind == KIND_SWITCH).tolist()]


def _count_below(fabric: AsBuilt, below: dict[str, Counter[str]], upper: set[str], placed: dict[str, str]) -> None:
    """Count, for each switch of `upper`, its links to each design device its neighbours in
    `placed` are placed on (on the link arrays, one count per pair of devices)."""
    ends = link_ends(fabric)
    if ends is None:
        for w in fabric.links:
            a, b = w.a, w.b
            if a in upper and b in placed:
                below[a][placed[b]] += 1
            if b in upper and a in placed:
                below[b][placed[a]] += 1
        return
    ids, index = ends.ids, ends.index
    n = len(ids)
    top = np.zeros(n, dtype=bool)
    top[[index[d] for d in upper if d in index]] = True
    low = np.zeros(n, dtype=bool)
    low[[index[d] for d in placed if d in index]] = True
    x, y = np.concatenate([ends.a, ends.b]), np.concatenate([ends.b, ends.a])
    pick = top[x] & low[y]
    keys, counts = np.unique(x[pick] * n + y[pick], return_counts=True)
    for key, c in zip(keys.tolist(), counts.tolist(), strict=True):
        u, v = divmod(key, n)
        below[ids[u]][placed[ids[v]]] += c




def _strength(shared: dict[str, Counter[int]], devs: Mapping[str, str], k: int, b: str) -> tuple[int, list[Any]]:
    """Sort key: the switch sharing most neighbours with class k first, then by name."""
    return (-shared[b][k], natural_key(devs[b]))


def _by_number(built: list[str], devs: Mapping[str, str], design: list[str]) -> list[str | None]:
    """Interchangeable switches in slot order: by the number their names end in when those
    numbers are the design's (IBSPINE-14 is spine-14) or fit the slots (an absent one leaving
    its gap), else by name."""
    slots = len(design)
    nums = {}
    for b in built:
        found = _DIGITS.findall(devs[b])
        if found:
            nums[b] = int(found[-1])
    if len(nums) == len(built) and len(set(nums.values())) == len(built) and built:
        own = {int(_DIGITS.findall(n)[-1]): i for i, n in enumerate(design) if _DIGITS.findall(n)}
        if len(own) == slots and all(v in own for v in nums.values()):
            by_slot: list[str | None] = [None] * slots
            for b, v in nums.items():
                by_slot[own[v]] = b
            return by_slot
        base = 0 if min(nums.values()) == 0 else 1
        if max(nums.values()) - base < slots:
            out: list[str | None] = [None] * slots
            for b, n in nums.items():
                out[n - base] = b
            return out
    by_name: list[str | None] = []
    keys = {b: natural_key(devs[b]) for b in built}
    ordered: list[str] = sorted(built, key=keys.__getitem__)
    by_name.extend(ordered)
    return by_name
