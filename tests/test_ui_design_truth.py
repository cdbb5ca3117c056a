"""Nothing on screen disagrees with the design: unpriced parts make every total "incomplete",
and a design with errors shows its figures as invalid, with the reason."""

from __future__ import annotations

import csv
import dataclasses
import io

import pytest

from designer.catalog import default_catalog
from designer.io.bom_csv import bom_to_csv
from designer.model.intent.design import Edit
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import parse_price_book
from designer.model.topology.derive import derive
from designer.ui.services.compute import compute
from tests.helpers import superpod
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("design-truth-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("design-truth-window")


CAT = default_catalog()
ONLY_SWITCHES = parse_price_book('[[price]]\nkey = "qm9700"\nunit_price = 100\n', "mine.toml")


def _bom_missing_prices():
    return build_bom(derive(superpod(1), CAT), CAT, ONLY_SWITCHES)


def test_bom_names_its_unpriced_parts():
    bom = _bom_missing_prices()
    assert bom.incomplete
    parts = bom.unpriced_parts
    assert parts and all(p for p in parts)
    assert "qm9700" not in " ".join(parts).lower()   # the one priced part is not named
    note = bom.incomplete_note()
    assert note.startswith("incomplete: no price for ") and parts[0] in note
    assert bom.to_json()["unpriced_parts"] == parts and bom.to_json()["incomplete"] is True
    complete = build_bom(derive(superpod(1), CAT), CAT)
    assert not complete.incomplete and complete.incomplete_note() == ""


def test_csv_totals_say_incomplete_and_name_the_parts():
    bom = _bom_missing_prices()
    rows = list(csv.reader(io.StringIO(bom_to_csv(bom).lstrip("\ufeff"))))
    by_label = {r[0]: r for r in rows}
    for label in ("Total", "Cost per GPU"):
        assert by_label[label][-1].startswith("incomplete: no price for"), by_label[label]
        assert bom.unpriced_parts[0] in by_label[label][-1]
    complete = build_bom(derive(superpod(1), CAT), CAT)
    rows = {r[0]: r for r in csv.reader(io.StringIO(bom_to_csv(complete).lstrip("\ufeff")))}
    assert "incomplete" not in rows["Total"][-1] and rows["Cost per GPU"][-1] == ""


def test_report_cost_card_says_incomplete(qtbot):
    from designer.ui.export.facts import Facts

    facts = Facts.gather(superpod(1), CAT)
    facts.bom = _bom_missing_prices()
    (cost,) = [c for c in facts.cards() if c.title == "Network cost"]
    assert "incomplete" in str(cost)


def test_cost_card_says_incomplete_and_names_the_parts(qtbot):
    from designer.ui.panels.metrics_panel import MetricsPanel

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    result = compute(superpod(1), CAT, bom="now")
    panel.show_result(result)
    assert "incomplete" not in panel.cards["cost"].detail.text()
    panel.show_result(dataclasses.replace(result, bom=_bom_missing_prices()))
    card = panel.cards["cost"]
    assert card.detail.text().startswith("incomplete: no price for")
    assert card.value.property("tone") == "warning"
    assert "W" in panel.cards["power"].value.text()   # power is known even where a price is not


def test_a_design_with_errors_shows_its_figures_as_invalid(qtbot):
    from designer.ui.panels.metrics_panel import MetricsPanel

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    good = compute(superpod(1), CAT, bom="now")
    panel.show_result(good)
    assert not any(getattr(c, "invalid", False) for c in panel.cards.values())
    broken = dataclasses.replace(superpod(1), edits=(Edit("add-links", "leaf-1", "spine-2", 4),))
    result = compute(broken, CAT, bom="now")
    assert result.metrics.errors
    panel.show_result(result)
    for key in ("bisection", "oversub", "hops", "cost", "power", "allreduce"):
        card = panel.cards[key]
        assert card.invalid and card.value.property("tone") == "stale", key
        assert card.detail.text().startswith("invalid design: "), key
        assert result.metrics.errors[0].message in card.detail.text()
    assert not panel.cards["gpus"].invalid
    panel.show_result(good)
    assert not panel.cards["bisection"].invalid


# --- the generated name and the Tiers choice follow the design ---------------------------------


def test_generated_name_follows_the_gpu_count_until_the_user_types_one(open_window):
    window = open_window()
    assert window.controller.drop_block("template:fat-tree")
    design = window.document.design
    assert design.meta.name == "256-GPU fat-tree"
    page = window.inspector.fabric_page
    page.servers.setValue(128)
    assert window.document.design.meta.name == "1,024-GPU fat-tree"
    assert "1,024-GPU fat-tree" in window.exports.request().design.meta.name
    window.document.undo_stack.undo()
    assert window.document.design.meta.name == "256-GPU fat-tree"
    window.document.undo_stack.redo()
    page.name.setText("Hall B")
    page.name.editingFinished.emit()
    assert window.document.design.meta.name == "Hall B"
    page.servers.setValue(64)
    assert window.document.design.meta.name == "Hall B"


def test_generated_name_follows_a_drag_resize_and_the_switch():
    from designer.model.intent.design import replace_path
    from designer.model.topology.presets import new_design
    from designer.ui.editing.generated_name import follow_generated_name

    old = new_design(CAT, "fat-tree", gpus=1024, switch="qm9700")
    assert old.meta.name == "1,024 GPU fat-tree on Quantum-2 QM9700"
    grown = replace_path(old, "cluster.servers", old.cluster.servers * 2)
    assert follow_generated_name(old, grown, CAT).meta.name == "2,048 GPU fat-tree on Quantum-2 QM9700"
    other_switch = replace_path(old, "fabric.switch", "generic-64x400g")
    assert follow_generated_name(old, other_switch, CAT).meta.name.endswith(
        f" on {CAT.switch('generic-64x400g').name}")
    mine = replace_path(old, "meta.name", "1,024 GPUs for team A")
    assert follow_generated_name(mine, replace_path(mine, "cluster.servers", 2), CAT).meta.name == \
        "1,024 GPUs for team A"


def test_tiers_auto_says_what_auto_builds(open_window):
    from designer.model.intent.design import replace_path
    from designer.model.topology.derive import plan_only
    from designer.model.topology.presets import new_design

    design = new_design(CAT, "leaf-spine", gpus=256)
    fixed = replace_path(design, "fabric.tiers", 3)
    window = open_window(fixed)
    box = window.inspector.fabric_page.tiers
    _, auto_plan = plan_only(design, CAT)
    assert auto_plan.tiers == 2
    assert box.itemText(0) == "Auto (2)"
    box.setCurrentIndex(0)
    box.activated.emit(0)
    assert window.document.design.fabric.tiers is None
    assert window.controller.display.layout.plan.tiers == 2
    assert box.itemText(0) == "Auto (2)"


# --- the view follows a growing fabric unless the user zoomed ------------------------------------


def test_view_refits_when_the_fabric_outgrows_it_unless_zoomed(open_window):
    from designer.model.topology.presets import new_design

    window = open_window(new_design(CAT, "leaf-spine", gpus=256))
    view = window.view
    view.fit()
    fitted = view.sx
    window.inspector.fabric_page.servers.setValue(1024)
    assert view.sx < fitted
    assert not view._outgrown()
    view.zoom_by(2.0)
    zoomed = view.sx
    window.inspector.fabric_page.servers.setValue(2048)
    assert view.sx == zoomed   # the user's zoom is kept
    view.fit()
    assert not view._outgrown()


def test_bandwidth_and_power_read_the_same_in_the_window_and_the_report(qtbot):
    from designer.model.common.units import bandwidth_label, power_label
    from designer.ui.export.facts import Facts
    from designer.ui.panels.metrics_panel import MetricsPanel

    assert bandwidth_label(26_051_200) == "26.05 Pb/s" and bandwidth_label(409_600) == "409.6 Tb/s"
    assert power_label(5_571_000) == "5.57 MW"
    panel = MetricsPanel()
    qtbot.addWidget(panel)
    result = compute(superpod(1), CAT, bom="now")
    panel.show_result(result)
    cards = {c.title: c for c in Facts.gather(superpod(1), CAT).cards()}
    plain = panel.cards["bisection"].value.text().replace("&nbsp;", " ")
    assert cards["Bisection"].value.split(" ")[0] in plain
    assert cards["Network power"].value.split(" ")[0] in panel.cards["power"].value.text()


def test_the_all_reduce_card_of_an_oversubscribed_fabric_shows_both_placements(qtbot):
    """A deleted spine leaves the packed all-reduce at its intact rate: the card says how much of
    the traffic meets the uplinks, and what the same job gets with its ranks spread."""
    from designer.model.performance import collectives as C
    from designer.model.topology.presets import new_design
    from designer.ui.panels.metrics_panel import MetricsPanel

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    design = new_design(CAT, "leaf-spine", nodes=24, server="dgx-h100")
    edited = dataclasses.replace(design, edits=(Edit(op="remove-device", a="spine-1"),))
    result = compute(edited, CAT)
    panel.show_result(result)
    spread = C.estimate(derive(edited, CAT), "allreduce", design.performance.message_size_bytes, placement="spread")
    detail = panel.cards["allreduce"].detail.text()
    assert "(packed ranks): the uplinks keep up" in detail
    assert f"with ranks spread: {spread.busbw_GBps:,.0f} GB/s, limited by oversubscription at leaf tier" in detail
    # the intact fabric is not oversubscribed: one figure, no second reading
    panel.show_result(compute(design, CAT))
    assert "with ranks" not in panel.cards["allreduce"].detail.text()
