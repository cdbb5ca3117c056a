"""Array helpers shared by the model and io."""

from __future__ import annotations

import numpy as np


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """`np.unique(values)` (flattened, sorted), by a sort. numpy 2's plain `np.unique` builds a
    hash table, ten times slower than a sort on arrays of device codes and packed keys, and its
    first call imports `numpy.ma` (tens of milliseconds of a command's start-up)."""
    s = np.sort(values, axis=None)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    distinct: np.ndarray = s[keep]
    return distinct
