"""Speed-asymmetric uplinks in the window: the Inspector's Uplink speed (one undo step, the
speeds the switches' port modes allow, its effect in the live metrics) and Explore's axis."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.intent.design import replace_path
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("uplink-speed-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("uplink-speed-window")


CAT = default_catalog()
TWO_PLANE = Path(__file__).resolve().parent.parent / "examples" / "b300-roce-two-plane.json"


def _offered(page) -> list:
    return [page.uplink.itemData(i) for i in range(page.uplink.count())]


def test_the_inspector_offers_the_speeds_every_tier_s_switch_has_a_mode_for(open_window):
    design = load_design(TWO_PLANE)
    window = open_window(design)
    page = window.inspector.fabric_page
    r = window.controller.display.layout.resolved
    offered = _offered(page)
    assert offered[0] is None                       # at the server links' speed, the sizing's default
    speeds = offered[1:]
    assert speeds and all(sw.ports_at(s) for s in speeds for sw in (r.leaf_switch, r.spine_switch))
    every = {m.gbps for sw in CAT.switches.values() for m in sw.port_modes}
    missing = every - set(r.leaf_switch.speeds)
    assert missing and not missing & set(speeds)    # a speed the switch has no mode at is not offered
    assert page.uplink.isEnabled()


def test_choosing_an_uplink_speed_is_one_undo_step_and_the_metrics_follow(open_window):
    design = load_design(TWO_PLANE)
    window = open_window(design)
    page = window.inspector.fabric_page
    cards = window.metrics.cards
    before_links = cards["links"].value.text()
    before_effect = page.uplink_effect
    assert before_links == f"{derive(design, CAT).metrics.links_total:,}"
    steps = window.document.undo_stack.count()
    page.uplink.setCurrentIndex(page.uplink.findData(800))
    assert window.document.undo_stack.count() == steps + 1
    assert window.document.undo_stack.undoText() == "Set uplinks to 800G"
    assert window.document.design.fabric.uplink_gbps == 800
    expected = derive(replace_path(design, "fabric.uplink_gbps", 800), CAT)
    assert cards["links"].value.text() == f"{expected.metrics.links_total:,}" != before_links
    plan, r = expected.plan, expected.resolved
    assert page.uplink_effect in page.uplink.toolTip()
    assert page.uplink_effect == (f"Sized: {plan.leaf_down} x 400G down, {plan.leaf_up} x 800G up per leaf; "
                                         f"{plan.leaf_up * plan.leaves * r.planes:,} leaf-spine links")
    window.document.undo_stack.undo()
    assert window.document.design == design
    assert cards["links"].value.text() == before_links and page.uplink_effect == before_effect
    assert page.uplink.currentData() is None


def test_the_same_design_as_new_with_uplink_speed(open_window, tmp_path, capsys):
    from designer.cli.main import main

    out = tmp_path / "cli.json"
    assert main(["new", "--template", "leaf-spine", "--nodes", "64", "--server", "dgx-b300-eth",
                 "--switch", "sn5600", "--uplink-speed", "800G", "-o", str(out)]) == 0
    capsys.readouterr()
    cli = load_design(out)
    assert cli.fabric.uplink_gbps == 800
    window = open_window(dataclasses.replace(cli, fabric=dataclasses.replace(cli.fabric, uplink_gbps=None)))
    page = window.inspector.fabric_page
    page.uplink.setCurrentIndex(page.uplink.findData(800))
    assert window.document.design.fabric == cli.fabric
    shown = window.metrics.cards["links"].value.text()
    assert main(["metrics", str(out), "--json"]) == 0
    assert shown == f"{json.loads(capsys.readouterr().out)['links']['total']:,}"


def test_a_wheel_over_the_unfocused_uplink_field_changes_nothing(open_window):
    from tests.test_ui_wheel_guard import _wheel

    window = open_window(load_design(TWO_PLANE))
    page = window.inspector.fabric_page
    window.view.setFocus()
    shown, steps = page.uplink.currentIndex(), window.document.undo_stack.count()
    _wheel(page.uplink, -1)
    _wheel(page.uplink, +2)
    assert page.uplink.currentIndex() == shown and window.document.undo_stack.count() == steps


def test_one_tier_has_no_uplinks_to_choose(open_window):
    window = open_window(new_design(CAT, "leaf-spine", gpus=64, technology="ib-ndr"))
    page = window.inspector.fabric_page
    assert window.controller.display.layout.plan.tiers == 1
    assert not page.uplink.isEnabled() and "no switch-to-switch links" in page.uplink_effect


def test_explore_sweeps_uplink_speeds_as_the_command_line_does(make_window, capsys):
    from designer.cli.main import main

    window = make_window(new_design(CAT, "rail-optimized", gpus=1024, server="dgx-b300-eth",
                                    technology="roce-400g", name="Open design"))
    explore = window.explore.show()
    for tech, box in explore.tech_boxes.items():
        box.setChecked(tech == "roce-400g")
    explore.ratios.setText("1:1")
    explore.planes.setText("1")
    for gbps, box in explore.uplink_boxes.items():
        box.setChecked(gbps in (400, 800))
    assert explore.spec().uplink_speeds == (400, 800)
    explore.run()
    shown = sorted((p.choice["uplink_speed"], p.switches, p.capex_usd, p.error) for p in explore.result.points)
    assert main(["sweep", "--gpus", "1024", "--server", explore.server.currentData(), "--technology", "roce-400g",
                 "--template", "rail-optimized", "--planes", "1", "--uplink-speed", "400G,800G", "--workers", "1",
                 "--nodes-per-su", str(explore.spec().nodes_per_su), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)["points"]
    assert shown == sorted((p["choice"]["uplink_speed"], p["switches"], p["capex_usd"], p["error"]) for p in cli)
    headers = [explore.table.horizontalHeaderItem(c).text() for c in range(explore.table.columnCount())]
    up = headers.index("Up")
    built = sorted(f"{p.choice['uplink_speed']}G" for p in explore.result.built)
    assert built == ["400G", "800G"]
    assert sorted(explore.table.item(row, up).text() for row in range(explore.table.rowCount())) == built
    # No uplink speed ticked: the form says so and Run waits.
    for box in explore.uplink_boxes.values():
        box.setChecked(False)
    assert not explore.run_button.isEnabled() and "uplink speed" in explore.error_label.text()
    explore.close()
