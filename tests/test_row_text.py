"""The block writer of the per-link exports (designer/io/row_text.py) and the NetBox cells made
together, against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.io.csv_cells import safe_field
from designer.io.netbox_csv import _codes_of, _first_of_each
from designer.io.network_netbox import _Cells
from designer.io.row_text import number_text, numbers, picked, rows

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)


@st.composite
def templates(draw: st.DrawFn) -> tuple[list[str | list[str]], int]:
    n = draw(st.integers(0, 40))
    parts: list[str | list[str]] = draw(st.lists(
        st.one_of(TEXT, st.lists(TEXT, min_size=n, max_size=n)), max_size=8))
    return parts, n


@given(templates())
def test_rows_are_each_row_written_in_turn(template: tuple[list[str | list[str]], int]) -> None:
    parts, n = template
    expected = "".join(part if isinstance(part, str) else part[i] for i in range(n) for part in parts)
    assert rows(parts, n) == expected


def test_a_column_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError):
        rows(["a", ["1", "2"], "\n"], 3)


@given(st.lists(st.integers(-10**12, 10**12), max_size=50))
def test_number_text_is_each_value_in_decimal(values: list[int]) -> None:
    assert number_text(np.array(values, dtype=np.int64)) == [str(v) for v in values]


@given(st.integers(-1000, 10**7), st.integers(0, 3000), st.integers(1, 7))
def test_numbers_count_from_first_by_step(first: int, count: int, step: int) -> None:
    assert numbers(first, count, step) == [str(first + i * step) for i in range(count)]


@given(st.lists(TEXT, min_size=1, max_size=10), st.data())
def test_picked_is_each_index_looked_up(texts: list[str], data: st.DataObject) -> None:
    index = data.draw(st.lists(st.integers(0, len(texts) - 1), max_size=30))
    assert picked(texts, np.array(index, dtype=np.int64)) == [texts[i] for i in index]


@given(st.lists(st.lists(st.one_of(TEXT, st.sampled_from(["gpu-node-0001", "port1", "=1+2", "a,b", "-3", "x\ny"])),
                         max_size=8), max_size=4))
def test_cells_met_together_are_each_its_safe_field(columns: list[list[str]]) -> None:
    cell = _Cells()
    for texts in columns:
        assert cell.cells(texts) == [safe_field(t) for t in texts]
    assert cell.changed == {t for texts in columns for t in texts if safe_field(t) != t}


@given(st.lists(st.integers(-3, 60), max_size=80) | st.lists(st.integers(0, 10**9), max_size=20))
def test_first_of_each_and_codes_of_are_numpys_unique(keys: list[int]) -> None:
    array = np.array(keys, dtype=np.int64)
    assert _first_of_each(array).tolist() == np.unique(array, return_index=True)[1].tolist()
    codes, inverse = _codes_of(array)
    expected_codes, expected_inverse = np.unique(array, return_inverse=True)
    assert codes.tolist() == expected_codes.tolist()
    assert inverse.tolist() == expected_inverse.reshape(-1).tolist()
