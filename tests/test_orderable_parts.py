"""A BOM a buyer orders from: the module for each cage, the length in the part number, spares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.model.decisions.spares import default_shares, parse_shares, spares_items
from designer.model.physical.bom import LineItem
from designer.model.physical.orderable_parts import cable_part, length_code, module_part

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dgx-h100-superpod-4su.json"
CAT = default_catalog()


def test_each_end_names_the_module_its_cage_takes():
    twin = CAT.transceivers["mma4z00-ns"]
    switch, server = module_part(twin, "switch"), module_part(twin, "host")
    assert switch.part_number == "MMA4Z00-NS" and switch.note.startswith("finned-top")
    assert server.part_number != switch.part_number and "flat-top" in server.part_number
    assert "not in the pages read" in server.note          # the source does not settle the number
    single = module_part(CAT.transceivers["mma4z00-ns400"], "host")
    assert single.part_number == "MMA4Z00-NS400" and single.note.startswith("flat-top")
    assert "source:" in switch.note and "source:" in single.note


@pytest.mark.parametrize("metres, code", [(1, "N001"), (1.5, "N01A"), (7, "N007"), (15, "N015"), (100, "N100"),
                                          (0.5, "N00A"), (2.25, None), (1000, None)])
def test_length_codes(metres, code):
    assert length_code(metres) == code


@given(st.integers(min_value=1, max_value=999))
def test_every_whole_length_reads_back_from_its_code(metres):
    code = length_code(metres)
    assert code is not None and int(code[1:]) == metres


def test_cables_carry_their_length_where_the_vendor_numbers_it():
    dac = cable_part(CAT.cables["mcp7y00"], 1.5)
    assert dac.part_number == "MCP7Y00-N01A" and "source" in dac.note
    fibre = cable_part(CAT.cables["mfp7e10"], 7)
    assert fibre.part_number == "MFP7E10-N007" and "not confirmed" in fibre.note
    generic = cable_part(CAT.cables["mmf-mpo12"], 7)
    assert generic.part_number == "" and generic.note == ""


def test_spares_default_to_a_year_of_failures_with_their_basis():
    shares = default_shares()
    assert shares["switches"].share is None and "no published switch failure rate" in shares["switches"].basis
    assert 0 < shares["transceivers"].share < 0.01 and "year of expected failures" in shares["transceivers"].basis
    items = [LineItem("Transceivers", "P", "module", 1536, 1300.0, 1536 * 1300.0, 15.0, 1536 * 15.0, key="m"),
             LineItem("Switches", "S", "switch", 48, 30000.0, 48 * 30000.0, 650.0, 48 * 650.0, key="s")]
    spares = spares_items(items, shares)
    assert [(s.part_number, s.quantity) for s in spares] == [("P", 6)]      # ceil(1536 x 0.342%)
    mine = parse_shares("switches=2%, transceivers=10", shares)
    spares = spares_items(items, mine)
    assert {s.part_number: s.quantity for s in spares} == {"P": 154, "S": 1}
    assert all(s.total_power_w == 0 for s in spares)
    assert spares_items(items, parse_shares("none", shares)) == []
    for bad in ("gpus=2%", "switches", "switches=lots", "switches=150%", "switches=nan"):
        with pytest.raises(ValueError):
            parse_shares(bad, shares)


def test_the_bom_command_orders_by_part_and_lists_spares(capsys):
    assert main(["bom", str(EXAMPLE), "--json", "--spares", "switches=2%"]) == 0
    doc = json.loads(capsys.readouterr().out)
    modules = {i["description"].rsplit(", ", 1)[-1]: i["part_number"] for i in doc["items"]
               if i["category"] == "Transceivers"}
    assert modules["switch side"] != modules["server side"]
    assert all(i["part_number"].startswith("MFP7E10-N0") for i in doc["items"] if i["category"] == "Fiber")
    spares = {i["part_number"]: i["quantity"] for i in doc["spares"]["items"]}
    assert spares["MQM9700-NS2F"] == 1 and doc["spares"]["total_usd"] > 0
    assert doc["spares"]["shares"]["switches"]["basis"] == "set by the user"


def test_a_bad_spares_spec_is_one_line(capsys):
    assert main(["bom", str(EXAMPLE), "--spares", "gpus=3%"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "malformed spares" in err[0]
