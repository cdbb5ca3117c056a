"""The Compare window reads the comparison right: share rows change in points, a close call shows."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions import dollar_comparison
from designer.model.decisions.comparison import compare
from designer.model.decisions.training_cost import Confidence
from tests.window_fixtures import counterpart

SUPERPOD = "examples/dgx-h100-superpod-1su.json"


@pytest.fixture(scope="module")
def pair():
    ib = load_design(SUPERPOD)
    return [ib, counterpart(ib, "roce-ecmp-400g", default_catalog()).design]


def test_the_table_shows_a_share_row_in_points_and_a_count_in_percent(qtbot, pair):
    from designer.ui.compare.compare_table import CompareTableModel
    from designer.ui.compare.palette import design_styles
    from designer.ui.theme import Theme

    c = compare(pair)
    theme = Theme()
    model = CompareTableModel(theme)
    model.set_comparison(c, design_styles(c, theme, default_catalog()))
    delta_col = model.value_column(1) + 1
    share = model.index(model.row_of("win_share_pct"), delta_col)
    wins = c.row("win_share_pct").values
    assert share.data() == f"{wins[1] - wins[0]:+,.1f} pt"
    assert "percentage points" in model.data(share, 3)   # the tooltip
    count = model.index(model.row_of("switches"), delta_col)
    assert count.data().endswith("%") and "pt" not in count.data()


def test_the_recommendation_names_a_close_call(qtbot, monkeypatch, pair):
    from designer.ui.compare.recommendation_panel import RecommendationPanel

    plain = compare(pair)
    units = plain.row("cost_per_mtok_usd").values
    point = min(range(2), key=lambda i: units[i])
    shares = (0.3, 0.7) if point == 0 else (0.7, 0.3)
    monkeypatch.setattr(dollar_comparison, "confidence", lambda *a, **k: Confidence(
        1000, 7, shares, ((1.0, 1.0, 1.0),) * 2, (0.0, 1.0), ((1000,),) * 2, "USD per million tokens"))
    c = compare(pair)
    panel = RecommendationPanel()
    qtbot.addWidget(panel)
    panel.show_comparison(c)
    assert panel.verdict.text().startswith("Close call:") and "70%" in panel.verdict.text()
    assert "close call" in panel.badge.text()
    # Ranges apart and the point winner cheapest in every draw: no close call. (Ranges that
    # overlap are a close call at any size, as they are on these two designs' own draws.)
    apart = ((1.0, 1.0, 1.0), (2.0, 2.0, 2.0)) if point == 0 else ((2.0, 2.0, 2.0), (1.0, 1.0, 1.0))
    monkeypatch.setattr(dollar_comparison, "confidence", lambda *a, **k: Confidence(
        1000, 7, (1.0, 0.0) if point == 0 else (0.0, 1.0), apart, (0.0, 1.0), ((1000,),) * 2,
        "USD per million tokens"))
    settled = compare(pair)
    panel.show_comparison(settled)
    assert not panel.verdict.text().startswith("Close call:") and "close call" not in panel.badge.text()
    panel.show_comparison(plain)
    assert plain.confidence.overlap(0, 1) == panel.verdict.text().startswith("Close call:")
