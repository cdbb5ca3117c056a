"""What if it grows: phases, BOM deltas, reserved ports, recabling, and the `grow` command."""

import json

import pytest

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.decisions.growth import GrowthError, grow
from designer.model.topology.presets import new_design
from tests.helpers import cli_run


def b200(sus):
    return new_design(default_catalog(), "rail-optimized", nodes=32 * sus, server="dgx-b200", switch="qm9700")


def run(*args):
    return cli_run(*args)


def test_b200_growth_path_matches_the_reference_table():
    g = grow(b200(2), 16 * 256, [2, 4, 8, 16])
    rows = [(p.sus, p.switches["leaf"], p.switches["spine"], p.switches["core"], p.tiers) for p in g.path.phases]
    # DGX B200 RA: 2 SU 16/8/-; 4 SU 32/16/-; 8 SU 64/32/-; 16 SU 128/128/64, the core appears at 16 SU.
    assert rows == [(2, 16, 8, 0, 2), (4, 32, 16, 0, 2), (8, 64, 32, 0, 2), (16, 128, 128, 64, 3)]
    phases = g.path.phases
    assert phases[0].recabled_links == 0
    assert all(p.recabled_links > 0 for p in phases[1:])
    assert "core tier" in phases[3].recabling[0]
    assert "spines from 8 to 16" in phases[1].recabling[0]
    assert g.path.needs_recabling


def test_the_alternative_avoids_recabling_and_is_priced():
    g = grow(b200(2), 16 * 256, [2, 4, 8, 16])
    alt = g.alternative
    assert alt is not None and not alt.needs_recabling
    assert [p.switches["core"] for p in alt.phases] == [64, 64, 64, 64]
    assert alt.phases[0].reserved_ports["core"] > 0 and not alt.phases[-1].reserved_ports
    assert alt.day_one_cost > g.path.day_one_cost > 0
    assert alt.phases[-1].switches == g.path.phases[-1].switches


def test_without_a_core_spines_for_the_final_size_need_no_recabling():
    g = grow(b200(2), 8 * 256, [2, 4, 8])
    assert [p.tiers for p in g.path.phases] == [2, 2, 2] and g.path.needs_recabling
    alt = g.alternative
    assert [p.switches["spine"] for p in alt.phases] == [32, 32, 32] and not alt.needs_recabling
    # Reserved spine ports are the ones later phases cable: 64 ports on each of 32 spines in the end.
    assert alt.phases[0].reserved_ports["spine"] == 32 * 64 - 16 * 32
    # Phase 2 buys only its 16 leaves: the spines are already there.
    switches = [i for i in alt.phases[1].bom_delta if i["category"] == "Switches"]
    assert sum(i["quantity"] for i in switches) == 16
    assert sum(i["quantity"] for i in g.path.phases[1].bom_delta if i["category"] == "Switches") == 16 + 8
    assert sum(p.cost_delta for p in alt.phases) == pytest.approx(alt.phases[-1].cost)


def test_a_path_inside_the_full_fabric_needs_nothing():
    g = grow(b200(4), 4 * 256, [4])
    assert len(g.path.phases) == 1 and not g.path.needs_recabling and g.alternative is None


def test_bad_phases_are_refused():
    with pytest.raises(GrowthError, match="increasing"):
        grow(b200(2), 8 * 256, [4, 2])
    with pytest.raises(GrowthError, match="beyond the target"):
        grow(b200(2), 4 * 256, [2, 8])
    with pytest.raises(GrowthError, match="whole number"):
        grow(b200(2), 1000, None)


def test_grow_command(tmp_path):
    path = tmp_path / "b200.json"
    save_design(b200(2), path)
    res = run("grow", str(path), "--to-gpus", "4096", "--phases", "2,4,8,16", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [p["tiers"] for p in data["path"]["phases"]] == [2, 2, 2, 3]
    assert data["path"]["needs_recabling"] and not data["alternative"]["needs_recabling"]
    res = run("grow", str(path), "--to-gpus", "4096")
    assert res.returncode == 0 and "core tier" in res.stdout and "Alternative" in res.stdout
    res = run("grow", str(path), "--to-gpus", "4096", "--phases", "8,4")
    assert res.returncode == 1 and res.stderr.count("\n") == 1
