"""Faults the routing twin applies once the fabric has converged, written as `KIND:WHAT`:

- `link:A--B`: every link between switches A and B is down (the pair's bundle; one link when
  bundles are collapsed);
- `link:SWITCH:PORT`: the one link at that port of the switch (design port N is swpN);
- `switch:NAME`: the switch is dead: its zebra and bgpd are stopped and every port of it goes
  down, so its neighbours see the carrier drop as they would on a real fabric.

Names are the switches' names as the exports write them (`leaf-1`, `p2-spine-3`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from designer.io.frr import RoutedSwitch

LinkEnds = tuple[tuple[str, int], tuple[str, int]]
KINDS = ("link", "switch")


class FaultError(ValueError):
    """A fault that cannot be read or names nothing in the twin; one line."""


@dataclass(frozen=True)
class Fault:
    kind: str
    target: str                          # as written
    switches: tuple[str, ...] = ()       # switches it kills
    links: tuple[LinkEnds, ...] = ()     # links it takes down

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "switches": list(self.switches),
                "links": [{"a": a, "port_a": pa, "b": b, "port_b": pb} for (a, pa), (b, pb) in self.links]}


def _switch(name: str, plan: dict[str, RoutedSwitch]) -> str:
    if name not in plan:
        near = ", ".join(sorted(plan)[:4])
        raise FaultError(f"no switch '{name}' in the design (switches are named like {near}...)")
    return name


def parse_fault(text: str, plan: dict[str, RoutedSwitch], links: Sequence[LinkEnds]) -> Fault:
    kind, sep, what = text.partition(":")
    if not sep or kind not in KINDS or not what:
        raise FaultError(f"fault '{text}': write link:A--B, link:SWITCH:PORT or switch:NAME")
    if kind == "switch":
        return Fault(kind, text, switches=(_switch(what, plan),))
    if "--" in what:
        a, _, b = what.partition("--")
        pair = {_switch(a, plan), _switch(b, plan)}
        found = tuple(link for link in links if {link[0][0], link[1][0]} == pair)
        if not found:
            raise FaultError(f"fault '{text}': {a} and {b} are not linked")
        return Fault(kind, text, links=found)
    name, sep, port = what.rpartition(":")
    if not sep or not port.isdigit():
        raise FaultError(f"fault '{text}': write link:A--B, link:SWITCH:PORT or switch:NAME")
    _switch(name, plan)
    found = tuple(link for link in links if (name, int(port)) in link)
    if not found:
        raise FaultError(f"fault '{text}': port {port} of {name} carries no switch-to-switch link in the twin")
    return Fault(kind, text, links=found)
