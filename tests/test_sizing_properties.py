"""Property tests of sizing: port accounting never exceeds the hardware, and counts are minimal."""

import math

from helpers import assert_no_fewer_spines, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError

CAT = default_catalog()

catalog_requests = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
    "nodes": st.integers(1, 300),
    "server": st.sampled_from(["dgx-h100", "dgx-b200", "gb200-nvl72-tray", "dgx-b300-eth", "dgx-b300-xdr"]),
    "technology": st.sampled_from([None, "ib-ndr", "ib-xdr", "roce-400g", "roce-800g"]),
    "oversubscription": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    "nodes_per_su": st.sampled_from([16, 18, 32, 64]),
})


def _derive(req):
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"],
                            technology=req["technology"], oversubscription=req["oversubscription"],
                            nodes_per_su=req["nodes_per_su"])
        return derive(design, CAT)
    except (SizingError, UnknownPartError):
        return None


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(catalog_requests)
def test_ports_used_never_exceed_ports_total(req):
    d = _derive(req)
    if d is None:
        return
    for tier, p in d.metrics.ports_by_tier.items():
        assert 0 <= p.ports_used <= p.ports_total, tier
        assert p.ports_used + p.ports_free <= p.ports_total, tier
        assert p.port_gbps > 0


def test_mixed_speed_leaf_counts_lanes_not_logical_ports():
    # DGX B300 on Spectrum-X: 64 x 400G down and 32 x 800G up fill one SN5600 (64 x 800G cages).
    design = new_design(CAT, "rail-optimized", nodes=64, nodes_per_su=64, server="dgx-b300-eth",
                        technology="roce-800g")
    leaf = derive(design, CAT).metrics.ports_by_tier["leaf"]
    assert leaf.port_gbps == 800
    assert (leaf.ports_used, leaf.ports_free, leaf.ports_total) == (16 * 64, 0, 16 * 64)
    assert math.isclose(leaf.oversubscription_worst, 1.0)


def test_a_closed_pipe_ends_the_command_quietly():
    import os
    import subprocess
    import sys
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written, as after `| head`
    try:
        run = subprocess.run([sys.executable, "-m", "designer.cli.main", "metrics",
                              "examples/dgx-h100-superpod-1su.json", "--json"],
                             stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert run.returncode == 0 and run.stderr == ""


two_tier_requests = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "rail-optimized"]),
    "nodes": st.integers(1, 200),
    "switch": st.sampled_from(["qm9700", "q3400", "sn5600", "sn5400", "generic-48x400g", "generic-36x400g"]),
    "oversubscription": st.sampled_from([1.0, 1.5, 2.0, 2.5, 3.0, 4.0]),
    "nodes_per_su": st.sampled_from([8, 16, 24, 32]),
})


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_tier_requests)
def test_no_two_tier_fabric_with_fewer_spines_meets_the_request(req):
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server="dgx-b200", switch=req["switch"],
                            speed=400, oversubscription=req["oversubscription"],
                            nodes_per_su=req["nodes_per_su"], tiers=2)
        d = derive(design, CAT)
    except (SizingError, UnknownPartError):
        return
    plan, r = d.plan, d.resolved
    ratio = req["oversubscription"]
    assert plan.leaf_down * r.link_gbps <= ratio * plan.leaf_up * r.uplink_gbps * (1 + 1e-9)
    assert_no_fewer_spines(plan, r, ratio)
