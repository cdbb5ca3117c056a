"""`fabric-designer audit`: a fabric capture against its inferred design or a design file."""

from __future__ import annotations

import argparse
import csv
import io
from typing import Any

from designer.cli.common import SubParsers, output_file, print_json, table
from designer.io.atomic import write_atomic
from designer.io.fabric_capture import load_capture
from designer.io.project import load_design
from designer.model.decisions.audit import KEYS, AuditReport, audit, impact_lines
from designer.model.topology.inference import infer_design


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("audit", help="audit a fabric capture against a design",
                       description="Missing devices and links, extra, miswired and degraded links, unnamed "
                                   "devices and their effect on bisection, oversubscription and collectives.")
    p.add_argument("file", help="capture file (ibnetdiscover, LLDP JSON or CSV)")
    p.add_argument("--against", metavar="DESIGN", help="project file to audit against (default: the inferred design)")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.add_argument("--csv", metavar="OUT", type=output_file, help="write one row per finding to OUT")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    design = load_design(args.against) if args.against else None
    fabric = load_capture(args.file)
    inference = infer_design(fabric)
    report = audit(fabric, design=design, inference=inference)
    if args.csv:
        write_atomic(args.csv, findings_csv(report))
    if args.json:
        print_json(report.to_json())
    else:
        print(summary(report))
    return 0


def _end(e: dict[str, Any]) -> str:
    place = ", ".join(f"{k} {e[k]}" for k in ("tier", "su", "rail") if e.get(k) is not None)
    return f"{e['device']} port {e['port']}" + (f" ({place})" if place else "")


def _describe(kind: str, e: dict[str, Any]) -> str:
    if "a" in e:
        text = f"{_end(e['a'])} -- {_end(e['b'])}"
        for key in ("pair_links", "as_built", "reason"):
            if e.get(key):
                text += f"; {key.replace('_', ' ')}: {e[key]}"
        return text
    return f"{e['device']}" + (f" ({e.get('description')})" if e.get("description") else "")


def findings_csv(report: AuditReport) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["kind", "a_device", "a_port", "a_tier", "a_su", "a_rail", "b_device", "b_port", "b_tier",
                "b_su", "b_rail", "detail"])
    for kind, e in report.rows():
        a, b = e.get("a", e), e.get("b", {})
        detail = e.get("reason") or e.get("as_built") or e.get("pair_links") or e.get("description") or ""
        w.writerow([kind, a.get("device"), a.get("port", ""), a.get("tier") or "", a.get("su") or "",
                    a.get("rail") or "", b.get("device", ""), b.get("port", ""), b.get("tier") or "",
                    b.get("su") or "", b.get("rail") or "", detail])
    return buf.getvalue()


def summary(report: AuditReport) -> str:
    out = []
    facts = report.inferred.get("facts", [])
    if facts:
        out.append(table([(f["subject"], f["value"], f["confidence"], f["why"]) for f in facts],
                         ("inferred", "value", "confidence", "why")))
    out += [f"note: {p}" for p in report.inferred.get("problems", [])]
    for key in KEYS[1:-1]:
        entries = getattr(report, key)
        out.append(f"\n{key.replace('_', ' ')}: {len(entries)}")
        out += [f"  {_describe(key, e)}" for e in entries[:50]]
        if len(entries) > 50:
            out.append(f"  ... and {len(entries) - 50} more (see --json or --csv)")
    if report.impact:
        out.append("\nimpact (designed -> as built):")
        out += [f"  {line}" for line in impact_lines(report.impact)]
    return "\n".join(out)
