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
