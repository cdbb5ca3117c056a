"""The busiest bin of a weighted count, to the last bit, from one weight and one count per bin.

A pattern's load on a leaf (or a pod) is the sum of its job NICs' traffic shares, and
`np.bincount(bins, weights)` adds them one by one, in NIC order, from 0.0. Where every NIC of a
bin carries the same share (a server's NICs on one leaf, a leaf group's servers alike), that sum
is the share added to itself as many times as the bin has NICs: the same additions in the same
order, so the same bits, without a pass over every NIC. Only the busiest bin is wanted, and the
repeated sum grows with the share and with the count (floating-point addition is monotone), so
only the bins no other bin beats in both are summed.
"""

from __future__ import annotations

import numpy as np


def uniform_weight(bins: np.ndarray, weights: np.ndarray, n_bins: int) -> np.ndarray | None:
    """Each bin's weight where all the items of every bin weigh the same (0 for an empty bin),
    else None."""
    per_bin = np.zeros(n_bins)
    per_bin[bins] = weights   # one of each bin's weights (whichever was written last)
    return per_bin if np.array_equal(per_bin[bins], weights) else None


def busiest_sum(weight: np.ndarray, count: np.ndarray) -> float:
    """max over bins of `weight` added to itself `count` times from 0.0, as bincount adds it
    (0.0 if no bin has both a positive weight and a count)."""
    live = (count > 0) & (weight > 0)
    if not live.any():
        return 0.0
    w, k = weight[live], count[live]
    order = np.lexsort((-k, -w))   # heaviest first, and of a weight the largest count first
    w, k = w[order], k[order]
    # a bin is beaten unless its count exceeds that of every heavier (or equal) bin before it
    before = np.maximum.accumulate(np.concatenate([[0], k[:-1]]))
    frontier = k > before
    return max(float(np.cumsum(np.full(int(n), x))[-1]) for x, n in zip(w[frontier], k[frontier], strict=True))
