"""Ethernet captures: LLDP tables written from designs (designer.io.lldp.export_lldp_json), read
back, inferred and audited.

Hand counts on the public Cumulus captures (checked outside these tests, which never read them):
- lldp.output (netenglabs/suzieq): 14 records; the 9 switch records hold `net show lldp json`
  (json0), the 5 server records are empty and edge01's holds plain lldpctl text, so it is read
  as a neighbour only. 10 devices, all switches (each reports neighbours or announces Bridge or
  Router; edge01 announces Router), 22 links once each end is merged: 8 leaf-spine, 4 exit-spine,
  4 leaf-leaf peer links, 2 exit-edge01, 2 exit-internet and 2 self-cabled (exit01 swp3-swp4,
  exit02 swp3-swp4), which are the 2 miswired findings. Every neighbour announces MAU type
  1000BaseTFD, so every link reads 1G. No hosts: no design is inferred, `import` refuses with one
  line and `audit` reports the topology on its own.
- spine01_net_show_lldp_json.json: spine01's table alone: 7 devices, 6 links (4 leaves, 2 exits),
  all 1G; no hosts, so the same outcome.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.io.fabric_capture import CaptureError, parse_capture
from designer.io.lldp import export_lldp_json as lldp_capture
from designer.io.lldp import mau_gbps
from designer.io.project import load_design
from designer.model.decisions.audit import KEYS, audit
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec, TierSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from tests.helpers import examples

METRIC_KEYS = ("gpus", "servers", "endpoints", "switches", "links", "bisection_gbps", "oversubscription", "max_hops")

ethernet_designs = st.builds(
    lambda template, servers, over, tiers, tech: FabricDesign(
        cluster=ClusterSpec(servers=servers),
        fabric=FabricSpec(template=template, tiers=tiers, technology=tech, switch="sn5600",
                          leaf=TierSpec(oversubscription=over))),
    st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree"]),
    st.integers(min_value=2, max_value=160),
    st.sampled_from([1.0, 2.0]),
    st.sampled_from([None, 2, 3]),
    st.sampled_from(["roce-400g", "roce-800g"]))


def _capture(design: FabricDesign, **kw):
    return parse_capture(lldp_capture(derive(design), **kw), "fabric.json")


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ethernet_designs, st.booleans())
def test_lldp_export_then_import_gives_the_same_metrics(design, servers_report):
    """Servers running lldpd report their own ports too: they announce Station, so they stay
    servers, and each cable is still counted once."""
    fabric = _capture(design, servers_report=servers_report)
    assert fabric.family == "ethernet"
    assert len(fabric.links) == derive(design).metrics.links_total
    inference = infer_design(fabric)
    assert inference.design is not None, inference.problems
    # One switch and silent servers: no other device reports the switch's system description.
    unseen = derive(design).metrics.tiers == 1 and not servers_report
    if unseen:
        assert inference.exact and all("not recognised" in p for p in inference.problems)
    else:
        assert inference.exact and not inference.problems
    want, got = derive(design).metrics.to_json(), inference.derived.metrics.to_json()
    for key in METRIC_KEYS:
        assert got[key] == want[key], key
    facts = {f.subject: f for f in inference.facts}
    assert (facts["switch model"].value, facts["switch model"].confidence) == \
        ("sn5600", "low" if unseen else "high")
    assert inference.derived.resolved.technology.family == "ethernet"


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ethernet_designs, st.integers(min_value=1, max_value=5), st.integers(min_value=0, max_value=10**6))
def test_removing_k_lldp_links_reports_exactly_those_k(design, k, seed):
    g = derive(design).graph
    edges = random.Random(seed).sample(sorted((u, v) for u, v in g.edges()), min(k, g.number_of_edges()))
    removed = Counter(tuple(sorted(e)) for e in edges)
    broken = dataclasses.replace(design, edits=tuple(Edit("remove-links", a, b, n) for (a, b), n in removed.items()))
    report = audit(_capture(broken), design=design)
    assert not report.extra_links and not report.miswired and not report.missing_devices
    assert Counter(tuple(sorted((m["a"]["design_id"], m["b"]["design_id"]))) for m in report.missing_links) == removed


def _rail(servers=32):
    return FabricDesign(cluster=ClusterSpec(servers=servers),
                        fabric=FabricSpec(template="rail-optimized", technology="roce-400g", switch="sn5600"))


def test_a_slow_port_is_degraded_and_servers_are_placed_by_port_name():
    """32 servers x 8 ports on 8 rail leaves: one host link at 100G is the one degraded link."""
    design = _rail()
    fabric = _capture(design, degrade={("srv-3.nic-5", "leaf-5"): 100})
    assert len([d for d in fabric.endpoints()]) == 256 and {d.hca for d in fabric.endpoints()} == set(range(8))
    inference = infer_design(fabric)
    assert inference.exact and inference.design.fabric.template == "rail-optimized"
    report = audit(fabric, inference=inference)
    assert [d["as_built"] for d in report.degraded_links] == ["100G"]
    ends = {e["device"]: e for e in (report.degraded_links[0]["a"], report.degraded_links[0]["b"])}
    assert set(ends) == {"srv-3", "leaf-5"} and ends["srv-3"]["rail"] == 5 and ends["srv-3"]["tier"] == "server"
    assert not report.missing_links and not report.miswired
    assert set(report.to_json()) == set(KEYS)


def _edit_neighbours(text: str, change) -> str:
    """The capture with change(neighbour name, port entry) applied to every neighbour entry."""
    records = json.loads(text)
    for rec in records:
        data = json.loads(rec["data"])
        for item in data["lldp"]["interface"]:
            for entry in item.values():
                change(next(iter(entry["chassis"])), entry["port"])
        rec["data"] = json.dumps(data)
    return json.dumps(records)


def test_swapped_host_cables_are_one_swap():
    def swap(name, port):     # srv-1's eth0 and eth1 trade leaves
        if name == "srv-1" and port["id"]["value"] in ("eth0", "eth1"):
            port["id"]["value"] = {"eth0": "eth1", "eth1": "eth0"}[port["id"]["value"]]
    text = _edit_neighbours(lldp_capture(derive(_rail())), swap)
    report = audit(parse_capture(text, "f.json"), design=_rail())
    assert not report.miswired and not report.extra_links and not report.missing_links
    assert [s["reason"] for s in report.swapped] == ["server srv-1: eth0 and eth1 are on each other's leaves"]


def test_switch_models_are_read_from_system_descriptions_and_unknown_ones_reported():
    text = lldp_capture(derive(_rail(24)))   # two tiers: the switches report each other
    # Cumulus and SONiC name the box with a prefix or inside the SKU: still the catalog SN5600
    for descr in ("Cumulus Linux version 5.9.1 running on Mellanox Technologies Ltd. MSN5600",
                  "SONiC Software Version: SONiC.202311 - HwSku: Mellanox-SN5600-V256 - ASIC: mellanox"):
        inference = infer_design(parse_capture(text.replace("NVIDIA Spectrum-4 SN5600", descr), "f.json"))
        fact = next(f for f in inference.facts if f.subject == "switch model")
        assert (fact.value, fact.confidence) == ("sn5600", "high") and not inference.problems
    inference = infer_design(parse_capture(text.replace("NVIDIA Spectrum-4 SN5600", "Acme XS-9"), "f.json"))
    fact = next(f for f in inference.facts if f.subject == "switch model")
    assert fact.confidence == "low" and "Acme XS-9" in fact.why
    assert any("not recognised" in p and "Acme XS-9" in p for p in inference.problems)


def test_a_capture_without_rates_is_audited_without_a_design(tmp_path, capsys):
    text = _edit_neighbours(lldp_capture(derive(_rail(8))), lambda name, port: port.pop("auto-negotiation"))
    fabric = parse_capture(text, "f.json")
    assert {link.gbps for link in fabric.links} == {0.0}
    inference = infer_design(fabric)
    assert inference.design is None and "no link rates" in inference.problems[0]
    (tmp_path / "f.json").write_text(text)
    assert main(["import", str(tmp_path / "f.json"), "-o", str(tmp_path / "x.json")]) == 1
    err = capsys.readouterr().err
    assert "no link rates" in err and err.count("\n") == 1 and not (tmp_path / "x.json").exists()


def test_cli_audits_an_lldp_capture_against_its_inferred_design(tmp_path, capsys):
    design = _rail()
    broken = dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-2", 1),))
    (tmp_path / "f.json").write_text(lldp_capture(derive(broken)))
    assert main(["audit", str(tmp_path / "f.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(KEYS) and data["inferred"]["template"] == "rail-optimized"
    assert [(m["a"]["design_id"], m["b"]["design_id"]) for m in data["missing_links"]] == [("leaf-2", "spine-2")]
    assert data["impact"]["as_built"]["links"] == data["impact"]["designed"]["links"] - 1
    assert main(["import", str(tmp_path / "f.json"), "-o", str(tmp_path / "ab.json")]) == 0
    assert derive(load_design(tmp_path / "ab.json")).metrics.links_total == derive(design).metrics.links_total - 1
    # An unplugged server port is a missing link, and the imported design drops the port with it,
    # so no NIC is left without a cable.
    unplugged = dataclasses.replace(design, edits=(Edit("remove-links", "srv-5.nic-3", "leaf-3", 1),))
    (tmp_path / "g.json").write_text(lldp_capture(derive(unplugged)))
    assert main(["import", str(tmp_path / "g.json"), "-o", str(tmp_path / "ab2.json")]) == 0
    metrics = derive(load_design(tmp_path / "ab2.json")).metrics
    assert metrics.links_total == derive(design).metrics.links_total - 1 and not metrics.errors


@pytest.mark.parametrize("mau, gbps", [("1000BaseTFD - Four-pair Category 5 UTP, full duplex mode", 1.0),
                                       ("10GigBaseCX4", 10.0), ("400GbaseSR8", 400.0), ("2p5GbaseT", 2.5),
                                       ("800GbaseCR8", 800.0), ("", 0.0), ("unknown", 0.0)])
def test_mau_type_names_give_rates(mau, gbps):
    assert mau_gbps(mau) == gbps


def test_truncated_lldp_json_gets_one_line():
    text = lldp_capture(derive(_rail(4)))
    with pytest.raises(CaptureError) as exc:
        parse_capture(text[: len(text) // 2], "f.json")
    assert "truncated" in str(exc.value) and "\n" not in str(exc.value)


def test_a_three_tier_roce_fabric_from_an_lldp_csv():
    """A 3-tier RoCE fat-tree as the simple CSV (local device, port, remote device, port, speed):
    no system descriptions, so the model is assumed, labelled low and noted; counts are exact."""
    design = FabricDesign(cluster=ClusterSpec(servers=300),
                          fabric=FabricSpec(template="fat-tree", tiers=3, technology="roce-400g", switch="sn5600"))
    g = derive(design).graph
    rows = ["local device,local port,remote device,remote port,speed"]
    for u, v, d in g.edges(data=True):
        lo, hi = d["a"], (v if d["a"] == u else u)
        lo_port = f"eth{g.nodes[lo]['port']}" if g.nodes[lo]["role"] == "nic" else f"swp{d['pa']}"
        rows.append(f"{hi},swp{d['pb']},{lo.split('.nic-')[0]},{lo_port},{d['gbps']}G")
    inference = infer_design(parse_capture("\n".join(rows) + "\n", "links.csv"))
    assert inference.exact and inference.design.fabric.tiers == 3
    assert inference.derived.resolved.technology.family == "ethernet"
    want, got = derive(design).metrics.to_json(), inference.derived.metrics.to_json()
    assert all(got[k] == want[k] for k in METRIC_KEYS)
    fact = next(f for f in inference.facts if f.subject == "switch model")
    assert fact.confidence == "low" and any("not recognised" in p for p in inference.problems)


_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6),
                  st.sampled_from(["swp1", "eth0", "Bridge", "400GbaseCR8", "leaf1"]))
_keys = st.sampled_from(["name", "chassis", "port", "id", "value", "descr", "capability", "type", "enabled",
                         "auto-negotiation", "current", "interface", "lldp", "swp1", "leaf1"])
_json = st.recursive(_leaf, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(_keys, c, max_size=4)),
                     max_leaves=20)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json, st.booleans())
def test_any_lldp_json_shape_is_read_or_refused_with_one_line(value, records):
    doc = [{"hostname": "sw1", "data": json.dumps({"lldp": value})}] if records else {"lldp": value}
    try:
        fabric = parse_capture(json.dumps(doc), "x.json")
    except CaptureError as exc:
        assert "\n" not in str(exc)
        return
    audit(fabric, inference=infer_design(fabric))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["leaf1", "leaf2", "spine1", "srv1", "srv2", "localhost", ""]),
                          st.sampled_from(["swp1", "swp2", "eth0", "eth1", ""]),
                          st.sampled_from(["leaf1", "leaf2", "spine1", "srv1", "srv2", ""]),
                          st.sampled_from(["swp1", "swp2", "eth0", ""]),
                          st.sampled_from(["400G", "800G", "1G", "", "0", "1T", "abc"])), max_size=25))
def test_any_lldp_csv_table_is_read_or_refused_with_one_line(rows):
    text = "local device,local port,remote device,remote port,speed\n" + "\n".join(",".join(r) for r in rows)
    try:
        fabric = parse_capture(text + "\n", "x.csv")
    except CaptureError as exc:
        assert "\n" not in str(exc)
        return
    audit(fabric, inference=infer_design(fabric))


def test_a_cable_between_two_leaves_beside_a_leafs_own_uplink_rule_is_an_extra_link():
    # leaf1's uplinks are its own rule (one leaf wired its own way); its cable to leaf2 is no
    # uplink of that rule but a link the design has no place for. The audit once took it for one
    # of leaf1's uplinks and stopped on a KeyError.
    rows = ["leaf1,swp1,leaf1,swp1,400G"] * 4 + [
        "leaf1,swp1,leaf2,swp1,400G", "leaf1,swp1,srv1,swp2,400G", "leaf2,swp1,spine1,swp1,800G",
        "leaf2,swp1,srv1,swp1,800G", "spine1,swp1,leaf1,swp1,400G"]
    text = "local device,local port,remote device,remote port,speed\n" + "\n".join(rows) + "\n"
    fabric = parse_capture(text, "x.csv")
    report = audit(fabric, inference=infer_design(fabric))
    assert [(e["a"]["device"], e["b"]["device"], e["reason"]) for e in report.extra_links] == [
        ("leaf1", "leaf2", "more links than designed between these switches")]
    assert [(d["a"]["device"], d["b"]["device"], d["designed"]) for d in report.degraded_links] == [
        ("leaf1", "spine1", "800G"), ("srv1", "leaf1", "800G")]
