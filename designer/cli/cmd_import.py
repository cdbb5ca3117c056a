"""`fabric-designer import`: a fabric capture (ibnetdiscover, LLDP) as a project file.

The project holds the inferred design plus the differences of the capture as edits, so its
graph is the fabric as built.
"""

from __future__ import annotations

import argparse
import sys

from designer.cli.common import SubParsers, output_file
from designer.cli.parser import one_line
from designer.io.fabric_capture import as_built_design, read_answer
from designer.io.project import save_design
from designer.model.decisions.audit_summary import inferred_lines
from designer.model.topology.inference_corrections import parse_corrections


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("import", help="read a fabric capture into a project file",
                       description="Read ibnetdiscover output, lldpctl/Cumulus LLDP JSON or an LLDP CSV, "
                                   "infer the design and write it with the differences as edits.")
    p.add_argument("file", help="capture file")
    p.add_argument("-o", "--output", required=True, type=output_file, help="project file to write")
    p.add_argument("--names", metavar="MAP", help="GUID name map for HCAs with default descriptions "
                   "('H-0002c90300080e84 host1' lines; default: CAPTURE's name with .map, when there is one)")
    p.add_argument("--set", dest="corrections", action="append", default=[], metavar="KEY=VALUE",
                   help="correct an inferred figure before the audit: server=dgx-h100, servers=N, "
                        "nodes_per_su=N, rails=N, spines=N (repeatable)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    corrections = parse_corrections(getattr(args, "corrections", None) or [])
    answer = read_answer(args.file, corrections=corrections,
                         names=getattr(args, "names", None))
    for note in answer.fabric.notes:  # on stderr, beside the summary on stdout
        print(f"fabric-designer import: note: {one_line(note)}", file=sys.stderr)
    design = as_built_design(answer, args.file)
    report = answer.report
    save_design(design, args.output)
    for line in inferred_lines(report):
        print(line)
    counts = ", ".join(f"{len(getattr(report, k))} {k.replace('_', ' ')}" for k in
                       ("missing_devices", "missing_links", "swapped", "extra_links", "miswired", "degraded_links"))
    print(f"{args.output}: {design.fabric.template}, {design.cluster.servers} servers, "
          f"{len(report.edits)} edit(s) ({counts})")
    return 0
