"""The bulk ibnetdiscover reader gives the fabric the line reader gives, on any dump.

`parse_ibnetdiscover` reads a regular dump (every line one the format defines, starting its
line) in bulk and any other line by line. Dumps here are exports of small designs, then damaged
the ways real dumps are: stray and indented lines, comments, port lines before any block or
after `vendid=`, the two ends of a cable reading different rates, a rate only inside the
description, duplicated or dropped lines, capitalised attributes, Windows line breaks.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from unittest.mock import patch

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io import ibnetdiscover
from designer.io.fabric_capture import load_capture, parse_capture
from designer.io.ibnetdiscover import (
    CaptureError,
    export_ibnetdiscover,
    parse_ibnetdiscover,
    parse_lines,
    parse_regular,
    read_in_bulk,
)
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec
from designer.model.topology.derive import derive


def _designs() -> list[str]:
    out = []
    for servers, template, tiers in ((4, "rail-optimized", 2), (12, "fat-tree", 2), (20, "rail-optimized", 3)):
        design = FabricDesign(cluster=ClusterSpec(servers=servers), fabric=FabricSpec(template=template, tiers=tiers))
        out.append(export_ibnetdiscover(derive(design)))
    edited = FabricDesign(cluster=ClusterSpec(servers=8), fabric=FabricSpec(template="rail-optimized"))
    g = derive(edited).graph
    u, v = sorted(g.edges())[3]
    out.append(export_ibnetdiscover(derive(FabricDesign(cluster=edited.cluster, fabric=edited.fabric,
                                                        edits=(Edit("remove-links", u, v),)))))
    return out


_TEXTS = _designs()


def _damage(lines: list[str], rnd: random.Random, kinds: list[str]) -> list[str]:
    out = list(lines)
    for kind in kinds:
        i = rnd.randrange(len(out))
        line = out[i]
        if kind == "stray":
            out.insert(i, "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1)")
        elif kind == "indent":
            out[i] = "  " + line
        elif kind == "comment":
            out.insert(i, "# a comment")
        elif kind == "blank":
            out.insert(i, "")
        elif kind == "duplicate":
            out.insert(i, line)
        elif kind == "drop":
            del out[i]
        elif kind == "slower" and line.startswith("["):
            out[i] = line.replace("4xNDR", "1xSDR").replace("4xHDR", "2xHDR")
        elif kind == "rate-in-name" and line.startswith("["):
            out[i] = line.replace('# "', '# "4xQDR ', 1)
        elif kind == "no-rate" and line.startswith("["):
            out[i] = line.rsplit(" ", 1)[0]
        elif kind == "upper" and "=" in line and not line.startswith("["):
            out[i] = line.split("=", 1)[0].upper() + "=" + line.split("=", 1)[1]
        elif kind == "vendid-gap":
            out.insert(i, "vendid=0x2c9")
        elif kind == "orphan-port":
            out.insert(0, '[1]\t"S-0000000000000001"[2]\t\t# "x" lid 1 4xNDR')
        elif kind == "bad-devid" and line.startswith("devid="):
            out[i] = "devid=zz"
        elif kind == "devid-other" and line.startswith("devid="):
            # as wide as the exporter's values (read as fixed-width bytes), any of them
            out[i] = "devid=" + rnd.choice(["0x1b2c", "0xzzzz", " 0x12 ", "123456", "0XD2F0"])
        elif kind == "misspelt":         # vendld=, switchguld=: a line of no kind, in any attribute
            attributes = [k for k, text in enumerate(out) if "id=" in text and not text.startswith("[")]
            k = rnd.choice(attributes)
            out[k] = out[k].replace("id=", "ld=", 1)
        elif kind == "crlf":
            out[i] = line + "\r"
        elif kind == "tab-blank":
            out.insert(i, "\t")
        elif kind == "big-port" and line.startswith("["):
            out[i] = "[99999999999]" + line[line.index("]") + 1:]
    return out


def _read(reader, text):
    try:
        fabric = reader(text, "dump")
    except CaptureError as exc:
        return ("error", str(exc))
    return (list(fabric.devices.items()), fabric.links, fabric.notes, fabric.speeds_simulated)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9),
       st.lists(st.sampled_from(["stray", "indent", "comment", "blank", "duplicate", "drop", "slower",
                                 "rate-in-name", "no-rate", "upper", "vendid-gap", "orphan-port", "bad-devid",
                                 "devid-other", "misspelt", "crlf", "tab-blank", "big-port"]), max_size=4),
       st.booleans(), st.sampled_from([61, 1000, 4 * 2**20]))
def test_bulk_and_line_readers_give_the_same_fabric(which, seed, kinds, trailing_break, piece):
    lines = _damage(_TEXTS[which].split("\n"), random.Random(seed), kinds)
    text = "\n".join(lines) + ("\n" if trailing_break else "")
    expected = _read(parse_lines, text)
    with patch.object(ibnetdiscover, "_BULK_PIECE", piece):
        assert _read(parse_ibnetdiscover, text) == expected
        bulk = parse_regular(text, "dump") if expected[0] != "error" else None
    if bulk is not None:
        assert (list(bulk.devices.items()), bulk.links, bulk.notes, bulk.speeds_simulated) == expected


_DAMAGE = ["stray", "indent", "comment", "blank", "duplicate", "drop", "slower", "rate-in-name", "no-rate", "upper",
           "vendid-gap", "orphan-port", "bad-devid", "devid-other", "misspelt", "crlf", "tab-blank", "big-port"]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9), st.lists(st.sampled_from(_DAMAGE), max_size=4),
       st.booleans(), st.sampled_from(["", "\x00", "é", "  "]))
def test_a_capture_file_read_on_its_bytes_is_its_text_read(which, seed, kinds, trailing_break, extra):
    """`load_capture` reads a regular dump's bytes without decoding them (`read_in_bulk`) and any
    other file as text: the same fabric, or the same one-line message, either way."""
    lines = _damage(_TEXTS[which].split("\n"), random.Random(seed), kinds)
    if extra:       # a zero byte, a non-ASCII letter or an indent in some line
        i = random.Random(seed).randrange(len(lines))
        lines[i] = extra + lines[i]
    text = "\n".join(lines) + ("\n" if trailing_break else "")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dump.topo"
        path.write_bytes(text.encode("utf-8"))
        source = str(path)
        try:
            expected = _read(lambda t, s: parse_capture(t, s), text) if "\x00" not in text[:65536] else None
        except CaptureError as exc:      # a message quoting the source: compared below
            expected = ("error", str(exc))
        got = _read(lambda t, s: load_capture(path), text)
        if expected is None:
            assert got == ("error", f"{source}: binary data, not a fabric capture")
        else:
            # parse_capture was given the text under the name "dump"; load_capture names its file
            assert got == (expected if expected[0] != "error" else ("error", expected[1].replace("dump", source, 1)))
        bulk = read_in_bulk(text.encode("utf-8"), "dump")
        assert bulk is None or _read(lambda t, s: bulk, text) == _read(parse_ibnetdiscover, text)
        if text.isascii() and "\x00" not in text and parse_regular(text, "dump") is not None:
            assert bulk is not None           # every regular dump is read on its bytes


@pytest.mark.parametrize("which", range(len(_TEXTS)))
@pytest.mark.parametrize("piece", [97, 4096, None])
def test_an_export_is_read_in_bulk(which, piece, monkeypatch):
    """The exporter's dumps are regular: the bulk reader takes them, not the line reader, in
    pieces of any size (a 131,072-GPU dump is matched a few MB at a time)."""
    if piece is not None:
        monkeypatch.setattr(ibnetdiscover, "_BULK_PIECE", piece)
    text = _TEXTS[which]
    bulk = parse_regular(text, "dump")
    assert bulk is not None and bulk.links
    assert _read(lambda t, s: bulk, text) == _read(parse_lines, text)


def test_a_stray_line_sends_the_dump_to_the_line_reader():
    text = _TEXTS[0].replace("\nvendid=", "\nibwarn: mad_rpc failed\nvendid=", 1)
    assert parse_regular(text, "dump") is None
    assert parse_ibnetdiscover(text, "dump").notes == ["1 line(s) that are not part of the ibnetdiscover format "
                                                       "were skipped"]


@pytest.mark.parametrize("word", ["vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid="])
@pytest.mark.parametrize("at", [0, 4, -3])
def test_a_misspelt_attribute_is_read_as_the_line_reader_reads_it(word, at):
    """An attribute line spelt wrong at any letter (the bulk reader compares eight bytes at a
    time) is a line of no kind: skipped and counted, whichever reader reads the dump."""
    text = _TEXTS[0]
    wrong = word[:at] + "X" + word[at:][1:]
    assert len(wrong) == len(word) and wrong != word
    damaged = text.replace("\n" + word, "\n" + wrong, 1)
    expected = _read(parse_lines, damaged)
    assert "skipped" in " ".join(expected[2])
    assert _read(parse_ibnetdiscover, damaged) == expected
