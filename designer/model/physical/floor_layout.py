"""Racks and rows laid out from the design's floor plan: each device's position and cable runs.

The floor plan's fields and their defaults are the user's choices (designer/model/intent/
floorplan.py); this module turns them into positions, from which the physical layer takes
cable lengths.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.model.intent.floorplan import FloorPlan


@dataclass(frozen=True)
class Position:
    """Where a device stands: a rack in a row, with the rack's floor coordinates in metres."""

    row: int
    slot: int
    x: float
    y: float
    network: bool = False

    @property
    def rack(self) -> str:
        """Rack label used on cabling plans: row and position in the row, from 1."""
        return f"R{self.row + 1}.{self.slot + 1:02d}"


@dataclass(frozen=True)
class LeafSpot:
    """What placement needs to know about a leaf: the servers it serves, in order."""

    id: str
    servers: tuple[int, ...]
    spread: int            # rail (rail-optimized) or index: spreads leaves over their racks
    fallback_server: int   # where it goes when it serves no server (edited designs)


@dataclass(frozen=True)
class Layout:
    positions: dict[str, Position]
    server_racks: int
    network_racks: int     # racks holding switches only
    rows: int              # server rows plus network rows


def server_device(index: int) -> str:
    return f"srv-{index + 1}"


def cable_run_m(fp: FloorPlan, a: Position, b: Position) -> float:
    """Estimated cable length between two devices: in-rack, or up, along the trays, and down."""
    if (a.row, a.slot) == (b.row, b.slot):
        return round(fp.in_rack_m, 2)
    return round(abs(a.x - b.x) + abs(a.y - b.y) + 2 * fp.vertical_run_m + fp.slack_m, 2)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def lay_out(fp: FloorPlan, servers: int, leaves: list[LeafSpot], network: list[str]) -> Layout:
    """Positions of every server and switch.

    Servers fill racks in order, racks fill rows of `racks_per_row`. Network rows (spines and
    cores, and leaves with placement "network-row") sit in the middle of the hall, centred on
    the server rows. With "middle-of-row" each server row gets a block of network racks in its
    middle for the leaves whose median server is in that row.
    """
    per_rack, per_row, per_net = fp.servers_per_rack, fp.racks_per_row, fp.switches_per_network_rack
    n_racks = max(1, _ceil_div(servers, per_rack))
    server_rows = _ceil_div(n_racks, per_row)

    def rack_of(server: int) -> int:
        return min(server, servers - 1) // per_rack if servers else 0

    def racks_in_row(row: int) -> int:
        return min(per_row, n_racks - row * per_row)

    def home(leaf: LeafSpot) -> int:
        return leaf.servers[len(leaf.servers) // 2] if leaf.servers else leaf.fallback_server

    row_leaves: dict[int, list[LeafSpot]] = {}
    if fp.placement == "middle-of-row":
        for leaf in leaves:
            row_leaves.setdefault(rack_of(home(leaf)) // per_row, []).append(leaf)
    block = {row: _ceil_div(len(items), per_net) for row, items in row_leaves.items()}
    net_devices = ([leaf.id for leaf in leaves] if fp.placement == "network-row" else []) + list(network)
    net_racks = _ceil_div(len(net_devices), per_net)
    net_rows = _ceil_div(net_racks, per_row)
    mid = server_rows // 2

    def floor_row(server_row: int) -> int:
        return server_row if server_row < mid else server_row + net_rows

    def slot_of(rack: int) -> tuple[int, int]:
        row, local = divmod(rack, per_row)
        half = racks_in_row(row) // 2
        return row, (local if local < half else local + block.get(row, 0))

    def at(row: int, slot: int, network: bool = False) -> Position:
        return Position(row, slot, round(slot * fp.rack_width_m, 3), round(row * fp.row_pitch_m, 3), network)

    positions: dict[str, Position] = {}
    for s in range(servers):
        row, slot = slot_of(rack_of(s))
        positions[server_device(s)] = at(floor_row(row), slot)

    if fp.placement == "su-racks":
        for leaf in leaves:
            racks = sorted({rack_of(s) for s in leaf.servers}) or [rack_of(leaf.fallback_server)]
            row, slot = slot_of(racks[leaf.spread % len(racks)])
            positions[leaf.id] = at(floor_row(row), slot)
    elif fp.placement == "middle-of-row":
        for row, items in row_leaves.items():
            half = racks_in_row(row) // 2
            for j, leaf in enumerate(items):
                positions[leaf.id] = at(floor_row(row), half + j // per_net, network=True)

    widest = max(racks_in_row(r) + block.get(r, 0) for r in range(server_rows))
    for i, device in enumerate(net_devices):
        rack = i // per_net
        net_row, local = divmod(rack, per_row)
        in_this_row = min(per_row, net_racks - net_row * per_row)
        start = max(0, (widest - in_this_row) // 2)
        positions[device] = at(mid + net_row, start + local, network=True)

    return Layout(positions, n_racks, sum(block.values()) + net_racks, server_rows + net_rows)
