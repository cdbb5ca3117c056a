"""The other networks device by device: expansion and the NetBox files beside the compute fabric's."""

from __future__ import annotations

import csv
import io
from collections import Counter

from designer.catalog import default_catalog
from designer.io.export_source import ExportSource
from designer.io.netbox_csv import netbox_files
from designer.io.network_netbox import FILES, network_inventory
from designer.model.intent.design import ClusterSpec, FabricDesign
from designer.model.networks.defaults import ra_networks
from designer.model.networks.sizing import size_networks, template_switch_count

CAT = default_catalog()


def _design(server: str = "dgx-h100", servers: int = 128) -> FabricDesign:
    return FabricDesign(cluster=ClusterSpec(server=server, servers=servers),
                        networks=ra_networks(CAT.server(server)))


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))


def test_every_counted_switch_and_link_is_expanded_and_no_port_is_used_twice():
    design = _design()
    src = ExportSource(design, CAT)
    devices, links = network_inventory(src)
    sizes = size_networks(design, CAT, template_switch_count(design, CAT))
    for size in sizes:
        switches = [d for d in devices if d.network == size.role and d.switch]
        assert len(switches) == size.switch_count, size.role
        expected = sum(g.count for g in size.links if g.kind != "management uplink")
        assert len([x for x in links if x.network == size.role]) == expected, size.role
    ends = Counter((x.a, x.a_port) for x in links) + Counter((x.b, x.b_port) for x in links)
    assert max(ends.values()) == 1
    # no switch has more data ports in use than it has at that speed (its management port is apart)
    data = [x for x in links if x.kind != "switch management"]
    used = Counter(x.b for x in data) + Counter(x.a for x in data)
    for d in devices:
        if d.switch and d.switch != "sn2201":
            sw = CAT.switch(d.switch)
            speed = next(x.gbps for x in links if d.name in (x.a, x.b))
            assert used[d.name] <= sw.ports_at(speed), d.name
    # servers are cabled once per role: each server has its storage and in-band ports and a BMC
    server = src.host(0)
    kinds = Counter(x.network for x in links if x.a == server)
    assert kinds == {"storage": 2, "inband": 2, "oob": 1}


def test_netbox_export_adds_the_networks_in_files_after_the_compute_fabrics():
    compute_only = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=128))
    plain = netbox_files(ExportSource(compute_only, CAT))
    full = netbox_files(ExportSource(_design(), CAT))
    for name, text in plain.items():   # the compute fabric's files are as they were
        if name != "README.txt":
            assert full[name].replace(_design().meta.name, "") == text.replace(compute_only.meta.name, ""), name
    assert set(full) - set(plain) == set(FILES)
    devices = _rows(full["12-network-devices.csv"])
    cables = _rows(full["14-network-cables.csv"])
    names = {d["name"] for d in devices} | {r["name"] for r in _rows(full["06-devices.csv"])}
    for cable in cables:    # every cable end is a device NetBox has by then
        assert cable["side_a_device"] in names and cable["side_b_device"] in names
    assert any(c["type"] == "cat6" for c in cables)


def test_a_compute_only_design_exports_no_network_files():
    files = netbox_files(ExportSource(FabricDesign(), CAT))
    assert not set(files) & set(FILES)


def test_an_nvl72_rack_group_cables_its_switch_trays_and_pdus_to_oob():
    design = _design("gb200-nvl72-tray", 144)
    devices, links = network_inventory(ExportSource(design, CAT))
    oob = [x for x in links if x.network == "oob"]
    assert Counter(x.kind for x in oob)["rack management ports"] == 8 * 9
    assert Counter(x.kind for x in oob)["BMC"] == 144
    assert sum(1 for d in devices if d.tier == "PDU") == 8 * 2


def test_graphml_adds_the_networks_with_a_network_attribute_and_leaves_compute_as_it_was():
    import networkx as nx

    from designer.io.export_source import ExportOptions
    from designer.io.graphml import graphml

    compute_only = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=32))
    design = _design(servers=32)
    plain = graphml(ExportSource(compute_only, CAT))
    assert "network" not in plain
    g = nx.read_graphml(io.StringIO(graphml(ExportSource(design, CAT))), force_multigraph=True)
    by_network = Counter(d.get("network", "compute") for _, _, d in g.edges(data=True))
    _, links = network_inventory(ExportSource(design, CAT))
    compute_edges = nx.read_graphml(io.StringIO(plain), force_multigraph=True).number_of_edges()
    assert by_network == Counter({"compute": compute_edges, **Counter(x.network for x in links)})
    assert g.nodes["gpu-node-0001/storage1"]["network"] == "storage"
    # a view of one SU stays the compute fabric's
    from designer.model.intent.design import FabricSpec

    rail = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=64),
                        fabric=FabricSpec(template="rail-optimized"), networks=design.networks)
    su = graphml(ExportSource(rail, CAT, ExportOptions(view="su:1")))
    assert 'key="e_network"' not in su


def test_drawio_adds_a_page_per_network_and_leaves_a_compute_only_file_as_it_was():
    import xml.etree.ElementTree as ET

    from designer.io.drawio import drawio

    compute_only = FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=32))
    plain = ET.fromstring(drawio(ExportSource(compute_only, CAT)))
    assert len(plain.findall("diagram")) == 1
    root = ET.fromstring(drawio(ExportSource(_design(servers=32), CAT)))
    pages = root.findall("diagram")
    assert [p.get("name") for p in pages[1:]] == ["Storage", "In-band management", "Out-of-band management"]
    storage = pages[1]
    counts = {o.get("label").split(":")[0]: int(o.get("count")) for o in storage.iter("object") if o.get("count")}
    assert counts == {"leaf pairs": 2, "servers": 32}     # 32 servers: one pair, no spine


def test_containerlab_adds_the_ethernet_networks_and_says_what_it_leaves_out():
    import yaml

    from designer.io.containerlab import containerlab_yaml
    from designer.io.export_source import ExportOptions
    from designer.model.intent.design import FabricSpec

    fabric = FabricSpec(template="leaf-spine", technology="roce-400g", switch="sn5600")
    compute_only = FabricDesign(cluster=ClusterSpec(server="hgx-h100", servers=16), fabric=fabric)
    design = FabricDesign(cluster=ClusterSpec(server="hgx-h100", servers=16), fabric=fabric,
                          networks=ra_networks(CAT.server("hgx-h100")))
    options = ExportOptions(clab_servers=True)
    plain = yaml.safe_load(containerlab_yaml(ExportSource(compute_only, CAT, options)))
    text = containerlab_yaml(ExportSource(design, CAT, options))
    lab = yaml.safe_load(text)
    assert "left out of the lab" in text and "oob" in text
    added = set(lab["topology"]["nodes"]) - set(plain["topology"]["nodes"])
    assert added and all(name.startswith("conv-") for name in added)
    ends = Counter(e for link in lab["topology"]["links"] for e in link["endpoints"])
    assert max(ends.values()) == 1               # no interface is wired twice
    compute_ports = CAT.server("hgx-h100").compute_ports
    assert ends[f"gpu-node-0001:eth{compute_ports + 1}"] == 1   # role ports after the compute NICs
