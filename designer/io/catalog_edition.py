"""The built-in catalog's edition: the day its entries were last checked, and its newest part.

Help > About names it, so a reader of a report or a window knows how current the hardware is.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.catalog import Catalog
from designer.catalog.loader import RESOURCES
from designer.limits import InputError, parse_toml, read_text

EDITION_FILE = RESOURCES / "catalog_edition.toml"


@dataclass(frozen=True)
class CatalogEdition:
    reviewed: str          # "2026-11-26", "" when the file is missing or unreadable
    newest_quarter: str    # the latest `available` quarter of any product, "2026-Q3"
    entries: int           # servers, switches, NICs, modules and cables listed


def catalog_edition(catalog: Catalog) -> CatalogEdition:
    reviewed = ""
    try:
        table = parse_toml(read_text(EDITION_FILE, "catalog edition"), str(EDITION_FILE))
        reviewed = str(table.get("reviewed", ""))
    except (InputError, OSError):
        pass
    products = [*catalog.servers.values(), *catalog.switches.values(), *catalog.nics.values(),
                *catalog.transceivers.values(), *catalog.cables.values()]
    quarters = sorted(p.available for p in products if p.available)
    return CatalogEdition(reviewed, quarters[-1] if quarters else "", len(products))
