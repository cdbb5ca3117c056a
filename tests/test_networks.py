"""The cluster's networks beside the compute fabric: model, sizing, BOM, CLI and arrangements."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.network_csv import cluster_bom_rows, network_cabling_rows
from designer.io.project import (
    ProjectFileError,
    design_from_json,
    design_to_json,
    load_design,
)
from designer.model.intent.design import ClusterSpec, FabricDesign
from designer.model.intent.networks import NetworkSpec
from designer.model.intent.serde import DesignValidationError
from designer.model.networks.arrangements import arrangements
from designer.model.networks.bom import compute_switch_count, network_boms
from designer.model.networks.defaults import ra_networks
from designer.model.networks.sizing import (
    checkpoint_seconds,
    size_network,
    size_networks,
)
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import default_prices
from designer.model.topology.derive import derive
from tests.helpers import examples

CAT = default_catalog()
OOB = NetworkSpec(role="oob", template="per-rack", switch="sn2201")


def _h100(servers: int = 128) -> FabricDesign:
    return FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=servers),
                        networks=ra_networks(CAT.server("dgx-h100")))


def test_a_design_without_networks_saves_exactly_as_before():
    text = design_to_json(FabricDesign())
    assert '"networks"' not in text
    assert design_from_json(text) == FabricDesign()


@settings(max_examples=examples(25), deadline=None)
@given(role=st.sampled_from(["converged", "storage", "inband", "customer"]),
       ports=st.none() | st.integers(1, 8), ratio=st.floats(0.5, 8),
       storage=st.floats(0, 50))
def test_networks_round_trip_through_a_project_file(role, ports, ratio, storage):
    net = NetworkSpec(role=role, ports_per_server=ports, port_gbps=200 if ports else None,
                      oversubscription=ratio, storage_GBps_per_gpu=storage)
    design = FabricDesign(networks=(net, OOB))
    assert design_from_json(design_to_json(design)) == design


@pytest.mark.parametrize("networks, field", [
    ([{"role": "bogus"}], "networks[0].role"),
    ([{"role": "oob", "template": "leaf-pair-spine"}], "networks[0].template"),
    ([{"role": "converged", "oversubscription": -1}], "networks[0].oversubscription"),
    ([{"role": "converged", "evil": 1}], "networks[0].evil"),
    ([{"role": "converged"}, {"role": "converged"}], "networks[1].role"),
    ({"role": "converged"}, "networks"),
    ([{"role": "converged", "name": "x" * 1000}], "networks[0].name"),
])
def test_hostile_networks_are_refused_with_the_field_named(networks, field):
    doc = {"format": "fabric-designer", "format_version": 1, "design": {"networks": networks}}
    with pytest.raises(ProjectFileError) as err:
        design_from_json(json.dumps(doc), "p.json")
    assert field in str(err.value)


def test_networks_take_the_servers_ports_per_role_from_the_catalog():
    h100 = CAT.server("dgx-h100")
    assert (h100.ports_for("storage").count, h100.ports_for("inband").count, h100.ports_for("oob").count) == (2, 2, 1)
    assert all(p.source for p in h100.role_ports)
    roles = [n.role for n in ra_networks(h100)]
    assert roles == ["storage", "inband", "oob"]
    nvl72 = ra_networks(CAT.server("gb200-nvl72-tray"))
    assert [(n.role, n.template) for n in nvl72] == [("converged", "leaf-pair-spine"), ("inband", "segment"),
                                                     ("oob", "per-rack")]
    assert ra_networks(CAT.server("dgx-a100")) == ()


def test_dgx_h100_4_su_carries_compute_storage_inband_and_oob_networks():
    design = _h100(128)
    sizes = size_networks(design, CAT, compute_switches=48)
    by_role = {s.role: s for s in sizes}
    assert set(by_role) == {"storage", "inband", "oob"}
    assert not any(s.errors for s in sizes)
    storage = by_role["storage"]
    # 2 ports per server, one to each leaf of a pair; a QM9700 leaf at 1:1 has 32 down, so a
    # pair serves 32 servers (8 racks of 4): 4 pairs for 128 servers, no peer link on InfiniBand.
    assert {g.tier: g.count for g in storage.switches} == {"leaf": 8, "spine": 4}
    assert {g.kind: g.count for g in storage.links} == {"server-leaf": 256, "leaf-spine": 256}
    oob = by_role["oob"]
    racks = math.ceil(128 / 4)
    assert {g.kind: g.count for g in oob.links}["BMC"] == 128
    assert {g.tier: g.count for g in oob.switches}["management (server racks)"] == racks
    others = 48 + by_role["storage"].switch_count + by_role["inband"].switch_count
    assert {g.kind: g.count for g in oob.links}["switch management"] == others


def test_oob_follows_the_ra_switch_count_per_rack_when_the_server_entry_gives_it():
    # GB300 NVL72 racks have two SN2201 each (REFERENCE.md, NVIDIA NVL72 Enterprise RA); a
    # server entry states it as mgmt_switches_per_rack, and the sizing follows it.
    import dataclasses
    tray = dataclasses.replace(CAT.server("gb200-nvl72-tray"), id="gb300-like", mgmt_switches_per_rack=2)
    cat = dataclasses.replace(CAT, servers={**CAT.servers, tray.id: tray})
    design = FabricDesign(cluster=ClusterSpec(server=tray.id, servers=8 * 18), networks=ra_networks(tray))
    oob = size_network(design, OOB, cat)
    assert {g.tier: g.count for g in oob.switches}["management (server racks)"] == 2 * 8
    assert {g.kind: g.count for g in oob.links}["rack management ports"] == 8 * 9


def test_converged_storage_ports_and_checkpoint_time():
    net = NetworkSpec(role="converged", storage_GBps_per_gpu=1.0, storage_port_gbps=400)
    design = FabricDesign(cluster=ClusterSpec(server="gb200-nvl72-tray", servers=144), networks=(net,))
    size = size_network(design, net, CAT)
    assert size.storage_gbps == 576 * 8.0
    assert size.storage_ports == math.ceil(576 * 8 / 400)
    assert any(g.tier == "storage leaf" for g in size.switches)
    # 1 TB of model state over 4,608 Gb/s: 8e12 bits / 4.608e12 b/s
    assert checkpoint_seconds(1e12, size.storage_gbps) == pytest.approx(8e12 / 4.608e12)
    assert checkpoint_seconds(1e12, 0) is None


@settings(max_examples=examples(25), deadline=None)
@given(servers=st.integers(1, 600), ratio=st.sampled_from([1.0, 2.0, 3.0]))
def test_leaf_pairs_have_room_for_every_server_port_and_respect_the_ratio(servers, ratio):
    net = NetworkSpec(role="converged", oversubscription=ratio)
    design = FabricDesign(cluster=ClusterSpec(server="hgx-h100", servers=servers), networks=(net,))
    size = size_network(design, net, CAT)
    leaf = CAT.switch("sn5600")
    leaves = {g.tier: g.count for g in size.switches}["leaf"]
    links = {g.kind: g.count for g in size.links}
    assert leaves % 2 == 0
    assert links["server-leaf"] == 2 * servers
    assert leaves * (leaf.ports_at(200) - 2) >= links["server-leaf"]
    per_pair = int(size.extra["servers_per_pair"])
    assert math.ceil(servers / per_pair) * 2 == leaves
    assert per_pair <= leaf.ports_at(200) - 2            # one port of each server on each leaf of its pair
    if "leaf-spine" in links:
        up = links["leaf-spine"] // leaves               # uplinks of each leaf, at 800G
        assert per_pair * 200 <= ratio * up * 800 + 1e-6  # the fullest leaf keeps the asked ratio
        assert per_pair + 2 * up <= leaf.ports_at(200) - 2  # an 800G uplink takes two 200G ports


def test_network_bom_lists_switches_optics_and_cables_and_the_compute_bom_is_unchanged():
    compute_only = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=128))
    design = _h100(128)
    book = default_prices()
    before = build_bom(derive(compute_only, CAT), CAT, book)
    after = build_bom(derive(design, CAT), CAT, book)
    assert after.to_json() | {"name": ""} == before.to_json() | {"name": ""}
    sections = network_boms(design, CAT, book, compute_switch_count(after))
    for section in sections:
        cats = section.counts_by_category()
        assert cats["Switches"] == section.size.switch_count
        optical = sum(g.count for g in section.size.links if g.medium == "optic")
        assert cats["Transceivers"] == 2 * optical and cats["Fiber"] == optical
    rows = cluster_bom_rows(after, sections)
    assert rows[0][-1] == "Network"
    assert {r[-1] for r in rows[1:]} >= {"compute", "Storage", "In-band management", "Out-of-band management"}
    plan = network_cabling_rows(sections)
    assert plan[0][0] == "Network" and len(plan) == 1 + sum(len(s.size.links) for s in sections)


def test_arrangements_price_hybrid_ethernet_and_merged_with_capex_and_power():
    options = {a.key: a for a in arrangements(_h100(32), CAT, default_prices())}
    assert set(options) == {"design", "hybrid", "ethernet", "merged"}
    for a in options.values():
        assert a.available, a
        assert a.total_cost > 0 and a.total_power_w > 0
    # The hybrid keeps the design's compute fabric; merged has no separate converged switches.
    assert options["hybrid"].compute_cost == options["design"].compute_cost
    assert options["merged"].networks_cost < options["hybrid"].networks_cost


def test_cli_new_adds_the_ra_networks_and_compute_keeps_todays_design(tmp_path, capsys):
    ra, compute = tmp_path / "ra.json", tmp_path / "c.json"
    args = ["new", "--template", "rail-optimized", "--nodes", "128", "--server", "dgx-h100"]
    assert main(args + ["-o", str(ra)]) == 0
    assert main(args + ["--networks", "compute", "-o", str(compute)]) == 0
    assert [n.role for n in load_design(ra).networks] == ["storage", "inband", "oob"]
    assert load_design(compute).networks == ()
    capsys.readouterr()
    assert main(["bom", str(compute), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["bom", str(ra), "--json", "--arrangements"]) == 0
    full = json.loads(capsys.readouterr().out)
    for key, value in plain.items():  # every compute key and figure stays where it was
        if key != "name":
            assert full[key] == value, key
    assert [n["role"] for n in full["networks"]] == ["storage", "inband", "oob"]
    total = full["cluster_total"]
    assert total["total_cost"] == pytest.approx(plain["total_cost"] + sum(n["total_cost"] for n in full["networks"]))
    assert {a["key"] for a in full["arrangements"]} == {"design", "hybrid", "ethernet", "merged"}


def test_a_network_whose_server_states_no_ports_says_so():
    net = NetworkSpec(role="converged")
    design = FabricDesign(cluster=ClusterSpec(server="dgx-a100", servers=8), networks=(net,))
    size = size_network(design, net, CAT)
    assert size.errors and "states no ports" in size.errors[0]


def test_network_spec_ranges():
    with pytest.raises(DesignValidationError):
        NetworkSpec(role="oob", template="leaf-pair-spine")
    with pytest.raises(DesignValidationError):
        NetworkSpec(storage_GBps_per_gpu=-1)


def test_single_failures_and_expected_link_failures_per_network():
    from designer.model.decisions.interruptions import load_rates
    from designer.model.networks.resilience import network_resilience

    design = FabricDesign(cluster=ClusterSpec(server="gb200-nvl72-tray", servers=144),
                          networks=ra_networks(CAT.server("gb200-nvl72-tray")))
    sizes = size_networks(design, CAT, compute_switches=41)
    rates = load_rates()
    link_rate = next(r for r in rates if r.id == "link")
    for net in network_resilience(sizes, 144, rates):
        assert net.failures and not any(f.stops_jobs for f in net.failures)  # pairs and OOB stop nothing
        if net.size.template == "segment":    # in-band: its links are the converged network's
            assert net.expected == ()
            continue
        links = next(e for e in net.expected if e.rate.id == "link")
        assert links.units == net.size.link_count
        assert links.per_day == pytest.approx(net.size.link_count * link_rate.per_unit_day)
    converged = next(n for n in network_resilience(sizes, 144, rates) if n.size.role == "converged")
    leaf = next(f for f in converged.failures if f.component == "leaf")
    assert "up to 54 servers" in leaf.effect      # a pair serves 3 racks of 18 trays
    one_port = NetworkSpec(role="customer", ports_per_server=1, port_gbps=400)
    size = size_network(dataclasses.replace(design, networks=(one_port,)), one_port, CAT)
    from designer.model.networks.resilience import single_failures
    assert any(f.stops_jobs for f in single_failures(size, 144))


def test_whatif_interruptions_json_adds_the_networks_beside_the_compute_keys(tmp_path, capsys):
    path = tmp_path / "ra.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100", "-o", str(path)]) == 0
    plain = tmp_path / "c.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100",
                 "--networks", "compute", "-o", str(plain)]) == 0
    capsys.readouterr()
    assert main(["whatif", str(plain), "--interruptions", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["whatif", str(path), "--interruptions", "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in after.items() if k != "networks"} == before
    assert [n["role"] for n in after["networks"]] == ["storage", "inband", "oob"]


def test_compare_prices_each_designs_network_arrangements_as_a_new_key(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100", "-o", str(a)]) == 0
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100",
                 "--networks", "compute", "-o", str(b)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["compare", str(a), str(b), "--json", "--arrangements"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in full.items() if k != "arrangements"} == plain
    first = {o["key"]: o for o in full["arrangements"][0]["options"]}
    assert set(first) == {"design", "hybrid", "ethernet", "merged"}
    assert all(o["total_cost"] > 0 and o["total_power_w"] > 0 for o in first.values())


def test_an_nvl72_8_rack_design_prices_every_network_by_network(tmp_path, capsys):
    import csv

    path, sheet, plan = tmp_path / "nvl72.json", tmp_path / "bom.csv", tmp_path / "plan.csv"
    assert main(["new", "--template", "rail-optimized", "--nodes", str(8 * 18), "--server", "gb200-nvl72-tray",
                 "--nodes-per-su", "144", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["bom", str(path), "--json", "-o", str(sheet), "--cabling", str(plan)]) == 0
    doc = json.loads(capsys.readouterr().out)
    sections = {n["role"]: n for n in doc["networks"]}
    assert set(sections) == {"converged", "inband", "oob"}
    inband = sections.pop("inband")   # in-band rides on the converged network: a segment, no parts
    assert (inband["template"], inband["carried_by"], inband["items"]) == ("segment", "converged", [])
    assert inband["shared_ports"] == 8 * 18 * 2 and inband["shared_gbps"] == 400
    for role, section in sections.items():
        cats = section["counts_by_category"]
        assert cats["Switches"] > 0 and cats["Transceivers"] > 0, role
        assert cats["Copper cables"] + cats["Fiber"] > 0, role
    oob = sections["oob"]
    racks = {g["tier"]: g["count"] for g in oob["switches"]}
    assert racks["management (server racks)"] >= 8
    total = doc["cluster_total"]["counts_by_category"]
    for cat, n in doc["counts_by_category"].items():
        assert total[cat] == n + sum(s["counts_by_category"][cat] for s in sections.values())
    with open(sheet, encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][-1] == "Network"
    assert {r[-1] for r in rows[1:]} >= {"compute", "Converged / storage (north-south)", "In-band management",
                                         "Out-of-band management"}
    note = next(r for r in rows if r[-1] == "In-band management" and r[0] == "Note")
    assert "carried by the converged network" in note[2] and "288 server ports at 400G" in note[2]
    with open(tmp_path / "plan-networks.csv", encoding="utf-8-sig") as fh:
        kinds = {(r["Role"], r["Link"]) for r in csv.DictReader(fh)}
    assert ("converged", "server-leaf") in kinds and ("oob", "BMC") in kinds


def test_a_network_that_cannot_be_sized_writes_no_bom_and_stops_the_exports(tmp_path, capsys):
    path = tmp_path / "bad.json"
    design = dataclasses.replace(_h100(32), networks=(NetworkSpec(role="storage", switch="nope-9000"),
                                                      NetworkSpec(role="inband", technology="evil"), OOB))
    path.write_text(design_to_json(design))
    out = tmp_path / "bom.csv"
    assert main(["bom", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Storage: unknown switch 'nope-9000'" in err and "unknown technology 'evil'" in err
    assert err.count("nope-9000") == 1 and not out.exists()
    for fmt in ("netbox", "graphml", "drawio"):   # (clab takes Ethernet designs only)
        assert main(["export", str(path), "-f", fmt, "-o", str(tmp_path / f"x.{fmt}")]) != 0
        assert "cannot be sized" in capsys.readouterr().err
        assert not (tmp_path / f"x.{fmt}").exists()


@pytest.mark.parametrize("choice, technology, template", [
    ("hybrid", "ib-ndr", "leaf-pair-spine"),
    ("merged", "roce-400g", "merged"),
])
def test_cli_new_makes_the_hybrid_and_merged_arrangements(tmp_path, choice, technology, template):
    path = tmp_path / f"{choice}.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100",
                 "--technology", technology, "--networks", choice, "-o", str(path)]) == 0
    design = load_design(path)
    # In-band (its own SN4600C network in the DGX H100 RA) folds into the converged network here.
    assert [n.role for n in design.networks] == ["converged", "inband", "oob"]
    assert design.network("converged").template == template
    assert design.network("inband").template == "segment" and design.network("inband").carrier == "converged"
    assert design.fabric.technology == technology        # the compute fabric is as asked


def test_merged_needs_an_ethernet_compute_fabric(tmp_path, capsys):
    path = tmp_path / "merged.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100",
                 "--networks", "merged", "-o", str(path)]) != 0
    assert "needs an Ethernet compute fabric" in capsys.readouterr().err
    assert not path.exists()


def test_cli_new_refuses_an_arrangement_the_server_cannot_make(tmp_path, capsys):
    path = tmp_path / "a100.json"
    assert main(["new", "--template", "leaf-spine", "--nodes", "8", "--server", "dgx-a100",
                 "--networks", "hybrid", "-o", str(path)]) != 0
    assert "states no converged or storage ports" in capsys.readouterr().err
    assert not path.exists()


def test_whatif_fail_names_switches_of_the_other_networks(tmp_path, capsys):
    path = tmp_path / "ra.json"
    assert main(["new", "--template", "rail-optimized", "--nodes", "128", "--server", "dgx-h100", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["whatif", str(path), "--fail", "stor-leaf-01a", "stor-leaf-02a", "stor-leaf-02b",
                 "inb-spine-0[12]", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by = {f["network"]: f for f in doc["networks"]}
    assert by["storage"]["servers_degraded"] == 32 and by["storage"]["servers_cut"] == 32
    assert by["inband"]["failed"] == ["inb-spine-01", "inb-spine-02"]
    # compute and network switches together: the compute keys as before, the networks beside them
    assert main(["whatif", str(path), "--fail", "spine-1", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["whatif", str(path), "--fail", "spine-1", "oob-r001-1", "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in both.items() if k != "networks"} == plain
    assert "unreachable" in both["networks"][0]["effects"][0]
    assert main(["whatif", str(path), "--fail", "nope-1"]) != 0     # an unknown name is still refused


def test_bom_text_says_not_published_where_a_part_has_no_power_figure(tmp_path, capsys):
    # SN2201 and the generic 100G optic have no published power in the catalog: a 0 in the power
    # column would read as a measured zero, so the text says so and names what the totals leave out.
    path = tmp_path / "h100.json"
    assert main(["new", "--nodes", "32", "--server", "dgx-h100", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["bom", str(path)]) == 0
    text = capsys.readouterr().out
    oob = text.split("Network: Out-of-band management")[1].split("Network:")[0]
    switch_row = next(line for line in oob.splitlines() if "SN2201" in line and "Switches" in line)
    assert switch_row.rstrip().endswith("not published")
    assert "power totals leave out" in oob and "Spectrum SN2201" in oob.split("power totals leave out")[1]
    storage = text.split("Network: Storage")[1].split("Network:")[0]
    assert "not published" not in storage.split("note:")[0]


@settings(max_examples=examples(40), deadline=None)
@given(servers=st.integers(1, 700), server=st.sampled_from(["dgx-h100", "gb300-nvl72-tray", "hgx-h100"]))
def test_every_rack_s_links_add_up_to_the_network_s_and_the_diagram_labels_them(servers, server):
    from designer.model.networks.diagram import network_diagram

    design = FabricDesign(cluster=ClusterSpec(server=server, servers=servers),
                          networks=ra_networks(CAT.server(server)))
    for size in size_networks(design, CAT, 0):
        if size.errors or not size.racks:
            continue
        links = {g.kind: g.count for g in size.links}
        assert len(size.rack_links) == size.racks, size.role
        in_racks = {"per-rack": sum(links.get(k, 0) for k in ("BMC", "rack management ports", "PDU")),
                    "segment": size.shared_ports}.get(size.template, links.get("server-leaf", 0))
        assert sum(size.rack_links) == in_racks, size.role
        # Only the last rack may be partly filled.
        assert all(n == size.rack_links[0] for n in size.rack_links[:-1]) and size.rack_links[-1] <= size.rack_links[0]
        _, bundles = network_diagram(size, servers)
        assert all(b.text for b in bundles), size.role        # every bundle has its count and speed
        per_rack = [b for b in bundles if b.per_rack]
        assert per_rack, size.role
        for b in per_rack:
            assert b.racks_summary().endswith(f"x {b.gbps}G per rack")
            assert [b.rack_label(k) for k in range(len(b.per_rack))] == [
                f"{n:,} x {b.gbps}G" for n in size.rack_links]


@settings(max_examples=examples(40), deadline=None)
@given(servers=st.integers(1, 700),
       server=st.sampled_from(["dgx-h100", "gb300-nvl72-tray", "hgx-h100", "gb200-nvl72-tray"]),
       storage=st.sampled_from([None, 0.0, 25.0]))
def test_the_switches_failures_name_are_the_expanded_networks_switches(servers, server, storage):
    from designer.model.networks.devices import expand, switch_devices
    from designer.model.networks.sizing import servers_per_rack

    networks = ra_networks(CAT.server(server))
    if storage is not None:   # a storage network of its own, with storage leaves when it has appliances
        networks = (*(n for n in networks if n.role != "storage"),
                    NetworkSpec(role="storage", storage_GBps_per_gpu=storage))
    design = FabricDesign(cluster=ClusterSpec(server=server, servers=servers), networks=networks)
    rack = servers_per_rack(design, CAT.server(server))
    for size in size_networks(design, CAT, 0):
        devices, _ = expand(size, servers, rack, lambda i: f"server-{i + 1}")
        assert switch_devices(size) == [d for d in devices if d.switch], size.role


@settings(max_examples=examples(15), deadline=None)
@given(servers=st.integers(2, 160), server=st.sampled_from(["dgx-h100", "dgx-b300-eth", "gb200-nvl72-tray"]),
       converged=st.booleans())
def test_an_arrangement_priced_on_the_fabric_already_derived_equals_its_own(servers, server, converged):
    """The report prices the hybrid and all-Ethernet arrangements on the compute fabric derived
    before (only the other networks differ): the same figures as deriving each arrangement anew."""
    from designer.model.networks.arrangements import price_arrangement
    from designer.model.networks.defaults import converged_networks

    base = FabricDesign(cluster=ClusterSpec(server=server, servers=servers), networks=ra_networks(CAT.server(server)))
    networks = converged_networks(CAT.server(server)) if converged else ()
    variant = dataclasses.replace(base, networks=networks)
    book = default_prices()
    shared = price_arrangement("hybrid", "hybrid", variant, CAT, book, ("a note",), fabric_of=base)
    assert shared == price_arrangement("hybrid", "hybrid", variant, CAT, book, ("a note",))
