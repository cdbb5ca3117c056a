"""The panels a session rarely opens (Phases, Expected Interruptions, Audit) are made when their
dock is first shown: the window opens without them, and nothing the user sees changes."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from tests.helpers import superpod

RARE = ("phases", "interruptions")


def test_the_window_opens_without_making_the_rarely_used_panels(make_window):
    window = make_window(superpod(1))
    for name in RARE:
        dock = window.docks[name]
        assert not dock.isVisible() and not dock.built and dock.widget() is None, name
    assert not window.audit.dock.built
    # Their toggles are in View > Panels from the start, and an edit does not make them either.
    titles = {a.text().replace("&", "") for a in window.panels_menu.actions()}
    assert {"Phases", "Expected Interruptions"} <= titles
    window.inspector.fabric_page.servers.setValue(window.inspector.fabric_page.servers.value() + 4)
    assert not any(window.docks[name].built for name in RARE)


def test_a_rare_panel_made_on_showing_follows_the_design_open_then(make_window):
    window = make_window(superpod(1))
    window.inspector.fabric_page.servers.setValue(48)   # the design the panels must show
    design = window.document.design
    window.docks["phases"].show()
    window.docks["phases"].raise_()   # its tab in front of the Metrics (a tab behind is not on screen)
    assert window.docks["phases"].built and window.phases.design is design and window.phases.growth is not None
    window.fail_mode.interruptions_action.trigger()
    assert window.interruptions.design is design and window.interruptions.report is not None
    # Made once: later edits reach the same panel.
    panel = window.interruptions
    window.document.undo_stack.undo()
    assert window.interruptions is panel and panel.design is window.document.design


def test_a_layout_saved_with_a_rare_panel_open_brings_it_back_estimated(make_window, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    first = make_window(superpod(1), settings=settings)
    first.fail_mode.interruptions_action.trigger()     # its tab in front of the Metrics
    first.close()
    again = make_window(superpod(1), settings=settings)
    dock = again.docks["interruptions"]
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()
    assert dock.built and again.interruptions.report is not None
    assert not again.docks["phases"].built
