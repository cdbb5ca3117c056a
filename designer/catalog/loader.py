"""Load and validate the hardware catalog from TOML.

The built-in catalog lives in resources/catalog/. A user catalog (same format) in the
user's config directory adds entries or overrides built-in ones by id. Any bad entry
raises one CatalogError naming the file, the entry and the field.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from designer.catalog.entries import (
    Cable,
    HostPorts,
    Nic,
    NicMode,
    PortMode,
    ReferenceSU,
    RolePorts,
    Server,
    Switch,
    Technology,
    Transceiver,
    _Entry,
)
from designer.limits import MAX_RADIX, InputError, check_one_line, config_dir, parse_toml, quote, read_text

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def _data_dir(name: str) -> Path:
    """A folder of built-in data: package data in an installed wheel, else the source tree's.

    A wheel carries resources/ and examples/ under designer/_data/ (setup.py copies them); an
    editable install, a source checkout and the packaged application read the top-level folders.
    """
    packaged = importlib.resources.files("designer").joinpath("_data", name)
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / name


RESOURCES = _data_dir("resources")
EXAMPLES = _data_dir("examples")
BUILTIN_DIR = RESOURCES / "catalog"

_E = TypeVar("_E", bound=_Entry)
_T = TypeVar("_T", bound="DataclassInstance")

# TOML table name -> entry class and the Catalog attribute that holds them.
_KINDS: dict[str, tuple[type[_Entry], str]] = {
    "switch": (Switch, "switches"),
    "nic": (Nic, "nics"),
    "server": (Server, "servers"),
    "technology": (Technology, "technologies"),
    "transceiver": (Transceiver, "transceivers"),
    "cable": (Cable, "cables"),
    "host_ports": (HostPorts, "host_ports"),
}
_NESTED = {PortMode, NicMode, RolePorts, ReferenceSU}
_GENERIC_SWITCH = re.compile(r"^generic-(\d+)x(\d+)g$")
FAMILIES = ("infiniband", "ethernet")
# Catalog currency: "" where the entry does not say.
STATUSES = ("", "shipping", "announced", "preliminary", "end-of-life")


# The range of every number a catalog entry holds, by field name: (lowest, highest). A field not
# named here may be 0 to 1e9. Speeds and counts must be positive; nothing may be negative.
_RANGES: dict[str, tuple[float, float]] = {
    "count": (1, MAX_RADIX), "cages": (0, MAX_RADIX), "ports": (1, MAX_RADIX),
    "gbps": (1, 102_400), "port_gbps": (1, 102_400), "link_gbps": (1, 102_400),
    "uplink_gbps": (1, 102_400), "lane_gbps": (1, 102_400), "cpo_lane_gbps": (0, 102_400),
    "gpus": (1, 1024), "servers_per_rack": (0, 1024), "mgmt_switches_per_rack": (0, 64),
    "rack_mgmt_ports": (0, 1024), "compute_ports": (1, 1024), "planes_hint": (1, 64), "su_servers": (0, 1_000_000),
    "nodes": (1, 1_000_000),
    "nvlink_domain_gpus": (1, 1_000_000), "nvlink_GBps_per_gpu": (0, 1_000_000),
    "rack_units": (0, 100), "connectors": (1, 1024), "legs": (1, 64), "ports_per_cage": (0, 64),
    "power_w": (0, 1_000_000), "leg_power_w": (0, 1_000_000),
    "latency_ns": (0, 1e9), "switch_latency_ns": (0, 1e9), "nic_latency_ns": (0, 1e9),
    "reach_m": (0, 100_000), "min_m": (0, 100_000), "cpo_reach_m": (0, 100_000), "lengths_m": (0, 100_000),
}
_DEFAULT_RANGE = (0, 1e9)


def _in_range(value: float, where: str) -> float:
    name = where.rsplit("'", 2)[-2] if where.endswith("'") else ""
    low, high = _RANGES.get(name, _DEFAULT_RANGE)
    if not math.isfinite(value):
        raise CatalogError(f"{where}: {quote(value)} is not a finite number")
    if not low <= value <= high:
        raise CatalogError(f"{where}: {quote(value)} is out of range ({low:,} to {high:,})")
    return value


class CatalogError(InputError):
    """A catalog file or entry is malformed; the message names file, entry and field."""


class UnknownPartError(KeyError):
    """A design names a part id that no catalog holds."""

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return str(self.args[0])


@dataclasses.dataclass
class Catalog:
    switches: dict[str, Switch] = dataclasses.field(default_factory=dict)
    nics: dict[str, Nic] = dataclasses.field(default_factory=dict)
    servers: dict[str, Server] = dataclasses.field(default_factory=dict)
    technologies: dict[str, Technology] = dataclasses.field(default_factory=dict)
    transceivers: dict[str, Transceiver] = dataclasses.field(default_factory=dict)
    cables: dict[str, Cable] = dataclasses.field(default_factory=dict)
    host_ports: dict[str, HostPorts] = dataclasses.field(default_factory=dict)
    origins: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    # [[currency]] rows (file name, table): the quarter and status of entries that do not state them
    currency: list[tuple[str, dict[str, Any]]] = dataclasses.field(default_factory=list)

    def switch(self, switch_id: str) -> Switch:
        """The switch with this id; `generic-<R>x<S>g` stands for a generic R-port switch at S Gb/s."""
        if switch_id in self.switches:
            return self.switches[switch_id]
        match = _GENERIC_SWITCH.match(switch_id)
        if match:
            if len(switch_id) > 40:
                raise UnknownPartError(f"generic switch {quote(switch_id, 40)}: radix or speed out of range")
            radix, gbps = int(match.group(1)), int(match.group(2))
            if not 2 <= radix <= MAX_RADIX or not 0 < gbps <= 102_400:
                raise UnknownPartError(f"generic switch '{switch_id}' needs 2 to {MAX_RADIX:,} ports and a "
                                       "speed of 1 to 102,400 Gb/s")
            if radix < 2 or gbps <= 0:
                raise UnknownPartError(f"generic switch '{switch_id}' needs at least 2 ports and a positive speed")
            return Switch(
                id=switch_id, vendor="Generic", name=f"Generic {radix}-port {gbps}G switch",
                source="user-defined generic switch", family="any", generation=f"{gbps}G",
                cages=radix, cage_type="generic", port_modes=(PortMode(radix, gbps),), stand_in=True,
            )
        found = _lookup(switch_id, self.switches)
        if found is not None:
            return found
        raise UnknownPartError(_unknown("switch", switch_id, self.switches))

    def nic(self, nic_id: str) -> Nic:
        if nic_id in self.nics:
            return self.nics[nic_id]
        found = _lookup(nic_id, self.nics)
        if found is not None:
            return found
        raise UnknownPartError(_unknown("NIC", nic_id, self.nics))

    def server(self, server_id: str) -> Server:
        if server_id in self.servers:
            return self.servers[server_id]
        found = _lookup(server_id, self.servers)
        if found is not None:
            return found
        raise UnknownPartError(_unknown("server", server_id, self.servers))

    def technologies_by_speed(self) -> list[Technology]:
        """The technologies as a list offers them: by family in the order the catalog first
        names it, then by server link speed, the catalog's order among equals (its files are read
        alphabetically, so the end-of-life InfiniBand ones would come before HDR, SDR after EDR)."""
        rank: dict[str, int] = {}
        for tech in self.technologies.values():
            rank.setdefault(tech.family, len(rank))
        return sorted(self.technologies.values(), key=lambda t: (rank[t.family], t.link_gbps))

    def technology(self, tech_id: str) -> Technology:
        if tech_id in self.technologies:
            return self.technologies[tech_id]
        found = _lookup(tech_id, self.technologies, model_names=False)
        if found is not None:
            return found
        raise UnknownPartError(_unknown("technology", tech_id, self.technologies))

    def twin_of(self, switch_id: str) -> Switch | None:
        """A switch's other-optics twin: a CPO switch's pluggable twin, or the CPO switch that
        names this pluggable one as its twin (the first, by id); None when the catalog has none."""
        sw = self.switch(switch_id)
        if sw.pluggable_twin:
            return self.switches.get(sw.pluggable_twin)
        twins = sorted(s.id for s in self.switches.values() if s.pluggable_twin == sw.id)
        return self.switches[twins[0]] if twins else None

    def origin(self, kind: str, entry_id: str) -> str:
        return self.origins.get((kind, entry_id), "")


def _lookup(key: str, table: Mapping[str, _E], model_names: bool = True) -> _E | None:
    """The entry named as people type it: the id in any case, the vendor's part number, or a
    model name taken from the entry's name (`QM9700`, `Q3400-RA`, `MQM9700-NS2F`).

    A name shared by two entries is no alias; the caller then reports the part as unknown.
    """
    wanted = str(key).strip().lower()
    if not wanted:
        return None
    matches: dict[str, _E] = {}
    for entry in table.values():
        if wanted in _aliases(entry, model_names):
            matches[entry.id] = entry
    return next(iter(matches.values())) if len(matches) == 1 else None


def _aliases(entry: _Entry, model_names: bool) -> set[str]:
    names = {entry.id.lower()}
    part = getattr(entry, "part_number", "") or ""
    if part:
        names.add(part.lower())
    # Model names inside the display name: words with a digit, e.g. "QM9700", "Q3400-RA".
    for word in re.split(r"[\s(),/]+", getattr(entry, "name", "") if model_names else ""):
        if any(ch.isdigit() for ch in word) and any(ch.isalpha() for ch in word) and len(word) >= 4:
            names.add(word.lower())
    return names


def _unknown(kind: str, entry_id: str, known: Mapping[str, object]) -> str:
    return f"unknown {kind} {quote(entry_id, 60)} (known: {', '.join(sorted(known)) or 'none'})"


def _coerce(value: Any, annotation: Any, where: str) -> Any:
    """Check one TOML value against a dataclass field type; return it in the field's form."""
    origin = typing.get_origin(annotation)
    if annotation is bool:
        if not isinstance(value, bool):
            raise CatalogError(f"{where}: expected true/false, got {value!r}")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CatalogError(f"{where}: expected a whole number, got {quote(value)}")
        return _in_range(value, where)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CatalogError(f"{where}: expected a number, got {quote(value)}")
        return float(_in_range(value, where))
    if annotation is str:
        if not isinstance(value, str):
            raise CatalogError(f"{where}: expected text, got {quote(value)}")
        return value
    if origin is tuple:
        (item_type, _ellipsis) = typing.get_args(annotation)
        if not isinstance(value, list):
            raise CatalogError(f"{where}: expected a list, got {quote(value)}")
        return tuple(_coerce(v, item_type, where) for v in value)
    if annotation in _NESTED:
        return _build(annotation, value, where)
    if origin in (types.UnionType, typing.Union):
        raise CatalogError(f"{where}: unsupported field type")
    raise CatalogError(f"{where}: unsupported field type {annotation!r}")


@cache
def _shape(cls: type) -> tuple[dict[str, Any], dict[str, dataclasses.Field[Any]]]:
    """A dataclass's field types and fields, read once per class: resolving the hints is most of
    loading the catalog's few hundred entries otherwise."""
    return typing.get_type_hints(cls), {f.name: f for f in dataclasses.fields(cls)}


def _build(cls: type[_T], table: object, where: str) -> _T:
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: expected a table, got {quote(table)}")
    hints, fields = _shape(cls)
    unknown = set(table) - set(fields)
    if unknown:
        raise CatalogError(f"{where}: unknown field {quote(sorted(unknown)[0], 40)}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name in table:
            values[name] = _coerce(table[name], hints[name], f"{where}, field '{name}'")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise CatalogError(f"{where}: missing required field '{name}'")
    return cls(**values)


def _validate(entry: _Entry, where: str) -> None:
    def bad(field_name: str, why: str) -> NoReturn:
        raise CatalogError(f"{where}, field '{field_name}': {why}")

    if not re.fullmatch(r"[a-z0-9][a-z0-9.\-]*", entry.id):
        bad("id", "use lowercase letters, digits, '-' and '.'")
    if not entry.source.strip():
        bad("source", "every catalog figure needs a source")
    for name in entry.estimates:
        if not hasattr(entry, name):
            bad("estimates", f"names unknown field '{name}'")
    if entry.estimates and not entry.estimate_basis.strip():
        bad("estimate_basis", "estimates need a stated basis")
    if entry.available and not re.fullmatch(r"(19|20)\d\d-Q[1-4]", entry.available):
        bad("available", "give the quarter as YYYY-Qn, e.g. 2026-Q1")
    if entry.status not in STATUSES:
        bad("status", f"must be one of {', '.join(s for s in STATUSES if s)}")
    if entry.stand_in and (entry.available or entry.status):
        bad("stand_in", "a generic stand-in is no product and states no available/status")
    if isinstance(entry, Switch):
        if entry.family not in FAMILIES:
            bad("family", f"must be one of {FAMILIES}")
        if not entry.port_modes:
            bad("port_modes", "at least one port mode is needed")
        for mode in entry.port_modes:
            if mode.count <= 0 or mode.gbps <= 0:
                bad("port_modes", "counts and speeds must be positive")
        if entry.power_w < 0:
            bad("power_w", "must not be negative")
        if entry.co_packaged_optics:
            if entry.cpo_optic not in OPTICS:
                bad("cpo_optic", f"a co-packaged-optics switch names the optic its ports speak ({OPTICS})")
            if not entry.cpo_fiber:
                bad("cpo_fiber", "a co-packaged-optics switch names the fiber cable its ports take")
            if not entry.cage_type.startswith("CPO"):
                bad("cage_type", "a co-packaged-optics port is no pluggable cage: start its type with 'CPO'")
        elif entry.cpo_optic or entry.cpo_fiber or entry.cage_type.startswith("CPO"):
            bad("co_packaged_optics", "cpo_optic, cpo_fiber and a 'CPO' cage type need co_packaged_optics = true")
        for balancing in entry.load_balancing:
            if balancing not in LOAD_BALANCING:
                bad("load_balancing", f"'{balancing}' is not one of {LOAD_BALANCING}")
    elif isinstance(entry, Nic):
        for fam in entry.families:
            if fam not in FAMILIES:
                bad("families", f"'{fam}' is not one of {FAMILIES}")
        if not entry.modes:
            bad("modes", "at least one mode is needed")
    elif isinstance(entry, Server):
        for name in ("gpus", "compute_ports", "port_gbps", "nvlink_domain_gpus", "planes_hint"):
            if getattr(entry, name) <= 0:
                bad(name, "must be positive")
        if entry.compute_ports % entry.planes_hint:
            bad("planes_hint", "compute_ports must divide evenly over the planes")
        for su in entry.reference_su:
            if su.family not in FAMILIES:
                bad("reference_su", f"family '{su.family}' is not one of {FAMILIES}")
            if not su.source.strip():
                bad("reference_su", "every reference SU needs its source")
    elif isinstance(entry, Technology):
        if entry.family not in FAMILIES:
            bad("family", f"must be one of {FAMILIES}")
        for name in ("protocol_efficiency", "load_balance_efficiency"):
            if not 0 < getattr(entry, name) <= 1:
                bad(name, "must be a fraction in (0, 1]")
        if entry.load_balancing and entry.load_balancing not in LOAD_BALANCING:
            bad("load_balancing", f"must be one of {LOAD_BALANCING}")
        if not 1 <= entry.qps_per_connection <= 64:
            bad("qps_per_connection", "must be 1 to 64")
    elif isinstance(entry, (Transceiver, Cable)):
        _validate_media(entry, bad)
    elif isinstance(entry, HostPorts) and entry.ports_per_cage < 0:
        bad("ports_per_cage", "must not be negative")


OPTICS = ("sr", "dr", "fr")
LOAD_BALANCING = ("adaptive", "spray", "ecmp", "ecmp-qp")
CABLE_KINDS = ("dac", "acc", "aoc", "fiber")


def _validate_media(entry: Transceiver | Cable, bad: Callable[[str, str], NoReturn]) -> None:
    for fam in entry.families:
        if fam not in FAMILIES:
            bad("families", f"'{fam}' is not one of {FAMILIES}")
    for mode in entry.port_modes:
        if mode.count <= 0 or mode.gbps <= 0:
            bad("port_modes", "counts and speeds must be positive")
    if entry.power_w < 0:
        bad("power_w", "must not be negative")
    if isinstance(entry, Transceiver):
        if entry.optic not in OPTICS:
            bad("optic", f"must be one of {OPTICS}")
        if not entry.port_modes:
            bad("port_modes", "at least one port mode is needed")
        if entry.reach_m <= 0:
            bad("reach_m", "must be positive")
        if entry.connectors <= 0:
            bad("connectors", "must be positive")
        if entry.lane_gbps <= 0:
            bad("lane_gbps", "must be positive")
        if not entry.fiber:
            bad("fiber", "name the fiber cable this module takes")
        return
    if entry.kind not in CABLE_KINDS:
        bad("kind", f"must be one of {CABLE_KINDS}")
    if entry.kind != "fiber":
        if entry.reach_m <= 0:
            bad("reach_m", "must be positive")
        if not entry.port_modes:
            bad("port_modes", "at least one port mode is needed")
    if entry.legs <= 0:
        bad("legs", "must be positive")
    if entry.ends not in ("any", "switch-switch", "switch-host"):
        bad("ends", "must be one of 'any', 'switch-switch', 'switch-host'")
    if entry.leg_power_w < 0:
        bad("leg_power_w", "must not be negative")
    if any(length <= 0 for length in entry.lengths_m) or list(entry.lengths_m) != sorted(entry.lengths_m):
        bad("lengths_m", "lengths must be positive and in increasing order")
    if entry.min_m < 0 or (entry.reach_m and entry.min_m > entry.reach_m):
        bad("min_m", "must lie between 0 and reach_m")


# Fields that exports write inside one line (ibnetdiscover descriptions, CSV cells, NDT rows):
# a newline there would forge lines in the file, a NUL make it binary.
_ONE_LINE_FIELDS = ("id", "name", "part_number", "vendor")


def load_file(path: Path, catalog: Catalog) -> None:
    """Merge the entries of one TOML file into `catalog`, overriding by id.

    An entry overrides one of another folder (the user's catalog over the built-in one); the
    same id twice in one folder is refused, since the last one would win silently.
    """
    try:
        data = parse_toml(read_text(path, "catalog file"), str(path))
    except InputError as exc:
        raise CatalogError(exc.reason, exc.source, exc.field) from None
    for kind, tables in data.items():
        if kind == "gpu":   # resources/catalog/gpus.toml: read by designer/catalog/gpus.py
            continue
        if kind == "currency":   # resources/catalog/currency.toml: applied after every file is read
            catalog.currency.extend((path.name, row) for row in (tables if isinstance(tables, list) else [tables]))
            continue
        if kind not in _KINDS:
            raise CatalogError(f"{path}: unknown section {quote(f'[[{kind}]]', 40)} "
                               f"(expected one of {', '.join(_KINDS)})")
        cls, attr = _KINDS[kind]
        if not isinstance(tables, list):
            raise CatalogError(f"{path}: '{kind}' must be an array of tables ([[{kind}]])")
        for index, table in enumerate(tables):
            label = table.get("id", f"#{index + 1}") if isinstance(table, dict) else f"#{index + 1}"
            where = f"{path.name}: {kind} {quote(str(label), 40)}"
            entry = _build(cls, table, where)
            for field in _ONE_LINE_FIELDS:
                value = getattr(entry, field, None)
                if isinstance(value, str):
                    try:
                        check_one_line(value, where, field)
                    except InputError as exc:
                        raise CatalogError(exc.reason, exc.source, exc.field) from None
            _validate(entry, where)
            before = catalog.origins.get((kind, entry.id))
            if before and Path(before).parent == path.parent:
                raise CatalogError(f"{where}: id {quote(entry.id, 40)} is already defined in "
                                   f"{Path(before).name}; each id once per catalog folder")
            getattr(catalog, attr)[entry.id] = entry
            catalog.origins[(kind, entry.id)] = str(path)


def _check_references(catalog: Catalog) -> None:
    for server in catalog.servers.values():
        if server.compute_nic not in catalog.nics:
            raise CatalogError(
                f"{Path(catalog.origin('server', server.id)).name}: server '{server.id}', field "
                f"'compute_nic': unknown NIC '{server.compute_nic}'")
    for sw in catalog.switches.values():
        where = f"{Path(catalog.origin('switch', sw.id)).name}: switch '{sw.id}'"
        if sw.cpo_fiber and (sw.cpo_fiber not in catalog.cables or catalog.cables[sw.cpo_fiber].kind != "fiber"):
            raise CatalogError(f"{where}, field 'cpo_fiber': unknown fiber cable {quote(sw.cpo_fiber, 40)}")
        if sw.pluggable_twin and sw.pluggable_twin not in catalog.switches:
            raise CatalogError(f"{where}, field 'pluggable_twin': unknown switch {quote(sw.pluggable_twin, 40)}")
        if sw.fabric_switch and sw.fabric_switch not in catalog.switches:
            raise CatalogError(f"{where}, field 'fabric_switch': unknown switch {quote(sw.fabric_switch, 40)}")
    for tech in catalog.technologies.values():
        where = f"{Path(catalog.origin('technology', tech.id)).name}: technology '{tech.id}'"
        if tech.default_switch not in catalog.switches:
            raise CatalogError(f"{where}, field 'default_switch': unknown switch '{tech.default_switch}'")
        for other in tech.switches:
            if other not in catalog.switches:
                raise CatalogError(f"{where}, field 'switches': unknown switch {quote(other, 40)}")
        if tech.default_nic not in catalog.nics:
            raise CatalogError(f"{where}, field 'default_nic': unknown NIC '{tech.default_nic}'")
    for t in catalog.transceivers.values():
        where = f"{Path(catalog.origin('transceiver', t.id)).name}: transceiver '{t.id}'"
        for name in ("fiber", "split_fiber"):
            ref = getattr(t, name)
            if ref and (ref not in catalog.cables or catalog.cables[ref].kind != "fiber"):
                raise CatalogError(f"{where}, field '{name}': unknown fiber cable '{ref}'")


# The kinds that are products one orders, each of which states its currency or is a stand-in.
# Technologies (a switch, NIC and settings together) and host ports (a server's cages) are no
# products: their parts carry the currency. GPUs ship inside the servers that carry theirs.
_CURRENCY_KINDS = {"switch": "switches", "nic": "nics", "server": "servers",
                   "transceiver": "transceivers", "cable": "cables"}
CURRENCY_KINDS = tuple(_CURRENCY_KINDS)


def _apply_currency(catalog: Catalog) -> None:
    """Give entries that state no currency of their own the [[currency]] row naming them: its
    quarter, status and source (in `currency_source`); an estimated quarter joins `estimates`."""
    for name, row in catalog.currency:
        where = f"{name}: currency {quote(str(row.get('id', '?')) if isinstance(row, dict) else '?', 40)}"
        if not isinstance(row, dict):
            raise CatalogError(f"{where}: expected a table")
        unknown = set(row) - {"kind", "id", "available", "status", "source", "estimate_basis"}
        if unknown:
            raise CatalogError(f"{where}: unknown field {quote(sorted(unknown)[0], 40)}")
        kind, entry_id = row.get("kind"), row.get("id")
        if kind not in _CURRENCY_KINDS:
            raise CatalogError(f"{where}, field 'kind': must be one of {', '.join(_CURRENCY_KINDS)}")
        table = getattr(catalog, _CURRENCY_KINDS[kind])
        if entry_id not in table:
            raise CatalogError(f"{where}, field 'id': unknown {kind} {quote(str(entry_id), 40)}")
        if not str(row.get("source", "")).strip():
            raise CatalogError(f"{where}, field 'source': a currency statement needs its source")
        entry = table[entry_id]
        if entry.stand_in:
            raise CatalogError(f"{where}, field 'id': {quote(str(entry_id), 40)} is a generic stand-in, "
                               "which states no currency")
        if entry.available or entry.status:
            continue   # the entry's own statement wins
        basis = str(row.get("estimate_basis", ""))
        changes: dict[str, object] = {"available": str(row.get("available", "")), "status": str(row.get("status", "")),
                   "currency_source": str(row["source"])}
        if basis:
            changes["estimates"] = (*entry.estimates, "available")
            changes["estimate_basis"] = f"{entry.estimate_basis} available: {basis}".strip()
        updated = dataclasses.replace(entry, **changes)
        _validate(updated, where)
        table[entry_id] = updated


def user_catalog_dir() -> Path:
    """`catalog/` in the user's settings folder (FABRIC_DESIGNER_CONFIG_DIR moves it)."""
    return config_dir() / "catalog"


def load_catalog(builtin_dir: Path = BUILTIN_DIR, user_dir: Path | None = None) -> Catalog:
    """Built-in catalog, then the user's files on top (user entries override by id)."""
    catalog = Catalog()
    builtin = sorted(builtin_dir.glob("*.toml"))
    if not builtin:
        raise CatalogError(f"the built-in hardware catalog is missing (no *.toml in {builtin_dir}); "
                           "reinstall Fabric Designer")
    for path in builtin:
        load_file(path, catalog)
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.toml")):
            load_file(path, catalog)
    _apply_currency(catalog)
    _check_references(catalog)
    return catalog


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The catalog every command uses: built-in plus the user's catalog directory."""
    return load_catalog(BUILTIN_DIR, user_catalog_dir())
