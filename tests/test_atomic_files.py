"""Files the tool writes behave like files: the umask, a replaced file's mode, no leftovers."""

import os
import stat
import time

import pytest

from designer.io.atomic import STALE_AFTER_S, remove_stale_temporaries, write_atomic


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask):
        os.umask(mask)

    yield set_mask
    os.umask(old)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_gets_the_users_umask(tmp_path, umask, mask, expected):
    umask(mask)
    target = tmp_path / "design.json"
    write_atomic(target, "{}")
    assert _mode(target) == expected
    assert target.read_text() == "{}"


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o077)
    target = tmp_path / "shared.json"
    target.write_text("old")
    os.chmod(target, 0o664)
    write_atomic(target, "new")
    assert _mode(target) == 0o664 and target.read_text() == "new"
    os.chmod(target, 0o640)
    write_atomic(target, b"newer")
    assert _mode(target) == 0o640 and target.read_bytes() == b"newer"


def test_a_replaced_file_keeps_its_group(tmp_path):
    target = tmp_path / "group.json"
    target.write_text("old")
    gid = os.getgroups()[-1] if os.getgroups() else os.getgid()
    os.chown(target, -1, gid)
    write_atomic(target, "new")
    assert os.stat(target).st_gid == gid


def test_no_temporary_file_is_left_on_any_error(tmp_path, monkeypatch):
    target = tmp_path / "x.json"

    def fail(*_):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "data")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\ud800")
    assert list(tmp_path.iterdir()) == []


def test_leftovers_of_killed_saves_are_removed_at_the_next_save(tmp_path):
    old = tmp_path / ".design.json.ab12cd_9.tmp"
    fresh = tmp_path / ".design.json.zz34yy_0.tmp"     # a save that may still be running
    other = tmp_path / ".notes.tmp"                     # not ours: never touched
    for path in (old, fresh, other):
        path.write_bytes(b"x" * 1000)
    past = time.time() - STALE_AFTER_S - 5
    os.utime(old, (past, past))
    os.utime(other, (past, past))
    write_atomic(tmp_path / "report.pdf", b"%PDF")
    assert not old.exists() and fresh.exists() and other.exists()
    assert remove_stale_temporaries(tmp_path, now=time.time() + STALE_AFTER_S + 1) == 1
    assert not fresh.exists()


def test_a_killed_save_leaves_the_old_file_whole(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "big.json"
    target.write_text("old")
    code = ("import os, sys, designer.io.atomic as a\n"
            "real = os.fsync\n"
            "def stop(fd):\n"
            "    os.kill(os.getpid(), 9)\n"
            "a.os.fsync = stop\n"
            f"a.write_atomic({str(target)!r}, 'x' * 10_000_000)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert run.returncode == -9
    assert target.read_text() == "old"
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) == 1
    past = time.time() - STALE_AFTER_S - 1
    os.utime(leftovers[0], (past, past))
    write_atomic(target, "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.json"]
