"""What the window tests share to stay quick: designs and counterparts made once per test process.

A design and its counterpart are immutable, so a test that only reads them may take the one made
for an earlier test. What a test compares the window against is built here with the model's own
functions, never through the window's caches (`designer.ui.services.counterparts`), so that a
wrong answer from those still fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import Counterpart, make_counterpart
from designer.model.intent.design import FabricDesign

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@cache
def example(name: str) -> FabricDesign:
    """The example design `examples/<name>`, read once."""
    return load_design(EXAMPLES / name)


@cache
def _counterpart(design: FabricDesign, technology: str) -> Counterpart:
    return make_counterpart(design, technology, default_catalog())


def counterpart(design: FabricDesign, technology: str, catalog=None) -> Counterpart:
    """`make_counterpart` on the default catalog, made once per design and technology."""
    if catalog is not None and catalog is not default_catalog():
        return make_counterpart(design, technology, catalog)
    return _counterpart(design, technology)


# --- One designer window for the tests of a module ---------------------------------------------
#
# Building and showing a MainWindow costs about a quarter of a second of CPU, most of what a test
# that opens a design and triggers one action costs. The tests of a module that only need "a
# window showing this design" take one window in turn; before each test it is set back to what
# `make_window` gives: the design loaded afresh (its undo history cleared), nothing selected, the
# view fitted, the docks and View toggles as at start, no dialog, Compare, spawned window, failure
# view or presentation left, fresh scripted dialogs (the file controller's too), empty settings
# and the export options and recent files they give, the palette's technology as at start
# (tests/test_ui_window_reset.py holds all of it). A test that needs a window no other test
# touched (first start, layout, resizing, closing, a second window) keeps `make_window`.

_ENVIRONMENT = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "FABRIC_DESIGNER_DATA_DIR", "FABRIC_DESIGNER_CONFIG_DIR")


@contextmanager
def one_window(folder: Path) -> Iterator:
    """A shown MainWindow (synchronous) whose settings, data and config live under `folder`,
    closed at the end. Made before any test's own folders exist, so it is given its own."""
    import conftest
    from PySide6.QtCore import QCoreApplication, QEvent, QSettings

    from designer.ui.shell.main_window import MainWindow

    with pytest.MonkeyPatch.context() as env:
        for name in _ENVIRONMENT:
            env.setenv(name, str(folder / name.lower()))
        settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(dialogs=conftest.ScriptedDialogs(), synchronous=True, settings=settings)
        window.resize(1400, 900)
        window.show()
        window.scripted_dialogs = conftest.ScriptedDialogs   # what `reset` gives each test
        window.docks_shown = {name: dock.isVisibleTo(window) for name, dock in window.docks.items()}
        window.compare_dialogs = window.compare_launcher.dialogs
        window.fresh_technology = window.controller.default_technology   # before any design
        window.fresh_comparison_provider = window.presentation.comparison_provider
        try:
            yield window
        finally:
            window.shutdown()
            window.close()
            window.deleteLater()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def window_per_module(folder: str):
    """The fixtures of a module whose tests take one window in turn (see above):

        _module_window, _open_window = window_per_module("inspector-window")

    gives the module-scoped `module_window` (made under a folder named `folder`) and the per-test
    `open_window`, a function `open_window(design=None, path=None)` returning the module's window
    set back and showing `design`; after the test, `settle`. A module keeps both names."""

    @pytest.fixture(scope="module", name="module_window")
    def module_window(qapp, tmp_path_factory):
        with one_window(tmp_path_factory.mktemp(folder)) as window:
            yield window

    @pytest.fixture(name="open_window")
    def open_window(module_window):
        yield lambda design=None, path=None: reset(module_window, design, path)
        settle(module_window)

    return module_window, open_window


_MODAL_QUESTIONS = (("exports", "ask_path"), ("ecosystem_export", "ask_path"), ("ecosystem_export", "ask_force"),
                    ("audit", "ask_capture"))


def _unanswered(name: str):
    def ask(*_args, **_kwargs):
        raise AssertionError(f"{name} would open a modal dialog: the test must set its answer")

    return ask


def guard_modal_questions(window) -> None:
    """Put stand-ins that fail the test where the window would open a modal question: a real
    modal dialog offscreen waits for an answer forever, and the test run with it."""
    for owner, name in _MODAL_QUESTIONS:
        actions = getattr(window, owner)
        setattr(actions, name, _unanswered(f"window.{owner}.{name}"))


def reset(window, design: FabricDesign | None, path: Path | None = None):
    """`window` as `make_window(design, path)` would give it (see above); returns it."""
    import shiboken6
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QDialog

    if window.presentation.active:
        window.presentation.stop()
    window.presentation.comparison_provider = window.fresh_comparison_provider
    window.fail_mode.restore()
    for dialog in window.findChildren(QDialog):   # a dialog a test opened and left on screen
        if dialog.isVisible():
            dialog.reject()
    for spawned in window.spawned_windows:        # Compare > Open in Designer's windows
        if shiboken6.isValid(spawned):
            spawned.shutdown()
            spawned.close()
    window.spawned_windows = []
    launcher = window.compare_launcher
    if launcher.window is not None:
        launcher.window.shutdown()
        launcher.window.close()
        launcher.window.deleteLater()
        launcher.window = None
    launcher.dialogs = window.compare_dialogs
    guard_modal_questions(window)   # a test's stand-ins for the modal questions are dropped
    window.exports.cancel()
    window.dialogs = window.files.dialogs = window.scripted_dialogs()
    window.file_guard.release()
    window.files._set_read_only(False)
    window.settings.clear()
    window.ecosystem_export.options = window.ecosystem_export._load_options()   # from the empty settings
    window.controller.selection.clear()
    # What the palette's technology was set to, a new window's (a design opened replaces it).
    window.controller.default_technology = window.fresh_technology
    window.palette_panel.set_technology(window.fresh_technology)
    window.document.load(design, path)
    window.controller.set_network("compute")
    for name, on in (("legend", True), ("each_link", False)):   # the View menu's toggles
        if window.actions_[name].isChecked() != on:
            window.actions_[name].trigger()
    window._fill_recent(window.files.recent())    # from the empty settings
    for name, dock in window.docks.items():   # a dock made later (N-1, audit) starts hidden
        dock.setVisible(window.docks_shown.get(name, False))
    window.resize(1400, 900)
    window.view.fit()
    window.statusBar().clearMessage()
    # What showing the window does: the docks fit the design's form (timers of no delay, one of
    # which starts another).
    for _ in range(2):
        QCoreApplication.processEvents()
    return window


def settle(window) -> None:
    """After a test: nothing of the shared window left running (the status line's timer, an
    export) for the next test and for the check that nothing runs after a test."""
    window.exports.cancel()
    window.statusBar().clearMessage()
