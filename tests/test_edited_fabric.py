"""Edited fabrics measured from the plan and the edits equal the same fabric measured on its graph."""

import dataclasses
from pathlib import Path

import pytest
from helpers import design_for, examples, small_design_requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.intent.design import Edit
from designer.model.topology.builders import build_graph
from designer.model.topology.derive import derive, plan_only
from designer.model.topology.edited_fabric import measure_edits
from designer.model.topology.metrics import assemble, compute_metrics

CAT = default_catalog()
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

requests = small_design_requests(96)
_design = design_for


def _both(design):
    """(measured from plan and edits, measured on the built graph)."""
    r, plan = plan_only(design, CAT)
    measured = measure_edits(design, r, plan)
    assert measured is not None
    build = build_graph(design, r, plan)
    return assemble(design, r, plan, measured), compute_metrics(design, r, plan, build.graph, build.edit_problems)


@st.composite
def edited(draw):
    design = draw(requests.map(_design).filter(lambda d: d is not None))
    derived = derive(design, CAT)
    switches = sorted(n for n, role in derived.graph.nodes(data="role") if role != "nic")
    device = st.one_of(st.sampled_from(switches), st.sampled_from(["leaf-999", "p9.spine-1", "", "leaf-01"]))
    edit = st.one_of(
        st.builds(Edit, st.just("add-links"), device, device, st.integers(1, 3)),
        st.builds(Edit, st.just("remove-links"), device, device, st.integers(1, 3)),
        st.builds(lambda a: Edit("remove-device", a), device))
    edits = draw(st.permutations(draw(st.lists(edit, min_size=1, max_size=6))))
    # Links added to a wired pair and then removed: the newest (manual) links go first.
    pairs = sorted((a, b) for a, b, t in derived.graph.edges(data="tier") if t != "node-leaf")
    for u, v in draw(st.lists(st.sampled_from(pairs or [("leaf-1", "spine-1")]), max_size=3)):
        if draw(st.booleans()):
            edits.append(Edit("add-links", u, v, draw(st.integers(1, 2))))
        edits.append(Edit("remove-links", v, u, draw(st.integers(1, 3))))
    return dataclasses.replace(design, edits=tuple(edits))


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(edited())
def test_switch_edits_measure_as_the_graph_does(design):
    fast, reference = _both(design)
    assert fast == reference
    assert fast.to_json() == reference.to_json()


# The 131K-GPU example runs with `make test-slow`; the other two replay the same kinds of edit.
@pytest.mark.parametrize("name", [pytest.param("k64-fat-tree-hosts.json", marks=pytest.mark.slow),
                                  "dgx-h100-superpod-4su.json", "b300-roce-two-plane.json"])
def test_examples_with_edits_measure_as_the_graph_does(name):
    design = load_design(EXAMPLES / name)
    r, plan = plan_only(design, CAT)
    p2 = "p2." if r.planes > 1 else ""
    edits = (Edit("remove-links", f"{p2}leaf-1", f"{p2}spine-1", 1), Edit("remove-device", "spine-2"),
             Edit("add-links", "leaf-2", f"spine-{plan.spines}", 2), Edit("remove-device", f"{p2}leaf-3"))
    fast, reference = _both(dataclasses.replace(design, edits=edits))
    assert fast == reference
    assert fast.bisection_gbps < derive(design, CAT).metrics.bisection_gbps
    assert [f.code for f in fast.findings].count("disconnected-endpoint") > 0


def test_an_edit_that_names_an_endpoint_is_left_to_the_graph():
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    nic_edit = dataclasses.replace(design, edits=(Edit("remove-device", "srv-1.nic-1"),))
    r, plan = plan_only(nic_edit, CAT)
    assert measure_edits(nic_edit, r, plan) is None
    m = derive(nic_edit, CAT).metrics
    assert [f.element for f in m.findings if f.code == "disconnected-endpoint"] == []
    assert m.links_by_tier["node-leaf"] == derive(design, CAT).metrics.links_by_tier["node-leaf"] - 1
