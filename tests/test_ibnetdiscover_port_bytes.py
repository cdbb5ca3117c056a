"""The port lines read on the bytes (`io/ibnetdiscover_ports.py`) give the fabric the regular
expression and the line reader give, on port lines damaged field by field.

Each field of a port line is read as a run of bytes of one class: the damage here lengthens,
shortens, empties or breaks each one (port numbers with leading zeros or too many digits, GUIDs
of any length and case, blanks of any width, a missing bracket, quote or `#`, a peer without a
block). Whatever the bytes accept must read as the line reader reads it; what they cannot read
(a field wider than their windows) goes to the regular expression, which must agree too.
"""

from __future__ import annotations

import random
import re
from unittest.mock import patch

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io import ibnetdiscover, ibnetdiscover_ports
from designer.io.ibnetdiscover import (
    CaptureError,
    export_ibnetdiscover,
    parse_ibnetdiscover,
    parse_lines,
    parse_regular,
)
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive

_TEXTS = [export_ibnetdiscover(derive(FabricDesign(cluster=ClusterSpec(servers=servers),
                                                   fabric=FabricSpec(template=template, tiers=2))))
          for servers, template in ((4, "rail-optimized"), (12, "fat-tree"))]

_DAMAGE = ["port-zeros", "port-six", "port-seven", "port-empty", "no-close", "guid-gone", "guid-empty",
           "guid-long", "guid-upper", "guid-short", "peer-long", "peer-upper", "peer-zero", "peer-kind",
           "peer-dash", "peer-quote", "blanks-one", "blanks-wide", "blanks-none", "space-before-hash",
           "no-hash", "pport-zeros", "pport-seven", "unknown-peer", "peer-guid-gone", "peer-short", "peer-not-hex"]


def _damage_line(line: str, kind: str, rnd: random.Random) -> str:
    """The line with one field damaged (as it is when an earlier damage left no such field)."""
    try:
        return _damage_field(line, kind, rnd)
    except ValueError:
        return line


def _damage_field(line: str, kind: str, rnd: random.Random) -> str:
    head, _, rest = line.partition("]")           # "[port", rest after the first "]"
    port = head[1:]
    peer_at = line.index('"')
    peer_end = line.index('"', peer_at + 1)
    peer = line[peer_at + 1:peer_end]             # S-guid
    after = line[peer_end + 1:]                   # [pport](guid)\t\t# ...
    before = line[:peer_at]                       # [port](guid)\t
    lead = before.rstrip(" \t")
    if kind == "port-zeros":
        return "[00" + port + "]" + rest
    if kind == "port-six":
        return "[" + port.zfill(6) + "]" + rest
    if kind == "port-seven":
        return "[" + port.zfill(7) + "]" + rest
    if kind == "port-empty":
        return "[]" + rest
    if kind == "no-close":
        return "[" + port + rest
    if kind == "guid-gone" and "(" in lead:
        return lead[:lead.index("(")] + "\t" + line[peer_at:]
    if kind == "guid-empty" and "(" in lead:
        return lead[:lead.index("(")] + "()\t" + line[peer_at:]
    if kind == "guid-long" and "(" in lead:
        return lead[:-1] + "abcdef0123" + ")\t" + line[peer_at:]
    if kind == "guid-upper" and "(" in lead:
        return lead.upper() + "\t" + line[peer_at:]
    if kind == "guid-short" and "(" in lead:
        return lead[:lead.index("(") + 1] + "1)\t" + line[peer_at:]
    if kind == "peer-long":
        return before + '"' + peer + "0" * rnd.choice([1, 4, 5, 9]) + '"' + after
    if kind == "peer-short":          # an id of fewer digits than ibnetdiscover's 16
        return before + '"' + peer[:-rnd.choice([1, 8, 14])] + '"' + after
    if kind == "peer-not-hex":
        at = rnd.randrange(2, len(peer))
        return before + '"' + peer[:at] + rnd.choice("gx-") + peer[at + 1:] + '"' + after
    if kind == "peer-upper":
        return before + '"' + peer.upper() + '"' + after
    if kind == "peer-zero":
        return before + '"' + peer[:2] + "0" + peer[2:] + '"' + after
    if kind == "peer-kind":
        return before + '"X' + peer[1:] + '"' + after
    if kind == "peer-dash":
        return before + '"' + peer[0] + peer[2:] + '"' + after
    if kind == "peer-quote":
        return before + '"' + peer + after
    if kind == "blanks-one":
        return lead + " " + line[peer_at:]
    if kind == "blanks-wide":
        return lead + "\t" * rnd.choice([7, 8, 9, 20]) + line[peer_at:]
    if kind == "blanks-none":
        return lead + line[peer_at:]
    if kind == "space-before-hash":
        return line.replace("\t\t#", " " * rnd.choice([0, 1, 8, 12]) + "#", 1)
    if kind == "no-hash":
        return line.replace("#", "", 1)
    if kind == "pport-zeros":
        return before + '"' + peer + '"[0' + after[1:]
    if kind == "pport-seven":
        close = after.index("]")
        return before + '"' + peer + '"[' + after[1:close].zfill(7) + after[close:]
    if kind == "unknown-peer":
        return before + '"' + peer[:2] + "f" * (len(peer) - 2) + '"' + after
    if kind == "peer-guid-gone" and after.startswith("[") and "](" in after.split("#")[0]:
        close = after.index("]")
        return before + '"' + peer + '"' + after[:close + 1] + after[after.index(")") + 1:]
    return line


def _read(reader, text):
    try:
        fabric = reader(text, "dump")
    except CaptureError as exc:
        return ("error", str(exc))
    return (list(fabric.devices.items()), list(fabric.links), fabric.notes, fabric.speeds_simulated)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9),
       st.lists(st.sampled_from(_DAMAGE), min_size=1, max_size=3), st.booleans())
def test_damaged_port_lines_read_as_the_line_reader_reads_them(which, seed, kinds, every_line):
    rnd = random.Random(seed)
    lines = _TEXTS[which].split("\n")
    ports = [i for i, line in enumerate(lines) if line.startswith("[")]
    for kind in kinds:
        # One line damaged, or every port line alike (a dump another tool printed its own way).
        for i in ports if every_line else [rnd.choice(ports)]:
            lines[i] = _damage_line(lines[i], kind, rnd)
    text = "\n".join(lines) + "\n"
    expected = _read(parse_lines, text)
    assert _read(parse_ibnetdiscover, text) == expected
    bulk = parse_regular(text, "dump") if expected[0] != "error" else None
    if bulk is not None:
        assert _read(lambda t, s: bulk, text) == expected
        # The regular expression, given the same lines, reads the same columns.
        with patch.object(ibnetdiscover_ports, "port_columns", lambda *args: ibnetdiscover_ports.TOO_WIDE):
            assert _read(lambda t, s: parse_regular(t, s), text) == expected


def test_an_export_is_read_on_the_bytes_not_the_regular_expression():
    """The exporter's port lines fit the byte reader's windows: the regular expression is not used."""
    def refuse(*args):
        raise AssertionError("the regular expression read the port lines")

    for text in _TEXTS:     # and their ids, of 16 digits, as two numbers and a letter each
        with patch.object(ibnetdiscover, "_port_columns", refuse), patch.object(ibnetdiscover_ports, "_peer_rows",
                                                                               refuse):
            bulk = parse_regular(text, "dump")
        assert bulk is not None and _read(lambda t, s, read=bulk: read, text) == _read(parse_lines, text)


@pytest.mark.parametrize("digits", [2, 12, 15, 17, 19])
def test_ids_of_another_width_are_read_on_the_bytes(digits):
    """A dump whose ids are not of ibnetdiscover's 16 digits (one device's, everywhere it is
    named, or every device's) is read byte by byte, not by the 16-digit reading, and gives the
    line reader's fabric."""
    text = _TEXTS[0]
    ids = list(dict.fromkeys(re.findall(r'"([SH]-[0-9a-f]{16})"', text)))
    for k, old in enumerate(ids if digits != 15 else ids[:1]):
        text = text.replace(old[2:], f"{k:0{digits}x}"[-digits:] if digits < 16 else f"{k:0{digits}x}")
    assert text != _TEXTS[0]

    def refuse(*args):
        raise AssertionError("the regular expression read the port lines")

    with patch.object(ibnetdiscover, "_port_columns", refuse):
        bulk = parse_regular(text, "dump")
    expected = _read(parse_lines, text)
    assert expected[0] != "error" and bulk is not None and _read(lambda t, s: bulk, text) == expected


def test_a_wide_guid_goes_to_the_regular_expression():
    lines = _TEXTS[0].split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("[") and line.split('"')[0].rstrip().endswith(")"))
    lines[at] = _damage_line(lines[at], "guid-long", random.Random(0))
    assert "abcdef0123" in lines[at]
    text = "\n".join(lines)
    called = []
    original = ibnetdiscover._port_columns

    def spy(*args):
        called.append(True)
        return original(*args)

    with patch.object(ibnetdiscover, "_port_columns", spy):
        bulk = parse_regular(text, "dump")
    assert called and bulk is not None
    assert _read(lambda t, s: bulk, text) == _read(parse_lines, text)
