"""The Compare window's fleet and batch assumptions: set there, used by the comparison, named in
the recommendation, and back to the defaults with one button."""

from __future__ import annotations

from pathlib import Path

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.comparison import CompareSettings
from designer.ui.compare.compare_window import CompareWindow, Entry
from tests.test_ui_compare import ScriptedCompareDialogs
from tests.window_fixtures import counterpart

SUPERPOD = Path(__file__).resolve().parent.parent / "examples" / "dgx-h100-superpod-1su.json"


def test_fleet_and_batch_set_in_the_window_reach_the_comparison_and_its_text(qtbot):
    catalog = default_catalog()
    design = load_design(SUPERPOD)
    window = CompareWindow(catalog, ScriptedCompareDialogs(), synchronous=True)
    qtbot.addWidget(window)
    assert window.set_entries([Entry(design, SUPERPOD),
                               Entry(counterpart(design, "roce-ecmp-400g", catalog).design, unsaved=True)])
    box = window.panel.assumptions
    assert window.comparison.fleet.placement == "scattered"      # the fleet default, named
    box.placement.setCurrentIndex(box.placement.findData("packed"))
    box.background.setValue(30)
    box.global_batch.setValue(2.0)
    box.schedule.setCurrentIndex(box.schedule.findData("interleaved:4"))
    s = window.settings
    assert (s.placement, s.background_load, s.global_batch_tokens) == ("packed", 0.3, 2 * 2**20)
    assert (s.pipeline_schedule, s.virtual_stages) == ("interleaved", 4)
    c = window.comparison
    assert c.fleet.placement == "packed" and c.fleet.background_load == 0.3
    assert c.steps[0].workload.global_batch_tokens == 2 * 2**20 and c.steps[0].plan.virtual_stages == 4
    assert not box.occupancy.isEnabled()      # busy servers matter only to scattered ranks
    html = window.panel.reasons.toHtml()
    assert "Assumed" in html and "30% of every uplink" in html and "2,097,152 tokens" in html
    box.reset.click()
    assert window.settings == CompareSettings()
    assert box.placement.currentIndex() == 0 and box.global_batch.value() == 0


def test_infiniband_static_routing_is_a_counterpart_of_an_infiniband_design_only(make_window):
    window = make_window(load_design(SUPERPOD), SUPERPOD)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.update_actions()
    assert launcher.static_action.isEnabled() and launcher.ethernet_action.isEnabled()
    launcher.static_action.trigger()
    comparison = launcher.window.comparison
    assert comparison.technologies == ("ib-ndr", "ib-ndr")
    assert comparison.names[1].endswith("static routing")
    assert launcher.window.entries[1].design.performance.adaptive_routing is False
    roce = load_design(SUPERPOD.parent / "roce-512-leaf-spine-sn5600.json")
    window.document.load(roce, None)
    launcher.update_actions()
    assert not launcher.static_action.isEnabled()
