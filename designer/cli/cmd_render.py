"""`fabric-designer render`: the diagram of a design as SVG, PDF or PNG, without a window."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from designer.cli.common import CommandError, SubParsers, bounded_int, output_file
from designer.io.project import load_design

if TYPE_CHECKING:
    from designer.model.intent.design import FabricDesign
    from designer.model.intent.slides import Slide

FORMATS = {".svg": "svg", ".pdf": "pdf", ".png": "png"}
# ASCII digits only, as every numeric option (cli_number); \Z refuses a trailing newline.
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*[xX×]\s*([0-9]+(?:\.[0-9]+)?)\s*(in)?\s*\Z", re.ASCII)
_VIEW = re.compile(r"(fabric|su|plane|slide)(?::([0-9]+))?\Z", re.ASCII)


def page_size(text: str) -> tuple[float, float]:
    """'13.333x7.5' -> (13.333, 7.5) inches."""
    match = _SIZE.match(text) if len(text) <= 40 else None
    if not match:
        raise argparse.ArgumentTypeError(f"malformed size '{text[:40]}' (use WIDTHxHEIGHT in inches, e.g. 13.333x7.5)")
    return float(match.group(1)), float(match.group(2))


def view_spec(text: str) -> tuple[str, int | None]:
    """'fabric', 'su:3', 'plane:2' or 'slide:1'."""
    match = _VIEW.match(text.strip().lower()) if len(text) <= 20 else None
    if not match or (match.group(1) != "fabric" and match.group(2) is None) or match.group(2) == "0":
        raise argparse.ArgumentTypeError(f"malformed view '{text[:40]}' (use fabric, su:N, plane:N or slide:N;"
                                         f" N from 1)")
    return match.group(1), int(match.group(2)) if match.group(2) else None


def check_output(path: str, allowed: dict[str, str]) -> tuple[Path, str]:
    """The output path and its format; refuses unknown types and unwritable places before any work."""
    out = Path(path)
    if out.is_dir():
        raise CommandError(f"{out} is a folder; give a file name")
    known = ", ".join(allowed) if len(allowed) < 3 else ", ".join(list(allowed)[:-1]) + f" or {list(allowed)[-1]}"
    if not out.suffix:
        raise CommandError(f"give the output file an extension: {known}")
    kind = allowed.get(out.suffix.lower())
    if kind is None:
        raise CommandError(f"cannot write {out.suffix} files: use {known}")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise CommandError(f"folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise CommandError(f"cannot write to {out}: permission denied")
    return out, kind


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("render", help="draw the fabric diagram as SVG, PDF or PNG",
                       description="Draw the design's diagram (title line, fabric, legend) as vector SVG or PDF, "
                                   "or as PNG at a chosen DPI. Large fabrics are drawn aggregated by SU or pod. "
                                   "Works without a display.")
    p.add_argument("file", help="project file")
    p.add_argument("-o", "--output", required=True, type=output_file, help="output file: .svg, .pdf or .png")
    p.add_argument("--dpi", type=bounded_int(1, 2**31), default=200,
                   help="PNG resolution in dots per inch (default 200; PNG only)")
    p.add_argument("--size", type=page_size, default=None, metavar="WxH",
                   help="picture size in inches (default 13.333x7.5, a 16:9 slide)")
    p.add_argument("--view", type=view_spec, default=("fabric", None), metavar="VIEW",
                   help="fabric (default), su:N, plane:N, or slide:N for the design's N-th slide (its saved "
                        "slides, else the default slides presentation mode shows)")
    p.add_argument("--no-title", action="store_true", help="leave out the title line above the diagram")
    p.add_argument("--links", choices=("bundles", "each"), default="bundles",
                   help="bundles (default): the links between two tiers as one labelled bundle per SU or pod "
                        "and switch above ('16 x 400G to each spine'), SUs framed, rails in colour; each: one line "
                        "per pair of drawn boxes, link by link")
    p.set_defaults(run=run)


def pick_slide(design: FabricDesign, derived_planes: int, columns: int, noun: str,
               view: tuple[str, int | None], defaults: tuple[Slide, ...] = ()) -> Slide | None:
    """The Slide a --view asks for; refuses SUs, planes and slides the design does not have.
    A design with no saved slides has the `defaults` presentation mode shows."""
    from designer.model.intent.slides import Slide

    kind, n = view
    if kind == "fabric" or n is None:  # only the whole fabric comes without a number
        return None
    if kind == "slide":
        slides = design.slides or defaults
        if n > len(slides):
            have = f"only {len(slides)}" if slides else "none"
            which = "" if design.slides else " default"
            raise CommandError(f"the design has no{which} slide {n} (it has {have})")
        slide = slides[n - 1]
        if slide.kind == "comparison":
            raise CommandError(f"slide {n} is a comparison; render draws one design (use `fabric-designer report "
                               "--compare`)")
        if slide.kind == "su" and slide.su is not None:
            kind, n = "su", slide.su
        elif slide.kind == "plane" and slide.plane is not None:
            kind, n = "plane", slide.plane
        else:
            return slide
    if kind == "su" and n > columns:
        raise CommandError(f"{noun} {n} does not exist: the fabric has {columns} {noun}{'s' if columns != 1 else ''}"
                           if columns > 1 else "the fabric is not divided into SUs or pods")
    if kind == "plane" and n > derived_planes:
        raise CommandError(f"plane {n} does not exist: the fabric has {derived_planes} plane(s)")
    return Slide(kind="su", su=n) if kind == "su" else Slide(kind="plane", plane=n)


def run(args: argparse.Namespace) -> int:
    out, kind = check_output(args.output, FORMATS)
    design = load_design(args.file)
    from designer.ui.export.headless import ensure_gui_application

    ensure_gui_application()
    from designer.ui.export.diagram import DiagramSource
    from designer.ui.export.figure import DEFAULT_HEIGHT_IN, DEFAULT_WIDTH_IN, Figure, FigureSpec

    width, height = args.size or (DEFAULT_WIDTH_IN, DEFAULT_HEIGHT_IN)
    source = DiagramSource(design)
    from designer.model.intent.slides import default_slides

    defaults = default_slides(source.plan.template, source.plan.tiers, source.columns, source.plan.sus, source.planes)
    slide = pick_slide(design, source.planes, source.columns, source.column_noun, args.view, defaults)
    figure = Figure(design, FigureSpec(width, height, slide, not args.no_title, args.links))
    if kind == "svg":
        from designer.ui.export.svg import export_svg

        export_svg(figure, out)
        print(f"wrote {out} (SVG, {width:g} x {height:g} in)")
    elif kind == "pdf":
        from designer.ui.export.pdf import export_pdf

        export_pdf(figure, out)
        print(f"wrote {out} (PDF, {width:g} x {height:g} in)")
    else:
        from designer.ui.export.png import export_png, png_size

        export_png(figure, out, args.dpi)
        w, h = png_size(figure, args.dpi)
        print(f"wrote {out} (PNG, {w:,} x {h:,} px at {args.dpi} dpi)")
    return 0
