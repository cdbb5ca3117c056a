"""ibnetdiscover captures: written from designs, read back, the design inferred, and audited."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io import ibnetdiscover as ib
from designer.io.export_source import ExportSource
from designer.model.decisions.audit import audit
from designer.model.topology.as_built import infer
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()
ROOT = Path(__file__).resolve().parents[1]


def _capture(design):
    return ib.to_as_built(ib.parse(ib.to_text(ExportSource(design, CAT)), "fixture"))


designs = st.builds(
    lambda template, nodes, ratio, tech: new_design(CAT, template, nodes=nodes, technology=tech, oversubscription=ratio,
                                                    server="dgx-b300-xdr" if tech == "ib-xdr" else "dgx-h100"),
    st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree"]), st.sampled_from([16, 32, 64, 96]),
    st.sampled_from([1.0, 2.0]), st.sampled_from(["ib-ndr", "ib-xdr"]))


@settings(max_examples=12, deadline=None)
@given(designs)
def test_export_then_import_gives_back_the_same_metrics(design):
    original = derive(design, CAT).metrics
    asb = _capture(design)
    inferred = infer(asb, CAT)
    m = derive(inferred.design, CAT).metrics
    assert (m.gpus, m.tiers, m.switches_total, m.links_total) == \
        (original.gpus, original.tiers, original.switches_total, original.links_total)
    assert m.switches_by_tier == original.switches_by_tier
    assert m.bisection_gbps == pytest.approx(original.bisection_gbps)
    assert audit(design, asb, CAT).findings == 0


@settings(max_examples=10, deadline=None)
@given(designs, st.integers(1, 6), st.randoms(use_true_random=False))
def test_removing_k_links_makes_the_audit_report_exactly_those(design, k, rnd):
    asb = _capture(design)
    gone = rnd.sample(range(len(asb.links)), k)
    removed = [asb.links[i] for i in gone]
    asb.links = [link for i, link in enumerate(asb.links) if i not in set(gone)]
    result = audit(design, asb, CAT)
    assert sum(m["count"] for m in result.missing_links) == k
    assert not result.extra_links and not result.miswired and not result.degraded_links
    assert not result.missing_devices
    reported = sorted((min(m["a"]["device"], m["b"]["device"]), max(m["a"]["device"], m["b"]["device"]), m["count"])
                      for m in result.missing_links)
    expected = {}
    for link in removed:
        key = (min(link.a, link.b), max(link.a, link.b))
        expected[key] = expected.get(key, 0) + 1
    assert reported == sorted((a, b, n) for (a, b), n in expected.items())


def test_a_cable_on_the_wrong_leaf_is_miswired_with_its_rail():
    design = new_design(CAT, "rail-optimized", nodes=32, technology="ib-ndr")
    asb = _capture(design)
    nic = "gpu-node-0001 mlx5_0"   # its rail-1 HCA, plugged into the rail-2 leaf
    link = next(l for l in asb.links if nic in (l.a, l.b))
    asb.links.remove(link)
    asb.links.append(type(link)(nic, 1, "leaf-2", 60, link.gbps, link.label))
    result = audit(design, asb, CAT)
    assert len(result.miswired) == 1 and not result.missing_links and not result.extra_links
    wrong = result.miswired[0]
    assert wrong["end"]["device"] == nic and wrong["found"]["device"] == "leaf-2"
    assert wrong["expected"]["device"] == "leaf-1" and "rail" in wrong["wrong"]
    assert result.impact["edits"] == 2


def test_a_degraded_link_is_reported_with_its_rate():
    design = new_design(CAT, "rail-optimized", nodes=32, technology="ib-ndr")
    lines = ib.to_text(ExportSource(design, CAT)).splitlines()
    i = next(i for i, line in enumerate(lines) if "gpu-node-0003 mlx5_4" in line and line.startswith("["))
    lines[i] = lines[i].replace("4xNDR", "4xHDR")
    result = audit(design, ib.to_as_built(ib.parse("\n".join(lines), "fixture")), CAT)
    assert len(result.degraded_links) == 1 and result.findings == 1
    d = result.degraded_links[0]
    assert (d["built_gbps"], d["designed_gbps"], d["label"]) == (200, 400, "4xHDR")


REAL_STYLE = """\
ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,31)
#
# Topology file: generated on Mon Nov  3 10:00:00 2025
#
vendid=0x2c9
devid=0xd2f0
switchguid=0xfc6a1c0300a0b0c0(fc6a1c0300a0b0c0)
Switch\t65 "S-fc6a1c0300a0b0c0"\t\t# "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" enhanced port 0 lid 10 lmc 0
[1]\t"H-b8cef603001a0001"[1](b8cef603001a0001)\t\t# "dgx-04-c01 mlx5_5" lid 20 4xNDR
[2]\t"H-b8cef603001a0002"[1](b8cef603001a0002)\t\t# "MT4129 ConnectX7   Mellanox Technologies" lid 21 1xSDR
[3]\t"S-fc6a1c0300a0b0c0"[4]\t\t# "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" lid 10 4xNDR
[4]\t"S-fc6a1c0300a0b0c0"[3]\t\t# "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" lid 10 4xNDR
[65]\t"H-fc6a1c0300a0b0c8"[1](fc6a1c0300a0b0c8)\t\t# "Mellanox Technologies Aggregation Node" lid 11 4xNDR

vendid=0x2c9
devid=0xa2dc
caguid=0xfc6a1c0300a0b0c8
Ca\t1 "H-fc6a1c0300a0b0c8"\t\t# "Mellanox Technologies Aggregation Node"
[1](fc6a1c0300a0b0c8) \t"S-fc6a1c0300a0b0c0"[65]\t\t# lid 11 lmc 0 "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" lid 10 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xb8cef603001a0001
Ca\t1 "H-b8cef603001a0001"\t\t# "dgx-04-c01 mlx5_5"
[1](b8cef603001a0001) \t"S-fc6a1c0300a0b0c0"[1]\t\t# lid 20 lmc 0 "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" lid 10 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xb8cef603001a0002
Ca\t1 "H-b8cef603001a0002"\t\t# "MT4129 ConnectX7   Mellanox Technologies"
[1](b8cef603001a0002) \t"S-fc6a1c0300a0b0c0"[2]\t\t# lid 21 lmc 0 "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" lid 10 1xSDR
"""


def test_what_real_fabrics_contain_is_read_for_what_it_is():
    """Counted by hand: one switch, two HCAs (one with a default description), one SHARP aggregation
    node on port 65 (not an endpoint), one switch cabled to itself, one degraded 1xSDR link, one
    stray ibwarn line: 2 host ports, 3 links (2 host links and the self-cable)."""
    cap = ib.parse(REAL_STYLE, "real-style")
    assert cap.stray_lines == 1
    asb = ib.to_as_built(cap)
    ports = [d for d in asb.devices.values() if d.kind == "port"]
    assert len(ports) == 2 and len(asb.links) == 3
    assert [d.name for d in asb.devices.values() if d.kind == "switch"] == ["A09-P1-IBLEAF-04-04"]
    assert [d.default_named for d in ports] == [False, True]
    assert any("aggregation" in n for n in asb.notes) and any("cabled to itself" in n for n in asb.notes)
    slow = [l for l in asb.links if l.label == "1xSDR"]
    assert len(slow) == 1 and slow[0].gbps == 2.5


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "designer.cli.main", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_import_and_audit_commands(tmp_path):
    capture = tmp_path / "fabric.txt"
    run = _cli("export", "examples/dgx-h100-superpod-1su.json", "--format", "ibnetdiscover", "-o", capture)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "asbuilt.json"
    run = _cli("import", capture, "-o", out)
    assert run.returncode == 0 and out.exists(), run.stderr
    run = _cli("audit", capture, "--against", "examples/dgx-h100-superpod-1su.json", "--json")
    import json
    data = json.loads(run.stdout)
    assert set(data) >= {"inferred", "missing_devices", "missing_links", "extra_links", "miswired", "degraded_links",
                         "unnamed_devices", "impact"}
    assert data["missing_links"] == [] and data["impact"]["bisection_gbps_built"] == 51200


@pytest.mark.parametrize("content, message", [
    (b"\x00\x01\x02binary", "binary data"),
    (b'{"format": "fabric-designer"}', "not an ibnetdiscover capture"),
    (b"vendid=0x2c9\ndevid=0x1021\n", "not an ibnetdiscover capture"),
])
def test_bad_captures_get_one_line(tmp_path, content, message):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    for command in (("audit", bad), ("import", bad, "-o", tmp_path / "x.json")):
        run = _cli(*command)
        assert run.returncode == 1 and run.stderr.count("\n") == 1 and message in run.stderr
    assert not (tmp_path / "x.json").exists()


def test_a_capture_no_catalog_design_fits_is_still_audited_on_its_own(tmp_path):
    capture = tmp_path / "real.topo"
    capture.write_text(REAL_STYLE)
    run = _cli("audit", capture, "--json")
    assert run.returncode == 0, run.stderr
    import json
    data = json.loads(run.stdout)
    assert data["inferred"]["design"] is None and "MQM9701" not in str(data["inferred"]["facts"][3]["value"])
    assert [d["label"] for d in data["degraded_links"]] == ["1xSDR"]
    assert len(data["extra_links"]) == 1 and data["extra_links"][0]["why"] == "a switch cabled to itself"
    assert [d["description"] for d in data["unnamed_devices"]] == ["MT4129 ConnectX7   Mellanox Technologies"]
    refused = _cli("import", capture, "-o", tmp_path / "x.json")
    assert refused.returncode == 1 and "nothing written" in refused.stderr and not (tmp_path / "x.json").exists()
