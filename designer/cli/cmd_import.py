"""`fabric-designer import`: a fabric capture (ibnetdiscover, LLDP) as a project file.

The project holds the inferred design plus the differences of the capture as edits, so its
graph is the fabric as built.
"""

from __future__ import annotations

import argparse
import sys

from designer.cli.common import SubParsers, output_file
from designer.cli.parser import one_line
from designer.io.fabric_capture import import_capture
from designer.io.project import save_design


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("import", help="read a fabric capture into a project file",
                       description="Read ibnetdiscover output, lldpctl/Cumulus LLDP JSON or an LLDP CSV, "
                                   "infer the design and write it with the differences as edits.")
    p.add_argument("file", help="capture file")
    p.add_argument("-o", "--output", required=True, type=output_file, help="project file to write")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    notes: list[str] = []
    design, inference, report = import_capture(args.file, notes=notes)
    for note in notes:
        print(f"fabric-designer import: note: {one_line(note)}", file=sys.stderr)
    save_design(design, args.output)
    counts = ", ".join(f"{len(getattr(report, k))} {k.replace('_', ' ')}" for k in
                       ("missing_devices", "missing_links", "swapped", "extra_links", "miswired", "degraded_links"))
    print(f"{args.output}: {design.fabric.template}, {design.cluster.servers} servers, "
          f"{len(report.edits)} edit(s) ({counts})")
    return 0
