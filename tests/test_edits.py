"""Manual edits on top of a template: the graph methods take over and findings speak up."""

import dataclasses

import pytest

from designer.model.intent.design import Edit
from tests.helpers import derived, superpod


def _edited(*edits):
    return derived(dataclasses.replace(superpod(1), edits=tuple(edits)))


def test_removing_a_spine_halves_what_one_leaf_can_send_up():
    base = derived(superpod(1)).metrics
    m = _edited(Edit("remove-device", "spine-1")).metrics
    assert m.bisection_method == "max-flow"
    assert m.switches_by_tier["spine"] == 3
    assert m.links_by_tier["leaf-spine"] == 256 - 64
    assert m.bisection_gbps == pytest.approx(base.bisection_gbps * 3 / 4)


def test_added_links_beyond_the_radix_are_an_error_naming_the_switch():
    m = _edited(Edit("add-links", "leaf-1", "spine-2", 4)).metrics
    errors = [f for f in m.findings if f.code == "ports-beyond-radix"]
    assert {f.element for f in errors} >= {"leaf-1", "spine-2"}
    assert m.links_by_tier["manual"] == 4


def test_a_cut_endpoint_is_reported_and_unknown_devices_do_not_crash():
    m = _edited(Edit("remove-links", "srv-1.nic-1", "leaf-1", 1), Edit("remove-device", "leaf-99")).metrics
    codes = {f.code for f in m.findings}
    assert "disconnected-endpoint" in codes
    assert any(f.code == "edit-not-applied" and "leaf-99" in f.message for f in m.findings)


def test_unequal_uplinks_from_a_spine_override():
    design = superpod(1)
    design = dataclasses.replace(design, fabric=dataclasses.replace(
        design.fabric, spine=dataclasses.replace(design.fabric.spine, count=3)))
    m = derived(design).metrics
    assert m.switches_by_tier["spine"] == 3
    assert any(f.code == "unequal-uplinks" for f in m.findings)
    assert any(f.code == "ports-beyond-radix" for f in m.findings)  # 256 uplinks cannot fit 3 x 64 ports
