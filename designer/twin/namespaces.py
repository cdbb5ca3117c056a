"""Linux network namespaces and veth pairs for the routing twin, made and removed by one owner.

Every name this module makes starts with the run's own prefix (`fdtw` and random hex), and it
removes only what it made: the namespaces it created, and with them their interfaces and the
veth pairs between them (deleting a namespace deletes its veth ends, and a veth pair goes with
either end). Interfaces are created directly inside their namespaces, so no name ever appears in
the host's own namespace, and nothing is sent to any address outside the twin.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

IP = "ip"
PREFIX = "fdtw"
NETNS_DIR = Path("/run/netns")
COMMAND_TIMEOUT = 60.0


class TwinUnavailable(RuntimeError):
    """The machine cannot run the twin: what is missing, in one line."""


class CommandFailed(RuntimeError):
    """An `ip` or `sysctl` command failed: the command and its error, in one line."""


def require_root_and_iproute() -> str:
    """The `ip` program, or TwinUnavailable saying what is missing."""
    if os.geteuid() != 0:
        raise TwinUnavailable("the routing twin needs root: network namespaces and veth pairs are made with "
                              "CAP_NET_ADMIN (run it with sudo)")
    ip = shutil.which(IP)
    if ip is None:
        raise TwinUnavailable("the routing twin needs iproute2's `ip` (install the Debian package iproute2)")
    return ip


def run(args: Sequence[str], stdin: str | None = None, timeout: float = COMMAND_TIMEOUT) -> str:
    """Run a command, its standard output; CommandFailed with its error line when it fails."""
    try:
        done = subprocess.run(list(args), input=stdin, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CommandFailed(f"{' '.join(args[:6])}: {exc}") from None
    if done.returncode != 0:
        err = (done.stderr or done.stdout).strip().splitlines()
        raise CommandFailed(f"{' '.join(args[:6])}: {err[-1] if err else f'exit {done.returncode}'}")
    return done.stdout


class Namespaces:
    """The namespaces of one run. Use as a context manager: leaving it removes them all."""

    def __init__(self, ip: str = IP, token: str | None = None):
        self.ip = ip
        self.prefix = f"{PREFIX}{token or secrets.token_hex(3)}-"
        self.made: dict[str, str] = {}      # switch -> namespace, in the order made

    def __enter__(self) -> Namespaces:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove_all()

    def name(self, switch: str) -> str:
        return self.made[switch]

    def add(self, switch: str) -> str:
        """A namespace for `switch`, its loopback up, forwarding on, the multipath hash on the
        5-tuple (fib_multipath_hash_policy=1: addresses, protocol and ports), and no IPv6
        duplicate-address detection: BGP unnumbered peers on the links' link-local addresses, which
        the kernel would hold tentative for a second after each link comes up, and a twin's veth
        pair has no other host on it to collide with (FRR is configured right after the links are
        made, so that second would count as BGP's convergence)."""
        ns = f"{self.prefix}{len(self.made) + 1}"
        if (NETNS_DIR / ns).exists():
            raise CommandFailed(f"namespace {ns} exists already; it is not this run's and is left alone")
        run([self.ip, "netns", "add", ns])
        self.made[switch] = ns
        run([self.ip, "-n", ns, "link", "set", "lo", "up"])
        self.sysctl(ns, {"net.ipv4.ip_forward": "1", "net.ipv6.conf.all.forwarding": "1",
                         "net.ipv4.fib_multipath_hash_policy": "1", "net.ipv6.conf.default.accept_dad": "0",
                         "net.ipv6.conf.all.accept_dad": "0"})
        return ns

    def sysctl(self, ns: str, values: dict[str, str]) -> None:
        run([self.ip, "netns", "exec", ns, "sysctl", "-q", "-w", *(f"{k}={v}" for k, v in values.items())])

    def batch(self, ns: str, commands: Sequence[str]) -> str:
        """`ip -n NS -batch -`: many commands in one process, their outputs in order."""
        if not commands:
            return ""
        return run([self.ip, "-n", ns, "-force", "-batch", "-"], stdin="\n".join(commands) + "\n")

    def veth(self, a: str, if_a: str, b: str, if_b: str) -> None:
        """A veth pair from `a`'s `if_a` to `b`'s `if_b`, both ends up; made inside the namespaces."""
        ns_a, ns_b = self.made[a], self.made[b]
        run([self.ip, "link", "add", if_a, "netns", ns_a, "type", "veth", "peer", "name", if_b, "netns", ns_b])
        run([self.ip, "-n", ns_a, "link", "set", if_a, "up"])
        run([self.ip, "-n", ns_b, "link", "set", if_b, "up"])

    def set_link(self, switch: str, interface: str, up: bool) -> None:
        run([self.ip, "-n", self.made[switch], "link", "set", interface, "up" if up else "down"])

    def remove_all(self) -> list[str]:
        """Delete every namespace this run made (and so its interfaces); what could not be deleted."""
        left = []
        for ns in reversed(list(self.made.values())):
            try:
                run([self.ip, "netns", "del", ns])
            except CommandFailed:
                if (NETNS_DIR / ns).exists():
                    left.append(ns)
        self.made.clear()
        return left
