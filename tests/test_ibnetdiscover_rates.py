"""The port lines' last words read by their last eight bytes, as the windows read them.

`ibnetdiscover_rates.last_words` finds the lines ending in the first line's word by one
number per line and reads only the others in windows (`_windowed`): codes and words must be
those the windows alone give, whatever the lines hold (the word order and the cap of 16 words
included).
"""

from __future__ import annotations

import numpy as np
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io.ibnetdiscover_rates import _windowed, last_words

_ENDS = ["4xNDR", "4xHDR", "1xSDR", "4xQDR", "2xHDR", "4xNDR ", "4xNDR\t", "#4xNDR", "x", "4xFDR10", "12345678",
         "1234567", "", " ", "a#b", "lid 7 4xNDR", "\t4xEDR"]


def _line(parts: list[str]) -> bytes:
    return ("[1]\t\"S-00\"[2]\t\t# " + " ".join(parts)).encode("ascii")


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from(_ENDS), st.booleans()), min_size=1, max_size=40),
       st.integers(0, 16))
def test_last_words_are_the_windows_words(lines, short):
    pieces = [b"#\n"]
    for lead, end, bare in lines:
        # a line of its word alone (shorter than a window), or after a description of any length
        pieces.append(end.encode("ascii") if bare else _line(["x" * lead, end]))
        pieces.append(b"\n")
    text = b"".join(pieces)[:-short or None]
    raw = np.frombuffer(text, dtype=np.uint8)
    breaks = np.flatnonzero(raw == 10)
    start = breaks + 1
    end = np.append(breaks[1:], len(raw))
    keep = start < end
    start, end = start[keep], end[keep]
    code, words = last_words(raw, start, end)
    expected_code, expected_words = _windowed(raw, start, end)
    assert words == expected_words
    assert code.tolist() == expected_code.tolist()


def test_more_than_sixteen_words_keep_the_first_sixteen():
    text = b"#\n" + b"\n".join(_line(["lid", str(k), f"w{k % 20}"]) for k in range(60)) + b"\n"
    raw = np.frombuffer(text, dtype=np.uint8)
    breaks = np.flatnonzero(raw == 10)
    start, end = breaks[:-1] + 1, breaks[1:]
    code, words = last_words(raw, start, end)
    assert words == [f"w{k}" for k in range(16)] == _windowed(raw, start, end)[1]
    assert code.tolist() == _windowed(raw, start, end)[0].tolist()
    assert (code[np.array([k % 20 >= 16 for k in range(60)])] == -1).all()
