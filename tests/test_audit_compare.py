"""The audit compared on arrays gives the findings of the audit that reads every link.

`audit` compares the capture's host ports and switch pairs with the design's as packed keys and
judges one by one only the links that differ (decisions/audit_compare.py); `one_by_one=True`
reads every link as an object, the reference. Captures are the messy generated ones
(tests/capture_factory.py: absent switches and servers, ports down, swaps, crossed cables,
miswires, missing, extra and slow links, default-named HCAs, management HCAs, leaves wired by
their own rule), audited against the inferred design and against a given design, and hand-made
faults the factory does not make.
"""

from __future__ import annotations

import dataclasses
from unittest.mock import patch

import numpy as np
from capture_factory import make_capture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_audit_generated_captures import GENERATED, _derived, generated_capture

from designer.io.fabric_capture import parse_capture
from designer.model.decisions import audit_compare
from designer.model.decisions.audit import audit
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology import design_view as design_view_module
from designer.model.topology.asbuilt import AsBuilt, Link
from designer.model.topology.capture_mapping import place
from designer.model.topology.derive import derive
from designer.model.topology.design_view import _arrays_of, design_view, view_from_plan
from designer.model.topology.inference import infer_design
from designer.model.topology.link_columns import link_rates
from tests.helpers import examples


def _same(fabric, design=None, inference=None) -> None:
    fast = audit(fabric, design=design, inference=inference)
    slow = audit(fabric, design=design, inference=inference, one_by_one=True)
    assert fast.to_json() == slow.to_json()
    assert fast.edits == slow.edits


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_arrays_and_links_one_by_one_agree_on_generated_captures(seed, key, faults):
    design, fabric = generated_capture(key, seed, faults)
    inference = infer_design(fabric)
    _same(fabric, inference=inference)                 # against the inferred design
    _same(fabric, design=design, inference=inference)  # against the design it was made from


def test_the_comparison_on_arrays_is_the_one_used():
    # A faulty capture is compared on arrays (else the property above compares the reference
    # with itself), and only a few of its links are judged one by one.
    design, derived = _derived("dgx-4su")
    fabric = parse_capture(make_capture(derived, 11, "ibnetdiscover").text, "capture")
    inference = infer_design(fabric)
    placement = place(fabric, inference.roles, design_view(derived))
    chosen = audit_compare.select(fabric, inference.roles, design_view(derived), placement,
                                  set(placement.management), own_rule=False)
    assert chosen is not None
    judged = len(chosen.host_wires) + len(chosen.switch_wires)
    assert 0 < judged < len(fabric.links) // 4


def _slow_and_moved(fabric):
    """The capture with a leaf-spine link at half rate, a host link at 1x width, two HCAs'
    cables exchanged, a switch cabled to itself and one uplink removed."""
    links = list(fabric.links)
    roles = infer_design(fabric).roles
    up = [i for i, w in enumerate(links) if roles[w.a] in ("leaf", "spine") and roles[w.b] in ("leaf", "spine")]
    host = [i for i, w in enumerate(links) if "nic" in (roles[w.a], roles[w.b])]
    w = links[up[3]]
    links[up[3]] = dataclasses.replace(w, gbps=w.gbps / 2)
    w = links[host[5]]
    links[host[5]] = dataclasses.replace(w, width=1)
    i, j = host[10], host[40]
    a, b = links[i], links[j]
    # each link has an HCA at one end and a leaf at the other: exchange the leaf ends
    ka = "b" if roles[a.a] == "nic" else "a"
    kb = "b" if roles[b.a] == "nic" else "a"
    links[i] = dataclasses.replace(a, **{ka: getattr(b, kb), f"p{ka}": getattr(b, f"p{kb}")})
    links[j] = dataclasses.replace(b, **{kb: getattr(a, ka), f"p{kb}": getattr(a, f"p{ka}")})
    spine = links[up[7]].b if roles[links[up[7]].b] == "spine" else links[up[7]].a
    links.append(Link(spine, 60, spine, 61, 400.0, 4, "NDR"))
    del links[up[20]]
    return AsBuilt(fabric.source_format, dict(fabric.devices), links)


def test_hand_made_faults_agree():
    design, derived = _derived("one-plane")
    fabric = _slow_and_moved(parse_capture(make_capture(derived, 5, "ibnetdiscover", faults=False).text, "capture"))
    inference = infer_design(fabric)
    report = audit(fabric, inference=inference)
    assert report.degraded_links and report.miswired and report.missing_links
    _same(fabric, inference=inference)
    _same(fabric, design=design, inference=inference)


def test_link_rates_follow_the_links():
    _, derived = _derived("small")
    fabric = parse_capture(make_capture(derived, 3, "ibnetdiscover").text, "capture")
    rates = link_rates(fabric)
    assert rates.gbps.tolist() == [w.gbps for w in fabric.links]
    assert rates.width.tolist() == [w.width for w in fabric.links]
    fabric.set_links(fabric.links[:-1])      # a new list of links is read again
    assert len(link_rates(fabric).gbps) == len(fabric.links)


_DESIGNS = st.builds(
    lambda template, servers, tiers, planes, server: FabricDesign(
        cluster=ClusterSpec(server=server, servers=servers),
        fabric=FabricSpec(template=template, tiers=tiers, planes=planes)),
    st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree"]),
    st.integers(min_value=2, max_value=300),
    st.sampled_from([None, 2, 3]),
    st.sampled_from([1, 2]),
    st.sampled_from(["dgx-h100", "generic-8gpu", "generic-1gpu-host"]))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DESIGNS)
def test_a_templates_columns_from_its_plan_are_its_views_columns(design):
    try:
        derived = derive(design)
    except ValueError:
        return
    with patch.object(design_view_module, "_arrays_of", side_effect=AssertionError("read off the view")):
        view = view_from_plan(derived)       # the columns made from the plan, not read off the view
    made, read = view.arrays(), _arrays_of(view)
    for f in dataclasses.fields(read):
        got, want = getattr(made, f.name), getattr(read, f.name)
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got, want), f.name
        else:
            assert got == want, f.name
