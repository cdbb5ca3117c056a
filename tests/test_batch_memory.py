"""The one-shot commands' memory reuse (designer/cli/batch_memory.py), in child processes: the
thresholds it sets last for the rest of the process that sets them."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

# A child that makes and drops a 64 MiB array twice and prints the page faults of the second time.
_CHILD = """
import resource, sys
import numpy as np
from designer.cli.batch_memory import keep_freed_memory
applied = keep_freed_memory("compare") if sys.argv[1] == "compare" else False
def faults_of_one_array():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    a = np.ones(8 << 20)   # 64 MiB, every page touched
    del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
first = faults_of_one_array()
print(applied, first, faults_of_one_array())
"""


def _run(mode: str, **env: str) -> tuple[str, int, int]:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, check=True,
                         env={**os.environ, **env}, timeout=120)
    applied, first, second = out.stdout.split()
    return applied, int(first), int(second)


# Only glibc (most Linux systems) has the mallopt thresholds compare raises; with any other C
# library keep_freed_memory changes nothing, which test_elsewhere_nothing_is_changed checks on
# every system.
ON_GLIBC = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="measures glibc's malloc page reuse: this system's C library is not glibc, where compare "
           "leaves memory as it is (test_elsewhere_nothing_is_changed covers that)")


@ON_GLIBC
def test_a_freed_array_serves_the_next_without_new_pages():
    applied, first, second = _run("compare")
    assert applied == "True"
    assert first > 100             # the first array's pages are faulted in (huge pages where numpy asks for them)
    assert second < first // 10    # the second takes the first's, already mapped


@ON_GLIBC
def test_without_it_every_large_array_is_mapped_afresh():
    _, first, second = _run("plain")
    assert second > first // 2


def test_the_environments_own_malloc_tuning_is_left_alone():
    applied, _, _ = _run("compare", MALLOC_TRIM_THRESHOLD_="1000000")
    assert applied == "False"


def test_a_command_run_among_others_in_a_process_leaves_its_memory_alone():
    """A test or a script calling the command's code (this process was started for pytest) keeps
    glibc's own thresholds: it lives on, and should give back what it frees."""
    from designer.cli.batch_memory import keep_freed_memory

    assert keep_freed_memory("compare") is False


def test_elsewhere_nothing_is_changed(monkeypatch):
    """On a system other than Linux, a process started for compare keeps its C library's own
    memory handling (mallopt is never looked up); so it does on Linux with a C library other
    than glibc (musl's mallopt, say, is never called)."""
    from designer.cli import batch_memory

    monkeypatch.setattr(sys, "argv", ["fabric-designer", "compare", "a.json", "b.json"])
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(batch_memory.ctypes, "CDLL", lambda *a, **k: pytest.fail("mallopt looked up"))
    assert batch_memory.keep_freed_memory("compare") is False

    class OtherLibc:   # a C library without glibc's functions
        def __getattr__(self, name):
            if name == "mallopt":
                pytest.fail("mallopt called on a C library other than glibc")
            raise AttributeError(name)

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(batch_memory.ctypes, "CDLL", lambda *a, **k: OtherLibc())
    assert batch_memory.keep_freed_memory("compare") is False
