"""The comparison reads right: share rows change in percentage points, and a point verdict that
the draws do not back says so in its first line (text, JSON, CSV)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.cmd_compare import render_text
from designer.io.compare_csv import compare_rows
from designer.io.project import load_design
from designer.model.decisions import dollar_comparison
from designer.model.decisions.comparison import compare
from designer.model.decisions.counterpart import ETHERNET_CHOICES, make_counterpart
from designer.model.decisions.rows import Row
from designer.model.decisions.training_cost import Confidence
from designer.model.decisions.verdict import close_call

CAT = default_catalog()
EXAMPLE = "examples/dgx-h100-superpod-1su.json"


def test_a_share_row_changes_in_points_and_a_count_in_percent():
    share = Row("win_share_pct", "Cheapest in (1,000 draws)", "%", (33.9, 66.5, 0.0), "higher")
    assert share.delta_unit == "pt"
    assert share.deltas == pytest.approx((0.0, 32.6, -33.9))
    assert share.delta_text(share.deltas[1]) == "+32.6 pt"
    assert share.delta_pct == (None, None, None)
    # A baseline share of 0% still has a difference in points (a change in % would divide by zero).
    zero = Row("win_share_pct", "Cheapest in", "%", (0.0, 48.0), "higher")
    assert zero.deltas == (0.0, 48.0) and zero.delta_text(48.0) == "+48.0 pt"
    count = Row("switches", "Switches", "", (12.0, 6.0), "lower")
    assert count.delta_unit == "%" and count.deltas == (0.0, -50.0) and count.delta_text(-50.0) == "-50.0%"
    assert count.delta_pt == (None, None)
    nothing = Row("failures_month", "Failures", "", (0.0, 3.0), "lower")
    assert nothing.deltas == (None, None)    # +inf % against zero is no figure


@pytest.fixture(scope="module")
def five():
    ib = load_design(EXAMPLE)
    return compare([ib] + [make_counterpart(ib, t, CAT).design for t in ETHERNET_CHOICES])


def test_every_share_row_of_the_comparison_shows_points_in_text_json_and_csv(five):
    shares = [r for r in five.rows if r.unit == "%"]
    assert {"win_share_pct", "bisection_ratio", "comm_share", "load_balance_pct"} <= {r.key for r in shares}
    text = render_text(five)
    line = next(x for x in text.splitlines() if x.startswith("Cheapest in"))
    wins = five.row("win_share_pct").values
    assert f"{wins[2] - wins[0]:+.1f} pt" in line and "%  " not in line.split("%", 1)[1]
    rows = {r["key"]: r for r in five.to_json()["rows"]}
    assert rows["win_share_pct"]["delta_unit"] == "pt"
    assert rows["win_share_pct"]["delta_pt"] == pytest.approx([w - wins[0] for w in wins])
    assert rows["win_share_pct"]["delta_pct"] == [None] * 5
    assert rows["capex_usd"]["delta_unit"] == "%" and rows["capex_usd"]["delta_pt"] == [None] * 5
    table = compare_rows(five)
    header = table[0]
    row = next(r for r in table if r[1].startswith("Cheapest in"))
    pct = [row[i] for i, h in enumerate(header) if h.startswith("Delta vs baseline (%)")]
    pt = [row[i] for i, h in enumerate(header) if h.startswith("Delta vs baseline (pt)")]
    assert pct == [""] * 4 and [float(x) for x in pt] == pytest.approx([w - wins[0] for w in wins[1:]])


def _draws(shares, ranges=None):
    n = len(shares)
    # p10-p90 ranges apart unless given: the draws alone decide the close call.
    ranges = ranges or tuple((1.0 + 10 * i, 1.5 + 10 * i, 2.0 + 10 * i) for i in range(n))
    return Confidence(1000, 7, tuple(shares), tuple(ranges), (0.0, 1.0), ((1000,),) * n,
                      "USD per million tokens")


def test_close_call_when_another_design_wins_more_draws():
    assert close_call(_draws((0.26, 0.48, 0.26)), 0).draws_winner == 1
    assert close_call(_draws((0.48, 0.26, 0.26)), 0) is None
    assert close_call(_draws((0.5, 0.5)), 0) is None     # a tie on draws: the point winner leads too
    assert close_call(None, 0) is None


def test_close_call_whenever_the_leaders_p10_p90_ranges_overlap():
    apart = ((1.0, 1.1, 1.2), (1.3, 1.4, 1.5), (2.0, 2.1, 2.2))
    assert close_call(_draws((0.9, 0.1, 0.0), apart), 0, (1.1, 1.4, 2.1)) is None
    touching = ((1.0, 1.1, 1.3), (1.25, 1.4, 1.5), (2.0, 2.1, 2.2))
    call = close_call(_draws((0.9, 0.1, 0.0), touching), 0, (1.1, 1.4, 2.1))
    assert call is not None and call.overlap and not call.more_draws and call.draws_winner == 1
    assert "p10-p90 ranges overlap" in call.text(("a", "b", "c"))
    # The runner-up is the next cheapest at book prices, not a twin that costs the same.
    twin = ((1.0, 1.1, 1.2), (1.0, 1.1, 1.2), (1.15, 1.3, 1.5))
    call = close_call(Confidence(1000, 7, (0.0, 0.0, 0.1), twin, (0.0, 1.0), ((1000,),) * 3, "USD",
                                 tie_share=(0.9, 0.9, 0.0), tied=0.9), 0, (1.1, 1.1, 1.3))
    assert call is not None and call.draws_winner == 2 and call.book_share == pytest.approx(0.9)


def test_a_point_winner_that_loses_the_draws_is_named_a_close_call(monkeypatch, five):
    units = five.row("cost_per_mtok_usd").values
    point = min(range(5), key=lambda i: units[i])
    other = (point + 1) % 5
    shares = [0.0] * 5
    shares[point], shares[other] = 0.26, 0.48
    shares[(point + 2) % 5] = 0.26
    # The draws, constructed: another design is cheapest in more of them than the point winner.
    real = dollar_comparison.confidence
    monkeypatch.setattr(dollar_comparison, "confidence", lambda *a, **k: _draws(shares))
    ib = load_design(EXAMPLE)
    c = compare([ib] + [make_counterpart(ib, t, CAT).design for t in ETHERNET_CHOICES])
    monkeypatch.setattr(dollar_comparison, "confidence", real)
    rec = c.recommendation
    assert rec.close_call is not None and rec.close_call.book_winner == point
    first = rec.verdict.splitlines()[0]
    assert first.startswith("Close call:")
    assert c.names[point] in first and c.names[other] in first
    assert "26%" in first and "48%" in first and "book prices" in first
    text = render_text(c)
    assert next(x for x in text.splitlines() if x.startswith("Recommendation")).count("Close call:") == 1
    doc = json.loads(json.dumps(c.to_json()))
    assert doc["recommendation"]["verdict"] == rec.verdict
    assert doc["recommendation"]["close_call"] == {
        "book_price_winner": c.names[point], "book_price_winner_share": 0.26,
        "most_draws_winner": c.names[other], "most_draws_share": 0.48, "draws": 1000,
        "p10_p90_overlap": False, "other_leader": c.names[other], "other_leader_wins_more_draws": True}
    assert any(r[0] == "Recommendation (heuristic)" and r[1].startswith("Close call:") for r in compare_rows(c))


def test_a_point_winner_that_ties_its_twin_is_judged_against_the_next_design(five):
    # In one SU static and enhanced ECMP cost the same in every draw: they tie, and the close call
    # (their p10-p90 range overlaps the next design's) names that next design, not the twin.
    conf = five.confidence
    units = five.row("cost_per_mtok_usd").values
    point = min(range(5), key=lambda i: units[i])
    twin = next(i for i in range(5) if i != point and units[i] == pytest.approx(units[point], rel=1e-12))
    assert conf.win_share[point] == 0 and conf.tie_share[point] == conf.tie_share[twin] > 0
    call = five.recommendation.close_call
    assert call is not None and call.draws_winner not in (point, twin) and call.overlap
    assert five.recommendation.verdict.startswith("Close call: " + five.names[point])
    assert five.to_json()["recommendation"]["close_call"]["p10_p90_overlap"] is True


@given(unit=st.sampled_from(["%", "", "USD", "ms", "GB/s"]),
       values=st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), min_size=2, max_size=5))
def test_each_row_has_its_deltas_in_exactly_one_unit(unit, values):
    row = Row("k", "label", unit, tuple(values), "lower")
    pct, pt = row.delta_pct, row.delta_pt
    assert len(pct) == len(pt) == len(values)
    if unit == "%":
        assert all(d is None for d in pct)
        assert all((d is None) == (values[0] is None or v is None) for d, v in zip(pt, values, strict=True))
        assert all(d is None or row.delta_text(d).endswith(" pt") for d in pt)
    else:
        assert all(d is None for d in pt)
        assert all(d is None or row.delta_text(d).endswith("%") for d in pct)
        if values[0] in (None, 0):
            assert all(d is None for d in pct)


def test_overlapping_ranges_are_a_close_call_even_where_one_design_wins_every_draw():
    """The issue's rule: a close call whenever the leaders' p10-p90 ranges overlap. Where the
    draws never reverse them the close call says why (what both share), and neither share
    reads as 0% or 100%."""
    touching = ((1.0, 1.1, 1.3), (1.25, 1.4, 1.5))
    close = close_call(_draws((1.0, 0.0), touching), 0, (1.1, 1.4))
    assert close is not None and close.overlap and not close.more_draws
    text = close.text(["A", "B"])
    assert "<1%" in text and ">99%" in text and "0%" not in text.replace("<1%", "").replace(">99%", "")
    assert "100%" not in text and "what both share" in text and "A costs less in every one" in text
    apart = ((1.0, 1.1, 1.2), (1.25, 1.4, 1.5))
    assert close_call(_draws((1.0, 0.0), apart), 0, (1.1, 1.4)) is None


def test_the_share_row_of_an_overlapping_close_calls_leaders_is_never_0_or_100():
    """The table's 'Cheapest in' cells of the two leaders read '<1' and '>99' where they count 0
    and 1,000 of 1,000 and the ranges overlap; another design's 0 stays a counted 0, and apart
    ranges keep the counted figures."""
    from designer.model.decisions.verdict import leader_share_cell

    touching = ((1.0, 1.1, 1.3), (1.25, 1.4, 1.5), (2.0, 2.1, 2.2))
    close = close_call(_draws((1.0, 0.0, 0.0), touching), 0, (1.1, 1.4, 2.1))
    assert close is not None and close.overlap
    assert [leader_share_cell(close, i, v) for i, v in enumerate((100.0, 0.0, 0.0))] == [">99", "<1", None]
    assert leader_share_cell(close, 0, 57.5) is None
    assert leader_share_cell(None, 0, 100.0) is None
