"""NVIDIA Air's topology DOT, line by line against the syntax its documentation gives
("Custom Topology" > "Custom Topologies with DOT Files"):

    graph "Demo" {
      "spine01" [ function="spine" memory="4096" os="sonic-vs-202305" cpu="2" ]
      "leaf01":"swp31" -- "spine01":"swp1"
    }

Every node and port is a quoted string, every attribute `key="value"` with a key the
documentation names, memory in MB and cpu a count; a switch port is a Cumulus swpN.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from designer.catalog import default_catalog
from designer.io.air_dot import air_dot
from designer.io.export_source import ExportOptions, ExportSource
from designer.io.project import load_design

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CAT = default_catalog()
QUOTED = r'"((?:[^"\\]|\\.)*)"'
NODE = re.compile(rf'^  {QUOTED} \[ ((?:[a-z_]+="[^"]*" )+)\]$')
LINK = re.compile(rf'^  {QUOTED}:"(swp\d+|eth\d+)" -- {QUOTED}:"(swp\d+)"$')
ATTR = re.compile(r'([a-z_]+)="([^"]*)" ')
DOCUMENTED = {"function", "os", "memory", "cpu", "storage"}   # the attributes the documentation names


def _parse(text: str):
    lines = text.splitlines()
    assert lines[0].startswith("/*") and lines[0].endswith("*/")
    assert re.fullmatch(rf"graph {QUOTED} {{", lines[1]) and lines[-1] == "}"
    nodes, links = {}, []
    for line in lines[2:-1]:
        if m := NODE.match(line):
            attrs = dict(ATTR.findall(m.group(2)))
            assert set(attrs) <= DOCUMENTED and {"function", "os", "memory", "cpu"} <= set(attrs), line
            assert attrs["memory"].isdigit() and attrs["cpu"].isdigit(), line
            assert m.group(1) not in nodes
            nodes[m.group(1)] = attrs
        else:
            m = LINK.match(line)
            assert m, f"not a node or link line of Air's syntax: {line!r}"
            links.append((m.group(1), m.group(2), m.group(3), m.group(4)))
    return nodes, links


def test_the_512_gpu_example_follows_airs_documented_syntax():
    src = ExportSource(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), CAT)
    nodes, links = _parse(air_dot(src))
    functions = Counter(a["function"] for a in nodes.values())
    assert functions == {"leaf": 8, "spine": 4, "server": 64}
    assert {a["os"] for n, a in nodes.items() if a["function"] != "server"} == {"cumulus-vx-5.16.1"}
    assert len(links) == 1024                      # 512 server links and 512 leaf-spine links
    ports = Counter()
    for a, pa, b, pb in links:
        assert a in nodes and b in nodes
        ports[(a, pa)] += 1
        ports[(b, pb)] += 1
        if nodes[a]["function"] == "server":
            assert pa.startswith("eth") and nodes[b]["function"] == "leaf"
        else:
            assert (nodes[a]["function"], nodes[b]["function"]) == ("leaf", "spine") and pa.startswith("swp")
    assert max(ports.values()) == 1                # no port is cabled twice


def test_a_view_keeps_only_its_nodes_and_the_two_plane_example_parses():
    src = ExportSource(load_design(EXAMPLES / "b300-roce-two-plane.json"), CAT, ExportOptions(view="plane:1"))
    nodes, links = _parse(air_dot(src))
    assert all(a in nodes and b in nodes for a, _, b, _ in links)
    assert len([n for n, a in nodes.items() if a["function"] != "server"]) == len(src.switches)
