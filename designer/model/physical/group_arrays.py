"""Array helpers of the bill's groups (class_groups.py): classes of rows of small integers (by a
count over a short range, a refinement column by column, or a hash checked against the rows)
instead of numpy's sort of whole rows, and the blocks of links alike (a pod's, a leaf's) whose
groups are found once and repeated."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.physical.closed_form_bom import _MIX, _mix


def dense_classes(code: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """For codes below `n_codes` (a range about as long as the codes or shorter): the first index
    of each distinct code and each code's class (classes in the codes' order), by a count over
    the range instead of a sort."""
    seen = np.bincount(code, minlength=n_codes)
    present = np.flatnonzero(seen)
    class_of_code = np.zeros(n_codes, np.int64)
    class_of_code[present] = np.arange(len(present))
    inverse: np.ndarray = class_of_code[code]
    first = np.full(len(present), len(code), np.int64)
    np.minimum.at(first, inverse, np.arange(len(code)))
    return first, inverse


def row_classes(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row, and each row's class: `np.unique(rows, axis=0)`'s index
    and inverse (classes in another order). Rows of small numbers (a group's shape, bins and
    codes of modules) are one number each in a range about as long as the rows are many, counted
    over that range; rows of a few columns whose ranges multiply below 2**63 (the pairs of racks
    of a group's links) one number each too, their classes by a sort of those numbers; other
    rows by a hash of each row checked against its class's first row (a sort of one column
    instead of all). A matrix far wider than long (a few groups of thousands
    of links) is hashed whole, each column salted by its place, not column by column."""
    n, width = rows.shape
    if n and width:
        low = rows.min(axis=0)
        spans = (rows.max(axis=0) - low + 1).tolist()
        limit, total = max(4 * n, 1 << 16), 1
        for span in spans:
            total *= span
            if total > limit:
                break
        if total <= limit:
            return dense_classes(_packed(rows, low, spans), total)
        if width <= 64:
            refined = _refined_classes(rows, low.tolist(), spans, limit)
            if refined is not None:
                return refined
            if math.prod(spans) < 1 << 63:   # one exact number per row: its classes by a sort
                return _sorted_classes(_packed(rows, low, spans))
    with np.errstate(over="ignore"):
        if rows.shape[1] > max(256, rows.shape[0]):
            salt = _mix(np.arange(rows.shape[1], dtype=np.uint64) * _MIX[1])
            h = _mix((_mix(rows.astype(np.uint64) ^ salt) * (salt | np.uint64(1))).sum(axis=1, dtype=np.uint64))
        else:
            h = np.zeros(len(rows), np.uint64)
            for j in range(rows.shape[1]):
                h = _mix(h * _MIX[0] + rows[:, j].astype(np.uint64) + np.uint64(j))
    first, inverse = _sorted_classes(h)
    if not _all_like_first(rows, first[inverse]):
        # two rows of one hash: sort them all
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return first, inverse


def _packed(rows: np.ndarray, low: np.ndarray, spans: list[int]) -> np.ndarray:
    """Each row as one number, its columns' values less their lowest as digits of radix `spans`
    (the first column least significant); the spans must multiply below 2**63."""
    radix = np.cumprod([1, *spans[:-1]]).tolist()
    if rows.shape[1] > 64:
        code: np.ndarray = (rows - low) @ np.array(radix, np.int64)
        return code
    code = np.zeros(len(rows), np.int64)   # column by column: a row's columns are few, the rows many
    for j, (lo, step) in enumerate(zip(low.tolist(), radix, strict=True)):
        code += (rows[:, j] - lo) * step
    return code


def _sorted_classes(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first index of each distinct code and each code's class (classes in the codes'
    order): the distinct codes by a sort of the values (numpy's sort of indices is several times
    slower), each code's by a search among them."""
    distinct = sorted_distinct(code)
    inverse = np.searchsorted(distinct, code)
    first = np.full(len(distinct), len(code), np.int64)
    np.minimum.at(first, inverse, np.arange(len(code)))
    return first, inverse


def _all_like_first(rows: np.ndarray, at: np.ndarray) -> bool:
    """Whether every row equals row `at` of its own: a column at a time where the rows are few
    columns laid out column by column (such a column is contiguous; a gather of whole rows from
    it is not), else whole rows."""
    if rows.flags.f_contiguous and rows.shape[1] <= 64:
        return all(np.array_equal(rows[:, j].take(at), rows[:, j]) for j in range(rows.shape[1]))
    return bool(np.array_equal(rows[at], rows))


def _refined_classes(rows: np.ndarray, low: list[int], spans: list[int],
                     limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """`row_classes` of rows of few columns whose rows are alike far more often than not: the
    classes of the first columns refined by each next column, a count over (class, value) each
    time; None where that range passes `limit` (classes of rows too many for it)."""
    n = len(rows)
    ids, n_ids = np.zeros(n, np.int64), 1
    for j, (lo, span) in enumerate(zip(low, spans, strict=True)):
        if n_ids * span > limit:
            return None
        code = ids * span + (rows[:, j] - lo)
        seen = np.bincount(code, minlength=n_ids * span)
        present = np.flatnonzero(seen)
        renumber = np.zeros(n_ids * span, np.int64)
        renumber[present] = np.arange(len(present))
        ids, n_ids = renumber[code], len(present)
    first = np.full(n_ids, n, np.int64)
    np.minimum.at(first, ids, np.arange(n))
    return first, ids


def members_of(class_of: np.ndarray, n_classes: int) -> list[np.ndarray]:
    """Each class's rows, ascending: a pass per class where they are few, else one stable sort."""
    if n_classes <= 16:
        return [np.flatnonzero(class_of == c) for c in range(n_classes)]
    rows = np.argsort(class_of, kind="stable")
    return np.split(rows, np.cumsum(np.bincount(class_of, minlength=n_classes))[:-1])


def _repeats(values: np.ndarray, m: int, p: int) -> bool:
    """Whether `values` is its first p values m times over: at once for one value broadcast over
    every link (a tier's speed, its kind of link), else value by value."""
    if values.strides == (0,):
        return True
    return bool(np.array_equal(values.reshape(m, p), np.broadcast_to(values[:p], (m, p))))


def _block_counts(n: int, alike: tuple[np.ndarray, ...]) -> Iterator[tuple[int, int]]:
    """(blocks, links per block) for each way of cutting n links into two or more equal blocks,
    the most blocks first, whose `alike` values repeat on the second block and the last."""
    divisors = {d for i in range(1, math.isqrt(n) + 1) if n % i == 0 for d in (i, n // i)}
    for m in sorted(divisors - {1}, reverse=True):
        p = n // m
        if all(np.array_equal(v[p:2 * p], v[:p]) and np.array_equal(v[n - p:], v[:p]) for v in alike):
            yield m, p


def translated_blocks(lower: tuple[np.ndarray, np.ndarray], upper: tuple[np.ndarray, np.ndarray], host: bool,
                alike: tuple[np.ndarray, ...]) -> int:
    """Into how many blocks the links split (1 if none is found) whose ends are the first
    block's moved by a step per block: each side's device and cage (`lower`, `upper`: device
    and cage, or a server's device and NIC port where `host`) the first block's plus the
    block's number times that side's step, one block's devices or cages clear of the next's,
    with the same `alike` values link for link. A block's cages are then the first block's
    renamed, and no other block's: each block's groups are the first block's. Block counts are
    tried from the most, each first on the first two blocks and the last, then on all."""
    n = len(alike[0])
    tried = 0
    for m, p in _block_counts(n, alike):
        steps = []
        for devices, cages in (lower, upper):
            step_d, step_c = int(devices[p]) - int(devices[0]), int(cages[p]) - int(cages[0])
            steps += [step_d, step_c]
            span_d, span_c = int(np.ptp(devices[:p])), int(np.ptp(cages[:p]))
            if not (step_d > span_d or (step_d == 0 and step_c > span_c)) or (host and devices is lower[0]
                                                                              and step_c):
                break
        else:
            fields = (*lower, *upper)
            if not all(np.array_equal(f[p:2 * p], f[:p] + step) and np.array_equal(f[n - p:], f[:p] + (m - 1) * step)
                       for f, step in zip(fields, steps, strict=True)):
                continue
            tried += 1
            if tried > 3:
                break
            by_block = np.arange(m, dtype=np.int64)[:, None]
            if all(_repeats(v, m, p) for v in alike) and all(
                    np.array_equal(f.reshape(m, p), f[:p] + by_block * step) for f, step in zip(fields, steps,
                                                                                               strict=True)):
                return m
    return 1


def renamed_blocks(ca: np.ndarray, cb: np.ndarray, n_cages: int, alike: tuple[np.ndarray, ...]) -> int:
    """Into how many blocks alike the links split (1 if none is found): consecutive runs of links
    whose cages are the first block's, renamed one for one (a block's cages are no other
    block's), with the same `alike` values link for link. Then each block's groups are the first
    block's, renamed: found once and repeated. Block counts are tried from the most (the
    shortest blocks), each first on two blocks, then on all."""
    n = len(ca)
    tried = 0
    for m, p in _block_counts(n, alike):
        sample = np.r_[0:2 * p, n - p:n] if m > 2 else np.arange(n)      # the first two blocks and the last
        if not renamed_in_blocks(ca[sample], cb[sample], min(m, 3), n_cages):
            continue
        tried += 1
        if tried > 3:
            break
        if all(_repeats(v, m, p) for v in alike) and renamed_in_blocks(
                ca, cb, m, n_cages):
            return m
    return 1


def renamed_in_blocks(ca: np.ndarray, cb: np.ndarray, m: int, n_cages: int) -> bool:
    """Whether the links, in m blocks, join in each block the first block's cages renamed: each
    cage of the first block stands for one cage in every other block, and no two blocks share one."""
    p = len(ca) // m
    ends = np.stack([ca.reshape(m, p), cb.reshape(m, p)], axis=2).reshape(m, 2 * p)
    first = ends[0]
    where = np.zeros(n_cages, np.int64)
    where[first] = np.arange(2 * p)      # an end of each of the first block's cages
    if not np.array_equal(ends, ends[:, where[first]]):
        return False
    seen = np.zeros(n_cages, bool)
    seen[first] = True
    distinct_first = int(seen.sum())
    seen[ends.reshape(-1)] = True
    return int(seen.sum()) == m * distinct_first
