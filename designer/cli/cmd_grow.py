"""`fabric-designer grow`: the phases of a build-out, their BOM deltas, and where recabling begins."""

from __future__ import annotations

import argparse

from designer.cli.common import CommandError, SubParsers, positive_int, print_json, table
from designer.io.project import load_design
from designer.limits import InputError, cli_number, quote
from designer.model.decisions.growth import Growth, GrowthError, GrowthPath, grow
from designer.model.intent.design import FabricDesign


def _phase_list(text: str) -> list[int]:
    try:
        values = [cli_number(v, "", 0, 2**31, whole=True) for v in text.split(",") if v.strip()]
    except InputError:
        raise argparse.ArgumentTypeError(f"expected whole numbers in plain digits separated by commas, "
                                         f"got {quote(text, 60)}") from None
    if not values:
        raise argparse.ArgumentTypeError("give at least one phase, e.g. 4,8,16")
    return values


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("grow", help="plan a phased build-out to a target size",
                       description="Size the design for each phase, list what each phase buys and cables, "
                                   "which spine and core ports are reserved, whether the path needs "
                                   "recabling and where, and the alternative that avoids it, priced.")
    p.add_argument("file", help="project file")
    p.add_argument("--to-gpus", type=positive_int, metavar="N",
                   help="final GPU count (default: the target stored in the design)")
    p.add_argument("--phases", type=_phase_list, metavar="A,B,C",
                   help="phase sizes: SUs for rail-optimized designs, GPUs otherwise (default: the "
                        "phases stored in the design, else the design's size doubling up to the target)")
    p.add_argument("--ignore-stored", action="store_true",
                   help="ignore the target and phases stored in the design")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.set_defaults(run=run)


def plan_from(design: FabricDesign, to_gpus: int | None, phases: list[int] | None,
              ignore_stored: bool = False) -> tuple[int, list[int] | None, dict[str, str]]:
    """The target and phases to grow: the command line's, else the ones stored in the design."""
    stored = design.growth if not ignore_stored else None
    source = {"target": "command line", "phases": "command line"}
    if to_gpus is None:
        if stored is None or stored.target_gpus is None:
            raise CommandError("give --to-gpus N: the design stores no target size")
        to_gpus, source["target"] = stored.target_gpus, "design"
    if phases is None:
        if stored is not None and stored.phases:
            phases, source["phases"] = list(stored.phases), "design"
        else:
            source["phases"] = "default"
    return to_gpus, phases, source


def run(args: argparse.Namespace) -> int:
    design = load_design(args.file)
    to_gpus, phases, source = plan_from(design, args.to_gpus, args.phases, args.ignore_stored)
    try:
        result = grow(design, to_gpus, phases)
    except GrowthError as exc:
        where = " (the phases stored in the design)" if source["phases"] == "design" else ""
        raise CommandError(f"{exc}{where}") from None
    if args.json:
        print_json({**result.to_json(), "plan_source": source})
    else:
        print(growth_text(result))
        stored = [k for k, v in source.items() if v == "design"]
        if stored:
            print(f"Note: {' and '.join(stored)} as stored in the design")
    return 0


def _money(value: float, currency: str) -> str:
    return f"{currency} {value:,.0f}"


def path_text(path: GrowthPath, unit: str, currency: str) -> str:
    rows = []
    for p in path.phases:
        size = f"{p.sus} SU" if unit == "SU" else f"{p.gpus:,} GPUs"
        sw = "/".join(str(p.switches.get(t, 0)) for t in ("leaf", "spine", "core"))
        reserved = ", ".join(f"{n:,} {t}" for t, n in p.reserved_ports.items()) or "-"
        rows.append((p.number, size, p.gpus, p.tiers, sw, sum(p.links.values()), reserved,
                     _money(p.cost_delta, currency), p.recabled_links))
    head = ("phase", "size", "GPUs", "tiers", "leaf/spine/core", "links cabled", "ports reserved",
            "bought (est.)", "links moved")
    out = [f"{path.label}: " + ("needs recabling" if path.needs_recabling else "no recabling"),
           table(rows, head)]
    out += [f"  {reason}" for p in path.phases for reason in p.recabling]
    out.append(f"  day one {_money(path.day_one_cost, currency)}, all phases {_money(path.final_cost, currency)}")
    return "\n".join(out)


def growth_text(g: Growth) -> str:
    out = [f"Growth to {g.target_gpus:,} GPUs (counts and recabling computed; prices: {g.prices_note})", "",
           path_text(g.path, g.unit, g.currency)]
    if g.alternative:
        out += ["", "Alternative: " + path_text(g.alternative, g.unit, g.currency)]
    out += [""] + [f"Note: {n}" for n in g.notes]
    return "\n".join(out)
