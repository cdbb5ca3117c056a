"""`fabric-designer catalog`: list the hardware catalog's ids, names, availability and sources.

The ids are what `new --server/--switch/--technology` and the project files take, so a user looks
them up here rather than guessing them.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from designer.catalog import Catalog, default_catalog
from designer.cli.common import SubParsers

# Section name on the command line -> the catalog tables it lists (media: modules, then cables).
SECTIONS: dict[str, tuple[str, ...]] = {
    "servers": ("servers",),
    "switches": ("switches",),
    "technologies": ("technologies",),
    "media": ("transceivers", "cables"),
    "nics": ("nics",),
}
# The catalog's kind names as Catalog.origins keys them.
_ORIGIN_KIND = {"servers": "server", "switches": "switch", "technologies": "technology",
                "transceivers": "transceiver", "cables": "cable", "nics": "nic"}
_KIND_LABEL = {"transceivers": "transceiver", "cables": "cable"}
SOURCE_WIDTH = 70   # the text table cuts a source here; --json gives it whole


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("catalog", help="list the hardware catalog's ids: servers, switches, technologies, media",
                       description="List the catalog's entries with their ids (what new --server, --switch and "
                                   "--technology take), names, availability and sources. The built-in catalog "
                                   "and the user's catalog folder are both listed.")
    p.add_argument("section", nargs="?", choices=tuple(SECTIONS),
                   help="one part of the catalog (default: servers, switches, technologies and media)")
    p.add_argument("--json", action="store_true", help="print JSON: every entry with its whole source")
    p.set_defaults(run=run)


def _availability(table: str, entry: Any) -> str:
    if table == "technologies":   # no product: its switches, NICs and media state theirs
        return "n/a (its parts state theirs)"
    if getattr(entry, "stand_in", False):
        return "generic stand-in"
    label: str = entry.currency_label() if hasattr(entry, "currency_label") else ""
    return label or "not stated"


def _row(table: str, entry: Any, catalog: Catalog) -> dict[str, Any]:
    row: dict[str, Any] = {"id": entry.id, "name": entry.name}
    if table in _KIND_LABEL:
        row["kind"] = _KIND_LABEL[table]
    if table == "technologies":
        row["family"] = entry.family
        row["link_gbps"] = entry.link_gbps
        row["default_switch"] = entry.default_switch
    row.update({
        "vendor": entry.vendor,
        "part_number": entry.part_number,
        "available": entry.available,
        "status": entry.status,
        "availability": _availability(table, entry),
        "stand_in": bool(entry.stand_in),
        "source": entry.source,
        "estimates": list(entry.estimates),
        "estimate_basis": entry.estimate_basis,
        "file": catalog.origin(_ORIGIN_KIND[table], entry.id),
    })
    return row


def catalog_rows(catalog: Catalog, section: str | None) -> dict[str, list[dict[str, Any]]]:
    """Each chosen section's entries as rows, sorted by id."""
    chosen = [section] if section else ["servers", "switches", "technologies", "media"]
    out: dict[str, list[dict[str, Any]]] = {}
    for name in chosen:
        rows: list[dict[str, Any]] = []
        for table in SECTIONS[name]:
            entries: dict[str, Any] = getattr(catalog, table)
            rows.extend(_row(table, entries[key], catalog) for key in sorted(entries))
        out[name] = rows
    return out


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_text(sections: dict[str, list[dict[str, Any]]]) -> None:
    for index, (name, rows) in enumerate(sections.items()):
        if index:
            print()
        print(f"{name.capitalize()} ({len(rows)})")
        id_width = max((len(r["id"]) for r in rows), default=2)
        name_width = min(48, max((len(r["name"]) for r in rows), default=4))
        for r in rows:
            label = r["name"] if "kind" not in r else f"{r['name']} [{r['kind']}]"
            print(f"  {r['id']:<{id_width}}  {_cut(label, name_width):<{name_width}}  "
                  f"{_cut(r['availability'], 28):<28}  {_cut(r['source'], SOURCE_WIDTH)}")
    print("\nSources are cut at 70 characters here; --json gives them whole.")


def run(args: argparse.Namespace) -> int:
    sections = catalog_rows(default_catalog(), args.section)
    if args.json:
        json.dump(sections, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_text(sections)
    return 0
