"""Which drawn links a failure takes down: the links of failed switches and failed cables.

The canvas draws one plane of a multi-plane fabric (`layout.plane`), so a link is drawn as
failed when its copy in that plane is lost: one of its ends is a failed device of the plane
drawn, or the cable itself failed. Devices that failed only in another plane are listed in
`other_planes`; their links in the plane drawn stay live, as they are. Plain numpy, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from designer.ui.canvas.layout import Layout, parse_device_id


def _end(node: str) -> tuple[str, int, int | None] | None:
    """(row, index, plane) of a cable's end; a server's NIC port ('srv-3.nic-2') has no plane of its own."""
    server, dot, port = node.partition(".nic-")
    if dot:
        parsed = parse_device_id(server)
        return ("servers", parsed[1], None) if parsed is not None and parsed[0] == "servers" else None
    return parse_device_id(node)


@dataclass(frozen=True)
class LinkFailure:
    """Failed devices and cables of the drawn plane, by row, as the bundles need them."""

    layout: Layout
    devices: dict[str, frozenset[int]]              # row -> failed device indices (plane drawn)
    cables: dict[str, dict[tuple[int, int], int]]   # lower row -> (lower, upper) -> failed cables
    other_planes: dict[str, frozenset[int]]         # row -> devices failed in another plane only
    ghost: bool = False                             # later build-out phases, not a failure
    cut_servers: int = 0                            # servers cut off (drawn dimmed)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, layout: Layout, devices, cables=(), ghost: bool = False, cut_servers=()) -> LinkFailure:
        mine: dict[str, set[int]] = {}
        other: dict[str, set[int]] = {}
        for device in devices:
            parsed = parse_device_id(device)
            if parsed is None:
                continue
            tier, index, plane = parsed
            row = layout.rows.get(tier)
            if row is None or index >= row.count:
                continue
            (mine if plane == layout.plane else other).setdefault(tier, set()).add(index)
        for tier, indices in other.items():
            indices -= mine.get(tier, set())
        cut: dict[str, dict[tuple[int, int], int]] = {}
        tiers = layout.tiers
        for a, b in cables:
            pa, pb = _end(a), _end(b)
            if pa is not None and pa[2] is None and pb is not None:
                pa = (pa[0], pa[1], pb[2])        # a NIC port is in its leaf's plane
            if pb is not None and pb[2] is None and pa is not None:
                pb = (pb[0], pb[1], pa[2])
            if pa is None or pb is None or pa[2] != layout.plane or pb[2] != layout.plane:
                continue     # another plane's cable: the plane drawn keeps its links
            if pa[0] not in tiers or pb[0] not in tiers:
                continue
            if tiers.index(pa[0]) < tiers.index(pb[0]):
                pa, pb = pb, pa       # lower row first (rows run top-down)
            if tiers.index(pa[0]) != tiers.index(pb[0]) + 1:
                continue     # not between neighbouring rows: no bundle draws it
            pair = (pa[1], pb[1])
            cut.setdefault(pa[0], {})[pair] = cut.get(pa[0], {}).get(pair, 0) + 1
        return cls(layout, {t: frozenset(v) for t, v in mine.items()}, cut,
                   {t: frozenset(v) for t, v in other.items() if v}, ghost, len(tuple(cut_servers)))

    @property
    def any_links(self) -> bool:
        """True when some drawn link is failed."""
        return any(self.touches(lower) for lower in self._lowers())

    def _lowers(self):
        tiers = self.layout.tiers
        return [tiers[i + 1] for i in range(len(tiers) - 1)]

    def _mask(self, tier: str, count: int) -> np.ndarray:
        mask = np.zeros(count, dtype=bool)
        failed = self.devices.get(tier)
        if failed:
            mask[np.fromiter(failed, dtype=np.int64)] = True
        return mask

    def failed_links(self, lower: str) -> tuple[np.ndarray, np.ndarray]:
        """(links, failed) per device pair of layout.link_arrays(lower): how many of each pair's
        links are down (all of them through a failed device, else its failed cables)."""
        key = ("failed", lower)
        if key in self._cache:
            return self._cache[key]
        layout = self.layout
        tiers = layout.tiers
        if lower not in tiers or tiers.index(lower) == 0:
            empty = np.zeros(0, np.int64)
            return empty, empty
        upper = tiers[tiers.index(lower) - 1]
        a, b, links = layout.link_arrays(lower)
        down = self._mask(lower, layout.rows[lower].count)[a] | self._mask(upper, layout.rows[upper].count)[b]
        failed = np.where(down, links, 0).astype(np.int64)
        cables = self.cables.get(lower)
        if cables:
            index = {(int(x), int(y)): k for k, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True))}
            for pair, n in cables.items():
                k = index.get(pair)
                if k is not None:
                    failed[k] = min(int(links[k]), failed[k] + n)
        self._cache[key] = (links, failed)
        return links, failed

    def touches(self, lower: str) -> bool:
        """True when the links from row `lower` to the row above have a failed one."""
        links, failed = self.failed_links(lower)
        return bool(len(failed)) and bool(failed.any())
