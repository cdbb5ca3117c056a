"""A failure measured on the switch pairs equals the same failure measured on the device graph."""

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.decisions.whatif import Failure, _graph_measure, what_if
from designer.model.intent.design import Edit
from designer.model.topology.derive import derive
from designer.model.topology.failed_fabric import measure_failure
from designer.model.topology.presets import new_design

from helpers import design_for, small_design_requests

CAT = default_catalog()

requests = small_design_requests(80)
_design = design_for


@st.composite
def failures(draw):
    design = draw(requests.map(_design).filter(lambda d: d is not None))
    graph = derive(design, CAT).graph
    switches = sorted(n for n, role in graph.nodes(data="role") if role != "nic")
    pairs = sorted({(a, b) for a, b, t in graph.edges(data="tier") if t != "node-leaf"})
    if draw(st.booleans()):   # a design that was edited before the failure (within one plane)
        a = draw(st.sampled_from(switches))
        plane_of = lambda name: name.split(".")[0] if "." in name else ""
        same_plane = [s for s in switches if plane_of(s) == plane_of(a) and s != a]
        design = dataclasses.replace(design, edits=(
            Edit("remove-device", draw(st.sampled_from(switches))),
            Edit("add-links", a, draw(st.sampled_from(same_plane or switches)), 1)))
    devices = tuple(draw(st.lists(st.sampled_from(switches), max_size=min(6, len(switches)), unique=True)))
    links = tuple(draw(st.lists(st.sampled_from(pairs), max_size=3))) if pairs else ()
    if not devices and not links:
        devices = (switches[0],)
    return design, Failure(devices, links)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(failures())
def test_failures_measure_as_the_graph_does(case):
    design, failure = case
    derived = derive(design, CAT)
    r, plan = derived.resolved, derived.plan
    assert measure_failure(design, r, plan, failure.devices, failure.links) is not None
    fast = what_if(derived, failure, method="max-flow")
    reference = _graph_measure(derived, failure)
    assert fast == reference


def test_a_cable_to_an_endpoint_is_left_to_the_graph():
    design = new_design(CAT, "rail-optimized", gpus=256, switch="qm9700")
    derived = derive(design, CAT)
    nic, leaf = next((a, b) for a, b, t in derived.graph.edges(data="tier") if t == "node-leaf")
    assert measure_failure(design, derived.resolved, derived.plan, (), ((nic, leaf),)) is None
    result = what_if(derived, Failure((), ((nic, leaf),)), method="max-flow")
    assert result.endpoints_cut == 1
