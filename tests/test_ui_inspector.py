"""The inspector edits the selection through commands, and says inline why an edit cannot apply."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.topology.derive import plan_only
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module


def _design(template="leaf-spine", gpus=256, **kw):
    return new_design(default_catalog(), template, gpus=gpus, **kw)


_module_window, _open_window = window_per_module("inspector-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("inspector-window")


def test_editing_the_server_count_updates_the_metrics(open_window):
    window = open_window(_design())
    page = window.inspector.fabric_page
    assert window.metrics.cards["gpus"].value.text() == "256"
    page.servers.setValue(64)
    assert window.document.design.cluster.servers == 64
    assert window.metrics.cards["gpus"].value.text() == "512"
    assert page.total.text() == "<b>512</b>"
    assert window.document.undo_stack.undoText() == "Set servers to 64"


def test_selecting_a_tier_shows_its_page_and_edits_it(open_window):
    window = open_window(_design(gpus=1024))
    window.controller.selection.set(["tier:leaf"])
    inspector = window.inspector
    assert inspector.stack.currentWidget() is inspector.tier_page
    page = inspector.tier_page
    assert page.title.text() == "Leaf tier"
    page.ratio.setEditText("3:1")
    page.ratio.lineEdit().editingFinished.emit()
    assert window.document.design.fabric.leaf.oversubscription == 3.0
    m = window.compute.latest.metrics
    assert m.oversubscription("leaf") > 1.5
    assert window.metrics.cards["oversub"].value.text().endswith(":1")
    assert window.metrics.cards["oversub"].value.text() != "1:1"


def test_more_ports_than_the_switch_has_shows_a_red_hint(open_window):
    window = open_window(_design(gpus=1024))
    window.controller.selection.set(["tier:leaf"])
    page = window.inspector.tier_page
    page.count.setValue(8)  # 1024 endpoints on 8 leaves: 128 downlinks per leaf
    assert window.document.design.fabric.leaf.count == 8
    assert page.problems.isVisible()
    assert "needs" in page.problems.text() and "ports" in page.problems.text()
    assert "#d64545" in page.problems.text()  # red
    assert "% of the switch" in page.split.text()
    # the finding is also on the canvas and in the findings list
    assert window.scene.problem_color("tier:leaf") is not None
    assert window.metrics.findings.count() >= 1


def test_an_edit_that_cannot_be_sized_is_refused_inline_and_changes_nothing(open_window):
    design = _design(gpus=16384, switch="qm9700")
    window = open_window(design)
    page = window.inspector.fabric_page
    page.tiers.setCurrentIndex(page.tiers.findData(2))  # 16K GPUs do not fit two tiers
    assert window.document.design is design
    assert window.document.undo_stack.count() == 0
    assert page.refused.isVisible()
    assert "two tiers" in page.refused.text()
    assert page.tiers.currentData() is None  # the field shows the design again


def test_changing_technology_to_ethernet_swaps_the_switches(open_window):
    window = open_window(_design())
    page = window.inspector.fabric_page
    page.family.setCurrentIndex(page.family.findData("ethernet"))
    design = window.document.design
    resolved, _ = plan_only(design)
    assert resolved.family == "ethernet"
    assert resolved.leaf_switch.family in ("ethernet", "any")
    assert window.scene.layout.resolved.family == "ethernet"
    assert window.palette_panel.technology.currentData() == design.fabric.technology


def test_switching_the_family_keeps_the_link_speed(open_window):
    # The catalog reads its end-of-life InfiniBand file first: the family switch must not take
    # the first InfiniBand it lists (QDR 40G) for a 400G RoCE design.
    window = open_window(_design(technology="roce-400g"))
    page = window.inspector.fabric_page
    page.family.setCurrentIndex(page.family.findData("infiniband"))
    assert window.document.design.fabric.technology == "ib-ndr"
    assert window.document.undo_stack.count() == 1
    page.family.setCurrentIndex(page.family.findData("ethernet"))
    assert window.document.design.fabric.technology == "roce-400g"


def test_the_scheduled_fabric_is_a_technology_choice_whose_cell_switch_is_no_fabric_switch(open_window):
    window = open_window(_design("rail-optimized", technology="roce-ecmp-400g"))
    page = window.inspector.fabric_page
    choices = [page.generation.itemData(i) for i in range(page.generation.count())]
    assert "roce-sched-400g" in choices and "roce-400g" in choices
    page.generation.setCurrentIndex(page.generation.findData("roce-sched-400g"))
    design = window.document.design
    assert design.fabric.technology == "roce-sched-400g" and design.fabric.switch == "jericho3-ai-leaf"
    switches = [page.switch.itemData(i) for i in range(page.switch.count())]
    assert "jericho3-ai-leaf" in switches and "ramon3-fabric" not in switches
    assert window.compute.latest.metrics.switches_by_model.get("ramon3-fabric", 0) > 0


def test_a_scheduled_leaf_offers_only_its_fabric_element_for_the_spine(open_window):
    window = open_window(_design("rail-optimized", technology="roce-sched-400g"))
    assert window.document.design.fabric.switch == "jericho3-ai-leaf"
    window.controller.selection.set(["tier:spine"])
    page = window.inspector.tier_page
    choices = [page.switch.itemData(i) for i in range(page.switch.count())]
    assert choices == [None, "ramon3-fabric"]
    assert "Ramon3" in page.switch.itemText(0)
    window.controller.selection.set(["tier:leaf"])
    leaves = [page.switch.itemData(i) for i in range(page.switch.count())]
    assert "ramon3-fabric" not in leaves and "jericho3-ai-leaf" in leaves


def test_a_plain_leaf_offers_no_fabric_element_for_the_spine(open_window):
    window = open_window(_design("rail-optimized", technology="roce-ecmp-400g"))
    window.controller.selection.set(["tier:spine"])
    page = window.inspector.tier_page
    choices = [page.switch.itemData(i) for i in range(page.switch.count())]
    assert "tomahawk5-51t" in choices and "ramon3-fabric" not in choices


def test_a_project_with_a_tomahawk_spine_on_scheduled_leaves_opens_with_one_line_why(make_window, tmp_path):
    import dataclasses

    from designer.io.project import save_design

    design = _design("rail-optimized", technology="roce-sched-400g")
    spine = dataclasses.replace(design.fabric.spine, switch="tomahawk5-51t")
    path = tmp_path / "sched.json"
    save_design(dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, spine=spine)), path)
    window = make_window(design)
    assert window.files.open(path, ask=False) is True and window.dialogs.errors == []
    error = window.compute.latest.error
    assert error and "\n" not in error and "Tomahawk 5" in error and "fabric element" in error
    assert window.metrics.cards["gpus"].value.text() == "Cannot size"
