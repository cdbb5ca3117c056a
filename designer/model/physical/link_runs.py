"""Cable runs of a template's links, as arrays: each link's estimated run, or the links of each
run by tier, by `floor_layout.cable_run_m`'s arithmetic worked out once per distinct pair of
positions (closed_form_bom.py reads a run per link, the cost floor the counts by tier)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from designer.model.intent.floorplan import FloorPlan
    from designer.model.physical.link_arrays import LinkArrays


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
        dist = {int(p_): abs(coords[p_ // n] - coords[p_ % n]) for p_ in present_.tolist()}
        values = sorted(set(dist.values()))
        code = {v: i for i, v in enumerate(values)}
        table = np.zeros(n * n, np.int64)
        table[present_] = [code[dist[p_]] for p_ in present_.tolist()]
        return table[pair], values

    dx_code, dx_u = distance_codes(sa, sb, xs)
    dy_code, dy_u = distance_codes(ra, rb, ys)
    combo = dx_code * (len(dy_u) + 1) + dy_code
    in_rack = len(dx_u) * (len(dy_u) + 1)
    combo[(ra == rb) & (sa == sb)] = in_rack
    present = np.flatnonzero(np.bincount(combo, minlength=in_rack + 1))
    run = {}
    for c in present.tolist():
        if c == in_rack:
            run[c] = round(fp.in_rack_m, 2)
        else:
            ix, iy = divmod(c, len(dy_u) + 1)
            run[c] = round(dx_u[ix] + dy_u[iy] + 2 * fp.vertical_run_m + fp.slack_m, 2)
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
