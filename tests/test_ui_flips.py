"""The Compare window shows when the verdict would flip."""

from __future__ import annotations

from designer.model.decisions.comparison import CompareSettings, compare
from tests.test_ui_compare import _no_compare_thread_left, _pair, catalog, make_compare, superpod  # noqa: F401


def test_the_recommendation_panel_lists_each_break_even(make_compare, superpod, catalog):
    entries = _pair(superpod, catalog)
    window = make_compare(entries)
    expected = compare([e.design for e in entries], CompareSettings(), catalog)
    text = window.panel.reasons.toPlainText()
    assert "When it would flip" in text
    assert expected.recommendation.flips
    for flip in expected.recommendation.flips:
        # Each break-even's own sentence appears (as the panel capitalises it).
        line = flip.line()
        assert line[1:40] in text, line


def test_the_workload_choice_drives_the_example_job(make_compare, superpod, catalog):
    window = make_compare(_pair(superpod, catalog))
    box = window.panel.assumptions
    assert box.settings.workload == "dense-70b"
    assert not box.params.isEnabled() and not box.compute_ms.isEnabled()
    seen = []
    box.settingsChanged.connect(seen.append)
    box.workload.setCurrentIndex(box.workload.findData(""))
    assert seen and seen[-1].workload is None
    assert box.params.isEnabled() and box.compute_ms.isEnabled()
    box.workload.setCurrentIndex(box.workload.findData("moe-deepseek-v3"))
    assert seen[-1].workload == "moe-deepseek-v3" and not box.params.isEnabled()
