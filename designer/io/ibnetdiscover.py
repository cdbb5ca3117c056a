"""ibnetdiscover text: read a capture into an AsBuilt fabric, and write a design as that text.

The format (infiniband-diags `ibnetdiscover`): one block per node, headed by `vendid=`,
`devid=`, `sysimgguid=`, `switchguid=`/`caguid=` lines and a `Switch N "S-guid" # "desc" ...`
or `Ca N "H-guid" # "desc"` line, then one line per connected port:
  switch: `[port] "S-guid"[peer port](peer port guid) # "peer desc" lid N 4xNDR`
  CA:     `[port](port guid) "S-guid"[peer port] # lid N lmc 0 "peer desc" lid M 4xNDR`
Every link appears once from each end; the reader keeps it once. Lines that belong to no
block (stderr messages, headers such as "Non-Chassis Nodes") are skipped and counted.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import lru_cache
from operator import itemgetter

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from designer.catalog import Catalog, Switch, default_catalog
from designer.catalog.device_ids import device_ids
from designer.io import ibnetdiscover_ports as ports_in_bulk
from designer.io.atomic import write_atomic
from designer.io.ibnetdiscover_rates import last_words, line_rates
from designer.io.ibnetdiscover_rates import rate_of as _rate_of
from designer.io.markup import one_line
from designer.model.common.arrays import sorted_distinct
from designer.model.intent.design import FabricDesign
from designer.model.topology.asbuilt import (
    KIND_AGGREGATION,
    KIND_HOST,
    KIND_SWITCH,
    AsBuilt,
    CaptureColumns,
    Device,
    Link,
    columns_of,
    parse_host_description,
    parse_switch_description,
    with_columns,
)
from designer.model.topology.derive import Derived, derive
from designer.model.topology.wiring import Wiring


class CaptureError(ValueError):
    """A capture cannot be read; the message is one line fit for the user.

    A message may quote the capture (a malformed field), so it is made one printable line here,
    once for every reader: line breaks and control characters become spaces.
    """

    def __init__(self, message: str):
        super().__init__(one_line(message, 600))


_NODE = re.compile(r'^(?P<kind>Switch|Ca|Rt)\s+(?P<ports>\d+)\s+"(?P<id>[SHR]-[0-9a-fA-F]+)"'
                   r'\s*(?:#\s*"(?P<desc>[^"]*)")?')
_PORT = re.compile(r'^\[(?P<port>\d+)\](?:\([0-9a-fA-F]+\))?\s+"(?P<peer>[SHR]-[0-9a-fA-F]+)"\[(?P<pport>\d+)\]'
                   r'(?:\([0-9a-fA-F]+\))?\s*#(?P<rest>.*)$')
_QUOTED = re.compile(r'"([^"]*)"')
_ATTR = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|routerguid)=", re.IGNORECASE)


# The first line of a capture the InfiniBand twin writes (designer/twin/infiniband.py).
SIMULATED_MARK = "# Link speeds simulated:"


def looks_like_ibnetdiscover(text: str) -> bool:
    return bool(re.search(r'^(Switch|Ca)\s+\d+\s+"[SH]-[0-9a-fA-F]+"', text, re.MULTILINE))


def parse_ibnetdiscover(text: str, source: str = "<text>", *, bulk: bool = True) -> AsBuilt:
    """The devices and links of an ibnetdiscover dump; raises CaptureError for anything else.

    A dump whose every line is one the format defines, starting its line (what ibnetdiscover
    and the exporter print), is read in bulk (`parse_regular`); any other is read line by line.
    Both give the same fabric (a property test holds them equal). `bulk=False`: the bulk reader
    has already refused the text's bytes (`read_padded`), and would refuse the text."""
    if "\x00" in text:
        raise CaptureError(f"{source}: binary data, not an ibnetdiscover dump")
    fabric = parse_regular(text, source) if bulk else None
    return fabric if fabric is not None else parse_lines(text, source)


def parse_lines(text: str, source: str = "<text>") -> AsBuilt:
    """The line-by-line reader: any dump, with stray lines, indents and odd line breaks."""
    if "\x00" in text:
        raise CaptureError(f"{source}: binary data, not an ibnetdiscover dump")
    devices: dict[str, Device] = {}
    links: list[Link] = []
    fabric = AsBuilt("ibnetdiscover", devices, links)
    fabric.speeds_simulated = SIMULATED_MARK in text[:4096]
    seen: dict[tuple[str, int, str, int], int] = {}   # (end, port, end, port), ends in order -> link index
    current: str | None = None
    devid = 0
    peers: set[str] = set()             # devices named (with a description) by port lines
    rates: dict[str, tuple[int, str, float]] = {}   # '4xNDR' -> (4, 'NDR', 400.0)
    skipped = 0
    port_match, node_match, attr_match = _PORT.match, _NODE.match, _ATTR.match
    lines = text.splitlines()
    for line in lines:
        # Port lines are nearly all of a dump and start the line: try them first, unstripped
        # (the pattern ends at the line's end), then the rarer block lines.
        m = port_match(line) if line[:1] == "[" else None
        if m is None:
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                continue
            m = port_match(stripped) if stripped[0] == "[" else None
        if m and current is not None:
            port, peer, pport, rest = m.groups()
            if rest.count('"') >= 2:
                peers.add(peer)
            # The rate is the line's last word nearly always: look it up before searching.
            rest = rest.rstrip()
            last = rest[rest.rfind(" ") + 1:]
            rate = rates.get(last)
            if rate is None:
                rate = _rate_of(rest, last, rates)
            width, speed, gbps = rate
            port, pport = int(port), int(pport)
            key = (current, port, peer, pport) if (current, port) <= (peer, pport) else (peer, pport, current, port)
            if key not in seen:
                seen[key] = len(links)
                links.append(Link(current, port, peer, pport, gbps, width, speed))
            elif gbps < links[seen[key]].gbps:
                # The two ends disagree (one reads 1xSDR, the other 4xSDR): keep the slower.
                links[seen[key]] = Link(current, port, peer, pport, gbps, width, speed)
            continue
        stripped = line.strip()
        if m is None and attr_match(stripped):
            if stripped[:7].lower() == "vendid=":
                current, devid = None, 0
            elif stripped[:6].lower() == "devid=":
                try:
                    devid = int(stripped.split("=", 1)[1].strip(), 16)
                except ValueError:
                    devid = 0
            continue
        n = node_match(stripped) if m is None else None
        if n:
            current = n.group("id")
            devices[current] = _device(current, n.group("kind"), n.group("desc") or "",
                                              int(n.group("ports")), devid)
            continue
        skipped += 1
    if not devices:
        raise CaptureError(f"{source}: not an ibnetdiscover dump (no Switch or Ca block found)")
    missing = sorted(p for p in peers if p not in devices)
    if missing:
        last = next((ln for ln in reversed(lines) if ln.strip()), "")
        cut = "" if text.endswith("\n") and _PORT.match(last.strip()) is None else ", and it ends mid-block"
        raise CaptureError(f"{source}: the dump looks truncated: {len(missing)} device(s) named by links "
                           f"have no block of their own (first {missing[0]}){cut}")
    return finish(fabric, skipped)


def finish(fabric: AsBuilt, skipped: int) -> AsBuilt:
    """The note of skipped lines, and switches that share a description told apart."""
    if skipped:
        fabric.notes.append(f"{skipped} line(s) that are not part of the ibnetdiscover format were skipped")
    # Switches sharing one description (four 'Voltaire 4036 - 36 QDR ports switch' in X5) are
    # told apart by their GUID, as default-named ones are, so that no finding reads "cabled to
    # X instead of X".
    columns = columns_of(fabric)
    if columns is not None:      # read in bulk: on the switches' rows, no device made
        names, descriptions = columns.name, columns.description
        plain = [row for row in np.flatnonzero(columns.kind == KIND_SWITCH).tolist()
                 if names[row] == descriptions[row].strip()]
        alike = Counter(names[row] for row in plain)
        for row in plain:
            if alike[names[row]] > 1:
                names[row] = f"{names[row]} ({columns.ids[row][2:]})"
        return fabric
    plain_devices = [d for d in fabric.devices.values() if d.kind == "switch" and d.name == d.description.strip()]
    counted = Counter(d.name for d in plain_devices)
    for d in plain_devices:
        if counted[d.name] > 1:
            fabric.put_device(dataclasses.replace(d, name=f"{d.name} ({d.id[2:]})"))
    return fabric


# --- the bulk reader ---------------------------------------------------------------------------
# The line patterns above, matched over the whole text at once with a line break in front of it:
# each starts with one (a search the regular expression engine runs at C speed, where `^` in
# multi-line mode tries every character), and whitespace inside a line never crosses one.
_BULK_PORT = re.compile(rb'\n\[(\d+)\](?:\([0-9a-fA-F]+\))?[ \t]+"([SHR]-[0-9a-fA-F]+)"\[(\d+)\]'
                        rb'(?:\([0-9a-fA-F]+\))?[ \t]*#[^\n]*')
_BULK_BLOCK = re.compile(r'\n(Switch|Ca|Rt)[ \t]+(\d+)[ \t]+"([SHR]-[0-9a-fA-F]+)"[ \t]*(?:#[ \t]*"([^"\n]*)")?')
_BULK_PIECE = 4 * 2**20      # bytes of text matched at a time

# Bytes a regular dump never holds: line breaks and spaces other than \n, space and tab
# (str.splitlines and str.strip read them as the line reader does; the patterns above would not).
_BULK_IRREGULAR = tuple(bytes((c,)) for c in (13, 11, 12, 28, 29, 30, 31))
# A regular dump is ibnetdiscover's when a line opens a switch or an HCA block
# (`looks_like_ibnetdiscover`, on the bytes: a regular dump holds no space the two read apart).
_LOOKS_LIKE = re.compile(rb'^(Switch|Ca)\s+\d+\s+"[SH]-[0-9a-fA-F]+"', re.MULTILINE)
# The lines a regular dump holds, by their first characters: a port line, a comment, an empty
# line, an attribute line (lower case, as ibnetdiscover prints them) or a block's line.
_BULK_ATTRS = {"v": ("vendid=",), "d": ("devid=",), "s": ("sysimgguid=", "switchguid="), "c": ("caguid=",),
               "r": ("routerguid=",)}
_BULK_FIRST = frozenset(b"[#\nSCR" + "".join(_BULK_ATTRS).encode())


def parse_regular(text: str, source: str = "<text>") -> AsBuilt | None:
    """The fabric of a dump whose every line is a block line, a port line, an attribute line, a
    comment or empty, each starting its line; None for any other dump (the line reader reads it).
    Read on the text's bytes (`_regular`)."""
    if not text.isascii():
        return None
    return _regular(text.encode("ascii") + bytes(ports_in_bulk.PAD), source)


def read_in_bulk(data: bytes, source: str = "<text>") -> AsBuilt | None:
    """What `parse_ibnetdiscover` gives for a file's bytes when they are a regular ibnetdiscover
    dump (ASCII, no zero byte, a line that opens a block, every line one `parse_regular` reads),
    read without decoding the text whole. None for any other file (read as text)."""
    padded = padded_for_bulk(data)
    return _regular(padded, source) if padded is not None else None


def padded_for_bulk(data: bytes) -> bytes | None:
    """The bytes with the zero bytes after them that the bulk reader reads (`read_padded`), when
    they may be a regular ibnetdiscover dump; None when they cannot be (read them as text)."""
    if not data.isascii() or data[:1] not in (b"#", b"\n") or b"\0" in data or _LOOKS_LIKE.search(data) is None:
        return None
    return data + bytes(ports_in_bulk.PAD)


def read_padded(padded: bytes, source: str = "<text>") -> AsBuilt | None:
    """`read_in_bulk` of the bytes `padded_for_bulk` gave (the caller may drop the file's own)."""
    return _regular(padded, source)


def _regular(data: bytes, source: str) -> AsBuilt | None:
    """`parse_regular` of the text whose ASCII bytes are `data`, followed by `ports_in_bulk.PAD`
    zero bytes that the port lines' windows may read.

    At 131,072 GPUs a dump has 1.9 million lines: each kind is matched over the whole text in
    one pass, the port lines as columns, and the links read from each end are kept once with
    numpy (the first end read, or the first slower one when the two ends disagree), as the
    line reader keeps them.
    """
    size = len(data) - ports_in_bulk.PAD
    if any(byte in data for byte in _BULK_IRREGULAR) or data[:1] not in (b"#", b"\n"):
        return None              # a dump as ibnetdiscover prints it starts with its comment header
    # Each line after the first starts after a line break: the patterns start with one, and the
    # first line (a comment or empty) needs none. The text is never decoded whole: its strings
    # (the blocks' ids and descriptions, a few lines' rates) are decoded from their bytes.
    padded = np.frombuffer(data, dtype=np.uint8)
    raw = padded[:size]
    breaks = np.flatnonzero(raw == 10)
    breaks = breaks[breaks + 1 < len(raw)]           # a break ending the text starts no line
    first = raw[breaks + 1]
    starts = np.bincount(first, minlength=128)
    if starts.sum() != sum(int(starts[c]) for c in _BULK_FIRST):
        return None              # indented, stray or unknown lines
    for lead, words in _BULK_ATTRS.items():
        at = breaks[first == ord(lead)] + 1
        spelled = np.zeros(len(at), dtype=bool)
        for word in words:
            spelled |= _spelled(padded, at, word)
        if not spelled.all():
            return None          # an attribute line of another spelling
    # The port lines (from the character after their line break to the next one) and their last
    # words, read from the bytes at their ends.
    line_end = np.append(breaks[1:], len(raw) - 1 if raw[-1] == 10 else len(raw))
    at = breaks[first == ord("[")]
    end = line_end[first == ord("[")]
    devid_at = breaks[first == ord("d")]
    devid_end = line_end[first == ord("d")]
    # The block lines alone, each after a line break, matched as text (150,000 of 1.7 million
    # lines at 131,072 GPUs).
    opening = np.isin(first, np.frombuffer(b"SCR", dtype=np.uint8))
    block_text = b"\n" + b"\n".join([data[lo:hi] for lo, hi in zip((breaks[opening] + 1).tolist(),
                                                                      line_end[opening].tolist(), strict=True)])
    del line_end                 # 1.9 million ends at 131,072 GPUs: not held while the ports are read
    last_code, last_text = last_words(raw, at + 1, end)
    del raw
    blocks = _BULK_BLOCK.findall(block_text.decode("ascii"))     # (Switch/Ca/Rt, ports, id, description)
    del block_text
    if len(blocks) != sum(int(starts[ord(c)]) for c in "SCR"):
        return None              # a line that starts like a block's line and is not one
    if not blocks:
        raise CaptureError(f"{source}: not an ibnetdiscover dump (no Switch or Ca block found)")
    kinds, ports_text, ids, descriptions = (list(map(itemgetter(field), blocks)) for field in range(4))
    del blocks
    index = dict(zip(ids, range(len(ids)), strict=True))
    if len(index) != len(ids):
        return None              # a device described twice: the line reader keeps the last block
    found = _port_columns_of(data, size, padded, breaks, at + 1, ids, index)
    devid_of = _devids(data, padded, devid_at + len("\ndevid="), devid_end)
    del padded
    if found is None:
        return None
    # The lines that open a block or close one (`vendid=` starts the next block's attributes),
    # and the `devid=` lines: a block's device id is the last one since the last `vendid=`.
    block_at = breaks[opening]
    vend_at = breaks[first == ord("v")]
    last_devid = np.searchsorted(devid_at, block_at) - 1
    last_vend = np.searchsorted(vend_at, block_at) - 1
    devid_after_vend = (last_devid >= 0) & ((last_vend < 0) | (devid_at[last_devid] > vend_at[last_vend]))
    devids = np.where(devid_after_vend, devid_of[last_devid], 0)
    # Whose is each port line: the block open when it comes (none after `vendid=`, before the
    # block's own line: such lines are skipped, as the line reader skips them).
    opens = np.concatenate([block_at, vend_at])
    opened = np.concatenate([np.arange(len(block_at)), np.full(len(vend_at), -1)])
    order = np.argsort(opens, kind="stable")
    opens, opened = opens[order], np.append(opened[order], -1)     # index -1: before any
    own = opened[np.searchsorted(opens, at, side="right") - 1]
    skipped = int((own < 0).sum())
    port, peers, pport = found
    if len(port) != len(at):
        return None              # a line that starts like a port line and is not one
    kept = own >= 0
    if not kept.all():           # lines of no block: skipped unread, as the line reader skips them
        port, peers, pport, own, at, end, last_code = (
            x[kept] for x in (port, peers, pport, own, at, end, last_code))
    rate, rates = line_rates(data, at + 1, end, last_code, last_text)
    chosen = np.zeros(0, dtype=np.int64)
    if len(port):
        rate_of = np.array([r[2] for r in rates], dtype=np.float64)[rate]
        # One key per cable, whichever end read it: the two ends (device, port) in order.
        span = int(max(port.max(), pport.max())) + 1
        if span * len(ids) >= 2**31:
            return None          # ports numbered past any switch's: the keys would not fit
        e1, e2 = own * span + port, peers * span + pport
        key = np.minimum(e1, e2) * (len(ids) * span) + np.maximum(e1, e2)
        # Per cable, the first line of the slowest rate read: rows by cable, then rate, then order.
        order = np.lexsort((np.arange(len(key)), rate_of, key))
        slowest = np.ones(len(order), dtype=bool)
        slowest[1:] = key[order[1:]] != key[order[:-1]]
        chosen = order[slowest]
        # Cables in the order their first line comes, as the line reader appends them: a cable's
        # first line is the least line number among its rows of the lexsort.
        first_line = np.minimum.reduceat(order, np.flatnonzero(slowest))
        chosen = chosen[np.argsort(first_line, kind="stable")]
    fabric = with_columns("ibnetdiscover", _device_columns(
        ids, index, kinds, descriptions, ports_text, devids, own[chosen], port[chosen], peers[chosen],
        pport[chosen], rate[chosen], rates))
    fabric.speeds_simulated = SIMULATED_MARK.encode("ascii") in data[:4096]
    return finish(fabric, skipped)


def _device_columns(ids: list[str], index: dict[str, int], kinds: list[str], descriptions: list[str], ports: list[str],
                    devids: np.ndarray, a: np.ndarray, pa: np.ndarray, b: np.ndarray, pb: np.ndarray,
                    rate: np.ndarray, rates: list[tuple[int, str, float]]) -> CaptureColumns:
    """The devices' columns, each read from its block as the line reader reads it (`_device_fields`)."""
    kind, name, part, host, hca, default = _fields_in_bulk(ids, kinds, descriptions)
    # Servers numbered in the order their first NIC comes ("" for none among them, then dropped).
    servers = {server: code for code, server in enumerate(dict.fromkeys(host))}
    host_code = np.fromiter(map(servers.__getitem__, host), dtype=np.int64, count=len(host))
    none = servers.pop("", None)
    if none is not None:
        host_code = np.where(host_code == none, -1, host_code - (host_code > none))
    return CaptureColumns(
        ids, kind, descriptions, name, part, devids, np.fromiter(map(int, ports), dtype=np.int64, count=len(ports)),
        host_code, list(servers), hca, default, a, pa, b, pb, rate, rates, index)


# An HCA's description as `parse_host_description` reads it, matched on all the HCAs' at once
# (one a line): `host mlx5_N` or `host HCA-N`, or any other line whole.
_BULK_HCA = re.compile(r"^(?:[ \t]*(\S+)[ \t]+(?:mlx\d_(\d+)|HCA-(\d+))[ \t]*$|.*)", re.MULTILINE)
_AGGREGATION = re.compile("aggregation node")

Fields = tuple[np.ndarray, list[str], list[str], list[str], np.ndarray, np.ndarray]


def _fields_in_bulk(ids: list[str], kinds: list[str], descriptions: list[str]) -> Fields:
    """`_device_fields` of every block as columns (kind code, name, part, host, HCA index,
    default-named), the HCAs' descriptions matched in one pass and read as lists."""
    n = len(ids)
    kind, hca, default = np.full(n, KIND_HOST, dtype=np.int8), np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=bool)
    part, host = [""] * n, [""] * n
    name = list(descriptions)        # an HCA of a named server is named by its description
    hcas = [row for row, block in enumerate(kinds) if block != "Switch"]
    joined = "\n".join([descriptions[row] for row in hcas])
    matched = _BULK_HCA.findall(joined)
    if len(matched) != len(hcas):        # a description with a line break of its own: one by one
        hcas = []
    for row in (row for row, block in enumerate(kinds) if block == "Switch" or not hcas):
        kind[row], name[row], part[row], host[row], hca[row], default[row] = _device_fields(
            ids[row], kinds[row], descriptions[row])
    if not hcas:
        return kind, name, part, host, hca, default
    # Three passes of itemgetter: zip(*matched) would pass 135,000 tuples as arguments.
    hosts, mlx, numbered = (list(map(itemgetter(field), matched)) for field in range(3))
    rows = np.array(hcas, dtype=np.int64)
    # SHARP aggregation nodes: the HCAs whose description holds the words, found in the text.
    lowered = joined.lower()
    breaks = np.flatnonzero(np.frombuffer(lowered.encode("ascii", "replace"), dtype=np.uint8) == 10)
    aggregation = np.zeros(len(hcas), dtype=bool)
    aggregation[np.searchsorted(breaks, np.array([m.start() for m in _AGGREGATION.finditer(lowered)],
                                                 dtype=np.int64))] = True
    kind[rows[aggregation]] = KIND_AGGREGATION
    hca[rows] = list(map(int, mlx)) if all(mlx) else [int(m) if m else int(c) - 1 if c else -1
                                                       for m, c in zip(mlx, numbered, strict=True)]
    # A NIC of a named server is named by its description; the others (localhost, a default or
    # other description, aggregation nodes) by their GUID too, one by one: a few in a fabric.
    named = np.fromiter(map(bool, hosts), dtype=bool, count=len(hosts))
    if "localhost" in lowered:
        named &= np.array([h.lower() != "localhost" for h in hosts], dtype=bool)
    # Blanks inside the quotes are stripped, as parse_host_description strips them (no line
    # break other than the joins: the text is regular).
    padded = joined[:1] in (" ", "\t") or joined[-1:] in (" ", "\t") or any(
        pair in joined for pair in (" \n", "\t\n", "\n ", "\n\t"))
    if padded:
        for row in hcas:
            name[row] = descriptions[row].strip()
    for row, server, is_named in zip(hcas, hosts, named.tolist(), strict=True):
        if is_named:
            host[row] = server
    unnamed = np.flatnonzero(~named).tolist()
    # Read once per distinct description: 4,096 aggregation nodes at 131,072 GPUs share one.
    parsed = {desc: parse_host_description(desc) for desc in {descriptions[hcas[i]] for i in unnamed}}
    for i in unnamed:
        row = hcas[i]
        desc = descriptions[row]
        name[row] = f"{desc.strip() or 'HCA'} ({ids[row][2:]})"
        if hosts[i]:             # localhost: a default description
            default[row] = not aggregation[i]
        else:                    # no host named: a default description, or another
            _, hca[row], is_default = parsed[desc]
            default[row] = is_default and not aggregation[i]
    return kind, name, part, host, hca, default


def _spelled(padded: np.ndarray, at: np.ndarray, word: str) -> np.ndarray:
    """Whether the bytes at each of `at` spell `word` (ASCII), read eight at a time as one
    little-endian 64-bit number from any byte (600,000 attribute lines at 131,072 GPUs). The
    zero bytes after the text (`ports_in_bulk.PAD`, more than 16) keep every read inside."""
    eights = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    code = word.encode("ascii")
    spelled = np.ones(len(at), dtype=bool)
    for lo in range(0, len(code), 8):
        part = code[lo:lo + 8]
        mask = np.uint64((1 << 8 * len(part)) - 1)
        spelled &= (eights[at + lo] & mask) == np.uint64(int.from_bytes(part, "little"))
    return spelled


def _devids(data: bytes, padded: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The value of each `devid=` line (data[start:end], after its `=`) as `_hex` reads it, and a
    0 after them (index -1: no `devid=` line). A dump's values are few and of one width
    (`0xd2f0`): read as fixed-width bytes, each distinct one parsed once; any other dump's
    values are sliced from the text one by one."""
    width = end - start
    if len(width) and width.min() == width.max() and 0 < width[0] < 16:
        fixed = np.ascontiguousarray(sliding_window_view(padded, int(width[0]))[start])
        values, inverse = np.unique(fixed.view(f"S{int(width[0])}").ravel(), return_inverse=True)
        parsed = np.array([_hex(value.decode("ascii")) for value in values.tolist()] + [0], dtype=np.int64)
        rows: np.ndarray = parsed[np.append(inverse.ravel(), len(values))]
        return rows
    devid_text = [data[lo:hi].decode("ascii") for lo, hi in zip(start.tolist(), end.tolist(), strict=True)]
    known = {value: _hex(value) for value in set(devid_text)}
    return np.array([known[value] for value in devid_text] + [0], dtype=np.int64)


def _hex(text: str) -> int:
    """A `devid=` line's value as the line reader reads it (0 when it is no number)."""
    try:
        return int(text.strip(), 16)
    except ValueError:
        return 0


def _port_columns_of(data: bytes, size: int, padded: np.ndarray, breaks: np.ndarray, at: np.ndarray,
                     ids: list[str], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(own port, peer index, peer port) of every port line (each starting at its `[` in `at`),
    read on the bytes (`ibnetdiscover_ports`); a field wider than its windows sends the dump to
    the regular expression (`_port_columns`). None when a line is no port line, a peer has no
    block or a port number is too long (the line reader then reads the dump)."""
    block_ids = ports_in_bulk.ids_as_bytes(ids)
    if block_ids is not None:
        found = ports_in_bulk.port_columns(padded, at, block_ids)
        if not isinstance(found, str):
            return found
        if found != ports_in_bulk.TOO_WIDE:
            return None
    return _port_columns(data, size, breaks, index)


def _port_columns(data: bytes, size: int, breaks: np.ndarray, index: dict[str, int]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(own port, peer index, peer port) of every port line, in text order; None when a peer
    has no block or a port number is too long. The text is matched a few MB at a time, each
    piece's strings made into columns before the next: 800,000 port lines' strings at once
    would double the reader's memory. `data[:size]` is the text's bytes."""
    cols: list[list[np.ndarray]] = [[], [], []]
    # Pieces cut at line breaks, every _BULK_PIECE characters or so (each port line starts with one).
    near = np.searchsorted(breaks, np.arange(0, size, _BULK_PIECE))
    cuts = sorted_distinct(breaks[near[near < len(breaks)]]).tolist()
    for lo, hi in zip([0, *cuts], [*cuts, size], strict=True):
        rows = _BULK_PORT.findall(data, lo, hi) if hi > lo else []
        if not rows:
            continue
        own_ports, peer_ids, peer_ports = zip(*rows, strict=True)
        del rows
        peer = list(map(index.get, b"\n".join(peer_ids).decode("ascii").split("\n")))
        if None in peer or max(map(len, own_ports)) > 6 or max(map(len, peer_ports)) > 6:
            return None          # a peer without a block (the line reader words the error or the drop)
        cols[0].append(np.fromiter(map(int, own_ports), dtype=np.int64, count=len(own_ports)))
        cols[1].append(np.array(peer, dtype=np.int64))
        cols[2].append(np.fromiter(map(int, peer_ports), dtype=np.int64, count=len(peer_ports)))
    empty = np.zeros(0, dtype=np.int64)
    port, peers, pport = (np.concatenate(c) if c else empty for c in cols)
    return port, peers, pport


def _device_fields(node_id: str, kind: str, desc: str) -> tuple[int, str, str, str, int, bool]:
    """(kind code, name, part, host, HCA index, default-named) of a block's device."""
    if kind == "Switch":
        name, part, default = parse_switch_description(desc)
        if default:
            name = f"{desc.strip() or 'switch'} ({node_id[2:]})"
        return KIND_SWITCH, name, part, "", -1, default
    aggregation = "aggregation node" in desc.lower()
    host, hca, default = parse_host_description(desc)
    name = desc.strip() if host else f"{desc.strip() or 'HCA'} ({node_id[2:]})"
    return KIND_AGGREGATION if aggregation else KIND_HOST, name, "", host, hca, default and not aggregation


def _device(node_id: str, kind: str, desc: str, ports: int, devid: int) -> Device:
    code, name, part, host, hca, default = _device_fields(node_id, kind, desc)
    return Device(node_id, name, "switch" if code == KIND_SWITCH else "host", desc, part, devid, ports, host, hca,
                  default_named=default, aggregation=code == KIND_AGGREGATION)


# --- exporter -------------------------------------------------------------------------------

# 4x rates by generation; QDR names 40G (an FDR10 link reads back as 40G too).
_SPEED_NAME = {10: "SDR", 20: "DDR", 40: "QDR", 56: "FDR", 100: "EDR", 200: "HDR", 400: "NDR", 800: "XDR"}


@lru_cache(maxsize=64)
def _devid(catalog_id: str, kind: str) -> int:
    """The PCI device id a part reports (resources/ids/infiniband.toml); 0 where none is published."""
    found = device_ids().for_part(catalog_id, kind)
    return found.devid if found else 0


def _guid(name: str) -> str:
    return hashlib.blake2b(name.encode(), digest_size=8).hexdigest()


def _rate(gbps: int) -> str:
    if gbps in _SPEED_NAME:
        return f"4x{_SPEED_NAME[gbps]}"
    if gbps * 2 in _SPEED_NAME:             # NDR200, HDR100: two lanes
        return f"2x{_SPEED_NAME[gbps * 2]}"
    raise ValueError(f"{gbps}G links have no InfiniBand speed name")


def _part(switch: Switch) -> str:
    """The part as the description's last field: a catalog's part number is the user's text, so
    anything but letters, digits and '.', '_', '+' is written as '_' (a quote, a newline or a
    NUL would end the description or the line, or make the file binary)."""
    return _DESCRIPTION_UNSAFE.sub("_", (switch.part_number or switch.id.upper()).split("-")[0]) or "_"


_DESCRIPTION_UNSAFE = re.compile(r"[^A-Za-z0-9._+]", re.ASCII)


def export_ibnetdiscover(derived: Derived, aggregation_nodes: bool = True,
                         host_name: Callable[[int], str] | None = None) -> str:
    """The text that ibnetdiscover would print for the design's fabric (see `ibnetdiscover_lines`)."""
    return "".join(ibnetdiscover_chunks(derived, aggregation_nodes, host_name))


def ibnetdiscover_chunks(derived: Derived, aggregation_nodes: bool = True,
                         host_name: Callable[[int], str] | None = None) -> Iterator[str]:
    """The text that ibnetdiscover would print for the design's fabric, in chunks of a few
    thousand lines, read from the plan's wiring (model/topology/wiring.py): the device graph is
    never built, and only one switch's ports are held at a time.

    Switches are described `MF0;<device id>:<part>/U1`, NIC ports `<host> mlx5_<i>` (one CA per
    NIC port, as on DGX systems), the host named by `host_name(server index)` (the export's node
    pattern) or `srv-N`. Switches with in-network reduction get a SHARP aggregation
    node CA on the port after their last one. GUIDs are digests of the device ids, so the same
    design always gives the same text.
    """
    r = derived.resolved
    if r.family != "infiniband":
        raise ValueError(f"ibnetdiscover describes InfiniBand fabrics; this design is {r.technology.id}")
    w = Wiring(derived.design, r, derived.plan)
    alive = [node for node in range(w.n) if node not in w.removed] if w.removed else range(w.n)
    names = [w.name(node) if node < w.n_switches else "" for node in range(w.n)]
    nic_names = _nic_names(w)
    for node in range(w.n_switches, w.n):
        names[node] = nic_names[node - w.n_switches]
    prefix = f"{derived.design.meta.name}/"
    blake2b = hashlib.blake2b     # as _guid, inline: one digest per device, 272,000 at 131K GPUs
    guid = [blake2b(f"{prefix}{name}".encode(), digest_size=8).hexdigest() for name in names]
    levels = w.pairs.level.tolist() + [0] * (w.n - w.n_switches)
    lid = [0] * w.n
    # LIDs from the top tier down, by name within a tier; endpoints (level 0, after every
    # switch) sorted on their own by name alone
    by_name = names.__getitem__
    order = sorted((v for v in alive if v < w.n_switches), key=lambda v: (-levels[v], names[v]))
    order += sorted((v for v in alive if v >= w.n_switches), key=by_name)
    for k, node in enumerate(order):
        lid[node] = k + 1
    lids = len(alive)
    model = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    vendid = device_ids().vendid
    # The design name is the user's: one line, no controls, so it cannot leave the comment.
    out = ["#", f"# Topology file: exported by Fabric Designer for \"{one_line(derived.design.meta.name, 120)}\""]
    # Say which parts have no published device id, rather than print a made-up one.
    roles = {w.role(node) for node in range(w.n_switches) if w.alive(node)}
    if any(w.alive(node) for node in range(w.n_switches, w.n)):
        roles.add("nic")
    unknown = [f"{part.name} switch" for part in dict.fromkeys(m for n, m in model.items() if n in roles)
               if not _devid(part.id, "switch")]
    if aggregation_nodes and any(m.in_network_reduction and not _devid(m.id, "aggregation") for m in model.values()):
        unknown.append("SHARP aggregation nodes")
    if not _devid(r.nic.id, "hca"):
        unknown.append(f"{r.nic.name} HCAs")
    if unknown:
        out.append(f"# devid=0x0000: no published PCI device id for {', '.join(unknown)}")
    out += ["#", ""]
    # The text is its lines joined by line breaks; each chunk after the first starts with one.
    yield "\n".join(out)

    # Every device's description, and what a switch's port line says of it as a peer.
    part = {role: _part(m) for role, m in model.items()}
    desc = [f"MF0;{names[v]}:{part[w.role(v)]}/U1" for v in range(w.n_switches)]
    hosts = [host_name(server) if host_name else f"srv-{server + 1}" for server in range(w.endpoints // w.rails)]
    desc += [f"{host} mlx5_{plane * w.rails + rail}" for plane in range(w.planes) for host in hosts
             for rail in range(w.rails)]
    head = [f'\t"S-{guid[v]}"[' for v in range(w.n_switches)] + [f'\t"H-{guid[v]}"[' for v in range(w.n_switches, w.n)]
    tail = [f']\t\t# "{desc[v]}" lid {lid[v]} ' for v in range(w.n_switches)] + \
        [f']({guid[v]})\t\t# "{desc[v]}" lid {lid[v]} ' for v in range(w.n_switches, w.n)]

    def ends(node: int) -> tuple[list[int], list[int], list[int], list[int]]:
        """(own ports, peers, peer ports, Gb/s) of every link at the device, by own port."""
        peers, own, other, gbps = w.ports(node)
        if len(own) > 1 and not (own[1:] > own[:-1]).all():
            order = np.argsort(own, kind="stable")
            peers, own, other, gbps = peers[order], own[order], other[order], gbps[order]
            if not (own[1:] > own[:-1]).all():    # two links on one port: as the graph sorted them
                rows = sorted(zip(own.tolist(), peers.tolist(), other.tolist(), gbps.tolist(), strict=True),
                              key=lambda row: (row[0], names[row[1]], row[2], row[3]))
                return [list(col) for col in zip(*rows, strict=True)]  # type: ignore[return-value]
        return own.tolist(), peers.tolist(), other.tolist(), gbps.tolist()

    rates: dict[int, str] = {}

    def rate(gbps: int) -> str:
        found = rates.get(gbps)
        if found is None:
            found = rates[gbps] = _rate(gbps)
        return found

    switches = sorted((node for node in range(w.n_switches) if w.alive(node)),
                      key=lambda v: (-levels[v], w.plane(v), w.local(v)))
    aggregators = []
    chunk: list[str] = []
    for n in switches:
        sw = model[w.role(n)]
        own, peers, other, gbps = ends(n)
        ports = max(sw.ports_at(r.uplink_gbps), sw.ports_at(r.link_gbps), own[-1] if own else 0)
        own_vendor = device_ids().for_part(sw.id, "switch")   # Voltaire boxes report their own vendor id
        chunk += [f"vendid=0x{(own_vendor.vendid if own_vendor else 0) or vendid:x}",
                  f"devid=0x{_devid(sw.id, 'switch'):04x}", f"sysimgguid=0x{guid[n]}",
                  f"switchguid=0x{guid[n]}({guid[n]})",
                  f'Switch\t{ports + 1 if aggregation_nodes and sw.in_network_reduction else ports} "S-{guid[n]}"'
                  f'\t\t# "{desc[n]}" enhanced port 0 lid {lid[n]} lmc 0']
        speeds = set(gbps)
        if len(speeds) == 1:
            speed = rate(gbps[0])
            chunk += [f"[{o}]{head[p]}{q}{tail[p]}{speed}" for o, p, q in zip(own, peers, other, strict=True)]
        else:
            chunk += [f"[{o}]{head[p]}{q}{tail[p]}{rate(g)}"
                      for o, p, q, g in zip(own, peers, other, gbps, strict=True)]
        if aggregation_nodes and sw.in_network_reduction:
            agg = _guid(f"sharp/{guid[n]}")
            aggregators.append((n, ports + 1, agg, _devid(sw.id, "aggregation")))
            chunk.append(f'[{ports + 1}]\t"H-{agg}"[1]({agg})\t\t# "Mellanox Technologies Aggregation Node" '
                         f'lid {lids + len(aggregators)} {rate(r.uplink_gbps)}')
        chunk.append("")
        if len(chunk) > 20000:
            yield "\n" + "\n".join(chunk)
            chunk = []
    hca_devid = _devid(r.nic.id, "hca")
    nic_head = f"vendid=0x{vendid:x}\ndevid=0x{hca_devid:04x}\nsysimgguid=0x"
    edited = w.edited
    leaf_rate = rate(r.link_gbps) if w.endpoints else ""
    leaf_of, port_of = w.leaf_of.tolist(), w.port_of.tolist()   # read per NIC: lists, not numpy scalars
    for n in _nics_by_server(w):
        g = guid[n]
        block = f'{nic_head}{g}\ncaguid=0x{g}\nCa\t1 "H-{g}"\t\t# "{desc[n]}"'
        if n in edited:
            own, peers, other, gbps = ends(n)
            chunk.append(block)
            chunk += [f'[{o}]({g})\t"S-{guid[p]}"[{q}]\t\t# lid {lid[n]} lmc 0 "{desc[p]}" lid {lid[p]} {rate(s)}'
                      for o, p, q, s in zip(own, peers, other, gbps, strict=True)]
            chunk.append("")
        else:   # the template's one link, to its leaf
            idx = (n - w.n_switches) % w.endpoints
            leaf = w.switch(w.plane(n), "leaf", leaf_of[idx])
            chunk.append(f'{block}\n[1]({g})\t"S-{guid[leaf]}"[{port_of[idx]}]\t\t# lid {lid[n]} lmc 0 '
                         f'"{desc[leaf]}" lid {lid[leaf]} {leaf_rate}\n')
        if len(chunk) > 20000:
            yield "\n" + "\n".join(chunk)
            chunk = []
    for i, (n, port, agg, agg_devid) in enumerate(aggregators):
        chunk += [f"vendid=0x{vendid:x}", f"devid=0x{agg_devid:04x}", f"sysimgguid=0x{agg}", f"caguid=0x{agg}",
                  f'Ca\t1 "H-{agg}"\t\t# "Mellanox Technologies Aggregation Node"',
                  f'[1]({agg})\t"S-{guid[n]}"[{port}]\t\t# lid {lids + i + 1} lmc 0 "{desc[n]}" '
                  f'lid {lid[n]} {rate(r.uplink_gbps)}', ""]
    if chunk:
        yield "\n" + "\n".join(chunk)


def _nic_names(w: Wiring) -> list[str]:
    """`srv-N.nic-P` of every endpoint, in the wiring's order (plane by plane, server, rail)."""
    return [f"srv-{server + 1}.nic-{plane * w.rails + rail + 1}" for plane in range(w.planes)
            for server in range(w.endpoints // w.rails) for rail in range(w.rails)]


def _nics_by_server(w: Wiring) -> Iterator[int]:
    """The endpoints left, by server and NIC port (as the graph's `server` and `port` sort them)."""
    for server in range(w.endpoints // w.rails):
        for plane in range(w.planes):
            first = w.nic(plane, server * w.rails)
            for node in range(first, first + w.rails):
                if node not in w.removed:
                    yield node


def write_ibnetdiscover(design: FabricDesign, path: str | os.PathLike[str], catalog: Catalog | None = None) -> None:
    """Write the design as an ibnetdiscover dump, atomically."""
    write_atomic(path, export_ibnetdiscover(derive(design, catalog or default_catalog())))
