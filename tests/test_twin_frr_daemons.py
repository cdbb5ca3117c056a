"""FRR as the routing twin runs it: a command to an FRR daemon over its vty socket
(designer/twin/frr_vty.py), the framing against a stand-in daemon that answers as FRR's lib/vty.c
does and the real zebra and bgpd against vtysh; the fleet's daemons started together and stopped
together; a namespace's link usable for BGP as soon as it is up."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from designer.twin.frr_vty import ask, daemon_of
from designer.twin.namespaces import CommandFailed
from tests.helpers import NEEDS_IPROUTE2, NEEDS_ROOT, ON_FRR


def on_frr(test):
    """The test with every mark of ON_FRR (root, iproute2 and FRR)."""
    for mark in ON_FRR:
        test = mark(test)
    return test


class _StandIn:
    """A daemon's vty socket that answers each NUL-ended command with `reply(command)`: bytes
    sent in the given pieces (to split the trailer across reads), or None to hang up."""

    def __init__(self, folder: Path, reply) -> None:
        self.heard: list[bytes] = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(folder / "bgpd.vty"))
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, args=(reply,), daemon=True)
        self.thread.start()

    def _serve(self, reply) -> None:
        conn, _ = self.server.accept()
        with conn:
            data = b""
            while not data.endswith(b"\0"):
                data += conn.recv(4096)
            self.heard.append(data)
            pieces = reply(data[:-1].decode())
            for piece in pieces or ():
                conn.sendall(piece)

    def close(self) -> None:
        self.thread.join(timeout=10)
        self.server.close()


@pytest.fixture
def folder():
    # A short path: a Unix socket's name holds about 100 bytes.
    with tempfile.TemporaryDirectory(prefix="fdvty") as name:
        yield Path(name)


def test_the_answer_is_the_output_before_the_trailer_even_split_across_reads(folder):
    body = b'{"10.0.0.1":{"bgpState":"Established"}}' * 2000      # larger than one read
    stand_in = _StandIn(folder, lambda _: [body[:70001], body[70001:] + b"\0\0", b"\0" + bytes([0])])
    try:
        assert ask(folder, "bgpd", "show bgp neighbors json") == body.decode()
    finally:
        stand_in.close()
    assert stand_in.heard == [b"show bgp neighbors json\0"]


def test_a_failed_command_a_hang_up_and_a_missing_daemon_are_one_line_each(folder):
    stand_in = _StandIn(folder, lambda _: [b"% Unknown command: show bgp nonsense\n\0\0\0\x02"])
    try:
        with pytest.raises(CommandFailed, match=r"^bgpd of fdvty\w*: show bgp nonsense: % Unknown command"):
            ask(folder, "bgpd", "show bgp nonsense")
    finally:
        stand_in.close()
    os.unlink(folder / "bgpd.vty")
    stand_in = _StandIn(folder, lambda _: [b'{"partial": '])        # closes before the trailer
    try:
        with pytest.raises(CommandFailed, match="closed the socket before its answer ended"):
            ask(folder, "bgpd", "show bgp neighbors json")
    finally:
        stand_in.close()
    with pytest.raises(CommandFailed, match="zebra of fdvty"):
        ask(folder, "zebra", "show ip route json")            # no zebra.vty: the daemon stopped


def test_each_command_the_twin_asks_goes_to_the_daemon_that_holds_it():
    assert daemon_of("show bgp neighbors json") == "bgpd"
    assert daemon_of("show ip route json") == "zebra"
    assert daemon_of("configure terminal") is None         # not one the twin asks: `show` refuses it


@on_frr
def test_the_real_daemons_answer_the_socket_as_they_answer_vtysh(folder):
    import json

    from designer.twin.frr_daemons import FrrFleet
    from designer.twin.namespaces import Namespaces, run

    vtysh = shutil.which("vtysh")
    # A loopback address (a connected route in zebra's table) and a neighbor that never answers.
    config = ("frr defaults datacenter\nhostname s1\n!\ninterface lo\n ip address 10.9.0.1/32\nexit\n!\n"
              "router bgp 65001\n bgp router-id 10.9.0.1\n neighbor 10.0.0.2 remote-as 65002\n"
              " address-family ipv4 unicast\n  redistribute connected\n exit-address-family\n!\n")
    os.chmod(folder, 0o711)         # as the twin makes its folder: FRR's user reaches its switch's folder
    with Namespaces() as ns, FrrFleet(folder, vtysh) as fleet:
        fleet.start_many([("s1", ns.add("s1"), config)])
        daemons = fleet.switches["s1"]
        fleet.configure("s1")
        # zebra learns the address from the kernel: wait for its route (a bound, not a measure)
        for _ in range(600):
            if "10.9.0.1/32" in fleet.show("s1", "show ip route json")[0]:
                break
            time.sleep(0.05)
        direct = fleet.show("s1", "show bgp neighbors json", "show ip route json")
        by_vtysh = [json.loads(run([vtysh, "--vty_socket", str(daemons.folder), "-c", c]))
                    for c in ("show bgp neighbors json", "show ip route json")]
    neighbors, routes = direct
    # Counters and timers move between two asks; what the twin reads is the same.
    assert neighbors.keys() == by_vtysh[0].keys() == {"10.0.0.2"}
    assert neighbors["10.0.0.2"]["remoteAs"] == by_vtysh[0]["10.0.0.2"]["remoteAs"] == 65002
    assert routes.keys() == by_vtysh[1].keys() and "10.9.0.1/32" in routes
    assert [r["protocol"] for r in routes["10.9.0.1/32"]] == [r["protocol"] for r in by_vtysh[1]["10.9.0.1/32"]]


@on_frr
def test_switches_started_together_stop_together_when_one_fails_to_start(folder):
    # Every switch's zebra starts before any bgpd; a daemon that stops at start is named, and
    # the fleet's end stops the daemons already running.
    from designer.twin.frr_daemons import FrrFleet
    from designer.twin.namespaces import Namespaces

    os.chmod(folder, 0o711)
    config = "frr defaults datacenter\n!\n"
    with Namespaces() as ns:
        good = ns.add("s1")
        started = {}
        with pytest.raises(CommandFailed, match="zebra of s2 stopped at start"), \
                FrrFleet(folder, shutil.which("vtysh")) as fleet:
            try:
                fleet.start_many([("s1", good, config), ("s2", "fdtw-no-such-namespace", config)])
            finally:
                started = dict(fleet.switches["s1"].processes)
        assert set(started) == {"zebra"}              # s1's bgpd never started: the zebras come first
        assert all(p.poll() is not None for p in started.values())     # stopped and reaped
    assert not fleet.switches["s2"].alive


@NEEDS_ROOT
@NEEDS_IPROUTE2
def test_a_link_is_usable_for_bgp_as_soon_as_it_is_up():
    # BGP unnumbered peers on the links' IPv6 link-local addresses. The kernel would hold a new
    # one tentative for a second of duplicate-address detection, and the twin, which configures
    # FRR right after its links, would count that second as BGP's convergence. A twin's link is
    # a veth pair no other host shares, so its namespaces skip the detection.
    from designer.twin.namespaces import Namespaces, run

    with Namespaces() as ns:
        ns.add("s1")
        ns.add("s2")
        ns.veth("s1", "swp1", "s2", "swp1")
        shown = ""
        for _ in range(200):          # the address appears when the link is up (a bound, not a measure)
            shown = run(["ip", "-n", ns.name("s1"), "-6", "addr", "show", "dev", "swp1"])
            if "fe80::" in shown:
                break
            time.sleep(0.01)
        assert "fe80::" in shown and "tentative" not in shown
