"""The rate each port line of an ibnetdiscover dump names (`4xNDR`), read as the line reader reads it.

The line reader takes a port line's last word (after its last space, trailing blanks dropped)
and looks it up among the rates read so far; a word not known yet sends it to search the line
for the first rate (`rate_of`), which is then known. The bulk reader reads the last words of all
800,000 lines of a 131,072-GPU dump at once from the bytes at their ends (`last_words`) and
reads line by line only those lines whose word is not known yet when they come (`line_rates`):
in a dump as ibnetdiscover prints it, one line per rate.
"""

from __future__ import annotations

import heapq
import re

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from designer.model.topology.asbuilt import ib_gbps

RATE = re.compile(r"\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b", re.IGNORECASE)

Rate = tuple[int, str, float]    # width, speed name, Gb/s

_WINDOW = 16           # bytes read at each line's end: a last word of up to 15 characters
_WORDS = 16            # distinct last words told apart on arrays; lines of any other are read one by one
_SPACE, _TAB, _HASH = 32, 9, 35


def rate_of(rest: str, last: str, rates: dict[str, Rate]) -> Rate:
    """The rate a port line's tail names (width, speed, Gb/s), remembered under its token and,
    where the token is the line's last word, under that word too."""
    found = RATE.search(rest)
    token = found.group(0) if found else ""
    rate = rates.get(token)
    if rate is None:
        width, speed = (int(found.group(1)), found.group(2).upper()) if found else (4, "")
        rate = rates[token] = (width, speed, ib_gbps(width, speed) if speed else 0.0)
    if token == last:
        rates[last] = rate
    return rate


def last_words(raw: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(code, words): each line's last word as an index into `words`, -1 where the line must be
    read on its own (trailing blanks, no space in its last bytes, a '#' after its last space, a
    word of another spelling than the few most lines end in). Lines are raw[start:end].

    Nearly every line of a dump ends in the word its first line ends in (` 4xNDR`): the lines
    that do are found by their last eight bytes, read as one number, and only the others are
    read in windows (`_windowed`); the words are then numbered as the windows alone number
    them, in the order their first line comes."""
    if not len(start) or len(raw) < _WINDOW:
        return _windowed(raw, start, end)
    _, first_word = _windowed(raw, start[:1], end[:1])
    size = len(first_word[0]) + 1 if first_word else 9
    if size > 8:                       # no word, or one too long to read in eight bytes
        return _windowed(raw, start, end)
    pattern = int.from_bytes(b" " + first_word[0].encode("ascii"), "little")
    eights = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    tail = eights[np.minimum(np.maximum(end - 8, 0), len(eights) - 1)] >> np.uint64(8 * (8 - size))
    # As `_windowed` reads them: the space inside the line, and the line as long as its window
    # (which the first line, read in its window, already is).
    same = (tail == np.uint64(pattern)) & (end - size >= start) & (end >= _WINDOW)
    others = np.flatnonzero(~same)
    other_code, other_words = _windowed(raw, start[others], end[others])
    words = list(dict.fromkeys([first_word[0], *other_words]))
    code = np.full(len(start), -1, dtype=np.int64)
    code[same] = 0
    renumber = np.array([words.index(w) for w in other_words] + [-1], dtype=np.int64)
    code[others] = renumber[other_code]
    # Numbered by their first line, and no more than _WORDS of them, as `_windowed` numbers them.
    firsts = [int(np.argmax(code == w)) for w in range(len(words))]
    order = sorted(range(len(words)), key=firsts.__getitem__)[:_WORDS]
    rank = np.full(len(words) + 1, -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[code], [words[w] for w in order]


def _windowed(raw: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """`last_words` read in a window of each line's last _WINDOW bytes."""
    code = np.full(len(start), -1, dtype=np.int64)
    if not len(start) or len(raw) < _WINDOW:
        return code, []
    low = np.maximum(end - _WINDOW, 0)
    window = sliding_window_view(raw, _WINDOW)[np.minimum(low, len(raw) - _WINDOW)]
    cols = np.arange(_WINDOW, dtype=np.int64)
    inside = cols >= (start - low)[:, None]
    space = (window == _SPACE) & inside
    last_space = _WINDOW - 1 - np.argmax(space[:, ::-1], axis=1)
    after = cols > last_space[:, None]
    readable = (space[np.arange(len(space)), last_space] & ~((window == _HASH) & after).any(axis=1)
                & (window[:, -1] != _SPACE) & (window[:, -1] != _TAB) & (end - low == _WINDOW))
    word = np.where(after, window, 0)
    halves = np.ascontiguousarray(word).view(np.uint64)
    left = np.flatnonzero(readable)
    words: list[str] = []
    while len(left) and len(words) < _WORDS:
        first = left[0]
        same = (halves[left, 0] == halves[first, 0]) & (halves[left, 1] == halves[first, 1])
        code[left[same]] = len(words)
        words.append(bytes(word[first]).lstrip(b"\0").decode("ascii"))
        left = left[~same]
    return code, words


def line_rates(data: bytes, start: np.ndarray, end: np.ndarray, code: np.ndarray,
               words: list[str]) -> tuple[np.ndarray, list[Rate]]:
    """(rate index, rates) of each port line data[start:end] (the text's ASCII bytes), given its
    last word's code (`last_words`), as the line reader reads them in order: a line whose word
    is not known yet when it comes is read on its own, and may make its word (or another) known."""
    rates: dict[str, Rate] = {}
    index: dict[Rate, int] = {}
    out = np.full(len(start), -1, dtype=np.int64)

    def read(line: int) -> None:
        at, stop = int(start[line]), int(end[line])
        rest = data[data.index(b"#", at, stop) + 1:stop].decode("ascii").rstrip()
        last = rest[rest.rfind(" ") + 1:]
        rate = rates.get(last)
        if rate is None:
            rate = rate_of(rest, last, rates)
        out[line] = index.setdefault(rate, len(index))

    lines_of = [np.flatnonzero(code == w) for w in range(len(words))]
    taken = [0] * len(words)               # lines of each word read on their own so far
    fast_from = [len(lines) for lines in lines_of]
    alone = np.flatnonzero(code < 0).tolist()
    queue = [(int(lines[0]), w) for w, lines in enumerate(lines_of) if len(lines)]
    heapq.heapify(queue)
    next_alone = 0
    while queue or next_alone < len(alone):
        if next_alone < len(alone) and (not queue or alone[next_alone] < queue[0][0]):
            read(alone[next_alone])
            next_alone += 1
            continue
        line, w = heapq.heappop(queue)
        if words[w] in rates:              # known since its last line: this one and the rest read it
            fast_from[w] = taken[w]
            continue
        read(line)
        taken[w] += 1
        if words[w] in rates:
            fast_from[w] = taken[w]
        elif taken[w] < len(lines_of[w]):
            heapq.heappush(queue, (int(lines_of[w][taken[w]]), w))
    for w, lines in enumerate(lines_of):
        if fast_from[w] < len(lines):
            out[lines[fast_from[w]:]] = index.setdefault(rates[words[w]], len(index))
    return out, list(index)
