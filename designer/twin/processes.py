"""The lifetime of the programs a twin starts: each in its own process group, all stopped on leaving.

`Processes` is a context manager. Every program started through it runs in a new session (its
own process group), so stopping it stops whatever it started too; on leaving the block, by
success, an exception, Ctrl-C (KeyboardInterrupt) or a timeout, each group still alive gets
SIGTERM, then SIGKILL after a grace period, and is reaped. The private folder it made for the
run (sockets' names, logs, dumps, the exported files) is removed with it. Runs still under way
when the interpreter exits (a worker thread of a closed window) are stopped by an atexit hook.

`wait` polls instead of blocking, so a cancel flag set by another thread (the window's Cancel)
or a deadline ends the wait within a tenth of a second.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from designer.limits import InputError, read_capped


class TwinError(Exception):
    """The stack could not do what was asked; the message is one line for the user."""


class TwinCancelled(TwinError):
    """The user cancelled the run."""


POLL_SECONDS = 0.1
GRACE_SECONDS = 2.0

# Runs under way in this interpreter: stopped at its exit too, so a window closed while a run
# goes on (the run's worker thread dies with the interpreter) leaves no simulator behind.
_LIVE: weakref.WeakSet[Processes] = weakref.WeakSet()


@atexit.register
def _stop_live_runs() -> None:
    for run in list(_LIVE):
        run.stop_all()
        shutil.rmtree(run.folder, ignore_errors=True)


class Processes:
    """Programs started for one run, and the run's private folder; all gone after the block."""

    def __init__(self, deadline: float | None = None, cancel: threading.Event | None = None,
                 prefix: str = "fabric-twin-") -> None:
        self.deadline = deadline                  # time.monotonic() value, or None
        self.cancel = cancel
        self.folder = Path(tempfile.mkdtemp(prefix=prefix))
        self._started: list[subprocess.Popen[bytes]] = []
        self._logs: list[IO[bytes]] = []
        self._log_paths: dict[str, Path] = {}
        # Starting and stopping exclude each other: once stopped, a run starts nothing more (a
        # worker thread may still be on its way to start the next program when the exit hook runs).
        self._lock = threading.Lock()
        self._stopped = False
        _LIVE.add(self)

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop_all()
        shutil.rmtree(self.folder, ignore_errors=True)
        _LIVE.discard(self)

    # --- starting and stopping ------------------------------------------------------------------

    def start(self, argv: Sequence[str], log: str, env: Mapping[str, str] | None = None,
              cwd: Path | None = None, stdin: bool = False) -> subprocess.Popen[bytes]:
        """Start `argv` in its own session, its output to `log` in the run's folder."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        with self._lock:
            if self._stopped:
                raise TwinCancelled("stopped")
            # A program's output grows as it runs: a plain new file in the run's folder, not an
            # atomic write (closed in stop_all).
            out = tempfile.NamedTemporaryFile(mode="wb", dir=self.folder, prefix=f"{log}.", delete=False)  # noqa: SIM115
            self._logs.append(out)
            self._log_paths[log] = Path(out.name)
            try:
                proc = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                        env=full_env, cwd=str(cwd or self.folder), start_new_session=True)
            except OSError as exc:
                raise TwinError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
            self._started.append(proc)
        return proc

    def stop(self, proc: subprocess.Popen[bytes]) -> None:
        """Stop one program's process group: SIGTERM, then SIGKILL after the grace period."""
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait()
        else:
            # The leader exited; anything it left in its group goes too.
            _signal_group(proc, signal.SIGKILL)
        if proc.stdin:
            with contextlib.suppress(OSError):
                proc.stdin.close()

    def stop_all(self) -> None:
        with self._lock:
            self._stopped = True
            for proc in reversed(self._started):
                self.stop(proc)
            self._started.clear()
            for out in self._logs:
                out.close()
            self._logs.clear()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._started if p.poll() is None]

    # --- waiting ---------------------------------------------------------------------------------

    def check(self) -> None:
        """Raise if the run was cancelled, stopped or its time is up."""
        if self._stopped or (self.cancel is not None and self.cancel.is_set()):
            raise TwinCancelled("cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TwinError("timed out")

    def wait_for(self, ready: Callable[[], bool], what: str,
                 alive: subprocess.Popen[bytes] | None = None) -> None:
        """Poll `ready` until true; raise if `alive` exits first, or on cancel or timeout."""
        while not ready():
            if alive is not None and alive.poll() is not None:
                raise TwinError(f"{what}: the program exited (code {alive.returncode})")
            try:
                self.check()
            except TwinCancelled:
                raise
            except TwinError:
                raise TwinError(f"{what}: timed out") from None
            time.sleep(POLL_SECONDS)

    def wait_exit(self, proc: subprocess.Popen[bytes], what: str) -> int:
        """The program's exit code, waiting for it with cancel and timeout."""
        self.wait_for(lambda: proc.poll() is not None, what)
        return int(proc.returncode)

    def log_path(self, log: str) -> Path:
        """Where the output of the program started with `log` goes."""
        return self._log_paths.get(log, self.folder / log)

    def read_log(self, log: str, limit: int = 256 * 2**20) -> str:
        """The output so far of the program started with `log` ("" before it wrote anything)."""
        try:
            return read_capped(self.log_path(log), limit, "program output").decode("utf-8", errors="replace")
        except InputError:
            return ""


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
