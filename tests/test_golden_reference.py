"""Golden tests against public reference designs and textbook formulas."""

import json

import pytest

from designer.catalog import default_catalog
from designer.model.topology import graph_metrics
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run, derived, superpod

# DGX H100 SuperPOD compute fabric, 32 nodes per SU (REFERENCE.md, NVIDIA RA "network fabrics").
SUPERPOD = [(1, 8, 4, 256), (2, 16, 8, 512), (4, 32, 16, 1024)]


def _cli(*args):
    return cli_run(*args)


@pytest.mark.parametrize("sus,leaves,spines,links", SUPERPOD)
def test_superpod_table_through_the_command(tmp_path, sus, leaves, spines, links):
    out = tmp_path / "f.json"
    made = _cli("new", "--template", "rail-optimized", "--nodes", str(32 * sus), "--server", "dgx-h100",
                "--switch", "qm9700", "-o", str(out))
    assert made.returncode == 0, made.stderr
    shown = _cli("metrics", str(out), "--json")
    assert shown.returncode == 0, shown.stderr
    m = json.loads(shown.stdout)
    assert m["gpus"] == 256 * sus
    assert m["switches"]["by_tier"] == {"leaf": leaves, "spine": spines, "core": 0}
    assert m["switches"]["total"] == leaves + spines
    assert m["links"]["by_tier"]["leaf-spine"] == links
    assert m["links"]["by_tier"]["node-leaf"] == 256 * sus
    assert m["oversubscription"] == {"leaf": 1.0, "spine": 1.0}
    assert m["bisection_ratio"] == pytest.approx(1.0)
    assert m["bisection_gbps"] == pytest.approx(256 * sus / 2 * 400)
    assert m["max_hops"] == 3
    assert m["findings"] == []


@pytest.mark.parametrize("sus,leaves,spines,links", SUPERPOD)
def test_superpod_rails_land_on_their_leaf(sus, leaves, spines, links):
    d = derived(superpod(sus))
    g = d.graph
    for node, data in g.nodes(data=True):
        if data["role"] != "nic":
            continue
        (leaf,) = list(g[node])
        su = data["server"] // 32
        assert g.nodes[leaf]["index"] == su * 8 + data["rail"]  # GPU i of every server -> leaf i of its SU
        assert g.nodes[leaf]["pod"] == su
    assert sum(1 for *_, t in g.edges(data="tier") if t == "leaf-spine") == links


def test_one_su_same_rail_traffic_is_one_hop():
    m = derived(superpod(1)).metrics
    assert m.max_hops_same_rail == 1
    assert derived(superpod(2)).metrics.max_hops_same_rail == 3


@pytest.mark.parametrize("k", [4, 8, 16, 24])
def test_k_ary_fat_tree_formulas(k):
    d = derive(new_design(default_catalog(), "fat-tree", gpus=k**3 // 4, gpus_per_node=1,
                          radix=k, speed=400), default_catalog())
    m = d.metrics
    assert m.endpoints == k**3 // 4
    assert m.switches_total == 5 * k * k // 4
    assert m.switches_by_tier == {"leaf": k * k // 2, "spine": k * k // 2, "core": k * k // 4}
    assert m.links_by_tier == {"node-leaf": k**3 // 4, "leaf-spine": k**3 // 4, "spine-core": k**3 // 4}
    assert m.tiers == 3 and m.max_hops == 5
    assert m.bisection_ratio == pytest.approx(1.0)
    # Each edge switch reaches every aggregation switch of its pod exactly once.
    g = d.graph
    leaf = "leaf-1"
    spines = [n for n in g[leaf] if g.nodes[n]["role"] == "spine"]
    assert len(spines) == k // 2 and all(g.number_of_edges(leaf, s) == 1 for s in spines)


def test_two_tier_leaf_spine_formula():
    for radix in (8, 16, 32, 64):
        m = derived(new_design(default_catalog(), "leaf-spine", gpus=radix * radix // 2, gpus_per_node=1,
                               radix=radix, speed=400)).metrics
        assert m.tiers == 2
        assert m.switches_total == 3 * radix // 2


def test_oversubscribed_leaf_has_the_asked_ratio_and_smaller_bisection():
    design = new_design(default_catalog(), "leaf-spine", gpus=1152, server="dgx-h100", switch="qm9700",
                        oversubscription=3.0)
    d = derived(design)  # 48 down + 16 up per leaf: 24 full leaves, split 12 / 12
    assert d.metrics.switches_by_tier["leaf"] == 24
    assert d.metrics.oversubscription("leaf") == pytest.approx(3.0)
    assert d.metrics.bisection_ratio == pytest.approx(1 / 3)
    assert graph_metrics.bisection_maxflow(d.graph) == pytest.approx(d.metrics.bisection_gbps)
