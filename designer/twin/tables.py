"""OpenSM's dumped forwarding tables (`opensm-lfts.dump`) read into RoutingTables.

The dump holds, per switch, `Unicast lids [0-N] of switch Lid L guid 0x... ('desc'):` and then
one line per LID, `0x000d 033 # Channel Adapter portguid 0x...: 'name'`: the output port toward
that LID. The links (which switch port leads where, at what speed) come from the fabric the
simulator was given, less the links a fault took down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from designer.model.performance.static_routes import RoutingTables
from designer.model.topology.asbuilt import AsBuilt

_HEADER = re.compile(rb"^Unicast lids \[0-\d+\] of switch Lid (\d+) guid 0x([0-9a-f]+)", re.M)
_ENTRY = re.compile(rb"^0x([0-9a-f]{4}) (\d{3})", re.M)
_TARGET = re.compile(rb"^0x([0-9a-f]{4}) \d{3} # (Switch|Channel Adapter) portguid 0x([0-9a-f]+)", re.M)


class TableError(ValueError):
    """The dump cannot be read; one line."""


def read_tables(dump: bytes, fabric: AsBuilt, compute: list[str], placement: list[tuple[int, int]],
                nic_gbps: float, down: Iterable[tuple[str, int]] = (),
                slowed: dict[tuple[str, int], float] | None = None) -> RoutingTables:
    """RoutingTables of the dump, on the links of `fabric` (the simulated fabric as given) less
    the switch ports in `down`. `compute`: the compute HCAs' node ids ("H-<guid>") in rank order,
    `placement`: their (server, rail)."""
    heads = list(_HEADER.finditer(dump))
    if not heads:
        raise TableError("the subnet manager's forwarding-table dump holds no switch")
    switch_ids = [f"S-{int(m.group(2), 16):016x}" for m in heads]
    sw_index = {s: i for i, s in enumerate(switch_ids)}
    # LID of every port, from the first switch's section (every section lists every LID).
    first = dump[heads[0].end(): heads[1].start() if len(heads) > 1 else len(dump)]
    lid_of: dict[str, int] = {}
    for m in _TARGET.finditer(first):
        guid = int(m.group(3), 16)
        node = f"S-{guid:016x}" if m.group(2) == b"Switch" else f"H-{(guid - 1) % 2**64:016x}"
        lid_of[node] = int(m.group(1), 16)
    ep_index = {h: i for i, h in enumerate(compute)}
    ep_lids = np.array([lid_of.get(h, -1) for h in compute], dtype=np.int64)
    max_lid = int(max(lid_of.values(), default=0))
    n_sw, n_ep = len(switch_ids), len(compute)
    ports = max((d.ports for d in fabric.devices.values() if d.kind == "switch"), default=1) + 1
    lft = np.zeros((n_sw, n_ep), dtype=np.int16)
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(dump)
        section = _ENTRY.findall(dump, head.end(), end)
        if not section:
            continue
        row = np.zeros(max_lid + 1, dtype=np.int16)
        lids = np.fromiter((int(a, 16) for a, _ in section), dtype=np.int64, count=len(section))
        outs = np.fromiter((int(b) for _, b in section), dtype=np.int16, count=len(section))
        keep = lids <= max_lid
        row[lids[keep]] = outs[keep]
        known = ep_lids >= 0
        lft[i, known] = row[ep_lids[known]]
    peer_switch = np.full((n_sw, ports), -1, dtype=np.int64)
    peer_endpoint = np.full((n_sw, ports), -1, dtype=np.int64)
    gbps = np.zeros((n_sw, ports), dtype=np.float64)
    leaf_of = np.full(n_ep, -1, dtype=np.int64)
    cut = set(down)
    for link in fabric.links:
        for a, pa, b, pb in ((link.a, link.pa, link.b, link.pb), (link.b, link.pb, link.a, link.pa)):
            s = sw_index.get(a)
            if s is None or pa >= ports or (a, pa) in cut or (b, pb) in cut:
                continue
            # Only links between switches and to compute HCAs carry the patterns: an
            # aggregation node's port is no one's path, and would dilute the tier's capacity.
            if b in sw_index:
                peer_switch[s, pa] = sw_index[b]
            elif b in ep_index:
                peer_endpoint[s, pa] = ep_index[b]
                leaf_of[ep_index[b]] = s
            else:
                continue
            gbps[s, pa] = link.gbps * (slowed or {}).get((a, pa), 1.0)
    level = _levels(peer_switch, leaf_of, n_sw)
    server = np.array([p[0] for p in placement], dtype=np.int64)
    rail = np.array([p[1] for p in placement], dtype=np.int64)
    # An endpoint cut off from the fabric keeps a placeholder leaf; its flows go undelivered.
    attached = leaf_of >= 0
    leaf_of = np.where(attached, leaf_of, 0)
    lft[:, ~attached] = 0
    return RoutingTables(lft=lft, peer_switch=peer_switch, peer_endpoint=peer_endpoint, gbps=gbps,
                         level=level, leaf_of=leaf_of, server_of=server, rail_of=rail, nic_gbps=nic_gbps)


def _levels(peer_switch: np.ndarray, leaf_of: np.ndarray, n_sw: int) -> np.ndarray:
    """1 for switches with endpoints, then one more per hop away from the nearest of them."""
    level = np.zeros(n_sw, dtype=np.int64)
    frontier = sorted(set(leaf_of[leaf_of >= 0].tolist()))
    level[frontier] = 1
    depth = 1
    while frontier:
        depth += 1
        nxt = set()
        for s in frontier:
            for peer in peer_switch[s][peer_switch[s] >= 0].tolist():
                if level[peer] == 0:
                    level[peer] = depth
                    nxt.add(peer)
        frontier = sorted(nxt)
    return level
