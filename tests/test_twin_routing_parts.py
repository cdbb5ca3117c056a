"""The routing twin's parts that need no FRR and no root: reading FRR's JSON answers, faults,
the flows and the kernel's answers, and the one-line refusals where the machine lacks something."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.export_source import ExportSource
from designer.io.frr import fabric_links, routing_plan
from designer.io.project import load_design
from designer.twin import frr_daemons, namespaces
from designer.twin.routing_faults import FaultError, parse_fault
from designer.twin.routing_flows import FlowPlan, kernel_placement, parse_devices, plan_flows
from designer.twin.routing_state import Snapshot, SwitchState, leaf_widths, parse_neighbors, parse_routes
from tests.helpers import examples

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROCE = EXAMPLES / "roce-512-leaf-spine-sn5600.json"
CAT = default_catalog()

# Answers as FRR 8.4 gives them (trimmed to the fields read).
NEIGHBORS = {
    "swp65": {"bgpState": "Established", "peerGroup": "fabric"},
    "swp81": {"bgpState": "Idle", "lastResetDueTo": "Waiting for Peer IPv6 LLA"},
    "swp97": {"bgpState": "Active"},
}
ROUTES = {
    "10.255.0.6/32": [{"prefix": "10.255.0.6/32", "protocol": "bgp", "selected": True, "installed": True,
                       "nexthops": [{"fib": True, "interfaceName": "swp65", "active": True},
                                    {"fib": True, "interfaceName": "swp81", "active": True},
                                    {"interfaceName": "swp97", "active": True}]}],
    "10.255.0.7/32": [{"prefix": "10.255.0.7/32", "protocol": "bgp", "selected": False,
                       "nexthops": [{"fib": True, "interfaceName": "swp65"}]}],
    "10.0.0.0/31": [{"prefix": "10.0.0.0/31", "protocol": "connected", "selected": True,
                     "nexthops": [{"fib": True, "interfaceName": "swp65"}]}],
}


def test_sessions_not_up_carry_frrs_reason():
    sessions = parse_neighbors("leaf-1", NEIGHBORS)
    assert sessions["swp65"].up and not sessions["swp65"].reason
    assert sessions["swp81"].reason == "last reset: Waiting for Peer IPv6 LLA"
    assert "no BGP OPEN" in sessions["swp97"].reason


def test_a_routes_width_counts_only_the_next_hops_in_the_kernel():
    routes = parse_routes(ROUTES)
    assert routes["10.255.0.6/32"].next_hops == ("swp65", "swp81")
    assert "10.255.0.7/32" not in routes            # not selected: not the route in use
    snap = Snapshot({"leaf-1": SwitchState("leaf-1", routes=routes), "leaf-2": SwitchState("leaf-2")})
    widths = leaf_widths(snap, ["leaf-1", "leaf-2"], {"leaf-1": "10.255.0.5", "leaf-2": "10.255.0.6"},
                         {"leaf-1": {"leaf-1", "leaf-2"}, "leaf-2": {"leaf-1", "leaf-2"}},
                         {"leaf-1": 4, "leaf-2": 4}, {"leaf-1": 4, "leaf-2": 4})
    assert [(w.leaf, w.widths) for w in widths] == [("leaf-1", {"leaf-2": 2}), ("leaf-2", {"leaf-1": 0})]


def _plan():
    src = ExportSource(load_design(ROCE), CAT)
    switches, links = fabric_links(src)
    return routing_plan(switches, links), links


def test_faults_name_a_pair_a_port_or_a_switch_and_refuse_the_rest():
    plan, links = _plan()
    assert len(parse_fault("link:leaf-1--spine-2", plan, links).links) == 16     # the pair's bundle
    one = parse_fault("link:leaf-1:65", plan, links)
    assert len(one.links) == 1 and ("leaf-1", 65) in one.links[0]
    assert parse_fault("switch:spine-3", plan, links).switches == ("spine-3",)
    for bad in ("switch:spine-9", "link:leaf-1--leaf-2", "link:leaf-1:1", "cable:x", "link:", "spine-3"):
        with pytest.raises(FaultError):
            parse_fault(bad, plan, links)


def test_the_flows_are_the_verdicts_count_each_to_another_leaf_of_its_fabric():
    plan = plan_flows([["a", "b", "c"], ["d"]], nics_per_leaf=4, design_uplinks=4, mode="ecmp-qp",
                      design_mode="ecmp-qp", qps_per_connection=4, seed=1)
    assert plan.per_nic == 2 * 4 and len(plan.flows) == 3 * 4 * 8      # channels x queue pairs per NIC
    assert all(f.src != f.dst and f.dst in "abc" for f in plan.flows)
    assert all(49152 <= f.sport < 65536 for f in plan.flows)


def test_kernel_answers_are_read_in_order():
    out = ("10.255.0.6 from 10.255.0.5 via 10.0.0.1 dev swp65 uid 0 \n    cache \n"
           "10.255.0.6 from 10.255.0.5 via inet6 fe80::1 dev swp81 uid 0 \n    cache \n")
    assert parse_devices(out) == ["swp65", "swp81"]


@settings(max_examples=examples(40), deadline=None)
@given(choice=st.lists(st.integers(0, 3), min_size=32, max_size=32))
def test_the_busiest_uplink_and_balance_follow_the_kernels_answers(choice):
    """A fake kernel that puts flow k on uplink choice[k]: the counts are the answers' counts."""
    leaves = ["l1", "l2"]
    flows = plan_flows([leaves], nics_per_leaf=8, design_uplinks=4, mode="ecmp", design_mode="ecmp",
                       qps_per_connection=1).flows
    assert len(flows) == 32
    plan = FlowPlan("ecmp", "ecmp", 8, 2, 2.0, flows)
    peer_of = {(lf, f"swp{u}"): (f"s{u}", f"swp{lf[-1]}") for lf in leaves for u in range(4)}
    index = {id(f): k for k, f in enumerate(flows)}
    asked: list[str] = []

    def ask(switch: str, cmds: list[str]) -> str:
        asked.append(switch)
        if switch.startswith("l"):
            mine = [f for f in flows if f.src == switch]
            return "".join(f"x dev swp{choice[index[id(f)]]} uid 0\n" for f in mine)
        return "".join("x dev down uid 0\n" for _ in cmds)

    placed = kernel_placement(plan, {"l1": "10.255.0.1", "l2": "10.255.0.2"}, peer_of, ask, paths=4)
    per_link = {}
    for k, f in enumerate(flows):
        per_link[(f.src, choice[k])] = per_link.get((f.src, choice[k]), 0) + 1
    assert placed.busiest_uplink == max(per_link.values())
    assert placed.unrouted == 0 and 0 < placed.expected <= 1.0
    if max(per_link.values()) == 4:                  # perfectly even: every flow at the balanced rate
        assert placed.expected == pytest.approx(1.0)


def test_without_root_the_twin_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(namespaces.os, "geteuid", lambda: 1000)
    assert main(["twin", str(ROCE)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "needs root" in err


def test_without_frr_the_twin_names_the_package(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(namespaces.os, "geteuid", lambda: 0)
    monkeypatch.setattr(namespaces.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(frr_daemons, "FRR_DIR", tmp_path)
    assert main(["twin", str(ROCE)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "install the Debian package frr" in err


def test_a_bad_fault_is_refused_in_one_line_before_anything_is_made(capsys):
    assert main(["twin", str(ROCE), "--fault", "switch:nope-1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no switch 'nope-1'" in err[0]
