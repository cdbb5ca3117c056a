"""Help > About: the version, the catalog's edition and the licences of the tool and its libraries."""

from __future__ import annotations

from html import escape
from importlib import metadata

from designer import __version__
from designer.catalog import Catalog
from designer.io.catalog_edition import catalog_edition

# Library, the distributions that may carry its metadata (the first one installed wins).
LIBRARIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Qt for Python (PySide6)", ("PySide6", "PySide6_Essentials")),
    ("pyqtgraph", ("pyqtgraph",)),
    ("NetworkX", ("networkx",)),
    ("NumPy", ("numpy",)),
)


def _licence(distributions: tuple[str, ...]) -> tuple[str, str]:
    """(version, licence) as the installed package states them; ("", "not stated") when absent."""
    for name in distributions:
        try:
            meta = metadata.metadata(name)
        except metadata.PackageNotFoundError:
            continue
        # A field the package does not state is absent (KeyError with importlib_metadata's backport).
        licence = next((meta[key] for key in ("License-Expression", "License") if key in meta and meta[key]), "")
        if not licence or len(licence) > 80:   # some packages put the whole licence text here
            licence = next((c.split("::")[-1].strip() for c in meta.get_all("Classifier") or []
                            if c.startswith("License ::")), licence[:80] or "not stated")
        return meta["Version"] or "", licence
    return "", "not installed"


def about_lines(catalog: Catalog) -> list[str]:
    """The About box's lines, plain text (the tests read them)."""
    edition = catalog_edition(catalog)
    own_licence = _licence(("fabric-designer",))[1]
    reviewed = f"last checked against its sources {edition.reviewed}" if edition.reviewed else \
        "its review date is not stated"
    lines = [
        f"Fabric Designer {__version__}",
        "Design, size and compare InfiniBand and Ethernet compute fabrics for GPU clusters.",
        f"Hardware catalog: {edition.entries} products, {reviewed}; newest part available "
        f"{edition.newest_quarter or 'not stated'}.",
        f"Licence: {own_licence if own_licence != 'not installed' else 'MIT'}.",
        "Libraries:",
    ]
    for label, names in LIBRARIES:
        version, licence = _licence(names)
        lines.append(f"  {label} {version}: {licence}".rstrip())
    return lines


def about_html(catalog: Catalog) -> str:
    lines = about_lines(catalog)
    head, rest = lines[0], lines[1:]
    body = "<br>".join(("&nbsp;&nbsp;" + escape(line.strip())) if line.startswith("  ") else escape(line)
                       for line in rest)
    return f"<b>{escape(head)}</b><br>{body}"
