"""The user guide as the package ships it: its Markdown pages and their order from mkdocs.yml.

A wheel carries docs/ and mkdocs.yml under designer/_data/ (setup.py copies them, as it does the
catalog); a source checkout or an editable install reads the top-level docs/. The window shows
the pages offline, so nothing here needs the network or the mkdocs build.
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path

from designer.limits import InputError, read_text

_NAV_ITEM = re.compile(r"^(?P<indent>\s*)-\s+(?P<title>[^:]+?):\s*(?P<page>\S+\.md)?\s*$")


@dataclass(frozen=True)
class GuidePage:
    title: str
    path: str          # relative to the guide's folder, as mkdocs.yml names it ("guide/bom.md")
    section: str = ""  # the nav section it sits under ("User guide"), "" at the top


def guide_root() -> Path | None:
    """The folder holding the guide's pages and mkdocs.yml, or None when the install lacks it."""
    packaged = importlib.resources.files("designer").joinpath("_data", "docs")
    candidates = [Path(str(packaged)), Path(__file__).resolve().parents[2] / "docs"]
    for docs in candidates:
        if (docs / "index.md").is_file():
            return docs
    return None


def _nav_file(docs: Path) -> Path:
    return docs.parent / "mkdocs.yml"


def guide_pages(docs: Path) -> list[GuidePage]:
    """The pages in mkdocs.yml's nav order; every Markdown page of the folder when it has none."""
    pages: list[GuidePage] = []
    nav = _nav_file(docs)
    if nav.is_file():
        in_nav = False
        section = ""
        for line in read_text(nav, "the guide's mkdocs.yml").splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line.startswith((" ", "-")):
                in_nav = line.startswith("nav:")
                continue
            match = _NAV_ITEM.match(line) if in_nav else None
            if match is None:
                continue
            if match["page"] is None:
                section = match["title"].strip()
            elif (docs / match["page"]).is_file():
                top = len(match["indent"]) <= 2
                pages.append(GuidePage(match["title"].strip(), match["page"], "" if top else section))
    if not pages:
        pages = [GuidePage(p.stem.replace("-", " ").capitalize(), p.relative_to(docs).as_posix())
                 for p in sorted(docs.rglob("*.md")) if "hooks" not in p.parts]
    return pages


def read_page(docs: Path, page: str) -> str:
    """One page's Markdown; a path outside the guide's folder is refused in one line."""
    target = (docs / page).resolve()
    if docs.resolve() not in target.parents or target.suffix != ".md":
        raise InputError(f"not a page of the user guide: {page}")
    return read_text(target, "user guide page")
