"""`compare --counterpart cheapest-topology`: every template, the design's own in its other tier
counts, on the technology's switches and the design's own, each with its port modes priced."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.decisions.topology_counterpart import _priced, _shape, cheapest_topology
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import default_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design, new_design_choice

CAT = default_catalog()
COST = fabric_cost(CAT, default_prices())


# 512 GPUs price the same tiers and switches as 2,048 in a third of the time; 2,048 runs with
# `make test-slow`.
@pytest.mark.parametrize("gpus", [512, pytest.param(2048, marks=pytest.mark.slow(
    reason="covered by the 512-GPU case: the same three tiers priced against their two-tier twin"))])
def test_a_three_tier_fabric_meets_its_two_tier_twin_on_its_own_switch(gpus):
    base = new_design(CAT, "fat-tree", gpus=gpus, server="hgx-b300-eth-4plane", switch="tomahawk6-102t", tiers=3,
                      cost=COST)
    assert derive(base, CAT).metrics.tiers == 3
    made = cheapest_topology(base, CAT)
    head = made.notes[0]
    # The two-tier fat-tree on the design's own 102.4T switch is among those priced.
    assert "fat-tree in 2 tiers: Tomahawk 6 class 102.4T switch in" in head
    assert _shape(made.design, CAT) != _shape(base, CAT)
    # The counterpart is the cheapest of those priced: its bill is the least in the note.
    total, _ = COST(made.design)
    figures = [float(part.rsplit(" ", 1)[1].replace(",", "").rstrip(")"))
               for part in head.split("estimates: ", 1)[1].split("; ")]
    assert total == min(figures)


def test_a_fabric_sizing_left_unpriced_is_priced_from_its_bill():
    choice = new_design_choice(CAT, "fat-tree", gpus=2048, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")
    assert choice.chosen is None or choice.chosen.cost is None     # sized without a price book
    assert _priced(choice, COST) == COST(choice.design)
