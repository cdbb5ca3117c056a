"""`fabric-designer collectives`: estimated collective times on a design, and the training-step view."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace

from designer.catalog import default_catalog
from designer.cli.common import CommandError, SubParsers, bounded_int, positive_int, print_json, size_bytes, table
from designer.cli.job_options import add_batch_options, add_fleet_options, with_job_options
from designer.io.project import load_design
from designer.limits import InputError, cli_number, terminal_text
from designer.model.common.units import duration_label, size_label
from designer.model.decisions.advice import training_step
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance import fleet
from designer.model.performance.collectives import (
    ALGORITHMS,
    COLLECTIVES,
    Sweep,
    normalize_collective,
    sweep,
)
from designer.model.performance.training import StepEstimate
from designer.model.performance.workload import SCHEDULE_NAMES, presets
from designer.model.topology.derive import Derived, derive

_COUNT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)\s*([KMBT])?\s*\Z", re.IGNORECASE | re.ASCII)
_SCALE = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
MAX_PARAMS = 1e16   # ten thousand trillion parameters, far above any model


def param_count(text: str) -> float:
    """'70e9', '70B', '1.5T' -> parameters."""
    match = _COUNT.match(text) if len(text) <= 40 else None
    if not match:
        raise argparse.ArgumentTypeError(f"malformed parameter count '{text}' (use a form like 70e9 or 70B)")
    value = float(match.group(1)) * _SCALE[(match.group(2) or "").upper()]
    if not 1 <= value <= MAX_PARAMS:  # also refuses inf (1e400)
        raise argparse.ArgumentTypeError(f"parameter count '{text}' must be 1 to {MAX_PARAMS:g}")
    return value


def milliseconds(text: str) -> float:
    try:
        return float(cli_number(text, "", 0, 1e9))
    except InputError as exc:
        raise argparse.ArgumentTypeError(f"compute time in milliseconds: {exc.reason}") from None


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser(
        "collectives", help="estimate collective times (all-reduce, all-gather...) on a design",
        description="Estimated time, algbw and busbw (nccl-tests definitions) of a collective on the "
                    "design, the algorithm and protocol chosen, and what limits it. With --params, the "
                    "training-step view: gradient all-reduce per step, its share of step time, and the "
                    "InfiniBand-vs-Ethernet rule of thumb (heuristic) applied to this design.")
    p.add_argument("file", help="project file")
    p.add_argument("--collective", default=None,
                   help=f"{' | '.join(COLLECTIVES)} (default: the design's setting, allreduce)")
    job = p.add_mutually_exclusive_group()
    job.add_argument("--gpus", type=positive_int, help="GPUs taking part (default: all)")
    job.add_argument("--nodes", type=positive_int, help="servers taking part (default: all)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--size", type=size_bytes, help="one message size, e.g. 8GiB, 64KiB, 512B")
    size.add_argument("--sweep", action="store_true", help="8 B to 16 GiB in powers of two (the default)")
    p.add_argument("--algorithm", choices=ALGORITHMS, default=None,
                   help="auto picks the fastest per size (default: the design's setting)")
    add_fleet_options(p, "default: the design's setting, packed")
    p.add_argument("--compare", metavar="FILE2", help="a second design, shown side by side (text only)")
    p.add_argument("--params", type=param_count, help="training-step view: model parameters, e.g. 70e9 or 70B")
    p.add_argument("--compute-ms", type=milliseconds, help="training-step view: compute time per step")
    p.add_argument("--workload", choices=list(presets()),
                   help="training-step view of a named job that fits in memory (TP/PP/DP/EP plan, compute "
                        "from FLOPs; resources/perf/workloads.toml)")
    p.add_argument("--dp", type=bounded_int(1, 2**24),
                   help="training-step view: data-parallel degree (default: all GPUs)")
    p.add_argument("--bytes-per-grad", type=bounded_int(1, 64),
                   help="training-step view: bytes per gradient (default 2)")
    add_batch_options(p)
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.set_defaults(run=run)


def _gpus(args: argparse.Namespace, derived: Derived) -> int | None:
    if args.nodes:
        servers = derived.plan.servers
        if args.nodes > servers:
            raise CommandError(f"{args.nodes:,} nodes requested but the design has {servers:,}")
        return int(args.nodes) * derived.resolved.gpus_per_server
    gpus: int | None = args.gpus
    return gpus


def _fleet_json(perf: PerformanceSettings, placement: str | None) -> dict[str, object]:
    placed = placement or perf.placement
    return {"placement": placed, "occupancy": fleet.occupancy(perf) if placed == "scattered" else None,
            "placement_seed": perf.placement_seed, "background_load": fleet.background_load(perf)}


def _bw(value: float) -> str:
    return f"{value:,.1f}" if value >= 10 else f"{value:.2f}"


def run(args: argparse.Namespace) -> int:
    if args.compare and args.json:
        raise CommandError("--compare prints a side-by-side table; leave out --json")
    if args.workload and args.params is not None:
        raise CommandError("give either --workload or --params, not both")
    if args.compare and (args.params is not None or args.workload):
        raise CommandError("--compare shows collectives; run the training-step view once per design")
    training_flags = (args.compute_ms, args.dp, args.bytes_per_grad)
    if args.params is None and not args.workload and any(v is not None for v in training_flags):
        raise CommandError("--compute-ms, --dp and --bytes-per-grad belong to the training-step view: add --params")
    catalog = default_catalog()
    design = load_design(args.file)
    design = replace(design, performance=with_job_options(design.performance, args))
    derived = derive(design, catalog)
    gpus = _gpus(args, derived)
    if args.workload:
        step = training_step(derived, compute_ms=args.compute_ms, gpus=gpus, placement=args.placement,
                             catalog=catalog, workload=args.workload)
        if args.json:
            print_json({**step.to_json(), "fleet": _fleet_json(design.performance, args.placement)})
        else:
            print(training_summary(terminal_text(design.meta.name), step))
        return 0
    if args.params is not None:
        step = training_step(derived, params=args.params, bytes_per_grad=args.bytes_per_grad,
                             dp_degree=args.dp, compute_ms=args.compute_ms, gpus=gpus,
                             placement=args.placement, catalog=catalog)
        if args.json:
            print_json(step.to_json())
        else:
            print(training_summary(terminal_text(design.meta.name), step))
        return 0
    settings = design.performance
    collective = normalize_collective(args.collective or settings.collective)
    algorithm = args.algorithm or settings.algorithm
    sizes = [args.size] if args.size else None
    result = sweep(derived, collective, gpus, algorithm, args.placement, sizes)
    if args.json:
        print_json(result.to_json())
        return 0
    if args.compare:
        other_design = load_design(args.compare)
        other = sweep(derive(other_design, catalog), collective, gpus, algorithm, args.placement, sizes)
        print(side_by_side(terminal_text(design.meta.name), result, terminal_text(other_design.meta.name), other))
        return 0
    print(summary(terminal_text(design.meta.name), result))
    return 0


_LABEL = {"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
          "alltoall": "all-to-all", "broadcast": "broadcast"}


def summary(name: str, s: Sweep) -> str:
    ctx = s.context
    head = [f"{_LABEL[s.collective]} on {name}: {s.gpus:,} GPUs, {ctx.technology}, algorithm {s.requested}",
            *[f"  {line}" for line in ctx.notes], ""]
    rows = [(size_label(r.size_bytes), _time(r.time_us), _bw(r.algbw_GBps), _bw(r.busbw_GBps),
             f"{r.algorithm}/{r.protocol}", r.bottleneck) for r in s.results]
    return "\n".join(head) + table(rows, ("size", "time", "algbw GB/s", "busbw GB/s", "algorithm", "bottleneck"))


def side_by_side(name_a: str, a: Sweep, name_b: str, b: Sweep) -> str:
    head = [f"{_LABEL[a.collective]}, {a.gpus:,} GPUs: A = {name_a} ({a.context.technology}), "
            f"B = {name_b} ({b.context.technology})", ""]
    rows = []
    for ra, rb in zip(a.results, b.results, strict=True):
        rows.append((size_label(ra.size_bytes), _time(ra.time_us), _bw(ra.busbw_GBps),
                     ra.algorithm, ra.bottleneck, _time(rb.time_us), _bw(rb.busbw_GBps),
                     rb.algorithm, rb.bottleneck))
    return "\n".join(head) + table(rows, ("size", "A time", "A busbw", "A algorithm", "A bottleneck",
                                          "B time", "B busbw", "B algorithm", "B bottleneck"))


def _params(n: float) -> str:
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:,.4g}{unit}"
    return f"{n:,.0f}"


def training_summary(name: str, st: StepEstimate) -> str:
    if st.workload is not None:
        return _workload_summary(name, st)
    head = [
        ("Design", name),
        ("Model", f"{_params(st.params)} parameters x {st.bytes_per_grad} B gradients"),
        ("Parallelism", f"{st.gpus:,} GPUs, data-parallel {st.dp_degree:,} x model-parallel {st.model_parallel}"),
        ("Gradients per GPU", f"{st.grad_bytes / 2**30:,.2f} GiB in {st.buckets:,} bucket(s) of "
                              f"{st.bucket_bytes / 2**20:g} MiB"),
        ("All-reduce per bucket", f"{st.algorithm}/{st.protocol}, busbw {st.busbw_GBps:,.1f} GB/s, "
                                  f"limited by {st.bottleneck}"),
        ("Communication per step", f"{st.comm_ms:,.1f} ms ({st.exposed_comm_ms:,.1f} ms not overlapped)"),
        ("Step time", f"{st.step_ms:,.1f} ms = {st.compute_ms:,.1f} ms compute + communication"),
        ("Communication share", f"{st.comm_share:.1%}"),
    ]
    advice = st.advice.lines() if st.advice else []
    return "\n".join([table(head), "", "Advice (heuristic):", *[f"  {line}" for line in advice]])


def _workload_summary(name: str, st: StepEstimate) -> str:
    w, p, m = st.workload, st.plan, st.memory
    assert w is not None and p is not None and m is not None  # the workload view carries all three
    head = [
        ("Design", name),
        ("Workload", f"{w.name}: {_params(w.params)} parameters ({_params(w.active_params)} active)"),
        ("Plan", f"{st.gpus:,} GPUs = TP {p.tp} x PP {p.pp} x DP {p.dp}" + (f", EP {p.ep}" if p.ep > 1 else "")
                 + f"; ZeRO-{p.zero}; {p.micro_batches:,} micro-batches per step"),
        ("Memory per GPU", f"{m.total / 1e9:,.1f} of {m.capacity / 1e9:,.0f} GB ({m.gpu}): weights "
                           f"{m.weights / 1e9:,.1f}, gradients {m.gradients / 1e9:,.1f}, optimizer "
                           f"{m.optimizer / 1e9:,.1f}, activations {m.activations / 1e9:,.1f}"),
        ("Compute per step", f"{st.compute_ms:,.1f} ms (6 x active parameters x tokens at {st.mfu:.0%} MFU, "
                             "a heuristic)"),
        ("Batch", f"{w.global_batch_tokens:,} tokens per step, micro-batch {w.micro_batch}: {p.batch_basis}"),
        ("Pipeline", f"{SCHEDULE_NAMES.get(p.schedule, p.schedule)}"
                     + (f" with {p.virtual_stages} virtual stages" if p.virtual_stages > 1 else "")
                     + f": bubble {st.bubble_ms:,.1f} ms = (PP - 1) / ("
                     + ("virtual stages x " if p.virtual_stages > 1 else "") + "micro-batches) of the compute, "
                     f"{st.bubble_ms / st.step_ms if st.step_ms else 0:.0%} of the step"),
    ]
    rows = [(c.name, c.where, f"{c.count:,}", size_label(c.bytes_each), c.algorithm, f"{c.time_ms:,.1f}",
             f"{c.time_ms - c.exposed_ms:,.1f}") for c in st.collectives]
    tail = [("Communication per step", f"{st.comm_ms:,.1f} ms ({st.exposed_comm_ms:,.1f} ms not overlapped)"),
            ("Step time", f"{st.step_ms:,.1f} ms = {st.compute_ms:,.1f} ms compute + {st.bubble_ms:,.1f} ms "
                          "pipeline bubble + exposed communication"),
            ("Communication share", f"{st.comm_share:.1%}")]
    return "\n".join([table(head), "", table(rows, ("collective", "where", "per step", "size", "algorithm",
                                                    "time ms", "overlapped ms")),
                      "", table(tail), "", "Sources: " + w.source, "Plan: " + w.plan_source, "",
                      "Advice (heuristic):", *[f"  {line}" for line in (st.advice.lines() if st.advice else [])]])


def _time(us: float) -> str:
    return duration_label(us, micro="us")  # plain ASCII for terminals and scripts
