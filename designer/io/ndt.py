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
    from designer.model.physical.media import MEDIUM_LABELS  # loaded by this export only

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
