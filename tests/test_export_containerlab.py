"""containerlab labs that come up: they validate against the topology schema, use the image's port
names, and carry a management network and a routed startup configuration.

The schema below is a hand-written subset of containerlab's schemas/clab.schema.json (the parts
the export writes, with its patterns and types, and no other keys allowed); the export was also
checked against the whole schema of containerlab's main branch of August 2026.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import yaml

from designer.catalog import default_catalog
from designer.io.containerlab import SONIC_VS_PORTS, containerlab_yaml, sonic_port
from designer.io.export_source import ExportError, ExportOptions, ExportSource
from designer.io.project import load_design
from designer.model.topology.presets import new_design

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CAT = default_catalog()

CLAB_SUBSET = {
    "type": "object",
    "required": ["name", "topology"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[a-zA-Z0-9][a-zA-Z0-9-._]*$"},
        "mgmt": {"type": "object", "additionalProperties": False,
                 "properties": {"network": {"type": "string"},
                                "ipv4-subnet": {"type": "string", "pattern": r"(^.+/[0-9]{1,2}$)|(auto)"}}},
        "topology": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "nodes": {"type": "object", "additionalProperties": {
                    "type": "object", "additionalProperties": False, "required": ["kind"],
                    "properties": {
                        "kind": {"enum": ["sonic-vs", "nvidia_cumulusvx", "linux"]},
                        "image": {"type": "string"},
                        "labels": {"type": "object", "patternProperties": {".+": {"type": "string", "minLength": 1}}},
                        "exec": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                        "startup-config": {"type": "string"},
                    }}},
                "links": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["endpoints"],
                    "properties": {"endpoints": {"type": "array", "minItems": 2, "maxItems": 2,
                                                 "items": {"type": "string", "pattern": r"^[^:]+:[^:]+$"}}}}},
            }},
    },
}


def _lab(design, **options) -> tuple[dict, str, ExportSource]:
    src = ExportSource(design, CAT, ExportOptions(**options))
    text = containerlab_yaml(src)
    doc = yaml.safe_load(text)
    jsonschema.validate(doc, CLAB_SUBSET)
    return doc, text, src


def _example(name: str):
    return load_design(EXAMPLES / f"{name}.json")


def _small():
    return new_design(CAT, "leaf-spine", nodes=8, server="dgx-h100", technology="roce-400g", switch="sn5600")


LABS = [("roce-512-leaf-spine-sn5600", {}), ("roce-512-leaf-spine-sn5600", {"clab_profile": "cumulus"}),
        ("roce-512-leaf-spine-sn5600", {"clab_servers": True}),
        ("b300-roce-two-plane", {"view": "su:1"}), ("b300-roce-two-plane", {"view": "plane:2"}),
        ("b300-roce-two-plane", {"clab_profile": "cumulus", "clab_servers": True, "view": "su:1"})]


@pytest.mark.parametrize(("name", "options"), LABS)
def test_every_lab_validates_and_each_interface_is_used_once(name, options):
    doc, _, src = _lab(_example(name), **options)
    nodes = doc["topology"]["nodes"]
    ends = [e for link in doc["topology"]["links"] for e in link["endpoints"]]
    assert len(ends) == len(set(ends))
    assert {e.split(":")[0] for e in ends} <= set(nodes)
    assert doc["mgmt"]["network"].endswith("-mgmt")
    subnet = ipaddress.ip_network(doc["mgmt"]["ipv4-subnet"])
    assert subnet.num_addresses - 2 > len(nodes)


def _sonic_config(node: dict) -> str:
    (script,) = node["exec"]
    return script


def test_sonic_uses_the_images_port_map_and_comes_up_routed():
    """Every sonic-vs interface is one of the stock image's 32; the SONiC port configured behind
    ethK is Ethernet{4(K-1)}; the two ends of a link share a /31, and BGP unnumbered runs on it."""
    doc, text, src = _lab(_example("b300-roce-two-plane"), view="su:1")
    nodes = doc["topology"]["nodes"]
    assert "HwSKU Force10-S6000" in text and "parallel links are left out" in text
    addresses: dict[str, str] = {}
    for link in doc["topology"]["links"]:
        pair = []
        for end in link["endpoints"]:
            node, iface = end.split(":")
            k = int(re.fullmatch(r"eth(\d+)", iface).group(1))
            assert 1 <= k <= SONIC_VS_PORTS
            script = _sonic_config(nodes[node])
            port = sonic_port(k)
            found = re.search(rf"config interface ip add {port} (\S+);", script)
            assert found, (node, port)
            assert f"neighbor {port} interface peer-group fabric" in script
            assert f"config interface ipv6 enable use-link-local-only {port}" in script
            pair.append(ipaddress.ip_interface(found.group(1)))
            addresses[end] = found.group(1)
        assert pair[0].network == pair[1].network and pair[0].network.prefixlen == 31 and pair[0] != pair[1]
    assert len(set(addresses.values())) == len(addresses)
    # Every switch has its own loopback and ASN.
    asns = Counter(re.search(r"router bgp (\d+)", _sonic_config(n)).group(1) for n in nodes.values())
    assert len(asns) == len(nodes) and all(4_200_000_000 < int(a) < 4_294_967_295 for a in asns)


def test_sonic_bundles_parallel_links_onto_the_stock_image_and_keeps_them_with_another_image():
    # Two tiers asked for (two servers alone fit one switch): a leaf with parallel links to its spine.
    design = new_design(CAT, "leaf-spine", nodes=2, server="dgx-h100", technology="roce-400g", switch="sn5600",
                        tiers=2)
    doc, text, src = _lab(design, clab_servers=True)
    pairs = {frozenset(e.split(":")[0] for e in link["endpoints"]) for link in doc["topology"]["links"]}
    assert len(pairs) == len(doc["topology"]["links"]) == 3     # two servers and the spine, once each
    left_out = src.derived.metrics.links_total - 3
    assert f"# Bundles: {left_out:,} parallel links are left out" in text
    custom, text, _ = _lab(_example("roce-512-leaf-spine-sn5600"), clab_image="registry.example/sonic-vs:sn5600")
    assert len(custom["topology"]["links"]) == _example_links("roce-512-leaf-spine-sn5600")
    assert "its port map must hold" in text


def _example_links(name: str) -> int:
    m = ExportSource(_example(name), CAT).derived.metrics
    return m.links_total - m.links_by_tier["node-leaf"]


def test_sonic_refuses_a_switch_with_more_neighbours_than_the_image_has_ports():
    with pytest.raises(ExportError, match=r"p1-leaf-1 has \d+ neighbours.*Force10-S6000.*32 ports.*--view"):
        containerlab_yaml(ExportSource(_example("b300-roce-two-plane"), CAT, ExportOptions(clab_servers=True)))


def test_cumulus_ports_are_the_design_ports_with_nvue_bgp_unnumbered_and_the_placeholder_called_out():
    doc, text, src = _lab(_example("roce-512-leaf-spine-sn5600"), clab_profile="cumulus")
    assert len(doc["topology"]["links"]) == _example_links("roce-512-leaf-spine-sn5600")
    assert "PLACEHOLDER" in text.splitlines()[2]
    nodes = doc["topology"]["nodes"]
    assert all("# PLACEHOLDER" in line for line in text.splitlines() if "image: \"cumulus-vx:latest\"" in line)
    design_ports = {(lower, d["pa"]) for lower, _, d in src.edges() if not lower.startswith("srv")}
    for link in doc["topology"]["links"]:
        for end in link["endpoints"]:
            node, iface = end.split(":")
            config = nodes[node]["startup-config"]
            assert f"nv set vrf default router bgp neighbor {iface} remote-as external" in config
            assert re.search(rf"nv set interface {iface} ip address 10\.\d+\.\d+\.\d+/31", config)
    leaf_ports = {int(e.split(":swp")[1]) for link in doc["topology"]["links"] for e in link["endpoints"]
                  if e.startswith("leaf-1:")}
    assert leaf_ports == {p for n, p in design_ports if n == "leaf-1"}
    assert all(n["startup-config"].rstrip().endswith("nv config apply -y") for n in nodes.values())


def test_a_named_image_is_not_called_a_placeholder():
    _, text, _ = _lab(_small(), clab_profile="cumulus", clab_image="my/cvx:5.9")
    assert "PLACEHOLDER" not in text and "my/cvx:5.9" in text
