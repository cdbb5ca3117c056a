"""What the routing twin reads back from FRR: sessions, routes and next hops, per switch.

A `Snapshot` is the fabric's routing at one moment, from each switch's `show bgp neighbors json`
and `show ip route json`; `Snapshot.signature` is what must stop changing for the fabric to be
converged, and `leaf_widths` gives each leaf's ECMP width towards every other leaf's loopback.
Pure functions over parsed JSON, so that the tests can hold them to FRR's answers without FRR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ESTABLISHED = "Established"


@dataclass(frozen=True)
class Session:
    switch: str
    interface: str
    state: str
    reason: str = ""        # why not established, from FRR's own words

    @property
    def up(self) -> bool:
        return self.state == ESTABLISHED


@dataclass(frozen=True)
class Route:
    prefix: str
    protocol: str
    next_hops: tuple[str, ...]      # interfaces of the next hops installed in the kernel (FIB)


@dataclass
class SwitchState:
    switch: str
    sessions: dict[str, Session] = field(default_factory=dict)   # by interface
    routes: dict[str, Route] = field(default_factory=dict)       # by prefix, the installed route
    error: str = ""                                              # vtysh could not be asked

    @property
    def bgp_routes(self) -> list[Route]:
        return [r for r in self.routes.values() if r.protocol == "bgp"]


def parse_neighbors(switch: str, data: dict[str, Any]) -> dict[str, Session]:
    """`show bgp neighbors json`: each neighbour's state, and the reason where it is not up."""
    out = {}
    for name, peer in data.items():
        if not isinstance(peer, dict):
            continue
        state = str(peer.get("bgpState", "unknown"))
        reason = ""
        if state != ESTABLISHED:
            parts = []
            if peer.get("lastResetDueTo"):
                parts.append(f"last reset: {peer['lastResetDueTo']}")
            if peer.get("lastNotificationReason"):
                parts.append(f"notification: {peer['lastNotificationReason']}")
            if peer.get("lastErrorCodeSubcode"):
                parts.append(f"error code {peer['lastErrorCodeSubcode']}")
            if not parts:
                parts.append("no BGP OPEN from the peer (its link is down or it is not running)"
                             if state in ("Active", "Connect", "Idle") else "session not up")
            reason = "; ".join(parts)
        out[name] = Session(switch, name, state, reason)
    return out


def parse_routes(data: dict[str, Any]) -> dict[str, Route]:
    """`show ip route json`: per prefix, the selected route and its next hops in the kernel."""
    out = {}
    for prefix, entries in data.items():
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if not (isinstance(entry, dict) and entry.get("selected")):
                continue
            hops = tuple(sorted(str(h.get("interfaceName", h.get("ip", "?"))) for h in entry.get("nexthops", ())
                                if isinstance(h, dict) and h.get("fib")))
            out[prefix] = Route(prefix, str(entry.get("protocol", "")), hops)
            break
    return out


@dataclass
class Snapshot:
    switches: dict[str, SwitchState]

    def sessions(self) -> list[Session]:
        return [s for st in self.switches.values() for s in st.sessions.values()]

    def signature(self) -> tuple[Any, ...]:
        """What converged means stays unchanged: every session's state and every route's next hops."""
        return tuple((name, tuple(sorted((s.interface, s.state) for s in st.sessions.values())),
                      tuple(sorted((r.prefix, r.next_hops) for r in st.routes.values())))
                     for name, st in sorted(self.switches.items()))

    def width(self, switch: str, loopback: str) -> int:
        route = self.switches[switch].routes.get(f"{loopback}/32")
        return len(route.next_hops) if route else 0


@dataclass(frozen=True)
class LeafWidths:
    """One leaf's ECMP width towards every other leaf's loopback, against the design's spines."""

    leaf: str
    spines: int             # distinct spines (the tier above) the leaf is wired to in the twin
    uplinks: int            # its links to them in the twin (the width to expect when every link is kept)
    widths: dict[str, int]  # other leaf -> next hops to its loopback

    @property
    def low(self) -> int:
        return min(self.widths.values(), default=0)

    @property
    def high(self) -> int:
        return max(self.widths.values(), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"leaf": self.leaf, "spines": self.spines, "uplinks": self.uplinks, "min": self.low,
                "max": self.high, "widths": dict(self.widths)}


def leaf_widths(snap: Snapshot, leaves: list[str], loopbacks: dict[str, str], reach: dict[str, set[str]],
                spines: dict[str, int], uplinks: dict[str, int]) -> list[LeafWidths]:
    """Each live leaf's width towards every other leaf it shares a fabric (plane) with."""
    out = []
    for leaf in leaves:
        if leaf not in snap.switches:
            continue
        widths = {other: snap.width(leaf, loopbacks[other]) for other in leaves
                  if other != leaf and other in reach.get(leaf, set())}
        out.append(LeafWidths(leaf, spines.get(leaf, 0), uplinks.get(leaf, 0), widths))
    return out


@dataclass(frozen=True)
class TierRoutes:
    tier: str
    switches: int
    routes: int             # installed routes, summed over the tier's switches
    bgp_routes: int
    next_hops: int          # installed next hops of the BGP routes, summed
    routes_min: int
    routes_max: int

    def to_json(self) -> dict[str, Any]:
        return {"tier": self.tier, "switches": self.switches, "routes": self.routes, "bgp_routes": self.bgp_routes,
                "next_hops": self.next_hops, "routes_min": self.routes_min, "routes_max": self.routes_max}


def tier_routes(snap: Snapshot, roles: dict[str, str], order: list[str]) -> list[TierRoutes]:
    out = []
    for tier in order:
        states = [st for name, st in snap.switches.items() if roles.get(name) == tier]
        if not states:
            continue
        counts = [len(st.routes) for st in states]
        out.append(TierRoutes(tier, len(states), sum(counts), sum(len(st.bgp_routes) for st in states),
                              sum(len(r.next_hops) for st in states for r in st.bgp_routes),
                              min(counts), max(counts)))
    return out
