"""ibnetdiscover export/import round trip, inference and audit, on captures made from designs.

Hand counts on public captures (checked outside these tests, which never read them):
- ibtopotool 1.topo: 6 devices, 7 links, 2 degraded (1xSDR), 5 unnamed (4 default HCAs and one
  default switch description), 1 stray line skipped; no catalog design fits SDR, so it is audited
  on its own.
- ibtopotool 3.topo: 8 devices, 10 links, 3 self-cabled (miswired), 4 degraded (one 4xFDR uplink,
  two 4xQDR and one 4xSDR host link under a 4xEDR/4xFDR fabric), 1 unnamed switch.
- topograph example-bad.out: one GB200 HCA and no links: refused with one line.
- Cumulus lldp.output (suzieq): 10 switches and 22 links from the switches' json0 tables (the
  servers' records hold no JSON); 2 miswired: exit01 and exit02 each have swp3 cabled to their
  own swp4. No hosts, so no design is inferred.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.io.fabric_capture import CaptureError, parse_capture
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover, write_ibnetdiscover
from designer.io.project import load_design, save_design
from designer.model.decisions.audit import KEYS, audit
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec, TierSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from tests.helpers import examples

METRIC_KEYS = ("gpus", "servers", "endpoints", "switches", "links", "bisection_gbps", "oversubscription", "max_hops")

designs = st.builds(
    lambda template, servers, over, tiers: FabricDesign(
        cluster=ClusterSpec(servers=servers),
        fabric=FabricSpec(template=template, tiers=tiers, leaf=TierSpec(oversubscription=over))),
    st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree"]),
    st.integers(min_value=2, max_value=160),
    st.sampled_from([1.0, 2.0]),
    st.sampled_from([None, 2]))


def _capture(design: FabricDesign):
    return parse_ibnetdiscover(export_ibnetdiscover(derive(design)))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_export_then_import_gives_the_same_metrics(design):
    inference = infer_design(_capture(design))
    assert inference.design is not None, inference.problems
    want, got = derive(design).metrics.to_json(), inference.derived.metrics.to_json()
    for key in METRIC_KEYS:
        assert got[key] == want[key], key


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs, st.integers(min_value=1, max_value=6), st.integers(min_value=0, max_value=10**6))
def test_removing_k_links_reports_exactly_those_k(design, k, seed):
    g = derive(design).graph
    edges = random.Random(seed).sample(sorted((u, v) for u, v in g.edges()), min(k, g.number_of_edges()))
    removed = Counter_of(edges)
    broken = dataclasses.replace(design, edits=tuple(Edit("remove-links", a, b, n) for (a, b), n in removed.items()))
    report = audit(_capture(broken), design=design)
    assert not report.extra_links and not report.miswired and not report.missing_devices
    got = Counter_of((m["a"]["design_id"], m["b"]["design_id"]) for m in report.missing_links)
    assert got == removed


def Counter_of(pairs):
    from collections import Counter
    return Counter(tuple(sorted(p)) for p in pairs)


def _rail_design(servers=64):
    return FabricDesign(cluster=ClusterSpec(servers=servers), fabric=FabricSpec(template="rail-optimized"))


def test_capture_features_are_read():
    text = export_ibnetdiscover(derive(_rail_design()))
    lines = text.splitlines()
    # degrade one host link, add a stray stderr line and default-name one HCA
    i = next(n for n, ln in enumerate(lines) if ln.startswith("[1](") and "4xNDR" in ln)
    lines[i] = lines[i].replace("4xNDR", "1xSDR")
    j = next(n for n, ln in enumerate(lines) if ln.startswith("Ca\t") and "srv-64 mlx5_7" in ln)
    lines[j] = lines[j].replace("srv-64 mlx5_7", "MT4129 ConnectX7   Mellanox Technologies")
    lines.insert(0, "src/query_smp.c:195; umad (DR path slid 0) bad status 110; Connection timed out")
    fabric = parse_ibnetdiscover("\n".join(lines) + "\n")
    assert len([d for d in fabric.devices.values() if d.aggregation]) == 24   # SHARP nodes on every switch
    assert fabric.notes and "skipped" in fabric.notes[0]
    inference = infer_design(fabric)
    assert inference.exact and inference.design.fabric.template == "rail-optimized"
    report = audit(fabric, inference=inference)
    assert len(report.degraded_links) == 1 and report.degraded_links[0]["as_built"] == "1xSDR"
    assert [u["description"] for u in report.unnamed_devices] == ["MT4129 ConnectX7   Mellanox Technologies"]
    assert not report.missing_links and not report.missing_devices   # the unnamed HCA is placed by its leaf port
    assert set(report.to_json()) == set(KEYS)


def test_miswired_host_is_named_by_rail():
    design = _rail_design()
    text = export_ibnetdiscover(derive(design))
    # srv-1's mlx5_0 and mlx5_1 swap descriptions: each sits on the other's rail
    text = text.replace('"srv-1 mlx5_0"', '"TMP"').replace('"srv-1 mlx5_1"',
                                                           '"srv-1 mlx5_0"').replace('"TMP"', '"srv-1 mlx5_1"')
    report = audit(parse_ibnetdiscover(text), design=design)
    # one swap, not two miswires
    assert not report.miswired and not report.extra_links and not report.missing_links
    assert [s["reason"] for s in report.swapped] == ["server srv-1: mlx5_0 and mlx5_1 are on each other's leaves"]


def test_missing_switch_and_short_pair(tmp_path):
    design = _rail_design()
    broken = dataclasses.replace(design, edits=(Edit("remove-device", "spine-2"), Edit("remove-links", "leaf-1",
                                                                                       "spine-1", 1)))
    report = audit(_capture(broken), design=design)
    assert [d["device"] for d in report.missing_devices] == ["spine-2"]
    assert len(report.missing_links) == 1 and report.missing_links[0]["pair_links"] == "3 of 4"
    assert report.impact["as_built"]["bisection_gbps"] < report.impact["designed"]["bisection_gbps"]


def test_cli_import_and_audit(tmp_path, capsys):
    import json
    design = _rail_design()
    save_design(design, tmp_path / "d.json")
    write_ibnetdiscover(dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-3", 1),)),
                        tmp_path / "f.topo")
    assert main(["import", str(tmp_path / "f.topo"), "-o", str(tmp_path / "ab.json")]) == 0
    asbuilt = load_design(tmp_path / "ab.json")
    assert derive(asbuilt).metrics.links_total == derive(design).metrics.links_total - 1
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "f.topo"), "--against", str(tmp_path / "d.json"), "--json",
                 "--csv", str(tmp_path / "f.csv")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(KEYS) and len(data["missing_links"]) == 1
    assert (tmp_path / "f.csv").read_text().count("\nmissing_links,") == 1


@pytest.mark.parametrize("text, words", [
    ("\x00\x01\x02garbage", "binary"),
    ('{"format": "fabric-designer", "design": {}}', "project file"),
    ("hello,world\n", "not a fabric capture"),
])
def test_bad_input_gets_one_line(text, words):
    with pytest.raises(CaptureError) as exc:
        parse_capture(text, "x")
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_truncated_dump_is_refused(tmp_path, capsys):
    text = export_ibnetdiscover(derive(_rail_design(32)))
    (tmp_path / "t.topo").write_text(text[: len(text) // 3])
    assert main(["import", str(tmp_path / "t.topo"), "-o", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert "truncated" in err and err.count("\n") == 1 and not (tmp_path / "x.json").exists()


def test_lldp_csv_and_json():
    csv_text = ("local device,local port,remote device,remote port,speed\n"
                "leaf1,swp1,spine1,swp1,400G\nleaf1,swp2,spine2,swp1,400G\nleaf1,swp10,gpu1,eth0,400G\n"
                "leaf1,swp11,gpu2,eth0,100G\n")
    fabric = parse_capture(csv_text, "n.csv")
    assert len(fabric.links) == 4
    report = audit(fabric)
    assert [d["b"]["device"] for d in report.degraded_links] == ["gpu2"]
    json0 = ('{"lldp": [{"interface": [{"name": "swp1", "chassis": [{"name": [{"value": "leaf01"}], '
             '"capability": [{"type": "Bridge", "enabled": true}]}], "port": [{"id": [{"type": "ifname", '
             '"value": "swp51"}]}]}]}]}')
    fabric = parse_capture(json0, "spine01_lldp.json")
    assert [(wire.a, wire.b) for wire in fabric.links] == [("spine01", "leaf01")]
    assert fabric.devices["leaf01"].kind == "switch"


def test_site_names_and_storage_hca_gaps_are_understood():
    """SuperPOD-style names: leaves 'A09-P1-IBLEAF-<su>-<rail>', compute HCAs mlx5_0-3 and mlx5_6-9."""
    import re
    design = _rail_design()
    text = export_ibnetdiscover(derive(design))
    text = re.sub(r"srv-(\d+) mlx5_(\d)",
                  lambda m: f"dgx-{int(m.group(1)):02d}-c01 mlx5_{int(m.group(2)) + 2 * (int(m.group(2)) >= 4)}", text)
    text = re.sub(r"MF0;leaf-(\d+):MQM9700",
                  lambda m: (f"MF0;A09-P1-IBLEAF-{(int(m.group(1)) - 1) // 8 + 1:02d}"
                             f"-{(int(m.group(1)) - 1) % 8 + 1:02d}:MQM9701"), text)
    # swap two cables on dgx-01: mlx5_6 and mlx5_7 trade leaves
    text = text.replace('"dgx-01-c01 mlx5_6"', '"X"').replace('"dgx-01-c01 mlx5_7"',
                                                              '"dgx-01-c01 mlx5_6"').replace('"X"',
                                                                                             '"dgx-01-c01 mlx5_7"')
    fabric = parse_ibnetdiscover(text)
    inference = infer_design(fabric)
    assert inference.exact
    facts = {f.subject: f for f in inference.facts}
    assert facts["switch model"].value == "qm9700" and facts["switch model"].confidence == "medium"
    report = audit(fabric, inference=inference)
    assert not report.miswired and len(report.swapped) == 1
    assert {report.swapped[0][e]["device"] for e in "ab"} == {"dgx-01-c01 mlx5_6", "dgx-01-c01 mlx5_7"}
    assert report.swapped[0]["reason"] == "server dgx-01-c01: mlx5_6 and mlx5_7 are on each other's leaves"


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs, st.sampled_from([None, 2]))
def test_candidate_counts_from_the_plan_equal_the_metrics(design, planes):
    """Inference ranks candidates by their sized counts; they must be the counts metrics report."""
    from designer.model.topology.derive import plan_only
    from designer.model.topology.inference import _planned_counts
    if planes:
        design = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, planes=planes))
    try:
        m = derive(design).metrics
    except ValueError:
        return
    got = (m.switches_by_tier.get("leaf", 0), m.switches_by_tier.get("spine", 0), m.switches_by_tier.get("core", 0),
           m.links_by_tier.get("node-leaf", 0), m.links_by_tier.get("leaf-spine", 0),
           m.links_by_tier.get("spine-core", 0))
    assert _planned_counts(*plan_only(design)) == got


def test_a_capture_far_from_the_design_is_audited_without_an_as_built_impact(tmp_path, capsys, monkeypatch):
    """More differences than a design holds edits: the findings are listed, the impact says why it
    is missing and import refuses with one line."""
    import designer.io.fabric_capture as fabric_capture
    import designer.model.decisions.audit as audit_module
    monkeypatch.setattr(audit_module, "MAX_EDITS", 3)
    monkeypatch.setattr(fabric_capture, "MAX_EDITS", 3)
    design = _rail_design(32)
    capture = _capture(FabricDesign(cluster=ClusterSpec(servers=32), fabric=FabricSpec(template="leaf-spine")))
    report = audit(capture, design=design)
    assert len(report.edits) > 3 and (report.missing_links or report.miswired or report.extra_links)
    assert "as_built" not in report.impact and "more than the 3 edits" in report.impact["as_built_note"]
    write_ibnetdiscover(dataclasses.replace(design, edits=tuple(
        Edit("remove-links", f"leaf-{i}", "spine-1", 1) for i in range(1, 6))), tmp_path / "f.topo")
    assert main(["import", str(tmp_path / "f.topo"), "-o", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert "at most 3 edits" in err and err.count("\n") == 1 and not (tmp_path / "x.json").exists()


def test_two_servers_cabled_to_each_other_are_reported_and_the_impact_is_measured():
    """A cable between two HCAs is a finding, never a fabric link (graph metrics run leaf-up)."""
    import re
    text = export_ibnetdiscover(derive(_rail_design(8)))
    peer = re.search(r'Ca\t1 "H-(\w+)"\t\t# "srv-2 mlx5_0"', text).group(1)
    # srv-1 mlx5_0's cable runs to srv-2 mlx5_0 instead of its leaf
    text = re.sub(r'(# "srv-1 mlx5_0"\n\[1\]\(\w+\)\t)"S-\w+"\[\d+\]', rf'\1"H-{peer}"[1]', text)
    report = audit(parse_ibnetdiscover(text), design=_rail_design(8))
    odd = [m for m in report.miswired + report.extra_links if m["a"]["tier"] == m["b"]["tier"] == "server"]
    assert [{m["a"]["device"], m["b"]["device"]} for m in odd] == [{"srv-1 mlx5_0", "srv-2 mlx5_0"}]
    # the leaf still lists its own end of the cable, so only the server-to-server link is new,
    # and it is not drawn into the fabric whose impact is measured
    assert not [e for e in report.edits if e.op == "add-links"]
    assert report.impact["as_built"]["links"] == report.impact["designed"]["links"]
