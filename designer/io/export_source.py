"""The design as the tools around the fabric see it: named devices, links, racks and a view.

Every exporter to another tool (Slurm, NetBox, containerlab, GraphML, DOT, draw.io, UFM) reads
the design through one ExportSource, so they all agree on the names of nodes and switches, on
which part of the fabric a `--view` selects and on where each device stands.

- Servers are named from a pattern the user sets (default `gpu-node-{n:04d}`): `{n}` is the
  server's number from 1, `{su}` its scalable unit from 1 and `{i}` its place in the SU from 1.
- Switches keep the names the cabling plan and the window use (`leaf-3`, `p2.spine-1`).
- A view is the whole fabric, one SU or pod (`su:N`: its leaves, their servers, and the spines
  and cores above them) or one plane (`plane:N`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from designer.catalog import Catalog, default_catalog
from designer.model.intent.design import FabricDesign
from designer.model.topology.derive import Derived, derive

if TYPE_CHECKING:
    import networkx as nx

    from designer.catalog.entries import Server, Switch
    from designer.model.physical.media import LinkPlan, Physical
    from designer.model.topology.metrics import Finding
    from designer.model.topology.wiring import Wiring

DEFAULT_NODE_PATTERN = "gpu-node-{n:04d}"
PATTERN_FIELDS = {"n": "the server's number from 1", "su": "its scalable unit from 1",
                  "i": "its place in the SU from 1"}
# ASCII, and \Z rather than $: `$` matches before a final newline, which would let
# 'gpu{n}\n' through and put a line break into every exported name.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}\Z", re.ASCII)
_SPEC = re.compile(r"0?[0-9]{0,2}d?\Z", re.ASCII)
_SWITCH_NAME = re.compile(r"(p[0-9]+[.-])?(leaf|spine|core)-[0-9]+\Z", re.ASCII)  # the builder's switch ids
_VIEW = re.compile(r"(fabric|su|pod|plane)(?::([0-9]+))?\Z", re.ASCII)
# NetBox creates racks 42U high unless told otherwise; a floor plan that stacks more into one
# rack gets a taller rack and a note.
DEFAULT_RACK_UNITS = 42


class ExportError(ValueError):
    """An export cannot be made as asked; the message is fit to show the user as it is."""


@dataclass(frozen=True)
class ExportOptions:
    node_pattern: str = DEFAULT_NODE_PATTERN
    view: str = "fabric"              # fabric | su:N | pod:N | plane:N
    clab_profile: str = "sonic"       # see designer.io.containerlab.PROFILES
    clab_kind: str = ""               # overrides the profile's kind
    clab_image: str = ""              # overrides the profile's image
    clab_servers: bool = False        # add the servers as Linux nodes
    clab_server_image: str = ""       # overrides the Linux nodes' image
    site: str = ""                    # NetBox site; "" means the design's name
    netbox_ib_lanes: bool = False     # NetBox: InfiniBand 4X interface types (NetBox 4.6.9 and later)
    ndt_kind: str = "all"             # NDT rows: all, switch-to-switch or switch-to-host
    hca_names: tuple[str, ...] = ()   # a server's HCA device names in NIC order; () means mlx5_0, mlx5_1, ...


def parse_view(text: str) -> tuple[str, int | None]:
    """'fabric', 'su:3' (or 'pod:3'), 'plane:2' -> (kind, number from 1)."""
    match = _VIEW.match((text or "fabric").strip().lower())
    if not match or (match.group(1) != "fabric" and match.group(2) is None) or match.group(2) == "0":
        raise ExportError(f"malformed view '{text}' (use fabric, su:N or plane:N; N from 1)")
    kind = "su" if match.group(1) == "pod" else match.group(1)
    return kind, int(match.group(2)) if match.group(2) else None


class NodeNamer:
    """Server names from the user's pattern; refuses patterns that give unusable names."""

    def __init__(self, pattern: str, servers: int, su_size: int) -> None:
        self.pattern = pattern
        self.su_size = max(1, su_size)
        try:
            fields = list(string.Formatter().parse(pattern))
        except ValueError as exc:
            raise ExportError(f"malformed node-name pattern '{pattern}': {exc}") from None
        used = set()
        for _, field_name, spec, conversion in fields:
            if field_name is None:
                continue
            if field_name not in PATTERN_FIELDS:
                known = ", ".join("{" + f + "}" for f in PATTERN_FIELDS)
                raise ExportError(f"node-name pattern '{pattern}' uses {{{field_name}}}; it may use {known}")
            if conversion or not _SPEC.match(spec or ""):
                raise ExportError(f"node-name pattern '{pattern}': use a field as {{n}} or {{n:04d}}, "
                                  f"not '{{{field_name}{'!' + conversion if conversion else ''}:{spec}}}'")
            used.add(field_name)
        if "n" not in used and not {"su", "i"} <= used:
            raise ExportError(f"node-name pattern '{pattern}' must contain {{n}} (or both {{su}} and {{i}}) "
                              "so that every node gets its own name")
        self.names = [self._format(s) for s in range(servers)]
        for name in self.names[:1] + self.names[-1:]:
            if not _NAME.match(name):
                raise ExportError(f"node-name pattern '{pattern}' gives '{name}': names need letters, digits, "
                                  "'-' or '_' only (at most 63, starting with a letter or digit)")
        if len(set(self.names)) != len(self.names):
            raise ExportError(f"node-name pattern '{pattern}' gives two servers the same name")
        clash = next((n for n in self.names[:1] + self.names[-1:] if _SWITCH_NAME.match(n)), None)
        if clash:
            raise ExportError(f"node-name pattern '{pattern}' gives '{clash}', a name the fabric's switches use")

    def _format(self, server: int) -> str:
        su, i = divmod(server, self.su_size)
        return self.pattern.format(n=server + 1, su=su + 1, i=i + 1)

    def __call__(self, server: int) -> str:
        return self.names[server]


def base_name(device: str) -> str:
    """A switch id without its plane prefix: 'p2.leaf-3' -> 'leaf-3'."""
    head, dot, rest = device.partition(".")
    return rest if dot and re.fullmatch(r"p\d+", head) else device


def safe_id(device: str) -> str:
    """A switch id for tools that take letters, digits, '-' and '_' only ('p2.leaf-3' -> 'p2-leaf-3')."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", device)


class ExportSource:
    """One design, derived once, with the names, view and rack elevation every exporter shares."""

    def __init__(self, design: FabricDesign, catalog: Catalog | None = None,
                 options: ExportOptions | None = None, derived: Derived | None = None) -> None:
        self.design = design
        self.catalog = catalog or default_catalog()
        self.options = options or ExportOptions()
        self.derived = derived or derive(design, self.catalog)
        r = self.derived.resolved
        self.resolved = r
        self.plan = self.derived.plan
        self.technology = r.technology
        self.family = r.technology.family
        self.view = parse_view(self.options.view)
        su_size = self.plan.rail_su_size or design.fabric.nodes_per_su
        self.namer = NodeNamer(self.options.node_pattern, design.cluster.servers, su_size)
        self._check_view()

    # --- the fabric and the view --------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.design.meta.name

    @property
    def graph(self) -> nx.MultiGraph[str]:
        return self.derived.graph

    @property
    def errors(self) -> list[Finding]:
        return self.derived.metrics.errors

    @property
    def rail_optimized(self) -> bool:
        return bool(self.plan.rail_su_size)

    @property
    def column_noun(self) -> str:
        return "SU" if self.rail_optimized else "pod"

    @cached_property
    def columns(self) -> int:
        """SUs (rail-optimized) or pods (three tiers) the fabric is divided into; 1 otherwise."""
        if not (self.rail_optimized or self.plan.tiers == 3):
            return 1
        pods = {d["pod"] for _, d in self.graph.nodes(data=True) if d["role"] == "leaf"}
        return max(pods, default=0) + 1

    def _check_view(self) -> None:
        kind, n = self.view
        if n is None:  # the whole fabric: nothing to check
            return
        if kind == "su":
            if self.columns <= 1 and not self.rail_optimized:
                raise ExportError("the fabric is not divided into SUs or pods; export the whole fabric or a plane")
            if n > self.columns:
                noun = self.column_noun
                raise ExportError(f"{noun} {n} does not exist: the fabric has {self.columns} "
                                  f"{noun}{'s' if self.columns != 1 else ''}")
        elif kind == "plane" and n > self.resolved.planes:
            raise ExportError(f"plane {n} does not exist: the fabric has {self.resolved.planes} plane(s)")

    @property
    def view_label(self) -> str:
        kind, n = self.view
        return "whole fabric" if kind == "fabric" else f"{self.column_noun} {n}" if kind == "su" else f"plane {n}"

    @cached_property
    def members(self) -> frozenset[str] | None:
        """Graph nodes in the view, or None for the whole fabric."""
        kind, n = self.view
        if kind == "fabric" or n is None:
            return None   # asked before the graph: a whole-fabric export may never build it
        g = self.graph
        if kind == "plane":
            return frozenset(v for v, d in g.nodes(data=True) if d["plane"] == n - 1)
        leaves = {v for v, d in g.nodes(data=True) if d["role"] == "leaf" and d["pod"] == n - 1}
        keep = set(leaves)
        frontier = leaves
        for role in ("spine", "core"):
            frontier = {u for v in frontier for u in g[v] if g.nodes[u]["role"] == role}
            keep |= frontier
        keep |= {u for v in leaves for u in g[v] if g.nodes[u]["role"] == "nic"}
        return frozenset(keep)

    def in_view(self, node: str) -> bool:
        return self.members is None or node in self.members

    @cached_property
    def edges_in_view(self) -> list[bool]:
        """For each edge of the graph, in the graph's edge order, whether the view holds it."""
        if self.members is None:
            return [True] * self.graph.number_of_edges()
        m = self.members
        return [u in m and v in m for u, v in self.graph.edges()]

    def edges(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(lower, upper, data) of every link in the view; lower is the NIC or lower switch."""
        for (u, v, d), keep in zip(self.graph.edges(data=True), self.edges_in_view, strict=True):
            if keep:
                lower = d["a"]
                yield lower, (v if lower == u else u), d

    @cached_property
    def servers(self) -> list[int]:
        """Server indices (from 0) with at least one NIC in the view."""
        return sorted({d["server"] for v, d in self.graph.nodes(data=True)
                       if d["role"] == "nic" and self.in_view(v)})

    @cached_property
    def switches(self) -> list[tuple[str, dict[str, Any]]]:
        """Switches in the view, top tier first, then by plane and index."""
        found = [(v, d) for v, d in self.graph.nodes(data=True) if d["role"] != "nic" and self.in_view(v)]
        found.sort(key=lambda item: (-item[1]["level"], item[1]["plane"], item[1]["index"]))
        return found

    # --- names ---------------------------------------------------------------------------------

    def host(self, server: int) -> str:
        return self.namer(server)

    def device_name(self, device: str) -> str:
        """A device of the physical layer ('srv-3' or a switch id) as the exports name it."""
        if device.startswith("srv-") and device[4:].isdigit():
            return self.host(int(device[4:]) - 1)
        return device

    def node_name(self, node: str) -> str:
        """A graph node as the exports name it: NIC ports as 'host/nic-K', switches by id."""
        d = self.graph.nodes[node]
        if d["role"] == "nic":
            return f"{self.host(d['server'])}/nic-{d['port'] + 1}"
        return node

    # --- hardware and the floor ----------------------------------------------------------------

    def switch_model(self, model_id: str) -> Switch:
        return self.catalog.switch(model_id)

    @property
    def server_model(self) -> Server:
        return self.resolved.server

    @cached_property
    def physical(self) -> Physical:
        """The physical layer (positions, media, lengths), computed on first use."""
        from designer.model.physical.media import physical_layer

        return physical_layer(self.derived, self.catalog)

    def physical_links(self) -> list[LinkPlan]:
        """The physical layer's links that the view holds, in the graph's order."""
        keep = self.edges_in_view
        return [link for link in self.physical.links if keep[link.index]]

    @cached_property
    def _stacking(self) -> tuple[dict[str, tuple[str, int]], dict[str, int]]:
        """Every device's (rack label, lowest rack unit from 1), and the units used per rack.

        Servers fill each rack from the bottom up in server order; the rack's switches sit
        above them, top tier first."""
        positions = self.physical.layout.positions
        g = self.graph
        order: list[tuple[tuple[int, ...], str]] = []
        for device, pos in positions.items():
            if device.startswith("srv-"):
                order.append(((pos.row, pos.slot, 0, int(device[4:])), device))
            else:
                d = g.nodes[device]
                order.append(((pos.row, pos.slot, 1, -d["level"], d["plane"], d["index"]), device))
        order.sort(key=lambda item: item[0])
        out: dict[str, tuple[str, int]] = {}
        used: dict[str, int] = {}
        for _, device in order:
            rack = positions[device].rack
            start = used.get(rack, 0) + 1
            used[rack] = start + self.device_units(device) - 1
            out[device] = (rack, start)
        return out, used

    @property
    def elevation(self) -> dict[str, tuple[str, int]]:
        """(rack label, lowest rack unit from 1) of every device of the fabric."""
        return self._stacking[0]

    @cached_property
    def rack_heights(self) -> dict[str, int]:
        """Height of every rack: the usual 42U, or what the floor plan stacks into it if more."""
        return {rack: max(DEFAULT_RACK_UNITS, used) for rack, used in self._stacking[1].items()}

    def device_units(self, device: str) -> int:
        if device.startswith("srv-"):
            return max(1, self.server_model.rack_units)
        return max(1, self.switch_model(self.graph.nodes[device]["model"]).rack_units)

    # --- the same, read from the sizing plan's wiring (no device graph) -------------------------

    @cached_property
    def wiring(self) -> Wiring:
        """The fabric's devices and links from the plan and the edits (model/topology/wiring.py):
        what the streaming exporters walk instead of the device graph."""
        from designer.model.topology.wiring import Wiring

        return Wiring(self.design, self.resolved, self.plan)

    @cached_property
    def wired_columns(self) -> int:
        """`columns` without the graph: SUs or pods of the leaves left."""
        if not (self.rail_optimized or self.plan.tiers == 3):
            return 1
        w = self.wiring
        pods = [w.pod(w.switch(p, "leaf", i)) for p in range(w.planes) for i in range(self.plan.leaves)
                if w.alive(w.switch(p, "leaf", i))] if w.removed else [w.pod(w.switch(0, "leaf", self.plan.leaves - 1))]
        return max(pods, default=-1) + 1

    @property
    def view_index(self) -> int:
        """The SU, pod or plane of the view, from 0 (0 for the whole fabric)."""
        return (self.view[1] or 1) - 1

    @cached_property
    def wired_members(self) -> frozenset[int]:
        """`members` as wiring device numbers, for an SU or pod view (empty for the others: the
        whole fabric holds every device, and a plane's members are tested by their plane in
        `wired_in_view`)."""
        kind, n = self.view[0], self.view_index
        if kind != "su":
            return frozenset()
        w = self.wiring
        leaves = {node for p in range(w.planes) for i in range(self.plan.leaves)
                  if w.alive(node := w.switch(p, "leaf", i)) and w.pod(node) == n}
        keep = set(leaves)
        frontier = leaves
        for role in ("spine", "core"):
            frontier = {u for v in frontier for u, _ in w.adjacency(v) if w.role(u) == role}
            keep |= frontier
        keep |= {u for v in leaves for u, _ in w.adjacency(v) if not w.is_switch(u)}
        return frozenset(keep)

    def wired_in_view(self, node: int) -> bool:
        kind = self.view[0]
        if kind == "fabric":
            return True
        if kind == "plane":
            return bool(self.wiring.plane(node) == self.view_index)
        return node in self.wired_members

    @cached_property
    def wired_servers(self) -> list[int]:
        """`servers` without the graph: server indices (from 0) with a NIC in the view."""
        w = self.wiring
        kind = self.view[0]
        if kind != "su" and not any(node >= w.n_switches for node in w.removed):
            return list(range(self.plan.servers))   # every server has a NIC in every plane
        planes = [self.view_index] if kind == "plane" else range(w.planes)
        found = {w.server_port(nic)[0] for p in planes for nic in range(w.nic(p, 0), w.nic(p, w.endpoints))
                 if w.alive(nic) and self.wired_in_view(nic)} if kind != "su" else \
            {w.server_port(nic)[0] for nic in self.wired_members if not w.is_switch(nic)}
        return sorted(found)

    def wired_switches(self) -> list[int]:
        """`switches` without the graph: switches in the view, top tier first, then by plane and index."""
        w = self.wiring
        found = [node for node in range(w.n_switches) if w.alive(node) and self.wired_in_view(node)]
        found.sort(key=lambda node: (-w.level(node), w.plane(node), w.local(node)))
        return found
