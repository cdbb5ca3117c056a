"""Keep the memory a one-shot command frees for its own next arrays, instead of handing it back.

glibc returns a large freed block to the kernel at once (each array above its mmap threshold is
a mapping of its own, and the top of the heap is trimmed past its trim threshold). A command that
makes and drops arrays of megabytes one after another then has the kernel zero and map every
page of each new one: at a million GPUs `compare` spent 0.3-0.4 s of its CPU time in the kernel
so, 85,000 page faults. Raising both thresholds keeps freed blocks in the process's heap, where
the next array of the same size takes them: 32,000-34,000 faults and 0.1-0.16 s, for the same
peak memory (the command ends when it is done, so nothing is held past it). The window never calls this: it lives
on, and gives back what it frees.

Only on glibc (Linux); elsewhere, or where the environment already sets glibc's MALLOC_* tuning,
nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

# mallopt's parameter numbers (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# The thresholds asked: blocks up to 1 GiB come from the heap (32 MiB, glibc's fixed ceiling on
# some versions, if the larger is refused), and the heap is trimmed only past 1 GiB free.
_MMAP_THRESHOLDS = (1 << 30, 32 << 20)
_TRIM_THRESHOLD = 1 << 30
_ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")


def keep_freed_memory(command: str) -> bool:
    """Raise glibc's mmap and trim thresholds for the rest of this process, if the process was
    started to run `command` (its command line names it: not a test or a script calling the
    command's code among others, which lives on); True if it did."""
    started_for = next((a for a in sys.argv[1:] if not a.startswith("-")), None)   # main.chosen_command's rule
    if started_for != command:
        return False
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _ENVIRONMENT):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        if not hasattr(libc, "gnu_get_libc_version"):   # glibc's own: another C library's mallopt differs
            return False
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # The mmap threshold first: setting the trim threshold alone turns off glibc's own raising
    # of the mmap threshold, and every block above 128 KiB would be mapped afresh.
    if not any(mallopt(_M_MMAP_THRESHOLD, size) == 1 for size in _MMAP_THRESHOLDS):
        return False
    return bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD) == 1)
