"""A network beside the compute fabric as rows of a diagram: its tiers top to bottom and the
link bundles between them. The window's network canvas and the draw.io export draw from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.sizing import NetworkSize


@dataclass(frozen=True)
class Row:
    key: str
    title: str
    count: int
    detail: str = ""


def network_rows(size: NetworkSize, servers: int) -> tuple[list[Row], list[tuple[int, int, str]]]:
    """Rows top to bottom and the bundles between them as (upper row, lower row, label)."""
    links = {g.kind: g for g in size.links}
    rows: list[Row] = []
    bundles: list[tuple[int, int, str]] = []

    def label(kind: str) -> str:
        g = links.get(kind)
        return f"{g.count:,} x {g.gbps}G {kind}" if g else ""

    if size.template == "segment":
        # Nothing of its own to draw: the carrier's leaves (a row of none) and the servers whose
        # shared ports carry it.
        carrier = ROLE_LABELS.get(size.carried_by, size.carried_by)
        rows.append(Row("leaf", f"carried by {carrier}", 0, "no switches of its own"))
        rows.append(Row("servers", "servers", servers, f"{size.racks:,} racks" if size.racks else ""))
        bundles.append((0, 1, f"{size.shared_ports:,} x {size.shared_gbps}G ports shared with {carrier}"))
        return rows, bundles
    if size.template == "per-rack":
        for g in size.switches:
            rows.append(Row(g.tier, g.tier, g.count, g.switch))
        ends = [k for k in ("BMC", "rack management ports", "PDU", "switch management") if k in links]
        rows.append(Row("endpoints", "endpoints", sum(links[k].count for k in ends),
                        ", ".join(f"{links[k].count:,} {k}" for k in ends)))
        for i in range(len(rows) - 1):
            bundles.append((i, len(rows) - 1, ""))
        if "management uplink" in links:
            rows[0] = Row(rows[0].key, rows[0].title, rows[0].count,
                          f"{rows[0].detail}; {label('management uplink')} to the site")
        return rows, bundles
    tiers = {g.tier: g for g in size.switches}
    if "spine" in tiers:
        rows.append(Row("spine", "spine", tiers["spine"].count, tiers["spine"].switch))
    if "leaf" in tiers:
        peer = label("leaf peer link")
        rows.append(Row("leaf", "leaf pairs", tiers["leaf"].count,
                        tiers["leaf"].switch + (f"; {peer}" if peer else "")))
    else:
        rows.append(Row("leaf", "compute fabric leaves (merged)", 0, "shared with the compute fabric"))
    leaf_row = len(rows) - 1
    if "spine" in tiers:
        bundles.append((0, leaf_row, label("leaf-spine")))
    rows.append(Row("servers", "servers", servers, f"{size.racks:,} racks" if size.racks else ""))
    bundles.append((leaf_row, len(rows) - 1, label("server-leaf")))
    if "storage leaf" in tiers:
        rows.insert(leaf_row + 1, Row("storage leaf", "storage leaf pairs", tiers["storage leaf"].count,
                                      tiers["storage leaf"].switch))
        bundles = [(a if a <= leaf_row else a + 1, b if b <= leaf_row else b + 1, t) for a, b, t in bundles]
        if "spine" in tiers:
            bundles.append((0, leaf_row + 1, ""))
        rows.append(Row("storage", "storage appliance ports", size.storage_ports, f"{size.storage_gbps:,.0f} Gb/s"))
        bundles.append((leaf_row + 1, len(rows) - 1, label("storage-leaf")))
    return rows, bundles
