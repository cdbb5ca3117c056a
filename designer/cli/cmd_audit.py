"""`fabric-designer audit`: a fabric capture against its inferred design or a design file.

The text output is what a technician reads first: the summary (absent switches and servers,
missing uplinks by leaf, host ports down by server, swaps, miswires, extra, degraded and unnamed
devices), the impact, then the detail grouped by device with --detail. It fits one screen at any
fabric size; --csv and --json carry every finding.
"""

from __future__ import annotations

import argparse
import sys

from designer.cli.common import SubParsers, output_file, print_json
from designer.cli.parser import one_line
from designer.io.audit_csv import findings_csv, write_findings_csv
from designer.io.fabric_capture import read_answer
from designer.io.project import load_design
from designer.model.decisions.audit import AuditReport, impact_lines
from designer.model.decisions.audit_summary import detail_groups, detail_lines, inferred_lines, summary_lines
from designer.model.topology.inference_corrections import parse_corrections

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
    p.add_argument("--names", metavar="MAP", help="GUID name map for HCAs with default descriptions "
                   "('H-0002c90300080e84 host1' lines; default: CAPTURE's name with .map, when there is one)")
    p.add_argument("--set", dest="corrections", action="append", default=[], metavar="KEY=VALUE",
                   help="correct an inferred figure before the audit: server=dgx-h100, servers=N, "
                        "nodes_per_su=N, rails=N, spines=N (repeatable)")
    p.add_argument("--detail", action="store_true", help="after the summary, list every finding grouped by device")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    corrections = parse_corrections(getattr(args, "corrections", None) or [])
    design = load_design(args.against) if args.against else None
    answer = read_answer(args.file, against=design, corrections=corrections,
                         names=getattr(args, "names", None))
    for note in answer.fabric.notes:  # on stderr, so that --json stays one document
        print(f"fabric-designer audit: note: {one_line(note)}", file=sys.stderr)
    report = answer.report
    if args.csv:
        write_findings_csv(report, args.csv)
    if args.json:
        print_json(report.to_json())
    else:
        print(summary(report, detail=getattr(args, "detail", False)))
    return 0


def summary(report: AuditReport, detail: bool = False) -> str:
    out = inferred_lines(report)
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
