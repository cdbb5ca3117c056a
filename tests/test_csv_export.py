"""BOM and cabling-plan CSV: spreadsheet-safe, round-trips through the csv module, and the command."""

from __future__ import annotations

import csv
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.bom_csv import HEADER, SUMMARY_LABELS, bom_to_csv, safe_cell, write_bom_csv
from designer.io.cabling_csv import HEADER as PLAN_HEADER
from designer.io.cabling_csv import cabling_to_csv, write_cabling_csv
from designer.io.project import save_design
from designer.model.intent.design import replace_path
from designer.model.physical.bom import CATEGORIES, build_bom
from designer.model.physical.media import physical_layer
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run, examples, superpod

CAT = default_catalog()


def bom_for(design):
    return build_bom(derive(design, CAT), CAT)


def read_rows(path):
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


def line_items(rows):
    return [r for r in rows[1:] if r[0] in CATEGORIES]


def test_bom_csv_reads_back_equal_to_the_line_items(tmp_path):
    bom = bom_for(superpod(1))
    out = tmp_path / "bom.csv"
    write_bom_csv(bom, out)
    rows = read_rows(out)
    assert rows[0][:4] == list(HEADER[:4])
    items = line_items(rows)
    assert len(items) == len(bom.items)
    for row, item in zip(items, bom.items, strict=True):
        assert row[0] == item.category
        assert row[1] == item.part_number
        assert row[2] == item.description
        assert int(row[3]) == item.quantity
        assert float(row[4]) == item.unit_price
        assert float(row[5]) == item.extended_price
        assert float(row[6]) == item.unit_power_w
        assert float(row[7]) == item.total_power_w
        assert row[8] == item.notes
    # the summary rows come after the items, and the total is the sum of the extended prices
    tail = rows[1 + len(items):]
    assert [r[0] for r in tail][:5] == list(SUMMARY_LABELS[:5])
    total = next(r for r in tail if r[0] == "Total")
    assert float(total[5]) == pytest.approx(sum(float(r[5]) for r in items))
    assert float(total[7]) == pytest.approx(sum(float(r[7]) for r in items))


def test_bom_csv_is_what_spreadsheets_expect(tmp_path):
    out = tmp_path / "bom.csv"
    write_bom_csv(bom_for(superpod(1)), out)
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")          # UTF-8 byte-order mark: Excel detects UTF-8
    assert raw.count(b"\r\n") >= len(read_rows(out))  # CRLF rows
    rows = read_rows(out)
    assert len({len(r) for r in rows}) == 1          # a rectangular sheet


@pytest.mark.parametrize("name", ["=1+2", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tTAB", "\rCR",
                                  "=HYPERLINK(\"http://x\",\"y\")"])
def test_formula_injection_is_neutralised(tmp_path, name):
    out = tmp_path / "bom.csv"
    write_bom_csv(bom_for(replace_path(superpod(1), "meta.name", name)), out)
    for row in read_rows(out):
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (row, cell)
    design_row = next(r for r in read_rows(out) if r[0] == "Design")
    assert design_row[2] == "'" + name


@settings(max_examples=examples(40), deadline=None)
@given(name=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                    min_size=1, max_size=40))
def test_any_design_name_survives_a_round_trip(name):
    text = bom_to_csv(bom_for(replace_path(superpod(1), "meta.name", name)))
    import io
    rows = list(csv.reader(io.StringIO(text, newline="")))
    design_row = next(r for r in rows if r[0] == "Design")
    assert design_row[2] == safe_cell(name)


@pytest.mark.parametrize("name", ['Pod, "North", phase 2', "line one\nline two", 'a,"b"\r\nc', "Zürich ☃ 東京"])
def test_odd_names_round_trip_exactly(tmp_path, name):
    out = tmp_path / "bom.csv"
    write_bom_csv(bom_for(replace_path(superpod(1), "meta.name", name)), out)
    design_row = next(r for r in read_rows(out) if r[0] == "Design")
    assert design_row[2] == name


def test_cabling_plan_has_one_row_per_link_and_no_port_twice(tmp_path):
    d = derive(superpod(2), CAT)
    phys = physical_layer(d, CAT)
    out = tmp_path / "plan.csv"
    write_cabling_csv(phys, out, CAT)
    rows = read_rows(out)
    assert rows[0] == list(PLAN_HEADER)
    body = rows[1:]
    assert len(body) == d.metrics.links_total == d.graph.number_of_edges()
    col = {h: i for i, h in enumerate(PLAN_HEADER)}
    ends = [(r[col["A device"]], r[col["A port"]]) for r in body] + \
           [(r[col["B device"]], r[col["B port"]]) for r in body]
    assert len(ends) == len(set(ends))
    # the plan and the graph agree on who is connected to whom
    graph_pairs = sorted(tuple(sorted((data["a"], v if data["a"] == u else u)))
                         for u, v, data in d.graph.edges(data=True))
    plan_pairs = sorted(tuple(sorted((f"{r[col['A device']]}.{r[col['A port']]}" if r[col["A device"]].startswith("srv")
                                      else r[col["A device"]], r[col["B device"]]))) for r in body)
    assert plan_pairs == graph_pairs
    for r in body:
        assert float(r[col["Cable length (m)"]]) >= float(r[col["Estimated length (m)"]])
        assert r[col["A rack"]].startswith("R") and r[col["B rack"]].startswith("R")


def test_cabling_plan_copper_rows_name_the_cable(tmp_path):
    d = replace_path(new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700"),
                     "floorplan.placement", "su-racks")
    text = cabling_to_csv(physical_layer(derive(d, CAT), CAT), CAT)
    rows = list(csv.DictReader(text.splitlines()))
    copper = [r for r in rows if r["Tier"] == "node-leaf"]
    assert {r["Cable or fiber part"] for r in copper} == {"MCP7Y00"}
    assert all(r["A-end transceiver"] == "" and r["B-end transceiver"] == "" for r in copper)


# ---------------------------------------------------------------- the command

def run_cli(*args):
    return cli_run(*args)


def test_bom_command_writes_both_files_and_json_reconciles(tmp_path, capsys):
    project = tmp_path / "pod.json"
    save_design(new_design(CAT, "leaf-spine", gpus=512, server="dgx-h100", switch="sn5600",
                           technology="roce-400g"), project)
    bom_csv, plan_csv = tmp_path / "bom.csv", tmp_path / "plan.csv"
    assert main(["bom", str(project), "-o", str(bom_csv), "--cabling", str(plan_csv), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["metrics", str(project), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert doc["counts"]["links_by_tier"] == metrics["links"]["by_tier"]
    assert doc["counts"]["switches_by_tier"] == metrics["switches"]["by_tier"]
    assert doc["counts_by_category"]["Switches"] == metrics["switches"]["total"]
    assert len(read_rows(plan_csv)) - 1 == metrics["links"]["total"]
    assert len(line_items(read_rows(bom_csv))) == len(doc["items"])
    assert doc["total_cost"] == pytest.approx(sum(i["extended_price"] for i in doc["items"]))


def test_bom_command_text_summary(tmp_path):
    project = tmp_path / "pod.json"
    save_design(superpod(1), project)
    result = run_cli("bom", str(project))
    assert result.returncode == 0, result.stderr
    assert "Total cost" in result.stdout and "illustrative estimate" in result.stdout
    assert "MMA4Z00-NS" in result.stdout


@pytest.mark.parametrize("args, says", [
    (["-o", "{tmp}/missing/bom.csv"], "does not exist"),
    (["-o", "{tmp}"], "is a folder"),
    (["--cabling", "{tmp}/nowhere/plan.csv"], "does not exist"),
    (["-o", "{tmp}/same.csv", "--cabling", "{tmp}/same.csv"], "different files"),
    (["--prices", "{tmp}/none.toml"], "no such price book"),
])
def test_bom_command_refuses_in_one_line_and_writes_nothing(tmp_path, args, says):
    project = tmp_path / "pod.json"
    save_design(superpod(1), project)
    before = sorted(os.listdir(tmp_path))
    result = run_cli("bom", str(project), *[a.format(tmp=tmp_path) for a in args])
    # an output that cannot be written is refused as an argument (exit 2), before any work
    assert result.returncode == (2 if says in ("does not exist", "is a folder") else 1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(os.listdir(tmp_path)) == before


def test_bom_command_bad_price_book_names_the_field(tmp_path):
    project = tmp_path / "pod.json"
    save_design(superpod(1), project)
    book = tmp_path / "p.toml"
    book.write_text('[[price]]\nkey = "qm9700"\nunit_price = "a lot"\n', encoding="utf-8")
    result = run_cli("bom", str(project), "--prices", str(book))
    assert result.returncode == 1
    assert "unit_price" in result.stderr and "p.toml" in result.stderr


def test_bom_command_exits_nonzero_when_links_have_no_medium(tmp_path):
    d = new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700")
    d = replace_path(replace_path(d, "floorplan.placement", "network-row"), "floorplan.row_pitch_m", 200.0)
    project = tmp_path / "far.json"
    save_design(d, project)
    result = run_cli("bom", str(project), "-o", str(tmp_path / "bom.csv"))
    assert result.returncode == 1
    assert "no infiniband cable or transceiver" in result.stderr
    # A command that fails writes no output file (a BOM missing links would mislead).
    assert "no file written" in result.stderr
    assert not (tmp_path / "bom.csv").exists()
