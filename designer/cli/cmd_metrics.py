"""`fabric-designer metrics`: the fabric's counts, oversubscription, bisection and findings."""

from __future__ import annotations

import argparse

from designer.cli.common import SubParsers, print_json, table
from designer.io.project import load_design
from designer.limits import terminal_text
from designer.model.common.units import bandwidth_label, ratio_label
from designer.model.topology.derive import derive
from designer.model.topology.metrics import Metrics


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("metrics", help="print a design's metrics",
                       description="Switch and link counts, ports, oversubscription, bisection, hops, "
                                   "headroom and findings of a design.")
    p.add_argument("file", help="project file")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    design = load_design(args.file)
    metrics = derive(design).metrics
    if args.json:
        out = metrics.to_json()
        # The ratios asked for, beside the achieved ones under "oversubscription".
        out["oversubscription_requested"] = {t: design.fabric.tier(t).oversubscription for t in ("leaf", "spine")}
        print_json(out)
    else:
        print(summary(metrics))
    return 1 if metrics.errors else 0


def _ratio(value: float | None) -> str:
    return ratio_label(value, "-")


def summary(m: Metrics) -> str:
    head = [
        ("Design", terminal_text(m.name)),   # a name cannot forge a line of the figures below
        ("Fabric", f"{m.template}, {m.tiers} tiers, "
                   # a rail-only fabric is one fabric per rail (and plane), with no spine between them
                   + (f"{m.planes} rail fabrics" if m.template == "rail-only" else f"{m.planes} plane(s)")
                   + f", {m.technology}"),
        ("GPUs / servers / endpoints", f"{m.gpus:,} / {m.servers:,} / {m.endpoints:,}"),
        ("Network per GPU", f"{bandwidth_label(m.gbps_per_gpu)} ({m.endpoints // max(m.servers, 1)} x "
                            f"{m.link_gbps}G per {m.gpus // max(m.servers, 1)}-GPU server)"),
        ("Bisection", f"{bandwidth_label(m.bisection_gbps)} ({m.bisection_ratio:.0%} of full, {m.bisection_method})"),
        ("Max switch hops", f"{m.max_hops} (same rail: {m.max_hops_same_rail})"),
        ("Growth headroom", f"{m.headroom_gpus:,} GPUs before {m.headroom_limit}"),
    ]
    rows = []
    for tier, tp in m.ports_by_tier.items():
        rows.append((tier, tp.switches, tp.ports_used, tp.ports_free,
                     _ratio(tp.oversubscription_worst), _ratio(tp.oversubscription_mean)))
    links = [(tier, n) for tier, n in m.links_by_tier.items()]
    out = [table(head), "", table(rows, ("tier", "switches", "ports used", "ports free",
                                         "oversub worst", "oversub mean")),
           "", table(links + [("total", m.links_total)], ("links", "count"))]
    if m.findings:
        out += ["", "Findings:"] + [f"  {f.severity:7} {f.message}" for f in m.findings]
    return "\n".join(out)
