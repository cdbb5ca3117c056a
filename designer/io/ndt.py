r"""UFM-style cabling topology (NDT) CSV of an InfiniBand design, to check the cabling against.

Format (Mellanox/ufm_sdk_3.0, UFM_NDT_Plugin, topo_diff.parse_ndt_file): a header
`#StartDevice,StartPort,EndDevice,EndPort,LinkType` and one row per link, the lower device first
(server before leaf, leaf before spine). Switch ports are `Port N` (the InfiniBand port number:
cage by cage, both ports of a twin-port cage in turn), which the plugin's default switch pattern
`^Port (\d+)$` reads. A server port is the HCA's node description as UFM sees it,
`<host> mlx5_<k>` (k from 0 in NIC order, or the names given with --hca-names for real HCA
numbering); the plugin reads it with a host pattern set in its ndt.conf, for example
`host_patterns: (^\S+ mlx5_\d+$)`. LinkType is `Data`. UFM takes NDTs as `switch_to_switch` or
`switch_to_host` files: --ndt-kind writes the one or the other (a file of all the links is read
as `switch_to_host`, which accepts switch ports too).

After these columns come the cabling plan's: rack and lowest rack unit of each end, the cage
position, speed, medium, cable or fiber part, the estimated run and the stock length. The NDT
plugin reads its five columns by name and passes over the others.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.io.csv_cells import safe_cell
from designer.io.export_source import ExportError, ExportSource

if TYPE_CHECKING:   # the physical layer loads when this export runs
    from designer.model.physical.media import End

HEADER = ("#StartDevice", "StartPort", "EndDevice", "EndPort", "LinkType",
          "StartRack", "StartU", "StartCage", "EndRack", "EndU", "EndCage",
          "Speed", "Tier", "Medium", "CablePart", "EstimatedLength(m)", "CableLength(m)")


NDT_KINDS = ("all", "switch-to-switch", "switch-to-host")


def hca_name(src: ExportSource, nic_port: str) -> str:
    """The HCA device name of a server's NIC port ('nic-3' -> 'mlx5_2', or the name given)."""
    index = int(nic_port.removeprefix("nic-")) - 1
    names = src.options.hca_names
    if names:
        if index >= len(names):
            raise ExportError(f"--hca-names lists {len(names)} HCA name(s); the servers have a NIC port "
                              f"{index + 1}")
        return names[index]
    return f"mlx5_{index}"


def _port(src: ExportSource, end: End) -> str:
    return f"{src.device_name(end.device)} {hca_name(src, end.port)}" if end.host else f"Port {end.port}"


def ndt_csv(src: ExportSource) -> str:
    return "".join(ndt_chunks(src))


def ndt_chunks(src: ExportSource) -> Iterator[str]:
    """The NDT file in chunks of rows, from the physical layer's per-link arrays
    (model/physical/link_table.py): no device graph and no object per link. A view of one SU or
    pod, and edits that name a server's NIC, take the link-by-link path."""
    kind = src.options.ndt_kind
    if kind not in NDT_KINDS:
        raise ExportError(f"unknown NDT kind '{kind}' (use {', '.join(NDT_KINDS)})")
    from designer.model.physical.link_table import elevation, link_table, rack_label
    from designer.model.physical.media import MEDIUM_LABELS

    view = src.view[0]
    table = link_table(src.derived, src.catalog) if view != "su" else None
    if table is None:
        yield _ndt_csv_by_link(src)
        return
    r, dev = src.resolved, table.dev
    links, cages = table.links, table.cages
    units = {role: max(1, src.switch_model(m.id).rack_units)
             for role, m in (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch))}
    rack_of, unit_of = elevation(table, max(1, src.server_model.rack_units), units)
    width = int(table.slot.max(initial=0)) + 1
    servers = dev.servers
    host = links.tier == 0
    keep = np.ones(len(links.tier), dtype=bool)
    if kind == "switch-to-switch":
        keep &= ~host
    elif kind == "switch-to-host":
        keep &= host
    if view == "plane":
        # a NIC port's plane is its global port over the rails; a switch's from its code
        a_plane = np.where(links.a_dev < servers, links.a_port // r.rails, (links.a_dev - servers) // dev.per_plane)
        keep &= (a_plane == src.view_index) & ((links.b_dev - servers) // dev.per_plane == src.view_index)
    rows = np.flatnonzero(keep)
    yield _cell_row(HEADER) + "\n"

    # Each device's name and rack columns, each cage's label and each kind of link's last
    # columns are made once (numpy finds the kinds), and each line is put together from them.
    codes = np.arange(dev.total)
    name = [_cell(safe_cell(src.host(c) if c < servers else dev.name(c))) for c in codes.tolist()]
    where = [f"{_cell(rack_label(k, width))},{u}" for k, u in zip(rack_of.tolist(), unit_of.tolist(), strict=True)]
    hosts = [src.host(c) for c in range(servers)]
    hca = [hca_name(src, f"nic-{p + 1}") for p in range(r.rails * r.planes)] if len(rows) else []

    def kinds(*columns: np.ndarray) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
        """A code per link for the distinct combinations of the columns, and each combination
        (values coded column by column, then the combined codes: sorts of plain integers)."""
        key = np.zeros(len(rows), dtype=np.int64)
        values = []
        for column in columns:
            found, code = np.unique(column, return_inverse=True)
            key = key * len(found) + code.reshape(-1)
            values.append(found.tolist())
        combos, code = np.unique(key, return_inverse=True)
        out = []
        for k in combos.tolist():
            row = []
            for found in reversed(values):
                k, at = divmod(k, len(found))
                row.append(found[at])
            out.append(tuple(reversed(row)))
        return code.reshape(-1), out

    a_cage, a_cages = kinds(cages.a_cage[rows], cages.a_lane[rows], cages.a_cap[rows])
    b_cage, b_cages = kinds(cages.b_cage[rows], cages.b_lane[rows], cages.b_cap[rows])
    a_label = [_cage(*x) for x in a_cages]
    b_label = [_cage(*x) for x in b_cages]
    parts = [(c.part_number or c.name) for c in table.cables]
    tail, tails = kinds(links.tier[rows], links.gbps[rows], table.medium[rows], table.cable[rows],
                        table.length[rows], table.sold[rows])
    tail_text = [",".join(_cell(x) for x in (
        f"{int(gbps)}G", table.tiers[int(tier)], MEDIUM_LABELS[table.media[int(medium)]],
        safe_cell(parts[int(cable)]) if cable >= 0 else "", f"{length:g}", f"{sold:g}" if sold else ""))
        for tier, gbps, medium, cable, length, sold in tails]
    step = 20000
    for first in range(0, len(rows), step):
        ids = rows[first:first + step]
        part = slice(first, first + step)
        cols = zip(links.a_dev[ids].tolist(), links.a_port[ids].tolist(), links.b_dev[ids].tolist(),
                   links.b_port[ids].tolist(), a_cage[part].tolist(), b_cage[part].tolist(), tail[part].tolist(),
                   strict=True)
        yield "".join([
            f"{name[ad]},{_cell(safe_cell(hosts[ad] + ' ' + hca[ap])) if ad < servers else f'Port {ap}'},"
            f"{name[bd]},{_cell(safe_cell(hosts[bd] + ' ' + hca[bp])) if bd < servers else f'Port {bp}'},Data,"
            f"{where[ad]},{a_label[ac]},{where[bd]},{b_label[bc]},{tail_text[t]}\n"
            for ad, ap, bd, bp, ac, bc, t in cols])


def _cage(cage: float, lane: float, capacity: float) -> str:
    """Cage and position as End.cage_label prints them."""
    return _cell(f"{int(cage) + 1}/{int(lane) + 1}" if capacity > 1 else f"{int(cage) + 1}")


def _cell(text: str) -> str:
    """One CSV field as csv.writer writes it in a row of several (quoted only when it must be)."""
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _cell_row(fields: Iterable[str]) -> str:
    return ",".join(_cell(f) for f in fields)


def _ndt_csv_by_link(src: ExportSource) -> str:
    """The NDT file from the link-by-link physical layer (a view of one SU, or NIC edits)."""
    from designer.model.physical.media import MEDIUM_LABELS

    elevation = src.elevation
    rows = [list(HEADER)]
    kind = src.options.ndt_kind
    if kind not in NDT_KINDS:
        raise ExportError(f"unknown NDT kind '{kind}' (use {', '.join(NDT_KINDS)})")
    for link in src.physical_links():
        host_link = link.a.host or link.b.host
        if (kind == "switch-to-switch" and host_link) or (kind == "switch-to-host" and not host_link):
            continue
        cable = src.catalog.cables.get(link.cable)
        part = (cable.part_number or cable.name) if cable else ""
        a_rack, a_u = elevation[link.a.device]
        b_rack, b_u = elevation[link.b.device]
        rows.append([safe_cell(src.device_name(link.a.device)), safe_cell(_port(src, link.a)),
                     safe_cell(src.device_name(link.b.device)), safe_cell(_port(src, link.b)), "Data",
                     a_rack, str(a_u), link.a.cage_label, b_rack, str(b_u), link.b.cage_label,
                     f"{link.gbps}G", link.tier, MEDIUM_LABELS[link.medium], safe_cell(part),
                     f"{link.length_m:g}", f"{link.cable_length_m:g}" if link.cable_length_m else ""])
    # Plain UTF-8 with LF line ends: the NDT plugin matches the header by name (a byte-order
    # mark would hide '#StartDevice') and asks for Linux line ends.
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()
