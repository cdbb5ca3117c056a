"""Faults a twin applies through the simulator's console before the subnet manager runs.

Written on the command line as `KIND:WHAT`:

- `link:DEVICE:PORT`: the cable at that port of a switch (`leaf-3:17`) or of a server
  (`gpu-node-0004:2`, the server's NIC port 2, mlx5_1) is down (`Unlink "dev"[port]`);
- `switch:NAME`: the switch is absent (`Unlink "dev"`, every link of it);
- `server:NAME`: every NIC port of the server is unplugged;
- `cable:A--B`: the first cable (by A's port) between switches A and B is down (what-if's
  `A--B`);
- `swap:DEVICE:PORT,DEVICE:PORT`: the cables at two switch ports are swapped (both unlinked,
  then each end re-linked to the other's peer);
- `width:DEVICE:PORT`: the cable at that port trained at 1x instead of 4x;
- `speed:DEVICE:PORT`: the cable at that port runs at SDR while the others run at QDR.

ibsim knows the widths 1x, 4x, 8x and 12x and the speeds SDR, DDR and QDR, and takes each
link's from the fabric file it loads, not from its console: the twin gives every link 4x QDR
(the fastest it knows; the design's NDR or XDR is beyond it) and writes the slow links into
the file (`rate`), so a capture shows them below the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer.model.topology.asbuilt import AsBuilt, Link

KINDS = ("link", "switch", "server", "swap", "cable", "width", "speed")
SIM_RATE = "4xQDR"                               # every link, in the simulator
SLOW_RATE = {"width": "1xQDR", "speed": "4xSDR"}


class FaultError(ValueError):
    """A fault that cannot be read or applied; one line."""


@dataclass(frozen=True)
class Fault:
    kind: str
    target: str                 # as written
    commands: tuple[str, ...]   # the simulator's console lines
    down: tuple[tuple[str, int], ...]   # switch-side (device id, port) of every link it takes down
    devices: tuple[str, ...] = ()       # devices it isolates (switch or the server's NICs)
    links: tuple[tuple[str, int, str, int], ...] = ()   # the design's links it touches (ids, ports)
    rate: str = ""                      # width and speed of the link in the simulator's file

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "target": self.target, "console": list(self.commands), "rate": self.rate or None,
                "links": [{"a": a, "port_a": pa, "b": b, "port_b": pb} for a, pa, b, pb in self.links]}


class FabricIndex:
    """Names to the simulator's node ids ("S-<guid>", "H-<guid>") and the links at each port."""

    def __init__(self, fabric: AsBuilt) -> None:
        self.fabric = fabric
        self.switch: dict[str, str] = {}
        self.nics: dict[str, dict[int, str]] = {}     # host -> NIC port (1-based) -> node id
        for d in fabric.devices.values():
            if d.kind == "switch":
                self.switch[d.name] = d.id
            elif d.host and not d.aggregation:
                self.nics.setdefault(d.host, {})[d.hca + 1] = d.id
        self.at: dict[tuple[str, int], Link] = {}
        for w in fabric.links:
            self.at[(w.a, w.pa)] = w
            self.at[(w.b, w.pb)] = w

    def device(self, name: str) -> str:
        if name in self.switch:
            return self.switch[name]
        raise FaultError(f"no switch named '{name}' in the design")

    def port_of(self, spec: str) -> tuple[str, int]:
        name, sep, port = spec.rpartition(":")
        if not sep or not port.isdigit():
            raise FaultError(f"'{spec}': give DEVICE:PORT")
        if name in self.nics:
            node = self.nics[name].get(int(port))
            if node is None:
                raise FaultError(f"server '{name}' has no NIC port {port}")
            return node, 1
        return self.device(name), int(port)

    def link(self, node: str, port: int, spec: str) -> Link:
        found = self.at.get((node, port))
        if found is None:
            raise FaultError(f"'{spec}': no cable at that port in the design")
        return found


def _ends(w: Link) -> tuple[str, int, str, int]:
    return (w.a, w.pa, w.b, w.pb)


def parse_fault(text: str, index: FabricIndex) -> Fault:
    kind, sep, what = text.strip().partition(":")
    kind = kind.lower()
    if not sep or kind not in KINDS or not what:
        raise FaultError(f"fault '{text}': use link:DEVICE:PORT, width:DEVICE:PORT, speed:DEVICE:PORT, "
                         "switch:NAME, server:NAME, cable:A--B or swap:DEV:PORT,DEV:PORT")
    if kind == "link":
        node, port = index.port_of(what)
        w = index.link(node, port, what)
        return Fault(kind, text, (f'Unlink "{node}"[{port}]',), ((w.a, w.pa), (w.b, w.pb)), (), (_ends(w),))
    if kind in SLOW_RATE:
        node, port = index.port_of(what)
        w = index.link(node, port, what)
        return Fault(kind, text, (), (), (), (_ends(w),), SLOW_RATE[kind])
    if kind == "cable":
        a_name, dash, b_name = what.partition("--")
        if not dash:
            raise FaultError(f"fault '{text}': cable takes two switches, A--B")
        a, b = index.device(a_name.strip()), index.device(b_name.strip())
        cables = sorted((w for w in index.fabric.links if {w.a, w.b} == {a, b}),
                        key=lambda w: w.pa if w.a == a else w.pb)
        if not cables:
            raise FaultError(f"no cable between '{a_name}' and '{b_name}' in the design")
        w = cables[0]
        port = w.pa if w.a == a else w.pb
        return Fault(kind, text, (f'Unlink "{a}"[{port}]',), ((w.a, w.pa), (w.b, w.pb)), (), (_ends(w),))
    if kind == "switch":
        node = index.device(what)
        links = tuple(_ends(w) for w in index.fabric.links if node in (w.a, w.b))
        down = tuple((node, pa if a == node else pb) for a, pa, _, pb in links)
        return Fault(kind, text, (f'Unlink "{node}"',), down, (node,), links)
    if kind == "server":
        nics = index.nics.get(what)
        if not nics:
            raise FaultError(f"no server named '{what}' in the design")
        nodes = tuple(nics[p] for p in sorted(nics))
        links = tuple(_ends(w) for w in index.fabric.links if w.a in nodes or w.b in nodes)
        return Fault(kind, text, tuple(f'Unlink "{n}"' for n in nodes), tuple((n, 1) for n in nodes), nodes, links)
    first, comma, second = what.partition(",")
    if not comma:
        raise FaultError(f"fault '{text}': swap takes two ports, DEV:PORT,DEV:PORT")
    a, pa = index.port_of(first)
    b, pb = index.port_of(second)
    wa, wb = index.link(a, pa, first), index.link(b, pb, second)
    if wa == wb:
        raise FaultError(f"fault '{text}': both ports hold the same cable")
    # The far ends of the two cables trade places.
    fa = (wa.b, wa.pb) if (wa.a, wa.pa) == (a, pa) else (wa.a, wa.pa)
    fb = (wb.b, wb.pb) if (wb.a, wb.pa) == (b, pb) else (wb.a, wb.pa)
    commands = (f'Unlink "{a}"[{pa}]', f'Unlink "{b}"[{pb}]',
                f'Link "{a}"[{pa}] "{fb[0]}"[{fb[1]}]', f'Link "{b}"[{pb}] "{fa[0]}"[{fa[1]}]')
    return Fault(kind, text, commands, ((a, pa), (b, pb), fa, fb), (), (_ends(wa), _ends(wb)))


def check_disjoint(faults: list[Fault]) -> None:
    """Refuse two faults on one cable: the result would depend on their order."""
    seen: set[tuple[str, int, str, int]] = set()
    for f in faults:
        for link in f.links:
            if link in seen:
                raise FaultError(f"fault '{f.target}' touches a cable another fault already takes")
            seen.add(link)


_RATE_TOKEN = re.compile(r"\b\d+x(?:SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b")
_HEAD = re.compile(r'^(?:Switch|Ca)\s+\d+\s+"([SH]-[0-9a-fA-F]+)"')
_PORT_LINE = re.compile(r"^\[(\d+)\]")


def simulator_fabric(text: str, faults: list[Fault]) -> str:
    """The fabric file the simulator loads: every link at SIM_RATE, the slow links' ends at theirs."""
    slow: dict[tuple[str, int], str] = {}
    for f in faults:
        if f.rate:
            for a, pa, b, pb in f.links:
                slow[(a, pa)] = slow[(b, pb)] = f.rate
    out = []
    node = ""
    for line in text.splitlines():
        head = _HEAD.match(line)
        if head:
            node = head.group(1)
        elif line.startswith("["):
            port = _PORT_LINE.match(line)
            rate = slow.get((node, int(port.group(1)))) if port else None
            line = _RATE_TOKEN.sub(rate or SIM_RATE, line)
        out.append(line)
    return "\n".join(out) + "\n"
