"""The bill by class of link (class_bom.py) equals the per-link count, item for item."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.intent.design import replace_path
from designer.model.physical.class_bom import class_physical
from designer.model.physical.class_parts import first_plane_tiers
from designer.model.physical.closed_form_bom import closed_form_physical, first_plane_links
from designer.model.physical.link_arrays import DeviceCodes
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()


def _same_or_declined(design) -> bool:
    """The class count equals the per-link one wherever it counts; whether it counted."""
    d = derive(design, CAT)
    counted = class_physical(d, CAT)
    if counted is None:
        return False
    per_link = closed_form_physical(d, CAT)
    assert counted == per_link
    # the dicts' order is printed (BOM JSON): tiers and media in link order
    assert list(counted.tier_counts) == list(per_link.tier_counts)
    assert [list(m) for m in counted.media_counts.values()] == [list(m) for m in per_link.media_counts.values()]
    return True


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                   HealthCheck.too_slow])
@given(template_designs())
def test_class_bill_equals_per_link_bill(design):
    _same_or_declined(design)


# Fixed designs of 16K-32K GPUs, each counted by class (not handed to the per-link count): one
# class per tier (200G breakouts on 102.4T switches), groups of several cages whose runs change
# the optic (QM9700 twin-port cages, DGX H100 two NICs per cage, two planes), 400G uplinks in 200G
# cages, a rail-optimized fabric and each placement of the leaves.
FIXED = [
    ("fat-tree", dict(gpus=32768, server="hgx-b300-eth-4plane", switch="tomahawk6-102t"), "middle-of-row"),
    ("fat-tree", dict(gpus=16384, switch="qm9700", planes=2), "middle-of-row"),
    ("fat-tree", dict(gpus=32768, server="hgx-b300-eth-4plane", switch="tomahawk5-51t", uplink_speed=400),
     "network-row"),
    ("rail-optimized", dict(gpus=16384, switch="qm9700"), "su-racks"),
    ("fat-tree", dict(gpus=16384, switch="qm9700", planes=2), "su-racks"),
]


@pytest.mark.parametrize(("template", "choices", "placement"), FIXED)
def test_medium_designs_are_counted_by_class_and_equal_the_per_link_bill(template, choices, placement):
    design = replace_path(new_design(CAT, template, **choices), "floorplan.placement", placement)
    assert _same_or_declined(design), "counted link by link, not by class"


def _drawn_design(draw, template, **choices):
    """`new_design` of the choices on a drawn placement and row length; designs that cannot be
    sized are filtered out."""
    try:
        design = new_design(CAT, template, **choices)
        design = replace_path(design, "floorplan.placement",
                              draw(st.sampled_from(["middle-of-row", "su-racks", "network-row"])))
        design = replace_path(design, "floorplan.racks_per_row", draw(st.sampled_from([4, 10, 24])))
        derive(design, CAT)
    except (SizingError, UnknownPartError, ValueError):
        assume(False)
    return design


@st.composite
def medium_designs(draw):
    """Up to a few thousand GPUs: port modes, planes, ratios and placements of the large fabrics."""
    server = draw(st.sampled_from(["dgx-h100", "hgx-b300-eth-4plane", "dgx-b200", None]))
    switch = draw(st.sampled_from([None, "qm9700", "tomahawk5-51t", "tomahawk6-102t", "sn5600"]))
    return _drawn_design(draw, draw(st.sampled_from(["fat-tree", "rail-optimized", "leaf-spine"])),
                         gpus=draw(st.sampled_from([1024, 2048, 3072, 4096])), server=server, switch=switch,
                         oversubscription=draw(st.sampled_from([1.0, 1.0, 1.5, 2.0])),
                         planes=draw(st.sampled_from([None, 1, 2])), tiers=draw(st.sampled_from([None, 3])))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(medium_designs())
def test_class_bill_equals_per_link_bill_up_to_thousands_of_gpus(design):
    _same_or_declined(design)


# Oversubscribed fixed designs of 16K-32K GPUs whose cages serve two tiers (a leaf's or a spine's
# cage of downlinks and uplinks): their groups chain cages into a few groups far larger than the
# others, counted size by size.
OVERSUBSCRIBED = [
    ("fat-tree", dict(gpus=32768, server="dgx-h100", switch="tomahawk5-51t", oversubscription=3.0)),
    ("leaf-spine", dict(gpus=32768, server="dgx-h100", switch="tomahawk5-51t", oversubscription=3.0)),
    ("rail-optimized", dict(gpus=16384, server="hgx-b300-eth-4plane", switch="tomahawk6-102t", oversubscription=3.0)),
    ("rail-optimized", dict(gpus=16384, server="dgx-h100", switch="tomahawk5-51t", oversubscription=2.0)),
    ("rail-optimized", dict(gpus=32768, server="hgx-b300-eth-4plane", switch="tomahawk6-102t", oversubscription=3.0)),
]


@pytest.mark.parametrize(("template", "choices"), OVERSUBSCRIBED)
def test_oversubscribed_designs_with_shared_cages_are_counted_by_class(template, choices):
    design = new_design(CAT, template, **choices)
    d = derive(design, CAT)
    # the premise: a tier's cages serve the tier above too, and one group is far larger than most
    tiers = first_plane_tiers(d, CAT, first_plane_links(d.resolved, d.plan, DeviceCodes(
        design.cluster.servers, d.plan, d.resolved.planes), ordered=False)[0])
    assert tiers is not None and any(t.merged for t in tiers)
    assert _same_or_declined(design), "counted link by link, not by class"


@st.composite
def oversubscribed_designs(draw):
    """Oversubscribed leaves (and spines) up to a few thousand GPUs, two and three tiers."""
    return _drawn_design(draw, draw(st.sampled_from(["fat-tree", "rail-optimized", "leaf-spine"])),
                         gpus=draw(st.sampled_from([1024, 2048, 3072, 4096])),
                         server=draw(st.sampled_from(["dgx-h100", "hgx-b300-eth-4plane", "dgx-b200"])),
                         switch=draw(st.sampled_from(["qm9700", "tomahawk5-51t", "tomahawk6-102t", "sn5600"])),
                         oversubscription=draw(st.sampled_from([1.5, 2.0, 3.0])),
                         spine_oversubscription=draw(st.sampled_from([1.0, 2.0])),
                         planes=draw(st.sampled_from([None, 1])), tiers=draw(st.sampled_from([None, 3])))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(oversubscribed_designs())
def test_oversubscribed_designs_are_counted_by_class_and_equal_the_per_link_bill(design):
    assert _same_or_declined(design), "counted link by link, not by class"


def _rail_only_with_idle_leaves(server: str, switch: str, technology: str | None, nodes: int, leaves: int,
                                planes: int | None, switches_per_rack: int, placement: str):
    """A server or two, rail-only, more leaves than the servers use: the idle leaves' cages carry
    uplinks only, and a spine cage reached from them alone joins no NIC cage."""
    design = new_design(CAT, "rail-only", nodes=nodes, server=server, technology=technology, switch=switch,
                        nodes_per_su=4, planes=planes)
    for path, value in (("fabric.leaf.count", leaves), ("floorplan.racks_per_row", 1),
                        ("floorplan.servers_per_rack", 1), ("floorplan.placement", placement),
                        ("floorplan.switches_per_network_rack", switches_per_rack)):
        design = replace_path(design, path, value)
    return design


# A NIC cage of two planes' ports makes a group of its leaves' cages on both planes; the idle
# leaves' groups are one per plane, their runs longer on one plane than on the next: the first
# found (Ethernet B300 on QM9700s, one switch per network rack) took single-mode fiber for a pair
# of spine links multimode reaches on their own plane. Siblings: valid designs on Quantum-2,
# Spectrum-4 and Tomahawk 5 switches that did the same, and designs whose planes agree, which
# are still counted by class (the last column).
IDLE_LEAVES = [
    ("dgx-b300-eth", "qm9700", "roce-400g", 1, 4, 2, 1, "middle-of-row", False),
    ("dgx-h100", "qm9700", None, 1, 6, None, 1, "network-row", False),
    ("dgx-h100", "sn5600", None, 2, 8, 2, 1, "network-row", False),
    ("dgx-b300-eth", "tomahawk5-51t", None, 1, 8, 2, 1, "middle-of-row", False),
    ("dgx-b300-eth", "sn5600", None, 1, 3, None, 1, "network-row", True),
    ("dgx-b300-eth", "sn5600", None, 2, 3, 2, 16, "su-racks", True),
]


@pytest.mark.parametrize(("server", "switch", "technology", "nodes", "leaves", "planes", "switches_per_rack",
                          "placement", "by_class"), IDLE_LEAVES)
def test_groups_of_idle_leaves_are_counted_plane_by_plane(server, switch, technology, nodes, leaves, planes,
                                                          switches_per_rack, placement, by_class):
    design = _rail_only_with_idle_leaves(server, switch, technology, nodes, leaves, planes, switches_per_rack,
                                         placement)
    d = derive(design, CAT)
    tiers = first_plane_tiers(d, CAT, first_plane_links(d.resolved, d.plan, DeviceCodes(
        design.cluster.servers, d.plan, d.resolved.planes), ordered=False)[0])
    assert tiers is not None and any(t.merged for t in tiers)   # the premise: leaf cages serve both tiers
    counted = _same_or_declined(design)
    if by_class:
        assert counted, "counted link by link, not by class"
