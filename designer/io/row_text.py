"""Many rows of text from one template, without a Python step per row.

A per-link export of a 131,072-GPU fabric writes about a million lines that differ only in a
few fields. Formatting each line in Python costs about a microsecond; here a block of rows is
one list, filled a column at a time by slice assignment (in C), and joined once. The columns
are lists of ready-made text, usually picked from a short list of distinct values
(`picked`), so no number is formatted per row either.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Part = str | Sequence[str]


def rows(parts: Sequence[Part], n: int) -> str:
    """`n` rows, each the parts in turn: a str is the same on every row, a sequence of `n`
    strs gives each row's own. Nothing separates the rows: end the last part with a line break.

    A column of the wrong length raises ValueError (the slice assignment refuses it)."""
    merged: list[Part] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        elif not (isinstance(part, str) and not part):
            merged.append(part)
    if n <= 0 or not merged:
        return ""
    width = len(merged)
    out: list[str] = [""] * (n * width)
    for j, part in enumerate(merged):
        out[j::width] = [part] * n if isinstance(part, str) else part
    return "".join(out)


def picked(texts: Sequence[str], index: np.ndarray) -> list[str]:
    """texts[i] for each i of `index`, picked in C (numpy's take of an object array)."""
    table = np.empty(len(texts), dtype=object)
    table[:] = texts
    out: list[str] = table[index].tolist()
    return out


def numbers(first: int, count: int, step: int = 1) -> list[str]:
    """The decimal text of first, first + step, ... (`count` of them)."""
    return list(map(str, range(first, first + count * step, step)))


def number_text(values: np.ndarray) -> list[str]:
    """The decimal text of each value of an integer array, each distinct value formatted once."""
    if not len(values):
        return []
    low, high = int(values.min()), int(values.max())
    if high - low <= 4 * len(values):
        return picked(numbers(low, high - low + 1), values - low)
    return list(map(str, values.tolist()))
