"""FRR's zebra and bgpd, one pair per switch namespace, started and stopped by one owner.

Each daemon runs in the foreground as a child of this process (never daemonised, so it is
reaped), in its own process group, with its pid file, zebra socket, vty sockets and log in the
switch's folder of the run's temporary directory: nothing under /etc/frr or /var/run/frr is
read or written, and a system FRR keeps running untouched. The daemons start empty and take
the switch's `frr.conf` (designer.io.frr, the text the `frr` export writes) through `vtysh -f`,
as FRR's own service does at boot, so the configuration is the export's text, not a copy.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from designer.io.atomic import write_atomic
from designer.limits import InputError, read_text
from designer.twin.frr_vty import ask, daemon_of
from designer.twin.namespaces import CommandFailed, TwinUnavailable, run

FRR_DIR = Path("/usr/lib/frr")
DAEMONS = ("zebra", "bgpd")
FRR_USER = "frr"            # the Debian package's user; its group frrvty may open the vty sockets
STOP_GRACE = 3.0


def require_frr() -> tuple[Path, str]:
    """FRR's daemon folder and vtysh, or TwinUnavailable naming the package to install."""
    missing = [d for d in DAEMONS if not (FRR_DIR / d).is_file()]
    vtysh = shutil.which("vtysh")
    if missing or vtysh is None:
        raise TwinUnavailable(f"the routing twin needs FRR ({', '.join(missing) or 'vtysh'} missing): install the "
                              "Debian package frr")
    return FRR_DIR, vtysh


@dataclass
class SwitchDaemons:
    """One switch's zebra and bgpd."""

    switch: str
    namespace: str
    folder: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return bool(self.processes) and all(p.poll() is None for p in self.processes.values())


class FrrFleet:
    """Every switch's daemons in one run. Use as a context manager: leaving it stops them all."""

    def __init__(self, root: Path, vtysh: str, ip: str = "ip"):
        self.root = root
        self.vtysh = vtysh
        self.ip = ip
        self.switches: dict[str, SwitchDaemons] = {}

    def __enter__(self) -> FrrFleet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()

    def start_many(self, specs: Sequence[tuple[str, str, str]], check: Callable[[], None] = lambda: None) -> None:
        """Start zebra, then bgpd, for every (switch, namespace, config), `config` written as the
        switch's frr.conf: every switch's zebra, their vty sockets waited for together, then every
        bgpd (which connects to its zebra) the same way. One
        switch after the other, each daemon's start was waited for alone: 24 daemons took 2.5 s
        on a 12-switch fabric. `check` runs between starts (a cancelled run stops there)."""
        fleet = []
        for switch, namespace, config in specs:
            folder = self.root / switch
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / "frr.conf", config)
            _give_to_frr(folder)
            self.switches[switch] = daemons = SwitchDaemons(switch, namespace, folder)
            fleet.append(daemons)
        for name in DAEMONS:
            for daemons in fleet:
                check()
                self._launch(daemons, name)
            for daemons in fleet:
                self._wait_for_socket(daemons, daemons.folder / f"{name}.vty")

    def _launch(self, daemons: SwitchDaemons, name: str) -> None:
        folder = daemons.folder
        args = [self.ip, "netns", "exec", daemons.namespace, str(FRR_DIR / name), "-f", "/dev/null",
                "-i", str(folder / f"{name}.pid"), "-z", str(folder / "zserv.api"),
                "--vty_socket", str(folder), "--log", f"file:{folder / (name + '.log')}"]
        # The daemon's own output before its log opens (a refused option, a missing library):
        # a descriptor the child inherits, closed here once it has.
        out = os.open(folder / f"{name}.out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            daemons.processes[name] = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out,
                                                       stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            os.close(out)

    def _wait_for_socket(self, daemons: SwitchDaemons, sock: Path, timeout: float = 15.0) -> None:
        end = time.monotonic() + timeout
        while not sock.exists():
            dead = [n for n, p in daemons.processes.items() if p.poll() is not None]
            if dead:
                raise CommandFailed(f"{dead[0]} of {daemons.switch} stopped at start: "
                                    f"{_tail(daemons.folder / (dead[0] + '.out'))}")
            if time.monotonic() > end:
                raise CommandFailed(f"{sock.stem} of {daemons.switch} did not open its vty socket in {timeout:.0f} s")
            time.sleep(0.05)

    # vtysh talks to the daemons over their vty sockets in the switch's folder, so it runs in the
    # host's namespace: one process per call, no `ip netns exec`.
    def configure(self, switch: str) -> None:
        """Hand the switch's frr.conf to its daemons through vtysh, as FRR's boot does."""
        d = self.switches[switch]
        out = run([self.vtysh, "--vty_socket", str(d.folder), "-f", str(d.folder / "frr.conf")])
        bad = [line for line in out.splitlines() if "Unknown command" in line or "% " in line]
        if bad:
            raise CommandFailed(f"{switch}: FRR refused its configuration: {bad[0].strip()}")

    def show(self, switch: str, *commands: str) -> list[Any]:
        """The answers of `show ... json` commands, parsed, each asked of its daemon over its vty
        socket (frr_vty.py)."""
        folder = self.switches[switch].folder
        answers = []
        for command in commands:
            daemon = daemon_of(command)
            if daemon is None:
                raise ValueError(f"no FRR daemon known to answer {command!r}")
            answers.append(_parsed(switch, command, ask(folder, daemon, command)))
        return answers

    def stop(self, switch: str) -> None:
        """Stop the switch's daemons: SIGTERM, then SIGKILL after a grace period; each is reaped."""
        d = self.switches.get(switch)
        if d is None:
            return
        for proc in reversed(list(d.processes.values())):
            _stop(proc)
        d.processes.clear()

    def stop_all(self) -> None:
        """Every daemon told to stop at once, then waited for together (a large fabric's
        hundreds of daemons stop in one grace period), the stragglers killed."""
        procs = [p for d in self.switches.values() for p in d.processes.values() if p.poll() is None]
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for proc in procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
            end = time.monotonic() + STOP_GRACE
            for proc in procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=max(0.0, end - time.monotonic()))
            procs = [p for p in procs if p.poll() is None]
            if not procs:
                break
        for proc in procs:      # not even SIGKILL ended it within the grace: reap it when it goes
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=STOP_GRACE)
        for d in self.switches.values():
            d.processes.clear()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)     # its own group: `ip netns exec` and the daemon it became
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _give_to_frr(folder: Path) -> None:
    """FRR drops root for its user after start; its sockets and pid files go in this folder."""
    try:
        import grp
        import pwd

        os.chown(folder, pwd.getpwnam(FRR_USER).pw_uid, grp.getgrnam(FRR_USER).gr_gid)
    except (KeyError, OSError) as exc:
        raise TwinUnavailable(f"FRR's user '{FRR_USER}' is missing ({exc}): reinstall the Debian package frr") from None


def _tail(path: Path) -> str:
    try:
        lines = [ln for ln in read_text(path, "FRR daemon output").splitlines() if ln.strip()]
    except (InputError, OSError):
        return "no output"
    return lines[-1].strip()[:200] if lines else "no output"


def _parsed(switch: str, command: str, out: str) -> Any:
    """A daemon's JSON answer; {} for an empty one (nothing configured yet)."""
    if not out.strip():
        return {}
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        raise CommandFailed(f"{switch}: {command} gave no JSON: {out.strip()[:120]}") from None
