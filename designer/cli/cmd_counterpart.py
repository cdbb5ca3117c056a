"""`fabric-designer counterpart`: the same cluster on another fabric technology."""

from __future__ import annotations

import argparse

from designer.catalog import default_catalog
from designer.cli.common import CommandError, SubParsers, check_design_memory, check_project_target, output_file
from designer.io.project import load_design, save_design
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES, make_counterpart
from designer.model.topology.derive import derive


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("counterpart", help="make the same cluster on another technology",
                       description="Keep the servers, GPUs, template and oversubscription; pick switches, "
                                   "NICs and link speeds of the target technology from the catalog.")
    p.add_argument("file", help="project file")
    p.add_argument("--technology", required=True, choices=COUNTERPART_TECHNOLOGIES)
    p.add_argument("-o", "--output", required=True, type=output_file, help="project file to write")
    p.add_argument("--force", action="store_true",
                   help="replace the output file even if it is not a Fabric Designer project")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = check_project_target(args.output, args.force)
    catalog = default_catalog()
    original = load_design(args.file)
    check_design_memory(derive(original, catalog), "the counterpart")   # it is sized and priced anew
    result = make_counterpart(original, args.technology, catalog)
    derived = derive(result.design, catalog)
    if derived.metrics.errors:
        raise CommandError(derived.metrics.errors[0].message)
    save_design(result.design, out)
    m = derived.metrics
    print(f"wrote {args.output}: {m.gpus:,} GPUs on {derived.resolved.technology.name}, "
          f"{m.switches_total:,} switches, bisection {m.bisection_ratio:.0%} of full")
    for note in result.notes:
        print(f"  note: {note}")
    return 0
