"""Uncertainty a reviewer accepts: where the two leaders' p10-p90 ranges overlap, no leader wins
0% or 100% of the draws, ties are ties, and the verdict is a close call naming the margin."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.decisions.comparison import compare
from designer.model.decisions.counterpart import ETHERNET_CHOICES, make_counterpart
from designer.model.topology.presets import new_design

CAT = default_catalog()


@pytest.mark.parametrize("gpus", [256, 1024, 4096, 16384])
def test_leaders_whose_ranges_overlap_share_the_draws_and_the_verdict_says_close_call(gpus):
    d = new_design(CAT, "rail-optimized", gpus=gpus, server="dgx-h100", switch="qm9700")
    c = compare([d] + [make_counterpart(d, t, CAT).design for t in ETHERNET_CHOICES])
    conf = c.confidence
    assert sum(conf.win_share) + conf.tied == pytest.approx(1.0)
    units = [x.cost_per_mtok for x in c.costs]
    win = min(range(len(units)), key=lambda i: units[i])
    twins = {i for i in range(len(units)) if units[i] == pytest.approx(units[win], rel=1e-9)}
    runner = min((i for i in range(len(units)) if i not in twins), key=lambda i: units[i])
    lead = [w + t for w, t in zip(conf.win_share, conf.tie_share, strict=True)]
    if conf.overlap(win, runner):
        # Leaders whose ranges overlap: a close call at any size, and no leader reads 0% or 100%.
        call = c.recommendation.close_call
        assert call is not None and c.recommendation.verdict.startswith("Close call:")
        assert " 0% " not in c.recommendation.verdict and "100%" not in c.recommendation.verdict
        if lead[runner] > 0:
            assert 0 < lead[win] < 1, (lead, win, runner)
        else:
            assert "what both share" in c.recommendation.verdict
    # The headline gives the margin in dollars over the token budget against the baseline.
    verdict = c.recommendation.verdict
    assert "over 1T tokens" in verdict
    if win != 0:
        saving = (units[0] - units[win]) * c.settings.token_budget / 1e6
        assert saving > 0 and f"less than {c.names[0]} over 1T tokens" in verdict


def test_at_4096_gpus_infiniband_against_spectrum_x_is_a_close_call_that_says_why():
    """The two cost within 5% per token and their ranges overlap, yet Spectrum-X is cheaper in
    every draw: the verdict is a close call, no share reads 0% or 100%, and the reason is given."""
    d = new_design(CAT, "rail-optimized", gpus=4096, server="dgx-h100", switch="qm9700")
    c = compare([d, make_counterpart(d, "roce-400g", CAT).design])
    verdict = c.recommendation.verdict
    assert c.confidence.overlap(0, 1) and verdict.startswith("Close call:")
    assert "100%" not in verdict and " 0% " not in verdict
    if min(c.confidence.win_share) == 0:
        assert "what both share" in verdict and "<1%" in verdict and ">99%" in verdict
    for line in c.recommendation.reasons[:2]:
        assert "cheapest in 0%" not in line and "cheapest in 100%" not in line
