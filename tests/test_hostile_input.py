"""Hostile input: every case of the campaign ends in one clear line naming file and field, or works.

Each test is one case: a traceback, a grind, or silent garbage before the validation layer
(designer/limits.py) and the sizing ceilings (designer/model/topology/bounds.py).
"""

from __future__ import annotations

import dataclasses
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import examples, superpod

from designer.catalog import CatalogError, load_catalog
from designer.catalog.loader import BUILTIN_DIR
from designer.cli.main import main
from designer.io.project import ProjectFileError, design_to_json, load_design, save_design
from designer.limits import MAX_DEPTH, InputError, load_json, quote
from designer.model.intent.design import Edit
from designer.model.physical.prices import PriceBookError, parse_price_book
from designer.model.topology.bounds import FabricTooLargeError
from designer.model.topology.derive import derive

ROOT = Path(__file__).resolve().parents[1]
K64 = ROOT / "examples" / "k64-fat-tree-hosts.json"


def _doc(design=None) -> dict:
    return json.loads(design_to_json(design or superpod(1)))


def _write(path: Path, doc) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def cli(capsys, *args) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse refusals
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


# --- input that ended in a traceback, an internal error or a crash ------------------------------

def test_a_file_nested_100000_levels_deep_is_one_line(tmp_path, capsys):
    path = _write(tmp_path / "deep.json", '{"format": "fabric-designer", "format_version": 1, "design": '
                  + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, err = cli(capsys, "metrics", path)
    assert code == 1 and out == ""
    line = one_line(err)
    assert "deep.json" in line and f"nested more than {MAX_DEPTH} levels" in line


def test_gui_refuses_a_deep_file_in_one_line_without_a_window(tmp_path):
    import subprocess
    import sys

    path = _write(tmp_path / "deep.json", "[" * 100_000 + "]" * 100_000)
    result = subprocess.run([sys.executable, "-m", "designer.cli.main", "gui", str(path), "--screenshot",
                             str(tmp_path / "shot.png")], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and result.returncode > 0   # no SIGABRT
    assert "deep.json" in one_line(result.stderr)
    assert not (tmp_path / "shot.png").exists()


def test_a_5000_digit_integer_names_file_and_field(tmp_path, capsys):
    doc = json.dumps(_doc()).replace('"servers": 32', '"servers": ' + "9" * 5000)
    path = _write(tmp_path / "digits.json", doc)
    with pytest.raises(ProjectFileError) as info:
        load_design(path)
    assert "digits.json" in str(info.value) and "design.cluster.servers" in str(info.value)
    assert len(str(info.value)) < 300
    code, _, err = cli(capsys, "metrics", path)
    assert code == 1 and "design.cluster.servers" in one_line(err)


def test_the_window_shows_a_5000_digit_file_in_its_dialog(make_window, tmp_path):
    window = make_window(superpod(1))
    before = window.document.design
    doc = json.dumps(_doc()).replace('"servers": 32', '"servers": ' + "9" * 5000)
    assert window.files.open(_write(tmp_path / "digits.json", doc)) is False
    (title, text, detail), = window.dialogs.errors
    assert "digits.json" in text and "design.cluster.servers" in detail
    assert window.document.design is before


def test_open_never_lets_an_exception_escape(make_window, tmp_path, monkeypatch):
    window = make_window(superpod(1))
    import designer.ui.shell.files as files

    def broken(path):
        raise RuntimeError("a defect")

    monkeypatch.setattr(files, "load_design", broken)
    assert window.files.open(_write(tmp_path / "x.json", "{}")) is False
    assert "RuntimeError" in window.dialogs.errors[-1][2]


@pytest.mark.parametrize("field, value, says", [
    ("core.count", 1e308, "out of range"),
    ("spine.count", 1e9, "out of range"),
    ("core.count", 1e9, "out of range"),
    ("leaf.oversubscription", 1e-308, "positive"),
    ("leaf.oversubscription", 1e308, "out of range"),
])
def test_absurd_numbers_in_a_file_are_refused_by_field(tmp_path, capsys, field, value, says):
    doc = _doc()
    tier, name = field.split(".")
    doc["design"]["fabric"][tier][name] = value
    path = _write(tmp_path / "absurd.json", doc)
    code, _, err = cli(capsys, "metrics", path)
    line = one_line(err)
    assert code == 1 and "absurd.json" in line and f"design.fabric.{field}" in line and says in line


@pytest.mark.parametrize("edit", [
    {"op": "add-links", "a": "", "b": "spine-1", "count": 1},
    {"op": "remove-links", "a": "", "b": "spine-1", "count": 1},
    {"op": "remove-device", "a": ""},
])
def test_an_edit_naming_no_device_is_a_finding_not_a_crash(tmp_path, capsys, edit):
    doc = _doc()
    doc["design"]["edits"] = [edit]
    code, out, err = cli(capsys, "metrics", _write(tmp_path / "e.json", doc), "--json")
    data = json.loads(out)
    assert any(f["code"] == "edit-not-applied" for f in data["findings"])
    assert "Traceback" not in err


@pytest.mark.parametrize("args, says", [
    (["new", "--template", "leaf-spine", "--gpus", "256", "--oversubscription", "1:1e308"], "out of range"),
    (["new", "--template", "leaf-spine", "--gpus", "256", "--oversubscription", "1e-308"], "out of range"),
    (["collectives", "{f}", "--size", "1000000000000000000000000000000B"], "out of range"),
    (["collectives", "{f}", "--params", "1e400"], "must be 1 to"),
    (["collectives", "{f}", "--params", "70e9", "--compute-ms", "nan"], "compute time"),
    (["compare", "{f}", "{f}", "--energy-price", "nan"], "not a finite number"),
    (["compare", "{f}", "{f}", "--pue", "inf"], "not a finite number"),
    (["compare", "{f}", "{f}", "--years", "9" * 5000], "too long"),
    (["new", "--template", "leaf-spine", "--gpus", "9" * 5000], "too long"),
    (["new", "--template", "fat-tree", "--gpus", "1000000000", "--radix", "100000", "--speed", "400G"],
     "out of range"),
    (["new", "--template", "fat-tree", "--gpus", "8192", "--radix", "1000000000", "--speed", "400G"],
     "out of range"),
])
def test_absurd_command_line_numbers_are_refused_before_any_work(tmp_path, capsys, args, says):
    project = tmp_path / "p.json"
    save_design(superpod(1), project)
    out_file = tmp_path / "out.json"
    argv = [a.replace("{f}", str(project)) for a in args]
    argv += ["-o", str(out_file if argv[0] == "new" else tmp_path / "o.svg")] if argv[0] in ("new", "render") else []
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == ""
    assert says in one_line(err)
    assert not out_file.exists() and not (tmp_path / "o.svg").exists()


@pytest.mark.parametrize("command", [["metrics"], ["metrics", "--json"], ["bom"], ["collectives"],
                                     ["counterpart", "--technology", "roce-400g", "-o", "{o}"]])
def test_a_lone_surrogate_in_the_name_is_one_line_and_no_output(tmp_path, capsys, command):
    doc = json.dumps(_doc()).replace('"name": "', '"name": "\\ud800', 1)
    path = _write(tmp_path / "sur.json", doc)
    argv = [command[0], path, *[a.replace("{o}", str(tmp_path / "o.json")) for a in command[1:]]]
    code, out, err = cli(capsys, *argv)
    assert code == 1 and out == ""          # not 12 bytes of partial JSON
    line = one_line(err)
    assert "sur.json" in line and "design.meta.name" in line and "surrogate" in line
    assert not (tmp_path / "o.json").exists()


def test_save_as_with_a_lone_surrogate_shows_a_dialog(make_window, tmp_path):
    design = superpod(1)
    design = dataclasses.replace(design, meta=dataclasses.replace(design.meta, name="bad \ud800 name"))
    window = make_window(design)
    window.dialogs.save_answer = str(tmp_path / "out.json")
    assert window.files.save_as() is False
    assert window.dialogs.errors and "could not be written" in window.dialogs.errors[-1][1]
    # Nothing written beside the target (the user data folder, which the test also keeps here, aside).
    assert [p.name for p in tmp_path.iterdir() if p.name != "data"] == []


@pytest.mark.parametrize("name", ["nul\x00here", "esc\x1b[31mred", "bell\x07 <&> ]]> \"q\"", "\x0b\x0c\x1f"])
def test_control_characters_in_names_never_reach_the_svg(tmp_path, capsys, name):
    design = superpod(1)
    design = dataclasses.replace(design, meta=dataclasses.replace(design.meta, name=name, author=name,
                                                                  notes=name))
    save_design(design, tmp_path / "ctl.json")
    code, _, err = cli(capsys, "render", tmp_path / "ctl.json", "-o", tmp_path / "ctl.svg")
    assert code == 0, err
    data = (tmp_path / "ctl.svg").read_bytes()
    ET.fromstring(data)  # well-formed XML 1.0
    assert not any(b in data for b in (b"\x00", b"\x1b", b"\x07", b"&#0;", b"&#x1b;"))


def test_a_byte_order_mark_is_tolerated_in_project_and_catalog_files(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + design_to_json(superpod(1)).encode())
    assert load_design(path) == superpod(1)
    user = tmp_path / "catalog"
    user.mkdir()
    (user / "mine.toml").write_bytes(b"\xef\xbb\xbf" + _switch_toml("my-switch").encode())
    assert "my-switch" in load_catalog(BUILTIN_DIR, user).switches


# --- input that ground or ate memory: refused by arithmetic first ---------------------------------

def test_a_large_count_inside_the_field_range_is_refused_by_the_ceilings(tmp_path, capsys):
    doc = _doc()
    doc["design"]["fabric"]["spine"]["count"] = 1_000_000
    code, _, err = cli(capsys, "metrics", _write(tmp_path / "big.json", doc))
    line = one_line(err)
    assert code == 1 and "switches" in line and "ceiling" in line


def test_a_huge_fabric_request_is_refused_by_arithmetic(tmp_path, capsys):
    # 2^20 four-plane servers put 33.5 million NIC ports on the fabric: twice the closed forms' ceiling.
    code, _, err = cli(capsys, "new", "--template", "fat-tree", "--nodes", str(2**20), "--server",
                       "hgx-b300-eth-4plane", "--technology", "roce-400g", "--radix", "2048", "--speed", "200G",
                       "-o", tmp_path / "x.json")
    line = one_line(err)
    assert code == 1 and "ceiling" in line and not (tmp_path / "x.json").exists()
    with pytest.raises(FabricTooLargeError):
        derive(dataclasses.replace(superpod(1), cluster=dataclasses.replace(superpod(1).cluster,
                                                                            servers=2**20, ports_per_server=32)))


def test_an_absurd_dpi_is_refused_before_rendering(tmp_path, capsys):
    save_design(superpod(1), tmp_path / "p.json")
    code, _, err = cli(capsys, "render", tmp_path / "p.json", "-o", tmp_path / "o.png", "--dpi", "100000000")
    assert code == 1 and "DPI must be" in one_line(err)
    assert not (tmp_path / "o.png").exists()


def test_a_device_file_is_refused_by_reading_not_by_st_size(capsys, tmp_path, monkeypatch):
    import os

    # A regular file may report size 0 and go on (a /proc file, a file still growing): the cap
    # must come from the bytes read.
    import stat

    from designer.limits import read_capped

    endless = tmp_path / "endless"
    endless.write_bytes(b"\0" * 5000)
    monkeypatch.setattr(os, "stat", lambda *a, **k: os.stat_result((stat.S_IFREG,) + (0,) * 9))
    monkeypatch.setattr(os, "fstat", lambda *a, **k: os.stat_result((stat.S_IFREG,) + (0,) * 9))
    with pytest.raises(InputError, match="larger than"):
        read_capped(endless, limit=4096)
    monkeypatch.undo()
    if Path("/dev/zero").exists():   # a device never ends: refused at once, without reading
        code, _, err = cli(capsys, "metrics", "/dev/zero")
        assert code == 1 and "is a device, not a project file" in one_line(err)


@pytest.mark.parametrize("count", [10_000, 100_000])
def test_adding_many_links_numbers_ports_in_order(count):
    design = dataclasses.replace(superpod(1), edits=(Edit("add-links", "leaf-1", "spine-1", count),))
    g = derive(design).graph
    manual = [d for _, _, d in g.edges("leaf-1", data=True) if d["tier"] == "manual"]
    assert len(manual) == count
    pa = sorted(d["pa"] for d in manual)
    assert pa == list(range(pa[0], pa[0] + count))


def test_one_edit_on_the_65k_example_keeps_its_metrics_right():
    design = load_design(K64)
    edited = dataclasses.replace(design, edits=(Edit("remove-links", "leaf-1", "spine-1", 1),))
    base, m = derive(design).metrics, derive(edited).metrics
    assert m.links_total == base.links_total - 1
    assert m.max_hops == base.max_hops
    assert 0 < base.bisection_gbps - m.bisection_gbps <= m.link_gbps + 1e-6 or m.bisection_gbps == base.bisection_gbps


# --- silent garbage -----------------------------------------------------------------------------

def test_json_output_never_holds_nan(tmp_path, capsys):
    from designer.cli.common import CommandError, print_json

    with pytest.raises(CommandError):
        print_json({"x": math.nan})
    assert capsys.readouterr().out == ""


def _switch_toml(switch_id: str, **fields) -> str:
    base = {"id": f'"{switch_id}"', "vendor": '"Me"', "name": '"Mine"', "source": '"my lab"',
            "family": '"infiniband"', "cages": "32", "port_modes": "[{count = 64, gbps = 400}]"}
    base.update(fields)
    return "[[switch]]\n" + "".join(f"{k} = {v}\n" for k, v in base.items())


@pytest.mark.parametrize("toml, field", [
    (_switch_toml("s", power_w="nan"), "power_w"),
    (_switch_toml("s", power_w="inf"), "power_w"),
    (_switch_toml("s", latency_ns="-5.0"), "latency_ns"),
    (_switch_toml("s", rack_units="-1"), "rack_units"),
    (_switch_toml("s", port_modes="[{count = 64, gbps = 0}]"), "gbps"),
    (_switch_toml("s", port_modes="[{count = 1000000000, gbps = 400}]"), "count"),
    (_switch_toml("s") + "\n" + _switch_toml("s"), "id"),
    ('[[server]]\nid = "srv"\nvendor = "x"\nname = "x"\nsource = "x"\ncompute_nic = "cx7"\n'
     "nvlink_GBps_per_gpu = -450.0\n", "nvlink_GBps_per_gpu"),
    ('[[transceiver]]\nid = "t"\nvendor = "x"\nname = "x"\nsource = "x"\nreach_m = nan\n', "reach_m"),
    ("[[switch]]\n" + 'id = "' + "x" * 200_000 + '"\n', "longer than"),
    ("\udc80".encode("utf-8", "surrogatepass").decode("latin-1"), "invalid UTF-8"),
])
def test_the_user_catalog_refuses_garbage_by_file_entry_and_field(tmp_path, toml, field):
    user = tmp_path / "catalog"
    user.mkdir()
    (user / "mine.toml").write_text(toml, encoding="latin-1" if field == "invalid UTF-8" else "utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(BUILTIN_DIR, user)
    message = str(info.value)
    assert "mine.toml" in message and field in message
    assert len(message) < 400


def test_a_user_catalog_may_still_override_a_builtin_id(tmp_path):
    user = tmp_path / "catalog"
    user.mkdir()
    (user / "mine.toml").write_text(_switch_toml("qm9700"))
    assert load_catalog(BUILTIN_DIR, user).switches["qm9700"].name == "Mine"


@pytest.mark.parametrize("text, says", [
    ('[[price]]\nkey = "x"\nunit_price = nan\n', "finite"),
    ('[[price]]\nkey = "x"\nunit_price = inf\n', "finite"),
    ('[[price]]\nkey = "x"\nunit_price = 1e300\n', "out of range"),
    ('[[price]]\nkey = "x"\nunit_price = 1\n[[price]]\nkey = "x"\nunit_price = 2\n', "twice"),
    ("\ufeff" + '[[price]]\nkey = "x"\nunit_price = 1\n', None),
    ('[[price]]\nkey = "x"\nunit_price = ' + "9" * 5000 + "\n", "digits"),
])
def test_the_price_book_refuses_garbage(text, says):
    if says is None:
        assert parse_price_book(text, "p.toml").get("x").unit_price == 1
        return
    with pytest.raises(PriceBookError) as info:
        parse_price_book(text, "/x/p.toml")
    assert "p.toml" in str(info.value) and says in str(info.value)


def test_duplicate_keys_in_a_project_file_are_refused(tmp_path):
    text = design_to_json(superpod(1)).replace('"servers": 32', '"servers": 32, "servers": 64')
    with pytest.raises(ProjectFileError, match=r"design\.cluster\.servers: the key appears twice"):
        load_design(_write(tmp_path / "dup.json", text))


def test_the_config_dir_variable_moves_the_user_catalog_for_commands(tmp_path, monkeypatch):
    import subprocess
    import sys

    cfg = tmp_path / "cfg"
    (cfg / "catalog").mkdir(parents=True)
    (cfg / "catalog" / "bad.toml").write_text(_switch_toml("s", power_w="nan"))
    (cfg / "prices.toml").write_text('[[price]]\nkey = "qm9700"\nunit_price = 1\n')
    save_design(superpod(1), tmp_path / "p.json")
    env = dict(__import__("os").environ, FABRIC_DESIGNER_CONFIG_DIR=str(cfg))
    result = subprocess.run([sys.executable, "-m", "designer.cli.main", "metrics", str(tmp_path / "p.json")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1 and "bad.toml" in one_line(result.stderr)
    (cfg / "catalog" / "bad.toml").unlink()
    result = subprocess.run([sys.executable, "-m", "designer.cli.main", "bom", str(tmp_path / "p.json"), "--json"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert str(cfg / "prices.toml") in json.loads(result.stdout)["price_sources"] or \
        any("prices.toml" in s for s in json.loads(result.stdout).get("price_sources", []))


def test_new_does_not_replace_a_file_that_is_not_a_project(tmp_path, capsys):
    notes = tmp_path / "existing.json"
    notes.write_text('{"my": "notes"}')
    args = ["new", "--template", "leaf-spine", "--gpus", "256", "-o", notes]
    code, _, err = cli(capsys, *args)
    assert code == 1 and "--force" in one_line(err)
    assert notes.read_text() == '{"my": "notes"}'
    code, _, _ = cli(capsys, *args, "--force")
    assert code == 0 and load_design(notes).cluster.servers == 32
    code, _, _ = cli(capsys, *args)          # a project may be replaced as before
    assert code == 0


def test_new_into_a_folder_names_the_folder(tmp_path, capsys):
    code, _, err = cli(capsys, "new", "--template", "leaf-spine", "--gpus", "256", "-o", tmp_path)
    line = one_line(err)
    # refused as an argument, before any work (exit 2, as argparse refusals are)
    assert code == 2 and f"{tmp_path} is a folder; give a file name" in line and ".tmp" not in line
    assert list(tmp_path.iterdir()) == []


def test_bom_writes_no_file_when_the_bom_has_errors(tmp_path, capsys):
    design = superpod(1)
    design = dataclasses.replace(design, floorplan=dataclasses.replace(
        design.floorplan, row_pitch_m=50_000.0, placement="network-row"))
    save_design(design, tmp_path / "far.json")
    code, _, err = cli(capsys, "bom", tmp_path / "far.json", "--cabling", tmp_path / "plan.csv",
                       "-o", tmp_path / "bom.csv")
    assert code == 1 and "no file written" in err
    assert not (tmp_path / "plan.csv").exists() and not (tmp_path / "bom.csv").exists()


# --- the messages themselves ----------------------------------------------------------------------

def test_messages_quote_at_most_about_80_characters():
    huge = "x" * 50_000
    assert len(quote(huge)) <= 80
    with pytest.raises(InputError) as info:
        load_json('{"format": "' + huge + '"' + ', "a": NaN}', "f.json")
    assert len(str(info.value)) < 200
    doc = {"format": "fabric-designer", "format_version": 1, "design": {"meta": {huge: 1}}}
    with pytest.raises(ProjectFileError) as info:
        from designer.io.project import design_from_json

        design_from_json(json.dumps(doc), "f.json")
    assert len(str(info.value)) < 200 and "unknown field" in str(info.value)


def test_a_format_version_from_the_future_names_the_field(tmp_path):
    doc = _doc()
    doc["format_version"] = 10**30
    with pytest.raises(ProjectFileError, match="format_version.*newer Fabric Designer"):
        load_design(_write(tmp_path / "future.json", doc))


# --- CSV and pictures with hostile names -------------------------------------------------------------

def test_every_csv_cell_is_formula_safe_even_when_an_exporter_forgets():
    import csv
    import io

    from designer.io.csv_cells import rows_to_csv

    text = rows_to_csv([["=HYPERLINK(\"x\")", "+1", "-cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "-3.5", "12", "ok"]])
    row = next(csv.reader(io.StringIO(text)))
    assert row[:5] == ["'=HYPERLINK(\"x\")", "'+1", "'-cmd|' /C calc'!A0", "'@SUM(A1)", "'\tx"]
    assert row[5:] == ["-3.5", "12", "ok"]


def test_user_catalog_part_names_are_safe_in_the_bom_csv(tmp_path):
    from designer.io.bom_csv import bom_rows
    from designer.model.physical.bom import build_bom
    from designer.model.physical.prices import load_prices

    user = tmp_path / "catalog"
    user.mkdir()
    (user / "mine.toml").write_text(_switch_toml("qm9700").replace('name = "Mine"',
                                                                   'name = "=cmd|calc <svg> \\u202eevil"'))
    catalog = load_catalog(BUILTIN_DIR, user)
    design = superpod(1)
    rows = bom_rows(build_bom(derive(design, catalog), catalog, load_prices(user_file=False)))
    cells = [c for r in rows for c in r if "cmd|calc" in c]
    assert cells and all(c.startswith("'") or not c.startswith(("=", "+", "-", "@")) for c in cells)


def _plain_maxflow(g) -> float:
    """The reference: max-flow on the whole network, nothing folded or merged."""
    import networkx as nx

    from designer.model.topology.graph_metrics import endpoint_halves

    first, second = endpoint_halves(g)
    flow = nx.DiGraph()
    for u, v, gbps in g.edges(data="gbps"):
        for a, b in ((u, v), (v, u)):
            if flow.has_edge(a, b):
                flow[a][b]["capacity"] += gbps
            else:
                flow.add_edge(a, b, capacity=gbps)
    for n in first:
        flow.add_edge("_s", n, capacity=float("inf"))
    for n in second:
        flow.add_edge(n, "_t", capacity=float("inf"))
    if "_s" not in flow or "_t" not in flow:
        return 0.0
    return float(nx.maximum_flow_value(flow, "_s", "_t"))


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add-links", "remove-links", "remove-device"]),
                          st.sampled_from(["leaf-1", "leaf-2", "leaf-5", "spine-1", "spine-3", "srv-1.nic-1",
                                           "srv-9.nic-3"]),
                          st.sampled_from(["spine-1", "spine-2", "spine-4", "leaf-3", "leaf-8"]),
                          st.integers(1, 40)), min_size=1, max_size=4),
       st.sampled_from(["rail", "leaf-spine", "fat-tree"]))
def test_bisection_on_the_quotient_equals_plain_max_flow_on_edited_fabrics(edits, kind):
    from designer.catalog import default_catalog
    from designer.model.topology.graph_metrics import bisection_maxflow
    from designer.model.topology.presets import new_design

    if kind == "rail":
        design = superpod(1)
    else:
        design = new_design(default_catalog(), kind, nodes=24, server="dgx-h100", switch="qm9700",
                            tiers=3 if kind == "fat-tree" else None)
    design = dataclasses.replace(design, edits=tuple(Edit(op, a, b, n) for op, a, b, n in edits))
    g = derive(design).graph
    assert bisection_maxflow(g) == pytest.approx(_plain_maxflow(g))
