"""The closed-form BOM of a template design equals the link-by-link one, item for item."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.intent.design import Edit, replace_path
from designer.model.physical.bom import build_bom
from designer.model.physical.closed_form_bom import closed_form_physical
from designer.model.physical.media import compute_physical
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples, superpod

CAT = default_catalog()
MEDIA = ("auto", "auto", "dac", "acc", "aoc", "mmf", "smf")


def _same_bom(design) -> None:
    d = derive(design, CAT)
    closed, walked = build_bom(d, CAT), build_bom(d, CAT, link_by_link=True)
    # JSON text, so key order (tiers and media in link order) must match too
    assert json.dumps(closed.to_json()) == json.dumps(walked.to_json())
    counts, phys = closed_form_physical(d, CAT), compute_physical(d, CAT)
    assert counts.cables == phys.cables
    assert counts.cable_power_w == {k: v for k, v in phys.cable_power_w.items()}
    assert counts.transceivers == phys.transceivers and counts.transceiver_ends == phys.transceiver_ends
    assert counts.findings == phys.findings


@st.composite
def template_designs(draw):
    template = draw(st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized", "rail-only"]))
    server = draw(st.sampled_from(sorted(CAT.servers)))
    technology = draw(st.sampled_from([None, "ib-ndr", "ib-xdr", "roce-400g", "roce-800g", "ib-hdr"]))
    switch = draw(st.sampled_from([None, "qm9700", "qm8700", "q3400", "sn5600", "tomahawk5-51t"]))
    nodes = draw(st.integers(1, 80))
    kw = dict(nodes=nodes, server=server, technology=technology, switch=switch,
              oversubscription=draw(st.sampled_from([1.0, 1.0, 2.0, 3.0])),
              spine_oversubscription=draw(st.sampled_from([1.0, 2.0])),
              tiers=draw(st.sampled_from([None, None, 3])),
              nodes_per_su=draw(st.sampled_from([4, 8, 16, 32])),
              planes=draw(st.sampled_from([None, 1, 2, 4])))
    try:
        design = new_design(CAT, template, **kw)
        if draw(st.booleans()):
            design = replace_path(design, "fabric.uplink_gbps", draw(st.sampled_from([200, 400, 800])))
        if template == "rail-optimized" and draw(st.booleans()):   # several rails of an SU per leaf
            design = replace_path(design, "fabric.rails_per_leaf", draw(st.sampled_from([2, 4])))
        for tier in ("leaf", "spine", "core"):  # explicit switch counts: leaves without servers
            if draw(st.integers(0, 5)) == 0:
                design = replace_path(design, f"fabric.{tier}.count", draw(st.integers(1, 60)))
        fp = [("floorplan.placement", draw(st.sampled_from(["middle-of-row", "su-racks", "network-row"]))),
              ("floorplan.servers_per_rack", draw(st.integers(1, 8))),
              ("floorplan.racks_per_row", draw(st.integers(1, 12))),
              ("floorplan.switches_per_network_rack", draw(st.integers(1, 20))),
              ("floorplan.row_pitch_m", draw(st.sampled_from([2.4, 3.0, 7.5, 40.0]))),
              ("floorplan.rack_width_m", draw(st.sampled_from([0.6, 0.8, 1.2]))),
              ("floorplan.medium_node_leaf", draw(st.sampled_from(MEDIA))),
              ("floorplan.medium_leaf_spine", draw(st.sampled_from(MEDIA))),
              ("floorplan.medium_spine_core", draw(st.sampled_from(MEDIA)))]
        for path, value in fp:
            design = replace_path(design, path, value)
        derive(design, CAT)
    except (SizingError, UnknownPartError, ValueError):
        assume(False)
    return design


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(template_designs())
def test_closed_form_bom_equals_link_by_link(design):
    _same_bom(design)


def test_closed_form_bom_at_superpod_scale_with_planes():
    _same_bom(new_design(CAT, "fat-tree", gpus=4096, switch="qm9700", planes=2))
    _same_bom(superpod(4))


def test_edited_design_walks_every_link():
    design = superpod(1)
    edited = replace_path(design, "edits", (Edit("add-links", "leaf-1", "spine-1", 2),))
    bom = build_bom(derive(edited, CAT), CAT)
    base = build_bom(derive(design, CAT), CAT)
    assert bom.counts["links_total"] == base.counts["links_total"] + 2
