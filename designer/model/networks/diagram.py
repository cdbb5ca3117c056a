"""A network beside the compute fabric as rows of a diagram: its tiers top to bottom and the
link bundles between them. The window's network canvas and the draw.io export draw from it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.sizing import NetworkSize


@dataclass(frozen=True)
class Row:
    key: str
    title: str
    count: int
    detail: str = ""


@dataclass(frozen=True)
class Bundle:
    """The links between two rows: `text` labels the whole bundle; where it runs rack by rack,
    `per_rack` holds each server rack's links (the model's `rack_links`), at `gbps` each; where
    leaf pairs serve racks, `by_pair` holds, per leaf pair of the upper row, the racks it serves
    and its links to each as (rack index from 0, links) (the model's `pair_racks`)."""

    upper: int
    lower: int
    text: str
    per_rack: tuple[int, ...] = ()
    gbps: int = 0
    by_pair: tuple[tuple[tuple[int, int], ...], ...] = ()

    def pair_racks_label(self, pair: int) -> str:
        """'racks 1-3' (or 'rack 4', or 'part of rack 4'): the racks leaf pair `pair` serves."""
        racks = self.by_pair[pair]
        first, last = racks[0][0] + 1, racks[-1][0] + 1
        whole = all(rack >= len(self.per_rack) or self.per_rack[rack] == links for rack, links in (racks[0], racks[-1]))
        if first == last:
            return f"rack {first:,}" if whole else f"part of rack {first:,}"
        return f"racks {first:,}-{last:,}" if whole else f"parts of racks {first:,}-{last:,}"

    def pair_summary(self) -> str:
        """'3 racks per leaf pair' or '1-3 racks per leaf pair' ('' where not drawn by pair)."""
        if not self.by_pair:
            return ""
        counts = {len(racks) for racks in self.by_pair}
        low, high = min(counts), max(counts)
        each = f"{low:,}" if low == high else f"{low:,}-{high:,}"
        return f"{each} rack{'s' if high > 1 else ''} per leaf pair"

    def rack_label(self, rack: int) -> str:
        """'29 x 1G': the links of one rack, its index counted from 0 ('' for none)."""
        if rack >= len(self.per_rack):
            return ""
        return f"{self.per_rack[rack]:,} x {self.gbps:g}G"

    def racks_summary(self) -> str:
        """'29 x 1G per rack', or '18-36 x 400G per rack' where racks differ ('' if not per rack)."""
        if not self.per_rack:
            return ""
        low, high = min(self.per_rack), max(self.per_rack)
        each = f"{low:,}" if low == high else f"{low:,}-{high:,}"
        return f"{each} x {self.gbps:g}G per rack"


def network_rows(size: NetworkSize, servers: int) -> tuple[list[Row], list[tuple[int, int, str]]]:
    """Rows top to bottom and the bundles between them as (upper row, lower row, label)."""
    rows, bundles = network_diagram(size, servers)
    return rows, [(b.upper, b.lower, b.text) for b in bundles]


def network_diagram(size: NetworkSize, servers: int) -> tuple[list[Row], list[Bundle]]:
    """Rows top to bottom and the bundles between them, each with its count and speed, and,
    where it runs rack by rack (servers to their leaves or carrier, a rack's management
    switches to its endpoints), each rack's count."""
    links = {g.kind: g for g in size.links}
    rows: list[Row] = []
    bundles: list[Bundle] = []

    def label(kind: str) -> str:
        g = links.get(kind)
        return f"{g.count:,} x {g.gbps}G {kind}" if g else ""

    if size.template == "segment":
        # Nothing of its own to draw: the carrier's leaves (a row of none) and the servers whose
        # shared ports carry it.
        carrier = ROLE_LABELS.get(size.carried_by, size.carried_by)
        rows.append(Row("leaf", f"carried by {carrier}", 0, "no switches of its own"))
        rows.append(Row("servers", "servers", servers, f"{size.racks:,} racks" if size.racks else ""))
        bundles.append(Bundle(0, 1, f"{size.shared_ports:,} x {size.shared_gbps}G ports shared with {carrier}",
                              size.rack_links, size.shared_gbps))
        return rows, bundles
    if size.template == "per-rack":
        for g in size.switches:
            rows.append(Row(g.tier, g.tier, g.count, g.switch))
        ends = [k for k in ("BMC", "rack management ports", "PDU", "switch management") if k in links]
        rows.append(Row("endpoints", "endpoints", sum(links[k].count for k in ends),
                        ", ".join(f"{links[k].count:,} {k}" for k in ends)))
        rack_kinds = [k for k in ("BMC", "rack management ports", "PDU") if k in links]
        in_racks = sum(links[k].count for k in rack_kinds)
        gbps = links[rack_kinds[0]].gbps if rack_kinds else 0
        for i, row in enumerate(rows[:-1]):
            if row.key == "management (server racks)":
                bundles.append(Bundle(i, len(rows) - 1, f"{in_racks:,} x {gbps}G in the server racks ("
                                      + ", ".join(rack_kinds) + ")", size.rack_links, gbps))
            elif "switch management" in links:
                ports = links["switch management"]
                bundles.append(Bundle(i, len(rows) - 1, f"{ports.count:,} x {ports.gbps}G switch management"))
            else:
                bundles.append(Bundle(i, len(rows) - 1, ""))
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
    # The leaf-spine links split over the server and storage leaf pairs alike (the same uplinks each).
    uplinks = links.get("leaf-spine")
    leaves = tiers["leaf"].count if "leaf" in tiers else 0
    storage_leaves = tiers["storage leaf"].count if "storage leaf" in tiers else 0
    per_leaf = uplinks.count // (leaves + storage_leaves) if uplinks and leaves + storage_leaves else 0
    each_leaf = f" ({per_leaf:,} x {uplinks.gbps}G up from each leaf)" if uplinks and per_leaf else ""
    if "spine" in tiers:
        text = label("leaf-spine")
        if storage_leaves and uplinks:
            text = f"{per_leaf * leaves:,} x {uplinks.gbps}G leaf-spine"
        bundles.append(Bundle(0, leaf_row, text + each_leaf if text else text))
    rows.append(Row("servers", "servers", servers, f"{size.racks:,} racks" if size.racks else ""))
    server_leaf = links.get("server-leaf")
    per_server = server_leaf.count // servers if server_leaf and servers else 0
    by_pair = tuple(tuple((rack, n * per_server) for rack, n in racks) for racks in size.pair_racks) \
        if "leaf" in tiers else ()
    bundles.append(Bundle(leaf_row, len(rows) - 1, label("server-leaf"), size.rack_links,
                          server_leaf.gbps if server_leaf else 0, by_pair))
    if "storage leaf" in tiers:
        rows.insert(leaf_row + 1, Row("storage leaf", "storage leaf pairs", tiers["storage leaf"].count,
                                      tiers["storage leaf"].switch))
        bundles = [replace(b, upper=b.upper if b.upper <= leaf_row else b.upper + 1,
                           lower=b.lower if b.lower <= leaf_row else b.lower + 1) for b in bundles]
        if "spine" in tiers:
            bundles.append(Bundle(0, leaf_row + 1, f"{per_leaf * storage_leaves:,} x {uplinks.gbps}G leaf-spine"
                                  if uplinks else ""))
        rows.append(Row("storage", "storage appliance ports", size.storage_ports, f"{size.storage_gbps:,.0f} Gb/s"))
        bundles.append(Bundle(leaf_row + 1, len(rows) - 1, label("storage-leaf")))
    return rows, bundles
