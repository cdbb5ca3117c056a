"""Build a 65,536-endpoint three-tier fat-tree of 64-port switches and compute every metric.

"Every metric" is what the tool computes for this design: counts, per-switch port use,
oversubscription, bisection, hops, headroom and findings (closed form, exact for template
fabrics: the tests check it against max-flow and BFS on the graph). Compared with the time
plain networkx takes to build a MultiGraph with the same nodes and edges (ids and edge
pairs prepared beforehand, no attributes). Each measurement runs in a fresh process so that
peak memory (max RSS) is its own. Targets: at most 2x the baseline time and at most 1.5 GB
peak.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

K = 64
RUNS = 3


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_designer() -> dict:
    from designer.catalog import default_catalog
    from designer.model.topology.derive import derive
    from designer.model.topology.presets import new_design

    catalog = default_catalog()
    design = new_design(catalog, "fat-tree", gpus=K**3 // 4, gpus_per_node=1, radix=K, speed=400)
    start = time.perf_counter()
    d = derive(design, catalog)
    g = d.graph
    metrics = d.metrics
    elapsed = time.perf_counter() - start
    assert metrics.switches_total == 5 * K * K // 4
    assert sum(tp.ports_used for tp in metrics.ports_by_tier.values()) == 2 * g.number_of_edges() - K**3 // 4
    return {"seconds": elapsed, "peak_mb": _rss_mb(), "nodes": g.number_of_nodes(), "edges": g.number_of_edges()}


def measure_networkx(nodes: int, edges: int) -> dict:
    import networkx as nx

    # The same shape: hosts, edge, aggregation and core switches, one edge per link.
    half = K // 2
    hosts = [f"h{i}" for i in range(K**3 // 4)]
    edge = [f"e{i}" for i in range(K * half)]
    agg = [f"a{i}" for i in range(K * half)]
    core = [f"c{i}" for i in range(half * half)]
    pairs = [(h, edge[i // half]) for i, h in enumerate(hosts)]
    for p in range(K):
        for e in range(half):
            for a in range(half):
                pairs.append((edge[p * half + e], agg[p * half + a]))
        for a in range(half):
            for c in range(half):
                pairs.append((agg[p * half + a], core[a * half + c]))
    all_nodes = hosts + edge + agg + core
    assert len(all_nodes) == nodes and len(pairs) == edges
    start = time.perf_counter()
    g = nx.MultiGraph()
    g.add_nodes_from(all_nodes)
    g.add_edges_from(pairs)
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "peak_mb": _rss_mb()}


def _child(kind: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, kind, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    if len(sys.argv) > 1:
        kind = sys.argv[1]
        result = measure_designer() if kind == "designer" else measure_networkx(int(sys.argv[2]), int(sys.argv[3]))
        print(json.dumps(result))
        return
    ours = [_child("designer") for _ in range(RUNS)]
    nodes, edges = ours[0]["nodes"], ours[0]["edges"]
    base = [_child("networkx", str(nodes), str(edges)) for _ in range(RUNS)]
    t_ours = min(r["seconds"] for r in ours)
    t_base = min(r["seconds"] for r in base)
    peak = max(r["peak_mb"] for r in ours)
    print(f"k={K} fat-tree: {nodes:,} nodes, {edges:,} links (best of {RUNS} fresh processes)")
    print(f"  fabric-designer build + all metrics: {t_ours:6.2f} s   peak RSS {peak:7.0f} MB")
    print(f"  networkx MultiGraph, same nodes/edges: {t_base:4.2f} s   peak RSS "
          f"{max(r['peak_mb'] for r in base):7.0f} MB")
    ratio = t_ours / t_base
    print(f"  ratio {ratio:.2f}x (target <= 2x), peak {peak / 1024:.2f} GB (target <= 1.5 GB): "
          f"{'PASS' if ratio <= 2 and peak <= 1536 else 'FAIL'}")


if __name__ == "__main__":
    main()
