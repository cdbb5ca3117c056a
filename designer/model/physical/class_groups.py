"""A tier's groups of linked cages, counted class by class: the part of the bill by class of
link (class_bom.py) for tiers whose runs change a group's medium.

The groups are found once, on the first plane (or on the planes whose servers share NIC cages,
from the first plane's), as `closed_form_bom.counts_from_links` finds them; a group's class is
its shape with its runs' bins, its choice taken from its first group, and a class's cables and
fibers are counted from its groups' runs as a matrix (a row per group, a column per link). Groups
are taken size by size, a matrix for each size: where cages shared by two tiers chain a few
groups of thousands of links beside thousands of groups of a few (the spines' cages of an
oversubscribed three-tier fabric), one matrix as wide as the largest group would hold a thousand
times the links.

Three things keep the count to the distinct: where a tier's links repeat in blocks alike (a
pod's, a leaf's; group_arrays.py), the groups are found on the first block and repeated; groups
alike in shape and in the pairs of racks their links join (`Runs.link_classes`) have the same runs
on every plane, so a matrix holds a row per such kind of group and block of planes, counted
times its groups; and what a cage's modules would be at a run is asked once per bin of runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog.entries import Transceiver
from designer.model.common.arrays import sorted_distinct
from designer.model.physical.class_parts import Bill, Runs, Tier
from designer.model.physical.closed_form_bom import (
    MEDIA_CODES,
    TIERS,
    cage_slots,
    choose_for_group,
    host_cages,
    length_bins,
    link_groups,
)
from designer.model.physical.floor_layout import server_device
from designer.model.physical.group_arrays import (
    dense_classes,
    members_of,
    renamed_blocks,
    row_classes,
    translated_blocks,
)
from designer.model.physical.link_arrays import DeviceCodes
from designer.model.physical.media import (
    OPTICS,
    CableLength,
    Choice,
    End,
    LinkPlan,
    MediaIndex,
    choose_medium,
    sold_length,
)

# a function of links (indices in the groups' link order) giving each its end's kind of cage
KindsOf = Callable[[np.ndarray], np.ndarray]

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived


def block_planes(tier: Tier, k_host: int, planes: int, rails: int) -> int | None:
    """How many planes in a row share their servers' NIC cages (their links' groups span them);
    None where a NIC cage joins ports of two planes in another way."""
    if not tier.host or k_host <= 1 or planes == 1:
        return 1
    if planes % k_host == 0:
        return k_host
    return 1 if rails % k_host == 0 else None


@dataclass(frozen=True)
class Bucket:
    """The groups of one size: `width` links on a plane each, their group numbers (ascending), and
    where their links start in `Groups.by_size`."""

    width: int
    groups: np.ndarray
    start: int


class _BlockGroups:
    """The groups of a block of links, as `Groups` reads them (its module docstring): `ca`, `cb`
    each link's cages, numbered below `n_cages`."""

    def __init__(self, ca: np.ndarray, cb: np.ndarray, n_cages: int, link_tier: np.ndarray, b_lane: np.ndarray,
                 a_host: np.ndarray) -> None:
        n = len(ca)
        # groups in the order of their first link; links of each group in link order
        comp, group_of_label, group, n_groups = link_groups(ca, cb, n_cages)
        self.n_groups, self.group = n_groups, group
        # each group's first link of each tier (n past the last where it has none)
        self.first_of_tier = np.full((n_groups, len(TIERS)), n, np.int64)
        np.minimum.at(self.first_of_tier, (group, link_tier), np.arange(n))
        lorder = np.argsort(group, kind="stable")
        g_sorted = group[lorder]
        g_start = np.r_[0, np.flatnonzero(g_sorted[1:] != g_sorted[:-1]) + 1]
        g_nlinks = np.diff(np.r_[g_start, n])
        rank = np.empty(n, np.int64)
        rank[lorder] = np.arange(n) - np.repeat(g_start, g_nlinks)
        # cage local index: order of first appearance (a then b) in the group's links
        ends_seq = np.empty(2 * n, np.int64)
        ends_seq[0::2], ends_seq[1::2] = ca[lorder], cb[lorder]
        firstpos = np.full(n_cages, 2 * n, np.int64)
        np.minimum.at(firstpos, ends_seq, np.arange(2 * n))
        first_occ = firstpos[ends_seq] == np.arange(2 * n)
        seen = np.cumsum(first_occ)
        before_group = np.r_[0, seen][2 * g_start]
        local = np.zeros(n_cages, np.int64)
        occ_pos = np.flatnonzero(first_occ)
        local[ends_seq[occ_pos]] = seen[occ_pos] - 1 - before_group[g_sorted[occ_pos // 2]]
        self.local_a, self.local_b = local[ca], local[cb]
        self.hosted = np.zeros(n_groups, bool)
        self.hosted[group[a_host]] = True
        self.rank, self.lorder, self.g_nlinks, self.g_start = rank, lorder, g_nlinks, g_start
        # each group's cages, and those of them at the links' upper ends
        self.cages = np.bincount(g_sorted[occ_pos // 2], minlength=n_groups)
        upper_seen = np.zeros(n_cages, bool)
        upper_seen[cb] = True
        self.uppers = np.bincount(group_of_label[comp[np.flatnonzero(upper_seen)]], minlength=n_groups)
        widths, size_of = np.unique(g_nlinks, return_inverse=True)
        size_of = size_of.reshape(-1)
        self.by_size = lorder[np.argsort(size_of[g_sorted], kind="stable")]
        self.buckets: list[Bucket] = []
        at = 0
        for b, width in enumerate(widths.tolist()):
            members = np.flatnonzero(size_of == b)
            self.buckets.append(Bucket(width, members, at))
            at += width * len(members)
        self.shape = np.zeros(n_groups, np.int64)
        for bucket in self.buckets:
            links = self.by_size[bucket.start:bucket.start + bucket.width * len(bucket.groups)]
            cols = [v[links].reshape(len(bucket.groups), bucket.width)
                    for v in (self.local_a, self.local_b, b_lane, link_tier)]
            rows = np.stack(cols, axis=2).reshape(len(bucket.groups), 4 * bucket.width)
            rows = np.concatenate([rows, self.cages[bucket.groups, None]], axis=1)
            self.shape[bucket.groups] = row_classes(rows)[1]


class _Repeated:
    """An array of `Groups`: its first block's (`_BlockGroups`, of the same name) repeated over
    the blocks, shifted by a block's links ("link") or groups ("group") where it holds those;
    made the first time it is read, then kept on the instance."""

    def __init__(self, shift: str | None = None) -> None:
        self.shift = shift
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, groups: Groups | None, owner: type | None = None) -> Any:
        if groups is None:
            return self
        shift = {"link": groups._link_shift, "group": groups._group_shift}.get(self.shift or "")
        value = groups._tiled(getattr(groups._one, self.name), shift() if shift else None)
        groups.__dict__[self.name] = value     # read from the instance from now on
        return value


class Groups:
    """A tier's groups of linked cages on its first plane, each group's links in the device
    graph's order, and the shape of each group (its links' cages and lanes as `counts_from_links`
    reads them). Where `block` planes share their servers' NIC cages, a group of those planes is
    the first plane's group with its leaves' cages on each plane: its links are the first plane's
    links, then their copies on the next planes (columns of the group's width each)."""

    def __init__(self, tier: Tier, dev: DeviceCodes, block: int, k_host: int, planes: int, rails: int) -> None:
        n = len(tier.a_dev)
        # the tier's links in the graph's order: server links leaf by leaf, the others as generated
        if tier.merged:   # each leaf's server links, then its uplinks, leaf by leaf; spines' uplinks last
            leaf = np.where(tier.link_tier == 0, tier.b_dev, np.where(tier.link_tier == 1, tier.a_dev, dev.total))
            self.order0 = np.lexsort((np.arange(n), tier.link_tier, leaf))
        else:
            self.order0 = np.argsort(tier.b_dev, kind="stable") if tier.host else np.arange(n)
        o = self.order0
        self.block, self.n0 = block, n
        # the links already in that order (every tier but a merged one, server links where each
        # leaf serves consecutive NIC ports) are read as they are, not copied through the order
        self.in_order = in_order = not tier.merged and (not tier.host or bool(np.all(tier.b_dev[1:]
                                                                                    >= tier.b_dev[:-1])))

        def ordered(values: np.ndarray) -> np.ndarray:
            return values if in_order else values[o]

        # per link in the groups' link order: whether the lower end is a server's NIC cage (one
        # cage on every plane of a block; a switch's is another per plane)
        self.a_host = tier.a_host[o] if tier.merged else np.full(n, tier.host)
        self.link_tier = link_tier = ordered(tier.link_tier)
        b_lane = ordered(tier.b_lane)
        ad, bd, bc = ordered(tier.a_dev), ordered(tier.b_dev), ordered(tier.b_cage)
        # the links repeat in `m` blocks alike (a pod's, a leaf's): groups found on the first.
        # Blocks whose devices and cages are the first block's moved by a step are found before
        # any cage is numbered (a NIC's cage follows from its port: the same ports each block)
        m = 1
        if not tier.merged:
            a_cage_or_port = ordered(tier.a_port) if tier.host else ordered(tier.a_cage)
            m = translated_blocks((ad, a_cage_or_port), (bd, bc), tier.host, (link_tier, b_lane))
        p = n // m
        ad, bd, bc = ad[:p], bd[:p], bc[:p]
        if tier.merged:
            ac = np.where(self.a_host, host_cages(tier.a_port[o], k_host, planes, rails)[0], tier.a_cage[o])
        else:
            ac = host_cages(tier.a_port[o[:p]], k_host, planes, rails)[0] if tier.host else tier.a_cage[o[:p]]
        ca, cb, _ = cage_slots(ad, ac, bd, bc, dev.servers, dev.total)
        # the cages numbered in slot order: by a count over the slots' range where the block's
        # ends are about as many, else by a sort of the ends (a block's few hundred links can join
        # servers' cages to a leaf's, millions of slots apart)
        low = int(min(ca.min(), cb.min())) if p else 0
        span = int(max(ca.max(), cb.max())) + 1 - low if p else 0
        if span <= 8 * len(ca) + 1024:
            used = np.zeros(span, bool)
            used[ca - low], used[cb - low] = True, True
            renumber = np.cumsum(used) - 1
            ca, cb = renumber[ca - low], renumber[cb - low]
            n_cages = int(used.sum())
        else:
            slots = sorted_distinct(np.concatenate([ca, cb]))
            ca, cb, n_cages = np.searchsorted(slots, ca), np.searchsorted(slots, cb), len(slots)
        if m == 1:   # blocks whose cages are the first block's renamed otherwise
            m = renamed_blocks(ca, cb, n_cages, (link_tier, b_lane))
            p = n // m
            if m > 1:
                first_ends = np.concatenate([ca[:p], cb[:p]])
                kept = np.zeros(n_cages, bool)
                kept[first_ends] = True
                compact = np.cumsum(kept) - 1
                ca, cb, n_cages = compact[ca[:p]], compact[cb[:p]], int(kept.sum())
        one = _BlockGroups(ca, cb, n_cages, link_tier[:p], b_lane[:p], self.a_host[:p])
        g0 = one.n_groups
        self.n_groups = g0 * m
        self._one, self._m, self._p, self._g0 = one, m, p, g0
        link_shift, group_shift = np.arange(m)[:, None] * p, np.arange(m)[:, None] * g0
        # groups size by size: the links of each size's groups, group by group, in link order
        self.buckets: list[Bucket] = []
        parts, at = [], 0
        for bucket in one.buckets:
            links = one.by_size[bucket.start:bucket.start + bucket.width * len(bucket.groups)]
            parts.append(self._tiled(links, link_shift))
            self.buckets.append(Bucket(bucket.width, self._tiled(bucket.groups, group_shift), at))
            at += bucket.width * len(bucket.groups) * m
        self.by_size = np.concatenate(parts) if parts else np.zeros(0, np.int64)

    # The per-link and per-group arrays below are the first block's repeated over the `m` blocks
    # (links shifted by a block's `p` links, groups by its `g0` groups). They are made the first
    # time they are read: a count reads a few groups' values (`width`, `links`, `rank`, ...),
    # which come from the first block's directly, and the per-bucket values (`bucket_shapes`,
    # `bucket_first_links`) from the first block's bucket repeated.

    def _tiled(self, values: np.ndarray, shift: np.ndarray | None = None) -> np.ndarray:
        out: np.ndarray = (np.tile(values, self._m) if shift is None
                           else (values[None, :] + shift).reshape(-1))
        return out

    def _link_shift(self) -> np.ndarray:
        return np.arange(self._m)[:, None] * self._p

    def _group_shift(self) -> np.ndarray:
        return np.arange(self._m)[:, None] * self._g0

    def _first_links(self, local: np.ndarray, block: np.ndarray) -> np.ndarray:
        """Each tier's first link of the first block's groups `local` moved to blocks `block`
        (n0 where a group has none of a tier)."""
        first = self._one.first_of_tier[local]
        return np.where(first < self._p, first + (block * self._p)[:, None], self.n0)

    @cached_property
    def first_of_tier(self) -> np.ndarray:
        """Each group's first link of each tier (n0 past the last where it has none)."""
        return self._first_links(np.tile(np.arange(self._g0), self._m), np.repeat(np.arange(self._m), self._g0))

    group = _Repeated("group")
    rank = _Repeated()
    lorder = _Repeated("link")
    g_start = _Repeated("link")
    g_nlinks = _Repeated()
    local_a = _Repeated()
    local_b = _Repeated()
    hosted = _Repeated()      # the groups with a server's NIC cage: only they span the planes of a block

    @cached_property
    def g_ncages(self) -> np.ndarray:
        """Cages of a group of the block: its NIC cages once, its upper cages on every plane."""
        return self._tiled(self._one.cages + (self.block - 1) * self._one.uppers)

    # Per group, its shape: per link place (local a cage, local b cage, b lane, tier) and the
    # group's cages (a group of the block follows from its first plane's shape); shapes of one
    # size only are compared, so each size numbers its own.
    shape = _Repeated()

    def width(self, g: int) -> int:
        """Group g's links on a plane."""
        return int(self._one.g_nlinks[g % self._g0])

    def links(self, g: int) -> np.ndarray:
        """Group g's links, in link order."""
        q, local = divmod(g, self._g0)
        start = int(self._one.g_start[local])
        return self._one.lorder[start:start + int(self._one.g_nlinks[local])] + q * self._p

    def rank_of(self, i: int) -> int:
        """Link i's place in its group."""
        return int(self._one.rank[i % self._p])

    def cages_of(self, g: int) -> int:
        """Group g's cages (over the planes of a block)."""
        local = g % self._g0
        return int(self._one.cages[local] + (self.block - 1) * self._one.uppers[local])

    def is_hosted(self, g: int) -> bool:
        return bool(self._one.hosted[g % self._g0])

    def local_cages(self, links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Links' local a and b cages."""
        at = links % self._p
        return self._one.local_a[at], self._one.local_b[at]

    def bucket_shapes(self, b: int) -> np.ndarray:
        """`shape` of bucket b's groups."""
        return self._tiled(self._one.shape[self._one.buckets[b].groups])

    def bucket_hosted(self, b: int) -> np.ndarray:
        """`hosted` of bucket b's groups."""
        return self._tiled(self._one.hosted[self._one.buckets[b].groups])

    def bucket_first_links(self, b: int, at: np.ndarray | None = None) -> np.ndarray:
        """`first_of_tier` of bucket b's groups (of those at places `at` among them only)."""
        local = self._one.buckets[b].groups
        q, i = np.divmod(np.arange(self._m * len(local)) if at is None else at, len(local))
        return self._first_links(local[i], q)

    def bucket_cages(self, b: int) -> int:
        """The most cages a group of bucket b has on a plane (local cage numbers below it)."""
        one = self._one
        bucket = one.buckets[b]
        links = one.by_size[bucket.start:bucket.start + bucket.width * len(bucket.groups)]
        return int(max(one.local_a[links].max(), one.local_b[links].max())) + 1

    def medium_keys(self, b: int, lengths: np.ndarray, shape: np.ndarray, group: np.ndarray,
                    values: np.ndarray, media: MediaIndex, end_kinds: tuple[KindsOf, KindsOf],
                    kinds: list[tuple[str, int, int]]) -> np.ndarray:
        """Per row of runs of bucket b's groups (`lengths` their runs as indices into `values`;
        `shape` the row's shape, `group` a group of the bucket with that row): the bin of the
        group's longest run, then per cage of the group what each optic and lane would put in it
        at its longest link's run (-1 for no such cage). That is all `choose_medium` reads of the
        runs (a cable by the group's longest run, a module per cage by its longest), so groups of
        one shape and these keys get one medium, whatever their other runs, and the groups
        chained into thousands of links through shared cages fall into a few classes instead of
        one each. `end_kinds` gives each link end's kind
        of cage (index into `kinds`: cage type, capacity, speed) in the groups' link order.

        Groups of one shape have their cages in the same columns: each cage's longest run is a
        maximum over its columns, taken shape by shape."""
        bucket = self.buckets[b]
        w, nb = bucket.width, len(bucket.groups)
        rows = len(lengths)
        links = self.by_size[bucket.start:bucket.start + w * nb].reshape(nb, w)
        cages = self.bucket_cages(b)
        plane = np.repeat(np.arange(self.block), w) * cages            # each column's plane of the block
        outcome_of = _outcomes(kinds, values, media)     # per kind and run, a code of what cages hold
        # column 0 the group's longest run's bin, then a column per cage (of each plane)
        keyed = np.full((rows, 1 + self.block * cages), -1, np.int64, order="F")
        keyed[:, 0] = length_bins(media, values)[lengths.max(axis=1)]
        shape_first, shape_of = dense_classes(shape, int(shape.max()) + 1)
        for i0, members in zip(shape_first.tolist(), members_of(shape_of, len(shape_first)), strict=True):
            # the shape's columns of each cage, from its first group: a link's lower end and upper end
            first = links[int(group[i0])]
            local_a, local_b = self.local_cages(first)
            a_cage = np.tile(local_a, self.block) + np.where(np.tile(self.a_host[first], self.block),
                                                                         0, plane)
            b_cage = np.tile(local_b, self.block) + plane
            end_cage = np.stack([a_cage, b_cage], axis=1).reshape(-1)          # ends in link order
            end_kind = np.stack([np.tile(end_kinds[0](first), self.block), np.tile(end_kinds[1](first), self.block)],
                                axis=1).reshape(-1)
            by_cage = np.argsort(end_cage, kind="stable")
            starts = np.flatnonzero(np.r_[True, np.diff(end_cage[by_cage]) != 0])
            present = end_cage[by_cage[starts]]
            # each cage's kind: that of its last link end in the group's order (`_try_optics`
            # reads the speed of the last link it meets at a cage)
            kind = end_kind[by_cage[np.r_[starts[1:], len(by_cage)] - 1]]
            at_rows: slice | np.ndarray = slice(None)
            sub = lengths
            if len(members) < rows:
                at_rows, sub = members, np.asfortranarray(lengths[members])
            if len(present) <= 64:   # a column's maximum per cage (columns are contiguous)
                for c, columns in enumerate(np.split(by_cage // 2, starts[1:])):
                    longest = sub[:, columns].max(axis=1) if len(columns) > 1 else sub[:, columns[0]]
                    keyed[at_rows, 1 + int(present[c])] = outcome_of[int(kind[c])][longest]
            else:   # a few groups of many cages
                longest = np.maximum.reduceat(np.repeat(sub, 2, axis=1)[:, by_cage], starts, axis=1)
                keyed[np.ix_(np.arange(rows)[at_rows], 1 + present)] = outcome_of[kind[None, :], longest]
        return keyed

    def matrix(self, per_plane: list[np.ndarray], bucket: Bucket) -> np.ndarray:
        """Per group of the bucket and place in it, the value of its link, from each plane of the
        block's values in the groups' link order."""
        links = self.by_size[bucket.start:bucket.start + bucket.width * len(bucket.groups)]
        return np.concatenate([values[links].reshape(len(bucket.groups), bucket.width) for values in per_plane],
                              axis=1)


def _outcomes(kinds: list[tuple[str, int, int]], values: np.ndarray, media: MediaIndex) -> np.ndarray:
    """Per kind of cage and run (index into `values`), a code of what each optic and lane would
    put in the cage at that run: codes equal where the answers are. A module's reach is compared
    with a run as `length_bins` cuts runs, so the answers are asked once per bin."""
    bins = length_bins(media, values)
    answers: dict[tuple[object, ...], int] = {}
    table = np.zeros((len(kinds), len(values)), np.int64)
    distinct_bins, first = np.unique(bins, return_index=True)
    for k, (cage_type, capacity, gbps) in enumerate(kinds):
        code_of_bin = {}
        for b, i in zip(distinct_bins.tolist(), first.tolist(), strict=True):
            run = float(values[i])
            held = tuple((media.cpo_fits(cage_type, o, lane, run) if cage_type in media.cpo
                          else _module_id(media.module(o, lane, cage_type, capacity, gbps, run)))
                         for o in OPTICS for lane in media.lanes)
            code_of_bin[b] = answers.setdefault((k, held), len(answers))
        table[k] = np.array([code_of_bin[b] for b in distinct_bins.tolist()], np.int64)[
            np.searchsorted(distinct_bins, bins)]
    return table


def _end_kinds(tier: Tier, link_tier: np.ndarray, order: np.ndarray, side: str,
               kinds: list[tuple[str, int, int]]) -> KindsOf:
    """Each link's kind of cage at its `side` end ("a" or "b"; cage type, capacity, speed as an
    index into `kinds`, which it extends), as a function of links in `order` (read for a few);
    `link_tier` is the links' tier in that order. A tier's links are one after the other with
    one kind each (`first_plane_tiers`): a kind per tier, where that holds, instead of a sort of
    every link's."""
    type_, cap, gbps = getattr(tier, f"{side}_type"), getattr(tier, f"{side}_cap"), tier.link_gbps
    bounds = np.searchsorted(tier.link_tier, np.arange(len(TIERS) + 1)).tolist()
    of_tier = np.zeros(len(TIERS), np.int64)
    for t in range(len(TIERS)):
        lo, hi = bounds[t], bounds[t + 1]
        if lo == hi:
            continue
        tier_of, type_of, cap_of, gbps_of = (_one_value(v[lo:hi]) for v in (tier.link_tier, type_, cap, gbps))
        if tier_of != t or type_of is None or cap_of is None or gbps_of is None:
            break
        of_tier[t] = _kind_index(kinds, (tier.type_names[type_of], cap_of, gbps_of))
    else:
        if bounds[-1] == len(tier.link_tier):
            return lambda links: of_tier[link_tier[links]]
    packed = (type_[order] << 40) | (cap[order] << 20) | gbps[order]
    distinct, inverse = np.unique(packed, return_inverse=True)
    ids = [_kind_index(kinds, (tier.type_names[value >> 40], (value >> 20) & 0xFFFFF, value & 0xFFFFF))
           for value in distinct.tolist()]
    by_link = np.array(ids, np.int64)[inverse.reshape(-1)]
    return lambda links: by_link[links]


def _kind_index(kinds: list[tuple[str, int, int]], kind: tuple[str, int, int]) -> int:
    """The index of `kind` in `kinds`, appended if new."""
    if kind not in kinds:
        kinds.append(kind)
    return kinds.index(kind)


def _one_value(values: np.ndarray) -> int | None:
    """The one value of an array, or None when it holds several."""
    lo, hi = int(values.min()), int(values.max())
    return lo if lo == hi else None


@dataclass
class _Class:
    """A class of groups: its rows of runs and each row's groups, per tier the place of its first
    link (block of planes, place in the block), its first group (over every block), that
    group's links and their choice; its groups and each one's row, read where a count needs
    them (the cables' power, group by group)."""

    runs: np.ndarray
    weights: np.ndarray
    first_place: np.ndarray
    g0: int
    links: list[LinkPlan]
    choice: Choice | None
    members: Callable[[], tuple[np.ndarray, np.ndarray]]


def _class_groups(rows: np.ndarray, row_of: np.ndarray, g_all: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The groups of a class of rows `rows` (each group's row: `row_of`; its number: `g_all`),
    and each one's place among the rows."""
    in_class = np.full(int(row_of.max()) + 1, -1, np.int64)
    in_class[rows] = np.arange(len(rows))
    at = np.flatnonzero(in_class[row_of] >= 0)
    return g_all[at], in_class[row_of[at]]


def count_groups(bill: Bill, tier: Tier, runs: Runs, derived: Derived, dev: DeviceCodes, k_host: int) -> bool:
    """A tier's groups of several cages, class by class: a class is a shape of group with what
    its runs give the medium (`Groups.medium_keys`; `counts_from_links` keys on every run's bin,
    which gives the same media), whose choice it takes from its first group. False where
    this count does not apply (a NIC cage joins ports of two planes other than plane by plane)."""
    r = derived.resolved
    planes, rails = r.planes, r.rails
    block = block_planes(tier, k_host, planes, rails)
    if block is None:
        return False
    groups = Groups(tier, dev, block, k_host, planes, rails)
    media = runs.media
    by_pair, pair_of_link = runs.plane_pairs()
    values = np.array(sorted({v for vals, _ in by_pair for v in vals}), np.float64)
    # per plane, each pair's run as an index into values: a link's run is its pair's, read only
    # for the links counted (a kind of group's first group), not for every link of every plane
    codes = [np.searchsorted(values, np.array(vals, np.float64))[code] for vals, code in by_pair]
    link_class = runs.link_classes()
    n_groups, n_blocks = groups.n_groups, planes // block
    # each link end's kind of cage (cage type, capacity, speed), in the groups' link order
    o = groups.order0
    kinds: list[tuple[str, int, int]] = []
    end_kinds = [_end_kinds(tier, groups.link_tier, o, side, kinds) for side in ("a", "b")]
    names: dict[int, str] = {}
    types = tier.type_names
    fp = derived.design.floorplan

    def name(code: int) -> str:
        if code not in names:
            names[code] = server_device(code) if code < dev.servers else dev.name(code)
        return names[code]

    def links_of(g_all: int, runs_of_group: np.ndarray) -> list[LinkPlan]:
        """A group's links as the link-by-link path sees them (g_all: index over every block;
        `runs_of_group`: its row of runs, a group's width per plane of the block)."""
        q, g = divmod(g_all, n_groups)
        width = groups.width(g)
        out: list[LinkPlan] = []
        at = groups.links(g).tolist()
        for p_in in range(block):
            p = q * block + p_in
            shift = p * dev.per_plane
            for i in at:
                j = int(groups.order0[i])
                bd = int(tier.b_dev[j]) + shift
                a_type, b_type = types[int(tier.a_type[j])], types[int(tier.b_type[j])]
                if tier.link_tier[j] == 0:
                    gp = int(tier.a_port[j]) + p * rails
                    cage, lane = host_cages(np.array([gp]), k_host, planes, rails)
                    a = End(name(int(tier.a_dev[j])), f"nic-{gp + 1}", int(cage[0]), int(lane[0]), True, a_type,
                            int(tier.a_cap[j]))
                else:
                    a = End(name(int(tier.a_dev[j]) + shift), str(int(tier.a_port[j])), int(tier.a_cage[j]),
                            int(tier.a_lane[j]), False, a_type, int(tier.a_cap[j]))
                b = End(name(bd), str(int(tier.b_port[j])), int(tier.b_cage[j]), int(tier.b_lane[j]), False,
                        b_type, int(tier.b_cap[j]))
                run = float(values[int(runs_of_group[p_in * width + groups.rank_of(i)])])
                out.append(LinkPlan(0, TIERS[int(tier.link_tier[j])], int(tier.link_gbps[j]), a, b, run))
        return out

    # one choice per class, from its first group; where device names could change the cable,
    # one per exact shape instead (its runs themselves, not their bins), as counts_from_links.
    # Per class: its groups (index over every block), their runs (a row each), its first group,
    # that group's links and the choice.
    classes: list[_Class] = []
    for b, bucket in enumerate(groups.buckets):
        w, nb = bucket.width, len(bucket.groups)
        tier_links = groups.by_size[bucket.start:bucket.start + w * nb]
        tier_links = tier_links if groups.in_order else o[tier_links]
        # groups alike in shape and in the pairs of racks their links join, link for link, have
        # the same runs on every plane (`Runs.link_classes`): a row of runs each such kind of
        # group and block of planes, counted once, times its groups
        by_group = tier_links.reshape(nb, w)
        alike = np.empty((nb, 1 + w), np.int64, order="F")
        alike[:, 0] = groups.bucket_shapes(b)
        alike[:, 1:] = link_class[by_group]
        kind_first, kind_of = row_classes(alike)
        n_kinds = len(kind_first)
        # rows block after block: row q * n_kinds + x the groups of kind x on block q, plane after
        # plane, its columns contiguous (the counts below take maxima across a group's columns)
        lengths = np.empty((n_blocks * n_kinds, block * w), np.int64, order="F")
        firsts = by_group[kind_first]
        for q in range(n_blocks):
            for p_in in range(block):
                lengths[q * n_kinds:(q + 1) * n_kinds, p_in * w:(p_in + 1) * w] = codes[q * block + p_in][
                    pair_of_link[firsts]]
        shifts = np.arange(n_blocks)[:, None]
        row_first = (shifts * nb + kind_first[None, :]).reshape(-1)     # each row's first group
        row_of = (shifts * n_kinds + kind_of[None, :]).reshape(-1)      # each group's row
        weights = np.tile(np.bincount(kind_of, minlength=n_kinds), n_blocks)
        shape = np.tile(alike[kind_first, 0], n_blocks)
        g_all = (shifts * n_groups + bucket.groups[None, :]).reshape(-1)      # each group's number
        held = groups.medium_keys(b, lengths, shape, row_first % nb, values, media,
                                  (end_kinds[0], end_kinds[1]), kinds)
        # a row's class: its shape, what its runs give the medium (`held`) and, for a block of
        # planes, each plane's longest run
        keys = np.empty((len(lengths), 1 + held.shape[1] + (block if block > 1 else 0)), np.int64, order="F")
        keys[:, 0] = shape
        keys[:, 1:1 + held.shape[1]] = held
        if block > 1:
            # a group without a NIC cage is a group of its own on each plane of the block: its
            # class keys each plane's longest run too, which with its cages' modules (`held`)
            # gives each plane's medium (`_planes_agree`)
            bins = length_bins(media, values)
            hosted = groups.bucket_hosted(b)[row_first % nb]
            for p_in in range(block):
                longest = bins[lengths[:, p_in * w:(p_in + 1) * w].max(axis=1)]
                longest[hosted] = -1
                keys[:, 1 + held.shape[1] + p_in] = longest
        class_first, class_of = row_classes(keys)
        # each row's first link of each tier (block of planes, place in the block), from its
        # groups' (the kinds' groups are in every block)
        if tier.merged:
            kind_first_link = np.full((len(TIERS), n_kinds), groups.n0, np.int64)
            first_link = groups.bucket_first_links(b)
            for t in range(len(TIERS)):
                np.minimum.at(kind_first_link[t], kind_of, first_link[:, t])
        else:
            # links of one tier: groups are numbered in the order of their first link, so a
            # kind's first link is its first group's
            kind_first_link = groups.bucket_first_links(b, kind_first).T
        row_place = (shifts * (groups.n0 + 1) + kind_first_link[:, None, :]).reshape(len(TIERS), -1)

        for rows in members_of(class_of, len(class_first)):
            row0 = int(row_first[rows].min())     # the class's first group
            group_links = links_of(int(g_all[row0]), lengths[int(row_of[row0])])
            forced = tier.forced(fp, {link.tier for link in group_links})
            choice, by_name = _choose(group_links, media, forced)
            if block > 1 and not groups.is_hosted(int(g_all[row0]) % n_groups) and not _planes_agree(
                    group_links, block, choice, media, forced):
                return False
            if not by_name:
                classes.append(_Class(lengths[rows], weights[rows], row_place[:, rows].min(axis=1),
                                      int(g_all[row0]), group_links, choice,
                                      partial(_class_groups, rows, row_of, g_all)))
                continue
            # one choice per row of runs (a shape and its runs), from its first group
            for x in rows.tolist():
                first_at = int(row_first[x])
                exact_links = links_of(int(g_all[first_at]), lengths[x])
                exact = _choose(exact_links, media, tier.forced(fp, {link.tier for link in exact_links}))[0]
                classes.append(_Class(lengths[x:x + 1], weights[x:x + 1], row_place[:, x], int(g_all[first_at]),
                                      exact_links, exact, partial(_class_groups, np.array([x]), row_of, g_all)))
    # per (tier, medium): links, and the first link's place (block of planes, place in the block)
    media_n: Counter[tuple[str, str]] = Counter()
    media_first: dict[tuple[str, str], int] = {}
    cabled: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []     # (groups, buckets, watts)
    bucket_ids: dict[CableLength, int] = {}
    for cls in classes:
        rows, weights, g0, group_links, choice = cls.runs, cls.weights, cls.g0, cls.links, cls.choice
        mult = int(weights.sum())
        n_links = len(group_links) * mult
        local0 = g0 % n_groups
        medium = MEDIA_CODES[0] if choice is None else choice.kind
        for t in sorted({TIERS.index(link.tier) for link in group_links}):
            media_n[(TIERS[t], medium)] += mult * sum(link.tier == TIERS[t] for link in group_links)
            # the class's first link of the tier, block by block
            place = int(cls.first_place[t])
            media_first[(TIERS[t], medium)] = min(media_first.get((TIERS[t], medium), place), place)
        if choice is None:
            for link in group_links:
                bill.problems[(link.tier, link.gbps)] += mult
            continue
        if choice.forced_failed:
            forced = tier.forced(fp, {link.tier for link in group_links})
            bill.forced_failed[(group_links[0].tier, forced)] += n_links
        if choice.cable:
            cable = choice.cable
            each = cable.power_w + cable.leg_power_w * (groups.cages_of(local0) - 1)
            longest = rows.max(axis=1)
            buckets = np.zeros(len(rows), np.int64)
            for code in sorted_distinct(longest).tolist():
                sold, made = sold_length(cable, float(values[code]))
                n = int(weights[longest == code].sum())
                bill.counted(cable.id, sold, made, n)
                buckets[longest == code] = bucket_ids.setdefault((cable.id, sold), len(bucket_ids))
            in_class, row_of_member = cls.members()
            cabled.append((in_class, buckets[row_of_member], np.full(mult, each)))
            continue
        cages = {}
        for link in group_links:
            cages[link.a.key], cages[link.b.key] = link.a, link.b
        modules = [choice.modules[key] for key in cages]      # by local cage index
        for key, module in zip(cages, modules, strict=True):
            if module is not None:   # None: a co-packaged-optics port
                bill.transceivers[(module.id, "host" if cages[key].host else "switch")] += mult
        # the class's fibers counted column by column: a group of thousands of links (cages
        # chained through shared ones) has as many columns, but few kinds of fiber
        pos = {key: i for i, key in enumerate(cages)}
        straight: dict[tuple[str, int], list[int]] = {}       # (fiber, pieces per link): columns
        slots: dict[tuple[int, int], list[int]] = {}
        for j, link in enumerate(group_links):
            near, main = modules[pos[link.a.key]], modules[pos[link.b.key]]
            for module, e in ((near, link.a), (main, link.b)):
                if module is not None:
                    bill.ends[(module.id, "host" if e.host else "switch")] += mult
            if main is None:
                straight.setdefault((media.cpo_fiber(link.b.cage_type), 1), []).append(j)
                continue
            k, cn = link.b.capacity, main.connectors
            if k > cn and main.split_fiber:
                slots.setdefault((pos[link.b.key], link.b.lane // (k // cn)), []).append(j)
                continue
            straight.setdefault((main.fiber, max(1, cn // k)), []).append(j)
        for (fiber, pieces), columns in straight.items():
            bill.add(bill.catalog.cables[fiber],
                     _runs_of(values, rows[:, columns].ravel(), np.repeat(weights, len(columns))), pieces)
        slot_runs: dict[str, list[np.ndarray]] = {}      # per splitter, each slot's longest run
        for (local_b, _slot), places in slots.items():
            split = modules[local_b]
            assert split is not None and split.split_fiber
            slot_runs.setdefault(split.split_fiber, []).append(rows[:, places].max(axis=1))
        for fiber, runs_of_slots in slot_runs.items():
            bill.add(bill.catalog.cables[fiber],
                     _runs_of(values, np.concatenate(runs_of_slots), np.tile(weights, len(runs_of_slots))), 1)
    if cabled:
        order = np.concatenate([m for m, _, _ in cabled])
        buckets = np.concatenate([b for _, b, _ in cabled])
        watts = np.concatenate([w for _, _, w in cabled])
        by_group = np.argsort(order, kind="stable")
        buckets, watts = buckets[by_group], watts[by_group]
        for cable_length, i in bucket_ids.items():
            bill.watts[cable_length].append((tier.name, watts[buckets == i]))
    for tier_medium in sorted(media_first, key=media_first.__getitem__):
        bill.media.setdefault(tier_medium[0], {})[tier_medium[1]] = media_n[tier_medium]
    return True


def _planes_agree(group_links: list[LinkPlan], block: int, choice: Choice | None, media: MediaIndex,
                  forced: str) -> bool:
    """Whether a group without a NIC cage, taken with its copies on the block's other planes as
    one group of `block` planes' links (plane by plane), gets on each plane alone the medium
    and modules `choice` gives the whole: it is a group of its own on each plane, and where
    one plane's runs need a longer reach than another's (single-mode fiber where multimode
    reaches the other), or its own copper cable, the whole's choice is not each plane's. A
    class of such groups where they differ is not counted here: the per-link count takes it."""
    width = len(group_links) // block
    for p in range(block):
        alone = choose_medium(group_links[p * width:(p + 1) * width], media, forced)
        if choice is None or alone is None:
            if choice is not alone:
                return False
            continue
        if (alone.cable is not None or choice.cable is not None or alone.kind != choice.kind
                or alone.optic != choice.optic or alone.forced_failed != choice.forced_failed):
            return False
        if any(choice.modules.get(key) is not module for key, module in alone.modules.items()):
            return False
    return True


def _module_id(module: Transceiver | None) -> str | None:
    return module.id if module is not None else None


def _runs_of(values: np.ndarray, codes: np.ndarray, weights: np.ndarray) -> Counter[float]:
    """Runs counted by their index into `values`, each `weights` times."""
    out: Counter[float] = Counter()
    # whole numbers below 2**53: the float sums are exact
    counts = np.bincount(codes, weights=weights, minlength=len(values)).astype(np.int64)
    for code in np.flatnonzero(counts).tolist():
        out[float(values[code])] = int(counts[code])
    return out


def _choose(group: list[LinkPlan], media: MediaIndex, forced: str) -> tuple[Choice | None, bool]:
    """`choose_medium` for a group, and whether device names could give another group of the
    same shape another cable (copper centers are tried in name order), as `counts_from_links`
    asks it."""
    choice, by_name, _ = choose_for_group(group, media, forced)
    return choice, by_name
