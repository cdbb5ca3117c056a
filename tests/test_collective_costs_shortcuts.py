"""The collective model's exact shortcuts, held to the computation they replace."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.performance.collective_costs import _binomial_edges, _dense_ranks, _edges, _tree_edges
from tests.helpers import examples


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=300), st.sampled_from([np.int64, np.int32, np.uint16]),
       st.booleans())
def test_dense_ranks_are_numpys_unique_inverse(values, dtype, dense):
    """Dense or not (a value missing below the largest, every value present, any order), the ranks
    are np.unique's inverse: the same numbers in the same type."""
    arr = np.array(values, dtype=dtype)
    if dense:   # every value from 0 to the largest present, in a shuffled order
        arr = np.random.default_rng(len(values)).permutation(np.concatenate([arr, np.arange(int(arr.max()) + 1)]))
        arr = arr.astype(dtype)
    expected = np.unique(arr, return_inverse=True)[1]
    got = _dense_ranks(arr)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert not np.shares_memory(got, arr)   # a copy: the layout's arrays are its own


def test_dense_ranks_of_sparse_or_negative_values_take_the_sort():
    for arr in (np.array([0, 5000]), np.array([-1, 0, 1]), np.array([3, 1, 2]), np.array([0.0, 1.0])):
        assert np.array_equal(_dense_ranks(arr), np.unique(arr, return_inverse=True)[1])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 131, 1024])
def test_the_patterns_sends_are_made_once_and_read_only(n):
    made = {"ring": (np.arange(n), (np.arange(n) + 1) % n), "tree": _tree_edges(n), "binomial": _binomial_edges(n)}
    for pattern, (src, dst) in made.items():
        got = _edges(pattern, n)
        assert np.array_equal(got[0], src) and np.array_equal(got[1], dst)
        assert _edges(pattern, n) is got   # the same arrays for the next layout over n domains
        assert not got[0].flags.writeable and not got[1].flags.writeable
