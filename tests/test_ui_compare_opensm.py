"""Compare > Add Counterpart > InfiniBand, Static Routing from OpenSM…: the window prices static
routing on OpenSM's tables off the UI thread, with progress and Cancel, and shows what `compare
--counterpart ib-static --static-routes opensm` prints."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from designer.io.project import load_design
from designer.twin.infiniband import missing_stack
from tests.helpers import record_started_pids

ROOT = Path(__file__).resolve().parents[1]
SU1 = ROOT / "examples" / "dgx-h100-superpod-1su.json"
# The reason names the packages this machine lacks (and the apt-get line that installs them).
needs_stack = pytest.mark.skipif(missing_stack(capture=False) is not None,
                                 reason=missing_stack(capture=False) or "")


@pytest.fixture(autouse=True)
def _no_compare_thread_left():
    yield
    from designer.ui.compare.compare_service import running_compare_services

    assert not running_compare_services(), "a compare worker thread still runs after the test"


def _launcher(window):
    from tests.test_ui_compare import ScriptedCompareDialogs

    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.update_actions()
    return launcher


def test_the_choice_is_offered_for_infiniband_designs_only(make_window):
    window = make_window(load_design(SU1), SU1)
    launcher = _launcher(window)
    assert launcher.opensm_action in launcher.counterpart_menu.actions()
    assert launcher.opensm_action.isEnabled()
    window.document.load(load_design(ROOT / "examples" / "roce-512-leaf-spine-sn5600.json"), None)
    launcher.update_actions()
    assert not launcher.opensm_action.isEnabled()


def test_without_the_stack_one_message_names_the_debian_packages(make_window, monkeypatch):
    window = make_window(load_design(SU1), SU1)
    launcher = _launcher(window)
    monkeypatch.setenv("PATH", "/nonexistent")
    launcher.opensm_action.trigger()
    assert len(launcher.dialogs.errors) == 1
    title, _, detail = launcher.dialogs.errors[0]
    assert title == "InfiniBand stack not installed" and "apt-get install ibsim-utils opensm" in detail
    assert not launcher.opensm.running and launcher.window is None


@needs_stack
def test_the_window_prices_what_the_command_line_prices(make_window, qtbot, capsys):
    from designer.cli.main import main

    capsys.readouterr()
    assert main(["compare", str(SU1), "--counterpart", "ib-static", "--static-routes", "opensm", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    window = make_window(load_design(SU1), SU1, synchronous=False, compute_backend="thread")
    launcher = _launcher(window)
    progress = []
    launcher.opensm.progressed.connect(progress.append)
    with qtbot.waitSignal(launcher.opensm.finished, timeout=180_000) as done:
        assert launcher.add_static_from_opensm()
        assert launcher.opensm.running and launcher.opensm.progress is not None   # the UI thread is free
        assert not launcher.opensm_action.isEnabled()
    assert done.args == ["done", ""] and progress and launcher.opensm_action.isEnabled()
    compare = launcher.window
    qtbot.waitUntil(lambda: compare.comparison is not None and len(compare.comparison.names) == 2, timeout=180_000)
    shown = json.loads(json.dumps(compare.comparison.to_json()))
    assert shown == cli
    # The counterpart carries the figure's basis, as the command line prints it in its notes.
    assert any("on the tables OpenSM ftree programmed" in note for note in compare.entries[1].notes)
    assert compare.entries[1].design.performance.load_balance_efficiency < 1.0
    compare.shutdown()


@needs_stack
def test_cancel_stops_the_run_and_adds_nothing(make_window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QPushButton

    pids = record_started_pids(monkeypatch)
    window = make_window(load_design(SU1), SU1, synchronous=False, compute_backend="thread")
    launcher = _launcher(window)

    def on_progress(message: str) -> None:
        if message.startswith("routing") and launcher.opensm.progress is not None:
            launcher.opensm.progress.findChild(QPushButton).click()       # the dialog's Cancel button

    launcher.opensm.progressed.connect(on_progress)
    with qtbot.waitSignal(launcher.opensm.finished, timeout=180_000) as done:
        launcher.opensm_action.trigger()
    assert done.args[0] == "cancelled" and launcher.opensm.progress is None
    assert launcher.window is None and not launcher.dialogs.errors
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
