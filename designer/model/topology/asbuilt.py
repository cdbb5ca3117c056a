"""The fabric as built: devices and links read from a capture (ibnetdiscover, LLDP, CSV).

Importers in designer/io fill an `AsBuilt`; inference (inference.py) recovers the design
from it and the audit (decisions/audit.py) compares the two. Devices are keyed by what the
capture uses to tell them apart (a GUID, a host name), never by their description, because
default descriptions ("MT4129 ConnectX7   Mellanox Technologies") repeat.

A capture read in bulk (the ibnetdiscover reader) is columns (`CaptureColumns`): its `devices`
and `links` are read-only views (`ColumnDevices`, a Mapping, and `ColumnLinks`, a Sequence)
that make a `Device` or `Link` when it is read, and `link_ends` and `device_table` are served
from the columns without making any. The passes on arrays read those two; `fabric.devices[id]`
and `fabric.links[j]` make one object each. A capture is changed through `AsBuilt.put_device`
(a replaced device rewrites its row) and `AsBuilt.set_links` (a plain list from then on).
"""

from __future__ import annotations

import re
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field
from typing import overload

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
    # Read-only: a capture read in bulk serves them from its columns (`with_columns`). A reader
    # fills them as a dict and a list it keeps; anything after it changes them through the
    # methods below.
    devices: Mapping[str, Device] = field(default_factory=dict)
    links: Sequence[Link] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # stray lines and other things skipped
    # The capture is of a simulator (the InfiniBand twin's): its link speeds are the simulator's,
    # not the hardware's, so an audit compares links and leaves speeds alone.
    speeds_simulated: bool = False

    @property
    def family(self) -> str:
        """"ethernet" for LLDP captures, else "infiniband"."""
        return "ethernet" if self.source_format.startswith("lldp") else "infiniband"

    def put_device(self, dev: Device) -> None:
        """Add `dev`, or replace the device of its id. On columns a replaced device rewrites its
        row (the columns stay); a new one makes the devices a plain dict first."""
        devices = self.devices
        if isinstance(devices, ColumnDevices):
            row = devices.columns.index.get(dev.id)
            if row is not None:
                devices.rewrite(row, dev)
                return
        plain = devices if isinstance(devices, dict) else dict(devices.items())
        plain[dev.id] = dev
        self.devices = plain

    def set_links(self, links: Iterable[Link]) -> None:
        """The capture's links made `links` (a plain list: columns no longer serve them)."""
        self.links = list(links)

    def endpoints(self) -> list[Device]:
        if isinstance(self.devices, ColumnDevices):
            return self.devices.of_kind(KIND_HOST)
        return [d for d in self.devices.values() if d.kind == "host" and not d.aggregation]

    def switches(self) -> list[Device]:
        if isinstance(self.devices, ColumnDevices):
            return self.devices.of_kind(KIND_SWITCH)
        return [d for d in self.devices.values() if d.kind == "switch"]


KIND_SWITCH, KIND_HOST, KIND_AGGREGATION = 0, 1, 2


@dataclass(eq=False)
class CaptureColumns:
    """A capture as columns, as the bulk reader reads it: row i of the device columns is device
    `ids[i]`, row j of the link columns link j, its ends as rows of the device columns.

    kind: KIND_SWITCH, KIND_HOST (an HCA or NIC) or KIND_AGGREGATION (a SHARP aggregation node);
    host_code: index into `hosts` of the server a NIC belongs to (-1: none); rate: index into
    `rates` of the link's (width, speed, Gb/s). A 131,072-GPU capture is 151,552 devices and
    403,456 links: `with_columns` hands them to an `AsBuilt` whose `Device` and `Link` objects
    are made only when something asks for them, one at a time.
    """

    ids: list[str]
    kind: np.ndarray
    description: list[str]
    name: list[str]
    part: list[str]
    devid: np.ndarray
    ports: np.ndarray
    host_code: np.ndarray
    hosts: list[str]
    hca: np.ndarray
    default_named: np.ndarray
    a: np.ndarray
    pa: np.ndarray
    b: np.ndarray
    pb: np.ndarray
    rate: np.ndarray
    rates: list[tuple[int, str, float]]
    index: dict[str, int] = field(default_factory=dict)
    version: int = 0            # bumped when a device's row is rewritten (device_table reads it)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {d: i for i, d in enumerate(self.ids)}

    def device(self, row: int) -> Device:
        kind = int(self.kind[row])
        code = int(self.host_code[row])
        return Device(self.ids[row], self.name[row], "switch" if kind == KIND_SWITCH else "host",
                      self.description[row], self.part[row], int(self.devid[row]), int(self.ports[row]),
                      self.hosts[code] if code >= 0 else "", int(self.hca[row]), bool(self.default_named[row]),
                      kind == KIND_AGGREGATION)

    def link(self, row: int) -> Link:
        width, speed, gbps = self.rates[int(self.rate[row])]
        return Link(self.ids[int(self.a[row])], int(self.pa[row]), self.ids[int(self.b[row])], int(self.pb[row]),
                    gbps, width, speed)

    def all_devices(self) -> list[Device]:
        """Every device, in row order (made in one pass over the columns as lists)."""
        hosts = [*self.hosts, ""]          # code -1: no server
        kinds = self.kind.tolist()
        return [Device(d, name, "switch" if k == KIND_SWITCH else "host", desc, part, devid, ports, hosts[code],
                       hca, default, k == KIND_AGGREGATION)
                for d, k, name, desc, part, devid, ports, code, hca, default in zip(
                    self.ids, kinds, self.name, self.description, self.part, self.devid.tolist(),
                    self.ports.tolist(), self.host_code.tolist(), self.hca.tolist(), self.default_named.tolist(),
                    strict=True)]

    def all_links(self) -> list[Link]:
        """Every link, in row order (made in one pass over the columns as lists)."""
        ids, rates = self.ids, self.rates
        return [Link(ids[a], pa, ids[b], pb, rates[r][2], rates[r][0], rates[r][1])
                for a, pa, b, pb, r in zip(self.a.tolist(), self.pa.tolist(), self.b.tolist(), self.pb.tolist(),
                                           self.rate.tolist(), strict=True)]

    def rewrite(self, row: int, dev: Device) -> None:
        """Row `row` made to read `dev` (a device given another name or server, same id)."""
        self.kind[row] = KIND_SWITCH if dev.kind == "switch" else KIND_AGGREGATION if dev.aggregation else KIND_HOST
        self.description[row], self.name[row], self.part[row] = dev.description, dev.name, dev.part
        self.devid[row], self.ports[row], self.hca[row] = dev.devid, dev.ports, dev.hca
        self.default_named[row] = dev.default_named
        codes = self.__dict__.setdefault("_host_codes", {h: i for i, h in enumerate(self.hosts)})
        if dev.host and dev.host not in codes:
            codes[dev.host] = len(self.hosts)
            self.hosts.append(dev.host)
        self.host_code[row] = codes[dev.host] if dev.host else -1
        self.version += 1


class ColumnDevices(Mapping[str, Device]):
    """The devices of a capture read as columns, read-only: `view[id]` makes the one asked for;
    reading them all (values, items) makes every one once, in the capture's order, and keeps
    them (looked up by id from then on) until a row is rewritten (`AsBuilt.put_device`)."""

    __slots__ = ("columns", "_made", "_by_id")

    def __init__(self, columns: CaptureColumns) -> None:
        self.columns = columns
        self._made: list[Device] | None = None          # every device, in row order
        self._by_id: dict[str, Device] | None = None

    def _all(self) -> list[Device]:
        if self._made is None:
            self._made = self.columns.all_devices()
            self._by_id = dict(zip(self.columns.ids, self._made, strict=True))
        return self._made

    def rewrite(self, row: int, dev: Device) -> None:
        """Row `row` made to read `dev` (same id); the devices made so far are made again."""
        self.columns.rewrite(row, dev)
        self._made = self._by_id = None

    def of_kind(self, kind: int) -> list[Device]:
        """The devices of one kind code (KIND_SWITCH, ...), in the capture's order."""
        return list(map(self._all().__getitem__, np.flatnonzero(self.columns.kind == kind).tolist()))

    def __getitem__(self, key: str) -> Device:
        made = self._by_id
        if made is not None:
            return made[key]
        return self.columns.device(self.columns.index[key])

    def __contains__(self, key: object) -> bool:
        return key in self.columns.index

    def __len__(self) -> int:
        return len(self.columns.ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns.ids)

    def values(self) -> ValuesView[Device]:
        return _MadeValues(self)

    def items(self) -> ItemsView[str, Device]:
        return _MadeItems(self)

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self) -> tuple[type[ColumnDevices], tuple[CaptureColumns]]:
        return ColumnDevices, (self.columns,)


class _MadeValues(ValuesView[Device]):
    """The devices of a `ColumnDevices`, made all at once (not one lookup per id)."""

    _mapping: ColumnDevices

    def __iter__(self) -> Iterator[Device]:
        return iter(self._mapping._all())


class _MadeItems(ItemsView[str, Device]):
    _mapping: ColumnDevices

    def __iter__(self) -> Iterator[tuple[str, Device]]:
        return zip(self._mapping.columns.ids, self._mapping._all(), strict=True)


class ColumnLinks(Sequence[Link]):
    """The links of a capture read as columns, read-only: `view[j]` makes link j; iterating
    makes every one once and keeps them. Equal to a list of the same links, as a list is."""

    __slots__ = ("columns", "_made")

    def __init__(self, columns: CaptureColumns) -> None:
        self.columns = columns
        self._made: list[Link] | None = None

    def _all(self) -> list[Link]:
        if self._made is None:
            self._made = self.columns.all_links()
        return self._made

    def __len__(self) -> int:
        return len(self.columns.a)

    @overload
    def __getitem__(self, row: int) -> Link: ...

    @overload
    def __getitem__(self, row: slice) -> list[Link]: ...

    def __getitem__(self, row: int | slice) -> Link | list[Link]:
        if self._made is not None:
            return self._made[row]
        if isinstance(row, slice):
            return [self.columns.link(i) for i in range(*row.indices(len(self)))]
        size = len(self)
        if not -size <= row < size:
            raise IndexError("link index out of range")
        return self.columns.link(row % size)

    def __iter__(self) -> Iterator[Link]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ColumnLinks | list):        # as a list compares
            return len(self) == len(other) and self._all() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[type[ColumnLinks], tuple[CaptureColumns]]:
        return ColumnLinks, (self.columns,)


def with_columns(source_format: str, columns: CaptureColumns) -> AsBuilt:
    """A capture whose devices and links are `columns`, each object made only when read."""
    return AsBuilt(source_format, ColumnDevices(columns), ColumnLinks(columns))


def columns_of(fabric: AsBuilt) -> CaptureColumns | None:
    """The columns the capture's devices and links still are (None: read them as objects): the
    devices' rows unchanged but for replaced devices, the links untouched."""
    devices, links = fabric.devices, fabric.links
    if not isinstance(devices, ColumnDevices) or not isinstance(links, ColumnLinks):
        return None
    return devices.columns if links.columns is devices.columns else None


@dataclass(frozen=True)
class LinkEnds:
    """The links' ends as arrays: device indices into `ids`, and ports, link by link in order
    (row j is `fabric.links[j]`); each link's data rate (`gbps`) and width."""

    ids: list[str]
    index: dict[str, int]
    a: np.ndarray
    pa: np.ndarray
    b: np.ndarray
    pb: np.ndarray
    gbps: np.ndarray
    width: np.ndarray


def link_ends(fabric: AsBuilt) -> LinkEnds | None:
    """The capture's links as arrays, read once per capture for the passes on arrays (roles,
    hosts on spines, leaf ends): a 131,072-GPU capture has 400,000 links. Served from the
    reader's columns where the capture is read in bulk. None when a link names a device the
    capture does not describe (those passes then read link by link)."""
    columns = columns_of(fabric)
    if columns is not None:
        cached_ends = fabric.__dict__.get("_column_ends")
        if cached_ends is not None and cached_ends[0] is columns:
            return cached_ends[1]  # type: ignore[no-any-return]
        rates = columns.rates
        gbps = np.array([r[2] for r in rates], dtype=np.float64)[columns.rate] if rates else np.zeros(0)
        width = np.array([r[0] for r in rates], dtype=np.int64)[columns.rate] if rates else np.zeros(0, np.int64)
        made = LinkEnds(columns.ids, columns.index, columns.a, columns.pa, columns.b, columns.pb, gbps, width)
        fabric.__dict__["_column_ends"] = (columns, made)
        return made
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
                        np.array([link.pb for link in links], dtype=np.int64),
                        np.array([link.gbps for link in links], dtype=np.float64),
                        np.array([link.width for link in links], dtype=np.int64))
    fabric.__dict__["_link_ends"] = (key, ends)
    return ends


@dataclass(frozen=True)
class DeviceTable:
    """The devices as columns, row i for `ids[i]` (the same order as `link_ends`' indices).

    kind: 0 switch, 1 host (an HCA or NIC), 2 SHARP aggregation node; host_code: index into
    `hosts` of the server a NIC belongs to, -1 when unknown; hca: 0-based NIC index or -1;
    name: each device's `Device.name`. The passes on arrays (placing, comparing) read these
    instead of 150,000 `Device` objects."""

    ids: list[str]
    index: dict[str, int]
    kind: np.ndarray
    host_code: np.ndarray
    hosts: list[str]
    hca: np.ndarray
    devid: np.ndarray
    ports: np.ndarray
    default_named: np.ndarray
    name: list[str]


def device_table(fabric: AsBuilt) -> DeviceTable:
    """The capture's devices as columns, made once per capture (see `DeviceTable`); served from
    the reader's columns where the capture is read in bulk."""
    columns = columns_of(fabric)
    if columns is not None:
        cached_table = fabric.__dict__.get("_column_table")
        if cached_table is not None and cached_table[0] == (columns, columns.version):
            return cached_table[1]  # type: ignore[no-any-return]
        # Servers numbered in the order their first NIC comes, as the objects' table numbers them.
        used = np.flatnonzero(columns.host_code >= 0)
        codes = columns.host_code[used]
        seen, first = np.unique(codes, return_index=True)
        order = seen[np.argsort(first, kind="stable")]
        renumber = np.full(len(columns.hosts), -1, dtype=np.int64)
        renumber[order] = np.arange(len(order))
        host_code = np.full(len(columns.ids), -1, dtype=np.int64)
        host_code[used] = renumber[codes]
        made = DeviceTable(columns.ids, columns.index, columns.kind.astype(np.int8), host_code,
                           [columns.hosts[c] for c in order.tolist()], columns.hca.copy(), columns.devid.copy(),
                           columns.ports.copy(), columns.default_named.copy(), list(columns.name))
        fabric.__dict__["_column_table"] = ((columns, columns.version), made)
        return made
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
        np.array([d.default_named for d in values], dtype=bool),
        [d.name for d in values])
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
    # The split alternates text and runs of ASCII digits: the runs are numbers, the text (which
    # holds no ASCII digit) is compared in lower case.
    parts: list[int | str] = _NATURAL.split(text)
    parts[::2] = map(str.lower, parts[::2])  # type: ignore[arg-type]
    parts[1::2] = map(int, parts[1::2])
    return parts
