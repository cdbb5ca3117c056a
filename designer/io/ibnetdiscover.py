"""ibnetdiscover text: the design written as ibnetdiscover would print it, and captures read back.

The format (infiniband-diags): one block per node, headed by `vendid=`, `devid=` and a GUID
line, then `Switch N "S-<guid>" # "<description>" ...` or `Ca N "H-<guid>" # "<description>"`,
then one line per connected port:

    [port] "S-<guid>"[peer port](peer port guid) # "peer description" lid N 4xNDR

Each link appears twice, once from each end. Reading keeps what real fabrics contain: SHARP
aggregation nodes (CAs on switch port 65, not endpoints), default HCA descriptions, degraded
width and speed (`1xSDR`, `4xHDR` on an NDR fabric), a switch cabled to itself, and stray lines
that are not part of the format (counted, not fatal). Anything that is not an ibnetdiscover
capture at all (binary data, another format, no node blocks) is refused with one line.

Device ids (vendid/devid) are written only where the catalog gives them; descriptions carry the
switch model the way NVIDIA's switches report it (`MF0;<host>:<model>/U1`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

# Port rate per lane by the speed code ibnetdiscover prints (IBTA), in Gb/s: a 4x NDR port is 400G.
LANE_GBPS = {"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10, "FDR": 14, "EDR": 25, "HDR": 50, "NDR": 100,
             "XDR": 200}
CODE_FOR_GBPS = {200: "4xHDR", 400: "4xNDR", 800: "4xXDR", 100: "4xEDR", 56: "4xFDR"}
MAX_BYTES = 256 * 1024 * 1024


class CaptureError(ValueError):
    """A file that is not (or no longer) an ibnetdiscover capture; the message names it."""


@dataclass
class Node:
    guid: str
    kind: str                    # "switch" or "ca"
    ports: int
    description: str
    vendid: str = ""
    devid: str = ""

    @property
    def aggregation(self) -> bool:
        """A SHARP aggregation node: a CA inside a switch, not an endpoint."""
        return self.kind == "ca" and "aggregation node" in self.description.lower()


@dataclass(frozen=True)
class Link:
    a: str          # guid
    pa: int
    b: str
    pb: int
    width: str      # "4x"
    speed: str      # "NDR"

    @property
    def gbps(self) -> float:
        lanes = int(self.width.rstrip("x") or 0)
        return lanes * LANE_GBPS.get(self.speed, 0)


@dataclass
class Capture:
    nodes: dict[str, Node] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    stray_lines: int = 0
    source: str = ""

    def speed_codes(self) -> Counter:
        return Counter(f"{link.width}{link.speed}" for link in self.links)


_HEADER = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"([SH])-([0-9a-fA-F]+)"\s*(?:#\s*"(.*?)")?')
_PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?'
                   r'\s*(?:#\s*(?:lid \d+ lmc \d+ )?"(.*?)")?.*?(\d+x)([A-Z0-9]+)\s*$')
_KEY = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|rtrguid)=(\S+)")


def parse(text: str, source: str = "capture") -> Capture:
    """The nodes and links of an ibnetdiscover capture; raises CaptureError for anything else."""
    if "\x00" in text[:4096]:
        raise CaptureError(f"{source}: binary data, not ibnetdiscover text")
    cap = Capture(source=source)
    current: Node | None = None
    pending: dict[str, str] = {}
    seen: dict[tuple, int] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key = _KEY.match(line)
        if key:
            pending[key.group(1)] = key.group(2)
            continue
        head = _HEADER.match(line)
        if head:
            kind = "switch" if head.group(1) == "Switch" else "ca"
            guid = head.group(4).lower().lstrip("0") or "0"
            current = Node(guid, kind, int(head.group(2)), head.group(5) or "",
                           pending.get("vendid", ""), pending.get("devid", ""))
            cap.nodes[guid] = current
            pending = {}
            continue
        port = _PORT.match(line)
        if port and current is not None:
            peer = port.group(4).lower().lstrip("0") or "0"
            a, pa, b, pb = current.guid, int(port.group(1)), peer, int(port.group(5))
            ends = tuple(sorted([(a, pa), (b, pb)]))
            found = Link(a, pa, b, pb, port.group(8), port.group(9))
            if ends not in seen:
                seen[ends] = len(cap.links)
                cap.links.append(found)
            elif found.gbps < cap.links[seen[ends]].gbps:
                cap.links[seen[ends]] = found   # the two ends disagree: the slower report is the link's
            if peer not in cap.nodes and port.group(7) is not None:
                # A peer whose own block is missing (a truncated capture) still gets a node.
                cap.nodes.setdefault(peer, Node(peer, "switch" if port.group(3) == "S" else "ca", 0, port.group(7)))
            continue
        if line in ("Non-Chassis Nodes",) or line.startswith("Chassis"):
            continue
        cap.stray_lines += 1
    if not any(n.ports for n in cap.nodes.values()):
        raise CaptureError(f"{source}: no Switch or Ca blocks: not an ibnetdiscover capture")
    for guid, node in cap.nodes.items():
        if not node.ports:
            node.ports = max((l.pa if l.a == guid else l.pb for l in cap.links if guid in (l.a, l.b)), default=1)
    return cap


def read(path) -> Capture:
    """Read and parse a capture file, with a size cap read from the file itself."""
    from pathlib import Path

    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise CaptureError(f"{path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise CaptureError(f"{path}: larger than {MAX_BYTES // 2**20} MiB: not a capture this tool reads")
    if b"\x00" in data[:4096]:
        raise CaptureError(f"{path}: binary data, not ibnetdiscover text")
    return parse(data.decode("utf-8", "replace"), str(path))


# --- writing -----------------------------------------------------------------------------------

def _switch_model(catalog, model_id: str) -> str:
    sw = catalog.switch(model_id)
    if sw.part_number:
        return sw.part_number.split("-")[0]
    return sw.name.split()[-1]


def host_of(server: int, namer) -> str:
    return namer(server)


def to_text(src) -> str:
    """The design of an ExportSource as the ibnetdiscover text of its fabric."""
    g = src.graph
    catalog = src.catalog
    namer = src.namer
    guid: dict[str, int] = {}
    for i, node in enumerate(sorted(g.nodes, key=lambda v: (g.nodes[v]["level"], v))):
        guid[node] = 0xE41D2D0300000000 + (i + 1) * 0x10
    models: dict[str, str] = {}

    def desc(node: str) -> str:
        d = g.nodes[node]
        if d["role"] == "nic":
            return f"{host_of(d['server'], namer)} mlx5_{d['port']}"
        model = models.get(d["model"]) or models.setdefault(d["model"], _switch_model(catalog, d["model"]))
        return f"MF0;{node}:{model}/U1"

    def code(gbps: int) -> str:
        return CODE_FOR_GBPS.get(int(gbps), f"4x{int(gbps)}G")

    ports: dict[str, list[tuple[int, str, int, int]]] = {v: [] for v in g.nodes}
    for u, v, d in g.edges(data=True):
        lower = d["a"]
        upper = v if lower == u else u
        ports[lower].append((d["pa"], upper, d["pb"], d["gbps"]))
        ports[upper].append((d["pb"], lower, d["pa"], d["gbps"]))
    lid = {node: i + 1 for i, node in enumerate(sorted(g.nodes, key=lambda v: guid[v]))}
    lines = ["#", "# Topology file: written by Fabric Designer from the design "
             f"'{src.name}' (the fabric as ibnetdiscover would print it)", "#", ""]
    for node in sorted(g.nodes, key=lambda v: (-g.nodes[v]["level"], guid[v])):
        d = g.nodes[node]
        gid = f"{guid[node]:016x}"
        if d["role"] == "nic":
            lines += ["vendid=0x2c9", f"caguid=0x{gid}", f'Ca\t1 "H-{gid}"\t\t# "{desc(node)}"']
            for port, peer, peer_port, gbps in sorted(ports[node]):
                lines.append(f'[{port}]({guid[node] + port:x}) \t"S-{guid[peer]:016x}"[{peer_port}]\t\t'
                             f'# lid {lid[node]} lmc 0 "{desc(peer)}" lid {lid[peer]} {code(gbps)}')
        else:
            sw = catalog.switch(d["model"])
            radix = max((m.count for m in sw.port_modes), default=0) or max((p for p, *_ in ports[node]), default=1)
            lines += ["vendid=0x2c9", f"switchguid=0x{gid}({gid})",
                      f'Switch\t{radix} "S-{gid}"\t\t# "{desc(node)}" enhanced port 0 lid {lid[node]} lmc 0']
            for port, peer, peer_port, gbps in sorted(ports[node]):
                prefix = "H" if g.nodes[peer]["role"] == "nic" else "S"
                peer_guid = f'({guid[peer] + peer_port:x})' if prefix == "H" else ""
                lines.append(f'[{port}]\t"{prefix}-{guid[peer]:016x}"[{peer_port}]{peer_guid}\t\t'
                             f'# "{desc(peer)}" lid {lid[peer]} {code(gbps)}')
        lines.append("")
    return "\n".join(lines)


# --- to the model ------------------------------------------------------------------------------

def to_as_built(cap: Capture):
    """The capture as an AsBuilt: switches, host ports and links; SHARP aggregation nodes left out."""
    from designer.model.topology.as_built import (
        DEFAULT_HCA,
        HOST_PORT,
        SWITCH_DESC,
        AsBuilt,
        AsBuiltLink,
        Device,
    )

    asb = AsBuilt(source=cap.source)
    name_of: dict[tuple[str, int], str] = {}
    used: Counter = Counter()
    skipped = 0
    for guid, node in cap.nodes.items():
        if node.aggregation:
            skipped += 1
            continue
        if node.kind == "switch":
            match = SWITCH_DESC.match(node.description)
            name = match.group("host") if match else (node.description or f"S-{guid}")
            used[name] += 1
            if used[name] > 1:
                name = f"{name} (S-{guid})"
            default = not match or bool(re.fullmatch(r"(switch|sw)-?[0-9a-f]{6,}", match.group("host"), re.I))
            asb.devices[name] = Device(name, "switch", node.description, match.group("model") if match else "",
                                       default_named=default)
            for port in range(0, node.ports + 1):
                name_of[(guid, port)] = name
            continue
        match = HOST_PORT.match(node.description)
        default = not match or bool(DEFAULT_HCA.search(node.description)) or match.group("host") == "localhost"
        host = match.group("host") if match and not default else f"H-{guid}"
        index = int(match.group("n")) if match and not default else 0
        base = node.description.strip() if match and not default else host
        for port in range(1, max(node.ports, 1) + 1):
            name = base if node.ports <= 1 else f"{base}/{port}"
            asb.devices[name] = Device(name, "port", node.description, host=host, port_index=index,
                                       default_named=default)
            name_of[(guid, port)] = name
    if skipped:
        asb.notes.append(f"{skipped} SHARP aggregation node(s) left out: they sit inside switches, not endpoints")
    aggregation = {g for g, n in cap.nodes.items() if n.aggregation}
    for link in cap.links:
        if link.a in aggregation or link.b in aggregation:
            continue
        a, b = name_of.get((link.a, link.pa)), name_of.get((link.b, link.pb))
        if a is None or b is None:
            asb.notes.append(f"a link to a node the capture does not describe was left out ({link.a}/{link.b})")
            continue
        if a == b:
            asb.notes.append(f"{a} is cabled to itself (ports {link.pa} and {link.pb})")
        asb.links.append(AsBuiltLink(a, link.pa, b, link.pb, link.gbps, f"{link.width}{link.speed}"))
    if cap.stray_lines:
        asb.notes.append(f"{cap.stray_lines} line(s) that are not part of the format were skipped")
    return asb
