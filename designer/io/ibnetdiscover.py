"""ibnetdiscover text: read a capture into an AsBuilt fabric, and write a design as that text.

The format (infiniband-diags `ibnetdiscover`): one block per node, headed by `vendid=`,
`devid=`, `sysimgguid=`, `switchguid=`/`caguid=` lines and a `Switch N "S-guid" # "desc" ...`
or `Ca N "H-guid" # "desc"` line, then one line per connected port:
  switch: `[port] "S-guid"[peer port](peer port guid) # "peer desc" lid N 4xNDR`
  CA:     `[port](port guid) "S-guid"[peer port] # lid N lmc 0 "peer desc" lid M 4xNDR`
Every link appears once from each end; the reader keeps it once. Lines that belong to no
block (stderr messages, headers such as "Non-Chassis Nodes") are skipped and counted.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable

from designer.catalog import Catalog, default_catalog
from designer.catalog.device_ids import device_ids
from designer.io.atomic import write_atomic
from designer.io.markup import one_line
from designer.model.intent.design import FabricDesign
from designer.model.topology.asbuilt import (
    AsBuilt,
    Device,
    Link,
    ib_gbps,
    parse_host_description,
    parse_switch_description,
)
from designer.model.topology.derive import Derived, derive


class CaptureError(ValueError):
    """A capture cannot be read; the message is one line fit for the user.

    A message may quote the capture (a malformed field), so it is made one printable line here,
    once for every reader: line breaks and control characters become spaces.
    """

    def __init__(self, message: str):
        super().__init__(one_line(message, 600))


_NODE = re.compile(r'^(?P<kind>Switch|Ca|Rt)\s+(?P<ports>\d+)\s+"(?P<id>[SHR]-[0-9a-fA-F]+)"'
                   r'\s*(?:#\s*"(?P<desc>[^"]*)")?')
_PORT = re.compile(r'^\[(?P<port>\d+)\](?:\([0-9a-fA-F]+\))?\s+"(?P<peer>[SHR]-[0-9a-fA-F]+)"\[(?P<pport>\d+)\]'
                   r'(?:\([0-9a-fA-F]+\))?\s*#(?P<rest>.*)$')
_RATE = re.compile(r"\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b", re.IGNORECASE)
_QUOTED = re.compile(r'"([^"]*)"')
_ATTR = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|routerguid)=", re.IGNORECASE)


def looks_like_ibnetdiscover(text: str) -> bool:
    return bool(re.search(r'^(Switch|Ca)\s+\d+\s+"[SH]-[0-9a-fA-F]+"', text, re.MULTILINE))


def parse_ibnetdiscover(text: str, source: str = "<text>") -> AsBuilt:
    """The devices and links of an ibnetdiscover dump; raises CaptureError for anything else."""
    if "\x00" in text:
        raise CaptureError(f"{source}: binary data, not an ibnetdiscover dump")
    fabric = AsBuilt("ibnetdiscover")
    seen: dict[tuple[str, int, str, int], int] = {}   # (end, port, end, port), ends in order -> link index
    current: str | None = None
    devid = 0
    peers: set[str] = set()             # devices named (with a description) by port lines
    rates: dict[str, tuple[int, str, float]] = {}   # '4xNDR' -> (4, 'NDR', 400.0)
    skipped = 0
    port_match, node_match, attr_match = _PORT.match, _NODE.match, _ATTR.match
    lines = text.splitlines()
    for line in lines:
        # Port lines are nearly all of a dump and start the line: try them first, unstripped
        # (the pattern ends at the line's end), then the rarer block lines.
        m = port_match(line) if line[:1] == "[" else None
        if m is None:
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                continue
            m = port_match(stripped) if stripped[0] == "[" else None
        if m and current is not None:
            port, peer, pport, rest = m.groups()
            if rest.count('"') >= 2:
                peers.add(peer)
            # The rate is the line's last word nearly always: look it up before searching.
            rest = rest.rstrip()
            last = rest[rest.rfind(" ") + 1:]
            rate = rates.get(last)
            if rate is None:
                found = _RATE.search(rest)
                token = found.group(0) if found else ""
                rate = rates.get(token)
                if rate is None:
                    width, speed = (int(found.group(1)), found.group(2).upper()) if found else (4, "")
                    rate = rates[token] = (width, speed, ib_gbps(width, speed) if speed else 0.0)
                if token == last:
                    rates[last] = rate
            width, speed, gbps = rate
            port, pport = int(port), int(pport)
            key = (current, port, peer, pport) if (current, port) <= (peer, pport) else (peer, pport, current, port)
            if key not in seen:
                seen[key] = len(fabric.links)
                fabric.links.append(Link(current, port, peer, pport, gbps, width, speed))
            elif gbps < fabric.links[seen[key]].gbps:
                # The two ends disagree (one reads 1xSDR, the other 4xSDR): keep the slower.
                fabric.links[seen[key]] = Link(current, port, peer, pport, gbps, width, speed)
            continue
        stripped = line.strip()
        if m is None and attr_match(stripped):
            if stripped[:7].lower() == "vendid=":
                current, devid = None, 0
            elif stripped[:6].lower() == "devid=":
                try:
                    devid = int(stripped.split("=", 1)[1].strip(), 16)
                except ValueError:
                    devid = 0
            continue
        n = node_match(stripped) if m is None else None
        if n:
            current = n.group("id")
            fabric.devices[current] = _device(current, n.group("kind"), n.group("desc") or "",
                                              int(n.group("ports")), devid)
            continue
        skipped += 1
    if not fabric.devices:
        raise CaptureError(f"{source}: not an ibnetdiscover dump (no Switch or Ca block found)")
    missing = sorted(p for p in peers if p not in fabric.devices)
    if missing:
        last = next((ln for ln in reversed(lines) if ln.strip()), "")
        cut = "" if text.endswith("\n") and _PORT.match(last.strip()) is None else ", and it ends mid-block"
        raise CaptureError(f"{source}: the dump looks truncated: {len(missing)} device(s) named by links "
                           f"have no block of their own (first {missing[0]}){cut}")
    if skipped:
        fabric.notes.append(f"{skipped} line(s) that are not part of the ibnetdiscover format were skipped")
    return fabric


def _device(node_id: str, kind: str, desc: str, ports: int, devid: int) -> Device:
    if kind == "Switch":
        name, part, default = parse_switch_description(desc)
        if default:
            name = f"{desc.strip() or 'switch'} ({node_id[2:]})"
        return Device(node_id, name, "switch", desc, part, devid, ports, default_named=default)
    aggregation = "aggregation node" in desc.lower()
    host, hca, default = parse_host_description(desc)
    name = desc.strip() if host else f"{desc.strip() or 'HCA'} ({node_id[2:]})"
    return Device(node_id, name, "host", desc, "", devid, ports, host, hca,
                  default_named=default and not aggregation, aggregation=aggregation)


# --- exporter -------------------------------------------------------------------------------

_SPEED_NAME = {100: "EDR", 200: "HDR", 400: "NDR", 800: "XDR"}


def _devid(catalog_id: str, kind: str) -> int:
    """The PCI device id a part reports (resources/ids/infiniband.toml); 0 where none is published."""
    found = device_ids().for_part(catalog_id, kind)
    return found.devid if found else 0


def _guid(name: str) -> str:
    return hashlib.blake2b(name.encode(), digest_size=8).hexdigest()


def _rate(gbps: int) -> str:
    if gbps in _SPEED_NAME:
        return f"4x{_SPEED_NAME[gbps]}"
    if gbps * 2 in _SPEED_NAME:             # NDR200, HDR100: two lanes
        return f"2x{_SPEED_NAME[gbps * 2]}"
    raise ValueError(f"{gbps}G links have no InfiniBand speed name")


def _part(switch) -> str:
    return (switch.part_number or switch.id.upper()).split("-")[0]


def export_ibnetdiscover(derived: Derived, aggregation_nodes: bool = True,
                         host_name: Callable[[int], str] | None = None) -> str:
    """The text that ibnetdiscover would print for the design's fabric.

    Switches are described `MF0;<device id>:<part>/U1`, NIC ports `<host> mlx5_<i>` (one CA per
    NIC port, as on DGX systems), the host named by `host_name(server index)` (the export's node
    pattern) or `srv-N`. Switches with in-network reduction get a SHARP aggregation
    node CA on the port after their last one. GUIDs are digests of the device ids, so the same
    design always gives the same text.
    """
    r = derived.resolved
    if r.family != "infiniband":
        raise ValueError(f"ibnetdiscover describes InfiniBand fabrics; this design is {r.technology.id}")
    g = derived.graph
    guid = {n: _guid(f"{g.graph.get('name', '')}/{n}") for n in g.nodes}
    lid = {n: i + 1 for i, n in enumerate(sorted(g.nodes, key=lambda n: (-g.nodes[n]["level"], n)))}
    model = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    vendid = device_ids().vendid
    # The design name is the user's: one line, no controls, so it cannot leave the comment.
    out = ["#", f"# Topology file: exported by Fabric Designer for \"{one_line(derived.design.meta.name, 120)}\""]
    # Say which parts have no published device id, rather than print a made-up one.
    roles = {role for _, role in g.nodes(data="role")}
    unknown = [f"{part.name} switch" for part in dict.fromkeys(m for n, m in model.items() if n in roles)
               if not _devid(part.id, "switch")]
    if aggregation_nodes and any(m.in_network_reduction and not _devid(m.id, "aggregation") for m in model.values()):
        unknown.append("SHARP aggregation nodes")
    if not _devid(r.nic.id, "hca"):
        unknown.append(f"{r.nic.name} HCAs")
    if unknown:
        out.append(f"# devid=0x0000: no published PCI device id for {', '.join(unknown)}")
    out += ["#", ""]

    def desc(n: str) -> str:
        d = g.nodes[n]
        if d["role"] == "nic":
            server, port = n.split(".nic-")
            host = host_name(int(server[4:]) - 1) if host_name else server
            return f"{host} mlx5_{int(port) - 1}"
        return f"MF0;{n}:{_part(model[d['role']])}/U1"

    def ends(n: str):
        """(own port, peer, peer port, gbps) of every link at node n, by own port."""
        rows = []
        for _, peer, d in g.edges(n, data=True):
            own, other = (d["pa"], d["pb"]) if d["a"] == n else (d["pb"], d["pa"])
            rows.append((own, peer, other, d["gbps"]))
        return sorted(rows)

    switches = sorted((n for n in g.nodes if g.nodes[n]["role"] != "nic"),
                      key=lambda n: (-g.nodes[n]["level"], g.nodes[n]["plane"], g.nodes[n]["index"]))
    aggregators = []
    for n in switches:
        sw = model[g.nodes[n]["role"]]
        ports = max(sw.ports_at(r.uplink_gbps), sw.ports_at(r.link_gbps), max((p for p, *_ in ends(n)), default=0))
        out += [f"vendid=0x{vendid:x}", f"devid=0x{_devid(sw.id, 'switch'):04x}", f"sysimgguid=0x{guid[n]}",
                f"switchguid=0x{guid[n]}({guid[n]})",
                f'Switch\t{ports + 1 if aggregation_nodes and sw.in_network_reduction else ports} "S-{guid[n]}"'
                f'\t\t# "{desc(n)}" enhanced port 0 lid {lid[n]} lmc 0']
        for own, peer, other, gbps in ends(n):
            kind = "H" if g.nodes[peer]["role"] == "nic" else "S"
            pguid = f"({guid[peer]})" if kind == "H" else ""
            out.append(f'[{own}]\t"{kind}-{guid[peer]}"[{other}]{pguid}\t\t'
                       f'# "{desc(peer)}" lid {lid[peer]} {_rate(gbps)}')
        if aggregation_nodes and sw.in_network_reduction:
            agg = _guid(f"sharp/{guid[n]}")
            aggregators.append((n, ports + 1, agg, _devid(sw.id, "aggregation")))
            out.append(f'[{ports + 1}]\t"H-{agg}"[1]({agg})\t\t# "Mellanox Technologies Aggregation Node" '
                       f'lid {len(lid) + len(aggregators)} {_rate(r.uplink_gbps)}')
        out.append("")
    hca_devid = _devid(r.nic.id, "hca")
    for n in sorted((n for n in g.nodes if g.nodes[n]["role"] == "nic"),
                    key=lambda n: (g.nodes[n]["server"], g.nodes[n]["port"])):
        out += [f"vendid=0x{vendid:x}", f"devid=0x{hca_devid:04x}", f"sysimgguid=0x{guid[n]}", f"caguid=0x{guid[n]}",
                f'Ca\t1 "H-{guid[n]}"\t\t# "{desc(n)}"']
        for own, peer, other, gbps in ends(n):
            out.append(f'[{own}]({guid[n]})\t"S-{guid[peer]}"[{other}]\t\t# lid {lid[n]} lmc 0 "{desc(peer)}" '
                       f'lid {lid[peer]} {_rate(gbps)}')
        out.append("")
    for i, (n, port, agg, agg_devid) in enumerate(aggregators):
        out += [f"vendid=0x{vendid:x}", f"devid=0x{agg_devid:04x}", f"sysimgguid=0x{agg}", f"caguid=0x{agg}",
                f'Ca\t1 "H-{agg}"\t\t# "Mellanox Technologies Aggregation Node"',
                f'[1]({agg})\t"S-{guid[n]}"[{port}]\t\t# lid {len(lid) + i + 1} lmc 0 "{desc(n)}" '
                f'lid {lid[n]} {_rate(r.uplink_gbps)}', ""]
    return "\n".join(out)


def write_ibnetdiscover(design: FabricDesign, path: str | os.PathLike, catalog: Catalog | None = None) -> None:
    """Write the design as an ibnetdiscover dump, atomically."""
    write_atomic(path, export_ibnetdiscover(derive(design, catalog or default_catalog())))
