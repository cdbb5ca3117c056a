"""`fabric-designer audit`: a fabric capture against its inferred design or a design file.

The text output is what a technician reads first: the summary (absent switches and servers,
missing uplinks by leaf, host ports down by server, swaps, miswires, extra, degraded and unnamed
devices), the impact, then the detail grouped by device with --detail. It fits one screen at any
fabric size; --csv and --json carry every finding.
"""

from __future__ import annotations

import argparse

from designer.cli.common import SubParsers, output_file, print_json
from designer.io.audit_csv import findings_csv, write_findings_csv
from designer.io.fabric_capture import load_capture
from designer.io.project import load_design
from designer.model.decisions.audit import AuditReport, audit, impact_lines
from designer.model.decisions.audit_summary import detail_groups, detail_lines, summary_lines
from designer.model.topology.inference import infer_design

__all__ = ["add_parser", "run", "summary", "findings_csv"]


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("audit", help="audit a fabric capture against a design",
                       description="Missing devices and links, swapped, miswired, extra and degraded links, unnamed "
                                   "devices and their effect on bisection, oversubscription and collectives: a "
                                   "summary first, the detail by device with --detail.")
    p.add_argument("file", help="capture file (ibnetdiscover, LLDP JSON or CSV)")
    p.add_argument("--against", metavar="DESIGN", help="project file to audit against (default: the inferred design)")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.add_argument("--csv", metavar="OUT", type=output_file, help="write one row per finding to OUT")
    p.add_argument("--detail", action="store_true", help="after the summary, list every finding grouped by device")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    design = load_design(args.against) if args.against else None
    fabric = load_capture(args.file)
    inference = infer_design(fabric)
    report = audit(fabric, design=design, inference=inference)
    if args.csv:
        write_findings_csv(report, args.csv)
    if args.json:
        print_json(report.to_json())
    else:
        print(summary(report, detail=getattr(args, "detail", False)))
    return 0


def _inferred_lines(report: AuditReport) -> list[str]:
    facts = report.inferred.get("facts", [])
    if not facts:
        return []
    parts = [f"{f['subject']} {f['value']} ({f['confidence']})" for f in facts]
    lines: list[str] = []
    line = "Inferred:"
    for part in parts:
        if len(line) + len(part) + 2 > 110:
            lines.append(line)
            line = "   "
        line += (" " if line.endswith(":") or line == "   " else "; ") + part
    return lines + [line]


def summary(report: AuditReport, detail: bool = False) -> str:
    out = _inferred_lines(report)
    out += [f"note: {p}" for p in report.inferred.get("problems", [])]
    out += ["", "Summary"] + [f"  {line}" for line in summary_lines(report)]
    if report.summary.get("link_speeds"):
        out.append(f"  Link speeds: {report.summary['link_speeds']}")
    impact = impact_lines(report.impact) if report.impact else []
    if impact:
        out += ["", "Impact (designed -> as built)"] + [f"  {line}" for line in impact]
    groups = detail_groups(report)
    rows = sum(len(r) for _, r in groups)
    if detail:
        out += ["", "Detail, by device (SU, then port)"] + detail_lines(report)
    elif rows:
        out += ["", f"{rows:,} finding(s) on {len(groups):,} device(s): --detail lists them by device; "
                    "--csv and --json carry every one"]
    return "\n".join(out)
