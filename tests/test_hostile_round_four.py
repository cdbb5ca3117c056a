"""Hostile input, round four: deep LLDP and TOML, dangling capture references, binary sizes,
folders as input, newline-terminated patterns, catalog text in exports, names on the terminal,
memory estimated before it is spent, folder exports replaced as a set, early refusals."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import examples, superpod
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import CatalogError, load_catalog
from designer.catalog.loader import BUILTIN_DIR
from designer.cli.main import main
from designer.io.atomic import STALE_AFTER_S, remove_stale_temporaries, write_atomic, write_folder_atomic
from designer.io.fabric_capture import CaptureError, parse_capture
from designer.io.ibnetdiscover import export_ibnetdiscover
from designer.io.project import save_design
from designer.limits import (
    InputError,
    check_depth,
    load_json_documents,
    memory_budget,
    terminal_lines,
    terminal_text,
)
from designer.model.common.units import parse_size
from designer.model.decisions.interruptions import RateTableError, load_rates
from designer.model.physical.closed_form_bom import cage_slots
from designer.model.topology.derive import derive

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dgx-h100-superpod-1su.json"


def cli(capsys, *args) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# --- 1, 2: one capped parse -----------------------------------------------------------------------

def test_a_100000_deep_lldp_json_is_one_line():
    with pytest.raises(CaptureError, match="nested more than 64 levels"):
        parse_capture('{"lldp": ' + "[" * 100_000 + "]" * 100_000 + "}", "d.json")


def test_a_truncated_string_full_of_escaped_quotes_is_read_in_linear_time():
    # Once quadratic: every escaped quote after an unterminated string restarted the scan.
    text = '[{"hostname": "a", "data": "' + '\\"x' * 200_000
    with pytest.raises(InputError, match="not valid JSON"):
        load_json_documents(text, "t.json")


@pytest.mark.parametrize("depth, refused", [(64, False), (65, True)])
def test_depth_is_counted_outside_strings_only(depth, refused):
    text = '{"a": "[[[{{{", "b": ' + "[" * (depth - 1) + '"]]]"' + "]" * (depth - 1) + "}"
    if refused:
        with pytest.raises(InputError, match="levels deep"):
            check_depth(text, "s")
    else:
        check_depth(text, "s")


def test_unclosed_brackets_count_as_levels():
    with pytest.raises(InputError, match="levels deep"):
        check_depth("[" * 65, "s")


@settings(max_examples=examples(60), deadline=None)
@given(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=20))
def test_depth_agrees_with_the_parsed_tree(value):
    def depth(v) -> int:
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    text = json.dumps(value)
    for limit in (depth(value), depth(value) - 1):
        if limit < 0:
            continue
        if depth(value) > limit:
            with pytest.raises(InputError):
                check_depth(text, "s", limit)
        else:
            check_depth(text, "s", limit)


def test_a_capture_of_several_documents_keeps_a_repeated_key_and_refuses_nan():
    docs = load_json_documents('{"a": 1, "a": 2}\n{"b": 3}', "c", duplicate_keys=True, walk=False)
    assert docs == [{"a": 2}, {"b": 3}]
    with pytest.raises(InputError, match="finite"):
        load_json_documents('{"a": NaN}', "c", walk=False)
    with pytest.raises(InputError, match="lone surrogate"):
        load_json_documents('{"a": "\\udc80"}', "c", walk=False)
    assert load_json_documents('{"a": "\\ud83d\\ude00"}', "c", walk=False) == [{"a": "\U0001f600"}]


def test_a_value_count_above_the_cap_is_refused_before_parsing():
    with pytest.raises(InputError, match="more than 10 values"):
        check_depth("[" + "0," * 11 + "0]", "v", max_values=10)


@pytest.mark.parametrize("body, match", [
    ("label = " + "[" * 100_000 + "]" * 100_000, "levels deep"),
    ('label = nan\napplies_to = "links"\nper = "link-month"\nvalue = 1', "finite"),
    ('label = "a"\napplies_to = "links"\nper = []\nvalue = 1', "per must be text"),
    ('label = 5\napplies_to = "links"\nper = "link-month"\nvalue = 1', "label must be text"),
])
def test_the_rate_table_goes_through_the_capped_parse(tmp_path, body, match):
    path = tmp_path / "r.toml"
    path.write_text('[[rate]]\nid = "x"\n' + body + "\n")
    with pytest.raises(RateTableError, match=match):
        load_rates(path)


# --- 3: dangling references -----------------------------------------------------------------------------

def test_a_port_line_to_a_device_without_a_block_is_left_out_with_a_note():
    text = export_ibnetdiscover(derive(superpod(1)))
    at = text.index("\n[")
    fabric = parse_capture(text[:at] + '\n[1]\t"H-ffff"[1]\t# x' + text[at:], "c.topo")
    assert all(link.a in fabric.devices and link.b in fabric.devices for link in fabric.links)
    assert any("H-ffff" in note and "left out" in note for note in fabric.notes)


def test_import_and_audit_of_a_dangling_peer_state_it_on_one_line(tmp_path, capsys):
    text = export_ibnetdiscover(derive(superpod(1)))
    at = text.index("\n[")
    capture = tmp_path / "c.topo"
    capture.write_text(text[:at] + '\n[1]\t"H-ffff"[1]\t# x' + text[at:])
    code, out, err = cli(capsys, "audit", capture, "--json")
    assert code == 0 and json.loads(out)
    assert [ln for ln in err.splitlines() if "H-ffff" in ln] == [
        "fabric-designer audit: note: 1 link(s) to 1 device(s) the capture does not describe were left out "
        "(first H-ffff)"]


# --- 4, 6, smaller: numbers and patterns ------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [("8Gi", 8 * 2**30), ("1Mi", 2**20), ("8Ti", 8 * 2**40), ("8GiB", 8 * 2**30),
                                         ("8G", 8 * 2**30), ("64k", 64 * 1024), ("3B", 3), ("5", 5)])
def test_binary_sizes(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["８M", "８Gi", "8Gi\nx", "\u0664M", "8Xi", ""])
def test_sizes_in_anything_but_plain_digits_are_refused(text):
    with pytest.raises(ValueError):
        parse_size(text)


@pytest.mark.parametrize("args", [
    ["render", EXAMPLE, "-o", "x.png", "--dpi", "７２"],
    ["new", "--gpus", "64", "--speed", "４００G", "-o", "x.json"],
    ["collectives", EXAMPLE, "--size", "８M"],
    ["export", EXAMPLE, "-f", "slurm-tree", "-o", "x.conf", "--view", "su:１"],
    ["render", EXAMPLE, "-o", "x.svg", "--view", "su:１"],
    ["gui", "--screenshot", "x.png", "--size", "１６００x1000"],
    ["grow", EXAMPLE, "--phases", "４,8"],
    ["collectives", EXAMPLE, "--params", "7e9", "--compute-ms", "１"],
])
def test_full_width_digits_are_refused_by_every_numeric_option(tmp_path, capsys, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "plain digits" in err or "malformed" in err
    assert list(tmp_path.iterdir()) == []


def test_a_node_pattern_with_a_trailing_newline_is_refused(tmp_path, capsys):
    code, _, err = cli(capsys, "export", EXAMPLE, "-f", "ndt", "-o", tmp_path / "n.csv", "--node-pattern", "gpu{n}\n")
    assert code == 1 and "node-name pattern" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "n.csv").exists()


# --- 5: a folder as input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["metrics"], ["audit"], ["import", "-o", "x.json"]])
def test_a_folder_as_input_is_named_as_the_folder(tmp_path, capsys, command):
    folder = tmp_path / "dir"
    folder.mkdir()
    code, _, err = cli(capsys, command[0], folder, *command[1:])
    assert code == 1 and f"{folder}: is a folder" in err and "Errno" not in err


# --- 7, 8: user text in files and on the terminal ---------------------------------------------------------

def test_a_catalog_part_number_with_a_newline_is_refused(tmp_path):
    text = (BUILTIN_DIR / "switches.toml").read_text(encoding="utf-8")
    first = text.index("[[switch]]")
    entry = re.sub(r'part_number = "[^"]*"', 'part_number = "X\\\\nvendid=0x1"',
                   text[first:text.index("[[switch]]", first + 1)])
    assert "vendid" in entry
    (tmp_path / "evil.toml").write_text(entry)
    with pytest.raises(CatalogError, match="part_number: holds a control character"):
        load_catalog(BUILTIN_DIR, tmp_path)


def test_terminal_text_escapes_every_control_character():
    assert terminal_text("x\nBis\x1b[2J\x9b\u2028é") == "x\\nBis\\x1b[2J\\x9b\\u2028é"
    assert terminal_lines("a\nb\tc\x1b[2J\r") == "a\nb\tc\\x1b[2J\\r"


@pytest.mark.parametrize("command", [["metrics"], ["collectives"], ["compare", EXAMPLE]])
def test_a_design_name_cannot_forge_a_line_or_clear_the_screen(tmp_path, capsys, command):
    doc = json.loads(EXAMPLE.read_text())
    doc["design"]["meta"]["name"] = "x\nBisection   999 Tb/s\x1b[2J"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    code, out, _ = cli(capsys, command[0], path, *command[1:])
    assert code == 0
    assert "\x1b" not in out and not any(line.startswith("Bisection   999") for line in out.splitlines())
    assert "x\\nBisection   999 Tb/s\\x1b[2J" in out


def test_json_on_stdout_keeps_the_name_exactly(tmp_path, capsys):
    doc = json.loads(EXAMPLE.read_text())
    doc["design"]["meta"]["name"] = "x\n\x1b[2J\x9b"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    code, out, _ = cli(capsys, "metrics", path, "--json")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out
    assert json.loads(out)["name"] == "x\n\x1b[2J\x9b"


# --- 9: memory ------------------------------------------------------------------------------------------

def test_cage_slots_number_each_class_by_its_own_width():
    # servers 0..2 with cages 0..1, switches 3..4 with cages up to 1,023
    a_dev, a_cage = np.array([0, 1, 2, 3]), np.array([0, 1, 0, 5])
    b_dev, b_cage = np.array([3, 3, 4, 4]), np.array([0, 1, 1023, 2])
    ca, cb, slots = cage_slots(a_dev, a_cage, b_dev, b_cage, servers=3, total=5)
    assert slots == 3 * 2 + 2 * 1024
    assert ca.tolist() == [0, 3, 4, 6 + 5] and cb.tolist() == [6, 7, 6 + 1024 + 1023, 6 + 1024 + 2]
    # device, then cage order, as the old dense numbering gave
    pairs = sorted(set(zip(a_dev.tolist() + b_dev.tolist(), a_cage.tolist() + b_cage.tolist(), strict=True)))
    slot_of = dict(zip(zip(a_dev.tolist() + b_dev.tolist(), a_cage.tolist() + b_cage.tolist(), strict=True),
                       ca.tolist() + cb.tolist(), strict=True))
    assert [slot_of[p] for p in pairs] == sorted(slot_of[p] for p in pairs)


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("FABRIC_DESIGNER_MEMORY_BUDGET", "1500M")
    assert memory_budget() <= 1500 * 2**20
    monkeypatch.setenv("FABRIC_DESIGNER_MEMORY_BUDGET", "lots")
    with pytest.raises(InputError, match="not a memory size"):
        memory_budget()


def test_a_request_above_the_budget_is_refused_before_it_is_built(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FABRIC_DESIGNER_MEMORY_BUDGET", "100M")
    out = tmp_path / "n.json"
    code, _, err = cli(capsys, "new", "--nodes", "245000", "--server", "generic-1gpu-host", "--template", "fat-tree",
                       "--radix", "2048", "--speed", "400G", "-o", out)
    assert code == 1 and "needs an estimated" in err and "735,000 links" in err and "budget" in err
    assert not out.exists()
    save_design(superpod(4), tmp_path / "p.json")
    monkeypatch.setenv("FABRIC_DESIGNER_MEMORY_BUDGET", "64M")
    code, _, err = cli(capsys, "bom", tmp_path / "p.json")
    assert code == 1 and "fabric-designer metrics" in err and len(err.strip().splitlines()) == 1


# --- 10, smaller: writes -----------------------------------------------------------------------------------

def test_a_folder_is_replaced_as_a_set_and_keeps_the_users_files(tmp_path):
    out = tmp_path / "nb"
    write_folder_atomic(out, {"a.csv": "old a", "b.csv": "old b"})
    (out / "mine.txt").write_text("note")
    write_folder_atomic(out, {"a.csv": "new a", "b.csv": "new b"})
    assert {p.name: p.read_text() for p in out.iterdir()} == {"a.csv": "new a", "b.csv": "new b", "mine.txt": "note"}
    assert [p.name for p in tmp_path.iterdir()] == ["nb"]


def test_a_folder_write_that_fails_half_way_leaves_the_old_folder_whole(tmp_path):
    out = tmp_path / "nb"
    write_folder_atomic(out, {"a.csv": "old a", "b.csv": "old b"})

    def chunks():
        yield "new b, part one"
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        write_folder_atomic(out, {"a.csv": "new a", "b.csv": chunks()})
    assert {p.name: p.read_text() for p in out.iterdir()} == {"a.csv": "old a", "b.csv": "old b"}
    assert [p.name for p in tmp_path.iterdir()] == ["nb"]


def test_leftovers_of_a_killed_folder_write_are_cleaned_or_put_back(tmp_path):
    new = tmp_path / ".nb.abcdefgh.new"
    new.mkdir()
    (new / "a.csv").write_text("half")
    aside = tmp_path / ".other.abcdefgh.old"     # killed between the two renames: 'other' is missing
    aside.mkdir()
    (aside / "a.csv").write_text("old")
    fresh = tmp_path / ".nb.zzzzzzzz.new"         # a write still under way: too young to touch
    fresh.mkdir()
    old = 1_000_000_000.0
    for path in (new, aside):
        os.utime(path, (old, old))
    os.utime(fresh, (old + STALE_AFTER_S + 10, old + STALE_AFTER_S + 10))
    remove_stale_temporaries(tmp_path, now=old + STALE_AFTER_S + 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".nb.zzzzzzzz.new", "other"]
    assert (tmp_path / "other" / "a.csv").read_text() == "old"


def test_a_write_to_a_symbolic_link_writes_through_it(tmp_path):
    (tmp_path / "target.json").write_text("old")
    os.symlink("target.json", tmp_path / "link.json")
    write_atomic(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "target.json").read_text() == "new"


def test_netbox_export_over_an_old_folder_replaces_it_whole(tmp_path, capsys):
    out = tmp_path / "nb"
    assert cli(capsys, "export", EXAMPLE, "-f", "netbox", "-o", out)[0] == 0
    before = {p.name for p in out.iterdir()}
    (out / "mine.txt").write_text("note")
    assert cli(capsys, "export", EXAMPLE, "-f", "netbox", "-o", out)[0] == 0
    assert {p.name for p in out.iterdir()} == before | {"mine.txt"}
    assert [p.name for p in tmp_path.iterdir()] == ["nb"]


# --- 11, smaller: early refusals ---------------------------------------------------------------------------

def test_gui_screenshot_to_a_folder_is_refused_before_qt(tmp_path, capsys):
    import sys

    loaded = "PySide6.QtWidgets" in sys.modules
    code, out, err = cli(capsys, "gui", "--screenshot", tmp_path)
    assert code == 2 and "is a folder" in err and len(err.strip().splitlines()) == 1 and out == ""
    assert loaded or "PySide6.QtWidgets" not in sys.modules


@pytest.mark.parametrize("switch, technology, match", [("qm9700", "ib-xdr", "runs InfiniBand NDR"),
                                                       ("sn5600", "ib-ndr", "is ethernet")])
def test_new_refuses_a_switch_that_does_not_fit_the_technology(tmp_path, capsys, switch, technology, match):
    out = tmp_path / "n.json"
    code, _, err = cli(capsys, "new", "--gpus", "64", "--switch", switch, "--technology", technology, "-o", out)
    assert code == 1 and match in err and not out.exists()
