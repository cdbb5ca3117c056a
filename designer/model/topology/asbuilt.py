"""The fabric as built: devices and links read from a capture (ibnetdiscover, LLDP, CSV).

Importers in designer/io fill an `AsBuilt`; inference (inference.py) recovers the design
from it and the audit (decisions/audit.py) compares the two. Devices are keyed by what the
capture uses to tell them apart (a GUID, a host name), never by their description, because
default descriptions ("MT4129 ConnectX7   Mellanox Technologies") repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

# Per-lane data rate in Gb/s of each InfiniBand speed name that ibnetdiscover prints (IBTA).
IB_LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0625,
                "EDR": 25.0, "HDR": 50.0, "NDR": 100.0, "XDR": 200.0}
# Rounded forms used in link speed labels (4xFDR is sold as 56G, 4xEDR as 100G, ...).
NOMINAL = {10: 10, 20: 20, 40: 40, 56: 56, 100: 100, 200: 200, 400: 400, 800: 800}


def ib_gbps(width: int, speed: str) -> float:
    """Link data rate of e.g. width 4 and speed 'NDR' (400.0); 0.0 for an unknown speed."""
    lane = IB_LANE_GBPS.get(speed.upper(), 0.0)
    value = width * lane
    return float(round(value)) if value >= 10 else value


@dataclass(frozen=True, slots=True)
class Device:
    id: str                       # unique in the capture: GUID or host name
    name: str                     # the name shown to the user (host part of the description)
    kind: str                     # "switch" or "host" (an HCA or a server NIC)
    description: str = ""
    part: str = ""                # part number found in the description (e.g. MQM9701)
    devid: int = 0
    ports: int = 0
    host: str = ""                # hosts: the server this NIC belongs to ("" when unknown)
    hca: int = -1                 # hosts: 0-based NIC index on the server (mlx5_N, HCA-(N+1))
    default_named: bool = False   # the description is a factory default, not a host name
    aggregation: bool = False     # a SHARP aggregation node: not an endpoint


@dataclass(frozen=True, slots=True)
class Link:
    a: str
    pa: int
    b: str
    pb: int
    gbps: float                   # data rate as built
    width: int = 4
    speed: str = ""               # speed name as captured (NDR, 400G, ...)

    @property
    def label(self) -> str:
        return f"{self.width}x{self.speed}" if self.speed and self.width else (self.speed or f"{self.gbps:g}G")


@dataclass
class AsBuilt:
    source_format: str
    devices: dict[str, Device] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # stray lines and other things skipped
    # The capture is of a simulator (the InfiniBand twin's): its link speeds are the simulator's,
    # not the hardware's, so an audit compares links and leaves speeds alone.
    speeds_simulated: bool = False

    @property
    def family(self) -> str:
        """"ethernet" for LLDP captures, else "infiniband"."""
        return "ethernet" if self.source_format.startswith("lldp") else "infiniband"

    def endpoints(self) -> list[Device]:
        return [d for d in self.devices.values() if d.kind == "host" and not d.aggregation]

    def switches(self) -> list[Device]:
        return [d for d in self.devices.values() if d.kind == "switch"]


@dataclass(frozen=True)
class LinkEnds:
    """The links' ends as arrays: device indices into `ids`, and ports, link by link in order."""

    ids: list[str]
    index: dict[str, int]
    a: np.ndarray
    pa: np.ndarray
    b: np.ndarray
    pb: np.ndarray


def link_ends(fabric: AsBuilt) -> LinkEnds | None:
    """The capture's links as arrays, read once per capture for the passes on arrays (roles,
    hosts on spines, leaf ends): a 131,072-GPU capture has 400,000 links. None when a link
    names a device the capture does not describe (those passes then read link by link)."""
    links = fabric.links
    key = (id(links), len(links), id(links[0]) if links else 0, id(links[-1]) if links else 0, len(fabric.devices))
    cached = fabric.__dict__.get("_link_ends")
    if cached is not None and cached[0] == key:
        return cached[1]  # type: ignore[no-any-return]
    ids = list(fabric.devices)
    index = {d: i for i, d in enumerate(ids)}
    try:
        a = np.array([index[link.a] for link in links], dtype=np.int64)
        b = np.array([index[link.b] for link in links], dtype=np.int64)
    except KeyError:
        ends = None
    else:
        ends = LinkEnds(ids, index, a, np.array([link.pa for link in links], dtype=np.int64), b,
                        np.array([link.pb for link in links], dtype=np.int64))
    fabric.__dict__["_link_ends"] = (key, ends)
    return ends


@dataclass(frozen=True)
class DeviceTable:
    """The devices as columns, row i for `ids[i]` (the same order as `link_ends`' indices).

    kind: 0 switch, 1 host (an HCA or NIC), 2 SHARP aggregation node; host_code: index into
    `hosts` of the server a NIC belongs to, -1 when unknown; hca: 0-based NIC index or -1.
    The passes on arrays (placing, comparing) read these instead of 150,000 `Device` objects."""

    ids: list[str]
    index: dict[str, int]
    kind: np.ndarray
    host_code: np.ndarray
    hosts: list[str]
    hca: np.ndarray
    devid: np.ndarray
    ports: np.ndarray
    default_named: np.ndarray


KIND_SWITCH, KIND_HOST, KIND_AGGREGATION = 0, 1, 2


def device_table(fabric: AsBuilt) -> DeviceTable:
    """The capture's devices as columns, made once per capture (see `DeviceTable`)."""
    devices = fabric.devices
    key = (id(devices), len(devices))
    cached = fabric.__dict__.get("_device_table")
    if cached is not None and cached[0] == key:
        return cached[1]  # type: ignore[no-any-return]
    ids = list(devices)
    values = list(devices.values())
    hosts: dict[str, int] = {}
    host_code = np.array([hosts.setdefault(d.host, len(hosts)) if d.host else -1 for d in values],
                         dtype=np.int64)
    table = DeviceTable(
        ids, {d: i for i, d in enumerate(ids)},
        np.array([KIND_SWITCH if d.kind == "switch" else KIND_AGGREGATION if d.aggregation else KIND_HOST
                  for d in values], dtype=np.int8),
        host_code, list(hosts),
        np.array([d.hca for d in values], dtype=np.int64),
        np.array([d.devid for d in values], dtype=np.int64),
        np.array([d.ports for d in values], dtype=np.int64),
        np.array([d.default_named for d in values], dtype=bool))
    fabric.__dict__["_device_table"] = (key, table)
    return table


_DEFAULT_HOST = re.compile(r"^(MT\d+\b|localhost\b|.*Mellanox Technologies)", re.IGNORECASE)
_HCA = re.compile(r"^(?P<host>\S+)\s+(?:mlx\d_(?P<mlx>\d+)|HCA-(?P<hca>\d+))\s*$")
_SWITCH = re.compile(r"^MF0;(?P<name>[^:]+):(?P<part>[^/\s]+)")
_PART = re.compile(r"\b(MT\d+|M?Q[MX]?\d{4}\w*|SX\d{4}|ISR\d+|SB\d{4}\w*)\b")


def parse_host_description(desc: str) -> tuple[str, int, bool]:
    """(host, 0-based HCA index, default-named) of an HCA description such as 'dgx-04-c01 mlx5_5'."""
    text = desc.strip()
    m = _HCA.match(text)
    if m:
        host = m.group("host")
        index = int(m.group("mlx")) if m.group("mlx") is not None else int(m.group("hca")) - 1
        if host.lower() == "localhost":
            return "", index, True
        return host, index, False
    return "", -1, bool(not text or _DEFAULT_HOST.match(text))


def parse_switch_description(desc: str) -> tuple[str, str, bool]:
    """(name, part number, default-named) of a switch description such as 'MF0;leaf-4:MQM9701/U1'."""
    text = desc.strip()
    m = _SWITCH.match(text)
    if m:
        return m.group("name"), m.group("part"), False
    part = _PART.search(text)
    default = not text or "Mellanox Technologies" in text or "localhost" in text or bool(
        part and text.split()[0] == part.group(1))
    return text, part.group(1) if part else "", default


_NATURAL = re.compile(r"([0-9]+)")   # ASCII digits: '²' is a digit to str.isdigit() but not to int()


def natural_key(text: str) -> list[int | str]:
    """Sort key that puts 'leaf-2' before 'leaf-10'."""
    return [int(p) if p.isascii() and p.isdigit() else p.lower() for p in _NATURAL.split(text)]
