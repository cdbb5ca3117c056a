"""UFM-style cabling topology (NDT) CSV of an InfiniBand design, to check the cabling against.

Format (Mellanox/ufm_sdk_3.0, UFM_NDT_Plugin): a header `#StartDevice,StartPort,EndDevice,
EndPort,LinkType` and one row per link, the lower device first (server before leaf, leaf
before spine). Switch ports are `Port N` (the InfiniBand port number: cage by cage, both ports
of a twin-port cage in turn); a server port is `<node name> nic-K`, K as on the cabling plan
(map it to the host's HCA names, such as mlx5_N, where they differ). LinkType is `Data`.

After these columns come the cabling plan's: rack and lowest rack unit of each end, the cage
position, speed, medium, cable or fiber part, the estimated run and the stock length. The NDT
plugin reads its five columns by name and passes over the others.
"""

from __future__ import annotations

import csv
import io

from designer.io.csv_cells import safe_cell
from designer.io.export_source import ExportSource
from designer.model.physical.media import MEDIUM_LABELS

HEADER = ("#StartDevice", "StartPort", "EndDevice", "EndPort", "LinkType",
          "StartRack", "StartU", "StartCage", "EndRack", "EndU", "EndCage",
          "Speed", "Tier", "Medium", "CablePart", "EstimatedLength(m)", "CableLength(m)")


def _port(src: ExportSource, end) -> str:
    return f"{src.device_name(end.device)} {end.port}" if end.host else f"Port {end.port}"


def ndt_csv(src: ExportSource) -> str:
    elevation = src.elevation
    rows = [list(HEADER)]
    for link in src.physical_links():
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
