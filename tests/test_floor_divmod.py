"""`closed_form_bom.floor_divmod`, the ports' cage and lane, held to numpy's divmod."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from designer.model.physical.closed_form_bom import floor_divmod


@given(st.lists(st.integers(-(2**40), 2**40), max_size=60), st.integers(1, 1100))
def test_floor_divmod_is_numpys_divmod(values: list[int], k: int) -> None:
    # negatives included: a leaf's server ports give negative offsets before its uplinks' cages
    x = np.array(values, np.int64)
    quotient, remainder = floor_divmod(x, k)
    expected_q, expected_r = np.divmod(x, k)
    assert quotient.dtype == expected_q.dtype and remainder.dtype == expected_r.dtype
    assert np.array_equal(quotient, expected_q) and np.array_equal(remainder, expected_r)


def test_floor_divmod_by_powers_of_two_and_others() -> None:
    x = np.arange(-70, 70, dtype=np.int64)
    for k in (1, 2, 3, 4, 8, 12, 64):
        q, r = floor_divmod(x, k)
        assert q.tolist() == [v // k for v in x.tolist()] and r.tolist() == [v % k for v in x.tolist()]
