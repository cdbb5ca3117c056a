"""FRR configuration of an Ethernet design's switches: the one source of their routing.

Every routed export and the routing twin take a switch's routing from here: the containerlab
export (as vtysh commands inside SONiC's startup), the `frr` export (one `frr.conf` per switch
and the interface plan) and `designer.twin.routing` (zebra and bgpd in a network namespace per
switch, started with the very text `frr_conf` writes).

The routing is the one a leaf-spine data-centre fabric runs (RFC 7938):

- a loopback per switch from 10.255.0.0/16, in switch order, announced as the switch's address;
- a private 4-byte ASN per switch (RFC 6996: 4200000000 + its number);
- a /31 per switch-to-switch link from 10.0.0.0, the lower switch of the pair on the even address;
- eBGP unnumbered (RFC 5549: IPv4 routes over the peers' IPv6 link-local addresses) to every
  fabric neighbour, one peer group, `redistribute connected`, and multipath over differing AS
  paths so that a leaf spreads its traffic over every spine.

`frr_conf` writes FRR 8.4's integrated configuration (`frr defaults datacenter`): its text is
checked by FRR's own parser (`vtysh --dryrun`) in tests/test_export_frr.py for every Ethernet
example. Interfaces are named as Cumulus Linux names a switch's ports (swpN for design port N),
the names the `air-dot` export and the twin's namespaces use too.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from designer import __version__
from designer.io.csv_cells import rows_to_csv
from designer.io.export_source import ExportError, ExportSource, safe_id
from designer.io.markup import one_line

LOOPBACKS = ipaddress.IPv4Network("10.255.0.0/16")
P2P = ipaddress.IPv4Network("10.0.0.0/8")
ASN_BASE = 4_200_000_000           # RFC 6996 private 4-byte ASNs run 4200000000-4294967294
PEER_GROUP = "fabric"
FRR_VERSION = "8.4"                # the FRR release the text is checked against (Debian 12's frr)

# One end of a link: (switch, design port) and the link as (end, end).
LinkEnd = tuple[str, int]


@dataclass(frozen=True)
class RoutedPort:
    """A fabric port of a routed switch: its design port, its /31 and the switch across."""

    port: int
    address: str            # "10.0.0.0/31"
    peer: str
    peer_port: int


@dataclass(frozen=True)
class RoutedSwitch:
    """One switch's routing: loopback, ASN and its fabric ports in design port order."""

    name: str
    loopback: str           # "10.255.0.1" (announced as /32)
    asn: int
    ports: tuple[RoutedPort, ...]


def swp(port: int) -> str:
    """The Linux interface of design port N on a Cumulus-style switch: swpN."""
    return f"swp{port}"


def routing_plan(switches: Sequence[str], links: Iterable[tuple[LinkEnd, LinkEnd]]) -> dict[str, RoutedSwitch]:
    """Every switch's loopback and ASN (in the order given) and a /31 per switch-to-switch link
    (in the order given, the first end on the even address)."""
    if len(switches) > LOOPBACKS.num_addresses - 2:
        raise ExportError(f"the lab has {len(switches):,} switches; its loopbacks ({LOOPBACKS}) hold "
                          f"{LOOPBACKS.num_addresses - 2:,}")
    ports: dict[str, list[RoutedPort]] = defaultdict(list)
    base = P2P.network_address
    for j, ((a, pa), (b, pb)) in enumerate(links):
        low = base + 2 * j
        if low >= LOOPBACKS.network_address:
            raise ExportError("the lab has more switch-to-switch links than 10.0.0.0/8 holds as /31s")
        ports[a].append(RoutedPort(pa, f"{low}/31", b, pb))
        ports[b].append(RoutedPort(pb, f"{low + 1}/31", a, pa))
    return {name: RoutedSwitch(name, str(LOOPBACKS.network_address + k), ASN_BASE + k,
                               tuple(sorted(ports.get(name, ()), key=lambda p: (p.port, p.address, p.peer))))
            for k, name in enumerate(switches, start=1)}


def bgp_commands(switch: RoutedSwitch, interface: Callable[[int], str] = swp) -> list[str]:
    """The `router bgp` block as FRR commands, one a line, unindented (vtysh takes them so)."""
    out = [f"router bgp {switch.asn}", f"bgp router-id {switch.loopback}",
           "bgp bestpath as-path multipath-relax", "no bgp ebgp-requires-policy",
           f"neighbor {PEER_GROUP} peer-group", f"neighbor {PEER_GROUP} remote-as external"]
    out += [f"neighbor {interface(p.port)} interface peer-group {PEER_GROUP}" for p in switch.ports]
    out += ["address-family ipv4 unicast", "redistribute connected", "exit-address-family"]
    return out


def frr_conf(switch: RoutedSwitch, title: str = "", interface: Callable[[int], str] = swp) -> str:
    """The switch's integrated FRR configuration (frr.conf): zebra's interfaces and addresses,
    bgpd's sessions. `title` is said in the header comment."""
    lines = [f"! FRR configuration of {switch.name}" + (f" in \"{one_line(title, 120)}\"" if title else ""),
             f"! Written by Fabric Designer {__version__} for FRR {FRR_VERSION} (zebra and bgpd).",
             f"frr version {FRR_VERSION}", "frr defaults datacenter", f"hostname {switch.name}",
             "service integrated-vtysh-config", "!",
             "interface lo", f" ip address {switch.loopback}/32", "exit", "!"]
    for p in switch.ports:
        lines += [f"interface {interface(p.port)}", f" description {p.peer} port {p.peer_port}",
                  f" ip address {p.address}", " no ipv6 nd suppress-ra", "exit", "!"]
    depth = 0
    for k, cmd in enumerate(bgp_commands(switch, interface)):
        if cmd == "exit-address-family":
            depth = 1
        elif cmd.startswith("address-family"):
            lines.append(" !")
        lines.append(" " * depth + cmd)
        depth = 2 if cmd.startswith("address-family") else 1 if k == 0 else depth
    lines += ["exit", "!", "end"]
    return "\n".join(lines) + "\n"


def fabric_links(src: ExportSource) -> tuple[list[str], list[tuple[LinkEnd, LinkEnd]]]:
    """The view's switches (safe names, in node order) and switch-to-switch links (lower end first)."""
    nodes = src.graph.nodes
    names = {sw: safe_id(sw) for sw, _ in src.switches}
    links = [((names[lower], int(d["pa"])), (names[upper], int(d["pb"])))
             for lower, upper, d in src.edges() if nodes[lower]["role"] != "nic"]
    return list(names.values()), links


def collapse_bundles(links: Iterable[tuple[LinkEnd, LinkEnd]]) -> list[tuple[LinkEnd, LinkEnd]]:
    """One link per connected pair of switches (the first of each bundle): the fabric's
    reachability and routing, not its width."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for a, b in links:
        pair = (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])
        if pair not in seen:
            seen.add(pair)
            kept.append((a, b))
    return kept


def interface_plan(plan: dict[str, RoutedSwitch]) -> str:
    """The interface plan as CSV: every switch's loopback and fabric ports, with the peer."""
    rows: list[list[str]] = [["switch", "asn", "interface", "design_port", "address", "peer", "peer_interface",
                              "peer_port"]]
    for sw in plan.values():
        rows.append([sw.name, str(sw.asn), "lo", "", f"{sw.loopback}/32", "", "", ""])
        rows += [[sw.name, str(sw.asn), swp(p.port), str(p.port), p.address, p.peer, swp(p.peer_port),
                  str(p.peer_port)] for p in sw.ports]
    return rows_to_csv(rows)


def _readme(src: ExportSource, plan: dict[str, RoutedSwitch]) -> str:
    links = sum(len(s.ports) for s in plan.values()) // 2
    return "\n".join([
        f"FRR configuration of \"{one_line(src.name, 120)}\" ({src.view_label})",
        f"Written by Fabric Designer {__version__} for FRR {FRR_VERSION}.", "",
        f"{len(plan):,} switches, {links:,} switch-to-switch links.",
        "<switch>/frr.conf  the switch's integrated configuration (zebra and bgpd); on Cumulus Linux or any",
        "                   Linux with FRR it goes to /etc/frr/frr.conf, with zebra and bgpd enabled in",
        "                   /etc/frr/daemons.",
        "interfaces.csv     the interface plan: every switch's loopback and its fabric ports (swpN is",
        "                   design port N), its /31 and the switch and port across.",
        "Routing: loopbacks 10.255.0.0/16, a /31 per switch-to-switch link from 10.0.0.0, one private ASN",
        "per switch, eBGP unnumbered to every fabric neighbour, multipath over differing AS paths.",
        "Servers are not routed here: a leaf's server-facing ports stay unconfigured.", ""])


def frr_files(src: ExportSource) -> dict[str, str]:
    """The `frr` export: one frr.conf per switch, the interface plan and a README."""
    switches, links = fabric_links(src)
    plan = routing_plan(switches, links)
    files = {name: frr_conf(sw, src.name) for name, sw in _confs(plan)}
    files["interfaces.csv"] = interface_plan(plan)
    files["README.txt"] = _readme(src, plan)
    return files


def _confs(plan: dict[str, RoutedSwitch]) -> Iterator[tuple[str, RoutedSwitch]]:
    for name, sw in plan.items():
        yield f"{name}/frr.conf", sw
