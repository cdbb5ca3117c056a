"""`fabric-designer compare`: two to five designs side by side, with a reasoned recommendation."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from designer.catalog import Catalog, default_catalog
from designer.cli.batch_memory import keep_freed_memory
from designer.cli.common import (
    CommandError,
    SubParsers,
    bounded_float,
    bounded_int,
    check_design_memory,
    named_for_terminal,
    output_file,
    print_json,
    size_bytes,
    table,
)
from designer.cli.job_options import add_batch_options, add_fleet_options, job_changes
from designer.io.compare_csv import write_compare_csv
from designer.io.project import load_design
from designer.limits import terminal_text
from designer.model.common.units import figure_text
from designer.model.decisions.comparison import MAX_COMPARED, SETTING_RANGES, CompareSettings, Comparison, compare
from designer.model.decisions.counterpart import (
    COUNTERPART_TECHNOLOGIES,
    ETHERNET_CHOICES,
    IB_STATIC,
    Counterpart,
    expand_counterparts,
    make_counterpart,
    optics_twin,
    static_routing_twin,
)
from designer.model.decisions.topology_counterpart import CHEAPEST_TOPOLOGY, cheapest_topology
from designer.model.decisions.verdict import leader_share_cell
from designer.model.intent.design import FabricDesign
from designer.model.performance.workload import DEFAULT_WORKLOAD, presets
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import derive

if TYPE_CHECKING:
    from designer.model.networks.arrangements import Arrangement


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("compare", help="compare 2 to 5 designs side by side",
                       description="Cost, power, TCO, bandwidth, latency and collective time of 2 to 5 "
                                   "designs, with deltas against the first and a recommendation.")
    p.add_argument("files", nargs="+", metavar="FILE", help="project files; the first is the baseline")
    p.add_argument("--counterpart", action="append",
                   choices=(*COUNTERPART_TECHNOLOGIES, "ethernet", IB_STATIC, CHEAPEST_TOPOLOGY), metavar="TECH",
                   help="also compare the first design rebuilt on TECH (repeatable: "
                        + ", ".join(COUNTERPART_TECHNOLOGIES) + "; 'ethernet' adds "
                        + ", ".join(ETHERNET_CHOICES) + f"; '{IB_STATIC}' the InfiniBand design with adaptive "
                        f"routing off; '{CHEAPEST_TOPOLOGY}' the same cluster on the cheapest other topology: "
                        "leaf-spine, fat-tree, rail-optimized or rail-only, the design's own template in its "
                        "other tier counts, each on the technology's switches and the design's own, in the port "
                        "mode and uplink speed new would choose)")
    p.add_argument("--static-routes", choices=("model", "opensm"), default="model",
                   help=f"how '--counterpart {IB_STATIC}' is priced: 'model' places each flow on one fixed path "
                        "(default); 'opensm' brings the design up on the InfiniBand twin (ibsim, OpenSM with the "
                        "design's routing engine) and takes the worst pattern's throughput on the tables OpenSM "
                        "programmed (needs the Debian packages ibsim-utils and opensm)")
    p.add_argument("--optics-twin", action="store_true",
                   help="also compare the first design on its switches' optics twins: a pluggable fabric "
                        "beside the same fabric on co-packaged-optics switches (e.g. Q3400-RA and Q3450-LD), "
                        "or back")
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="OUT", type=output_file, help="also write the comparison as CSV")
    p.add_argument("--years", type=bounded_int(*SETTING_RANGES["years"]), default=CompareSettings.years,
                   help="TCO period in years")
    p.add_argument("--energy-price", type=bounded_float(*SETTING_RANGES["energy_usd_per_kwh"]),
                   default=CompareSettings.energy_usd_per_kwh,
                   help="USD per kWh (an assumption: use your tariff)")
    p.add_argument("--pue", type=bounded_float(*SETTING_RANGES["pue"]), default=CompareSettings.pue,
                   help="power usage effectiveness")
    p.add_argument("--size", type=size_bytes, action="append",
                   help="message size for the collective rows (repeatable; default 1MiB and 1GiB)")
    p.add_argument("--workload", choices=list(presets()),
                   help=f"example job: a named workload that fits in memory (default {DEFAULT_WORKLOAD}; "
                        "resources/perf/workloads.toml)")
    p.add_argument("--params", type=bounded_float(*SETTING_RANGES["params"]), default=None,
                   help="example job: model parameters, gradient-only view (instead of a workload; "
                        f"default {CompareSettings.params:g})")
    p.add_argument("--compute-ms", type=bounded_float(*SETTING_RANGES["compute_ms"]), default=None,
                   help="example job: compute time per step in ms, with --params (default "
                        f"{CompareSettings.compute_ms:g})")
    p.add_argument("--token-budget", type=bounded_float(*SETTING_RANGES["token_budget"]),
                   default=CompareSettings.token_budget,
                   help="tokens the example job trains, for the time-to-train row (an assumption; "
                        f"default {CompareSettings.token_budget:g})")
    add_fleet_options(p, "default: resources/perf/fleet.toml's, with its basis")
    add_batch_options(p)
    p.add_argument("--arrangements", action="store_true",
                   help="also price each design's network arrangements (as designed, hybrid, all-Ethernet, "
                        "merged) with capex and power; in --json under the new key 'arrangements'")
    p.set_defaults(run=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    keep_freed_memory("compare")   # a one-shot command: its freed arrays serve its next ones (batch_memory.py)
    args.counterpart = expand_counterparts(args.counterpart or ())
    count = len(args.files) + len(args.counterpart) + (1 if args.optics_twin else 0)
    if not 2 <= count <= MAX_COMPARED:
        args._parser.error(f"compare takes 2 to {MAX_COMPARED} designs (files and --counterpart), not {count}")
    legacy = args.params is not None or args.compute_ms is not None
    if legacy and args.workload:
        args._parser.error("give either --workload or --params/--compute-ms, not both")
    settings = CompareSettings(years=args.years, energy_usd_per_kwh=args.energy_price, pue=args.pue,
                               sizes=tuple(args.size) if args.size else CompareSettings.sizes,
                               params=args.params if args.params is not None else CompareSettings.params,
                               compute_ms=(args.compute_ms if args.compute_ms is not None
                                           else CompareSettings.compute_ms),
                               workload=None if legacy else (args.workload or DEFAULT_WORKLOAD),
                               token_budget=args.token_budget, **job_changes(args))
    designs = [load_design(f) for f in args.files]
    catalog = default_catalog()
    for design in designs:
        check_design_memory(derive(design, catalog), "the comparison")
    if args.static_routes == "opensm" and IB_STATIC not in (args.counterpart or ()):
        raise CommandError(f"--static-routes opensm prices --counterpart {IB_STATIC}; add that counterpart")
    notes = []
    for tech in args.counterpart or ():
        made = (_static_routing(designs[0], catalog, args.static_routes) if tech == IB_STATIC
                else cheapest_topology(designs[0], catalog) if tech == CHEAPEST_TOPOLOGY
                else make_counterpart(designs[0], tech, catalog))
        designs.append(made.design)
        notes += [f"note: {made.design.meta.name}: {n}" for n in made.notes]
    if args.optics_twin:
        made = optics_twin(designs[0], catalog)
        designs.append(made.design)
        notes += [f"note: {n}" for n in made.notes]
    result = compare(designs, settings, catalog)
    if args.csv:
        write_compare_csv(result, args.csv)
    options = _arrangements(designs, catalog) if args.arrangements else []
    if args.json:
        doc = result.to_json()
        if options:
            doc["arrangements"] = [{"design": d.meta.name, "options": [a.to_json() for a in opts]}
                                   for d, opts in zip(designs, options, strict=True)]
        print_json(doc)
    else:
        # The verdict's sentences quote the designs' names: a name holding a line break is shown
        # escaped, so it cannot forge a line (compared again only in that rare case).
        shown = [named_for_terminal(d) for d in designs]
        if any(s is not d for s, d in zip(shown, designs, strict=True)):
            result = compare(shown, settings, catalog)
        print(render_text(result))
        if notes:
            print("\n".join(terminal_text(n) for n in notes))
        if options:   # the bill's command and the other networks load only where they are asked for
            from designer.cli.cmd_bom import arrangements_table
        for design, opts in zip(designs, options, strict=True) if options else ():
            print(f"\nNetwork arrangements of {terminal_text(design.meta.name)}:")
            print(arrangements_table(opts, "USD"))
    return 0


def _arrangements(designs: list[FabricDesign], catalog: Catalog) -> list[tuple[Arrangement, ...]]:
    """The network arrangements of each design, priced with the price book commands use."""
    from designer.model.networks.arrangements import arrangements

    book = load_prices()
    return [arrangements(d, catalog, book) for d in designs]


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return figure_text(value, unit)


def render_text(c: Comparison) -> str:
    headers = ("metric", "unit", *[f"[{i + 1}]" for i in range(len(c.names))],
               *[f"[{i + 2}] vs [1]" for i in range(len(c.names) - 1)])
    rows = []
    for r in c.rows:
        deltas = [r.delta_text(d) for d in r.deltas[1:]]
        cells = [_fmt(v, r.unit) for v in r.values]
        if r.key == "win_share_pct":   # a leader of an overlapping close call is never 0% or 100%
            close = c.recommendation.close_call
            cells = [leader_share_cell(close, i, v) or cell for i, (v, cell) in enumerate(zip(r.values, cells,
                                                                                             strict=True))]
        rows.append((r.label, r.unit, *cells, *deltas))
    legend = [f"[{i + 1}] {n} ({t})" for i, (n, t) in enumerate(zip(c.names, c.technologies, strict=True))]
    out = legend + ["", table(rows, headers), "", *[f"Assumed {line}" if not line.startswith("  ") else line
                                                     for line in c.job_lines()],
                    "", "Recommendation (heuristic): " + c.recommendation.verdict]
    out += [f"  - {reason}" for reason in c.recommendation.reasons]
    if c.recommendation.flips:
        out += ["When it would flip (each assumption alone; the rest held):"]
        out += [f"  - {flip.line()}" for flip in c.recommendation.flips]
    out += [f"source: {line}" for line in c.sources]
    out += [f"warning: {w}" for w in c.warnings]
    return "\n".join(out)


def _static_routing(design: FabricDesign, catalog: Catalog, source: str) -> Counterpart:
    """The static-routing flavour, by the model's fixed paths or by OpenSM's real tables."""
    if source != "opensm":
        return static_routing_twin(design, catalog)
    from designer.twin.processes import TwinCancelled, TwinError
    from designer.twin.static_routing import opensm_static_routing

    try:
        return opensm_static_routing(design, catalog)
    except TwinCancelled:
        raise KeyboardInterrupt from None
    except TwinError as exc:
        raise CommandError(str(exc)) from None
