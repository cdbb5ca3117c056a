"""Options shared by `compare` and `collectives`: the fleet the job runs in and its batch.

The placement of the job's ranks, the cluster's occupancy (for scattered ranks), other jobs'
uplink load, and the job's global batch, micro-batch and pipeline schedule. The same names as
the project file's performance settings.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from typing import Any

from designer.cli.common import bounded_float, bounded_int
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.fleet import PLACEMENTS
from designer.model.performance.workload import SCHEDULES

_SCALE = {"": 1, "K": 1e3, "M": 2**20, "G": 2**30}


def token_count(text: str) -> int:
    """Tokens as a whole number or with K, M (2^20, as batches are quoted: 4M = 4,194,304) or G."""
    m = re.fullmatch(r"\s*([0-9][0-9_,]*(?:\.[0-9]+)?(?:[eE][0-9]+)?)\s*([KMG]?)\s*", text or "")
    if not m:
        raise argparse.ArgumentTypeError(f"expected a token count such as 16M or 16777216, got {text!r}")
    value = float(m.group(1).replace(",", "").replace("_", "")) * _SCALE[m.group(2)]
    if not 1 <= value <= 2**40:
        raise argparse.ArgumentTypeError(f"a global batch of 1 to {2**40:,} tokens, got {text!r}")
    return int(value)


def add_fleet_options(p: argparse.ArgumentParser, default_text: str) -> None:
    p.add_argument("--placement", choices=PLACEMENTS, default=None,
                   help="where the job's ranks sit: packed fills SUs in order (a topology-aware scheduler); "
                        "scattered draws servers where free, ranked in that order; spread round-robins over "
                        f"SUs ({default_text})")
    p.add_argument("--occupancy", type=bounded_float(0.01, 1.0), default=None,
                   help="share of the cluster's servers busy when a scattered job is placed (default: the "
                        "design's, else resources/perf/fleet.toml's, an assumption)")
    p.add_argument("--placement-seed", type=bounded_int(0, 2**31), default=None,
                   help="seed of the scattered draw (default 0)")
    p.add_argument("--background-load", type=bounded_float(0.0, 0.95), default=None,
                   help="other jobs' traffic on every uplink, a share of its capacity, e.g. 0.3")


def add_batch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--global-batch", type=token_count, default=None, metavar="TOKENS",
                   help="the job's global batch in tokens, e.g. 16M (default: the workload's, grown with data "
                        "parallelism up to its published ceiling)")
    p.add_argument("--micro-batch", type=bounded_int(1, 2**16), default=None, metavar="SEQUENCES",
                   help="sequences per micro-batch (default: the workload's)")
    p.add_argument("--pipeline-schedule", choices=SCHEDULES, default=None,
                   help="1f1b, or interleaved with --virtual-stages model chunks per GPU (default 1f1b)")
    p.add_argument("--virtual-stages", type=bounded_int(1, 64), default=None,
                   help="model chunks per GPU of the interleaved schedule (default 2)")


def job_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The options given, as performance-setting names and values."""
    pairs = (("placement", args.placement), ("occupancy", args.occupancy),
             ("placement_seed", args.placement_seed), ("background_load", args.background_load),
             ("global_batch_tokens", getattr(args, "global_batch", None)),
             ("micro_batch", getattr(args, "micro_batch", None)),
             ("pipeline_schedule", getattr(args, "pipeline_schedule", None)),
             ("virtual_stages", getattr(args, "virtual_stages", None)))
    return {k: v for k, v in pairs if v is not None}


def with_job_options(perf: PerformanceSettings, args: argparse.Namespace) -> PerformanceSettings:
    changes = job_changes(args)
    return replace(perf, **changes) if changes else perf
