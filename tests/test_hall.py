"""A hall too long for the optics: `new` lays out rows long enough, `bom` says what would build it."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design
from designer.model.intent.floorplan import FloorPlan
from designer.model.topology.hall import farthest_run_m, hall_m, longest_reach_m, reachable_floorplan
from tests.helpers import examples

CAT = default_catalog()


def test_a_million_gpus_would_stand_in_a_hall_8_km_long_and_get_a_square_one():
    # 131,072 servers at 4 per rack: 32,768 racks; 10 per row make 3,277 rows of 2.4 m.
    fp = FloorPlan()
    assert hall_m(fp, 131_072) == (3_277 * 2.4, 10 * 0.6)
    reach = longest_reach_m(CAT, "ethernet")
    assert reach == 2_000   # the 2 km FR4-class modules
    square, note = reachable_floorplan(fp, 131_072, reach)
    # sqrt(32,768 x 2.4 / 0.6) = 362.04: 363 racks per row, 91 rows (218.4 m) by 217.8 m
    assert square.racks_per_row == 363
    assert hall_m(square, 131_072) == (91 * 2.4, 363 * 0.6)
    assert farthest_run_m(square, 131_072) <= reach
    assert "7.9 km long" in note and "218 m by 218 m" in note
    # at 16,384 servers the default hall (984 m) is kept
    assert reachable_floorplan(fp, 16_384, reach) is None


@settings(max_examples=examples(200), deadline=None)
@given(servers=st.integers(1, 300_000), per_rack=st.integers(1, 16), per_row=st.integers(1, 40),
       reach=st.sampled_from([100.0, 500.0, 2000.0]))
def test_longer_rows_only_when_the_hall_is_beyond_reach_and_they_bring_it_within(servers, per_rack, per_row, reach):
    fp = FloorPlan(servers_per_rack=per_rack, racks_per_row=per_row)
    got = reachable_floorplan(fp, servers, reach)
    if got is None:
        racks = math.ceil(servers / per_rack)
        side = max(per_row, math.ceil(math.sqrt(racks * 2.4 / 0.6)))
        square = FloorPlan(servers_per_rack=per_rack, racks_per_row=side)
        assert farthest_run_m(fp, servers) <= reach or farthest_run_m(square, servers) > reach
        return
    square = got[0]
    assert farthest_run_m(fp, servers) > reach >= farthest_run_m(square, servers)
    assert square.racks_per_row > per_row and square.servers_per_rack == per_rack
    length, width = hall_m(square, servers)
    assert length <= width + 2.4 + 1e-9   # about square: rows no longer than one more row pitch


def test_new_lays_a_million_gpus_out_in_a_square_hall(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["new", "--template", "fat-tree", "--gpus", "1048576", "--server", "hgx-b300-eth-4plane",
                 "--switch", "tomahawk6-102t", "--networks", "compute", "-o", str(out)]) == 0
    assert "note: floor plan: rows of 363 racks instead of 10" in capsys.readouterr().out
    assert load_design(out).floorplan.racks_per_row == 363


def test_bom_of_a_hall_too_long_says_in_one_line_what_builds_it(tmp_path, capsys):
    base = tmp_path / "ib.json"
    assert main(["new", "--gpus", "16384", "--server", "dgx-h100", "--technology", "ib-ndr", "--networks", "compute",
                 "-o", str(base)]) == 0
    doc = json.loads(base.read_text())
    # one server per rack and one rack per row: 2,048 rows, a hall 4.9 km long
    doc["design"]["floorplan"].update(racks_per_row=1, servers_per_rack=1)
    long = tmp_path / "long.json"
    long.write_text(json.dumps(doc))
    capsys.readouterr()
    csv = tmp_path / "bom.csv"
    assert main(["bom", str(long), "-o", str(csv)]) == 1
    err = capsys.readouterr().err
    assert not csv.exists()
    line = next(x for x in err.splitlines() if "leaf-spine links" in x)
    assert "the hall is 4,915 m long" in line and "floorplan.racks_per_row = 91" in line
    doc["design"]["floorplan"]["racks_per_row"] = 91
    long.write_text(json.dumps(doc))
    assert main(["bom", str(long), "-o", str(csv)]) == 0   # what the line said builds it
    assert csv.exists()
