"""A tier's runs counted from the distinct pairs of racks its links join (link_runs.TierRuns)
equal the runs worked out link by link on every plane."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from designer.catalog import default_catalog
from designer.model.intent.design import replace_path
from designer.model.physical.class_parts import first_plane_tiers
from designer.model.physical.closed_form_bom import first_plane_links
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.link_runs import TierRuns, link_lengths
from designer.model.physical.template_layout import template_positions
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import examples
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()


def _each_tier_equals_link_by_link(design) -> int:
    """Per tier and plane, TierRuns' runs against `link_lengths` over the plane's own links;
    the tiers checked."""
    d = derive(design, CAT)
    r, plan, fp = d.resolved, d.plan, design.floorplan
    dev = DeviceCodes(design.cluster.servers, plan, r.planes)
    first, server_of_ep, leaf_of = first_plane_links(r, plan, dev, ordered=False)
    if not len(first.tier) or int(first.tier.max()) > 2 or np.any(np.diff(first.tier) < 0):
        return 0
    tiers = first_plane_tiers(d, CAT, first)
    if tiers is None:
        return 0
    row, slot, _ = template_positions(fp, design.cluster.servers, plan, r.planes, r.rails, dev, leaf_of,
                                      server_of_ep)
    for tier in tiers:
        runs = TierRuns(fp, tier.a_dev, tier.b_dev, dev.servers, dev.per_plane, r.planes, row, slot)
        assert int(runs.weights.sum()) == len(tier.a_dev)
        for p in range(r.planes):
            # the plane's links as the builder numbers them: servers alike, switches the plane's own
            a = np.where(tier.a_dev < dev.servers, tier.a_dev, tier.a_dev + p * dev.per_plane)
            zeros = np.zeros(len(a), np.int64)
            values, by_link = link_lengths(fp, LinkArrays(zeros, zeros, a, zeros, tier.b_dev + p * dev.per_plane,
                                                          zeros), row, slot)
            got_values, got_by_link = runs.per_link(p)
            assert got_values == values.tolist()
            assert np.array_equal(got_by_link, by_link)
            hist_values, counts = runs.histogram(p)
            assert hist_values == values.tolist()
            assert counts.tolist() == np.bincount(by_link, minlength=len(values)).tolist()
    return len(tiers)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                            HealthCheck.too_slow])
@given(template_designs())
def test_runs_by_pairs_of_racks_equal_the_runs_link_by_link(design):
    _each_tier_equals_link_by_link(design)


def test_four_planes_of_102t_switches_have_far_fewer_pairs_than_links():
    # 8,192 GPUs on four 200G planes: every plane's switches stand elsewhere, yet a rack's
    # servers and a network rack's switches are one class in every plane
    design = new_design(CAT, "fat-tree", gpus=8192, server="hgx-b300-eth-4plane", switch="tomahawk6-102t")
    design = replace_path(design, "floorplan.racks_per_row", 24)
    assert _each_tier_equals_link_by_link(design) >= 2
    d = derive(design, CAT)
    dev = DeviceCodes(design.cluster.servers, d.plan, d.resolved.planes)
    first, server_of_ep, leaf_of = first_plane_links(d.resolved, d.plan, dev, ordered=False)
    row, slot, _ = template_positions(design.floorplan, design.cluster.servers, d.plan, d.resolved.planes,
                                      d.resolved.rails, dev, leaf_of, server_of_ep)
    host = first.tier == 0
    runs = TierRuns(design.floorplan, first.a_dev[host], first.b_dev[host], dev.servers, dev.per_plane,
                    d.resolved.planes, row, slot)
    assert len(runs.weights) * 4 <= int(host.sum())
