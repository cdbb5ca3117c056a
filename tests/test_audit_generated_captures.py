"""The audit of generated captures finds exactly the faults injected, and nothing else.

Captures come from tests/capture_factory.py: site names, HCAs named three ways (HCA-n, mlx5_n,
the factory default), aggregation nodes, management HCAs, parallel and shuffled uplinks, stray
lines, and recorded faults. The property holds over hundreds of captures, ibnetdiscover and LLDP.
"""

from __future__ import annotations

from collections import Counter

from capture_factory import Capture, make_capture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io.fabric_capture import parse_capture
from designer.io.project import load_design
from designer.model.decisions.audit import audit
from designer.model.decisions.audit_summary import summary_lines
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, TierSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from tests.helpers import examples

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


def _one_plane_dgx(servers: int = 144, su: int = 18, spines: int | None = 9) -> FabricDesign:
    """One plane of a DGX H100 NDR fabric as a site builds it: 4 HCAs per host in this plane,
    groups of 18 servers, 9 spines (two links from each leaf to each spine)."""
    return FabricDesign(cluster=ClusterSpec(server="generic-8gpu", ports_per_server=4, port_gbps=400, servers=servers),
                        fabric=FabricSpec(template="rail-optimized", nodes_per_su=su, spine=TierSpec(count=spines)))


_DERIVED = {}


def _derived(key: str):
    if key not in _DERIVED:
        design = {"dgx-4su": lambda: load_design(EXAMPLES / "dgx-h100-superpod-4su.json"),
                  "one-plane": _one_plane_dgx,
                  "small": lambda: _one_plane_dgx(40, 10, None),
                  "three-tier": lambda: FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=96),
                                                     fabric=FabricSpec(template="rail-optimized", tiers=3,
                                                                       nodes_per_su=16)),
                  "roce": lambda: FabricDesign(cluster=ClusterSpec(servers=48),
                                               fabric=FabricSpec(template="rail-optimized", technology="roce-400g",
                                                                 switch="sn5600", nodes_per_su=16))}[key]()
        _DERIVED[key] = (design, derive(design))
    return _DERIVED[key]


GENERATED = ["dgx-4su", "one-plane", "small", "three-tier", "roce"]


def generated_capture(key: str, seed: int, faults: bool):
    """The design of `key` and the capture of it capture_factory makes (LLDP for the RoCE one)."""
    design, derived = _derived(key)
    fmt = "lldp" if key == "roce" else "ibnetdiscover"
    return design, parse_capture(make_capture(derived, seed, fmt, faults=faults).text, "capture")


def found_exactly_the_injected(report, capture: Capture) -> None:
    f = capture.faults
    assert not report.extra_links, report.extra_links[:3]
    absent = {d["device"] for d in report.missing_devices if d["tier"] != "server"}
    assert absent == set(f.absent_switches)
    assert {d["device"] for d in report.missing_devices if d["tier"] == "server"} == set(f.absent_servers)
    down = [m["a"]["design_id"] for m in report.missing_links if m.get("reason") == "host port down"]
    assert sorted(down) == sorted(f.ports_down)
    uplinks = Counter((m["a"]["design_id"], m["b"]["design_id"]) for m in report.missing_links
                      if m.get("reason") != "host port down")
    assert uplinks == f.missing_uplinks
    swaps = {frozenset((s["a"]["design_id"], s["b"]["design_id"])): s["kind"] for s in report.swapped}
    assert swaps == {**{frozenset(p): "swap" for p in f.swaps}, **{frozenset(p): "crossed" for p in f.crossed}}
    assert sorted(m["a"]["design_id"] for m in report.miswired) == sorted(f.miswired)
    degraded = {frozenset((m["a"]["design_id"], m["b"]["design_id"])) for m in report.degraded_links}
    assert degraded == {frozenset(p) for p in f.degraded}
    s = report.summary
    assert s["unnamed_devices"]["attributed"] == len(f.default_named)
    assert s["unnamed_devices"]["unplaced"] == f.unplaced
    assert s["set_apart"]["management_hcas"] == f.management
    # a leaf rewired on purpose (X5's uneven uplinks) is named as its own rule, not a fault
    own = [x["value"] for x in report.inferred["facts"] if x["subject"] == "uplinks by design"]
    assert own == ([f"{len(f.own_rule)} leaves wired their own way"] if f.own_rule else [])


# 75 seeded captures over four designs; the site-named, on-its-own and real-stack (twin) audits
# draw more.
@settings(max_examples=examples(75), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(["dgx-4su", "one-plane", "small", "three-tier"]))
def test_ibnetdiscover_captures_audit_to_exactly_their_faults(seed, key):
    design, derived = _derived(key)
    capture = make_capture(derived, seed, "ibnetdiscover")
    fabric = parse_capture(capture.text, "generated.topo")
    found_exactly_the_injected(audit(fabric, design=design, inference=infer_design(fabric)), capture)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(["one-plane", "small", "roce"]))
def test_lldp_captures_audit_to_exactly_their_faults(seed, key):
    design, derived = _derived(key)
    capture = make_capture(derived, seed, "lldp")
    fabric = parse_capture(capture.text, "generated.json")
    found_exactly_the_injected(audit(fabric, design=design, inference=infer_design(fabric)), capture)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(["one-plane", "dgx-4su", "small"]))
def test_a_capture_audited_on_its_own_infers_its_design_and_finds_its_faults(seed, key):
    """Without a design: rails from the HCA index, groups from shared leaves, spines with their
    parallel links, and every fault found, except what no capture can show (the last spine or
    the last server absent, which leave no gap in any numbering)."""
    design, derived = _derived(key)
    capture = make_capture(derived, seed, "ibnetdiscover")
    fabric = parse_capture(capture.text, "generated.topo")
    inference = infer_design(fabric)
    facts = {f.subject: f for f in inference.facts}
    plan = derived.plan
    assert inference.design.fabric.template == "rail-optimized"
    assert facts["template"].confidence == "high"
    assert facts["rails"].value == str(derived.resolved.rails)
    assert facts["nodes per SU"].value == str(plan.rail_su_size)
    report = audit(fabric, inference=inference)
    last_spine = f"spine-{plan.spines}" in capture.faults.absent_switches
    last_server = f"srv-{plan.servers}" in capture.faults.absent_servers
    if not last_spine:
        assert inference.derived.plan.spines == plan.spines
    if not (last_spine or last_server):
        found_exactly_the_injected(report, capture)
    assert not report.extra_links and len(report.swapped) == len(capture.faults.swaps) + len(capture.faults.crossed)


def test_the_dgx_h100_4su_capture_with_every_fault_audits_to_exactly_them():
    """The done-when case, spelled out: an absent leaf named, swaps as one, uplinks counted."""
    design, derived = _derived("dgx-4su")
    seeds = (s for s in range(500))
    for seed in seeds:
        capture = make_capture(derived, seed, "ibnetdiscover")
        f = capture.faults
        if [x for x in f.absent_switches if x.startswith("leaf")] and f.swaps and f.missing_uplinks and f.degraded:
            break
    fabric = parse_capture(capture.text, "4su.topo")
    report = audit(fabric, design=design, inference=infer_design(fabric))
    found_exactly_the_injected(report, capture)
    lines = summary_lines(report)
    leaf = f.absent_switches[0]
    assert lines[0].startswith(f"Absent switches: 1 \u2014 {leaf} (SU ")
    assert lines[2].startswith(f"Missing uplinks: {sum(f.missing_uplinks.values())} on ")
    assert not report.miswired and len(report.swapped) == len(f.swaps) + len(f.crossed)


def test_the_cli_summary_of_a_2000_server_capture_fits_one_screen(tmp_path, capsys):
    from designer.cli.main import main
    from designer.io.project import save_design
    design = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=2000),
                          fabric=FabricSpec(template="rail-optimized"))
    capture = make_capture(derive(design), 7, "ibnetdiscover")
    (tmp_path / "f.topo").write_text(capture.text)
    save_design(design, tmp_path / "d.json")
    assert main(["audit", str(tmp_path / "f.topo"), "--against", str(tmp_path / "d.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) <= 40 and max(map(len, out)) <= 120
    assert any(line.strip().startswith("Absent switches: ") for line in out)
    assert "--detail" in out[-1]
