"""`fabric-designer report`: a multi-page PDF about a design, for reviewers without the tool."""

from __future__ import annotations

import argparse

from designer.catalog import default_catalog
from designer.cli.cmd_render import check_output
from designer.cli.common import SubParsers, check_design_memory, output_file
from designer.io.project import load_design

# The parser lists the counterpart choices; the sizing and pricing a counterpart takes load in `run`.
from designer.model.decisions.counterpart_choices import COUNTERPART_TECHNOLOGIES, ETHERNET_CHOICES, expand_counterparts


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("report", help="write a PDF report: diagram, metrics, BOM, collectives, comparison",
                       description="A multi-page PDF: overview with the diagram and key metrics, a detail "
                                   "diagram, the metrics summary, the bill of materials, the collective "
                                   "curves, and a comparison when given a second design. Works without a display.")
    p.add_argument("file", help="project file")
    p.add_argument("-o", "--output", required=True, type=output_file, help="PDF file to write")
    other = p.add_mutually_exclusive_group()
    other.add_argument("--compare", metavar="FILE2", help="compare with this second project file")
    other.add_argument("--counterpart", choices=(*COUNTERPART_TECHNOLOGIES, "ethernet"),
                       help="compare with the same cluster built on this technology ('ethernet': on each of "
                            + ", ".join(ETHERNET_CHOICES) + ")")
    p.add_argument("--page", choices=("a4", "letter"), default="a4", help="paper size, landscape (default a4)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out, _ = check_output(args.output, {".pdf": "pdf"})
    catalog = default_catalog()
    design = load_design(args.file)
    other = load_design(args.compare) if args.compare else None
    from designer.model.topology.derive import derive

    for each in (design, other) if other else (design,):
        check_design_memory(derive(each, catalog), "the report")
    notes: tuple[str, ...] = ()
    extra = []
    if args.counterpart:
        from designer.model.decisions.counterpart import make_counterpart

        made = [make_counterpart(design, tech, catalog) for tech in expand_counterparts([args.counterpart])]
        other, extra = made[0].design, [m.design for m in made[1:]]
        notes = tuple(n for m in made for n in m.notes)
    from designer.ui.export.headless import ensure_gui_application

    ensure_gui_application()
    from designer.ui.export.report import export_report

    report = export_report(design, out, other, catalog, args.page, extra=tuple(extra))
    sections = report.sections
    print(f"wrote {out}: {len(sections)} pages ({'; '.join(sections)})")
    for note in notes:
        print(f"  counterpart: {note}")
    return 0
