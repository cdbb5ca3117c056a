"""NetBox CSVs (headers, slugs, racks, cables), the containerlab topology (loads, endpoints exist, no
interface twice) and the UFM NDT file (header, ports, cabling columns)."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from designer.catalog import default_catalog
from designer.io.containerlab import containerlab_yaml
from designer.io.export_source import ExportError, ExportOptions, ExportSource
from designer.io.exporters import FORMATS, check_exportable
from designer.io.ndt import ndt_csv
from designer.io.netbox_csv import FILES, netbox_files
from designer.io.project import load_design
from designer.model.intent.design import Meta

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# NetBox InterfaceTypeChoices and CableTypeChoices that this exporter may use (netbox dcim/choices.py).
NETBOX_INTERFACE_TYPES = {"infiniband-hdr", "infiniband-ndr", "infiniband-xdr", "infiniband-ndr-4x",
                          "infiniband-xdr-4x", "infiniband-ndr-2x", "100gbase-x-qsfp28",
                          "200gbase-x-qsfp56", "200gbase-x-qsfpdd", "400gbase-x-osfp", "400gbase-x-qsfp112",
                          "400gbase-x-qsfpdd", "800gbase-x-osfp", "800gbase-x-qsfpdd"}
NETBOX_CABLE_TYPES = {"dac-passive", "dac-active", "aoc", "mmf", "mmf-om3", "mmf-om4", "mmf-om5", "smf",
                      "smf-os1", "smf-os2"}


def _source(name: str, design=None, **options) -> ExportSource:
    return ExportSource(design or load_design(EXAMPLES / f"{name}.json"), default_catalog(), ExportOptions(**options))


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("name, slug", [("dgx-h100-superpod-1su", "infiniband-ndr"),
                                        ("b300-xdr-4su-rail", "infiniband-xdr"),
                                        ("roce-512-leaf-spine-sn5600", "400gbase-x-osfp")])
def test_netbox_files_import_in_order_with_netbox_fields_and_slugs(name, slug):
    src = _source(name)
    files = netbox_files(src)
    assert list(files)[:8] == list(FILES)
    first_lines = {f: text.splitlines()[0] for f, text in files.items() if f.endswith(".csv")}
    assert first_lines["06-devices.csv"] == "name,role,manufacturer,device_type,site,rack,position,face,status"
    assert first_lines["08-cables.csv"] == ("side_a_site,side_a_device,side_a_type,side_a_name,side_b_site,"
                                            "side_b_device,side_b_type,side_b_name,type,status,label,length,"
                                            "length_unit")
    assert first_lines["07-optics.csv"] == ("device,name,status,manufacturer,part_id,description,component_type,"
                                            "component_name")
    devices = _rows(files["06-devices.csv"])
    cables = _rows(files["08-cables.csv"])
    racks = {r["name"]: int(r["u_height"]) for r in _rows(files["05-racks.csv"])}
    device_types = list(yaml.safe_load_all(files["04-device-types.yaml"]))
    types = {(t["manufacturer"], t["model"]): int(t["u_height"]) for t in device_types}
    roles = {r["name"] for r in _rows(files["03-device-roles.csv"])}
    m = src.derived.metrics
    assert len(devices) == m.servers + m.switches_total
    assert len(cables) == m.links_total
    # Every port of every device is an interface template of its type, spare ones included.
    templates = {(t["manufacturer"], t["model"]): t["interfaces"] for t in device_types}
    assert all(len({i["name"] for i in ports}) == len(ports) for ports in templates.values())
    assert {i["type"] for ports in templates.values() for i in ports} == {slug} and slug in NETBOX_INTERFACE_TYPES
    interfaces = Counter((d["name"], i["name"]) for d in devices
                         for i in templates[(d["manufacturer"], d["device_type"])])
    switch = next(t for t in device_types if t["model"] != src.server_model.name)
    model = src.catalog.switch(next(d["model"] for _, d in src.switches))
    assert len(switch["interfaces"]) >= model.ports_at(src.resolved.uplink_gbps)
    assert {c["type"] for c in cables} <= NETBOX_CABLE_TYPES
    assert {c["side_a_type"] for c in cables} == {c["side_b_type"] for c in cables} == {"dcim.interface"}
    site = _rows(files["01-sites.csv"])[0]["name"]
    assert {c["side_a_site"] for c in cables} == {c["side_b_site"] for c in cables} == {site}
    # every cable end is an interface its device type creates, and no interface carries two cables
    ends = Counter((c[f"side_{s}_device"], c[f"side_{s}_name"]) for c in cables for s in "ab")
    assert max(ends.values()) == 1 and set(ends) <= set(interfaces)
    # optics: one module per cage, on an interface of its device, counted as the BOM counts modules
    optics = _rows(files["07-optics.csv"])
    assert all((o["device"], o["component_name"]) in interfaces and o["component_type"] == "dcim.interface"
               for o in optics)
    assert len(optics) == sum(src.physical.transceivers.values())
    makers = {r["name"] for r in _rows(files["02-manufacturers.csv"])}
    assert {o["manufacturer"] for o in optics} <= makers and {t["manufacturer"] for t in device_types} <= makers
    # every device stands in a listed rack, inside it, and no two share a rack unit
    occupied = defaultdict(set)
    for d in devices:
        assert d["role"] in roles and d["status"] == "planned" and d["face"] == "front"
        height = types[(d["manufacturer"], d["device_type"])]
        units = set(range(int(d["position"]), int(d["position"]) + height))
        assert max(units) <= racks[d["rack"]]
        assert not occupied[d["rack"]] & units
        occupied[d["rack"]] |= units
    # lengths are the cabling plan's stock lengths
    plan = {f"L{link.index + 1}": link.cable_length_m or link.length_m for link in src.physical.links}
    assert all(float(c["length"]) == plan[c["label"]] and c["length_unit"] == "m" for c in cables)


def test_netbox_cells_a_user_controls_are_formula_safe():
    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    src = _source("", dataclasses.replace(design, meta=Meta(name="=HYPERLINK(\"http://x\")")), site="")
    files = netbox_files(src)
    site = _rows(files["01-sites.csv"])[0]
    assert site["name"].startswith("'=") and re.fullmatch(r"[a-z0-9_-]+", site["slug"])
    assert all(d["site"].startswith("'=") for d in _rows(files["06-devices.csv"]))
    src = _source("dgx-h100-superpod-1su", site="@SUM(1)")
    assert _rows(netbox_files(src)["05-racks.csv"])[0]["site"] == "'@SUM(1)"


def _clab(name: str, **options) -> tuple[dict, ExportSource]:
    src = _source(name, **options)
    return yaml.safe_load(containerlab_yaml(src)), src


def _check_links(doc: dict) -> list[tuple[str, str]]:
    nodes = doc["topology"]["nodes"]
    used = []
    for link in doc["topology"]["links"]:
        assert len(link["endpoints"]) == 2
        for endpoint in link["endpoints"]:
            node, _, iface = endpoint.partition(":")
            assert node in nodes, endpoint
            assert re.fullmatch(r"(eth|swp)\d+", iface), endpoint
            used.append((node, iface))
    assert len(used) == len(set(used)), "an interface is used twice"
    return used


def test_containerlab_lab_loads_and_is_wired_like_the_fabric():
    doc, src = _clab("roce-512-leaf-spine-sn5600")
    m = src.derived.metrics
    nodes = doc["topology"]["nodes"]
    assert len(nodes) == m.switches_total
    assert {n["kind"] for n in nodes.values()} == {"sonic-vs"} and all(n["image"] for n in nodes.values())
    _check_links(doc)
    # The stock docker-sonic-vs holds 32 ports: one lab link per leaf-spine pair.
    assert len(doc["topology"]["links"]) == m.switches_by_tier["leaf"] * m.switches_by_tier["spine"]
    full, _ = _clab("roce-512-leaf-spine-sn5600", clab_profile="cumulus")
    assert len(full["topology"]["links"]) == m.links_total - m.links_by_tier["node-leaf"]
    assert re.fullmatch(r"[a-z0-9_-]+", doc["name"])


def test_containerlab_with_servers_and_one_su_of_a_two_plane_fabric():
    doc, src = _clab("b300-roce-two-plane", view="su:1", clab_servers=True, clab_profile="cumulus")
    nodes = doc["topology"]["nodes"]
    servers = [n for n, v in nodes.items() if v["kind"] == "linux"]
    assert len(servers) == src.plan.rail_su_size
    assert all(v["kind"] == "nvidia_cumulusvx" for n, v in nodes.items() if n not in servers)
    used = _check_links(doc)
    assert all(i.startswith("swp") for n, i in used if n not in servers)
    full, _ = _clab("b300-roce-two-plane", clab_servers=True, clab_profile="cumulus")
    assert len(doc["topology"]["links"]) < len(full["topology"]["links"])
    assert all("." not in n for n in nodes)  # plane prefixes become p1-leaf-1


def test_containerlab_needs_an_ethernet_design():
    src = _source("dgx-h100-superpod-1su")
    with pytest.raises(ExportError, match="Ethernet"):
        check_exportable(FORMATS["clab"], src)
    with pytest.raises(ExportError, match="InfiniBand"):
        check_exportable(FORMATS["ndt"], _source("roce-512-leaf-spine-sn5600"))


def test_ndt_has_the_ufm_header_one_row_per_link_and_the_cabling_columns():
    src = _source("dgx-h100-superpod-1su")
    text = ndt_csv(src)
    assert text.startswith("#StartDevice,StartPort,EndDevice,EndPort,LinkType,")
    assert "\r" not in text and not text.startswith("\ufeff")
    rows = _rows(text)
    m = src.derived.metrics
    assert len(rows) == m.links_total
    assert {r["LinkType"] for r in rows} == {"Data"}
    for r in rows:
        assert re.fullmatch(r"Port \d+", r["EndPort"])
        if r["#StartDevice"].startswith("gpu-node-"):
            # the HCA's node description as UFM sees it (a `nic-K` port can never match UFM's)
            assert re.fullmatch(r"gpu-node-\d{4} mlx5_\d",
                                r["StartPort"]) and r["StartPort"].startswith(r["#StartDevice"])
        else:
            assert re.fullmatch(r"Port \d+", r["StartPort"])
        assert re.fullmatch(r"R\d+\.\d{2}", r["StartRack"]) and int(r["StartU"]) >= 1
        assert float(r["CableLength(m)"]) >= float(r["EstimatedLength(m)"])
    ports = Counter((r["#StartDevice"], r["StartPort"]) for r in rows) + Counter((r["EndDevice"],
                                                                                  r["EndPort"]) for r in rows)
    assert max(ports.values()) == 1


def test_netbox_device_types_carry_every_port_so_spare_ports_can_be_planned():
    """A QM9700 leaf with 4 servers cabled shows all 64 of its ports; the cabled ones keep the
    cabling plan's names and cage labels."""
    from designer.model.topology.presets import new_design

    design = new_design(default_catalog(), "leaf-spine", nodes=4, server="dgx-h100", switch="qm9700")
    src = ExportSource(design, default_catalog())
    files = netbox_files(src)
    qm9700 = next(t for t in yaml.safe_load_all(files["04-device-types.yaml"]) if "QM9700" in t["model"])
    names = [i["name"] for i in qm9700["interfaces"]]
    assert names == [f"Port {n}" for n in range(1, 65)]
    assert {i["label"] for i in qm9700["interfaces"]} == {f"{c}/{p}" for c in range(1, 33) for p in (1, 2)}
    cabled = {(c["side_b_device"], c["side_b_name"]) for c in _rows(files["08-cables.csv"])}
    assert len({n for d, n in cabled if d == "leaf-1"}) < len(names)
    labels = {i["name"]: i["label"] for i in qm9700["interfaces"]}
    plan = {(link.b.device, f"Port {link.b.port}"): link.b.cage_label for link in src.physical.links}
    assert all(labels[port] == label for (device, port), label in plan.items() if device == "leaf-1")


def test_netbox_infiniband_lane_types_on_request():
    def types(name):
        files = netbox_files(_source(name, netbox_ib_lanes=True))
        return {i["type"] for t in yaml.safe_load_all(files["04-device-types.yaml"]) for i in t["interfaces"]}

    # The 4X types came with NetBox v4.6.9 (netbox #21387); a 2-lane port keeps the plain type.
    assert types("dgx-h100-superpod-1su") == {"infiniband-ndr-4x"}
    assert types("b300-xdr-4su-rail") == {"infiniband-xdr-4x"}
    assert types("roce-512-leaf-spine-sn5600") == {"400gbase-x-osfp"}
    assert types("dgx-h100-superpod-1su") <= NETBOX_INTERFACE_TYPES
