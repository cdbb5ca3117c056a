"""Compare > Add Counterpart > Every Ethernet Fabric: the window's `compare --counterpart ethernet`."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.io.project import load_design
from designer.model.decisions.counterpart import ETHERNET_CHOICES
from tests.test_ui_compare import ScriptedCompareDialogs
from tests.window_fixtures import counterpart, window_per_module

_module_window, _open_window = window_per_module("compare-ethernet-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("compare-ethernet-window")


SUPERPOD = Path(__file__).resolve().parent.parent / "examples" / "dgx-h100-superpod-1su.json"
ROCE = Path(__file__).resolve().parent.parent / "examples" / "roce-512-leaf-spine-sn5600.json"


def test_every_ethernet_fabric_sets_all_four_beside_the_infiniband_design(open_window):
    window = open_window(load_design(SUPERPOD), SUPERPOD)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.update_actions()
    assert launcher.ethernet_action.isEnabled()
    launcher.ethernet_action.trigger()
    comparison = launcher.window.comparison
    assert comparison.technologies == ("ib-ndr", *ETHERNET_CHOICES)
    assert "roce-sched-400g" in comparison.technologies


def test_an_ethernet_design_has_no_every_ethernet_choice(open_window):
    window = open_window(load_design(ROCE), ROCE)
    window.compare_launcher.update_actions()
    assert not window.compare_launcher.ethernet_action.isEnabled()


def test_counterparts_build_off_the_ui_thread_and_only_the_newest_request_shows(make_window, qtbot):
    window = make_window(load_design(SUPERPOD), SUPERPOD, synchronous=False, compute_backend="thread")
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    assert launcher.add_counterpart("roce-400g")
    assert launcher.add_counterparts(ETHERNET_CHOICES[1:3])
    # Both requests were started before the event loop ran: neither has shown anything yet.
    assert launcher.window is None
    qtbot.waitUntil(lambda: launcher.window is not None and launcher.window.comparison is not None,
                    timeout=120_000)
    assert launcher.window.comparison.technologies == ("ib-ndr", *ETHERNET_CHOICES[1:3])


def test_five_designs_keep_every_chart_label_whole_at_1280x800(qtbot):
    from PySide6.QtGui import QFontMetrics

    from designer.catalog import default_catalog
    from designer.ui.compare.compare_window import CompareWindow, Entry

    catalog = default_catalog()
    design = load_design(SUPERPOD)
    window = CompareWindow(catalog, ScriptedCompareDialogs(), synchronous=True)
    qtbot.addWidget(window)
    entries = [Entry(design, SUPERPOD)] + [Entry(counterpart(design, t, catalog).design, unsaved=True)
                                           for t in ETHERNET_CHOICES]
    assert window.set_entries(entries)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(20)
    charts = window.charts
    for bar in (charts.capex, charts.power, charts.tco):
        bar._fit_ticks()
        window.grab()          # paints: pyqtgraph places its text items as it draws them
        labels = [lab for lab in bar.labels if lab.isVisible()]
        assert len(labels) == 5
        fm = QFontMetrics(labels[0].textItem.font())
        widest = max(fm.horizontalAdvance(lab.textItem.toPlainText()) for lab in labels)
        room = bar.widget.getViewBox().width() / 5
        # Side by side where they fit; turned up along their bars where they would collide.
        assert all(lab.angle == (90 if widest + 4 > room else 0) for lab in labels)
        vb = bar.widget.getViewBox()
        low, high = vb.viewRange()[1]
        per_px = (high - low) / vb.height()
        reach = (widest if widest + 4 > room else fm.height()) * per_px
        for lab in labels:
            assert lab.pos().y() + reach <= high   # the number ends inside the plot
    for key in (charts.busbw.key, charts.cost.key):
        assert len(key.entries) == 5
        assert key.height() >= key.heightForWidth(key.width())            # wrapped, not cut
        assert key.width() <= charts.width()
