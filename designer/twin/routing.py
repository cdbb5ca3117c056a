"""The Ethernet design on a real routing stack: FRR in a network namespace per switch.

`run_twin` builds the design's switch fabric in Linux network namespaces (one per switch, a veth
pair per link, named swpN as on the `frr` export), starts FRR's zebra and bgpd in each with the
configuration `designer.io.frr` writes (the `frr` export's text), waits until every session is
up and the routing tables stop changing, and reads back what the routers did:

- every BGP session, and where one is not up, FRR's own reason;
- the time to converge, from the first configuration handed to FRR to the last change;
- each leaf's ECMP width towards every other leaf's loopback, against its spines;
- the routes and next hops per tier;
- with flows, where the kernel's 5-tuple hash puts NCCL-like flows (routing_flows);
- with faults (a link or a switch down), the same again after the fabric reconverged.

Bundles: by default the parallel links of a switch pair become one link (a leaf's ECMP width is
then its spine count, and 512 links become 32 veth pairs); `every_link` keeps them all. The
report says which. Everything made is removed when the run ends, however it ends (namespaces,
daemons, the temporary folder): see namespaces.py and frr_daemons.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx

from designer.catalog.loader import Catalog
from designer.io.export_source import ExportSource
from designer.io.frr import FRR_VERSION, RoutedSwitch, collapse_bundles, fabric_links, frr_conf, routing_plan, swp
from designer.model.intent.design import FabricDesign
from designer.model.performance.collective_costs import load_balancing_mode
from designer.model.performance.flow_placement import HASHED
from designer.twin.frr_daemons import FrrFleet, require_frr
from designer.twin.namespaces import CommandFailed, Namespaces, TwinUnavailable, require_root_and_iproute
from designer.twin.routing_faults import Fault, parse_fault
from designer.twin.routing_flows import KernelPlacement, kernel_placement, plan_flows
from designer.twin.routing_state import (
    LeafWidths,
    Snapshot,
    SwitchState,
    TierRoutes,
    leaf_widths,
    parse_neighbors,
    parse_routes,
    tier_routes,
)

SETTLE_SECONDS = 3.0        # unchanged this long, with every session up: converged
POLL_SECONDS = 0.5
TIERS = ("leaf", "spine", "core")
Progress = Callable[[str], None]


class TwinError(ValueError):
    """The design cannot be brought up (wrong family, a fault naming nothing): one line."""


class TwinCancelled(Exception):
    """The run was stopped (the window's Stop): everything it made has been removed."""


@dataclass
class Phase:
    """The fabric's routing once it settled (or when the wait ran out)."""

    converged: bool
    seconds: float
    expected_sessions: int
    snapshot: Snapshot
    widths: list[LeafWidths]
    tiers: list[TierRoutes]
    flows: KernelPlacement | None = None

    expected: set[tuple[str, str]] = field(default_factory=set)   # (switch, interface) that should be up

    @property
    def down(self) -> list[Any]:
        """Sessions that should be up and are not."""
        return [s for s in self.snapshot.sessions() if not s.up and (s.switch, s.interface) in self.expected]

    @property
    def faulted(self) -> list[Any]:
        """Sessions down because a fault took their link or peer away."""
        return [s for s in self.snapshot.sessions() if not s.up and (s.switch, s.interface) not in self.expected]

    @property
    def established(self) -> int:
        return sum(1 for s in self.snapshot.sessions() if s.up)

    def to_json(self) -> dict[str, Any]:
        return {"converged": self.converged, "converge_seconds": round(self.seconds, 3),
                "sessions": {"expected": self.expected_sessions, "established": self.established,
                             "down": [{"switch": s.switch, "interface": s.interface, "state": s.state,
                                       "reason": s.reason} for s in self.down],
                             "down_by_faults": [{"switch": s.switch, "interface": s.interface, "state": s.state,
                                                 "reason": s.reason} for s in self.faulted]},
                "ecmp": [w.to_json() for w in self.widths], "tiers": [t.to_json() for t in self.tiers],
                "flows": self.flows.to_json() if self.flows else None}


@dataclass
class TwinReport:
    design: str
    switches: int
    links: int
    design_links: int
    every_link: bool
    roles: dict[str, str]
    before: Phase
    faults: list[Fault] = field(default_factory=list)
    after: Phase | None = None
    cleanup: list[str] = field(default_factory=list)    # what could not be removed (empty: all)

    def to_json(self) -> dict[str, Any]:
        return {"design": self.design, "stack": "frr", "frr_version": FRR_VERSION, "switches": self.switches,
                "links": self.links, "design_links": self.design_links, "bundles_collapsed": not self.every_link,
                "configuration": "designer.io.frr: the frr export's frr.conf of each switch"
                                 + ("" if self.every_link else ", its interfaces kept to one link per switch pair"),
                **self.before.to_json(),
                "faults": [f.to_json() for f in self.faults],
                "after_faults": self.after.to_json() if self.after else None,
                "left_behind": self.cleanup}


@dataclass
class _Fabric:
    """The twin's switches, links and routing, before anything is made."""

    src: ExportSource
    plan: dict[str, RoutedSwitch]
    roles: dict[str, str]
    links: list[tuple[tuple[str, int], tuple[str, int]]]
    design_links: int
    title: str

    def graph(self, down_links: set[frozenset[tuple[str, int]]], down_switches: set[str]) -> nx.Graph[str]:
        g: nx.Graph[str] = nx.Graph()
        g.add_nodes_from(s for s in self.plan if s not in down_switches)
        for a, b in self.links:
            if a[0] in g and b[0] in g and frozenset((a, b)) not in down_links:
                g.add_edge(a[0], b[0])
        return g


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _fabric(design: FabricDesign, catalog: Catalog | None, every_link: bool) -> _Fabric:
    src = ExportSource(design, catalog)
    if src.family != "ethernet":
        raise TwinError(f"the routing twin is for Ethernet designs; this design is {src.technology.name}")
    if src.errors:
        raise TwinError(f"the design has errors ({src.errors[0].message}); fix them first")
    switches, links = fabric_links(src)
    full = routing_plan(switches, links)        # the export's plan: its addresses, ASNs and loopbacks
    kept = links if every_link else collapse_bundles(links)
    ends = {e for link in kept for e in link}
    plan = {name: replace(sw, ports=tuple(p for p in sw.ports if (name, p.port) in ends)) for name, sw in full.items()}
    roles = {safe: str(d["role"]) for safe, (_, d) in zip(switches, src.switches, strict=True)}
    return _Fabric(src, plan, roles, kept, len(links), src.name)


def check_machine() -> tuple[str, str]:
    """`ip` and vtysh, or TwinUnavailable in one line (root first: without it nothing else matters)."""
    ip = require_root_and_iproute()
    _, vtysh = require_frr()
    return ip, vtysh


class RoutingTwin:
    """One run: namespaces, daemons, waits and readings. `run` removes everything it made."""

    def __init__(self, design: FabricDesign, catalog: Catalog | None = None, every_link: bool = False,
                 faults: tuple[str, ...] = (), flows: bool = False, timeout: float = 120.0, seed: int = 0,
                 progress: Progress | None = None):
        self.fabric = _fabric(design, catalog, every_link)
        self.faults = [parse_fault(text, self.fabric.plan, self.fabric.links) for text in faults]
        self.every_link = every_link
        self.flows = flows
        self.timeout = timeout
        self.seed = seed
        self.progress = progress or (lambda _msg: None)
        self.down_links: set[frozenset[tuple[str, int]]] = set()
        self.down_switches: set[str] = set()
        self.cancel = threading.Event()     # set from another thread: the run stops and cleans up

    def _check(self) -> None:
        if self.cancel.is_set():
            raise TwinCancelled("stopped")

    # --- the run ---------------------------------------------------------------------------------

    def run(self) -> TwinReport:
        """Make, run, read and remove. On the main thread, SIGTERM (a `timeout`, a `kill`) ends the
        run as Ctrl-C does, through every clean-up, whoever called it."""
        if threading.current_thread() is not threading.main_thread():
            return self._run_and_clean()
        previous = signal.getsignal(signal.SIGTERM)
        if previous is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _interrupt)
        try:
            return self._run_and_clean()
        finally:
            if previous is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, previous)

    def _run_and_clean(self) -> TwinReport:
        ip, vtysh = check_machine()
        root = Path(tempfile.mkdtemp(prefix="fdtw-"))
        os.chmod(root, 0o711)     # FRR's user reaches its switch folders, lists nothing
        cleanup: list[str] = []
        try:
            with Namespaces(ip) as self.ns, FrrFleet(root, vtysh, ip) as self.fleet:
                try:
                    report = self._run()
                finally:
                    self.fleet.stop_all()
                    cleanup = self.ns.remove_all()
            report.cleanup = cleanup
            return report
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def _run(self) -> TwinReport:
        fab = self.fabric
        self.progress(f"making {len(fab.plan)} namespaces ({self.ns.prefix}1 to {self.ns.prefix}{len(fab.plan)}) "
                      f"and {len(fab.links)} veth pairs")
        for name in fab.plan:
            self._check()
            self.ns.add(name)
            self.ns.sysctl(self.ns.name(name), {"net.ipv4.conf.all.rp_filter": "0",
                                                "net.ipv4.conf.default.rp_filter": "0"})
        for a, b in fab.links:
            self._check()
            self.ns.veth(a[0], swp(a[1]), b[0], swp(b[1]))
        self.progress(f"starting zebra and bgpd on {len(fab.plan)} switches")
        self.fleet.start_many([(name, self.ns.name(name), frr_conf(sw, fab.title)) for name, sw in fab.plan.items()],
                              check=self._check)
        start = time.monotonic()
        # vtysh -f per switch, a few at a time: each is a program that waits on its daemons
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(self.fleet.configure, fab.plan))
        self.progress("waiting for BGP to converge")
        before = self._settle(start)
        if self.flows and before.converged:
            self.progress("asking the kernel where each flow goes")
            before.flows = self._place_flows()
        report = TwinReport(fab.title, len(fab.plan), len(fab.links), fab.design_links, self.every_link, fab.roles,
                            before, list(self.faults))
        if self.faults:
            self.progress("applying " + ", ".join(f.target for f in self.faults))
            start = time.monotonic()
            for fault in self.faults:
                self._apply(fault)
            report.after = self._settle(start)
            if self.flows and report.after.converged:
                report.after.flows = self._place_flows()
        return report

    def _apply(self, fault: Fault) -> None:
        for switch in fault.switches:
            self.fleet.stop(switch)
            for p in self.fabric.plan[switch].ports:
                self.ns.set_link(switch, swp(p.port), up=False)
            self.down_switches.add(switch)
        for a, b in fault.links:
            self.ns.set_link(a[0], swp(a[1]), up=False)
            self.ns.set_link(b[0], swp(b[1]), up=False)
            self.down_links.add(frozenset((a, b)))

    # --- reading the routers ---------------------------------------------------------------------

    def _live(self) -> list[str]:
        return [s for s in self.fabric.plan if s not in self.down_switches]

    def _read(self, switch: str) -> SwitchState:
        state = SwitchState(switch)
        try:
            neighbors, routes = self.fleet.show(switch, "show bgp neighbors json", "show ip route json")
            state.sessions = parse_neighbors(switch, neighbors)
            state.routes = parse_routes(routes)
        except CommandFailed as exc:
            state.error = str(exc)
        return state

    def snapshot(self) -> Snapshot:
        live = self._live()
        with ThreadPoolExecutor(max_workers=4) as pool:
            states = list(pool.map(self._read, live))
        return Snapshot({s.switch: s for s in states})

    def _expected(self) -> dict[str, set[str]]:
        """Per live switch, the interfaces whose session should be up (link up, peer alive)."""
        out: dict[str, set[str]] = {s: set() for s in self._live()}
        for a, b in self.fabric.links:
            if frozenset((a, b)) in self.down_links or a[0] in self.down_switches or b[0] in self.down_switches:
                continue
            out[a[0]].add(swp(a[1]))
            out[b[0]].add(swp(b[1]))
        return out

    def _ready(self, snap: Snapshot, expected: dict[str, set[str]], reach: dict[str, set[str]]) -> bool:
        for switch, want in expected.items():
            st = snap.switches.get(switch)
            if st is None or st.error or any(not (st.sessions.get(i) and st.sessions[i].up) for i in want):
                return False
            for other in reach[switch]:
                if other != switch and not st.routes.get(f"{self.fabric.plan[other].loopback}/32"):
                    return False
        return True

    def _settle(self, start: float) -> Phase:
        """Poll until every expected session is up, every reachable loopback routed, and nothing
        changed for SETTLE_SECONDS; the time is when the last change was first seen."""
        fab = self.fabric
        expected = self._expected()
        graph = fab.graph(self.down_links, self.down_switches)
        reach = {n: set(nx.node_connected_component(graph, n)) for n in graph}
        deadline = start + self.timeout
        last_sig: tuple[Any, ...] | None = None
        changed_at = start
        converged = False
        while True:
            self._check()
            snap = self.snapshot()
            now = time.monotonic()
            sig = snap.signature()
            if sig != last_sig:
                last_sig, changed_at = sig, now
            if self._ready(snap, expected, reach) and now - changed_at >= SETTLE_SECONDS:
                converged = True
                break
            if now > deadline:
                break
            time.sleep(POLL_SECONDS)
        leaves = [s for s in self._live() if fab.roles[s] == "leaf"]
        spines, uplinks = self._uplinks(graph)
        widths = leaf_widths(snap, leaves, {n: sw.loopback for n, sw in fab.plan.items()},
                             reach, spines, uplinks)
        return Phase(converged, changed_at - start, sum(len(v) for v in expected.values()), snap, widths,
                     tier_routes(snap, fab.roles, list(TIERS)),
                     expected={(sw, i) for sw, ifaces in expected.items() for i in ifaces})

    def _uplinks(self, graph: nx.Graph[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Per leaf, the live spines above it and its live links to them."""
        spines: dict[str, int] = {}
        uplinks: dict[str, int] = {}
        for a, b in self.fabric.links:
            if frozenset((a, b)) in self.down_links:
                continue
            for (me, _), (other, _) in ((a, b), (b, a)):
                if self.fabric.roles.get(me) == "leaf" and other in graph and me in graph \
                        and self.fabric.roles.get(other) != "leaf":
                    uplinks[me] = uplinks.get(me, 0) + 1
        for leaf in uplinks:
            spines[leaf] = sum(1 for n in graph.neighbors(leaf) if self.fabric.roles.get(n) != "leaf")
        return spines, uplinks

    # --- flows -----------------------------------------------------------------------------------

    def _place_flows(self) -> KernelPlacement:
        fab = self.fabric
        derived = fab.src.derived
        design_mode, _ = load_balancing_mode(derived.resolved.technology, derived.resolved,
                                             derived.design.performance)
        mode = design_mode if design_mode in HASHED else "ecmp"
        graph = fab.graph(self.down_links, self.down_switches)
        leaves = [s for s in self._live() if fab.roles[s] == "leaf"]
        fabrics = [[lf for lf in leaves if lf in comp] for comp in nx.connected_components(graph)]
        # The design's live uplinks per leaf: each twin link stands for its bundle's design links.
        _, live = self._uplinks(graph)
        _, full = self._uplinks(fab.graph(set(), set()))
        share = min((live.get(lf, 0) / full[lf] for lf in leaves if full.get(lf)), default=1.0)
        plan = plan_flows([f for f in fabrics if len(f) > 1], derived.plan.leaf_down,
                          max(1, round(derived.plan.leaf_up * share)), mode, design_mode,
                          derived.resolved.technology.qps_per_connection, self.seed)
        peer_of = {}
        for a, b in fab.links:
            if frozenset((a, b)) not in self.down_links:
                peer_of[(a[0], swp(a[1]))] = (b[0], swp(b[1]))
                peer_of[(b[0], swp(b[1]))] = (a[0], swp(a[1]))
        loopbacks = {n: sw.loopback for n, sw in fab.plan.items()}
        paths = min((w for w in (self._width_of(lf) for lf in leaves) if w), default=0)
        return kernel_placement(plan, loopbacks, peer_of, lambda sw, cmds: self.ns.batch(self.ns.name(sw), cmds),
                                paths)

    def _width_of(self, leaf: str) -> int:
        st = self._read(leaf)
        widths = [len(r.next_hops) for r in st.bgp_routes
                  if any(r.prefix == f"{self.fabric.plan[o].loopback}/32" for o in self.fabric.plan
                         if self.fabric.roles[o] == "leaf" and o != leaf)]
        return max(widths, default=0)


def run_twin(design: FabricDesign, catalog: Catalog | None = None, **options: Any) -> TwinReport:
    """Bring the design up on FRR and report; TwinUnavailable when the machine cannot."""
    twin = RoutingTwin(design, catalog, **options)
    return twin.run()


__all__ = ["RoutingTwin", "TwinCancelled", "TwinError", "TwinReport", "TwinUnavailable", "check_machine", "run_twin"]
