"""The design stores its target size and build-out phases: validation, files, the grow command."""

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import ProjectFileError, design_from_json, design_to_json, load_design, save_design
from designer.model.intent.design import FabricDesign
from designer.model.intent.growth_plan import MAX_PHASES, MAX_TARGET_GPUS, GrowthPlan
from designer.model.intent.serde import DesignValidationError
from designer.model.topology.presets import new_design
from tests.helpers import cli_run, examples, superpod


def b200(sus):
    return new_design(default_catalog(), "rail-optimized", nodes=32 * sus, server="dgx-b200", switch="qm9700")


def run(*args):
    return cli_run(*args)


plans = st.one_of(
    st.just(GrowthPlan()),
    st.builds(GrowthPlan, target_gpus=st.integers(1, MAX_TARGET_GPUS),
              phases=st.lists(st.integers(1, MAX_TARGET_GPUS), unique=True, max_size=MAX_PHASES)
              .map(lambda v: tuple(sorted(v)))),
)


@settings(max_examples=examples(80), deadline=None)
@given(plans, st.sampled_from([1, 4]))
def test_any_growth_plan_round_trips_through_a_project_file(plan, sus):
    design = replace(superpod(sus), growth=plan)
    again = design_from_json(design_to_json(design))
    assert again == design and again.growth == plan
    assert again.content_key() == design.content_key()


def test_a_file_without_a_plan_still_loads(tmp_path):
    doc = json.loads(design_to_json(superpod(1)))
    del doc["design"]["growth"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    design = load_design(path)
    assert design.growth == GrowthPlan() and not design.growth.stored


@pytest.mark.parametrize("growth, expected", [
    ({"target_gpus": 0}, "design.growth.target_gpus: must be between 1 and"),
    ({"target_gpus": MAX_TARGET_GPUS + 1}, "design.growth.target_gpus: must be between 1 and"),
    ({"target_gpus": 4096, "phases": [4, 2]}, "design.growth.phases: phases must increase, got 4 then 2"),
    ({"target_gpus": 4096, "phases": [0, 2]}, "design.growth.phases: phase 1 must be between 1"),
    ({"target_gpus": 4096, "phases": list(range(1, MAX_PHASES + 2))}, "design.growth.phases: 65 phases"),
    ({"phases": [2, 4]}, "design.growth.phases: phases need a target size"),
    ({"target_gpus": "many"}, "design.growth.target_gpus: expected a whole number"),
    ({"size": 3}, "design.growth.size: unknown field"),
])
def test_bad_plans_name_the_field(tmp_path, growth, expected):
    doc = json.loads(design_to_json(superpod(1)))
    doc["design"]["growth"] = growth
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectFileError) as info:
        load_design(path)
    assert expected in str(info.value)


def test_plan_checks_apply_to_designs_made_in_code():
    with pytest.raises(DesignValidationError):
        FabricDesign(growth=GrowthPlan(target_gpus=512, phases=(8, 8)))
    assert GrowthPlan(512, (2, 4)).phases_text() == "2,4"


def test_grow_command_uses_the_stored_plan(tmp_path):
    path = tmp_path / "b200.json"
    save_design(replace(b200(2), growth=GrowthPlan(16 * 256, (2, 4, 8))), path)
    res = run("grow", str(path), "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["target_gpus"] == 4096
    assert [p["sus"] for p in data["path"]["phases"]] == [2, 4, 8, 16]
    assert data["plan_source"] == {"target": "design", "phases": "design"}
    # The command line wins; its target with the stored phases.
    res = run("grow", str(path), "--to-gpus", "2048", "--json")
    data = json.loads(res.stdout)
    assert [p["sus"] for p in data["path"]["phases"]] == [2, 4, 8]
    assert data["plan_source"] == {"target": "command line", "phases": "design"}
    res = run("grow", str(path), "--phases", "2,16", "--json")
    data = json.loads(res.stdout)
    assert [p["sus"] for p in data["path"]["phases"]] == [2, 16]
    # Ignoring the stored plan: doubling from the design's size.
    res = run("grow", str(path), "--to-gpus", "4096", "--ignore-stored", "--json")
    assert [p["sus"] for p in json.loads(res.stdout)["path"]["phases"]] == [2, 4, 8, 16]
    assert json.loads(res.stdout)["plan_source"]["phases"] == "default"
    res = run("grow", str(path))
    assert res.returncode == 0 and "as stored in the design" in res.stdout
    # Stored phases beyond a smaller target: one line that says where they come from.
    res = run("grow", str(path), "--to-gpus", "1024")
    assert res.returncode == 1 and res.stderr.count("\n") == 1 and "stored in the design" in res.stderr


def test_grow_command_without_any_target_says_so(tmp_path):
    path = tmp_path / "b200.json"
    save_design(b200(2), path)
    res = run("grow", str(path))
    assert res.returncode == 1 and "--to-gpus" in res.stderr and res.stderr.count("\n") == 1
