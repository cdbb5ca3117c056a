"""What if it fails: closed form and max-flow on the same failures, and the `whatif` command."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.whatif import (
    Failure,
    WhatIfError,
    n_minus_one,
    parse_failure,
    performance_impact,
    what_if,
)
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import cli_run, derived, examples

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name):
    return derived(load_design(EXAMPLES / name))


def run(*args):
    return cli_run(*args)


def test_one_of_16_spines_leaves_15_16_of_bisection():
    d = example("dgx-h100-superpod-4su.json")
    assert d.plan.spines == 16
    for method in ("closed-form", "max-flow"):
        w = what_if(d, Failure(("spine-7",)), method)
        assert w.method == method
        assert w.ratio_after == pytest.approx(15 / 16)
        assert w.gpus_cut == 0 and w.job_continues
        assert w.leaf_oversub_after == pytest.approx(16 / 15)
        assert w.sus_degraded == (1, 2, 3, 4)


def test_a_leaf_cuts_off_its_rail_of_its_su():
    d = example("dgx-h100-superpod-4su.json")
    # Leaves are numbered SU by SU, rail by rail: leaf 11 is rail 3 of SU 2.
    for method in ("closed-form", "max-flow"):
        w = what_if(d, Failure(("leaf-11",)), method)
        assert w.gpus_cut == 32 and w.endpoints_cut == 32
        assert w.sus_cut == (2,) and w.rails_cut == (3,)
        assert w.servers_cut == 32 and not w.job_continues
    impact = performance_impact(d, what_if(d, Failure(("leaf-11",))))
    assert impact["estimated"] is True and impact["job_gpus_after"] == 96 * 8


def test_one_plane_of_two_keeps_every_gpu_at_half_bandwidth():
    d = example("b300-roce-two-plane.json")
    assert d.resolved.planes == 2
    failure = parse_failure(d, ["plane:2"])
    assert failure.devices and all(x.startswith("p2.") for x in failure.devices)
    for method in ("closed-form", "max-flow"):
        w = what_if(d, failure, method)
        assert w.gpus_cut == 0 and w.job_continues
        assert w.gpus_degraded == w.gpus
        assert w.nic_share == pytest.approx(0.5)
        assert w.ratio_after == pytest.approx(0.5 * w.ratio_before)
    impact = performance_impact(d, w)
    assert impact["after_us"] > impact["before_us"]


def test_a_single_plane_loses_gpus_where_two_planes_do_not():
    d = example("b300-roce-two-plane.json")
    w = what_if(d, Failure(("p1.leaf-1",)))
    assert w.gpus_cut == 0 and w.gpus_degraded > 0 and w.nic_share == pytest.approx(0.5)


def test_a_cable_uses_the_graph():
    d = example("dgx-h100-superpod-4su.json")
    w = what_if(d, parse_failure(d, ["leaf-1--spine-1"]))
    assert w.method == "max-flow" and w.gpus_cut == 0
    assert w.bisection_after_gbps < w.bisection_before_gbps
    assert list(w.leaf_oversub) == ["leaf-1"]


def test_unknown_names_are_refused():
    d = example("dgx-h100-superpod-4su.json")
    with pytest.raises(WhatIfError, match="names no switch"):
        parse_failure(d, ["spine-99"])
    with pytest.raises(WhatIfError, match="no link"):
        parse_failure(d, ["leaf-1--leaf-2"])
    with pytest.raises(WhatIfError, match="plane"):
        parse_failure(d, ["plane:3"])
    assert parse_failure(d, ["spine-1*"]).devices == ("spine-1",) + tuple(f"spine-{i}" for i in range(10, 17))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(template=st.sampled_from(["rail-optimized", "leaf-spine"]), nodes=st.integers(2, 24),
       radix=st.sampled_from([8, 16]), planes=st.sampled_from([1, 2]), over=st.sampled_from([1.0, 3.0]))
def test_n_minus_one_closed_form_agrees_with_max_flow(template, nodes, radix, planes, over):
    kw = {"nodes_per_su": radix // 2} if template == "rail-optimized" else {}
    design = new_design(default_catalog(), template, nodes=nodes, gpus_per_node=4, radix=radix, speed=400,
                        planes=planes, oversubscription=over, tiers=2, **kw)
    try:
        d = derived(design)
    except SizingError:
        assume(False)
    assume(d.plan.tiers == 2 and d.plan.spines >= 2 and d.plan.leaf_up % d.plan.spines == 0)
    closed, graph = n_minus_one(d, "closed-form"), n_minus_one(d, "max-flow")
    assert closed.method == "closed-form" and graph.method == "max-flow"
    assert closed.worst.keys() == graph.worst.keys()
    for tier in closed.worst:
        a, b = closed.worst[tier], graph.worst[tier]
        assert (a.gpus_cut, a.endpoints_cut, a.gpus_degraded) == (b.gpus_cut, b.endpoints_cut, b.gpus_degraded)
        assert a.bisection_after_gbps == pytest.approx(b.bisection_after_gbps)
        assert a.leaf_oversub_after == pytest.approx(b.leaf_oversub_after)


def test_n_minus_one_on_three_tiers_uses_the_graph():
    d = example("ndr-8k-fat-tree.json")
    report = n_minus_one(d)
    assert report.method == "max-flow" and set(report.worst) == {"leaf", "spine", "core"}
    assert report.worst["core"].gpus_cut == 0
    assert report.worst["core"].ratio_after < 1.0


def test_whatif_command():
    path = str(EXAMPLES / "dgx-h100-superpod-4su.json")
    res = run("whatif", path, "--fail", "spine-1", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["bisection_ratio_after"] == pytest.approx(15 / 16) and data["computed"] is True
    assert data["performance"]["estimated"] is True
    res = run("whatif", path, "--n-1")
    assert res.returncode == 0 and "leaf-1" in res.stdout and "stops" in res.stdout
    res = run("whatif", path, "--fail", "core-1")
    assert res.returncode == 1 and res.stderr.count("\n") == 1 and "core-1" in res.stderr


def test_n_minus_one_of_a_large_closed_form_fabric_takes_one_switch_of_each_kind():
    # A two-tier four-plane fabric of 768 switches: every leaf alike and every spine alike, so
    # one of each stands for its tier (the closed form walks every endpoint per failure).
    from designer.model.topology.derive import derive

    catalog = default_catalog()
    d = derive(new_design(catalog, "fat-tree", gpus=16384, server="hgx-b300-eth-4plane", switch="tomahawk5-51t"),
               catalog)
    assert d.metrics.switches_total > 400
    result = n_minus_one(d)
    assert result.method == "closed-form"
    assert result.switches == {"leaf": d.metrics.switches_by_tier["leaf"], "spine": d.metrics.switches_by_tier["spine"]}
    assert result.evaluated == {"leaf": 1, "spine": 1}
    # the kind stands for all: any other leaf fails the same way
    other = what_if(d, Failure(("p3.leaf-7",)))
    assert other.bisection_after_gbps == pytest.approx(result.worst["leaf"].bisection_after_gbps)
