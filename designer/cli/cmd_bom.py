"""`fabric-designer bom`: the bill of materials and cabling plan of a design, as CSV or JSON."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

from designer.catalog import Catalog, default_catalog
from designer.cli.common import CommandError, SubParsers, check_design_memory, output_file, print_json, table
from designer.io.bom_csv import write_bom_csv
from designer.io.cabling_csv import write_cabling_csv
from designer.io.network_csv import write_cluster_bom_csv, write_network_cabling_csv
from designer.io.project import load_design
from designer.model.decisions.spares import SpareShare, default_shares, parse_shares, spares_items
from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.arrangements import Arrangement, arrangements
from designer.model.networks.bom import (
    NetworkBom,
    cluster_bom_json,
    compute_switch_count,
    network_boms,
)
from designer.model.physical.bom import CATEGORIES, Bom, LineItem, build_bom
from designer.model.physical.media import physical_layer
from designer.model.physical.prices import load_prices
from designer.model.topology.derive import Derived, derive
from designer.model.topology.hall import hall_m, longest_reach_m, reachable_floorplan


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("bom", help="bill of materials and cabling plan",
                       description="Switches, NICs, transceivers, cables and fibers of a design, with "
                                   "quantities, lengths, power and cost. Prices from the built-in book are "
                                   "illustrative estimates, not quotes; your own prices.toml overrides them.")
    p.add_argument("file", help="project file")
    p.add_argument("-o", "--output", type=output_file, help="write the BOM as CSV to this file")
    p.add_argument("--cabling", type=output_file, help="write the cabling plan (one row per link) as CSV to this file")
    p.add_argument("--json", action="store_true", help="print the BOM as JSON (stable keys)")
    p.add_argument("--arrangements", action="store_true",
                   help="also price the other arrangements of the cluster's networks (hybrid, all-Ethernet, "
                        "merged) beside the design's own")
    p.add_argument("--prices", help="price book (TOML) whose entries override the built-in and user prices")
    p.add_argument("--spares", default="", metavar="SPEC",
                   help="spares per class as a share of the quantity, e.g. transceivers=2%%,switches=1%%; 'none' "
                        "for no spares (default: a year of expected failures where a failure rate is published, "
                        "each with its basis)")
    p.set_defaults(run=run)


def _check_target(path: str | None) -> Path | None:
    if path is None:
        return None
    out = Path(path)
    if out.is_dir():
        raise CommandError(f"{out} is a folder; give a file name")
    if not out.parent.exists():
        raise CommandError(f"folder {out.parent} does not exist")
    return out


# How media.py words links that no medium takes (their cages, or their length).
_UNREACHED = "that fits their cages and length"


def _hall_hint(derived: Derived, catalog: Catalog) -> str:
    """What would build a design whose hall is too long for its optics: rows long enough to make
    the hall about square (hall.py), when that brings its farthest run within reach."""
    design = derived.design
    reach = longest_reach_m(catalog, derived.resolved.technology.family)
    square = reachable_floorplan(design.floorplan, design.cluster.servers, reach)
    if square is None:
        return ""
    fp = square[0]
    length, width = hall_m(fp, design.cluster.servers)
    return (f"; the hall is {hall_m(design.floorplan, design.cluster.servers)[0]:,.0f} m long, beyond the "
            f"{reach:,.0f} m the longest optic reaches: floorplan.racks_per_row = {fp.racks_per_row} makes it about "
            f"square ({length:,.0f} m by {width:,.0f} m) and builds it")


def run(args: argparse.Namespace) -> int:
    bom_path, plan_path = _check_target(args.output), _check_target(args.cabling)
    if bom_path and plan_path and bom_path.resolve() == plan_path.resolve():
        raise CommandError("the BOM and the cabling plan need different files")
    catalog = default_catalog()
    prices = load_prices(args.prices)
    derived = derive(load_design(args.file), catalog)
    check_design_memory(derived, "the bill of materials")
    errors = derived.metrics.errors
    if errors:
        raise CommandError(f"the design has errors ({errors[0].message}); `fabric-designer metrics` lists them")
    bom = build_bom(derived, catalog, prices)
    try:
        shares = parse_shares(args.spares, default_shares())
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    spares = spares_items(bom.items, shares)
    design = derived.design
    sections = network_boms(design, catalog, prices, compute_switch_count(bom)) if design.networks else ()
    network_errors = [e for section in sections for e in section.size.errors]
    failed = any(f.severity == "error" for f in bom.findings) or bool(network_errors)
    if failed:  # a BOM or cabling plan with unfit links would mislead: write no file
        bom_path = plan_path = None
        print("error: the BOM has errors; no file written", file=sys.stderr)
    if bom_path:
        if sections:
            write_cluster_bom_csv(bom, sections, bom_path)
        else:
            write_bom_csv(bom, bom_path)
    networks_plan = None
    if plan_path:
        write_cabling_csv(physical_layer(derived, catalog), plan_path, catalog)
        if sections:  # the other networks' cabling, one row per link group, beside the compute plan
            networks_plan = plan_path.with_name(plan_path.stem + "-networks" + plan_path.suffix)
            write_network_cabling_csv(sections, networks_plan)
    options = arrangements(design, catalog, prices) if args.arrangements else ()
    if args.json:
        doc = bom.to_json()
        doc["spares"] = {"items": [i.to_json() for i in spares],
                         "total_usd": round(sum(i.extended_price for i in spares), 2),
                         "shares": {k: {"share": v.share, "basis": v.basis} for k, v in shares.items()}}
        if sections:
            doc.update(cluster_bom_json(bom, sections))
        if options:
            doc["arrangements"] = [a.to_json() for a in options]
        print_json(doc)
    else:
        print(summary(bom))
        print(spares_summary(bom, spares, shares))
        if sections:
            print(networks_summary(bom, sections))
        if options:
            print(arrangements_table(options, bom.currency))
    # With --json, stdout carries only the JSON document.
    out = sys.stderr if args.json else sys.stdout
    for path in (bom_path, plan_path, networks_plan):
        if path:
            print(f"wrote {path}", file=out)
    hint = _hall_hint(derived, catalog) if failed else ""
    for f in bom.findings:
        if f.severity in ("error", "warning"):
            said = f"{f.message}{hint}" if hint and _UNREACHED in f.message else f.message
            print(f"{f.severity}: {said}", file=sys.stderr)
    for error in network_errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if failed else 0


_UNPUBLISHED_POWER = ("power not published", "power not stated")


def _power_cell(item: LineItem) -> str:
    """A part whose power has no published figure reads 'not published', not a misleading 0."""
    if not item.total_power_w and any(m in item.notes for m in _UNPUBLISHED_POWER):
        return "not published"
    return f"{item.total_power_w:,.0f}"


def _unpublished_power_note(items: tuple[LineItem, ...]) -> list[str]:
    missing = sorted({i.description for i in items if _power_cell(i) == "not published"})
    return [f"power totals leave out {', '.join(missing)}: no published figure"] if missing else []


def spares_summary(bom: Bom, spares: list[LineItem], shares: Mapping[str, SpareShare]) -> str:
    """The spares lines (not in the total above) and each class's share with its basis."""
    lines = ["", "Spares (ordered with the BOM, not in its total)"]
    if spares:
        lines.append(table([(i.category, i.part_number or "-", i.description, i.quantity,
                             f"{i.extended_price:,.2f}") for i in spares],
                           ("category", "part", "description", "qty", f"extended ({bom.currency})")))
        total = sum(i.extended_price for i in spares)
        lines.append(f"Total with spares  {bom.total_cost + total:,.2f} {bom.currency}")
    else:
        lines.append("none")
    for cls, share in shares.items():
        amount = "no spares" if share.share is None else f"{share.share:.2%}"
        lines.append(f"  {cls}: {amount} ({share.basis})")
    return "\n".join(lines)


def summary(bom: Bom) -> str:
    rows = [(i.category, i.part_number or "-", i.description, i.quantity, f"{i.extended_price:,.2f}",
             _power_cell(i)) for i in bom.items]
    head = table(rows, ("category", "part", "description", "qty", f"extended ({bom.currency})", "power (W)"))
    counts = bom.counts_by_category
    lines = [
        f"Design: {bom.name}",
        head,
        "",
        table([
            ("Total cost", f"{bom.total_cost:,.2f} {bom.currency}"
             + (" (illustrative estimate, not a quote)" if bom.illustrative_prices else "")),
            ("Total power", f"{bom.total_power_w:,.0f} W"),
            ("Per GPU", f"{bom.cost_per_gpu:,.2f} {bom.currency}, {bom.power_per_gpu_w:,.1f} W ({bom.gpus:,} GPUs)"),
            ("Counts", ", ".join(f"{c}: {counts[c]:,}" for c in CATEGORIES)),
            ("Links", ", ".join(f"{t}: {n:,}" for t, n in bom.counts["links_by_tier"].items())),
            *_optics_and_cooling(bom),
        ]),
    ]
    return "\n".join(lines)


def _optics_and_cooling(bom: Bom) -> list[tuple[str, str]]:
    """Rows for co-packaged optics and liquid cooling, where the design has them."""
    rows = []
    sides = bom.counts.get("transceivers", {})
    cpo = bom.counts.get("co_packaged_optics", [])
    if cpo:
        rows.append(("Switch optics", f"co-packaged on {', '.join(cpo)}: {sides.get('switch_side', 0):,} switch-side "
                                      f"transceivers, {sides.get('server_side', 0):,} server-side"))
    cooled = bom.counts.get("liquid_cooled", {})
    if cooled.get("parts"):
        rows.append(("Liquid cooling", f"{cooled['server_racks']:,} server racks, {cooled['network_racks']:,} "
                                       f"network racks ({', '.join(cooled['parts'])})"))
    return rows


def networks_summary(bom: Bom, sections: tuple[NetworkBom, ...]) -> str:
    """One block per network beside the compute fabric, then the cluster total."""
    lines: list[str] = []
    for section in sections:
        rows = [(i.category, i.part_number or "-", i.description, i.quantity, f"{i.extended_price:,.2f}",
                 _power_cell(i)) for i in section.items]
        lines += ["", f"Network: {section.size.label} ({section.size.template}, {section.size.technology})"]
        if section.size.template == "segment" and not rows:
            # A segment has no parts: say what carries it rather than print an empty table.
            carrier = ROLE_LABELS.get(section.size.carried_by, section.size.carried_by)
            lines.append(f"  carried by {carrier}: 0 switches, 0 cables and 0 transceivers of its own; "
                         f"shares {section.size.shared_ports:,} server ports at {section.size.shared_gbps}G")
        else:
            lines += [table(rows, ("category", "part", "description", "qty", f"extended ({bom.currency})",
                                   "power (W)")),
                      (f"  {section.size.switch_count:,} switches, {section.size.link_count:,} links; "
                       f"{section.total_cost:,.2f} {bom.currency}, {section.total_power_w:,.0f} W")]
        lines += [f"  note: {n}" for n in (*section.size.notes, *_unpublished_power_note(section.items))]
        lines += [f"  error: {e}" for e in section.size.errors]
    total = cluster_bom_json(bom, sections)["cluster_total"]
    lines += ["", table([("Cluster total (all networks)",
                          f"{total['total_cost']:,.2f} {bom.currency}, {total['total_power_w']:,.0f} W")])]
    return "\n".join(lines)


def arrangements_table(options: tuple[Arrangement, ...], currency: str) -> str:
    rows = [(a.label, f"{a.compute_cost:,.0f}", f"{a.networks_cost:,.0f}", f"{a.total_cost:,.0f}",
             f"{a.total_power_w:,.0f}", "; ".join(a.notes)) for a in options]
    return "\n" + table(rows, ("arrangement", f"compute ({currency})", f"other networks ({currency})",
                               f"capex ({currency})", "power (W)", "notes"))
