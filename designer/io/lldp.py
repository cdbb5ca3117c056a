"""LLDP neighbour tables: `lldpctl -f json`, the json0 layout of Cumulus `net show lldp json`
(every value in a list), Arista EOS, Junos (detail and brief) and Cisco NX-OS JSON, collections
of per-host records ({hostname, data}), and a plain CSV (local device, local port, remote
device, remote port[, speed]).

A device that announces the Bridge or Router capability is a switch, and so is one that
reports neighbours but is seen announcing neither (servers running lldpd announce Station);
the others are hosts, and so is a reporter no neighbour describes whose ports carry host
interface names (a capture of servers' tables only). A host port that lldpd reports by MAC is
named by its port description (its interface name). Each host port becomes one NIC (as an HCA
does in ibnetdiscover), numbered by its interface name across all hosts, so `eth3` is the fourth NIC on every server.
LLDP carries no link rate of its own: links read from JSON take the rate of the operational MAU
type the neighbour announces (`400GbaseCR8`, `1000BaseTFD`), else 0 (unknown). A switch keeps
the system description its neighbours report, which names its model on most systems.

`export_lldp_json` writes a design as the tables its switches would report.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from designer.io.ibnetdiscover import CaptureError
from designer.limits import MAX_CAPTURE_VALUES, InputError, load_json_documents
from designer.model.topology.asbuilt import AsBuilt, Device, Link, natural_key
from designer.model.topology.derive import Derived

if TYPE_CHECKING:
    import networkx as nx

_PORT_NUM = re.compile(r"(\d+)(?!.*\d)", re.ASCII)   # ASCII: int() takes no other digits here
_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GMT]?)", re.IGNORECASE | re.ASCII)
# IANA MAU type names as lldpd prints them: 1000BaseTFD, 10GigBaseCX4, 2p5GbaseT, 400GbaseSR8.
# Linux host interface names (heuristic): eth0, enp1s0f0, ens3, eno1, ib0, ibp1s0, bond0; switch
# ports read swp1, Ethernet0, et-0/0/1, Eth1/1 and the like.
_HOST_PORT = re.compile(r"^(?:eth\d|en[opsx]\w|ib\w|bond\d|mlx\w)", re.ASCII)
_MAU = re.compile(r"^\s*(\d+)(?:p(\d+))?\s*(G|Gig)?\s*base", re.IGNORECASE | re.ASCII)


def looks_like_lldp_json(text: str) -> bool:
    head = text.lstrip()[:4096]
    return head[:1] in "[{" and ('"lldp"' in text[:1000000] or '"interface"' in head
                                 or ('"hostname"' in head and '"data"' in head)
                                 or any(key in head for key in _VENDOR_TABLES))


def looks_like_lldp_csv(text: str) -> bool:
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    return first.count(",") >= 3 and "local" in first.lower() and "remote" in first.lower()


def _first(value: object) -> Any:
    """json0 puts every value in a list; plain lldpctl json does not."""
    while isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict) and "value" in value and len(value) <= 2:
        return value["value"]
    return value


def _port_number(name: str) -> int:
    m = _PORT_NUM.search(name or "")
    return int(m.group(1)) if m else 0


def mau_gbps(mau: object) -> float:
    """Data rate in Gb/s of an operational MAU type name; 0.0 when it names none."""
    m = _MAU.match(str(mau or ""))
    if not m:
        return 0.0
    value = float(f"{m.group(1)}.{m.group(2) or 0}")
    return value if m.group(3) else value / 1000


class _Builder:
    def __init__(self, fmt: str) -> None:
        self.devices: dict[str, Device] = {}     # the fabric's, filled here
        self.links: list[Link] = []
        self.fabric = AsBuilt(fmt, self.devices, self.links)
        self.seen: set[frozenset[tuple[str, str]]] = set()
        self.raw: list[tuple[str, str, str, str, float]] = []
        self.at: dict[tuple[str, str], int] = {}     # (device, port) -> its link in raw
        self.reporters: set[str] = set()
        self.bridges: set[str] = set()
        self.stations: set[str] = set()     # announce capabilities, but neither Bridge nor Router
        self.descriptions: dict[str, str] = {}

    def device(self, name: str) -> None:
        if name not in self.devices:
            self.devices[name] = Device(name, name, "host")

    def _host_ports_only(self, device: str) -> bool:
        ports = [pa if a == device else pb for a, pa, b, pb, _ in self.raw if device in (a, b)]
        return bool(ports) and all(_HOST_PORT.match(p) for p in ports)

    def link(self, a: str, pa: str, b: str, pb: str, gbps: float = 0.0) -> None:
        self.device(a)
        self.device(b)
        key = frozenset(((a, pa), (b, pb)))
        if key in self.seen:
            # the other end's report of the same cable: a rate only one end names is kept (NX-OS
            # and EOS tables name none, lldpd's names the MAU type)
            i = self.at.get((a, pa), self.at.get((b, pb)))
            if i is not None and gbps > self.raw[i][4]:
                self.raw[i] = (*self.raw[i][:4], gbps)
            return
        self.seen.add(key)
        # One port holds one cable: a second report from the same port to the same device is the
        # same cable, named otherwise by the other end (Junos sends an SNMP index, 516, where
        # the brief NX-OS table shows no port description). The interface name is kept.
        for x, px, y, py in ((a, pa, b, pb), (b, pb, a, pa)):
            i = self.at.get((x, px))
            if i is None:
                continue
            ra, rpa, rb, rpb, rg = self.raw[i]
            other, oport = (rb, rpb) if (ra, rpa) == (x, px) else (ra, rpa)
            if other != y:
                continue
            self.at.setdefault((y, py), i)
            if oport.isdigit() and not py.isdigit():
                self.raw[i] = (x, px, y, py, max(gbps, rg))
                self.at[(y, py)] = i
            elif gbps > rg:
                self.raw[i] = (ra, rpa, rb, rpb, gbps)
            return
        self.at[(a, pa)] = self.at[(b, pb)] = len(self.raw)
        self.raw.append((a, pa, b, pb, gbps))

    def finish(self, source: str) -> AsBuilt:
        if not self.raw:
            raise CaptureError(f"{source}: the LLDP capture holds no neighbours")
        # A server that runs lldpd reports neighbours too; what it announces tells it apart. A
        # reporter no neighbour describes (a capture of servers' tables only) is a server when
        # its own ports carry host interface names (eth0, enp1s0f0, ib0), not a switch's.
        unseen_hosts = {r for r in self.reporters - self.bridges - self.stations if self._host_ports_only(r)}
        switches = (self.reporters - self.stations - unseen_hosts) | self.bridges
        devices = self.devices
        for name in switches:
            devices[name] = Device(name, name, "switch", self.descriptions.get(name, ""))
        hosts = {name for name, d in devices.items() if d.kind == "host"}
        # One NIC per host port, numbered by the port's name among all host port names.
        names = sorted({p for a, pa, b, pb, _ in self.raw for dev, p in ((a, pa), (b, pb)) if dev in hosts},
                       key=natural_key)
        index = {p: i for i, p in enumerate(names)}
        nics: dict[tuple[str, str], Device] = {}

        def end(dev: str, port: str) -> str:
            if dev not in hosts:
                return dev
            nic = nics.get((dev, port))
            if nic is None:
                nic = nics[(dev, port)] = Device(f"{dev}:{port}", dev, "host", dev, host=dev, hca=index[port],
                                                 default_named=dev.lower().startswith("localhost"))
            return nic.id

        for a, pa, b, pb, gbps in self.raw:
            self.links.append(Link(end(a, pa), _port_number(pa), end(b, pb), _port_number(pb), gbps, 0,
                                   f"{gbps:g}G" if gbps else ""))
        for name in hosts:
            del devices[name]
        devices.update((nic.id, nic) for nic in nics.values())
        return self.fabric


def _interfaces(lldp: Any) -> list[tuple[str, dict[str, Any]]]:
    lldp = lldp.get("lldp", lldp) if isinstance(lldp, dict) else lldp
    if isinstance(lldp, list):
        lldp = lldp[0] if lldp else {}
    ifaces = lldp.get("interface", []) if isinstance(lldp, dict) else []
    out = []
    if isinstance(ifaces, dict):           # lldpctl -f json: {"eth0": {...}} or list of those
        ifaces = [ifaces]
    for item in ifaces if isinstance(ifaces, list) else ():
        if isinstance(item, dict) and "name" in item:
            out.append((str(_first(item["name"])), item))
        elif isinstance(item, dict):
            out += [(str(k), v) for k, v in item.items() if isinstance(v, dict)]
    return out


def _read_table(b: _Builder, local: str, data: object) -> None:
    b.reporters.add(local)
    b.device(local)
    for port, entry in _interfaces(data):
        chassis = entry.get("chassis", {})
        chassis = chassis[0] if isinstance(chassis, list) and chassis else chassis
        if isinstance(chassis, dict) and "name" not in chassis and len(chassis) == 1:
            name, inner = next(iter(chassis.items()))
            chassis = (inner if isinstance(inner, dict) else {}) | {"name": name}
        remote = _first(chassis.get("name")) if isinstance(chassis, dict) else None
        caps = chassis.get("capability", []) if isinstance(chassis, dict) else []
        pinfo = entry.get("port", {})
        pinfo = pinfo[0] if isinstance(pinfo, list) and pinfo else pinfo
        rport = _port_id(pinfo)
        if not remote or not rport:
            continue
        descr = _first(chassis.get("descr")) if isinstance(chassis, dict) else None
        if descr:
            b.descriptions.setdefault(str(remote), str(descr))
        b.link(local, port, str(remote), str(rport), _port_speed(pinfo))
        caps = [c for c in (caps if isinstance(caps, list) else [caps]) if isinstance(c, dict) and "type" in c]
        if any(c.get("type") in ("Bridge", "Router") and c.get("enabled") for c in caps):
            b.bridges.add(str(remote))
        elif caps:
            b.stations.add(str(remote))


def _port_id(pinfo: object) -> str | None:
    """The neighbour's port as its own table names it.

    lldpd on a Linux host sends its port's MAC as the port id and the interface name only as
    the port description; the name is what the host's own table calls the port, so both reports
    of one cable meet under it."""
    if not isinstance(pinfo, dict):
        return None
    raw = pinfo.get("id")
    while isinstance(raw, list):
        raw = raw[0] if raw else None
    if isinstance(raw, dict) and _first(raw.get("type")) == "mac":
        named = _first(pinfo.get("descr"))
        if isinstance(named, str) and named.strip():
            return named.strip()
    value = _first(raw)
    if isinstance(value, dict):
        value = _first(value.get("value"))
    return str(value) if value not in (None, "") and not isinstance(value, (dict, list)) else None


def _port_speed(pinfo: object) -> float:
    """The rate of the operational MAU type a neighbour announces for its port (0.0 if none)."""
    if not isinstance(pinfo, dict):
        return 0.0
    auto = pinfo.get("auto-negotiation")
    auto = auto[0] if isinstance(auto, list) and auto else auto
    return mau_gbps(_first(auto.get("current"))) if isinstance(auto, dict) else 0.0


def parse_lldp_json(text: str, source: str = "<text>") -> AsBuilt:
    # The one capped parse: nesting, value count and number bounds before any value is built.
    # A switch's table quoted as a string (Cumulus json0) is parsed the same way, below.
    docs = _capped_documents(text, source)
    b = _Builder("lldp")
    local_default = PurePath(source).stem.split("_")[0] or "local"
    for doc in docs:
        records = doc if isinstance(doc, list) else [doc]
        for rec in records:
            if isinstance(rec, dict) and "hostname" in rec and "data" in rec:
                data = rec["data"]
                if isinstance(data, str):
                    # a record whose text is not a table (a server's plain output) holds no links
                    data = _capped_documents(data, source)[0] if data.strip().startswith(("{", "[")) else None
                if data:
                    _read_any(b, str(rec["hostname"]), data)
            elif isinstance(rec, dict) and ("lldp" in rec or any(key.strip('"') in rec for key in _VENDOR_TABLES)):
                _read_any(b, local_default, rec)
    return b.finish(source)


def _capped_documents(text: str, source: str) -> list[Any]:
    try:
        return load_json_documents(text, source, MAX_CAPTURE_VALUES, duplicate_keys=True, walk=False)
    except InputError as exc:
        reason = exc.reason
        if reason.startswith("not valid JSON") and "truncated" not in reason:
            reason += " (truncated or damaged)"
        raise CaptureError(f"{source}: the LLDP JSON is {reason}" if reason.startswith("not valid")
                           else f"{source}: the LLDP JSON {reason}") from None


# Switch operating systems' own LLDP tables, besides lldpd's (Cumulus, SONiC, lldpctl):
# Arista EOS `show lldp neighbors detail | json`, Junos `show lldp neighbors [detail] | display
# json` and Cisco NX-OS `show lldp neighbors [detail] | json [native]`.
_VENDOR_TABLES = ('"lldpNeighbors"', '"lldp-neighbors-information"', '"TABLE_nbor"')


def _read_any(b: _Builder, local: str, data: object) -> None:
    if isinstance(data, dict) and "lldpNeighbors" in data:
        _read_eos(b, local, data["lldpNeighbors"])
    elif isinstance(data, dict) and "lldp-neighbors-information" in data:
        _read_junos(b, local, data["lldp-neighbors-information"])
    elif isinstance(data, dict) and "TABLE_nbor" in data:
        _read_nxos(b, local, data["TABLE_nbor"])
    else:
        _read_table(b, local, data)


def _read_eos(b: _Builder, local: str, table: object) -> None:
    """EOS: interface -> {"lldpNeighborInfo": [neighbour, ...]}; an interface without a
    neighbour has an empty list. The neighbour's port name keeps its own quotes ("\"Ethernet1\""),
    and a neighbour that sends a locally assigned port id (Junos' SNMP index) names its port
    only in the port description."""
    b.reporters.add(local)
    b.device(local)
    for port, entry in (table.items() if isinstance(table, dict) else ()):
        infos = entry.get("lldpNeighborInfo", []) if isinstance(entry, dict) else []
        for info in infos if isinstance(infos, list) else ():
            if not isinstance(info, dict) or not info.get("systemName"):
                continue
            remote = str(info["systemName"])
            iface = info.get("neighborInterfaceInfo", {})
            iface = iface if isinstance(iface, dict) else {}
            rport = str(iface.get("interfaceId", "")).strip().strip('"')
            if iface.get("interfaceIdType") not in (None, "interfaceName") and iface.get("interfaceDescription"):
                rport = str(iface["interfaceDescription"]).strip().strip('"')
            if not rport:
                continue
            if info.get("systemDescription"):
                b.descriptions.setdefault(remote, str(info["systemDescription"]))
            b.link(local, str(port), remote, rport)
            caps = info.get("systemCapabilities", {})
            if isinstance(caps, dict) and (caps.get("bridge") or caps.get("router")):
                b.bridges.add(remote)
            elif caps:
                b.stations.add(remote)


def _junos(value: object) -> str:
    """Junos JSON puts every value in a list of {"data": ...} objects."""
    while isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("data", "")
    return str(value or "").strip()


def _read_junos(b: _Builder, local: str, table: object) -> None:
    """Junos: [{"lldp-neighbor-information": [neighbour, ...]}]; a neighbour's port id is often
    "Locally assigned" (an SNMP index such as 516), its port name then only in the remote port
    description (xe-0/0/0)."""
    b.reporters.add(local)
    b.device(local)
    blocks = table if isinstance(table, list) else [table]
    for block in blocks:
        neighbours = block.get("lldp-neighbor-information", []) if isinstance(block, dict) else []
        for info in neighbours if isinstance(neighbours, list) else ():
            if not isinstance(info, dict):
                continue
            # the detail table names the local port lldp-local-interface, the brief one lldp-local-port-id
            remote = _junos(info.get("lldp-remote-system-name"))
            port = _junos(info.get("lldp-local-interface")) or _junos(info.get("lldp-local-port-id"))
            rport = _junos(info.get("lldp-remote-port-id"))
            if _junos(info.get("lldp-remote-port-id-subtype")).lower() != "interface name":
                rport = _junos(info.get("lldp-remote-port-description")) or rport
            if not remote or not port or not rport:
                continue
            described = info.get("lldp-system-description")
            if isinstance(described, list) and described and isinstance(described[0], dict):
                text = _junos(described[0].get("lldp-remote-system-description"))
                if text:
                    b.descriptions.setdefault(remote, text)
            b.link(local, port, remote, rport)
            caps = _junos(info.get("lldp-remote-system-capabilities-enabled"))
            if "Bridge" in caps or "Router" in caps:
                b.bridges.add(remote)
            elif caps:
                b.stations.add(remote)


_NXOS_SHORT = re.compile(r"^Eth(?=\d)", re.ASCII)


def _read_nxos(b: _Builder, local: str, table: object) -> None:
    """NX-OS: {"ROW_nbor": [neighbour, ...]} (one neighbour: the object alone). The switch names
    its own ports short (Eth1/1) and its neighbours name them long (Ethernet1/1): both are read
    as the long name, so a cable that both ends report is one link. The neighbour is its system
    name (sys_name in the detail table), else the chassis id the brief table shows."""
    b.reporters.add(local)
    b.device(local)
    rows = table.get("ROW_nbor", []) if isinstance(table, dict) else []
    for info in rows if isinstance(rows, list) else [rows]:
        if not isinstance(info, dict):
            continue
        remote = str(info.get("sys_name") or info.get("chassis_id") or "").strip()
        port = _NXOS_SHORT.sub("Ethernet", str(info.get("l_port_id") or "").strip())
        rport = str(info.get("port_id") or "").strip()
        if not remote or not port or not rport:
            continue
        if info.get("sys_desc"):
            b.descriptions.setdefault(remote, str(info["sys_desc"]))
        b.link(local, port, remote, rport)
        caps = str(info.get("enabled_capability") or "")
        if "B" in caps or "R" in caps:
            b.bridges.add(remote)
        elif caps.strip():
            b.stations.add(remote)


def parse_lldp_csv(text: str, source: str = "<text>") -> AsBuilt:
    b = _Builder("lldp-csv")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise CaptureError(f"{source}: not a readable CSV ({exc})") from None
    for n, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 4:
            raise CaptureError(f"{source}: line {n} has {len(row)} fields; expected local device, local port, "
                               "remote device, remote port[, speed]")
        gbps = 0.0
        if len(row) > 4 and row[4].strip():
            m = _SPEED.match(row[4])
            if not m:
                raise CaptureError(f"{source}: line {n}: malformed speed '{row[4]}'")
            gbps = float(m.group(1)) * {"T": 1000, "M": 0.001}.get(m.group(2).upper(), 1)
        local, remote = row[0].strip(), row[2].strip()
        b.reporters.add(local)
        b.link(local, row[1].strip(), remote, row[3].strip(), gbps)
    # In a CSV, a device listed as local is a switch only if something else hangs below it.
    return b.finish(source)


# --- exporter -------------------------------------------------------------------------------

_MAU_NAME = {100: "100GbaseCR4", 200: "200GbaseCR4", 400: "400GbaseCR8", 800: "800GbaseCR8"}


def _export_port(g: nx.MultiGraph[str], node: str, port: int) -> str:
    return f"eth{g.nodes[node]['port']}" if g.nodes[node]["role"] == "nic" else f"swp{port}"


def _export_chassis(g: nx.MultiGraph[str], node: str, model: dict[str, str]) -> tuple[str, str, list[dict[str, Any]]]:
    d = g.nodes[node]
    if d["role"] == "nic":
        return node.split(".nic-")[0], "server", [{"type": "Station", "enabled": True}]
    return node, model[d["role"]], [{"type": "Bridge", "enabled": True}, {"type": "Router", "enabled": True}]


def export_lldp_json(derived: Derived, degrade: dict[tuple[str, str], int] | None = None,
                     servers_report: bool = False) -> str:
    """The LLDP tables the design's switches would report, as `lldpctl -f json` inside
    {hostname, data} records (the layout collection tools such as suzieq store).

    Every switch reports each of its ports: the neighbour's name, its system description (the
    switch's vendor and model, which inference matches against the catalog), its capabilities
    (Bridge and Router for switches, Station for servers), its port (`swpN`, `ethN` for server
    port N) and the operational MAU type of that port, from which the reader takes the rate.
    Servers report nothing unless `servers_report`: then each also reports its own ports, as
    hosts running lldpd do. `degrade` maps (lower, upper) design node pairs to the rate their
    first link runs at instead of the designed one (for tests and what-if captures).
    """
    g = derived.graph
    r = derived.resolved
    model = {t: f"{sw.vendor} {sw.name}" for t, sw in
             (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch))}
    degrade = dict(degrade or {})
    slow = {}
    for u, v, k, d in g.edges(keys=True, data=True):
        pair = (d["a"], v if d["a"] == u else u)
        if pair in degrade:
            slow[(u, v, k)] = degrade.pop(pair)
    records = []
    reporters: dict[str, list[str]] = {}
    for n in sorted(g):
        if g.nodes[n]["role"] != "nic":
            reporters[n] = [n]
        elif servers_report:
            reporters.setdefault(n.split(".nic-")[0], []).append(n)
    for host, nodes in reporters.items():
        interfaces = []
        edges = [(u, v, k, d) for node in nodes for u, v, k, d in g.edges(node, keys=True, data=True)]
        by_port = lambda e: (e[0], e[3]["pa"] if e[3]["a"] == e[0] else e[3]["pb"])  # noqa: E731
        for u, v, k, d in sorted(edges, key=by_port):
            own, other = (d["pa"], d["pb"]) if d["a"] == u else (d["pb"], d["pa"])
            gbps = slow.get((u, v, k), slow.get((v, u, k), d["gbps"]))
            name, descr, caps = _export_chassis(g, v, model)
            interfaces.append({_export_port(g, u, own): {
                "via": "LLDP",
                "chassis": {name: {"id": {"type": "mac", "value": "00:00:00:00:00:00"}, "descr": descr,
                                   "capability": caps}},
                "port": {"id": {"type": "ifname", "value": _export_port(g, v, other)},
                         "auto-negotiation": {"supported": True, "enabled": True,
                                              "current": f"{_MAU_NAME.get(gbps, f'{gbps}GbaseR')} - {gbps}G link"}},
            }})
        records.append({"hostname": host, "cmd": "lldpctl -f json",
                        "data": json.dumps({"lldp": {"interface": interfaces}})})
    return json.dumps(records)
