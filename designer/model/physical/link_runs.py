"""Cable runs of a template's links, as arrays: each link's estimated run, or the links of each
run by tier, by `floor_layout.cable_run_m`'s arithmetic worked out once per distinct pair of
positions (closed_form_bom.py reads a run per link, the cost floor the counts by tier), or a
tier's runs on every plane from the distinct pairs of racks its links join (`TierRuns`, for the
bill by class of link)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from designer.model.physical.link_arrays import LinkArrays

if TYPE_CHECKING:
    from designer.model.intent.floorplan import FloorPlan


@lru_cache(maxsize=64)   # the same floor plan's positions for every candidate sizing measures
def _coords(pitch: float, n: int) -> tuple[float, ...]:
    """Position i at `pitch` metres per step, rounded as `cable_run_m` rounds it, for i < n."""
    return tuple(round(i * pitch, 3) for i in range(n))


def _run_codes(fp: FloorPlan, links: LinkArrays, row: np.ndarray,
               slot: np.ndarray) -> tuple[np.ndarray, dict[int, float], int]:
    """Per link a code of its run, each code's run as `cable_run_m` computes it (the same float
    operations and Python's rounding, worked out per distinct code: a floor plan has few
    distinct runs), and the number of codes."""
    xs = _coords(fp.rack_width_m, int(slot.max(initial=0)) + 1)
    ys = _coords(fp.row_pitch_m, int(row.max(initial=0)) + 1)
    ra, sa, rb, sb = row[links.a_dev], slot[links.a_dev], row[links.b_dev], slot[links.b_dev]

    def distance_codes(ca_: np.ndarray, cb_: np.ndarray, coords: tuple[float, ...]) -> tuple[np.ndarray, list[float]]:
        """Code of |coords[a] - coords[b]| per link, from the pairs that occur."""
        n = len(coords)
        pair = ca_ * n + cb_
        present_ = np.flatnonzero(np.bincount(pair, minlength=n * n))
        # a subtraction and an absolute value of two floats: numpy's are IEEE's, as Python's are
        at = np.array(coords, np.float64)
        values_, code_ = np.unique(np.abs(at[present_ // n] - at[present_ % n]), return_inverse=True)
        table = np.zeros(n * n, np.int64)
        table[present_] = code_.reshape(-1)
        values: list[float] = values_.tolist()
        return table[pair], values

    dx_code, dx_u = distance_codes(sa, sb, xs)
    dy_code, dy_u = distance_codes(ra, rb, ys)
    combo = dx_code * (len(dy_u) + 1) + dy_code
    in_rack = len(dx_u) * (len(dy_u) + 1)
    combo[(ra == rb) & (sa == sb)] = in_rack
    present = np.flatnonzero(np.bincount(combo, minlength=in_rack + 1))
    between = present[present != in_rack]
    ix, iy = np.divmod(between, len(dy_u) + 1)
    # the sum in cable_run_m's order, each addition an IEEE one as Python's is; Python's rounding
    # (correctly rounded, which numpy's is not) per distinct sum
    total = np.array(dx_u, np.float64)[ix] + np.array(dy_u, np.float64)[iy] + 2 * fp.vertical_run_m + fp.slack_m
    sums, which = np.unique(total, return_inverse=True)
    rounded = [round(v, 2) for v in sums.tolist()]
    run = dict(zip(between.tolist(), [rounded[i] for i in which.reshape(-1).tolist()], strict=True))
    if len(between) < len(present):
        run[in_rack] = round(fp.in_rack_m, 2)
    return combo, run, in_rack + 1


def _value_codes(run: dict[int, float], codes: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct runs, sorted, and per run code the index of its run among them."""
    len_values = np.array(sorted(set(run.values())), dtype=np.float64)
    code_of_combo = np.zeros(codes, np.int64)
    value_code = {v: i for i, v in enumerate(len_values.tolist())}
    code_of_combo[list(run)] = [value_code[v] for v in run.values()]
    return len_values, code_of_combo


def link_lengths(fp: FloorPlan, links: LinkArrays, row: np.ndarray, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each link's run as `cable_run_m` computes it: the distinct lengths, sorted, and per link
    the index of its length among them."""
    combo, run, codes = _run_codes(fp, links, row, slot)
    len_values, code_of_combo = _value_codes(run, codes)
    return len_values, code_of_combo[combo]


def tier_length_counts(fp: FloorPlan, links: LinkArrays, row: np.ndarray, slot: np.ndarray, tiers: int,
                       weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct runs of `link_lengths`, and per tier (index into closed_form_bom.TIERS, of
    which there are `tiers`) the links of each run: what a sum over links by tier and length
    reads, without a length per link. With `weights`, each entry of `links` stands for that
    many links alike."""
    combo, run, codes = _run_codes(fp, links, row, slot)
    len_values, code_of_combo = _value_codes(run, codes)
    by_code = np.bincount(links.tier * codes + combo, weights=weights, minlength=tiers * codes)
    by_code = by_code.astype(np.int64).reshape(tiers, codes)
    counts = np.zeros((tiers, len(len_values)), np.int64)
    np.add.at(counts.T, code_of_combo, by_code.T)
    return len_values, counts


def shifted(devices: np.ndarray, plane: int, servers: int, per_plane: int) -> np.ndarray:
    """The first plane's devices as the plane's own (servers are the same in every plane)."""
    moved: np.ndarray = np.where(devices < servers, devices, devices + plane * per_plane)
    return moved


def device_classes(codes: np.ndarray, servers: int, per_plane: int, planes: int, row: np.ndarray, slot: np.ndarray,
                   width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per device code (an array over codes up to the largest of `codes`), its class, and a
    device of each class: first-plane devices whose rack is the same in every plane are one
    class (`width`: the floor's widest row, in slots)."""
    top = int(codes.max(initial=0)) + 1
    seen = np.zeros(top, bool)
    seen[codes] = True
    devices = np.flatnonzero(seen)

    def place(plane: int) -> np.ndarray:
        moved = shifted(devices, plane, servers, per_plane)
        at: np.ndarray = row[moved] * width + slot[moved]
        return at

    if top <= servers:   # servers only: the same devices, in the same racks, in every plane
        _, first, inverse = np.unique(place(0), return_index=True, return_inverse=True)
    else:
        places = [place(p) for p in range(planes)]
        base = int(max(int(x.max(initial=0)) for x in places)) + 1
        if base ** planes < 2**63:
            # each device's racks on the planes as one number, the first plane's most significant:
            # its order is the rows' order, and a sort of numbers is far quicker than of rows
            key = np.zeros(len(devices), np.int64)
            for at in places:
                key = key * base + at
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        else:
            _, first, inverse = np.unique(np.stack(places, axis=1), axis=0, return_index=True, return_inverse=True)
    class_of = np.zeros(top, np.int64)
    class_of[devices] = inverse.reshape(-1)
    return class_of, devices[first]


class TierRuns:
    """A tier's runs on every plane, counted from the distinct pairs of device classes its links
    join instead of link by link.

    Each plane repeats the first plane's links with its own switches (servers are the same
    devices in every plane). Two devices of the first plane are of one class when they stand in
    the same rack in every plane (a rack's servers, a network rack's switches), so a link's run
    on every plane depends only on its pair of classes: the floor plan's arithmetic
    (`_run_codes`) is worked out per distinct pair and plane, and the runs of a plane are a
    histogram over pairs weighted by their links. Per-link runs, where a bill needs them (a
    breakout slot's longest run, a group's runs), are read from the pair of each link.
    """

    def __init__(self, fp: FloorPlan, a_dev: np.ndarray, b_dev: np.ndarray, servers: int, per_plane: int,
                 planes: int, row: np.ndarray, slot: np.ndarray, weights: np.ndarray | None = None) -> None:
        """`weights`: each entry of (a_dev, b_dev) stands for that many links alike (a tier's shape,
        tier_shapes.py); then `per_link` means per entry."""
        self._fp, self._row, self._slot = fp, row, slot
        self.servers, self.per_plane, self.n_planes = servers, per_plane, planes
        width = int(slot.max(initial=0)) + 1
        class_a, reps_a = device_classes(a_dev, servers, per_plane, planes, row, slot, width)
        class_b, reps_b = device_classes(b_dev, servers, per_plane, planes, row, slot, width)
        n_b = len(reps_b)
        pair = class_a[a_dev] * n_b + class_b[b_dev]
        if len(reps_a) * n_b <= max(4 * len(pair), 1 << 20):
            counted = np.bincount(pair, weights=weights, minlength=len(reps_a) * n_b)
            counted = counted.astype(np.int64) if weights is not None else counted
            present = np.flatnonzero(counted)
            index = np.zeros(len(counted), np.int64)
            index[present] = np.arange(len(present))
            self.pair_of_link: np.ndarray = index[pair]
            self.weights: np.ndarray = counted[present]
        else:
            present, self.pair_of_link, self.weights = np.unique(pair, return_inverse=True, return_counts=True)
            self.pair_of_link = self.pair_of_link.reshape(-1)
            if weights is not None:
                self.weights = np.bincount(self.pair_of_link, weights=weights, minlength=len(present)).astype(np.int64)
        self._class_a, self._class_b, self._n_b, self._present = class_a, class_b, n_b, present
        self._n_a = len(reps_a)
        self._rep_a, self._rep_b = reps_a[present // n_b], reps_b[present % n_b]
        self._plane_runs: list[tuple[list[float], np.ndarray] | None] = [None] * planes

    def same_pairs(self, other: TierRuns) -> bool:
        """Whether both count the same pairs of classes of devices, numbered alike: classes are
        numbered by their racks, so two counts of one tier's links (one of them of a device of
        each class) with as many classes on each side number them alike."""
        return (self._n_a == other._n_a and self._n_b == other._n_b and self.n_planes == other.n_planes
                and np.array_equal(self._present, other._present))

    def share_planes(self, other: TierRuns) -> None:
        """Read each plane's runs from `other` (of the same pairs: `same_pairs`), worked out once."""
        self._plane_runs = other._plane_runs

    def pair_index(self, a_dev: np.ndarray, b_dev: np.ndarray) -> np.ndarray:
        """Per (a_dev, b_dev) of the first plane, its pair's index (as `plane` codes them): the
        devices must be of classes this tier's links join."""
        index: np.ndarray = np.searchsorted(self._present, self._class_a[a_dev] * self._n_b + self._class_b[b_dev])
        return index

    def _shifted(self, devices: np.ndarray, plane: int) -> np.ndarray:
        return shifted(devices, plane, self.servers, self.per_plane)

    def plane(self, p: int) -> tuple[list[float], np.ndarray]:
        """Plane p's distinct runs, sorted, and per distinct pair the index of its run."""
        done = self._plane_runs[p]
        if done is None:
            zeros = np.zeros(len(self._rep_a), np.int64)
            pairs = LinkArrays(zeros, zeros, self._shifted(self._rep_a, p), zeros, self._shifted(self._rep_b, p),
                               zeros)
            values, code = link_lengths(self._fp, pairs, self._row, self._slot)
            done = self._plane_runs[p] = (values.tolist(), code)
        return done

    def per_link(self, p: int) -> tuple[list[float], np.ndarray]:
        """Plane p's distinct runs and per link (first plane's order) the index of its run, as
        `link_lengths` gives them for the plane's links."""
        values, code = self.plane(p)
        by_link: np.ndarray = code[self.pair_of_link]
        return values, by_link

    def histogram(self, p: int) -> tuple[list[float], np.ndarray]:
        """Plane p's distinct runs and the links of each."""
        values, code = self.plane(p)
        counts = np.zeros(len(values), np.int64)
        np.add.at(counts, code, self.weights)
        return values, counts
