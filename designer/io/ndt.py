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
from collections.abc import Iterator

import numpy as np

from designer.io.csv_cells import safe_cell
from designer.io.export_source import ExportError, ExportSource

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


def _port(src: ExportSource, end) -> str:
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

    view, number = src.view
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
        keep &= (a_plane == number - 1) & ((links.b_dev - servers) // dev.per_plane == number - 1)
    rows = np.flatnonzero(keep)
    yield _cell_row(HEADER) + "\n"

    # Each device's name and rack columns, each port's and cage's label and each kind of
    # link's last columns are made once, and each line is put together from them.
    names: dict[int, str] = {}
    where: dict[int, str] = {}

    def device(code: int) -> str:
        found = names.get(code)
        if found is None:
            name = src.host(code) if code < servers else dev.name(code)
            found = names[code] = _cell(safe_cell(name))
            where[code] = f"{_cell(rack_label(int(rack_of[code]), width))},{unit_of[code]}"
        return found

    ports: dict[tuple[int, int], str] = {}

    def host_port(code: int, port: int) -> str:
        found = ports.get((code, port))
        if found is None:
            found = ports[(code, port)] = _cell(safe_cell(f"{src.host(code)} {hca_name(src, f'nic-{port + 1}')}"))
        return found

    cage_labels: dict[tuple[int, int, int], str] = {}

    def cage(c: int, lane: int, cap: int) -> str:
        found = cage_labels.get((c, lane, cap))
        if found is None:
            found = cage_labels[(c, lane, cap)] = _cell(f"{c + 1}/{lane + 1}" if cap > 1 else f"{c + 1}")
        return found

    parts = [(c.part_number or c.name) for c in table.cables]
    tails: dict[tuple, str] = {}
    step = 20000
    for first in range(0, len(rows), step):
        ids = rows[first:first + step]
        cols = zip(*(arr[ids].tolist() for arr in (
            links.tier, links.gbps, links.a_dev, links.a_port, cages.a_cage, cages.a_lane, cages.a_cap,
            links.b_dev, links.b_port, cages.b_cage, cages.b_lane, cages.b_cap,
            table.medium, table.cable, table.length, table.sold)), strict=True)
        out = []
        for tier, gbps, ad, ap, ac, al, acp, bd, bp, bc, bl, bcp, medium, cable, length, sold in cols:
            key = (tier, gbps, medium, cable, length, sold)
            tail = tails.get(key)
            if tail is None:
                tail = tails[key] = ",".join(_cell(x) for x in (
                    f"{gbps}G", table.tiers[tier], MEDIUM_LABELS[table.media[medium]],
                    safe_cell(parts[cable]) if cable >= 0 else "", f"{length:g}", f"{sold:g}" if sold else ""))
            a = names.get(ad) or device(ad)
            b = names.get(bd) or device(bd)
            a_port = host_port(ad, ap) if ad < servers else f"Port {ap}"
            b_port = host_port(bd, bp) if bd < servers else f"Port {bp}"
            out.append(f"{a},{a_port},{b},{b_port},Data,{where[ad]},{cage(ac, al, acp)},"
                       f"{where[bd]},{cage(bc, bl, bcp)},{tail}\n")
        yield "".join(out)


def _cell(text: str) -> str:
    """One CSV field as csv.writer writes it in a row of several (quoted only when it must be)."""
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _cell_row(fields) -> str:
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
