"""A command to one FRR daemon over its vty socket, as vtysh sends it, without starting vtysh.

vtysh and the daemons speak a small framing (FRR lib/vty.c, `vtysh_read`): the client writes a
command line ended by a NUL byte; the daemon runs it and answers with its output, then three NUL
bytes and the command's return code (0 for success). vtysh itself is a program that builds its
whole command tree at each start, about 35 ms of CPU: the routing twin asks every switch twice a
second while the fabric converges, so a run of a dozen switches spent most of its own CPU
starting vtysh. Configuration still goes through `vtysh -f`, which splits a file among the
daemons as FRR's boot does.
"""

from __future__ import annotations

import socket
from pathlib import Path

from designer.twin.namespaces import CommandFailed

# The daemon that answers a command, by the command's first words (vtysh knows this from its
# command tree). Only the read-only commands the twin asks are listed.
_DAEMON_OF = (("show bgp ", "bgpd"), ("show ip bgp ", "bgpd"), ("show ip route", "zebra"),
              ("show interface", "zebra"))
_TRAILER = b"\0\0\0"
_MAX_ANSWER = 256 * 1024 * 1024     # a routing table of a large fabric is megabytes; never unbounded
CMD_SUCCESS = 0


def daemon_of(command: str) -> str | None:
    """The daemon that answers `command`, or None for a command the twin does not ask (vtysh
    would find its daemon in its command tree)."""
    return next((daemon for prefix, daemon in _DAEMON_OF if command.startswith(prefix)), None)


def ask(folder: Path, daemon: str, command: str, timeout: float = 30.0) -> str:
    """`command` run by `daemon`, whose vty socket is `folder/<daemon>.vty`; its output.
    CommandFailed when the socket cannot be reached, the answer is cut off or the command fails."""
    path = folder / f"{daemon}.vty"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(command.encode() + b"\0")
            answer = _read_answer(sock)
    except OSError as exc:      # refused, missing socket (the daemon stopped), timed out
        raise CommandFailed(f"{daemon} of {folder.name}: {command}: {exc}") from None
    body, code = answer[:-4], answer[-1]
    text = body.decode(errors="replace")
    if code != CMD_SUCCESS:
        first = text.strip().splitlines()
        raise CommandFailed(f"{daemon} of {folder.name}: {command}: {first[0] if first else f'code {code}'}")
    return text


def _read_answer(sock: socket.socket) -> bytes:
    """Bytes up to and including the trailer (three NULs and the return code)."""
    chunks: list[bytes] = []
    size = 0
    tail = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the daemon closed the socket before its answer ended")
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_ANSWER:
            raise ConnectionError(f"an answer above {_MAX_ANSWER // 2**20} MiB")
        # The trailer may straddle two reads: look at the last bytes of everything so far.
        tail = (tail + chunk)[-8:]
        if len(tail) >= 4 and tail[-4:-1] == _TRAILER:
            return b"".join(chunks)
