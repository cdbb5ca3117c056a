"""The whole-design edits behind the window's gestures (designer.model.topology.edits); no Qt needed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.intent.design import Edit
from designer.model.topology.derive import plan_only
from designer.model.topology.edits import (
    add_links,
    count_step,
    remove_device,
    tier_count,
    with_server,
    with_technology,
    with_tier_count,
    with_tiers,
    without_edits,
)
from designer.model.topology.presets import new_design
from tests.helpers import examples

CAT = default_catalog()


def _sized(design):
    resolved, plan = plan_only(design, CAT)
    return design, resolved, plan


@given(st.integers(min_value=1, max_value=48))
@settings(max_examples=examples(30), deadline=None)
def test_a_two_tier_spine_count_is_what_the_plan_gets(count):
    design, r, plan = _sized(new_design(CAT, "leaf-spine", gpus=1024))
    resized = with_tier_count(design, plan, r, "spine", count)
    _, _, plan2 = _sized(resized)
    assert tier_count(resized, plan2, "spine") == count


def test_three_tier_spines_move_in_steps_of_one_per_pod():
    design, r, plan = _sized(new_design(CAT, "rail-optimized", gpus=16384, switch="qm9700"))
    step = count_step(design, plan, r, "spine")
    assert step == plan.pods == 64
    resized = with_tier_count(design, plan, r, "spine", plan.spines - step)
    _, _, plan2 = _sized(resized)
    assert plan2.spines == plan.spines - step
    assert plan2.spines_per_pod == plan.spines_per_pod - 1


def test_rail_optimized_leaves_come_in_whole_scalable_units():
    design, r, plan = _sized(new_design(CAT, "rail-optimized", gpus=1024))
    assert count_step(design, plan, r, "leaf") == r.rails == 8
    resized = with_tier_count(design, plan, r, "leaf", plan.leaves + 8)
    assert resized.cluster.servers == design.cluster.servers + 32
    _, _, plan2 = _sized(resized)
    assert plan2.leaves == plan.leaves + 8


def test_auto_sizing_and_bad_counts():
    design, r, plan = _sized(new_design(CAT, "leaf-spine", gpus=1024))
    fixed = with_tier_count(design, plan, r, "leaf", 40)
    assert fixed.fabric.leaf.count == 40
    assert with_tier_count(fixed, plan, r, "leaf", None).fabric.leaf.count is None
    with pytest.raises(ValueError):
        with_tier_count(design, plan, r, "spine", 0)
    with pytest.raises(ValueError):
        with_tier_count(design, plan, r, "servers", None)


def test_tiers_and_the_core_override():
    design, r, plan = _sized(new_design(CAT, "fat-tree", gpus=4096))
    assert plan.tiers == 3
    three = with_tier_count(design, plan, r, "core", 64)
    assert three.fabric.core.count == 64
    assert _sized(three)[2].cores == 64
    two = with_tiers(three, 2)
    assert two.fabric.tiers == 2 and two.fabric.core.count is None
    assert with_tiers(design, None).fabric.tiers is None


def test_switching_technology_replaces_switches_that_cannot_run_it():
    design = new_design(CAT, "leaf-spine", gpus=256)
    eth = with_technology(design, CAT, "roce-400g")
    r, _ = plan_only(eth, CAT)
    assert r.family == "ethernet"
    assert r.leaf_switch.family in ("ethernet", "any")
    back = with_technology(eth, CAT, "ib-ndr")
    assert back.fabric.switch == "qm9700"
    xdr = with_technology(design, CAT, "ib-xdr")
    assert xdr.fabric.link_gbps == 800  # DGX H100 ports are 400G: the finding will say so


def test_changing_server_model_resets_per_server_overrides():
    design = new_design(CAT, "leaf-spine", gpus=256, gpus_per_node=4)
    changed = with_server(design, CAT, "dgx-b300-eth")
    assert changed.cluster.gpus_per_server is None and changed.cluster.ports_per_server is None
    assert changed.fabric.planes == 2  # the two-plane Ethernet reference design
    r, plan = plan_only(changed, CAT)
    assert r.planes == 2 and plan.endpoints * 2 == changed.cluster.servers * r.ports_per_server


def test_manual_edits_add_and_remove():
    design = new_design(CAT, "leaf-spine", gpus=256)
    linked = add_links(design, "leaf-1", "spine-2", 2)
    assert linked.edits == (Edit("add-links", "leaf-1", "spine-2", 2),)
    removed = remove_device(linked, "spine-4")
    assert removed.edits[-1] == Edit("remove-device", "spine-4")
    assert without_edits(removed, [0]).edits == (Edit("remove-device", "spine-4"),)
    with pytest.raises(ValueError):
        add_links(design, "leaf-1", "leaf-1")
