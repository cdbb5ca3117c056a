"""A failure measured on the switch pairs equals the same failure measured on the device graph."""

import dataclasses

from helpers import design_for, examples, small_design_requests
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.decisions.whatif import Failure, _graph_measure, n_minus_one, switch_ids, what_if
from designer.model.intent.design import Edit
from designer.model.topology.derive import derive
from designer.model.topology.edited_fabric import SwitchPairs, pair_bisection
from designer.model.topology.failed_fabric import (
    _intact_plane_flow,
    _intact_state,
    measure_failure,
    switch_kinds,
    switch_signatures,
)
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError

CAT = default_catalog()

requests = small_design_requests(80)
_design = design_for


@st.composite
def failures(draw):
    design = draw(requests.map(_design).filter(lambda d: d is not None))
    graph = derive(design, CAT).graph
    switches = sorted(n for n, role in graph.nodes(data="role") if role != "nic")
    pairs = sorted({(a, b) for a, b, t in graph.edges(data="tier") if t != "node-leaf"})
    cables = sorted({(a, b) for a, b, t in graph.edges(data="tier") if t == "node-leaf"})
    if draw(st.booleans()):   # a design that was edited before the failure (within one plane)
        a = draw(st.sampled_from(switches))
        def plane_of(name):
            return name.split(".")[0] if "." in name else ""
        same_plane = [s for s in switches if plane_of(s) == plane_of(a) and s != a]
        design = dataclasses.replace(design, edits=(
            Edit("remove-device", draw(st.sampled_from(switches))),
            Edit("add-links", a, draw(st.sampled_from(same_plane or switches)), 1)))
    devices = tuple(draw(st.lists(st.sampled_from(switches), max_size=min(6, len(switches)), unique=True)))
    links = tuple(draw(st.lists(st.sampled_from(pairs), max_size=3))) if pairs else ()
    links += tuple(draw(st.lists(st.sampled_from(cables), max_size=3)))   # endpoint cables, either way round
    links = tuple((b, a) if draw(st.booleans()) else (a, b) for a, b in links)
    if not devices and not links:
        devices = (switches[0],)
    return design, Failure(devices, links)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(failures())
def test_failures_measure_as_the_graph_does(case):
    design, failure = case
    derived = derive(design, CAT)
    r, plan = derived.resolved, derived.plan
    assert measure_failure(design, r, plan, failure.devices, failure.links) is not None
    fast = what_if(derived, failure, method="max-flow")
    reference = _graph_measure(derived, failure)
    assert fast == reference


def test_an_endpoint_cable_cuts_its_gpu_off_without_the_graph():
    design = new_design(CAT, "rail-optimized", gpus=256, switch="qm9700")
    derived = derive(design, CAT)
    nic, leaf = next((a, b) for a, b, t in derived.graph.edges(data="tier") if t == "node-leaf")
    after = measure_failure(design, derived.resolved, derived.plan, (), ((nic, leaf),))
    assert after is not None and len(after.cut) == 1
    result = what_if(derived, Failure((), ((nic, leaf),)), method="max-flow")
    assert result.endpoints_cut == 1 and result == _graph_measure(derived, Failure((), ((nic, leaf),)))
    # A cable the fabric does not have fails nothing.
    other_leaf = next(n for n, role in derived.graph.nodes(data="role") if role == "leaf" and n != leaf)
    assert measure_failure(design, derived.resolved, derived.plan, (), ((nic, other_leaf),)).cut == set()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(failures())
def test_switch_kinds_are_read_as_the_graph_does(case):
    import networkx as nx

    design, _ = case
    derived = derive(design, CAT)
    g = derived.graph
    level = nx.get_node_attributes(g, "level")
    expected = {s: (sum(1 for _, n in g.edges(s) if level[n] < level[s]), g.degree(s))
                for s, role in g.nodes(data="role") if role != "nic"}
    kinds = switch_signatures(design, derived.resolved, derived.plan)
    assert kinds == expected and list(kinds) == list(expected)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(failures())
def test_kinds_of_switch_grouped_as_arrays_are_the_per_switch_grouping(case):
    """An N-1 sweep of a large fabric fails the first switch of each kind: read as arrays, the
    kinds, their first switches and each tier's count are those of the switch-by-switch grouping."""
    design, _ = case
    derived = derive(design, CAT)
    signatures = switch_signatures(design, derived.resolved, derived.plan)
    grouped = switch_kinds(design, derived.resolved, derived.plan)
    assert signatures is not None and grouped is not None
    counts: dict[str, int] = {}
    first: dict[str, dict[tuple[int, int], str]] = {}
    for name, kind in signatures.items():
        tier = name.split(".")[-1].rsplit("-", 1)[0]
        counts[tier] = counts.get(tier, 0) + 1
        first.setdefault(tier, {}).setdefault(kind, name)
    assert grouped.counts == counts
    assert grouped.first == {tier: list(kinds.values()) for tier, kinds in first.items()}
    assert list(grouped.first) == list(first)
    whole = n_minus_one(derived, "max-flow", limit=0)       # one switch of each kind
    assert whole.switches == counts
    assert whole.evaluated == {tier: len(kinds) for tier, kinds in first.items() if tier in whole.worst}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(requests.map(_design).filter(lambda d: d is not None), st.data())
def test_the_plans_assignment_read_from_its_arrays_is_the_builders(design, data):
    """Failures and edited fabrics read the plan's (leaf, port) of each endpoint from arrays, never
    making a tuple per endpoint: as a sequence it is the builder's, item by item and slice by slice."""
    from designer.model.topology.builders import leaf_assignment
    from designer.model.topology.edited_fabric import SwitchPairs, assignment_columns, plan_assignment

    derived = derive(design, CAT)
    plan, rails = derived.plan, derived.resolved.rails
    built, read = leaf_assignment(plan, rails), plan_assignment(plan, rails)
    assert len(read) == len(built) and list(read) == list(built)
    k = data.draw(st.integers(-len(built), len(built) - 1))
    assert read[k] == built[k] and all(type(x) is int for x in read[k])
    start, stop = sorted(data.draw(st.lists(st.integers(0, len(built)), min_size=2, max_size=2)))
    assert read[start:stop] == list(built[start:stop])
    f = SwitchPairs(plan, derived.resolved)
    for a, b in zip(assignment_columns(f, read), assignment_columns(f, built), strict=True):
        assert a.tolist() == b.tolist()


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(requests.map(_design).filter(lambda d: d is not None))
def test_which_single_link_stops_a_job_is_answered_as_on_the_graph(design):
    from designer.model.decisions import interruptions as module

    derived = derive(design, CAT)
    fast = module._stops(derived)
    firsts = {}
    for u, v, tier in derived.graph.edges(data="tier"):
        firsts.setdefault(tier, (u, v))
    assert {tier for tier, _ in module._first_links(derived)} == set(firsts)
    for tier, (u, v) in firsts.items():
        assert fast[tier] == (what_if(derived, Failure(links=((u, v),)), "max-flow", flow=False).gpus_cut > 0)


@st.composite
def multi_plane_failures(draw):
    """An unedited template of two to four planes and a sequence of failures in some of them
    (switches, cables between switches, endpoint cables), measured one after another. A
    rail-only plane is several components, so some of its endpoints are cut off intact."""
    template = draw(st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized", "rail-only"]))
    planes = draw(st.integers(2, 4))
    kw = {"nodes_per_su": draw(st.integers(2, 8))} if template == "rail-optimized" else {}
    try:
        design = new_design(CAT, template, nodes=draw(st.integers(2, 40)), gpus_per_node=4, speed=400,
                            radix=draw(st.sampled_from([8, 16])), planes=planes, tiers=draw(st.sampled_from([2, 3])),
                            oversubscription=draw(st.sampled_from([1.0, 3.0])), **kw)
        graph = derive(design, CAT).graph
    except SizingError:
        assume(False)
    switches = sorted(n for n, role in graph.nodes(data="role") if role != "nic")
    pairs = sorted({(a, b) for a, b, t in graph.edges(data="tier") if t != "node-leaf"})
    cables = sorted({(a, b) for a, b, t in graph.edges(data="tier") if t == "node-leaf"})
    sequence = []
    for _ in range(draw(st.integers(1, 3))):
        devices = tuple(draw(st.lists(st.sampled_from(switches), max_size=3, unique=True)))
        links = tuple(draw(st.lists(st.sampled_from(pairs), max_size=2))) if pairs else ()
        links += tuple(draw(st.lists(st.sampled_from(cables), max_size=2)))
        sequence.append(Failure(devices, links))
    return design, sequence


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(multi_plane_failures())
def test_planes_a_failure_leaves_alone_measure_as_intact(case):
    """Only the planes a failure names are measured; the others are read from the intact fabric,
    kept between failures: every figure equals the graph's."""
    design, sequence = case
    derived = derive(design, CAT)
    for failure in sequence:
        assert what_if(derived, failure, method="max-flow") == _graph_measure(derived, failure)
    switches = switch_ids(derived)
    assert switch_signatures(design, derived.resolved, derived.plan).keys() == set(switches)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(st.one_of(multi_plane_failures().map(lambda case: case[0]),
                 requests.map(_design).filter(lambda d: d is not None)))
def test_an_intact_planes_flow_in_closed_form_is_each_planes_maximum_flow(design):
    """A failure's untouched planes carry the intact plane's flow, taken from the template's
    closed form: it equals the maximum flow solved on each plane's own switch pairs."""
    derived = derive(design, CAT)
    f = SwitchPairs(derived.plan, derived.resolved)
    keys, template = f.template_pairs()
    u, v, total, alive, _, assignment = _intact_state(f, design, keys, template)
    solved = [pair_bisection(f, assignment, u, v, total, alive, planes=(p,)) for p in range(f.planes)]
    assert solved == [_intact_plane_flow(f)] * f.planes
    assert sum(solved) == derived.metrics.bisection_gbps
