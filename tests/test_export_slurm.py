"""Slurm topology files parse back into a tree where every node sits once under a leaf and every
switch hangs from the top; blocks partition the nodes; hostlists round-trip."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io import hostlist
from designer.io.export_source import ExportError, ExportOptions, ExportSource
from designer.io.project import load_design
from designer.io.slurm_topology import build_topology, topology_conf_block, topology_conf_tree, topology_yaml
from designer.model.intent.design import Meta
from designer.model.topology.presets import new_design
from tests.helpers import examples

EXAMPLES = sorted(Path(__file__).resolve().parents[1].glob("examples/*.json"))


def parse_tree(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(leaf switch -> nodes, upper switch -> child switches) of a topology.conf for the tree plugin."""
    leaves, uppers = {}, {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        name = fields.pop("SwitchName")
        assert len(name) <= 64 and "." not in name, name
        if "Nodes" in fields:
            leaves[name] = hostlist.expand(fields["Nodes"])
        else:
            uppers[name] = hostlist.expand(fields["Switches"])
    return leaves, uppers


def check_tree(leaves: dict, uppers: dict, expected_nodes: set[str]) -> None:
    counts = Counter(n for nodes in leaves.values() for n in nodes)
    assert set(counts) == expected_nodes
    assert all(c == 1 for c in counts.values()), "a node appears under two leaves"
    switches = set(leaves) | set(uppers)
    children = {c for kids in uppers.values() for c in kids}
    assert children <= switches, "a switch names a child that is not defined"
    roots = switches - children
    assert len(roots) == 1, roots
    seen, stack = set(), list(roots)
    while stack:
        s = stack.pop()
        seen.add(s)
        stack.extend(uppers.get(s, []))
    assert seen == switches, "a switch is not reachable from the top"


def _source(design, **options):
    return ExportSource(design, default_catalog(), ExportOptions(**options))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_gives_a_tree_with_each_node_once_under_a_leaf(path):
    src = _source(load_design(path))
    leaves, uppers = parse_tree(topology_conf_tree(src))
    check_tree(leaves, uppers, {src.host(s) for s in range(src.design.cluster.servers)})


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_blocks_partition_the_nodes_and_sizes_double(path):
    src = _source(load_design(path))
    text = topology_conf_block(src)
    blocks, sizes = {}, None
    for line in text.splitlines():
        if line.startswith("BlockName="):
            name, nodes = re.fullmatch(r"BlockName=(\S+) Nodes=(\S+)", line).groups()
            blocks[name] = hostlist.expand(nodes)
        elif line.startswith("BlockSizes="):
            sizes = [int(x) for x in line.split("=", 1)[1].split(",")]
    every = [n for nodes in blocks.values() for n in nodes]
    assert sorted(every) == sorted(src.host(s) for s in range(src.design.cluster.servers))
    assert len(every) == len(set(every))
    assert sizes[0] == min(len(n) for n in blocks.values())
    for before, after in itertools.pairwise(sizes):
        ratio = after // before
        assert after % before == 0 and ratio > 1 and ratio & (ratio - 1) == 0
    assert sizes[-1] <= len(every)


def test_rail_optimized_sus_are_one_switch_and_one_block():
    design = load_design(Path(__file__).resolve().parents[1] / "examples/dgx-h100-superpod-4su.json")
    src = _source(design)
    leaves, uppers = parse_tree(topology_conf_tree(src))
    assert sorted(leaves) == ["su-1", "su-2", "su-3", "su-4"]
    assert leaves["su-2"] == [f"gpu-node-{n:04d}" for n in range(33, 65)]
    assert uppers == {"spines": ["su-1", "su-2", "su-3", "su-4"]}
    assert "BlockSizes=32,64,128" in topology_conf_block(src)


def test_multi_plane_fabric_is_one_tree():
    design = new_design(default_catalog(), "rail-optimized", nodes=128, server="dgx-h100", switch="qm9700", planes=2)
    src = _source(design)
    assert src.resolved.planes == 2
    leaves, uppers = parse_tree(topology_conf_tree(src))
    check_tree(leaves, uppers, {src.host(s) for s in range(128)})
    assert len(leaves) == 4  # the SUs, not one tree per plane


def test_three_tier_fat_tree_has_pods_under_the_cores():
    design = load_design(Path(__file__).resolve().parents[1] / "examples/ndr-8k-fat-tree.json")
    src = _source(design)
    topo = build_topology(src)
    levels = Counter(s.level for s in topo.switches)
    assert levels[3] == 1 and levels[2] == src.columns
    assert [s.name for s in topo.roots] == ["cores"]


def test_yaml_carries_the_same_tree_and_blocks():
    design = load_design(Path(__file__).resolve().parents[1] / "examples/b300-xdr-4su-rail.json")
    src = _source(design, node_pattern="b300-su{su:02d}-n{i:02d}")
    doc = yaml.safe_load(topology_yaml(src))
    tree = next(t for t in doc if t["topology"] == "fabric")
    block = next(t for t in doc if t["topology"] == "blocks")
    assert tree["cluster_default"] is True and block["cluster_default"] is False
    assert list(tree)[0] == "topology" and list(block)[0] == "topology"
    leaves = {s["switch"]: hostlist.expand(s["nodes"]) for s in tree["tree"]["switches"] if "nodes" in s}
    uppers = {s["switch"]: hostlist.expand(s["children"]) for s in tree["tree"]["switches"] if "children" in s}
    check_tree(leaves, uppers, {src.host(s) for s in range(src.design.cluster.servers)})
    assert leaves["su-2"][0] == "b300-su02-n01"
    assert block["block"]["block_sizes"] == build_topology(src).block_sizes
    conf_leaves, _ = parse_tree(topology_conf_tree(src))
    assert conf_leaves == leaves


def test_a_view_exports_one_su_with_the_switches_above_it():
    design = load_design(Path(__file__).resolve().parents[1] / "examples/dgx-h100-superpod-4su.json")
    src = _source(design, view="su:3")
    leaves, uppers = parse_tree(topology_conf_tree(src))
    check_tree(leaves, uppers, {f"gpu-node-{n:04d}" for n in range(65, 97)})


def test_a_hostile_design_name_cannot_add_configuration_lines():
    design = load_design(Path(__file__).resolve().parents[1] / "examples/dgx-h100-superpod-1su.json")
    design = dataclasses.replace(design, meta=Meta(name="x\nSwitchName=evil Nodes=x\r\u2028\x00y"))
    for text in (topology_conf_tree(_source(design)), topology_conf_block(_source(design))):
        body = [link for link in text.splitlines() if not link.startswith("#")]
        assert all(link.startswith(("SwitchName=", "BlockName=", "BlockSizes=")) for link in body)
        assert "evil" not in "".join(body)
        assert "\x00" not in text
    assert yaml.safe_load(topology_yaml(_source(design)))[0]["topology"] == "fabric"


@pytest.mark.parametrize("pattern, message", [
    ("node", "must contain"), ("n{n.real}", "uses"), ("n {n}", "letters, digits"), ("{su}", "must contain"),
    ("{n!r}", "use a field"), ("{n", "malformed"), ("{x}", "uses"), ("leaf-{n}", "switches use"),
])
def test_unusable_node_patterns_are_refused_with_one_message(pattern, message):
    design = load_design(Path(__file__).resolve().parents[1] / "examples/dgx-h100-superpod-1su.json")
    with pytest.raises(ExportError, match=message):
        _source(design, node_pattern=pattern)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["gpu-", "n", "leaf-", "rack1-x"]), st.integers(0, 3000),
                          st.sampled_from([0, 2, 4])), max_size=40))
def test_hostlists_round_trip(items):
    names = list(dict.fromkeys(f"{p}{n:0{w}d}" if w else f"{p}{n}" for p, n, w in items))
    text = hostlist.compress(names)
    assert sorted(hostlist.expand(text)) == sorted(names)


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json")),
                         ids=lambda p: p.stem)
def test_every_switch_line_carries_its_link_speed(path):
    """Without LinkSpeed, `scontrol show topology` shows LinkSpeed=1 for every switch."""
    design = load_design(path)
    src = ExportSource(design, default_catalog())
    r = src.derived.resolved
    for line in topology_conf_tree(src).splitlines():
        if line.startswith("SwitchName="):
            speed = int(re.search(r"\bLinkSpeed=(\d+)$", line).group(1))
            assert speed == (r.link_gbps if " Nodes=" in line else r.uplink_gbps), line
