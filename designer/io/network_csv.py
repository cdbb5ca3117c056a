"""The BOM and cabling of a design with several networks, as CSV with a Network column.

A compute-only design keeps the sheets of bom_csv.py and cabling_csv.py, byte for byte. With other
networks, the BOM sheet is the compute fabric's rows (Network = "compute") followed by each
network's rows and a cluster total; the networks' cabling is one row per link group (servers are
cabled once per role), beside the compute fabric's link-by-link plan.
"""

from __future__ import annotations

import os

from designer.io.atomic import write_atomic
from designer.io.bom_csv import bom_rows, money, watts
from designer.io.csv_cells import ENCODING, rows_to_csv, safe_cell
from designer.model.networks.bom import NetworkBom, cluster_bom_json
from designer.model.physical.bom import Bom

CABLING_HEADER = ("Network", "Role", "Link", "Links", "Speed (Gb/s)", "Medium")


def cluster_bom_rows(bom: Bom, sections: tuple[NetworkBom, ...]) -> list[list[str]]:
    rows = bom_rows(bom)
    width = len(rows[0])
    out = [rows[0] + ["Network"]]
    out += [row + ["compute"] for row in rows[1:]]
    for section in sections:
        label = section.size.label
        for item in section.items:
            out.append([safe_cell(item.category), safe_cell(item.part_number), safe_cell(item.description),
                        str(item.quantity), money(item.unit_price), money(item.extended_price),
                        watts(item.unit_power_w), watts(item.total_power_w), safe_cell(item.notes), label])
        out.append(["Network total", "", f"{len(section.items)} line items", "", "", money(section.total_cost),
                    "", watts(section.total_power_w), "", label])
        if section.size.template == "segment" and section.size.carried_by:
            # A segment has no line items of its own; one row says so, with what carries it.
            out.append(["Note", "", safe_cell(f"carried by the {section.size.carried_by} network: no switches, "
                                              f"cables or transceivers of its own; shares "
                                              f"{section.size.shared_ports} server ports at "
                                              f"{section.size.shared_gbps}G")] + [""] * (width - 3) + [label])
        for error in section.size.errors:
            out.append(["Warning", "", safe_cell(error)] + [""] * (width - 3) + [label])
    total = cluster_bom_json(bom, sections)["cluster_total"]
    out.append(["Cluster total", "", f"{1 + len(sections)} networks", "", "", money(total["total_cost"]), "",
                watts(total["total_power_w"]), "", "all"])
    return out


def write_cluster_bom_csv(bom: Bom, sections: tuple[NetworkBom, ...], path: str | os.PathLike[str]) -> None:
    write_atomic(path, rows_to_csv(cluster_bom_rows(bom, sections)).encode(ENCODING))


def network_cabling_rows(sections: tuple[NetworkBom, ...]) -> list[list[str]]:
    rows = [list(CABLING_HEADER)]
    for section in sections:
        for link in section.size.links:
            rows.append([safe_cell(section.size.label), section.size.role, safe_cell(link.kind), str(link.count),
                         str(link.gbps), link.medium])
    return rows


def write_network_cabling_csv(sections: tuple[NetworkBom, ...], path: str | os.PathLike[str]) -> None:
    write_atomic(path, rows_to_csv(network_cabling_rows(sections)).encode(ENCODING))
