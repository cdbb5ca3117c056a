"""The leaves' host ends listed from the end rows when first read (`EndsOnRows`) read, compare,
copy and pickle as the `defaultdict(list)` listed link by link."""

from __future__ import annotations

import copy
import pickle
from collections import defaultdict

import numpy as np
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.model.topology.capture_groups import EndsOnRows, LeafEndRows

_IDS = [f"leaf-{i}" for i in range(4)] + [f"hca-{i}" for i in range(6)]
_ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 64), st.integers(4, 9)), max_size=30)


def _both(rows: list[tuple[int, int, int]]) -> tuple[EndsOnRows, defaultdict[str, list[tuple[int, str]]]]:
    want: defaultdict[str, list[tuple[int, str]]] = defaultdict(list)
    for leaf, port, hca in rows:
        want[_IDS[leaf]].append((port, _IDS[hca]))
    columns = [np.array([r[i] for r in rows], dtype=np.int64) for i in range(3)]
    return EndsOnRows(_IDS, LeafEndRows(*columns)), want


@settings(max_examples=examples(100), deadline=None)
@given(_ROWS, st.sampled_from(_IDS[:5]))
def test_ends_on_rows_read_as_the_ends_listed_link_by_link(rows, key):
    made, want = _both(rows)
    assert list(made.items()) == list(want.items())
    assert (key in _both(rows)[0]) == (key in want)
    assert _both(rows)[0].get(key) == want.get(key)
    assert len(_both(rows)[0]) == len(want) and list(_both(rows)[0]) == list(want)
    assert _both(rows)[0] == want and want == _both(rows)[0]
    assert (_both(rows)[0] != want) is False
    copied, pickled = copy.deepcopy(_both(rows)[0]), pickle.loads(pickle.dumps(_both(rows)[0]))
    assert copied == want == pickled and type(copied) is defaultdict and type(pickled) is defaultdict
    made = _both(rows)[0]
    assert made[key] == want[key] and made == want  # a leaf with no ends reads as none, and is kept
