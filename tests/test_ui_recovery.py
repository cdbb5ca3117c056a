"""Recovered work survives a second crash; edits are autosaved soon after they are made; two
windows on one file never lose work silently."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from test_ui_autosave import _crash

from designer.catalog import default_catalog
from designer.io.project import load_design, save_design
from designer.model.topology.presets import new_design
from designer.ui.shell import paths
from designer.ui.shell.autosave import find_recoverable

ROOT = Path(__file__).resolve().parents[1]

RECOVER_THEN_CRASH = textwrap.dedent("""
    import os, sys
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    sys.path.insert(0, sys.argv[2])
    from conftest import ScriptedDialogs
    from designer.ui.shell.main_window import MainWindow
    window = MainWindow(dialogs=ScriptedDialogs(), synchronous=True, persist=False)
    window.startup(None)
    assert window.document.design.cluster.servers == 77, "recovered"
    app.processEvents()
    os._exit(3)  # the second crash, a few seconds after recovering
""")


def test_recovered_work_survives_a_second_crash(tmp_path):
    source = tmp_path / "work.json"
    _crash(source)
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", RECOVER_THEN_CRASH, str(source), str(ROOT / "tests")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    found = find_recoverable(paths.autosave_dir())
    assert len(found) == 1 and found[0].design.cluster.servers == 77 and found[0].source == source


def test_the_recovered_autosave_is_kept_until_the_work_is_saved(make_window, tmp_path):
    source = tmp_path / "work.json"
    _crash(source)
    autosave = find_recoverable(paths.autosave_dir())[0].autosave
    window = make_window()
    window.startup(source)
    assert window.document.modified and window.autosave.path == autosave
    assert autosave.exists()                              # not deleted on recovery
    assert find_recoverable(paths.autosave_dir()) == []   # held by this live window
    assert window.files.save()
    assert not autosave.exists()                          # saved: nothing left to recover
    assert load_design(source).cluster.servers == 77
    window.close()


def test_an_edit_is_autosaved_seconds_after_it_is_made(make_window):
    from designer.ui.shell.autosave import AUTOSAVE_DEBOUNCE_MS

    window = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))  # 60 s timer
    window.startup(recover=False)
    assert window.autosave.timer.interval() == 60_000
    window.inspector.fabric_page.servers.setValue(40)
    # The edit starts the short timer, seconds and not the minute; it elapses (driven, not waited
    # for) and the work is on disk.
    debounce = window.autosave.debounce
    assert debounce.isActive() and debounce.isSingleShot()
    assert debounce.interval() == AUTOSAVE_DEBOUNCE_MS <= 5_000
    assert not window.autosave.path.exists()
    debounce.stop()
    debounce.timeout.emit()
    assert window.autosave.path.exists()
    window.close()


def test_two_windows_autosave_under_their_own_names(make_window):
    a = make_window(new_design(default_catalog(), "leaf-spine", gpus=256))
    b = make_window(new_design(default_catalog(), "leaf-spine", gpus=512))
    for w in (a, b):
        w.startup(recover=False)
        w.inspector.fabric_page.servers.setValue(40)
        assert w.autosave.autosave_now()
    assert a.autosave.path != b.autosave.path and a.autosave.path.exists() and b.autosave.path.exists()
    a.close()
    b.close()


def test_a_second_window_on_an_open_file_says_so_and_opens_read_only(make_window, tmp_path):
    source = tmp_path / "shared.json"
    save_design(new_design(default_catalog(), "leaf-spine", gpus=256), source)
    first = make_window()
    assert first.files.open(source)
    second = make_window()
    second.dialogs.open_elsewhere = "read-only"
    assert second.files.open(source)
    assert second.dialogs.asked == ["open-elsewhere:shared.json"]
    assert second.files.read_only and "(read-only)" in second.windowTitle()
    second.inspector.fabric_page.servers.setValue(40)
    second.dialogs.save_answer = str(tmp_path / "mine.json")
    assert second.files.save()                        # read-only: Save asks for a new name
    assert load_design(source).cluster.servers == 32  # the shared file is untouched
    assert second.document.path == tmp_path / "mine.json" and not second.files.read_only
    third = make_window()
    third.dialogs.open_elsewhere = "cancel"
    assert not third.files.open(source) and third.document.design is None
    first.close()
    fourth = make_window()
    assert fourth.files.open(source) and fourth.dialogs.asked == []   # closed: free again
    for w in (second, third, fourth):
        w.close()


def test_a_change_on_disk_is_noticed_and_save_asks_before_overwriting(make_window, tmp_path, qtbot):
    source = tmp_path / "watched.json"
    save_design(new_design(default_catalog(), "leaf-spine", gpus=256), source)
    window = make_window()
    assert window.files.open(source)
    window.inspector.fabric_page.servers.setValue(40)
    with qtbot.waitSignal(window.file_guard.changedOnDisk, timeout=5000):
        save_design(new_design(default_catalog(), "leaf-spine", gpus=512), source)   # someone else
    assert "changed on disk" in window.statusBar().currentMessage()
    window.dialogs.overwrite_changed = "cancel"
    assert not window.files.save()
    assert load_design(source).cluster.servers == 64 and window.document.modified
    window.dialogs.overwrite_changed = "overwrite"
    assert window.files.save()
    assert load_design(source).cluster.servers == 40
    assert window.dialogs.asked == ["overwrite-changed:watched.json"] * 2
    window.close()
