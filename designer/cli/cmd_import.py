"""`fabric-designer import`: a fabric capture (ibnetdiscover, LLDP) as a project file.

The project holds the inferred design plus the differences of the capture as edits, so its
graph is the fabric as built.
"""

from __future__ import annotations

import dataclasses

from designer.cli.common import CommandError
from designer.io.fabric_capture import load_capture
from designer.io.project import save_design
from designer.model.decisions.audit import audit
from designer.model.topology.inference import infer_design


def add_parser(sub) -> None:
    p = sub.add_parser("import", help="read a fabric capture into a project file",
                       description="Read ibnetdiscover output, lldpctl/Cumulus LLDP JSON or an LLDP CSV, "
                                   "infer the design and write it with the differences as edits.")
    p.add_argument("file", help="capture file")
    p.add_argument("-o", "--output", required=True, help="project file to write")
    p.set_defaults(run=run)


def import_capture(path: str):
    """(as-built design, inference, audit report) of a capture; raises CommandError when no design fits."""
    fabric = load_capture(path)
    inference = infer_design(fabric, name=f"As built: {path.rsplit('/', 1)[-1]}")
    if inference.design is None:
        raise CommandError(f"{path}: {inference.problems[0] if inference.problems else 'no design fits'}")
    report = audit(fabric, inference=inference)
    design = dataclasses.replace(inference.design, edits=inference.design.edits + report.edits)
    return design, inference, report


def run(args) -> int:
    design, inference, report = import_capture(args.file)
    save_design(design, args.output)
    counts = ", ".join(f"{len(getattr(report, k))} {k.replace('_', ' ')}" for k in
                       ("missing_devices", "missing_links", "extra_links", "miswired", "degraded_links"))
    print(f"{args.output}: {design.fabric.template}, {design.cluster.servers} servers, "
          f"{len(report.edits)} edit(s) ({counts})")
    return 0
