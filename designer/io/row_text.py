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


def text_table(texts: Sequence[str]) -> np.ndarray:
    """`texts` as an object array, to pick from block after block (`picked`)."""
    table = np.empty(len(texts), dtype=object)
    table[:] = texts
    return table


def picked(texts: Sequence[str] | np.ndarray, index: np.ndarray) -> list[str]:
    """texts[i] for each i of `index`, picked in C (numpy's take of an object array); give a
    `text_table` where the same texts are picked from again."""
    table = texts if isinstance(texts, np.ndarray) else text_table(texts)
    out: list[str] = table[index].tolist()
    return out


def numbers(first: int, count: int, step: int = 1) -> list[str]:
    """The decimal text of first, first + step, ... (`count` of them).

    Consecutive numbers from 1,000 up are their thousands' text joined to the last three digits
    (a join made in C): three times faster than formatting each one."""
    if count <= 0:
        return []
    if step != 1:
        return numbers(first, (count - 1) * step + 1)[::step]
    if first < 0 or count < 256:
        return list(map(str, range(first, first + count)))
    out: list[str] = []
    value, end = first, first + count
    while value < end:
        high, low = divmod(value, 1000)
        stop = min(end, (high + 1) * 1000)
        if high:
            out += map(str(high).__add__, _LOW_DIGITS[low:stop - high * 1000])
        else:
            out += _SMALL_NUMBERS[low:stop]
        value = stop
    return out


_LOW_DIGITS = [f"{i:03d}" for i in range(1000)]
_SMALL_NUMBERS = [str(i) for i in range(1000)]


def number_text(values: np.ndarray) -> list[str]:
    """The decimal text of each value of an integer array, each distinct value formatted once."""
    if not len(values):
        return []
    low, high = int(values.min()), int(values.max())
    if high - low == len(values) - 1 and values[0] == low and bool(np.all(np.diff(values) == 1)):
        return numbers(low, len(values))   # consecutive: link numbers, ids
    if high - low <= 4 * len(values):
        return picked(numbers(low, high - low + 1), values - low)
    return list(map(str, values.tolist()))
