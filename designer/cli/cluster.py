"""A Dask distributed cluster as the sweep's executor (`sweep --scheduler ADDRESS`).

Dask is an optional extra (`pip install 'fabric-designer[cluster]'`): it is imported only when
a scheduler is named, and its absence is one clear line. Every worker must have the same
fabric-designer installed, since each point is built and measured on a worker.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

from designer.cli.common import CommandError

CONNECT_TIMEOUT_S = 20
INSTALL_HINT = "pip install 'fabric-designer[cluster]'"


@contextmanager
def dask_executor(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> Iterator[tuple[Executor, int]]:
    """An executor on the scheduler at `address`, and the cluster's worker threads at the start.

    The client is closed on the way out, whatever happened; the cluster itself is left running.
    """
    try:   # imported by name: the extra may be absent here, and it ships no complete type hints
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise CommandError(f"--scheduler needs Dask's distributed scheduler: {INSTALL_HINT}") from None
    try:   # a malformed address is refused before a client exists (a half-made one hangs on exit)
        scheme, _ = importlib.import_module("distributed.comm").parse_address(address)
        importlib.import_module("distributed.comm.registry").get_backend(scheme)
    except ValueError as exc:
        raise CommandError(f"not a Dask scheduler address: {address} ({exc})") from None
    try:
        client = distributed.Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CommandError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
    try:
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise CommandError(f"the Dask scheduler at {address} has no workers")
        yield client.get_executor(pure=False), threads
    finally:
        client.close()
