"""A leaf wired by a rule of its own (X5: 6 links to each of 2 spines, 1 link to each spine for a
6-host leaf, uplinks only) is no finding; cables lost on a leaf stay findings, however many. The
real X5 capture is in tests/test_real_captures.py; here a design with parallel links on every
leaf-spine pair has a leaf rewired on purpose or stripped of cables, and the audit against the
inferred design tells them apart. Against a design the user gives, every leaf is cabled as that
design says, and a leaf cabled otherwise is a finding."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from capture_factory import make_capture

from designer.io.fabric_capture import parse_capture
from designer.model.decisions.audit import audit
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, TierSpec
from designer.model.topology.asbuilt import AsBuilt, Link
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design

# 3 leaves, 4 spines, 8 parallel links from each leaf to each, one-HCA servers.
DESIGN = FabricDesign(cluster=ClusterSpec(server="generic-8gpu", ports_per_server=1, port_gbps=400, servers=96),
                      fabric=FabricSpec(template="leaf-spine", spine=TierSpec(count=4)))


@pytest.fixture(scope="module")
def built():
    derived = derive(DESIGN)
    capture = make_capture(derived, 3, "ibnetdiscover", faults=False)
    fabric = parse_capture(capture.text, "rule.topo")
    by_name = {d.name: d.id for d in fabric.devices.values()}
    leaves = sorted(n for n, d in derived.graph.nodes(data=True) if d["role"] == "leaf")
    spines = sorted(n for n, d in derived.graph.nodes(data=True) if d["role"] == "spine")
    return derived, fabric, [by_name[capture.names[n]] for n in leaves], [by_name[capture.names[n]] for n in spines]


def _uplinks(fabric: AsBuilt, leaf: str) -> list[Link]:
    return [w for w in fabric.links
            if leaf in (w.a, w.b) and fabric.devices[w.b if w.a == leaf else w.a].kind == "switch"]


def _without(fabric: AsBuilt, gone: list[Link]) -> AsBuilt:
    drop = {id(w) for w in gone}
    return dataclasses.replace(fabric, links=[w for w in fabric.links if id(w) not in drop])


def _spine_of(w: Link, leaf: str) -> str:
    return w.b if w.a == leaf else w.a


def _inferred_audit(fabric: AsBuilt):
    inference = infer_design(fabric)
    assert (inference.derived.plan.leaves, inference.derived.plan.spines) == (3, 4)
    return audit(fabric, inference=inference)


def test_the_capture_as_designed_has_no_finding(built):
    derived, fabric, _, _ = built
    assert audit(fabric, design=DESIGN).rows() == [] and _inferred_audit(fabric).rows() == []


@pytest.mark.parametrize(("leaf_index", "spine_index"), [(0, 0), (1, 3), (2, 1)])
def test_a_leaf_that_lost_a_whole_spines_cables_is_still_reported(built, leaf_index, spine_index):
    # 8, 8, 8, 0: the design's links per pair on fewer spines, with hosts on the leaf
    derived, fabric, leaves, spines = built
    leaf, spine = leaves[leaf_index], spines[spine_index]
    gone = [w for w in _uplinks(fabric, leaf) if _spine_of(w, leaf) == spine]
    report = _inferred_audit(_without(fabric, gone))
    assert len(gone) == derived.plan.leaf_up // derived.plan.spines == len(report.missing_links)
    assert not [f for f in report.inferred["facts"] if f["subject"] == "uplinks by design"]


def test_a_leaf_that_lost_one_cable_is_uneven_and_reported(built):
    _, fabric, leaves, _ = built
    report = _inferred_audit(_without(fabric, _uplinks(fabric, leaves[0])[:1]))
    assert len(report.missing_links) == 1 and report.missing_links[0]["pair_links"] == "7 of 8"


def test_a_leaf_with_its_uplinks_paired_otherwise_is_its_own_rule(built):
    # 16 links to each of 2 spines: the same 32 uplinks, cabled as the site chose, as X5's leaf
    _, fabric, leaves, spines = built
    leaf = leaves[1]
    ups = _uplinks(fabric, leaf)
    moved = [w for w in ups if _spine_of(w, leaf) in spines[2:]]
    rewired = [dataclasses.replace(w, b=spines[i % 2]) if w.a == leaf else dataclasses.replace(w, a=spines[i % 2])
               for i, w in enumerate(moved)]
    fabric2 = dataclasses.replace(_without(fabric, moved), links=_without(fabric, moved).links + rewired)
    assert Counter(_spine_of(w, leaf) for w in _uplinks(fabric2, leaf)) == {spines[0]: 16, spines[1]: 16}
    report = _inferred_audit(fabric2)
    assert report.rows() == []
    rule = [f for f in report.inferred["facts"] if f["subject"] == "uplinks by design"]
    assert len(rule) == 1 and "16 link(s) to each of 2 spines" in rule[0]["why"]
    # no finding, but the fabric as built: 8 links more on each of 2 spines, 8 fewer on the others
    assert sorted((e.op, e.count) for e in report.edits) == [("add-links", 8)] * 2 + [("remove-links", 8)] * 2
    assert report.impact["as_built"]["links"] == report.impact["designed"]["links"]


def test_against_the_users_design_a_leaf_cabled_otherwise_is_a_finding(built):
    # the same rewired leaf: the design the user gives says 8 links to each of the 4 spines
    _, fabric, leaves, spines = built
    leaf = leaves[1]
    moved = [w for w in _uplinks(fabric, leaf) if _spine_of(w, leaf) in spines[2:]]
    rewired = [dataclasses.replace(w, b=spines[i % 2]) if w.a == leaf else dataclasses.replace(w, a=spines[i % 2])
               for i, w in enumerate(moved)]
    report = audit(dataclasses.replace(_without(fabric, moved), links=_without(fabric, moved).links + rewired),
                   design=DESIGN)
    assert len(report.miswired) == 16 and all(m["reason"].startswith("wrong switch") for m in report.miswired)
    assert not [f for f in report.inferred["facts"] if f["subject"] == "uplinks by design"]
