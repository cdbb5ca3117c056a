"""The BOM of an edited design, from the template's arrays with the edits replayed, equals the
link-by-link one on the edited device graph."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.intent.design import Edit
from designer.model.physical.bom import build_bom
from designer.model.physical.edited_bom import edited_physical, physical_counts
from designer.model.physical.media import compute_physical
from designer.model.topology.derive import derive
from tests.helpers import examples
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()
EXAMPLES = "examples"


def _same(design) -> None:
    d = derive(design, CAT)
    counts, phys = edited_physical(d, CAT), compute_physical(d, CAT)
    assert counts is not None
    assert counts.cables == phys.cables
    assert counts.custom_lengths == phys.custom_lengths
    assert counts.transceivers == phys.transceivers and counts.transceiver_ends == phys.transceiver_ends
    assert counts.findings == phys.findings
    assert list(counts.links_by_tier().items()) == list(phys.links_by_tier().items())
    assert counts.media_by_tier() == phys.media_by_tier()
    assert counts.cable_power_w.keys() == phys.cable_power_w.keys()
    for key, watts in phys.cable_power_w.items():
        assert counts.cable_power_w[key] == pytest.approx(watts, rel=1e-12, abs=1e-9)
    assert (counts.layout.server_racks, counts.layout.network_racks, counts.layout.rows) == (
        phys.layout.server_racks, phys.layout.network_racks, phys.layout.rows)
    # the BOM as the user sees it, through either path
    assert json.dumps(build_bom(d, CAT).to_json()) == json.dumps(build_bom(d, CAT, link_by_link=True).to_json())


@st.composite
def edited_designs(draw):
    design = draw(template_designs())
    g = derive(design, CAT).graph
    switches = sorted(n for n, role in g.nodes(data="role") if role != "nic")
    device = st.one_of(st.sampled_from(switches), st.sampled_from(["leaf-999", "p9.spine-1", "", "leaf-01"]))
    edit = st.one_of(
        st.builds(Edit, st.just("add-links"), device, device, st.integers(1, 3)),
        st.builds(Edit, st.just("remove-links"), device, device, st.integers(1, 3)),
        st.builds(lambda a: Edit("remove-device", a), device))
    edits = draw(st.lists(edit, min_size=1, max_size=6))
    # links added to a wired pair, then removed: the newest (manual) links go first
    pairs = sorted((a, b) for a, b, t in g.edges(data="tier") if t != "node-leaf")
    for u, v in draw(st.lists(st.sampled_from(pairs or [("leaf-1", "spine-1")]), max_size=3)):
        if draw(st.booleans()):
            edits.append(Edit("add-links", u, v, draw(st.integers(1, 2))))
        edits.append(Edit("remove-links", v, u, draw(st.integers(1, 3))))
    return dataclasses.replace(design, edits=tuple(draw(st.permutations(edits))))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(edited_designs())
def test_edited_bom_equals_link_by_link(design):
    _same(design)


@pytest.mark.parametrize("name", ["dgx-h100-superpod-4su.json", "b300-roce-two-plane.json",
                                  "ndr-8k-fat-tree.json"])
def test_examples_with_edits(name):
    design = load_design(f"{EXAMPLES}/{name}")
    two = "p2." if design.fabric.planes > 1 else ""
    edits = (Edit("remove-device", f"{two}spine-1"), Edit("remove-links", "leaf-2", "spine-2", 1),
             Edit("add-links", "leaf-3", "spine-2", 2), Edit("add-links", "leaf-1", "leaf-4", 1),
             Edit("remove-device", "leaf-5"))
    _same(dataclasses.replace(design, edits=edits))


def test_an_edit_that_names_a_nic_walks_the_links():
    design = load_design(f"{EXAMPLES}/dgx-h100-superpod-1su.json")
    edited = dataclasses.replace(design, edits=(Edit("remove-device", "srv-1.nic-1"),))
    d = derive(edited, CAT)
    assert edited_physical(d, CAT) is None and physical_counts(d, CAT) is None
    assert build_bom(d, CAT).to_json() == build_bom(d, CAT, link_by_link=True).to_json()
