"""The NetBox folder (designer/io/netbox_csv.py) of a whole fabric or one plane, streamed from
the physical layer's per-link arrays (model/physical/link_table.py).

Writes byte for byte what the link-by-link writer writes (tests/test_export_streaming.py holds
them equal) without the device graph or an object per link: each device's name, each cage's
label and each kind of link's last columns are made once, and each row of the devices, optics
and cables files is put together from them, in chunks of rows. At 131,072 GPUs the cables file
alone has 393,216 rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from designer import __version__
from designer.io.csv_cells import csv_field, rows_to_csv, safe_cell
from designer.io.export_source import DEFAULT_RACK_UNITS, ExportSource
from designer.io.markup import one_line, slug
from designer.io.netbox_csv import (
    FILES,
    ROLES,
    DeviceType,
    device_types_yaml,
    interface_type,
    medium_cable_type,
    readme,
    server_type_of_ports,
    switch_type,
)

if TYPE_CHECKING:
    from designer.catalog.entries import Transceiver
    from designer.model.physical.link_table import LinkTable

ROLE_KEYS = ("server", "leaf", "spine", "core")   # device kinds by code, as `_roles` numbers them
STEP = 20000                                       # rows per chunk


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Both ends of each link in turn (a, then b): the order the link-by-link writer meets them."""
    out = np.empty(2 * len(a), dtype=a.dtype)
    out[0::2], out[1::2] = a, b
    return out


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


def streamed_files(src: ExportSource, table: LinkTable) -> dict[str, str | Iterable[str]]:
    from designer.io.network_netbox import network_netbox_files
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
    rack_codes = np.unique(rack_of[alive]).tolist()
    label = {code: rack_label(code, width) for code in rack_codes}
    heights = {label[code]: max(DEFAULT_RACK_UNITS, int(used[code])) for code in rack_codes}

    # The devices the view's links reach, ordered by rack label and unit.
    a_dev, b_dev = links.a_dev[rows], links.b_dev[rows]
    present = np.zeros(dev.total, dtype=bool)
    present[a_dev], present[b_dev] = True, True
    codes = np.flatnonzero(present)
    racks = sorted({label[code] for code in np.unique(rack_of[codes]).tolist()})
    rank_of_label = {name: i for i, name in enumerate(racks)}
    rack_rank = np.zeros(n_racks, dtype=np.int64)
    for code in np.unique(rack_of[codes]).tolist():
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
    optic = with_part[np.unique(e_dev[with_part] * cage_width + e_cage[with_part], return_index=True)[1]]
    rank = np.zeros(dev.total, dtype=np.int64)
    rank[order] = np.arange(len(order))
    optic = optic[np.lexsort((e_cage[optic], rank[e_dev[optic]]))]
    used_parts = set(np.unique(e_part[optic]).tolist())
    modules = {i: (part, src.catalog.transceivers.get(part)) for i, part in enumerate(table.parts)}
    makers = {t.maker for t in used_types} | {(m.vendor or "Generic") for i, (_, m) in modules.items()
                                              if m and i in used_parts}

    out = {FILES[0]: rows_to_csv([["name", "slug", "status", "description"],
                                  [safe_cell(site), slug(site), "planned", f"Fabric Designer {__version__}"]]),
           FILES[1]: rows_to_csv([["name", "slug"]] + [[safe_cell(m), slug(m)] for m in sorted(makers)]),
           FILES[2]: rows_to_csv([["name", "slug", "color"]] + [
               [ROLES[ROLE_KEYS[k]][0], slug(ROLES[ROLE_KEYS[k]][0]), ROLES[ROLE_KEYS[k]][1]] for k in kinds]),
           FILES[3]: device_types_yaml(used_types),
           FILES[4]: rows_to_csv([["site", "name", "status", "u_height"]] + [
               [safe_cell(site), rack, "planned", str(heights[rack])] for rack in racks])}
    names = [csv_field(safe_cell(src.host(c))) for c in range(servers)] + \
            [csv_field(safe_cell(dev.name(c))) if present[c] else "" for c in range(servers, dev.total)]
    site_cell = csv_field(safe_cell(site))
    out[FILES[5]] = _devices(order, role, types, names, site_cell, rack_of, unit_of, label)
    out[FILES[6]] = _optics(optic, e_dev, e_cage, e_port, e_part, servers, names, modules)
    out[FILES[7]] = _cables(src, table, rows, names, site_cell)
    files: dict[str, str | Iterable[str]] = {name: out[name] for name in FILES}
    files["README.txt"] = readme(src, site, table.findings, heights)
    files.update(network_netbox_files(src))
    return files


def _chunks(lines: Iterator[str]) -> Iterator[str]:
    batch = []
    for line in lines:
        batch.append(line)
        if len(batch) == STEP:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _devices(order: np.ndarray, role: np.ndarray, types: dict[int, DeviceType], names: list[str], site: str,
             rack_of: np.ndarray, unit_of: np.ndarray, label: dict[int, str]) -> Iterator[str]:
    yield rows_to_csv([["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"]])
    # what follows the name, per kind of device: role, manufacturer and type, then the site
    middle = {k: ",".join([csv_field(ROLES[ROLE_KEYS[k]][0]), csv_field(safe_cell(t.maker)),
                           csv_field(safe_cell(t.model)), site]) for k, t in types.items()}
    racks = {code: csv_field(name) for code, name in label.items()}
    yield from _chunks(f"{names[c]},{middle[k]},{racks[rk]},{u},front,planned\r\n" for c, k, rk, u in zip(
        order.tolist(), role[order].tolist(), rack_of[order].tolist(), unit_of[order].tolist(), strict=True))


def _interface(code: int, port: int, servers: int) -> str:
    """A link end's interface as the link-by-link writer names it (neither name needs quoting)."""
    return f"nic-{port + 1}" if code < servers else f"Port {port}"


def _optics(optic: np.ndarray, e_dev: np.ndarray, e_cage: np.ndarray, e_port: np.ndarray, e_part: np.ndarray,
            servers: int, names: list[str],
            modules: dict[int, tuple[str, Transceiver | None]]) -> Iterator[str]:
    yield rows_to_csv([["device", "name", "status", "manufacturer", "part_id", "description", "component_type",
                        "component_name"]])
    part_cells = {}
    for i, (part, module) in modules.items():
        part_cells[i] = ",".join(csv_field(safe_cell(x)) for x in (
            (module.vendor or "Generic") if module else "Generic",
            (module.part_number or module.name) if module else part, module.name if module else part))
    yield from _chunks(
        f"{names[d]},Optic {c + 1},planned,{part_cells[p]},dcim.interface,{_interface(d, port, servers)}\r\n"
        for d, c, port, p in zip(e_dev[optic].tolist(), e_cage[optic].tolist(), e_port[optic].tolist(),
                                 e_part[optic].tolist(), strict=True))


def _cables(src: ExportSource, table: LinkTable, rows: np.ndarray, names: list[str], site: str) -> Iterator[str]:
    from designer.model.physical.link_table import LinkTable

    yield rows_to_csv([["side_a_site", "side_a_device", "side_a_type", "side_a_name", "side_b_site",
                        "side_b_device", "side_b_type", "side_b_name", "type", "status", "label", "length",
                        "length_unit"]])
    links, servers = table.links, table.dev.servers
    # the cable type of each (medium, cable) and the length bought (or the run where none is sold)
    n_cables = len(table.cables) + 1
    kind_key = table.medium[rows] * n_cables + table.cable[rows] + 1
    kind_codes, kind_of = np.unique(kind_key, return_inverse=True)
    kind_text = [csv_field(medium_cable_type(src, LinkTable.media[k // n_cables],
                                             table.cables[k % n_cables - 1].id if k % n_cables else ""))
                 for k in kind_codes.tolist()]
    length = np.where(table.sold[rows] > 0, table.sold[rows], table.length[rows])
    length_codes, length_of = np.unique(length, return_inverse=True)
    length_text = [csv_field(f"{x:g}") for x in length_codes.tolist()]
    for first in range(0, len(rows), STEP):
        ids = rows[first:first + STEP]
        part = slice(first, first + STEP)
        yield "".join([
            f"{site},{names[ad]},dcim.interface,{_interface(ad, ap, servers)},{site},{names[bd]},dcim.interface,"
            f"{_interface(bd, bp, servers)},{kind_text[k]},planned,L{i + 1},{length_text[n]},m\r\n"
            for i, ad, ap, bd, bp, k, n in zip(
                ids.tolist(), links.a_dev[ids].tolist(), links.a_port[ids].tolist(), links.b_dev[ids].tolist(),
                links.b_port[ids].tolist(), kind_of.reshape(-1)[part].tolist(), length_of.reshape(-1)[part].tolist(),
                strict=True)])
