"""`fabric-designer import` and `fabric-designer audit`: a captured fabric against its design.

`import` reads a capture (ibnetdiscover text), infers the design it was built from and writes
a project file: the inferred design with the differences applied as edits. `audit` lists every
missing, extra, miswired or degraded link, against a design file or the inferred design.
"""

from __future__ import annotations

import json
from pathlib import Path

from designer.catalog import default_catalog
from designer.cli.common import CommandError, print_json, table
from designer.io import ibnetdiscover
from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv
from designer.io.project import load_design, save_design
from designer.model.decisions.audit import DEFAULT_PATTERN, Audit, audit, audit_without_design
from designer.model.topology.as_built import InferenceError, infer


def add_parser(sub) -> None:
    p = sub.add_parser("import", help="read a fabric capture (ibnetdiscover) as a design",
                       description="Read an ibnetdiscover capture, infer the design it was built from, and "
                                   "write it as a project file with the differences as edits.")
    p.add_argument("file", metavar="FILE", help="ibnetdiscover output")
    p.add_argument("-o", "--output", required=True, help="project file to write")
    p.add_argument("--node-pattern", default=DEFAULT_PATTERN, help="host names of the servers, as exported")
    p.set_defaults(run=run_import)
    a = sub.add_parser("audit", help="audit a fabric capture against its design",
                       description="Missing, extra, miswired and degraded links and devices of a captured "
                                   "fabric, against a design file or the design inferred from the capture.")
    a.add_argument("file", metavar="FILE", help="ibnetdiscover output")
    a.add_argument("--against", metavar="DESIGN", help="the design file to audit against (default: inferred)")
    a.add_argument("--node-pattern", default=DEFAULT_PATTERN, help="host names of the servers, as exported")
    a.add_argument("--json", action="store_true")
    a.add_argument("--csv", metavar="OUT", help="also write the findings as CSV")
    a.set_defaults(run=run_audit)


def _audit(args) -> Audit:
    catalog = default_catalog()
    try:
        asb = ibnetdiscover.to_as_built(ibnetdiscover.read(args.file))
    except ibnetdiscover.CaptureError as exc:
        raise CommandError(str(exc)) from None
    if not asb.links:
        raise CommandError(f"{args.file}: the capture holds no links: an empty fabric, nothing to audit")
    if getattr(args, "against", None):
        design = load_design(args.against)
        inferred = {"against": str(args.against)}
    else:
        try:
            inference = infer(asb, catalog)
        except InferenceError as exc:
            if getattr(args, "output", None):
                raise CommandError(f"{exc}; nothing written") from None
            result = audit_without_design(asb, exc.facts, str(exc))
            result.notes = list(asb.notes) + result.notes
            return result
        design, inferred = inference.design, inference.to_json()
    result = audit(design, asb, catalog, args.node_pattern, inferred)
    result.notes = list(asb.notes) + result.notes
    return result


def run_import(args) -> int:
    result = _audit(args)
    out = Path(args.output)
    save_design(result.as_built, out)
    print(f"wrote {out}: {result.findings} finding(s) against the inferred design, "
          f"{result.impact.get('edits', 0)} edit(s)")
    for note in result.notes:
        print(f"note: {note}")
    return 0


def _where(end: dict) -> str:
    place = end.get("place", {})
    bits = [f"{k.replace('su_or_pod', 'SU/pod')} {v}" for k, v in place.items() if k != "tier"]
    port = f" port {end['port']}" if end.get("port") is not None else ""
    return f"{end['device']}{port} ({place.get('tier', '?')}{', ' + ', '.join(bits) if bits else ''})"


def rows(result: Audit) -> list[tuple]:
    out = []
    for m in result.missing_devices:
        out.append(("missing device", _where(m), "", ""))
    for m in result.missing_links:
        out.append(("missing link", _where(m["a"]), _where(m["b"]), f"x{m['count']}"))
    for m in result.extra_links:
        out.append(("extra link", _where(m["a"]), _where(m["b"]), f"x{m['count']}"))
    for m in result.miswired:
        out.append(("miswired", _where(m["end"]), f"to {_where(m['found'])}, designed {_where(m['expected'])}",
                    "wrong " + "/".join(m["wrong"])))
    for m in result.degraded_links:
        out.append(("degraded link", _where(m["a"]), _where(m["b"]),
                    f"{m['label']}: {m['built_gbps']:g}G of {m['designed_gbps']:g}G"))
    for m in result.unnamed_devices:
        out.append(("unnamed device", m["device"], m["description"], ""))
    return out


def run_audit(args) -> int:
    result = _audit(args)
    if args.csv:
        write_atomic(args.csv, rows_to_csv([["Finding", "End A", "End B", "Detail"], *map(list, rows(result))]),
                     encoding=ENCODING)
    if args.json:
        print_json(result.to_json())
        return 0
    found = rows(result)
    print(f"{len(found)} finding(s)" + (":" if found else ""))
    if found:
        print(table(found, ("finding", "a", "b", "detail")))
    imp = result.impact
    if imp.get("bisection_gbps_built") is not None:
        print(f"bisection as built {imp['bisection_gbps_built'] / 1000:,.1f} Tb/s of "
              f"{imp['bisection_gbps_designed'] / 1000:,.1f} Tb/s designed")
    for note in result.notes:
        print(f"note: {note}")
    if result.inferred and "facts" in result.inferred:
        print("inferred: " + json.dumps({k: v for k, v in result.inferred.items() if k != "facts"}))
    return 0
