"""Autosave every interval, a clean exit removes it, and a crash offers recovery at the next start."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.topology.presets import new_design
from designer.ui.shell import paths
from designer.ui.shell.autosave import find_recoverable

CRASHING_SESSION = textwrap.dedent("""
    import os, sys
    from PySide6.QtCore import QCoreApplication
    app = QCoreApplication([])
    from designer.catalog import default_catalog
    from designer.io.project import save_design
    from designer.model.intent.design import replace_path
    from designer.model.topology.presets import new_design
    from designer.ui.shell import paths
    from designer.ui.shell.autosave import AutosaveManager
    from designer.ui.editing.commands import EditFieldCommand
    from designer.ui.editing.document import Document

    source = sys.argv[1] if len(sys.argv) > 1 else None
    design = new_design(default_catalog(), "leaf-spine", gpus=256)
    if source:
        save_design(design, source)
    doc = Document(design, source)
    doc.push(EditFieldCommand(doc, replace_path(design, "cluster.servers", 77), "cluster.servers", "edit"))
    saver = AutosaveManager(doc, paths.autosave_dir())
    saver.start()
    assert saver.autosave_now()
    sys.stdout.flush()
    os._exit(3)  # a crash: no cleanup at all
""")


def _crash(*args) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    proc = subprocess.run([sys.executable, "-c", CRASHING_SESSION, *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr


def test_the_timer_autosaves_unsaved_work_and_a_clean_exit_removes_it(make_window, qtbot):
    window = make_window(new_design(default_catalog(), "leaf-spine", gpus=256), autosave_interval_ms=40)
    window.startup(recover=False)
    saver = window.autosave
    assert saver.timer.isActive()
    assert not saver.path.exists()  # nothing unsaved yet
    window.inspector.fabric_page.servers.setValue(40)
    qtbot.waitUntil(saver.path.exists, timeout=5000)
    assert saver.path.parent == paths.autosave_dir()
    assert str(paths.data_dir()).startswith(os.environ["FABRIC_DESIGNER_DATA_DIR"])
    window.close()
    assert not saver.path.exists()
    assert not list(paths.autosave_dir().glob("*"))


def test_after_a_crash_the_next_start_offers_recovery(make_window, tmp_path):
    source = tmp_path / "work.json"
    _crash(source)
    found = find_recoverable(paths.autosave_dir())
    assert len(found) == 1 and found[0].source == source
    window = make_window()
    window.dialogs.recover = True
    window.startup(source, autosave=False)
    assert window.dialogs.asked and window.dialogs.asked[0].startswith("recover:")
    assert window.document.design.cluster.servers == 77  # the unsaved edit is back
    assert window.document.path == source
    assert window.document.modified
    assert find_recoverable(paths.autosave_dir()) == []


def test_declining_recovery_discards_it_and_opens_the_file(make_window, tmp_path):
    source = tmp_path / "work.json"
    _crash(source)
    window = make_window()
    window.dialogs.recover = False
    window.startup(source, autosave=False)
    assert window.document.design.cluster.servers == 32
    assert not window.document.modified
    assert find_recoverable(paths.autosave_dir()) == []


def _later_than_the_autosaves(path) -> None:
    """Date the saved file after every autosave, explicitly: a file system may keep mtimes to the
    second, and a loaded machine's clock must not decide the test."""
    newest = max(p.stat().st_mtime for p in paths.autosave_dir().glob("*"))
    os.utime(path, (newest + 2, newest + 2))


def test_an_autosave_whose_work_the_file_holds_is_not_offered(tmp_path):
    source = tmp_path / "work.json"
    _crash(source)
    recovery = find_recoverable(paths.autosave_dir())[0]
    save_design(recovery.design, source)  # the same work was saved afterwards: nothing was lost
    _later_than_the_autosaves(source)
    assert find_recoverable(paths.autosave_dir()) == []
    assert not list(paths.autosave_dir().glob("*.json"))


def test_an_autosave_is_offered_even_when_another_window_saved_the_file_later(tmp_path):
    """Window A edits and autosaves; window B saves other work to the file; A is killed."""
    source = tmp_path / "work.json"
    _crash(source)
    save_design(new_design(default_catalog(), "leaf-spine", gpus=512), source)  # B's save, newer
    _later_than_the_autosaves(source)
    found = find_recoverable(paths.autosave_dir())
    assert len(found) == 1 and found[0].design.cluster.servers == 77
    assert found[0].file_changed_since and "saved again after them" in found[0].describe()


def test_a_running_window_autosave_is_not_taken_for_a_crash(make_window):
    first = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    first.startup(recover=False)
    first.inspector.fabric_page.servers.setValue(40)
    assert first.autosave.autosave_now()
    assert find_recoverable(paths.autosave_dir()) == []  # its lock is held by a live process
    assert first.autosave.path.exists()


def test_told_to_end_from_outside_keeps_the_work_for_recovery(make_window):
    """What SIGTERM does (see designer.ui.app): autosave, keep the file, release the lock."""
    window = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    window.startup(recover=False)
    window.inspector.fabric_page.servers.setValue(44)
    assert window.autosave.autosave_now()
    window.autosave.keep_on_exit = True
    window.shutdown()
    found = find_recoverable(paths.autosave_dir())
    assert len(found) == 1 and found[0].design.cluster.servers == 44


def test_closing_the_window_stops_its_workers_timers_and_children(make_window, qtbot):
    from PySide6.QtCore import QTimer

    window = make_window(new_design(default_catalog(), "rail-optimized", gpus=1024), synchronous=False)
    window.startup(recover=False)
    qtbot.waitUntil(lambda: window.compute.latest is not None, timeout=30000)
    children = [ch.process for ch in window.compute._channels.values() if hasattr(ch, "process")]
    assert children and all(child.alive() for child in children)
    window.close()
    assert not window.compute.is_running()
    assert not any(child.alive() for child in children)
    assert not [t for t in window.findChildren(QTimer) if t.isActive()]


TERMINATED_SESSION = textwrap.dedent("""
    import os, signal, sys
    from designer.ui import app as gui

    watch = gui._watch_signals

    def watch_then_edit_and_terminate(app, window):
        restore = watch(app, window)
        from PySide6.QtCore import QTimer

        def edit_then_term():
            window.inspector.fabric_page.servers.setValue(48)  # unsaved work
            os.kill(os.getpid(), signal.SIGTERM)

        QTimer.singleShot(200, edit_then_term)
        return restore

    gui._watch_signals = watch_then_edit_and_terminate
    sys.exit(gui.run_window(sys.argv[1]))
""")


def test_sigterm_quits_without_asking_and_the_work_is_offered_next_time(tmp_path):
    source = tmp_path / "work.json"
    save_design(new_design(default_catalog(), "leaf-spine", gpus=256), source)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    env["QT_QPA_PLATFORM"] = "offscreen"
    proc = subprocess.run([sys.executable, "-c", TERMINATED_SESSION, str(source)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr  # a quit, not a kill and not a hang on a question
    found = find_recoverable(paths.autosave_dir())
    assert len(found) == 1
    assert found[0].design.cluster.servers == 48 and found[0].source == source
