"""The port lines of an ibnetdiscover dump read on the text's bytes, all lines at once.

A port line is `[port](guid)<blanks>"S-peer"[peer port](guid)<blanks># ...`, the `(guid)`
parts optional (`_BULK_PORT` in ibnetdiscover.py). At 131,072 GPUs a dump has 800,000 of them:
matching each with a regular expression and making three strings and two ints per line took
most of the read. Here each field is read as a run of bytes of one class (digits, hex digits,
blanks) starting where the previous one ended, for every line at once: a window of a few bytes
per line, gathered with numpy, says how long each line's run is. The peer's id is compared with
the blocks' ids as fixed-width bytes, so no string is made per line.

The reading is strict: a line this reader does not accept is one the regular expression does
not accept either (`NOT_PORT_LINES`), and a field longer than the windows read (a GUID of more
than `_HEX` digits, a run of more than `_BLANKS` blanks) is left to the regular expression
(`TOO_WIDE`), which reads any length.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# Why the bytes could not give the columns: the dump's port lines are not all port lines (the
# regular expression would not match one either), or a field is wider than the windows read.
NOT_PORT_LINES: Final = "not port lines"
TOO_WIDE: Final = "too wide"

_DIGITS = 7          # a port number of 7 digits or more: the reader leaves the dump to the line reader
_HEX = 20            # GUID digits read (ibnetdiscover prints 16)
_BLANKS = 8          # blanks between fields (the exporter prints two tabs, ibnetdiscover a few)
ID_BYTES = 2 + _HEX  # "S-" and the GUID: the width of the ids compared
PAD = 2 * (ID_BYTES + _DIGITS + _BLANKS + 8)   # zero bytes after the text: every window stays inside

_IS_DIGIT = np.zeros(256, dtype=bool)
_IS_DIGIT[ord("0"):ord("9") + 1] = True
_IS_HEX = _IS_DIGIT.copy()
_IS_HEX[ord("a"):ord("f") + 1] = True
_IS_HEX[ord("A"):ord("F") + 1] = True
_IS_BLANK = np.zeros(256, dtype=bool)
_IS_BLANK[[ord(" "), ord("\t")]] = True
_IS_KIND = np.zeros(256, dtype=bool)
_IS_KIND[[ord("S"), ord("H"), ord("R")]] = True


def _windows(raw: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The `width` bytes from each of `at`, a row each (a copy: rows of a sliding view)."""
    return sliding_window_view(raw, width)[at]  # type: ignore[no-any-return]


def _run(raw: np.ndarray, at: np.ndarray, table: np.ndarray, width: int) -> np.ndarray:
    """How many bytes of the class `table` each run starting at `at` holds, up to `width` (a run
    of `width` or more reads `width`). A long run is read as a window per line; short ones (port
    numbers, blanks) a byte further at a time for the lines whose run goes on, until none does."""
    if width > 8:
        inside = table[_windows(raw, at, width)]
        return np.where(inside.all(axis=1), width, np.argmin(inside, axis=1))
    length = np.full(len(at), width, dtype=np.int64)
    live, where = np.arange(len(at)), at
    for k in range(width):
        going = table[raw[where]]
        length[live[~going]] = k
        live, where = live[going], where[going] + 1
        if not len(live):
            break
    return length


def _number(raw: np.ndarray, at: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The decimal numbers of `length` digits (1 to _DIGITS - 1) starting at `at`."""
    value = np.zeros(len(at), dtype=np.int64)
    for k in range(int(length.max(initial=0))):
        more = k < length
        value = np.where(more, value * 10 + (raw[at + k].astype(np.int64) - ord("0")), value)
    return value


def _optional_guid(raw: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Where each line goes on after an optional `(hex digits)` at `at`."""
    opened = raw[at] == ord("(")
    if not opened.any():
        return at, None
    rows = np.flatnonzero(opened)
    length = _run(raw, at[rows] + 1, _IS_HEX, _HEX)
    if (length == _HEX).any():
        return at, TOO_WIDE
    if not ((length > 0) & (raw[at[rows] + 1 + length] == ord(")"))).all():
        return at, NOT_PORT_LINES
    at = at.copy()
    at[rows] += length + 2
    return at, None


def _port(raw: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, str | None]:
    """(number, where the line goes on after `]`) of `[digits]` at `at`."""
    if not (raw[at] == ord("[")).all():
        return at, at, NOT_PORT_LINES
    length = _run(raw, at + 1, _IS_DIGIT, _DIGITS)
    if (length == _DIGITS).any():
        return at, at, NOT_PORT_LINES       # as the regular expression's reader: left to the line reader
    if not ((length > 0) & (raw[at + 1 + length] == ord("]"))).all():
        return at, at, NOT_PORT_LINES
    return _number(raw, at + 1, length), at + length + 2, None


def _port_and_blanks(raw: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """A port's `[n]`, its optional `(guid)` and the blanks after them, as the port's number, where
    the blanks start, how many there are, and why not ("" when every line has them)."""
    port, at, why = _port(raw, at)
    if why:
        return port, at, at, why
    at, why = _optional_guid(raw, at)
    if why:
        return port, at, at, why
    blanks = _run(raw, at, _IS_BLANK, _BLANKS)
    if (blanks == _BLANKS).any():
        return port, at, blanks, TOO_WIDE
    return port, at, blanks, ""


def port_columns(raw: np.ndarray, at: np.ndarray, block_ids: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """(own port, peer row, peer port) of the port lines starting at `at` (each at its `[`), the
    peer's row in `block_ids` (the blocks' ids as bytes of width ID_BYTES, distinct); or why not
    (NOT_PORT_LINES, TOO_WIDE, or "no block" when a peer is not among the blocks).

    `raw` is the text's bytes followed by PAD zero bytes, so that no window leaves it."""
    port, at, blanks, why = _port_and_blanks(raw, at)
    if why:
        return why
    if not (blanks > 0).all():
        return NOT_PORT_LINES
    at = at + blanks
    if not ((raw[at] == ord('"')) & _IS_KIND[raw[at + 1]] & (raw[at + 2] == ord("-"))).all():
        return NOT_PORT_LINES
    sixteen = _rows_of_sixteen(raw, at, block_ids)
    if isinstance(sixteen, str):
        return sixteen
    if sixteen is not None:
        peer, after = sixteen, at + 20
    else:
        found = _peer_rows(raw, at, block_ids)
        if isinstance(found, str):
            return found
        peer, after = found
    pport, at, blanks, why = _port_and_blanks(raw, after)
    if why:
        return why
    if not (raw[at + blanks] == ord("#")).all():
        return NOT_PORT_LINES
    return port, peer, pport


def _rows_of_sixteen(raw: np.ndarray, at: np.ndarray, block_ids: np.ndarray) -> np.ndarray | str | None:
    """The peer's row in `block_ids` of every line whose peer id (its quote at `at`) is a kind
    letter, '-' and 16 hex digits, as ibnetdiscover prints GUIDs: read as two 64-bit numbers and
    the letter, found among the blocks' by a digest and checked number for number. "no block"
    when a peer is not among the blocks; None when a line's id is of another width (or two
    blocks share a digest): `_peer_rows` then reads the ids byte by byte."""
    if not len(at) or not (raw[at + 19] == ord('"')).all() or not _IS_HEX[_windows(raw, at + 3, 16)].all():
        return None
    eights = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
    low, high, kind = eights[at + 3], eights[at + 11], raw[at + 1].astype(np.uint64)
    blocks = np.frombuffer(block_ids.tobytes(), dtype=np.uint8).reshape(len(block_ids), ID_BYTES)
    block_low = np.ascontiguousarray(blocks[:, 2:10]).view("<u8").ravel()
    block_high = np.ascontiguousarray(blocks[:, 10:18]).view("<u8").ravel()
    # Only ids of 18 bytes can equal one; the others' letter reads 0, which no line's does.
    block_kind = np.where((blocks[:, 17] != 0) & (blocks[:, 18] == 0), blocks[:, 0], 0).astype(np.uint64)
    digest, block_digest = _mix(low, high, kind), _mix(block_low, block_high, block_kind)
    order = np.argsort(block_digest)
    ordered = block_digest[order]
    if len(ordered) > 1 and (ordered[1:] == ordered[:-1]).any():
        return None
    if not len(ordered):
        return "no block"
    slot = np.minimum(np.searchsorted(ordered, digest), len(order) - 1)
    rows: np.ndarray = order[slot]
    if not ((block_low[rows] == low) & (block_high[rows] == high) & (block_kind[rows] == kind)).all():
        return "no block"
    return rows


def _mix(low: np.ndarray, high: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """A 64-bit digest of (low, high, kind) (equal triples, equal digests)."""
    digest = (low ^ (kind << np.uint64(56))) * np.uint64(0x9E3779B97F4A7C15)
    digest ^= digest >> np.uint64(29)
    digest = (digest ^ high) * np.uint64(0xBF58476D1CE4E5B9)
    digest ^= digest >> np.uint64(31)
    mixed: np.ndarray = digest
    return mixed


def _peer_rows(raw: np.ndarray, at: np.ndarray, block_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray] | str:
    """(peer row, where the line goes on after the id's closing quote) of ids of any width up to
    _HEX digits, read byte by byte; or why not."""
    # The peer's id as ID_BYTES bytes, zeros after its end (as numpy's bytes strings end).
    window = _windows(raw, at + 1, ID_BYTES)
    inside = _IS_HEX[window[:, 2:]]
    digits = np.where(inside.all(axis=1), _HEX, np.argmin(inside, axis=1))
    if (digits == _HEX).any():
        return TOO_WIDE
    if not ((digits > 0) & (window[np.arange(len(at)), digits + 2] == ord('"'))).all():
        return NOT_PORT_LINES
    window[np.arange(ID_BYTES) >= (digits + 2)[:, None]] = 0
    peer = _rows_of(window, block_ids)
    if peer is None:
        return "no block"
    return peer, at + digits + 4


def _rows_of(window: np.ndarray, block_ids: np.ndarray) -> np.ndarray | None:
    """The row in `block_ids` of each id in `window` (one id a row, ID_BYTES bytes), None when
    one is not there. Compared as a 64-bit digest of the bytes, each found row then checked
    byte for byte (two blocks of one digest are compared as bytes throughout)."""
    blocks = np.zeros((len(block_ids), ID_BYTES), dtype=np.uint8)
    blocks[:] = np.frombuffer(block_ids.tobytes(), dtype=np.uint8).reshape(len(block_ids), ID_BYTES)
    digest, block_digest = _digest(window), _digest(blocks)
    order = np.argsort(block_digest, kind="stable")
    ordered = block_digest[order]
    if len(ordered) > 1 and not (ordered[1:] != ordered[:-1]).all():
        ids = np.ascontiguousarray(window).view(f"S{ID_BYTES}").ravel()
        order = np.argsort(block_ids, kind="stable")
        slot = np.minimum(np.searchsorted(block_ids[order], ids), len(order) - 1)
        return order[slot] if (block_ids[order][slot] == ids).all() else None
    if not len(ordered):
        return None
    slot = np.minimum(np.searchsorted(ordered, digest), len(order) - 1)
    rows = order[slot]
    return rows if (blocks[rows] == window).all() else None


def _digest(rows: np.ndarray) -> np.ndarray:
    """A 64-bit digest of each row of ID_BYTES bytes (equal rows, equal digests)."""
    wide = np.zeros((len(rows), _WORDS * 8), dtype=np.uint8)
    wide[:, :ID_BYTES] = rows
    words = wide.view(np.uint64)
    digest = np.zeros(len(rows), dtype=np.uint64)
    for k in range(_WORDS):
        digest = (digest ^ words[:, k]) * np.uint64(0x9E3779B97F4A7C15)
        digest ^= digest >> np.uint64(29)
    return digest


_WORDS = (ID_BYTES + 7) // 8


def ids_as_bytes(ids: list[str]) -> np.ndarray | None:
    """The blocks' ids as bytes of width ID_BYTES (None when one is wider)."""
    if max(map(len, ids), default=0) > ID_BYTES:
        return None
    return np.array(ids, dtype=f"S{ID_BYTES}")
