"""NetBox bulk-import CSV files: the design as data-centre inventory.

A folder of CSV files, one per object type, numbered in the order NetBox needs them (each
refers only to objects of the files before it). Paste or upload each under its object type's
Import page (sites, manufacturers, device roles, device types, racks, devices, optics,
cables). Field names follow NetBox's import forms (netbox dcim/forms/bulk_import.py and
object_import.py, v4.6):
- device types: YAML documents (the device type import's format, as in the devicetype-library),
  each with its interface templates: every port of the model, named `Port N` (switches) or
  `nic-K` (servers), labelled with its cage position and typed with NetBox's slug
  (`infiniband-ndr`, `infiniband-xdr`, `400gbase-x-osfp`, `800gbase-x-osfp`, ...). NetBox
  creates a device's interfaces from them, so spare ports exist and can be planned. A leaf
  whose server ports run at another speed than its uplinks has its own type (its cages split
  differently). With `netbox_ib_lanes`, 4-lane InfiniBand ports get the 4X types NetBox v4.6.9
  added (`infiniband-ndr-4x` for a 400G NDR port; netbox #21387); a 2-lane port (NDR200) keeps
  the plain type, as v4.6.9 has no 2X type;
- devices: name, role, manufacturer, device_type, site, rack, position, face, status;
- optics: inventory items, one per transceiver module (device, name, status, manufacturer,
  part_id, description, and the interface it serves as component_type and component_name);
- cables: side_a_site, side_a_device, side_a_type (`dcim.interface`), side_a_name, the same for
  side b (the site tells apart devices of the same name in another fabric), type
  (`dac-passive`, `dac-active`, `aoc`, `mmf`, `smf`, or the fiber grade when the catalog names
  one, such as `mmf-om4`), status, label, length, length_unit.
Racks and rack units come from the floor plan (servers from the bottom of each rack, switches
above them); cable lengths are the stock lengths of the cabling plan. Everything is `planned`.
The whole fabric or one plane is read from the physical layer's per-link arrays and its large
files written in chunks of rows (`netbox_file_chunks`); one SU or pod, and a design with an edit
that names a server's NIC, are read link by link from the physical layer.
Every cell a user controls is neutralised against spreadsheet formulas (designer.io.csv_cells).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from designer import __version__
from designer.io.csv_cells import csv_field, rows_to_csv, safe_cell, safe_field
from designer.io.export_source import DEFAULT_RACK_UNITS, ExportSource
from designer.io.markup import one_line, slug, yaml_str
from designer.io.row_text import number_text, picked, text_table
from designer.io.row_text import rows as text_rows
from designer.model.common.arrays import sorted_distinct
from designer.model.physical.media import End, LinkPlan, switch_cage, switch_cage_capacity

if TYPE_CHECKING:
    from designer.catalog.entries import Transceiver
    from designer.model.physical.link_table import LinkTable
    from designer.model.topology.metrics import Finding

FILES = ("01-sites.csv", "02-manufacturers.csv", "03-device-roles.csv", "04-device-types.yaml", "05-racks.csv",
         "06-devices.csv", "07-optics.csv", "08-cables.csv")
ROLES = {"server": ("GPU server", "4caf50"), "leaf": ("Leaf switch", "2196f3"),
         "spine": ("Spine switch", "3f51b5"), "core": ("Core switch", "9c27b0")}
INFINIBAND_TYPES = {"HDR": "infiniband-hdr", "NDR": "infiniband-ndr", "XDR": "infiniband-xdr"}
# NetBox's plain InfiniBand types are labelled with the rate of one lane (NDR: 100 Gbps). v4.6.9
# (2026-08-25) added the 4X types for the usual 4-lane ports (netbox #21387, pull #23016); 2X
# types for 2-lane splits came later (pull #23163) and are not written.
INFINIBAND_LANE_GBPS = {"HDR": 50, "NDR": 100, "XDR": 200}
NETBOX_IB_4X_RELEASE = "4.6.9"
# Ethernet interface types by (speed in Gb/s, cage), NetBox InterfaceTypeChoices.
ETHERNET_TYPES = {
    (100, "QSFP28"): "100gbase-x-qsfp28", (200, "QSFP56"): "200gbase-x-qsfp56",
    (200, "QSFP-DD"): "200gbase-x-qsfpdd", (400, "OSFP"): "400gbase-x-osfp",
    (400, "QSFP112"): "400gbase-x-qsfp112", (400, "QSFP-DD"): "400gbase-x-qsfpdd",
    (800, "OSFP"): "800gbase-x-osfp", (800, "QSFP-DD"): "800gbase-x-qsfpdd",
}
CABLE_TYPES = {"dac": "dac-passive", "acc": "dac-active", "aoc": "aoc", "mmf": "mmf", "smf": "smf"}
FIBER_GRADES = {"OM3": "mmf-om3", "OM4": "mmf-om4", "OM5": "mmf-om5", "OS1": "smf-os1", "OS2": "smf-os2"}


def interface_type(src: ExportSource, gbps: int, cage_type: str) -> str:
    if src.family == "infiniband":
        generation = src.technology.generation.upper()
        slug = INFINIBAND_TYPES.get(generation, "other")
        lane = INFINIBAND_LANE_GBPS.get(generation)
        if src.options.netbox_ib_lanes and lane and gbps == 4 * lane:
            slug += "-4x"
        return slug
    return ETHERNET_TYPES.get((gbps, cage_type.upper()), "other")


def cable_type(src: ExportSource, link: LinkPlan) -> str:
    return medium_cable_type(src, link.medium, link.cable)


def medium_cable_type(src: ExportSource, medium: str, cable_id: str) -> str:
    """NetBox's cable type of a link's medium, the fiber's grade where the catalog names it."""
    if medium in ("mmf", "smf"):
        cable = src.catalog.cables.get(cable_id)
        grade = re.search(r"\b(OM[345]|OS[12])\b", cable.name) if cable else None
        if grade and FIBER_GRADES[grade.group(1)].startswith(medium):
            return FIBER_GRADES[grade.group(1)]
    return CABLE_TYPES.get(medium, "")


def _interface_name(end: End, host: bool) -> str:
    """'nic-5' on a server (as on the cabling plan), 'Port 17' on a switch (as UFM names it)."""
    return end.port if host else f"Port {end.port}"


@dataclass(frozen=True)
class DeviceType:
    maker: str
    model: str
    units: int
    interfaces: tuple[tuple[str, str, str], ...]     # (name, cage label, NetBox type) of every port

    @property
    def slug(self) -> str:
        return slug(f"{self.maker}-{self.model}")


def _cage_label(cage: int, lane: int, k: int) -> str:
    return f"{cage + 1}/{lane + 1}" if k > 1 else f"{cage + 1}"


def switch_type(src: ExportSource, model: str, role: str) -> DeviceType:
    """Every port of a switch as its role uses it: all at the fabric's uplink speed, or, on a leaf
    whose server ports run at another speed, the server ports first and the uplinks after them."""
    sw = src.switch_model(model)
    r, plan = src.resolved, src.plan
    up = r.uplink_gbps
    split = role == "leaf" and r.link_gbps != up
    if split:
        k_down, k_up = switch_cage_capacity(sw, r.link_gbps), switch_cage_capacity(sw, up)
        cages = sw.cages or (sw.ports_at(up) // max(1, k_up))
        speeds = [r.link_gbps] * plan.leaf_down + [up] * ((cages - -(-plan.leaf_down // k_down)) * k_up)
    else:
        speeds = [up] * (sw.ports_at(up) or max(m.count for m in sw.port_modes))
    ports = []
    for port, gbps in enumerate(speeds, start=1):
        cage, lane, k = switch_cage(sw, role, port, gbps, r, plan)
        ports.append((f"Port {port}", _cage_label(cage, lane, k), interface_type(src, gbps, sw.cage_type)))
    name = sw.name
    if split:
        name += f" ({plan.leaf_down} x {r.link_gbps}G + {len(speeds) - plan.leaf_down} x {up}G)"
    return DeviceType(sw.vendor or "Generic", name, max(1, sw.rack_units), tuple(ports))


def server_type(src: ExportSource, links: list[LinkPlan]) -> DeviceType:
    """The server's fabric NIC ports, labelled with the cages the cabling plan puts them in."""
    ports: dict[str, tuple[str, str, str]] = {}
    for link in links:
        for end in (link.a, link.b):
            if end.host and end.port not in ports:
                ports[end.port] = (end.port, end.cage_label, interface_type(src, link.gbps, end.cage_type))
    return server_type_of_ports(src, ports)


def server_type_of_ports(src: ExportSource, ports: dict[str, tuple[str, str, str]]) -> DeviceType:
    """The server's type from (name, cage label, NetBox type) of each NIC port the links use;
    the others are typed at the fabric's link speed, with no cage."""
    server = src.server_model
    count = src.resolved.ports_per_server
    names = [f"nic-{k}" for k in range(1, count + 1)]
    interfaces = tuple(ports.get(n, (n, "", interface_type(src, src.resolved.link_gbps, ""))) for n in names)
    return DeviceType(server.vendor or "Generic", server.name, max(1, server.rack_units), interfaces)


def device_types_yaml(types: list[DeviceType]) -> str:
    """The device type import's YAML: one document per type, with its interface templates."""
    docs = []
    for t in types:
        lines = [f"manufacturer: {yaml_str(t.maker)}", f"model: {yaml_str(t.model)}", f"slug: {yaml_str(t.slug)}",
                 f"u_height: {t.units}", "interfaces:"]
        for name, label, kind in t.interfaces:
            lines.append(f"  - {{name: {yaml_str(name)}, label: {yaml_str(label)}, type: {yaml_str(kind)}}}")
        docs.append("\n".join(lines))
    return "---\n" + "\n---\n".join(docs) + "\n"


def netbox_files(src: ExportSource) -> dict[str, str]:
    """Every file of the folder, whole (the export writes `netbox_file_chunks`)."""
    return {name: text if isinstance(text, str) else "".join(text)
            for name, text in netbox_file_chunks(src).items()}


def netbox_file_chunks(src: ExportSource) -> dict[str, str | Iterable[str]]:
    """Every file of the folder, the large ones (devices, optics, cables) as chunks of rows.

    The fabric is read from the physical layer's per-link arrays (model/physical/link_table.py):
    no device graph and no object per link. A view of one SU or pod, and edits that name a
    server's NIC, take the link-by-link path. Everything that can refuse the export runs before
    this returns, so a folder is never left half written."""
    table = None
    if src.view[0] != "su":
        from designer.model.physical.link_table import link_table

        table = link_table(src.derived, src.catalog)
    if table is None:
        return dict(_netbox_files_by_link(src))
    return _streamed_files(src, table)


def _netbox_files_by_link(src: ExportSource) -> dict[str, str]:
    """The files from the link-by-link physical layer (media.py `compute_physical`)."""
    site = one_line(src.options.site or src.name, 100) or "Fabric"
    phys = src.physical
    links = src.physical_links()
    elevation = src.elevation
    heights = src.rack_heights
    g = src.graph
    catalog = src.catalog

    devices: dict[str, tuple[str, DeviceType]] = {}    # device -> (role key, device type)
    types: dict[tuple[str, str], DeviceType] = {}
    server = server_type(src, links)
    for link in links:
        for end in (link.a, link.b):
            if end.device in devices:
                continue
            if end.host:
                devices[end.device] = ("server", server)
            else:
                d = g.nodes[end.device]
                key = (d["model"], d["role"] if d["role"] == "leaf" else "")
                if key not in types:
                    types[key] = switch_type(src, d["model"], d["role"])
                devices[end.device] = (d["role"], types[key])
    order = sorted(devices, key=lambda dev: (elevation[dev][0], elevation[dev][1]))
    used_types = sorted({t.slug: t for _, t in devices.values()}.values(), key=lambda t: (t.maker, t.model))

    # Optics: one transceiver module per cage of each link end that takes one.
    optics: dict[tuple[str, int], tuple[str, str]] = {}     # (device, cage) -> (part id, interface)
    for link in links:
        for end, part in ((link.a, link.a_part), (link.b, link.b_part)):
            if part and (end.device, end.cage) not in optics:
                optics[(end.device, end.cage)] = (part, _interface_name(end, end.host))
    modules = {part: catalog.transceivers.get(part) for part, _ in optics.values()}

    manufacturers = sorted({t.maker for t in used_types} | {(t.vendor or "Generic") for t in modules.values() if t})
    racks = sorted({elevation[dev][0] for dev in devices})

    out: dict[str, list[list[str]]] = {FILES[0]: [["name", "slug", "status", "description"],
                                                  [safe_cell(site), slug(site), "planned",
                                                   f"Fabric Designer {__version__}"]]}
    out[FILES[1]] = [["name", "slug"]] + [[safe_cell(m), slug(m)] for m in manufacturers]
    used_roles = sorted({role for role, _ in devices.values()}, key=list(ROLES).index)
    out[FILES[2]] = [["name", "slug", "color"]] + [[ROLES[r][0], slug(ROLES[r][0]), ROLES[r][1]] for r in used_roles]
    out[FILES[4]] = [["site", "name", "status", "u_height"]] + [
        [safe_cell(site), rack, "planned", str(heights[rack])] for rack in racks]
    rows = [["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"]]
    for dev in order:
        role, kind = devices[dev]
        rack, unit = elevation[dev]
        rows.append([safe_cell(src.device_name(dev)), ROLES[role][0], safe_cell(kind.maker), safe_cell(kind.model),
                     safe_cell(site), rack, str(unit), "front", "planned"])
    out[FILES[5]] = rows
    items = [["device", "name", "status", "manufacturer", "part_id", "description", "component_type",
              "component_name"]]
    rank = {dev: i for i, dev in enumerate(order)}
    for (dev, cage), (part, interface) in sorted(optics.items(), key=lambda item: (rank[item[0][0]], item[0][1])):
        module = modules[part]
        items.append([safe_cell(src.device_name(dev)), f"Optic {cage + 1}", "planned",
                      safe_cell((module.vendor or "Generic") if module else "Generic"),
                      safe_cell((module.part_number or module.name) if module else part),
                      safe_cell(module.name if module else part), "dcim.interface", safe_cell(interface)])
    out[FILES[6]] = items
    cables = [["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site", "side_b_device",
               "side_b_type", "side_b_name", "type", "status", "label", "length", "length_unit"]]
    for link in links:
        length = link.cable_length_m or link.length_m
        cables.append([safe_cell(site), safe_cell(src.device_name(link.a.device)), "dcim.interface",
                       safe_cell(_interface_name(link.a, link.a.host)), safe_cell(site),
                       safe_cell(src.device_name(link.b.device)), "dcim.interface",
                       safe_cell(_interface_name(link.b, link.b.host)),
                       cable_type(src, link), "planned", f"L{link.index + 1}", f"{length:g}", "m"])
    out[FILES[7]] = cables
    files = {name: rows_to_csv(rows) for name, rows in out.items()}
    files[FILES[3]] = device_types_yaml(used_types)
    files = {name: files[name] for name in FILES}
    files["README.txt"] = readme(src, site, phys.findings, heights)
    # The cluster's other networks, in files numbered after these (none for a compute-only design).
    from designer.io.network_netbox import network_netbox_files  # it builds on this module

    files.update(network_netbox_files(src))
    return files


def readme(src: ExportSource, site: str, findings: list[Finding], heights: dict[str, int]) -> str:
    tall = [rack for rack, h in heights.items() if h > DEFAULT_RACK_UNITS]
    lines = [f"NetBox import of \"{one_line(src.name, 120)}\" ({src.view_label}), written by Fabric Designer"
             f" {__version__}.",
             "",
             "Import the files in their numbered order, each on the Import page of its object type",
             "(Organization > Sites, Devices > Manufacturers, Device Roles, Device Types (YAML), Racks > Racks,",
             "Devices > Devices, Inventory Items, Connections > Cables).",
             "Device types carry every port as an interface template, so each device gets all its ports,",
             "spare ones included; optics are inventory items on the interface they serve.",
             "Cable rows name the site of each end: devices of the same name in another site stay apart.",
             "Inventory items are matched by device name alone: import them before another site with the",
             "same switch names exists, or give this fabric's switches names of their own.",
             f"Everything is created with status 'planned' in site '{site}'.",
             "Racks and rack units follow the design's floor plan: servers fill each rack from U1 up, switches",
             f"sit above them. Racks are {DEFAULT_RACK_UNITS}U unless the floor plan stacks more into one.",
             "Cable lengths are the stock lengths of the cabling plan (estimated run where none is sold).",
             "Server interfaces are named as on the cabling plan (nic-K); switch interfaces 'Port N' with",
             "the cage position (cage/lane) as their label.",
             f"InfiniBand 4X interface types (--netbox-ib-lanes) need NetBox {NETBOX_IB_4X_RELEASE} or later."]
    if tall:
        lines.append(f"Note: {len(tall)} rack(s) need more than {DEFAULT_RACK_UNITS}U for what the floor plan puts "
                     f"in them ({', '.join(sorted(tall)[:5])}); lower 'switches per network rack' or 'servers "
                     "per rack' in the floor plan.")
    for finding in findings:
        if finding.severity == "error":
            lines.append(f"Warning: {one_line(finding.message, 300)}")
    return "\r\n".join(lines) + "\r\n"


# ----------------------------------------------------------------------------- streamed from arrays
# The whole fabric or one plane from the physical layer's per-link arrays: the same bytes as the
# link-by-link writer above (tests/test_export_streaming.py holds them equal), without the device
# graph or an object per link. Each device's name, each cage's label and each kind of link's last
# columns are made once, and each row of the devices, optics and cables files is put together
# from them, in chunks of rows. At 131,072 GPUs the cables file alone has 393,216 rows.

ROLE_KEYS = ("server", "leaf", "spine", "core")   # device kinds by code, as `_roles` numbers them
STEP = 2000                                       # rows per chunk


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Both ends of each link in turn (a, then b): the order the link-by-link writer meets them."""
    out = np.empty(2 * len(a), dtype=a.dtype)
    out[0::2], out[1::2] = a, b
    return out


def _first_of_each(keys: np.ndarray) -> np.ndarray:
    """`np.unique(keys, return_index=True)[1]` (the first index of each key, in key order) for
    keys that are small non-negative integers, by a table instead of a sort: 786,432 link ends at
    131,072 GPUs."""
    n = len(keys)
    if not n or int(keys.min()) < 0 or int(keys.max()) >= 4 * n + 4096:
        found: np.ndarray = np.unique(keys, return_index=True)[1]
        return found
    first = np.full(int(keys.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, keys, np.arange(n, dtype=np.int64))
    return first[first < n]


def _codes_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(keys, return_inverse=True)` for small non-negative integer keys, by a table."""
    n = len(keys)
    if not n or int(keys.min()) < 0 or int(keys.max()) >= 4 * n + 4096:
        codes, inverse = np.unique(keys, return_inverse=True)
        return codes, inverse.reshape(-1)
    present = np.zeros(int(keys.max()) + 1, dtype=bool)
    present[keys] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[keys]


def _rows_in_view(src: ExportSource, table: LinkTable) -> np.ndarray:
    """Indices of the links the view holds: every link, or those of one plane (a NIC port's
    plane is its global port over the rails, a switch's from its code)."""
    links, dev = table.links, table.dev
    if src.view[0] != "plane":
        return np.arange(len(links.tier))
    servers, plane = dev.servers, src.view_index
    a_plane = np.where(links.a_dev < servers, links.a_port // src.resolved.rails,
                       (links.a_dev - servers) // max(dev.per_plane, 1))
    b_plane = np.where(links.b_dev < servers, links.b_port // src.resolved.rails,
                       (links.b_dev - servers) // max(dev.per_plane, 1))
    return np.flatnonzero((a_plane == plane) & (b_plane == plane))


def _roles(table: LinkTable) -> np.ndarray:
    """Kind of every device code: 0 server, 1 leaf, 2 spine, 3 core."""
    dev = table.dev
    plan = dev.plan
    codes = np.arange(dev.total)
    within = (codes - dev.servers) % max(dev.per_plane, 1)
    return np.where(codes < dev.servers, 0,
                    np.where(within < plan.leaves, 1, np.where(within < plan.leaves + plan.spines, 2, 3)))


def _streamed_files(src: ExportSource, table: LinkTable) -> dict[str, str | Iterable[str]]:
    from designer.io.network_netbox import network_netbox_chunks
    from designer.model.physical.link_table import elevation, rack_label

    site = one_line(src.options.site or src.name, 100) or "Fabric"
    r, dev, links, cages = src.resolved, table.dev, table.links, table.cages
    servers = dev.servers
    rows = _rows_in_view(src, table)
    role = _roles(table)
    models = {1: r.leaf_switch.id, 2: r.spine_switch.id, 3: r.core_switch.id}
    units = [max(1, src.server_model.rack_units)] + [max(1, src.switch_model(models[k]).rack_units) for k in (1, 2, 3)]
    rack_of, unit_of = elevation(table, units[0], dict(zip(ROLE_KEYS[1:], units[1:], strict=True)))
    width = int(table.slot.max(initial=0)) + 1

    # Racks: the units every device left stacks into each, and their labels.
    alive = np.ones(dev.total, dtype=bool)
    if table.removed:
        alive[np.fromiter(table.removed, dtype=np.int64)] = False
    n_racks = int(rack_of.max(initial=0)) + 1
    used = np.zeros(n_racks, dtype=np.int64)
    np.maximum.at(used, rack_of[alive], (unit_of + np.array(units)[role] - 1)[alive])
    rack_codes = sorted_distinct(rack_of[alive]).tolist()
    label = {code: rack_label(code, width) for code in rack_codes}
    heights = {label[code]: max(DEFAULT_RACK_UNITS, int(used[code])) for code in rack_codes}

    # The devices the view's links reach, ordered by rack label and unit.
    a_dev, b_dev = links.a_dev[rows], links.b_dev[rows]
    present = np.zeros(dev.total, dtype=bool)
    present[a_dev], present[b_dev] = True, True
    codes = np.flatnonzero(present)
    racks = sorted({label[code] for code in sorted_distinct(rack_of[codes]).tolist()})
    rank_of_label = {name: i for i, name in enumerate(racks)}
    rack_rank = np.zeros(n_racks, dtype=np.int64)
    for code in sorted_distinct(rack_of[codes]).tolist():
        rack_rank[code] = rank_of_label[label[code]]
    order = codes[np.lexsort((unit_of[codes], rack_rank[rack_of[codes]]))]

    # Link ends in the order the link-by-link writer meets them.
    e_dev = _interleave(a_dev, b_dev)
    e_port = _interleave(links.a_port[rows], links.b_port[rows])
    e_cage = _interleave(cages.a_cage[rows], cages.b_cage[rows])
    e_part = _interleave(table.a_part[rows], table.b_part[rows])

    # Device types: the server's from its NIC ports as the links first meet them.
    kinds = sorted(set(role[codes].tolist()))
    types: dict[int, DeviceType] = {}
    if 0 in kinds:
        e_lane = _interleave(cages.a_lane[rows], cages.b_lane[rows])
        e_cap = _interleave(cages.a_cap[rows], cages.b_cap[rows])
        e_type = _interleave(cages.a_type[rows], cages.b_type[rows])
        host = np.flatnonzero(e_dev < servers)
        first = host[np.unique(e_port[host], return_index=True)[1]]
        ports = {}
        for port, cage, lane, cap, kind, gbps in zip(
                e_port[first].tolist(), e_cage[first].tolist(), e_lane[first].tolist(), e_cap[first].tolist(),
                e_type[first].tolist(), links.gbps[rows][first // 2].tolist(), strict=True):
            name = f"nic-{port + 1}"
            ports[name] = (name, f"{cage + 1}/{lane + 1}" if cap > 1 else f"{cage + 1}",
                           interface_type(src, gbps, cages.type_names[kind]))
        types[0] = server_type_of_ports(src, ports)
    for k in kinds:
        if k:
            types[k] = switch_type(src, models[k], ROLE_KEYS[k])
    used_types = sorted({t.slug: t for t in types.values()}.values(), key=lambda t: (t.maker, t.model))

    # Optics: one module per cage of a link end that takes one, found at the cage's first end.
    with_part = np.flatnonzero(e_part >= 0)
    cage_width = int(e_cage.max(initial=0)) + 1
    optic = with_part[_first_of_each(e_dev[with_part] * cage_width + e_cage[with_part])]
    rank = np.zeros(dev.total, dtype=np.int64)
    rank[order] = np.arange(len(order))
    optic = optic[np.lexsort((e_cage[optic], rank[e_dev[optic]]))]
    used_parts = set(sorted_distinct(e_part[optic]).tolist())
    modules = {i: (part, src.catalog.transceivers.get(part)) for i, part in enumerate(table.parts)}
    makers = {t.maker for t in used_types} | {(m.vendor or "Generic") for i, (_, m) in modules.items()
                                              if m and i in used_parts}

    out: dict[str, str | Iterable[str]] = {
        FILES[0]: rows_to_csv([["name", "slug", "status", "description"],
                               [safe_cell(site), slug(site), "planned", f"Fabric Designer {__version__}"]]),
        FILES[1]: rows_to_csv([["name", "slug"]] + [[safe_cell(m), slug(m)] for m in sorted(makers)]),
        FILES[2]: rows_to_csv([["name", "slug", "color"]] + [
            [ROLES[ROLE_KEYS[k]][0], slug(ROLES[ROLE_KEYS[k]][0]), ROLES[ROLE_KEYS[k]][1]] for k in kinds]),
        FILES[3]: device_types_yaml(used_types),
        FILES[4]: rows_to_csv([["site", "name", "status", "u_height"]] + [
            [safe_cell(site), rack, "planned", str(heights[rack])] for rack in racks])}
    names = [safe_field(src.host(c)) for c in range(servers)] + \
            [safe_field(dev.name(c)) if present[c] else "" for c in range(servers, dev.total)]
    site_cell = safe_field(site)
    out[FILES[5]] = _devices(order, role, types, names, site_cell, rack_of, unit_of, label)
    out[FILES[6]] = _optics(optic, e_dev, e_cage, e_port, e_part, servers, names, modules)
    out[FILES[7]] = _cables(src, table, rows, names, site_cell)
    files: dict[str, str | Iterable[str]] = {name: out[name] for name in FILES}
    files["README.txt"] = readme(src, site, table.findings, heights)
    files.update(network_netbox_chunks(src))
    return files


def _interfaces(dev: np.ndarray, port: np.ndarray, servers: int) -> tuple[np.ndarray, list[str]]:
    """A code per link end for its interface as the link-by-link writer names it ('nic-K' on a
    server, 'Port N' on a switch: neither needs quoting), and the name of each code."""
    host = dev < servers
    switch_ports = int(port[~host].max(initial=0)) + 1
    nic_ports = int(port[host].max(initial=0)) + 1
    names = [f"Port {p}" for p in range(switch_ports)] + [f"nic-{k + 1}" for k in range(nic_ports)]
    return np.where(host, switch_ports + port, port), names


def _devices(order: np.ndarray, role: np.ndarray, types: dict[int, DeviceType], names: list[str], site: str,
             rack_of: np.ndarray, unit_of: np.ndarray, label: dict[int, str]) -> Iterator[str]:
    yield rows_to_csv([["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"]])
    # what follows the name, per kind of device: role, manufacturer and type, then the site
    middle = {k: ",".join([csv_field(ROLES[ROLE_KEYS[k]][0]), safe_field(t.maker),
                           safe_field(t.model), site]) for k, t in types.items()}
    racks = {code: csv_field(name) for code, name in label.items()}
    for first in range(0, len(order), STEP):
        ids = order[first:first + STEP]
        yield "".join([f"{names[c]},{middle[k]},{racks[rk]},{u},front,planned\r\n" for c, k, rk, u in zip(
            ids.tolist(), role[ids].tolist(), rack_of[ids].tolist(), unit_of[ids].tolist(), strict=True)])


def _optics(optic: np.ndarray, e_dev: np.ndarray, e_cage: np.ndarray, e_port: np.ndarray, e_part: np.ndarray,
            servers: int, names: list[str],
            modules: dict[int, tuple[str, Transceiver | None]]) -> Iterator[str]:
    yield rows_to_csv([["device", "name", "status", "manufacturer", "part_id", "description", "component_type",
                        "component_name"]])
    part_cells = {}
    for i, (part, module) in modules.items():
        part_cells[i] = ",".join(safe_field(x) for x in (
            (module.vendor or "Generic") if module else "Generic",
            (module.part_number or module.name) if module else part, module.name if module else part))
    iface, iface_name = _interfaces(e_dev[optic], e_port[optic], servers)
    # What follows the device's name is the same for every optic of a (cage, part, interface):
    # made once per such kind (a few thousand), picked per row.
    kind_key = (e_cage[optic] * max(len(modules), 1) + e_part[optic]) * max(len(iface_name), 1) + iface
    kinds, kind_of = _codes_of(kind_key)
    tails = []
    for key in kinds.tolist():
        rest, f = divmod(key, max(len(iface_name), 1))
        cage, part = divmod(rest, max(len(modules), 1))
        tails.append(f",Optic {cage + 1},planned,{part_cells[part]},dcim.interface,{iface_name[f]}\r\n")
    names_table, tail_table = text_table(names), text_table(tails)
    for first in range(0, len(optic), STEP):
        ids = optic[first:first + STEP]
        yield text_rows([picked(names_table, e_dev[ids]), picked(tail_table, kind_of[first:first + STEP])], len(ids))


def _cables(src: ExportSource, table: LinkTable, rows: np.ndarray, names: list[str],
            site: str) -> Iterator[str]:
    yield rows_to_csv([["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site",
                        "side_b_device", "side_b_type", "side_b_name", "type", "status", "label", "length",
                        "length_unit"]])
    links, servers = table.links, table.dev.servers
    # each end's site, device and type columns, made once per device
    end = [f"{site},{name},dcim.interface," for name in names]
    both, iface_name = _interfaces(np.concatenate([links.a_dev[rows], links.b_dev[rows]]),
                                   np.concatenate([links.a_port[rows], links.b_port[rows]]), servers)
    a_iface, b_iface = both[:len(rows)], both[len(rows):]
    # the cable type of each (medium, cable) with the length bought (or the run where none is
    # sold): the columns around the label, made once per kind of cable
    n_cables = len(table.cables) + 1
    length = np.where(table.sold[rows] > 0, table.sold[rows], table.length[rows])
    length_codes, length_of = np.unique(length, return_inverse=True)
    kind_key = (table.medium[rows] * n_cables + table.cable[rows] + 1) * len(length_codes) + length_of.reshape(-1)
    kind_codes, kind_of = _codes_of(kind_key)
    kind_of = kind_of.reshape(-1)
    before, after = [], []
    lengths = length_codes.tolist()
    for k in kind_codes.tolist():
        cable, at = divmod(k, len(lengths))
        medium, cable = divmod(cable, n_cables)
        kind = medium_cable_type(src, table.media[medium], table.cables[cable - 1].id if cable else "")
        before.append(f"{csv_field(kind)},planned,L")
        after.append(f",{csv_field(f'{lengths[at]:g}')},m\r\n")
    # an interface's name with its comma, and what comes before and after the label's number
    # (type, status; length, unit) made once per kind of cable
    ends, iface_table = text_table(end), text_table([name + "," for name in iface_name])
    before_table, after_table = text_table(before), text_table(after)
    for first in range(0, len(rows), STEP):
        ids = rows[first:first + STEP]
        part = slice(first, first + STEP)
        kinds = kind_of[part]
        yield text_rows([picked(ends, links.a_dev[ids]), picked(iface_table, a_iface[part]),
                         picked(ends, links.b_dev[ids]), picked(iface_table, b_iface[part]),
                         picked(before_table, kinds), number_text(ids + 1), picked(after_table, kinds)], len(ids))
