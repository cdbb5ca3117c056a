"""Published nccl-tests measurements against the estimate, within 15%, each with its source.

Every case runs the design's defaults (auto algorithm, NCCL-like: no InfiniBand SHARP unless
the design enables it). H200 servers have the H100's NVLink 4 and ConnectX-7 NICs, so the
DGX H100 catalog entry stands in for them.
"""

from __future__ import annotations

from functools import cache

import pytest

from designer.catalog import default_catalog
from designer.model.performance.collectives import estimate
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()
MIB, GIB = 1 << 20, 1 << 30
TOL = 0.15


@cache
def design(**kw):
    return derive(new_design(CAT, "rail-optimized", **kw), CAT)


# (case, design kwargs, job GPUs, collective, size, algorithm, measured busbw GB/s, source)
MEASURED = [
    ("8 x H100, one server, ring all-reduce", dict(nodes=1, server="dgx-h100", switch="qm9700"), None,
     "allreduce", 8 * GIB, "ring", 367.5, "NVIDIA/nccl #1455, nccl-tests #212, #290 (365-370)"),
    ("8 x H100, one server, NVLS all-reduce (default)", dict(nodes=1, server="dgx-h100", switch="qm9700"),
     None, "allreduce", 8 * GIB, "auto", 477.5, "NVIDIA/nccl #1455, nccl-tests #212, #290 (475-480)"),
    ("8 x B200, one server, NVLS all-reduce", dict(nodes=1, server="dgx-b200", switch="qm9700"), None,
     "allreduce", 8 * GIB, "auto", 830, "NVIDIA/nccl #1807"),
    ("GB200 NVL72 rack, all-reduce 512 MiB",
     dict(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18), 72,
     "allreduce", 512 * MIB, "auto", 586, "coreweave/nccl-tests PR #43"),
    ("GB200 NVL72 rack, all-reduce 1 GiB",
     dict(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18), 72,
     "allreduce", GIB, "auto", 681, "coreweave/nccl-tests PR #43"),
    ("GB200 NVL72 rack, all-reduce 8 GiB",
     dict(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18), 72,
     "allreduce", 8 * GIB, "auto", 835, "coreweave/nccl-tests PR #43"),
    ("248 x 8 H200 on NDR, default algorithm, 512 MiB all-reduce",
     dict(nodes=248, server="dgx-h100", switch="qm9700"), None,
     "allreduce", 512 * MIB, "auto", 350, "NVIDIA/nccl-tests #283"),
    ("2 x 8 H100 on NDR, ring all-reduce", dict(nodes=16, server="dgx-h100", switch="qm9700"), 16,
     "allreduce", 8 * GIB, "ring", 376, "NVIDIA/nccl-tests #290 (368-384)"),
    ("16 x 8 H100 on NDR, ring all-reduce", dict(nodes=16, server="dgx-h100", switch="qm9700"), None,
     "allreduce", 8 * GIB, "ring", 388, "nccl-tests #290, #309, #319 (380-396)"),
    # NVLSTree between two 8-GPU servers is capped per head by NCCL (perChMaxNVLSTreeBws), below
    # the NVLink bound; beyond two servers a ring catches up (NVLS on or off, the same busbw).
    ("2 x 8 H100 on 400G RoCE, NVLS on, 4 GiB all-reduce",
     dict(nodes=2, server="dgx-h100", technology="roce-400g"), None,
     "allreduce", 4 * GIB, "auto", 430, "NVIDIA/nccl #1221 (8 x 400G RoCE per node: 330 -> 430 GB/s with NVLS)"),
    ("4 x 8 H100 on 400G RoCE, 8 GiB all-reduce",
     dict(nodes=4, server="dgx-h100", technology="roce-400g"), None,
     "allreduce", 8 * GIB, "auto", 320, "NVIDIA/nccl #1221 (more than 2 nodes: about 320 GB/s, NVLS on or off)"),
    ("DGX A100, 8 x 200G HDR, ring all-reduce",
     dict(nodes=16, server="dgx-a100", switch="qm8700", nodes_per_su=16), None,
     "allreduce", 8 * GIB, "ring", 192, "NVIDIA/nccl #812"),
]


# GB200 NVL72 racks on 4 x 400G per tray (coreweave/nccl-tests README, "Expected Performance",
# NCCL 2.26.2, all_reduce_perf out-of-place busbw): 2 racks (144 GPUs) and 20 racks (1,440 GPUs).
NVL72_RACKS = {
    2: [(512 * MIB, 493.94), (GIB, 596.10), (2 * GIB, 680.30), (4 * GIB, 743.09), (8 * GIB, 793.06),
        (16 * GIB, 810.41)],
    20: [(512 * MIB, 150.95), (GIB, 218.85), (2 * GIB, 286.52), (4 * GIB, 346.38), (8 * GIB, 381.48),
         (16 * GIB, 405.74)],
}
MEASURED += [(f"GB200 NVL72, {racks} racks, all-reduce {size // MIB} MiB",
              dict(gpus=1440, server="gb200-nvl72-tray", switch="qm9700"), 72 * racks, "allreduce", size, "auto",
              busbw, "coreweave/nccl-tests README (GB200, NCCL 2.26.2)")
             for racks, points in NVL72_RACKS.items() for size, busbw in points]


@pytest.mark.parametrize("case, kw, gpus, collective, size, algorithm, measured, source", MEASURED,
                         ids=[m[0] for m in MEASURED])
def test_measured_point_within_15_percent(case, kw, gpus, collective, size, algorithm, measured, source):
    r = estimate(design(**kw), collective, size, gpus=gpus, algorithm=algorithm)
    assert abs(r.busbw_GBps / measured - 1) <= TOL, f"{case}: {r.busbw_GBps:.0f} vs {measured} ({source})"


def test_nvls_busbw_of_a_72_gpu_domain_does_not_grow_past_the_board():
    """NVL72 measures about the busbw of an 8-GPU B200 board; the port bound alone would say +25%."""
    rack = estimate(design(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18),
                    "allreduce", 16 * GIB, gpus=72)
    board = estimate(design(nodes=1, server="dgx-b200", switch="qm9700"), "allreduce", 16 * GIB)
    assert rack.algorithm == board.algorithm == "nvls"
    assert rack.busbw_GBps == pytest.approx(board.busbw_GBps, rel=0.05)


def test_nvl72_busbw_ramps_with_size_as_measured():
    nvl = design(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18)
    bw = [estimate(nvl, "allreduce", s, gpus=72).busbw_GBps for s in (512 * MIB, GIB, 2 * GIB, 8 * GIB)]
    assert bw == sorted(bw) and bw[-1] / bw[0] > 1.2   # measured 586 -> 835: +42%


def test_across_nvl72_racks_the_network_is_the_limit_not_nvlink():
    """20 racks: the estimate names the NICs, and the network's share of the tree sets busbw."""
    d = design(gpus=1440, server="gb200-nvl72-tray", switch="qm9700")
    r = estimate(d, "allreduce", 16 * GIB)
    assert r.algorithm == "nvls+tree" and r.bottleneck == "NIC"
    one_rack = estimate(d, "allreduce", 16 * GIB, gpus=72)
    assert r.busbw_GBps < 0.6 * one_rack.busbw_GBps


def test_default_at_248_nodes_is_nvls_tree_not_sharp():
    r = estimate(design(nodes=248, server="dgx-h100", switch="qm9700"), "allreduce", 512 * MIB)
    assert r.algorithm == "nvls+tree" and r.nccl_algorithm == "NVLS_TREE"


@pytest.mark.parametrize("nodes", [2, 4, 16])
def test_alltoall_across_nodes_is_n_over_n_minus_1_times_the_nic(nodes):
    """busbw about N/(N-1) x per-NIC bandwidth (nccl-tests #130), 48 GB/s per 400G NIC (#267)."""
    d = design(nodes=16, server="dgx-h100", switch="qm9700")
    r = estimate(d, "alltoall", 8 * GIB, gpus=8 * nodes)
    expected = nodes / (nodes - 1) * 48
    assert r.algorithm == "pairwise" and r.nccl_algorithm == "SEND_RECV"
    assert abs(r.busbw_GBps / expected - 1) <= TOL, (nodes, r.busbw_GBps, expected)
