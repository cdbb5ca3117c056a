"""Where each tier, group and device of a fabric sits on the canvas. Plain Python, no Qt.

The layout is computed from the sizing plan, never from the device graph, so a 64K-endpoint
fabric lays out in well under a millisecond. Rows run top-down (core, spine, leaf, servers).
Each row is cut into blocks (a pod, a scalable unit or a core group); devices sit evenly
inside their block. Every position is given at full detail; the items decide how much of it
to draw at the current zoom (one box per row, one per block, or every device).
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from designer.model.intent.design import FabricDesign
from designer.model.topology.builders import _spread
from designer.model.topology.edited_fabric import PlaneEdits, edited_planes, plane_edits
from designer.model.topology.sizing import Plan, Resolved

SWITCH_PITCH = 72.0    # scene units per switch inside a block
SERVER_PITCH = 22.0    # scene units per server
BLOCK_GAP = 36.0       # between pods / scalable units
ROW_PITCH = 150.0      # between row centres
BOX_HEIGHT = 46.0      # a row's box
MIN_ROW_WIDTH = 4 * SWITCH_PITCH
ROWS = ("core", "spine", "leaf", "servers")
TIER_LABEL = {"core": "Core", "spine": "Spine", "leaf": "Leaf", "servers": "Servers"}


@dataclass(frozen=True)
class Block:
    """A run of devices of one row: a pod, a scalable unit, a core group, or the whole row."""

    index: int
    first: int          # index of its first device in the row
    count: int
    x: float            # left edge
    w: float
    label: str

    @property
    def center(self) -> float:
        return self.x + self.w / 2

    @property
    def pitch(self) -> float:
        return self.w / self.count if self.count else self.w

    def device_x(self, i: int) -> float:
        """Centre of the block's i-th device (0-based within the block)."""
        return self.x + (i + 0.5) * self.pitch


@dataclass(frozen=True)
class Row:
    tier: str
    y: float
    count: int          # devices per plane
    blocks: tuple[Block, ...]
    model: str          # switch or server model name
    model_id: str
    # The row's racks need liquid cooling: its server or switch model is marked `liquid_cooled`
    # in the catalog (GB300 / Vera Rubin NVL72 trays, MI355X, co-packaged-optics switches).
    liquid_cooled: bool = False

    @property
    def x0(self) -> float:
        return self.blocks[0].x if self.blocks else 0.0

    @property
    def x1(self) -> float:
        return self.blocks[-1].x + self.blocks[-1].w if self.blocks else 0.0

    @cached_property
    def _firsts(self) -> list[int]:
        return [b.first for b in self.blocks]

    @cached_property
    def _lefts(self) -> list[float]:
        return [b.x for b in self.blocks]

    @cached_property
    def _block_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.array([b.first for b in self.blocks], dtype=np.int64),
                np.array([b.x for b in self.blocks], dtype=np.float64),
                np.array([b.pitch for b in self.blocks], dtype=np.float64))

    def device_xs(self, devices: np.ndarray) -> np.ndarray:
        """Centres of many devices at once (numpy), as `device_x` gives them one by one."""
        firsts, xs, pitches = self._block_arrays
        k = np.clip(np.searchsorted(firsts, devices, side="right") - 1, 0, len(firsts) - 1)
        return xs[k] + (devices - firsts[k] + 0.5) * pitches[k]

    @cached_property
    def pitch(self) -> float:
        """Smallest device pitch of the row: it decides when devices are drawn one by one."""
        return min((b.pitch for b in self.blocks if b.count), default=SWITCH_PITCH)

    def block_of(self, device: int) -> Block:
        return self.blocks[max(0, bisect.bisect_right(self._firsts, device) - 1)]

    def device_x(self, device: int) -> float:
        block = self.block_of(device)
        return block.device_x(device - block.first)

    def block_at(self, x: float) -> Block | None:
        i = bisect.bisect_right(self._lefts, x) - 1
        if 0 <= i < len(self.blocks) and x <= self.blocks[i].x + self.blocks[i].w:
            return self.blocks[i]
        return None

    def device_at(self, x: float) -> int | None:
        """The device whose slot holds x, or None outside every block."""
        block = self.block_at(x)
        if block is None or not block.count:
            return None
        k = min(block.count - 1, max(0, int((x - block.x) / block.pitch)))
        return block.first + k

    def nearest_device(self, x: float) -> int:
        """The device nearest to x (for aiming at an aggregated row)."""
        block = self.block_at(x)
        if block is None:
            block = min(self.blocks, key=lambda b: min(abs(x - b.x), abs(x - b.x - b.w)))
        k = min(block.count - 1, max(0, int((x - block.x) / block.pitch)))
        return block.first + k

    def devices_between(self, x0: float, x1: float) -> range:
        """Indexes of devices whose slots overlap [x0, x1]."""
        lo = hi = None
        start = max(0, bisect.bisect_right(self._lefts, x0) - 1)
        for b in self.blocks[start:]:
            if b.x > x1:
                break
            if b.x + b.w < x0 or not b.count:
                continue
            k0 = max(0, int((x0 - b.x) / b.pitch))
            k1 = min(b.count - 1, int((x1 - b.x) / b.pitch))
            if k0 > k1:
                continue
            if lo is None:
                lo = b.first + k0
            hi = b.first + k1
        return range(0) if lo is None or hi is None else range(lo, hi + 1)


@dataclass(frozen=True)
class BlockBundle:
    """Links between a block of a lower row and a block of the row above (per plane)."""

    lower: str
    lower_block: int
    upper: str
    upper_block: int
    links: int


def device_id(tier: str, index: int, plane: int = 0, planes: int = 1) -> str:
    """The graph's id of a device: 'leaf-3', 'p2.spine-1'; servers are 'srv-5'."""
    if tier == "servers":
        return f"srv-{index + 1}"
    prefix = f"p{plane + 1}." if planes > 1 else ""
    return f"{prefix}{tier}-{index + 1}"


def parse_device_id(text: str) -> tuple[str, int, int] | None:
    """(tier, index, plane) of a device id, or None for anything else."""
    plane = 0
    head = text
    if text.startswith("p") and "." in text:
        prefix, _, head = text.partition(".")
        if not prefix[1:].isdigit():
            return None
        plane = int(prefix[1:]) - 1
    name, _, number = head.rpartition("-")
    tier = "servers" if name == "srv" else name
    if tier not in ROWS or not number.isdigit() or int(number) < 1:
        return None
    return tier, int(number) - 1, plane


@dataclass(frozen=True)
class Layout:
    design: FabricDesign
    resolved: Resolved
    plan: Plan
    rows: dict[str, Row]
    bundles: tuple[BlockBundle, ...]
    width: float
    height: float
    manual_links: tuple = field(default=())   # (edit index, a id, b id, count), in the plane drawn
    removed: frozenset = field(default=frozenset())
    plane: int = 0                            # the plane drawn (0-based)
    edits: PlaneEdits | None = None           # what the switch edits leave of that plane
    differing: tuple[int, ...] = ()           # planes that edits make differ from the template
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def planes(self) -> int:
        return self.resolved.planes

    @property
    def tiers(self) -> tuple[str, ...]:
        return tuple(t for t in ROWS if t in self.rows)

    def device_position(self, device: str) -> tuple[str, float, float] | None:
        """(tier, x, y) of a device id, or None when the fabric has no such device."""
        parsed = parse_device_id(device)
        if parsed is None:
            return None
        tier, index, plane = parsed
        row = self.rows.get(tier)
        if row is None or index >= row.count or plane >= self.planes:
            return None
        return tier, row.device_x(index), row.y

    # --- links between single devices, for drawing when zoomed in -------------------------

    def device_links(self, lower: str, devices=None) -> list[tuple[int, int, int]]:
        """(lower device, upper device, links) for the given devices of row `lower` (default: all)."""
        plan, r = self.plan, self.resolved
        out: list[tuple[int, int, int]] = []
        if lower == "servers":
            e, n = r.rails, plan.servers
            per_leaf = plan.leaf_down
            together = e <= per_leaf and per_leaf % e == 0 and plan.leaves * (per_leaf // e) >= n
            for j in devices if devices is not None else range(n):
                if plan.rail_su_size:
                    out.extend((j, plan.rail_leaf(j, p, e), 1) for p in range(e))
                elif together:
                    out.append((j, j * plan.leaves // n, e))
                else:
                    leaves: dict[int, int] = {}
                    for p in range(e):
                        leaf = (j * e + p) * plan.leaves // (n * e)
                        leaves[leaf] = leaves.get(leaf, 0) + 1
                    out.extend((j, leaf, k) for leaf, k in leaves.items())
            return out
        if lower == "leaf":
            lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
            for i in devices if devices is not None else range(plan.leaves):
                pod = i // lpp if plan.tiers == 3 else 0
                local = i - pod * lpp
                first = pod * plan.spines_per_pod
                for t, links in enumerate(_spread(plan.leaf_up, plan.spines_per_pod, local * plan.leaf_up)):
                    if links:
                        out.append((i, first + t, links))
            return out
        if lower == "spine" and plan.tiers == 3:
            g = plan.core_groups_size
            for s in devices if devices is not None else range(plan.spines):
                local, pod = s % plan.spines_per_pod, s // plan.spines_per_pod
                for t, links in enumerate(_spread(plan.spine_up, g, pod * plan.spine_up)):
                    if links:
                        out.append((s, (local * g + t) % plan.cores, links))
        return out

    def link_arrays(self, lower: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every linked device pair from row `lower` upwards as numpy arrays (lower, upper, links),
        in the plane drawn, after its edits (removed switches and links; manual links are drawn
        apart).

        The template's pairs are those of `device_links`, computed in a few vectorised steps so
        that even a 32K-GPU fabric's hundred thousand pairs take a millisecond or two; cached.
        """
        key = ("links", lower)
        if key not in self._cache:
            arrays = self._link_arrays(lower)
            if self.edits:
                arrays = _apply_plane_edits(arrays, lower, self.upper_of(lower), self.edits)
            self._cache[key] = arrays
        return self._cache[key]

    def upper_of(self, lower: str) -> str:
        tiers = self.tiers
        return tiers[tiers.index(lower) - 1]

    def removed_in(self, tier: str) -> int:
        """Switches of row `tier` removed in the plane drawn."""
        return len(self.edits.removed.get(tier, ())) if self.edits else 0

    def _link_arrays(self, lower: str):
        plan, r = self.plan, self.resolved
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        if lower == "servers":
            e, n = r.rails, plan.servers
            j = np.arange(n, dtype=np.int64)
            if plan.rail_su_size:
                a = np.repeat(j, e)
                b = plan.rail_leaf(j[:, None], np.arange(e)[None, :], e)
                return a, b.ravel(), np.ones(n * e, np.int64)
            per_leaf = plan.leaf_down
            if e <= per_leaf and per_leaf % e == 0 and plan.leaves * (per_leaf // e) >= n:
                return j, j * plan.leaves // n, np.full(n, e, np.int64)
            idx = np.arange(n * e, dtype=np.int64)
            pairs = np.stack([idx // e, idx * plan.leaves // (n * e)], axis=1)
            unique, counts = np.unique(pairs, axis=0, return_counts=True)
            return unique[:, 0], unique[:, 1], counts.astype(np.int64)
        if lower == "leaf":
            i = np.arange(plan.leaves, dtype=np.int64)
            lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
            pod = i // lpp if plan.tiers == 3 else np.zeros_like(i)
            return self._spread_arrays(i, (i - pod * lpp) * plan.leaf_up, pod * plan.spines_per_pod,
                                       plan.leaf_up, plan.spines_per_pod, None)
        if lower == "spine" and plan.tiers == 3:
            s = np.arange(plan.spines, dtype=np.int64)
            local, pod = s % plan.spines_per_pod, s // plan.spines_per_pod
            g = plan.core_groups_size
            return self._spread_arrays(s, pod * plan.spine_up, local * g, plan.spine_up, g, plan.cores)
        return empty

    @staticmethod
    def _spread_arrays(devices, offsets, firsts, count, targets, wrap):
        """builders._spread for many devices: `count` links over `targets` devices above."""
        base, rem = divmod(count, max(targets, 1))
        t = np.arange(targets, dtype=np.int64)
        links = base + (((t[None, :] - offsets[:, None]) % targets) < rem)
        upper = firsts[:, None] + t[None, :]
        if wrap:
            upper %= wrap
        a = np.repeat(devices, targets)
        keep = links.ravel() > 0
        return a[keep], upper.ravel()[keep], links.ravel()[keep].astype(np.int64)

    def lower_devices_in_reach(self, lower: str, lower_visible: range, upper_visible: range) -> list[int]:
        """Devices of row `lower` with a link into view: those in view, plus those whose
        links climb into the visible part of the row above (spines reach across the core row,
        and in two tiers every leaf reaches every spine)."""
        plan = self.plan
        found = set(lower_visible)
        if lower == "leaf" and plan.tiers == 2 and upper_visible:
            return list(range(plan.leaves))
        if lower == "spine" and plan.tiers == 3 and upper_visible:
            size = max(1, plan.core_groups_size)
            groups = {c // size for c in upper_visible}
            for p in range(plan.pods):
                found.update(p * plan.spines_per_pod + g for g in groups if g < plan.spines_per_pod)
        return sorted(found)


def _apply_plane_edits(arrays, lower: str, upper: str, edits: PlaneEdits):
    """Template pairs without removed switches, with the links that remove-links edits left."""
    a, b, links = arrays
    keep = np.ones(len(a), dtype=bool)
    gone_lower, gone_upper = edits.removed.get(lower, ()), edits.removed.get(upper, ())
    if gone_lower:
        keep &= ~np.isin(a, np.fromiter(gone_lower, dtype=np.int64))
    if gone_upper:
        keep &= ~np.isin(b, np.fromiter(gone_upper, dtype=np.int64))
    links = links.copy()
    for (tl, i, tu, j), (left, _) in edits.pairs.items():
        if tl == lower and tu == upper:
            links[(a == i) & (b == j)] = left   # a few edited pairs: a scan each beats an index of all
    keep &= links > 0
    return a[keep], b[keep], links[keep]


def _edited_bundles(layout_rows: dict, link_arrays) -> list[BlockBundle]:
    """Bundles summed from the edited pairs of each row, block by block."""
    out: list[BlockBundle] = []
    tiers = [t for t in ROWS if t in layout_rows]
    for k in range(len(tiers) - 1, 0, -1):
        lower, upper = tiers[k], tiers[k - 1]
        a, b, links = link_arrays(lower)
        lo_first = np.array([blk.first for blk in layout_rows[lower].blocks], dtype=np.int64)
        up_first = np.array([blk.first for blk in layout_rows[upper].blocks], dtype=np.int64)
        ka = np.searchsorted(lo_first, a, side="right") - 1
        kb = np.searchsorted(up_first, b, side="right") - 1
        if not len(ka):
            continue
        width = len(up_first)
        key = ka * width + kb   # one number per block pair: summed without sorting rows
        keys, inverse = np.unique(key, return_inverse=True)
        summed = np.bincount(inverse.ravel(), weights=links).astype(np.int64)
        out.extend(BlockBundle(lower, int(k // width), upper, int(k % width), int(n))
                   for k, n in zip(keys.tolist(), summed.tolist(), strict=True) if n)
    return out


def _leaf_blocks(plan: Plan, rails: int) -> list[tuple[int, int, str]]:
    """(first leaf, leaves, label) of each leaf block."""
    if plan.rail_su_size and plan.rail_leaves > 1:
        # A rack-scale SU (one spine-leaf group per rail): a block is an SU's leaves.
        per = plan.rail_groups(rails) * plan.rail_leaves
        if plan.sus <= 1:
            return [(0, plan.leaves, "SU 1" if plan.tiers == 3 else "")]
        return [(k * per, per, f"SU {k + 1}") for k in range(plan.sus)]
    if plan.tiers == 3:
        lpp = plan.leaves_per_pod
        kind = "SU" if plan.rail_su_size else "Pod"
        return [(p * lpp, min(lpp, plan.leaves - p * lpp), f"{kind} {p + 1}") for p in range(plan.pods)
                if p * lpp < plan.leaves]
    if plan.rail_su_size and plan.sus > 1:
        per = plan.rail_groups(rails)
        return [(k * per, per, f"SU {k + 1}") for k in range(plan.sus)]
    return [(0, plan.leaves, "")]


def _servers_of_leaves(plan: Plan, first_leaf: int, leaves: int, block_index: int) -> tuple[int, int]:
    """(first server, servers) attached to a run of leaves."""
    n = plan.servers
    if plan.rail_su_size:
        first = block_index * plan.rail_su_size if (plan.tiers == 3 or plan.sus > 1) else 0
        size = plan.rail_su_size if (plan.tiers == 3 or plan.sus > 1) else n
        return first, max(0, min(size, n - first))
    # server j's first port goes to leaf j * leaves // n (see builders.leaf_assignment)
    lo = math.ceil(first_leaf * n / plan.leaves)
    hi = math.ceil((first_leaf + leaves) * n / plan.leaves)
    return lo, max(0, min(hi, n) - lo)


def compute_layout(design: FabricDesign, resolved: Resolved, plan: Plan, plane: int = 0) -> Layout:
    """Positions of every row, block and bundle of one plane of the fabric (`plane`, 0-based),
    following the edits made in that plane."""
    leaf_blocks = _leaf_blocks(plan, resolved.rails)
    three = plan.tiers == 3
    # A rack-scale SU's column holds one spine-leaf group per rail, so the spines of its pods.
    pods_per_column = resolved.rails if (plan.rail_su_size and plan.rail_leaves > 1) else 1
    # Width of each column (pod / SU): wide enough for its leaves, its spines and its servers.
    columns = []
    for k, (first, count, label) in enumerate(leaf_blocks):
        s_first, s_count = _servers_of_leaves(plan, first, count, k)
        spines = plan.spines_per_pod * pods_per_column if three else 0
        width = max(count * SWITCH_PITCH, spines * SWITCH_PITCH, s_count * SERVER_PITCH, MIN_ROW_WIDTH / 2)
        columns.append((first, count, label, s_first, s_count, width))
    x = 0.0
    leaf_row, server_row, spine_row = [], [], []
    for k, (first, count, label, s_first, s_count, width) in enumerate(columns):
        leaf_row.append(Block(k, first, count, x, width, label))
        server_row.append(Block(k, s_first, s_count, x, width, label))
        if three:
            per = plan.spines_per_pod * pods_per_column
            spine_row.append(Block(k, k * per, per, x, width, label))
        x += width + BLOCK_GAP
    total = max(x - BLOCK_GAP, MIN_ROW_WIDTH)
    if not three:
        # Two tiers: the spines span the leaves, each spine in reach of every leaf.
        width = max(total, plan.spines * SWITCH_PITCH)
        spine_row = [Block(0, 0, plan.spines, (total - width) / 2, width, "")]
    rows: dict[str, Row] = {}
    y = 0.0
    switch_of = {"leaf": resolved.leaf_switch, "spine": resolved.spine_switch, "core": resolved.core_switch}
    if three:
        groups = max(1, plan.spines_per_pod)
        size = plan.core_groups_size
        width = max(total, plan.cores * SWITCH_PITCH + (groups - 1) * BLOCK_GAP / 2)
        gap = BLOCK_GAP / 2 if groups > 1 else 0.0
        each = (width - gap * (groups - 1)) / groups
        left = (total - width) / 2
        core_row = [Block(g, g * size, size, left + g * (each + gap), each, f"Core group {g + 1}")
                    for g in range(groups)]
        rows["core"] = Row("core", y, plan.cores, tuple(core_row), switch_of["core"].name, switch_of["core"].id,
                           switch_of["core"].liquid_cooled)
        y += ROW_PITCH
    rows["spine"] = Row("spine", y, plan.spines, tuple(spine_row), switch_of["spine"].name, switch_of["spine"].id,
                        switch_of["spine"].liquid_cooled)
    y += ROW_PITCH
    rows["leaf"] = Row("leaf", y, plan.leaves, tuple(leaf_row), switch_of["leaf"].name, switch_of["leaf"].id,
                       switch_of["leaf"].liquid_cooled)
    y += ROW_PITCH
    rows["servers"] = Row("servers", y, plan.servers, tuple(server_row), resolved.server.name, resolved.server.id,
                          resolved.server.liquid_cooled)

    bundles: list[BlockBundle] = []
    for k, block in enumerate(server_row):
        if block.count:
            bundles.append(BlockBundle("servers", k, "leaf", k, block.count * resolved.rails))
    for k, block in enumerate(leaf_row):
        if plan.leaf_up:   # none in a one-tier fabric: its spine row stays empty
            bundles.append(BlockBundle("leaf", k, "spine", k if three else 0, block.count * plan.leaf_up))
    if three:
        for k in range(len(spine_row)):
            for g in range(len(rows["core"].blocks)):
                bundles.append(BlockBundle("spine", k, "core", g, plan.spine_up))

    planes = resolved.planes
    plane = min(max(plane, 0), planes - 1)
    edits = plane_edits(design, resolved, plan, plane) if design.edits else None
    manual, removed = [], set()
    for i, edit in enumerate(design.edits):
        if edit.op == "add-links":
            ends = [parse_device_id(x) for x in (edit.a, edit.b)]
            in_plane = all(e is not None and e[2] == plane for e in ends)
            if in_plane and (edits is None or not any(e[1] in edits.removed.get(e[0], ()) for e in ends if e)):
                manual.append((i, edit.a, edit.b, edit.count))
        elif edit.op == "remove-device":
            removed.add(edit.a)
    layout = Layout(design, resolved, plan, rows, tuple(bundles), total, y + BOX_HEIGHT,
                    tuple(manual), frozenset(removed), plane, edits if edits else None,
                    tuple(edited_planes(design, planes)))
    if layout.edits:
        return dataclasses.replace(layout, bundles=tuple(_edited_bundles(rows, layout.link_arrays)), _cache={})
    return layout
