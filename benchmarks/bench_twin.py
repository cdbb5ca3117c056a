"""Time the InfiniBand twin on the real stack (ibsim, OpenSM, ibnetdiscover) and the load
computation on forwarding tables (run by hand: `python benchmarks/bench_twin.py`).

Rows:
- the 4-SU DGX H100 example (128 servers, 1,024 GPUs): ftree routing and the real ibnetdiscover
  capture, whole run (export, simulator, OpenSM, capture, tables, loads). Target under 10 s.
- a 4,096-GPU fat-tree (512 DGX H100, QM9700): routed by ftree. Target under 60 s.
- `--8k`: the 8K NDR fat-tree example (9,472 LIDs), routed by ftree.
- the load of ring, tree and all-to-all on tables of 16,384 endpoints (a two-tier fat tree of
  512 leaves and 32 spines, routed destination-mod-k as ftree does), no simulator: numpy only.
  Target under 10 s.
- the largest fabric the simulator holds: InfiniBand's unicast LID range, stated with the
  largest single-plane QM9700 fabric that fits in it.

Prints one line per row, with CPU time (the simulator's and OpenSM's included) beside the wall
time: on a shared machine the wall time says more about the neighbours than about the run.
Skips the stack rows where the Debian packages are missing.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.performance.static_routes import RoutingTables, static_routing_load
from designer.model.topology.presets import new_design
from designer.twin.infiniband import SIM_MAX_LIDS, TwinOptions, missing_stack, run_infiniband_twin

ROOT = Path(__file__).resolve().parents[1]


def _twin(label: str, design, capture: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        start, cpu = time.perf_counter(), _cpu()
        result = run_infiniband_twin(design, options=TwinOptions(
            capture=Path(folder) / "capture.txt" if capture else None, timeout=1800))
        took, used = time.perf_counter() - start, _cpu() - cpu
    a2a = result.load.pattern("all-to-all") if result.load else None
    print(f"{label}: {result.switches:,} switches, {result.cas:,} CAs; {result.engine} "
          f"{'routed' if result.routed else 'fell back to ' + result.routed_by}; subnet up "
          f"{result.seconds_to_subnet_up:.1f} s (routing {result.seconds_to_route:.2f} s); "
          f"{'captured; ' if capture else ''}whole run {took:.1f} s ({used:.1f} s of CPU, simulator and OpenSM "
          f"included; load average {os.getloadavg()[0]:.0f})"
          + (f"; all-to-all {a2a.throughput:.0%} of offered (model {a2a.model_throughput:.0%})" if a2a else ""))


def _cpu() -> float:
    """CPU seconds of this process and of the programs it started and reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def synthetic_tables(leaves: int = 512, per_leaf: int = 32, spines: int = 32) -> RoutingTables:
    """A two-tier fat tree routed destination-mod-k: leaf port 1..per_leaf to NICs, then one
    uplink per spine; spine port 1 + leaf down to each leaf."""
    endpoints = leaves * per_leaf
    n = leaves + spines
    ports = max(per_leaf + spines, leaves) + 1
    leaf_of = np.repeat(np.arange(leaves), per_leaf)
    lft = np.zeros((n, endpoints), dtype=np.int16)
    e = np.arange(endpoints)
    for leaf in range(leaves):
        lft[leaf] = np.where(leaf_of == leaf, 1 + e % per_leaf, 1 + per_leaf + e % spines)
    lft[leaves:] = 1 + leaf_of
    peer_switch = np.full((n, ports), -1)
    peer_endpoint = np.full((n, ports), -1)
    gbps = np.zeros((n, ports))
    for leaf in range(leaves):
        peer_endpoint[leaf, 1:1 + per_leaf] = np.arange(leaf * per_leaf, (leaf + 1) * per_leaf)
        peer_switch[leaf, 1 + per_leaf:1 + per_leaf + spines] = leaves + np.arange(spines)
        gbps[leaf, 1:1 + per_leaf + spines] = 400
    peer_switch[leaves:, 1:1 + leaves] = np.arange(leaves)
    gbps[leaves:, 1:1 + leaves] = 400
    level = np.array([1] * leaves + [2] * spines)
    return RoutingTables(lft=lft, peer_switch=peer_switch, peer_endpoint=peer_endpoint, gbps=gbps, level=level,
                         leaf_of=leaf_of, server_of=e // 8, rail_of=e % 8, nic_gbps=400.0)


def main(argv: list[str]) -> None:
    missing = missing_stack()
    if missing:
        print(f"stack rows skipped: {missing}")
    else:
        _twin("4-SU DGX H100 (1,024 GPUs)", load_design(ROOT / "examples" / "dgx-h100-superpod-4su.json"), True)
        catalog = default_catalog()
        fat = new_design(catalog, "fat-tree", nodes=512, server="dgx-h100", switch="qm9700")
        _twin("fat-tree of 4,096 GPUs", fat, False)
        if "--8k" in argv:
            _twin("8K NDR fat-tree", load_design(ROOT / "examples" / "ndr-8k-fat-tree.json"), False)
    tables = synthetic_tables()
    start, cpu = time.perf_counter(), time.process_time()
    load = static_routing_load(tables)
    took, used = time.perf_counter() - start, time.process_time() - cpu
    flows = ", ".join(f"{p.pattern} {p.flows:,}" for p in load.patterns)
    print(f"load on tables of {tables.endpoints:,} endpoints ({flows} flows): {took:.1f} s "
          f"({used:.1f} s of CPU; load average {os.getloadavg()[0]:.0f})")
    print(f"largest fabric the simulator holds: {SIM_MAX_LIDS:,} LIDs, one per switch, SHARP aggregation node and "
          "HCA port (InfiniBand's unicast range): a full three-tier QM9700 plane of 16,384 DGX H100 GPUs needs "
          "18,944 (1,280 switches) and fits; the 131,072-GPU k=64 fat-tree does not. OpenSM's time at that size "
          "is not measured here")


if __name__ == "__main__":
    main(sys.argv[1:])
