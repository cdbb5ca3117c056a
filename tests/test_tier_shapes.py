"""A tier's counts from its template's arithmetic (tier_shapes.py) equal those of its generated
links: segments and blocks expand to the same links, and the cages, placement, runs and breakout
slots counted from them are the same, on random templates (odd sizes leave partial pods and
racks; rail-optimized assignments and uneven spreads have no shape and are generated)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.intent.design import replace_path
from designer.model.physical import class_bom
from designer.model.physical.class_bom import class_physical
from designer.model.physical.class_parts import TIER_ARRAYS, Runs, ShapedTier, first_plane_tiers
from designer.model.physical.closed_form_bom import first_plane_links
from designer.model.physical.link_arrays import DeviceCodes
from designer.model.physical.media import MediaIndex
from designer.model.physical.template_layout import template_positions
from designer.model.physical.tier_shapes import (
    generated_loader,
    host_segments,
    leaf_spine_blocks,
    shaped_first_plane,
    spine_core_blocks,
)
from designer.model.topology.closed_form import leaf_assignment_arrays
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()


@st.composite
def large_designs(draw):
    """Fat-trees, leaf-spines and rail-optimized fabrics of up to a few thousand GPUs, with odd
    sizes, port modes, planes, oversubscription and every placement."""
    template = draw(st.sampled_from(["fat-tree", "leaf-spine", "rail-optimized", "rail-only"]))
    kw = dict(gpus=draw(st.sampled_from([512, 1000, 1536, 2048, 2056, 3000, 4096])),
              server=draw(st.sampled_from(["dgx-h100", "hgx-b300-eth-4plane", "dgx-b200", None])),
              switch=draw(st.sampled_from([None, "qm9700", "tomahawk5-51t", "tomahawk6-102t", "sn5600"])),
              oversubscription=draw(st.sampled_from([1.0, 1.0, 1.5, 2.0])),
              planes=draw(st.sampled_from([None, 1, 2])), tiers=draw(st.sampled_from([None, 3])))
    try:
        design = new_design(CAT, template, **kw)
        if draw(st.booleans()):
            design = replace_path(design, "fabric.uplink_gbps", draw(st.sampled_from([200, 400, 800])))
        design = replace_path(design, "floorplan.placement",
                              draw(st.sampled_from(["middle-of-row", "su-racks", "network-row"])))
        design = replace_path(design, "floorplan.racks_per_row", draw(st.sampled_from([3, 10, 24])))
        design = replace_path(design, "floorplan.servers_per_rack", draw(st.integers(1, 8)))
        derive(design, CAT)
    except (SizingError, UnknownPartError, ValueError):
        assume(False)
    return design


def _links(tier_of: np.ndarray, first, t: int) -> list[tuple[int, int, int, int]]:
    mask = tier_of == t
    return sorted(zip(first.a_dev[mask].tolist(), first.a_port[mask].tolist(), first.b_dev[mask].tolist(),
                      first.b_port[mask].tolist(), strict=True))


def _check_shapes(design) -> bool:
    """Every shape's links, counts and runs against the generated links; whether it had shapes."""
    d = derive(design, CAT)
    r, plan = d.resolved, d.plan
    dev = DeviceCodes(design.cluster.servers, plan, r.planes)
    first, server_of_ep, leaf_of = first_plane_links(r, plan, dev, ordered=False)

    segments = host_segments(plan, r.rails)
    if segments is not None:
        leaf, port = leaf_assignment_arrays(plan, r.rails)
        ends = np.cumsum(segments.count)
        which = np.repeat(np.arange(len(ends)), segments.count)
        step = np.arange(int(ends[-1])) - np.repeat(ends - segments.count, segments.count)
        assert np.array_equal(segments.leaf[which], leaf)
        assert np.array_equal(segments.port[which] + step, port)
        assert np.array_equal(segments.server[which] * r.rails + segments.rail[which] + step,
                              np.arange(len(leaf)))
    for t, groups, owner, target in ((1, leaf_spine_blocks(plan), dev.leaf, dev.spine),
                                     (2, spine_core_blocks(plan), dev.spine, dev.core)):
        if groups is None:
            continue
        expanded = []
        for blocks in groups:
            for o_row, t_row in zip(blocks.owners.tolist(), blocks.targets.tolist(), strict=True):
                for i, o in enumerate(o_row):
                    for j, tg in enumerate(t_row):
                        for c in range(blocks.base):
                            expanded.append((int(owner(0, o)), blocks.owner_port + j * blocks.base + c,
                                             int(target(0, tg)), 1 + i * blocks.base + c))
        assert sorted(expanded) == _links(first.tier, first, t)

    shaped = shaped_first_plane(d, CAT, dev)
    listed = first_plane_tiers(d, CAT, first)
    if shaped is None:
        return False
    # a shape exists only where the generated tiers are plain (no cage serving two tiers)
    assert listed is not None and not any(t.merged for t in listed)
    fp = design.floorplan
    row, slot, layout = template_positions(fp, design.cluster.servers, plan, r.planes, r.rails, dev, leaf_of,
                                           server_of_ep)
    seg = shaped.segments
    row_s, slot_s, layout_s = template_positions(fp, design.cluster.servers, plan, r.planes, r.rails, dev, seg.leaf,
                                                 seg.server, weights=seg.count)
    assert np.array_equal(row, row_s) and np.array_equal(slot, slot_s) and layout == layout_s
    media = MediaIndex(CAT, r.technology.family)
    assert [t.name for t in shaped.tiers] == [t.name for t in listed]
    for mine, theirs in zip(shaped.tiers, listed, strict=True):
        assert isinstance(mine, ShapedTier)
        assert (mine.lower, mine.upper, mine.gbps, mine.host) == (theirs.lower, theirs.upper, theirs.gbps, theirs.host)
        assert mine.first_plane_links == len(theirs.a_dev)
        runs_s, runs_l = Runs(d, mine, dev, row, slot, media), Runs(d, theirs, dev, row, slot, media)
        assert runs_s.links() == runs_l.links()
        # each link's run on every plane, as the groups read it
        (planes_s, pair_s), (planes_l, pair_l) = runs_s.plane_pairs(), runs_l.plane_pairs()
        for (values_s, code_s), (values_l, code_l) in zip(planes_s, planes_l, strict=True):
            assert values_s == values_l
            assert np.array_equal(code_s[pair_s], code_l[pair_l])
        for split in sorted({1, 2, 4, mine.upper.capacity}):
            assert runs_s.slots(split) == runs_l.slots(split)
        # the links made where a count reads them are the generated ones
        assert np.array_equal(mine.b_cage, theirs.b_cage) and mine.type_names == theirs.type_names
    # each tier's per-link arrays expanded from its shape alone are the generated ones, value for
    # value, in the same order and type
    reference = generated_loader(d, CAT, dev)
    for t, tier in enumerate(shaped.tiers):
        generated = reference(t)
        for name in TIER_ARRAYS:
            mine = getattr(tier, name)
            if name == "type_names":
                assert mine == generated[name]
                continue
            assert mine.dtype == generated[name].dtype, name
            assert np.array_equal(mine, generated[name]), (tier.name, name)
    return True


def _bills_equal(design) -> None:
    """The bill by class of link from the shapes equals the one from generated links."""
    d = derive(design, CAT)
    shaped = class_physical(d, CAT)
    original = class_bom.shaped_first_plane
    try:
        class_bom.shaped_first_plane = lambda *_: None   # every tier's links generated
        generated = class_physical(d, CAT)
    finally:
        class_bom.shaped_first_plane = original
    assert shaped == generated


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(large_designs())
def test_shapes_equal_the_generated_links_on_large_templates(design):
    event("counted from shapes" if _check_shapes(design) else "generated")
    _bills_equal(design)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(template_designs())
def test_shapes_equal_the_generated_links_on_small_templates(design):
    event("counted from shapes" if _check_shapes(design) else "generated")
    _bills_equal(design)


@pytest.mark.parametrize(("template", "choices"), [
    ("fat-tree", dict(gpus=32768, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")),
    ("fat-tree", dict(gpus=32768, server="hgx-b300-eth-4plane", switch="tomahawk6-102t", uplink_speed=200)),
    ("fat-tree", dict(gpus=16384, switch="qm9700", planes=2)),
    ("leaf-spine", dict(gpus=4096, switch="tomahawk5-51t")),
    ("fat-tree", dict(gpus=16392, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")),   # a partial leaf
    ("fat-tree", dict(gpus=9000, server="dgx-h100", switch="tomahawk5-51t")),   # a partial pod
])
def test_fat_trees_and_leaf_spines_are_counted_from_their_shapes(template, choices):
    design = new_design(CAT, template, **choices)
    assert _check_shapes(design), "no shape: the tiers' links were generated"
    _bills_equal(design)
