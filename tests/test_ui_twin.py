"""Tools > Run on the InfiniBand Stack… in the window: off the UI thread, its progress shown,
cancellable (the simulator and OpenSM stop), the result shown as the command line prints it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from designer.io.project import load_design
from designer.twin.infiniband import missing_stack
from tests.helpers import record_started_pids

ROOT = Path(__file__).resolve().parents[1]
SU1 = ROOT / "examples" / "dgx-h100-superpod-1su.json"
needs_stack = pytest.mark.skipif(missing_stack(capture=False) is not None,
                                 reason=missing_stack(capture=False) or "")


def test_the_action_is_in_the_tools_menu(make_window):
    window = make_window(load_design(SU1))
    tools = next(m for m in window.menuBar().actions() if m.text() == "&Tools").menu()
    assert window.twin.action in tools.actions()


def test_without_the_stack_it_names_the_packages(make_window, monkeypatch):
    window = make_window(load_design(SU1))
    monkeypatch.setenv("PATH", "/nonexistent")
    window.twin.action.trigger()
    title, _, detail = window.dialogs.errors[-1]
    assert title == "InfiniBand stack not installed" and "apt-get install ibsim-utils opensm" in detail
    assert not window.twin.running


@needs_stack
def test_a_run_reports_in_a_dialog_without_blocking_the_window(make_window, qtbot):
    window = make_window(load_design(SU1), synchronous=False)
    with qtbot.waitSignal(window.twin.finished, timeout=120_000) as done:
        window.twin.action.trigger()
        assert window.twin.running and window.twin.progress is not None   # the UI thread is free meanwhile
    outcome, text = done.args
    assert outcome == "done" and "OpenSM ftree routed the fabric" in text
    from PySide6.QtWidgets import QPlainTextEdit

    assert window.twin.result_dialog.findChild(QPlainTextEdit, "twinText").toPlainText() == text
    window.twin.result_dialog.close()


@needs_stack
def test_cancel_stops_the_run_and_its_processes(make_window, qtbot, monkeypatch):
    pids = record_started_pids(monkeypatch)
    window = make_window(load_design(SU1), synchronous=False)

    def on_progress(message: str) -> None:
        if message.startswith("routing"):
            from PySide6.QtWidgets import QPushButton

            window.twin.progress.findChild(QPushButton).click()       # the dialog's Cancel button

    window.twin.progressed.connect(on_progress)
    with qtbot.waitSignal(window.twin.finished, timeout=120_000) as done:
        window.twin.action.trigger()
    assert done.args[0] == "cancelled" and window.twin.progress is None
    # The worker has returned when the run's processes are stopped; wait for it to deliver.
    qtbot.waitUntil(lambda: not window.twin.running, timeout=60_000)
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
