"""Oversubscription and the collective estimate, swept on leaf-spine, fat-tree and rail designs.

What binds is the share of a collective's traffic that leaves a leaf against the share of the NIC
rate the leaf's uplinks carry. With ranks packed, a ring leaves each leaf once, so a mildly
oversubscribed leaf keeps up; with ranks spread over the leaves every ring edge crosses the
spines, so any oversubscription binds. Either way the estimate never improves as the ratio
rises, and where it falls short of the non-blocking figure the bottleneck names the
oversubscription, never the NIC.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from designer.catalog import default_catalog
from designer.model.intent.design import Edit
from designer.model.performance import collectives as C
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()
RATIOS = (1.0, 1.5, 2.0, 3.0, 4.0)
SIZE = 1 << 30
NON_RAIL = ("leaf-spine", "fat-tree")


@cache
def fabric(template: str, ratio: float, nodes: int = 64, nodes_per_su: int | None = None):
    return derive(new_design(CAT, template, nodes=nodes, server="dgx-h100", oversubscription=ratio,
                             nodes_per_su=nodes_per_su), CAT)


def _is_oversubscription(bottleneck: str) -> bool:
    return bottleneck.startswith("oversubscription at leaf tier")


@pytest.mark.parametrize("template", (*NON_RAIL, "rail-optimized"))
@pytest.mark.parametrize("collective", ("allreduce", "allgather", "alltoall"))
@pytest.mark.parametrize("placement", ("packed", "spread"))
def test_estimate_never_improves_as_the_leaf_ratio_rises_and_names_what_costs_it(template, collective, placement):
    flat = C.estimate(fabric(template, 1.0), collective, SIZE, placement=placement)
    previous, previous_ratio = flat.busbw_GBps, 1.0
    for ratio in RATIOS[1:]:
        derived = fabric(template, ratio)
        achieved = derived.metrics.oversubscription("leaf")   # the nearest the switch's ports give
        assert previous_ratio <= achieved <= ratio * 1.001
        previous_ratio = achieved
        r = C.estimate(derived, collective, SIZE, placement=placement)
        assert r.busbw_GBps <= previous * (1 + 1e-9), (template, ratio)
        previous = r.busbw_GBps
        if r.busbw_GBps < flat.busbw_GBps * (1 - 1e-6):
            assert _is_oversubscription(r.bottleneck), (template, collective, ratio, r)
        else:
            assert not _is_oversubscription(r.bottleneck), (template, collective, ratio, r)


@pytest.mark.parametrize("template", NON_RAIL)
@pytest.mark.parametrize("ratio", RATIOS[1:])
def test_spread_ranks_on_a_non_rail_fabric_cross_the_spines_so_every_ratio_binds(template, ratio):
    derived = fabric(template, ratio)
    ctx = C.context_for(derived, placement="spread")
    for collective in ("allreduce", "allgather", "reducescatter", "alltoall"):
        r = C.estimate(derived, collective, SIZE, placement="spread")
        assert _is_oversubscription(r.bottleneck), (collective, r)
        lim = ctx.limits[{"nvls+tree": "tree", "tree": "tree", "pairwise": "alltoall"}.get(r.algorithm, "ring")]
        assert lim.leaf_share >= 0.9   # all but the sends to the few domains on the same leaf
        assert lim.factor < 1


@pytest.mark.parametrize("template", NON_RAIL)
def test_high_oversubscription_binds_a_packed_all_reduce_too(template):
    flat = C.estimate(fabric(template, 1.0), "allreduce", SIZE)
    over = C.estimate(fabric(template, 4.0), "allreduce", SIZE)
    assert over.busbw_GBps < 0.8 * flat.busbw_GBps
    # Even where the winning algorithm (the ring, which leaves each leaf once) runs at its NIC
    # rate, it is the oversubscription that took the faster tree away.
    assert _is_oversubscription(over.bottleneck)


@pytest.mark.parametrize("ratio", RATIOS)
def test_rail_traffic_inside_one_su_never_meets_the_spines(ratio):
    # One SU of 32 servers, as asked (sizing may price smaller SUs cheaper at a high ratio).
    one_su = fabric("rail-optimized", ratio, nodes=32, nodes_per_su=32)
    assert one_su.plan.rail_su_size == 32
    flat = C.estimate(fabric("rail-optimized", 1.0, nodes=32, nodes_per_su=32), "allreduce", SIZE)
    r = C.estimate(one_su, "allreduce", SIZE, placement="spread")
    assert r.busbw_GBps == pytest.approx(flat.busbw_GBps)
    assert not _is_oversubscription(r.bottleneck)
    assert "stays under the leaves" in C.uplink_reading(C.context_for(one_su, placement="spread"), r.algorithm)


def _without_spines(count: int):
    design = new_design(CAT, "leaf-spine", nodes=24, server="dgx-h100")
    edits = tuple(Edit(op="remove-device", a=f"spine-{i + 1}") for i in range(count))
    return derive(dataclasses.replace(design, edits=edits), CAT)


def test_deleting_spines_reads_the_uplinks_share_and_binds_once_they_cannot_carry_it():
    intact = _without_spines(0)
    base = C.estimate(intact, "allreduce", SIZE)
    for deleted, leaf_ratio in ((1, 4 / 3), (2, 2.0), (3, 4.0)):
        derived = _without_spines(deleted)
        assert derived.metrics.oversubscription("leaf") == pytest.approx(leaf_ratio)
        packed = C.estimate(derived, "allreduce", SIZE)
        spread = C.estimate(derived, "allreduce", SIZE, placement="spread")
        reading = C.uplink_reading(C.context_for(derived), packed.algorithm)
        # The share of the intact fabric's choice (NVLS inside, a tree across) that leaves a leaf.
        assert base.algorithm == "nvls+tree"
        share = C.context_for(derived).limits["tree"].leaf_share
        # Ranks spread over the leaves: every send crosses the spines, the leaf ratio binds.
        assert _is_oversubscription(spread.bottleneck)
        # The uplinks take the NIC rate down by the ratio; where NCCL's per-head NVLSTree rate
        # held the intact fabric below its NICs, they cost it less than the whole ratio.
        assert base.busbw_GBps / leaf_ratio * 0.95 <= spread.busbw_GBps < base.busbw_GBps
        if share <= 1 / leaf_ratio:
            # Packed: the share leaving a leaf fits the uplinks, and the card says so.
            assert packed.busbw_GBps == pytest.approx(base.busbw_GBps)
            # (NCCL's per-head NVLSTree rate may bind before the NIC does: not the uplinks either way.)
            assert not _is_oversubscription(packed.bottleneck) and "the uplinks keep up" in reading
            assert f"{share:.0%} of its traffic leaves a leaf" in reading
        else:
            assert packed.busbw_GBps < base.busbw_GBps
            assert _is_oversubscription(packed.bottleneck)


def test_a_packed_figure_that_keeps_up_shows_what_spread_ranks_would_get():
    """After a spine is deleted the packed all-reduce still runs at its intact rate; the reading
    beside it says what the same job gets with its ranks spread, where the 1.33:1 leaf binds."""
    derived = _without_spines(1)
    packed = C.estimate(derived, "allreduce", SIZE)
    spread = C.estimate(derived, "allreduce", SIZE, placement="spread")
    reading = C.other_placement_reading(derived, "allreduce", SIZE, packed)
    assert reading == f"with ranks spread: {spread.busbw_GBps:,.0f} GB/s, limited by {spread.bottleneck}"
    assert _is_oversubscription(spread.bottleneck) and spread.busbw_GBps < packed.busbw_GBps
    # where both placements give the same figure there is nothing to add
    intact = _without_spines(0)
    assert C.other_placement_reading(intact, "allreduce", SIZE, C.estimate(intact, "allreduce", SIZE)) == ""
