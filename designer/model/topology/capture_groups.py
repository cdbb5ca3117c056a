"""A capture's leaf groups (SUs) and rails, read without a design, on its columns.

Two leaves belong together when many hosts have HCAs on both; a leaf's rail is the HCA index
most of its hosts use on it (see `capture_mapping`, which places a capture on a design from
these groups). `group_view_on_arrays` reads them on the capture's columns (`asbuilt.device_table`
and the leaves' host ends as arrays): a 131,072-GPU capture has 131,072 HCAs, read once per pass
as columns instead of as objects. `capture_mapping._group_view_by_objects` is the reading they
are held equal to (tests/test_capture_placement_arrays.py).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.topology.asbuilt import KIND_HOST, DeviceTable, natural_key

_DIGITS = re.compile(r"\d+", re.ASCII)
# A device's role as a code on arrays (0: none of these, an aggregation node or a stray device).
NIC, LEAF, SPINE, CORE = 1, 2, 3, 4
ROLE_CODE = {"nic": NIC, "leaf": LEAF, "spine": SPINE, "core": CORE}


@dataclass
class GroupView:
    """The capture's leaf groups and rails, read without a design."""

    management: set[str]                       # host names set apart
    rank: dict[int, int]                       # HCA index -> rail rank
    ends: dict[str, list[tuple[int, str]]]     # leaf -> [(port, HCA id)]
    hosts_on: dict[str, set[str]]              # leaf -> compute host names on it
    rail_of: dict[str, int]                    # leaf -> rail rank most of its hosts use
    groups: list[list[str]]                    # leaf groups, in group order
    slots: list[int]                           # per group: leaf ports holding a compute HCA
    single_rail: int                           # leaves whose named HCAs all share one index
    group_size: int = 0
    # `ends` as rows of the device columns, when read on them (placing reads them as arrays).
    end_rows: LeafEndRows | None = field(default=None, compare=False, repr=False)
    # Every host name's rank in natural order (`natural_ranks`), when read on the columns: the
    # groups' order and the placement's ballots both sort the hosts (16,384 at 131K GPUs).
    host_rank: dict[str, int] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LeafEndRows:
    """The links with a leaf at one end and an HCA at the other, in link order (the leaf at the
    link's first end before its second): each as the leaf's row, its port and the HCA's row in
    the capture's device columns."""

    leaf: np.ndarray
    port: np.ndarray
    hca: np.ndarray


def leaf_end_rows(a: np.ndarray, pa: np.ndarray, b: np.ndarray, pb: np.ndarray, leaf: np.ndarray,
                  nic: np.ndarray) -> LeafEndRows:
    first = np.flatnonzero(leaf[a] & nic[b])
    second = np.flatnonzero(leaf[b] & nic[a])
    at = np.concatenate([first, second])
    order = np.argsort(at * 2 + np.concatenate([np.zeros(len(first), np.int64), np.ones(len(second), np.int64)]),
                       kind="stable")
    return LeafEndRows(np.concatenate([a[first], b[second]])[order], np.concatenate([pa[first], pb[second]])[order],
                       np.concatenate([b[first], a[second]])[order])


def union_groups(items: Iterable[str], shares: dict[tuple[str, str], int],
                 hosts: dict[str, int] | None = None) -> list[list[str]]:
    """Connected components of the leaves linked by strong host sharing. With the hosts on each
    leaf, two leaves must also share more than half the hosts of the smaller: servers of two HCAs
    on one leaf, two of them crossed between two leaves, share two hosts and are no group."""
    parent = {i: i for i in items}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    best: dict[str, int] = defaultdict(int)
    for (a, b), n in shares.items():
        best[a] = max(best[a], n)
        best[b] = max(best[b], n)
    for (a, b), n in shares.items():
        # A miswired cable shares one host between two groups; a group shares nearly all.
        if 2 * n >= best[a] and 2 * n >= best[b] and (n >= 2 or best[a] == best[b] == 1) and (
                hosts is None or 2 * n > min(hosts.get(a, 0), hosts.get(b, 0))):
            parent[find(a)] = find(b)
    out: dict[str, list[str]] = defaultdict(list)
    for i in parent:
        out[find(i)].append(i)
    return list(out.values())


def shares_of(hosts_on: dict[str, set[str]]) -> dict[tuple[str, str], int]:
    """(leaf, leaf) in name order -> the hosts with HCAs on both."""
    by_host: dict[str, list[str]] = defaultdict(list)
    for leaf, hosts in hosts_on.items():
        for h in hosts:
            by_host[h].append(leaf)
    shares: Counter[tuple[str, str]] = Counter()
    for leaves in by_host.values():
        leaves.sort()
        for i, a in enumerate(leaves):
            for b in leaves[i + 1:]:
                shares[(a, b)] += 1
    return shares


def group_number(names: dict[str, str], groups: list[list[str]]) -> dict[str, int] | None:
    """Which number in the leaf names is the group's, if one is: the same within every
    multi-leaf group and different between groups ('IBLEAF-03-05': 3 is the SU, 5 the rail)."""
    numbers = {leaf: [int(x) for x in _DIGITS.findall(name)] for leaf, name in names.items()}
    width = Counter(len(v) for v in numbers.values()).most_common(1)[0][0] if numbers else 0
    big = [g for g in groups if len(g) > 1]
    for pos in range(width):
        if any(len(numbers[leaf]) != width for g in big for leaf in g):
            break
        values = [{numbers[leaf][pos] for leaf in g} for g in big]
        if big and all(len(v) == 1 for v in values) and len({next(iter(v)) for v in values}) == len(big) > 1:
            return {leaf: nums[pos] for leaf, nums in numbers.items() if len(nums) == width}
    return None


def join_short_groups(groups: list[list[str]], shares: dict[tuple[str, str], int]) -> None:
    """A group of at most half as many leaves as most (a leaf that lost most of its host cables)
    joins the group it shares the most hosts with."""
    sizes = Counter(len(g) for g in groups if len(g) > 1)
    if not sizes:
        return
    usual = sizes.most_common(1)[0][0]
    for grp in sorted((g for g in groups if 2 * len(g) <= usual), key=len):
        if grp not in groups:
            continue
        best, best_n = None, 0
        members = set(grp)
        for other in groups:
            if other is grp:
                continue
            n = sum(c for (a, b), c in shares.items() if (a in members and b in other) or (b in members and a in other))
            if n > best_n:
                best, best_n = other, n
        if best is not None:
            best.extend(grp)
            groups.remove(grp)


def order_groups(groups: list[list[str]], shares: dict[tuple[str, str], int], hosts_on: dict[str, set[str]],
                 leaf_names: dict[str, str], host_rank: dict[str, int] | None = None) -> dict[str, int] | None:
    """Join the leaves whose hosts have no names to the group their name numbers, join the short
    groups, and sort the groups (in place); returns the group numbers the names carry, if any.
    `host_rank`: each host name's rank in natural order, where the caller has them."""
    numbers = group_number(leaf_names, groups)
    if numbers:
        # Leaves whose hosts have no names join the group their name numbers.
        by_number: dict[int, list[str]] = {}
        for grp in groups:
            if len(grp) > 1 and grp[0] in numbers:
                by_number[numbers[grp[0]]] = grp
        for grp in [grp for grp in groups if len(grp) == 1]:
            target = by_number.get(numbers.get(grp[0], -1))
            if target is not None and target is not grp:
                target.extend(grp)
                groups.remove(grp)

    join_short_groups(groups, shares)

    # Hosts compare by their rank in natural order (equal keys, equal ranks), as by their keys.
    rank = host_rank if host_rank is not None else natural_ranks(
        [h for hosts in hosts_on.values() for h in hosts])

    def group_key(grp: list[str]) -> tuple[Any, ...]:
        # By its middle host: a cable crossed in from another group's host moves its first.
        hosts = sorted({h for leaf in grp for h in hosts_on[leaf]}, key=rank.__getitem__)
        num = min((numbers[x] for x in grp if x in numbers), default=1 << 30) if numbers else 0
        return (num, 0 if hosts else 1, rank[hosts[len(hosts) // 2]] if hosts else -1,
                min(natural_key(leaf_names[x]) for x in grp))

    groups.sort(key=group_key)
    return numbers


def slot_counts(slots: list[list[int]]) -> tuple[list[int], int]:
    """Servers per group from its slots, and the most: the last group may be partly filled, its
    highest server slot says how far."""
    size = max((len(s) for s in slots), default=0)
    counts = [len(s) for s in slots]
    if slots and slots[-1]:
        counts[-1] = min(size, max(len(slots[-1]), slots[-1][-1]))
    return counts, size


class EndsOnRows(defaultdict[str, list[tuple[int, str]]]):
    """leaf id -> [(leaf port, HCA id)] of its host links, in link order, listed from the end
    rows when first read: placing a capture whose HCAs all carry their server's name reads
    none of its 131,072 ends at 131K GPUs. As a `defaultdict(list)`, read and compared."""

    def __init__(self, ids: list[str], rows: LeafEndRows) -> None:
        super().__init__(list)
        self._rows: tuple[list[str], LeafEndRows] | None = (ids, rows)

    def _fill(self) -> None:
        if self._rows is not None:
            (ids, rows), self._rows = self._rows, None
            for lf, p, h in zip(rows.leaf.tolist(), rows.port.tolist(), rows.hca.tolist(), strict=True):
                defaultdict.__getitem__(self, ids[lf]).append((p, ids[h]))

    def __getitem__(self, key: str) -> list[tuple[int, str]]:
        self._fill()
        return defaultdict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return defaultdict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return defaultdict.__iter__(self)

    def __len__(self) -> int:
        self._fill()
        return defaultdict.__len__(self)

    def __eq__(self, other: object) -> bool:
        self._fill()
        if isinstance(other, EndsOnRows):
            other._fill()
        return defaultdict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._fill()
        return defaultdict.__repr__(self)

    def get(self, key: str, default: Any = None) -> Any:
        self._fill()
        return defaultdict.get(self, key, default)

    def keys(self) -> Any:
        self._fill()
        return defaultdict.keys(self)

    def values(self) -> Any:
        self._fill()
        return defaultdict.values(self)

    def items(self) -> Any:
        self._fill()
        return defaultdict.items(self)

    def copy(self) -> defaultdict[str, list[tuple[int, str]]]:  # type: ignore[override]
        self._fill()
        return defaultdict(list, defaultdict.items(self))

    def __reduce__(self) -> Any:
        # Copied or pickled as the plain `defaultdict(list)` it reads as.
        self._fill()
        return defaultdict, (list,), None, None, iter(defaultdict.items(self))


def group_view_on_arrays(table: DeviceTable, role: np.ndarray, mgmt_hosts: set[str], rows: LeafEndRows,
                         leaf_names: Any) -> GroupView:
    """The group view on the capture's columns (`rows` on `table`'s rows, `role` their role
    codes); `leaf_names(id)` is a leaf's name."""
    ids, hosts = table.ids, table.hosts
    n = len(ids)
    is_nic = role == NIC
    leaf_rows = np.flatnonzero(role == LEAF)
    leaves = [ids[i] for i in leaf_rows.tolist()]
    host_code, hca = table.host_code, table.hca
    named = host_code >= 0
    mgmt_host = np.array([h in mgmt_hosts for h in hosts] + [False], dtype=bool)   # row -1: no host
    set_apart = mgmt_host[host_code]      # an HCA of a management host
    endpoint = table.kind == KIND_HOST
    compute = endpoint & is_nic & ~set_apart
    rank = {h: i for i, h in enumerate(sorted_distinct(hca[compute & (hca >= 0)]).tolist())}

    # --- each leaf's host ends (listed when first read) --------------------------------------
    e_leaf, e_port, e_hca = rows.leaf, rows.port, rows.hca
    ends = EndsOnRows(ids, rows)
    # Leaf number: its place among the leaves (device order); hosts by their code.
    leaf_no = np.full(n, -1, dtype=np.int64)
    leaf_no[leaf_rows] = np.arange(len(leaf_rows), dtype=np.int64)
    e_no = leaf_no[e_leaf]
    e_host = host_code[e_hca]
    counted = named[e_hca] & ~set_apart[e_hca]                   # a named compute HCA's end
    n_leaves, n_hosts = len(leaves), max(1, len(hosts))

    # --- the compute hosts on each leaf ---------------------------------------------------------
    pairs = sorted_distinct(e_no[counted] * n_hosts + e_host[counted])
    p_leaf, p_host = np.divmod(pairs, n_hosts)
    hosts_on: dict[str, set[str]] = {leaf: set() for leaf in leaves}
    bounds = np.searchsorted(p_leaf, np.arange(n_leaves + 1))
    host_list = p_host.tolist()
    for i, leaf in enumerate(leaves):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        if hi > lo:
            hosts_on[leaf] = {hosts[c] for c in host_list[lo:hi]}

    # --- each leaf's rail: the rank most of its ends use, the first seen on a tie ------------------
    rank_of = np.full(int(hca.max(initial=0)) + 2, -1, dtype=np.int64)
    for h, r in rank.items():
        rank_of[h] = r
    e_rank = np.where(e_hca >= 0, rank_of[np.maximum(hca[e_hca], -1)], -1)
    ranked = counted & (hca[e_hca] >= 0) & (e_rank >= 0)
    width = max(1, len(rank))
    keys, first, counts = np.unique(e_no[ranked] * width + e_rank[ranked], return_index=True, return_counts=True)
    first_at = np.flatnonzero(ranked)[first]
    k_leaf = keys // width
    best = np.lexsort((first_at, -counts, k_leaf))
    lead = best[np.r_[True, k_leaf[best][1:] != k_leaf[best][:-1]]] if len(best) else best
    rail_of = {leaves[int(lf)]: int(r) for lf, r in zip((keys[lead] // width).tolist(), (keys[lead] % width).tolist(),
                                                        strict=True)}
    rail_of = {leaf: rail_of[leaf] for leaf in leaves if leaf in rail_of}

    # --- groups -----------------------------------------------------------------------------------
    shares = shares_on_arrays(p_leaf, p_host, leaves)
    groups = union_groups(leaves, shares, {leaf: len(hosts_on[leaf]) for leaf in leaves})
    host_rank = natural_ranks(hosts)
    order_groups(groups, shares, hosts_on, {leaf: leaf_names(leaf) for leaf in leaves}, host_rank)

    # A server's slot is the leaf port its HCAs use on every rail leaf of its group: a port used on
    # at most half the group's leaves holds a stray or moved cable, not a server.
    group_of = np.full(n_leaves, -1, dtype=np.int64)
    number = {leaf: i for i, leaf in enumerate(leaves)}
    size_of = np.array([len(g) for g in groups], dtype=np.int64)
    for gi, grp in enumerate(groups):
        group_of[[number[leaf] for leaf in grp]] = gi
    not_mgmt = ~(endpoint[e_hca] & set_apart[e_hca])
    ports = int(e_port.max(initial=0)) + 1
    leaf_ports = sorted_distinct(e_no[not_mgmt] * ports + e_port[not_mgmt])
    g_ports, g_used = np.unique(group_of[leaf_ports // ports] * ports + leaf_ports % ports, return_counts=True)
    g_of, port_of = np.divmod(g_ports, ports)
    keep = (2 * g_used > size_of[g_of]) | (size_of[g_of] == 1)
    slots: list[list[int]] = [[] for _ in groups]
    for gi, p in zip(g_of[keep].tolist(), port_of[keep].tolist(), strict=True):
        slots[gi].append(p)
    # Leaves whose named compute HCAs all have one index.
    leaf_hca = sorted_distinct(e_no[counted] * (rank_of.size + 1) + (hca[e_hca[counted]] + 1))
    per_leaf = np.bincount(leaf_hca // (rank_of.size + 1), minlength=n_leaves)
    single = int(np.count_nonzero(per_leaf == 1))
    counts_, size = slot_counts(slots)
    return GroupView(mgmt_hosts, rank, ends, hosts_on, rail_of, groups, counts_, single, size, rows, host_rank)


def shares_on_arrays(p_leaf: np.ndarray, p_host: np.ndarray, leaves: list[str]) -> dict[tuple[str, str], int]:
    """`shares_of` on the (leaf number, host code) pairs, unique: each host's leaves in name
    order, every two of them counted once per host."""
    if not len(p_leaf):
        return {}
    by_name = sorted(range(len(leaves)), key=leaves.__getitem__)
    name_rank = np.empty(len(leaves), dtype=np.int64)
    name_rank[by_name] = np.arange(len(leaves), dtype=np.int64)
    r = name_rank[p_leaf]
    order = np.lexsort((r, p_host))
    host, r = p_host[order], r[order]
    start = np.r_[0, np.flatnonzero(host[1:] != host[:-1]) + 1]
    length = np.diff(np.r_[start, len(host)])
    pos = np.arange(len(host)) - np.repeat(start, length)
    left = np.repeat(length, length) - pos - 1            # leaves after this one on its host
    n = len(leaves)
    keys = []
    for d in range(1, int(length.max())):
        at = np.flatnonzero(left >= d)
        keys.append(r[at] * n + r[at + d])
    if not keys:
        return {}
    found, counts = np.unique(np.concatenate(keys), return_counts=True)
    lo, hi = np.divmod(found, n)
    return {(leaves[by_name[a]], leaves[by_name[b]]): c
            for a, b, c in zip(lo.tolist(), hi.tolist(), counts.tolist(), strict=True)}


def natural_ranks(names: list[str]) -> dict[str, int]:
    """Each name's rank in natural order (`natural_key`), names of equal keys ranked equal, so
    that sorting by rank is sorting by key, ties in the same order."""
    distinct = sorted(((n, natural_key(n)) for n in dict.fromkeys(names)), key=lambda t: t[1])
    out: dict[str, int] = {}
    rank, last = -1, None
    for name, key in distinct:
        if key != last:
            rank, last = rank + 1, key
        out[name] = rank
    return out
