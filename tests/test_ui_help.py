"""Help: the user guide shipped with the package, read offline, and an About that names what a
reviewer asks for (version, catalog edition, licences)."""

from __future__ import annotations

from PySide6.QtCore import QUrl

from designer import __version__
from designer.io.user_guide import guide_pages, guide_root, read_page
from designer.ui.shell.about import about_lines
from designer.ui.shell.user_guide import UserGuide


def _help_actions(window):
    help_menu = next(m.menu() for m in window.menuBar().actions() if m.text() == "&Help")
    return {a.text(): a for a in help_menu.actions()}


def test_the_guide_pages_follow_the_sites_nav():
    docs = guide_root()
    assert docs is not None
    pages = guide_pages(docs)
    paths = [p.path for p in pages]
    assert paths[0] == "index.md"
    assert "guide/bom.md" in paths and "catalog.md" in paths
    assert {p.section for p in pages if p.path.startswith("guide/")} == {"User guide"}
    assert all((docs / p).is_file() for p in paths)


def test_a_path_outside_the_guide_is_refused(tmp_path):
    docs = guide_root()
    for bad in ("../pyproject.toml", "../../etc/passwd.md", "/etc/hostname"):
        try:
            read_page(docs, bad)
        except Exception as exc:  # noqa: BLE001
            assert "not a page of the user guide" in str(exc) or isinstance(exc, OSError)
        else:
            raise AssertionError(bad)


def test_help_user_guide_opens_the_shipped_guide_and_follows_its_links(make_window, qtbot):
    window = make_window()
    actions = _help_actions(window)
    assert list(actions)[:3] == ["User &Guide", "&Canvas Controls", "&About Fabric Designer"]
    actions["User &Guide"].trigger()
    viewer = window.findChild(UserGuide)
    assert viewer is not None and viewer.isVisible()
    assert viewer.current == "index.md"
    assert "Fabric Designer" in viewer.page.toPlainText()
    viewer._follow(QUrl("guide/bom.md"))
    assert viewer.current == "guide/bom.md"
    assert viewer.contents.currentItem().text(0) == "Bill of materials and cabling"
    viewer._follow(QUrl("../catalog.md"))   # relative to guide/, as the pages write it
    assert viewer.current == "catalog.md"
    actions["User &Guide"].trigger()        # a second time: the same viewer comes forward
    assert window.findChildren(UserGuide) == [viewer]


def test_about_names_version_catalog_edition_and_licences():
    from designer.catalog import default_catalog

    text = "\n".join(about_lines(default_catalog()))
    assert f"Fabric Designer {__version__}" in text
    assert "last checked against its sources 20" in text
    assert "newest part available 20" in text
    assert "Licence: MIT" in text
    for library in ("PySide6", "pyqtgraph", "NetworkX", "NumPy"):
        line = next(ln for ln in text.splitlines() if library in ln)
        assert "not installed" not in line and "not stated" not in line, line
