"""What if it fails: the fabric after losing switches, a plane or cables, computed at once.

Two methods give the same figures (tests hold them against each other):
- closed form, for unedited two-tier templates that lose whole switches: per plane, a lost
  leaf takes its endpoints with it and a lost spine takes its share of every leaf's uplinks
  (uplinks spread evenly, so each spine carries leaf_up / spines of them);
- the device graph, for everything else (edited designs, three tiers, single cables, a plane
  losing all its spines): failed elements are removed, endpoints outside the main connected
  part of their plane are cut off, and bisection is the max-flow between the same two halves
  as for the intact fabric.

Bisection after a failure is stated against the intact fabric's full bisection, so "15/16"
means the fabric keeps 15/16 of what it was designed to carry. Everything here is computed;
collective and step times (`performance_impact`) are estimates from the performance model.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from designer.model.intent.design import Edit, FabricDesign
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collective_costs import CollectiveError, FabricContext
from designer.model.performance.collectives import context_for, evaluate
from designer.model.topology.builders import leaf_assignment
from designer.model.topology.derive import Derived, derive
from designer.model.topology.failed_fabric import measure_failure, switch_kinds, switch_signatures

if TYPE_CHECKING:   # networkx loads only where a device graph is measured, not for N-1 on switch pairs
    import networkx as nx

TIER_ROLES = ("leaf", "spine", "core")
_SWITCH_ID = re.compile(r"^(?:p(\d+)\.)?(leaf|spine|core)-(\d+)$")


class WhatIfError(ValueError):
    """A failure names nothing in the design: one line for the user."""


@dataclass(frozen=True)
class Failure:
    devices: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()    # one cable each

    @property
    def label(self) -> str:
        parts = list(self.devices) + [f"{a}--{b}" for a, b in self.links]
        if len(parts) > 6:
            return ", ".join(parts[:5]) + f" and {len(parts) - 5} more"
        return ", ".join(parts) or "nothing"


@dataclass(frozen=True)
class WhatIf:
    """The fabric after a failure. GPU and endpoint counts are over the whole design."""

    failure: Failure
    method: str                       # "closed-form" or "max-flow"
    endpoints: int
    endpoints_cut: int                # NIC ports cut off from the main part of their plane
    gpus: int
    gpus_cut: int                     # GPUs with every NIC cut off
    gpus_degraded: int                # GPUs that keep some but not all of their NICs
    nic_share: float                  # worst share of NIC bandwidth left to a connected GPU
    bisection_before_gbps: float
    bisection_after_gbps: float
    full_bisection_gbps: float
    leaf_oversub_before: float | None
    leaf_oversub_after: float | None  # worst over surviving leaves (None: no uplinks left)
    leaf_oversub: dict[str, float | None] = field(default_factory=dict)  # changed leaves only
    sus_cut: tuple[int, ...] = ()     # 1-based SU (pod) numbers with GPUs cut off
    rails_cut: tuple[int, ...] = ()   # 1-based rails with GPUs cut off
    sus_degraded: tuple[int, ...] = ()  # SUs (pods) whose leaves lost uplinks
    servers_cut: int = 0              # servers with at least one GPU cut off
    cut_servers: tuple[int, ...] = ()  # their 0-based indices (for drawing)

    @property
    def ratio_before(self) -> float:
        return self.bisection_before_gbps / self.full_bisection_gbps if self.full_bisection_gbps else 0.0

    @property
    def ratio_after(self) -> float:
        return self.bisection_after_gbps / self.full_bisection_gbps if self.full_bisection_gbps else 0.0

    @property
    def job_continues(self) -> bool:
        """A job on every GPU keeps running (at `nic_share` of NIC bandwidth or more)."""
        return self.gpus_cut == 0 and self.endpoints_cut < self.endpoints

    def to_json(self) -> dict[str, Any]:
        return {
            "failed": {"devices": list(self.failure.devices), "links": [list(x) for x in self.failure.links]},
            "method": self.method, "computed": True,
            "endpoints": self.endpoints, "endpoints_cut": self.endpoints_cut,
            "gpus": self.gpus, "gpus_cut": self.gpus_cut, "gpus_degraded": self.gpus_degraded,
            "nic_bandwidth_share": self.nic_share, "job_continues": self.job_continues,
            "bisection_before_gbps": self.bisection_before_gbps,
            "bisection_after_gbps": self.bisection_after_gbps,
            "bisection_ratio_before": self.ratio_before, "bisection_ratio_after": self.ratio_after,
            "leaf_oversubscription_before": self.leaf_oversub_before,
            "leaf_oversubscription_after": self.leaf_oversub_after,
            "leaf_oversubscription_changed": dict(self.leaf_oversub),
            "sus_cut": list(self.sus_cut), "rails_cut": list(self.rails_cut),
            "sus_degraded": list(self.sus_degraded), "servers_cut": self.servers_cut,
        }


# ----------------------------------------------------------------------------------------
# Naming what fails


def switch_ids(derived: Derived) -> list[str]:
    """Every switch of the design, in build order, without building the graph for templates."""
    if derived.design.edits:
        kinds = switch_signatures(derived.design, derived.resolved, derived.plan)
        if kinds is not None:
            return list(kinds)
        return [n for n, d in derived.graph.nodes(data=True) if d["role"] != "nic"]
    plan, planes = derived.plan, derived.resolved.planes
    out = []
    for p in range(planes):
        pre = f"p{p + 1}." if planes > 1 else ""
        out += [f"{pre}leaf-{i + 1}" for i in range(plan.leaves)]
        out += [f"{pre}spine-{i + 1}" for i in range(plan.spines)]
        out += [f"{pre}core-{i + 1}" for i in range(plan.cores)]
    return out


def parse_failure(derived: Derived, tokens: list[str] | tuple[str, ...]) -> Failure:
    """Devices, globs ("spine-*", "p2.*"), "plane:N" and cables "A--B" named on the command line."""
    switches = switch_ids(derived)
    known = set(switches)
    devices: list[str] = []
    links: list[tuple[str, str]] = []
    planes = derived.resolved.planes
    for raw in tokens:
        token = raw.strip()
        if not token:
            continue
        if "--" in token:
            a, b = (x.strip() for x in token.split("--", 1))
            g = derived.graph
            if a not in g or b not in g or not g.has_edge(a, b):
                raise WhatIfError(f"no link between '{a}' and '{b}' in this design")
            links.append((a, b))
            continue
        if token.lower().startswith("plane:"):
            n = token.split(":", 1)[1]
            if not n.isdigit() or not 1 <= int(n) <= planes:
                raise WhatIfError(f"'{token}': this design has {planes} plane(s)")
            prefix = f"p{n}." if planes > 1 else ""
            matched = [s for s in switches if s.startswith(prefix) and (planes > 1 or "." not in s)]
        elif any(ch in token for ch in "*?["):
            matched = fnmatch.filter(switches, token)
        elif token in known:
            matched = [token]
        elif not derived.design.edits or token in derived.graph:
            matched = [token] if token in derived.graph else []
        else:
            matched = []
        if not matched:
            raise WhatIfError(f"'{token}' names no switch of this design (switches are named like "
                              f"{switches[0] if switches else 'leaf-1'})")
        devices.extend(m for m in matched if m not in devices)
    if not devices and not links:
        raise WhatIfError("name at least one device or link to fail")
    return Failure(tuple(devices), tuple(links))


# ----------------------------------------------------------------------------------------
# Closed form


def _closed_form_applies(derived: Derived, failure: Failure) -> bool:
    plan = derived.plan
    if derived.design.edits or failure.links or plan.tiers != 2 or plan.spines < 1:
        return False
    if plan.leaf_up % plan.spines:
        return False      # uneven spreads: the graph knows which leaf lost what
    parsed = [_SWITCH_ID.match(d) for d in failure.devices]
    if not all(parsed):
        return False
    lost: dict[tuple[int, str], int] = defaultdict(int)
    for m in filter(None, parsed):
        lost[(int(m.group(1) or 1) - 1, m.group(2))] += 1
    # A plane needs a spine left, unless the whole plane is gone (it then carries nothing).
    return all(n < plan.spines or lost[(p, "leaf")] == plan.leaves
               for (p, role), n in list(lost.items()) if role == "spine")


def _gpus_of_port(derived: Derived) -> tuple[Callable[[int, int], range], int]:
    """GPUs served by a NIC port (plane, rail), and NIC ports per GPU.

    Where every plane reaches every GPU (rails >= GPUs, as on twin-plane B300 servers), rail
    k of each plane serves the same GPUs; otherwise each port serves its own GPUs.
    """
    r = derived.resolved
    g, rails, ports = r.gpus_per_server, r.rails, r.ports_per_server

    def span(k: int, n: int) -> range:
        lo = k * g // n
        return range(lo, max(lo + 1, (k + 1) * g // n))
    if rails >= g:
        return (lambda plane, rail: span(rail, rails)), r.planes * (rails // g)
    return (lambda plane, rail: span(plane * rails + rail, ports)), max(1, ports // g)


def _summarise(derived: Derived, failure: Failure, method: str, cut_nics: set[tuple[int, int, int]],
               bisection: float, oversub: dict[str, float | None], degraded_pods: set[int]) -> WhatIf:
    """Shared bookkeeping: cut NICs as (plane, server, rail) -> GPUs and SUs cut or degraded."""
    r, plan, m = derived.resolved, derived.plan, derived.metrics
    gpus_of, per_gpu = _gpus_of_port(derived)
    lost: dict[tuple[int, int], int] = defaultdict(int)    # (server, gpu) -> NICs lost
    sus, rails = set(), set()
    for plane, server, rail in cut_nics:
        for gpu in gpus_of(plane, rail):
            lost[(server, gpu)] += 1
    cut = degraded = 0
    share = 1.0
    for (server, gpu), n in lost.items():
        if n >= per_gpu:
            cut += 1
            sus.add(server // plan.rail_su_size + 1 if plan.rail_su_size else 1)
            rails.add(gpu * r.rails // r.gpus_per_server % r.rails + 1 if r.rails >= r.gpus_per_server
                      else gpu * r.ports_per_server // r.gpus_per_server % r.rails + 1)
        else:
            degraded += 1
            share = min(share, 1.0 - n / per_gpu)
    before = m.oversubscription("leaf")
    values = list(oversub.values())
    worst = None if not values or any(v is None for v in values) else max(v for v in values if v is not None)
    changed = {k: v for k, v in oversub.items() if v is None or before is None or abs(v - before) > 1e-9}
    hit = sorted({server for (server, gpu), n in lost.items() if n >= per_gpu})
    return WhatIf(failure, method, plan.endpoints * r.planes, len(cut_nics), plan.servers * r.gpus_per_server,
                  cut, degraded, share, m.bisection_gbps, bisection, m.full_bisection_gbps, before, worst,
                  changed, tuple(sorted(sus)) if plan.rail_su_size else (), tuple(sorted(rails)),
                  tuple(sorted(p + 1 for p in degraded_pods)) if plan.rail_su_size else (), len(hit), tuple(hit))


def _closed_form(derived: Derived, failure: Failure) -> WhatIf:
    r, plan = derived.resolved, derived.plan
    planes, e = r.planes, r.rails
    lost: dict[int, dict[str, set[int]]] = defaultdict(lambda: {"leaf": set(), "spine": set()})
    for dev in failure.devices:
        mt = _SWITCH_ID.match(dev)
        assert mt is not None   # the closed form is chosen only when every device is a switch id
        lost[int(mt.group(1) or 1) - 1][mt.group(2)].add(int(mt.group(3)) - 1)
    assignment = leaf_assignment(plan, e)
    order = sorted(range(len(assignment)), key=lambda i: (assignment[i], i))
    half = len(order) // 2
    s_d, s_u = r.link_gbps, r.uplink_gbps
    per_pair = plan.leaf_up // plan.spines
    total = 0.0
    cut: set[tuple[int, int, int]] = set()
    oversub: dict[str, float | None] = {}
    degraded_pods: set[int] = set()
    down = [0] * plan.leaves
    for leaf, _ in assignment:
        down[leaf] += 1
    for plane in range(planes):
        pre = f"p{plane + 1}." if planes > 1 else ""
        dead_leaves, dead_spines = lost[plane]["leaf"], lost[plane]["spine"]
        up_links = (plan.spines - len(dead_spines)) * per_pair
        if len(dead_leaves) == plan.leaves:
            cut.update((plane, server, rail) for server in range(plan.servers) for rail in range(e))
            continue
        a = [0] * plan.leaves
        b = [0] * plan.leaves
        for k, i in enumerate(order[:2 * half]):
            leaf = assignment[i][0]
            if leaf in dead_leaves:
                continue
            (a if k < half else b)[leaf] += 1
        for idx, (leaf, _) in enumerate(assignment):
            if leaf in dead_leaves:
                server, rail = divmod(idx, e)
                cut.add((plane, server, rail))
        pos = neg = 0.0
        for i in range(plan.leaves):
            if i in dead_leaves:
                continue
            total += min(a[i], b[i]) * s_d
            surplus = (a[i] - b[i]) * s_d
            climbed = min(abs(surplus), up_links * s_u)
            pos, neg = (pos + climbed, neg) if surplus > 0 else (pos, neg + climbed)
            oversub[f"{pre}leaf-{i + 1}"] = down[i] * s_d / (up_links * s_u) if up_links else None
            if dead_spines:
                degraded_pods.add(plan.leaf_su(i, e) if plan.rail_su_size else 0)
        total += min(pos, neg)
    return _summarise(derived, failure, "closed-form", cut, total, oversub, degraded_pods)


# ----------------------------------------------------------------------------------------
# Graph and max-flow


def _maxflow(g: nx.MultiGraph[str], first: set[str], second: set[str]) -> float:
    """Max-flow between two endpoint sets; single-homed endpoints fold into their leaf."""
    import networkx as nx

    flow: nx.DiGraph[str] = nx.DiGraph()
    cap: dict[tuple[str, str], float] = defaultdict(float)
    gbps: float
    for u, v, gbps in g.edges(data="gbps"):
        cap[(u, v)] += gbps

    def add(u: str, v: str, c: float) -> None:
        if flow.has_edge(u, v):
            flow[u][v]["capacity"] += c
        else:
            flow.add_edge(u, v, capacity=c)
    folded = {n for n in first | second if len(g[n]) == 1}
    for (u, v), c in cap.items():
        if u in folded or v in folded:
            nic, sw = (u, v) if u in folded else (v, u)
            if nic in first:
                add("_source", sw, c)
            elif nic in second:
                add(sw, "_sink", c)
            continue
        add(u, v, c)
        add(v, u, c)
    for n in first - folded:
        add("_source", n, float("inf"))
    for n in second - folded:
        add(n, "_sink", float("inf"))
    if "_source" not in flow or "_sink" not in flow:
        return 0.0
    return float(nx.maximum_flow_value(flow, "_source", "_sink"))


def failed_graph(derived: Derived, failure: Failure) -> nx.MultiGraph[str]:
    g = derived.graph.copy()
    g.remove_nodes_from([d for d in failure.devices if d in g])
    for a, b in failure.links:
        if g.has_edge(a, b):
            g.remove_edge(a, b, next(iter(g[a][b])))
    return g


def _graph_method(derived: Derived, failure: Failure, flow: bool = True) -> WhatIf:
    # The same measure on the switch pairs alone where it applies (no cable to an endpoint):
    # instant on a 65,536-GPU fabric, where copying the graph and max-flow take seconds.
    fast = measure_failure(derived.design, derived.resolved, derived.plan, failure.devices, failure.links, flow)
    if fast is not None:
        return _summarise(derived, failure, "max-flow", fast.cut, fast.bisection_gbps, fast.oversub,
                          fast.degraded_pods)
    return _graph_measure(derived, failure, flow)


def _graph_measure(derived: Derived, failure: Failure, flow: bool = True) -> WhatIf:
    intact = derived.graph
    import networkx as nx

    from designer.model.topology import graph_metrics

    first, second = graph_metrics.endpoint_halves(intact)
    g = failed_graph(derived, failure)
    nic_nodes = [n for n, d in intact.nodes(data=True) if d["role"] == "nic"]
    main: set[str] = set()
    by_plane: dict[int, list[set[str]]] = defaultdict(list)
    for comp in nx.connected_components(g):
        nics = {n for n in comp if g.nodes[n]["role"] == "nic"}
        if nics and len(nics) < len(comp):   # NICs that still reach a switch
            by_plane[g.nodes[next(iter(nics))]["plane"]].append(nics)
    for comps in by_plane.values():
        main |= max(comps, key=lambda c: (len(c), -min(intact.nodes[n]["index"] for n in c)))
    cut = set()
    for n in nic_nodes:
        if n not in main:
            d = intact.nodes[n]
            cut.add((d["plane"], d["server"], d["port"] % derived.resolved.rails))
    bisection = _maxflow(g, first & main, second & main) if flow else float("nan")
    level = nx.get_node_attributes(g, "level")
    oversub: dict[str, float | None] = {}
    degraded_pods: set[int] = set()
    for node, data in g.nodes(data=True):
        if data["role"] != "leaf":
            continue
        dn = up = 0.0
        gbps: float
        for _, nbr, gbps in g.edges(node, data="gbps"):
            if level[nbr] < 1:
                dn += gbps
            else:
                up += gbps
        if dn:
            oversub[node] = dn / up if up else None
        if intact.degree(node) != g.degree(node):
            degraded_pods.add(data["pod"])
    return _summarise(derived, failure, "max-flow", cut, bisection, oversub, degraded_pods)


def what_if(derived: Derived, failure: Failure, method: str = "auto", flow: bool = True) -> WhatIf:
    """The fabric after `failure`; method "auto" picks the closed form where it is exact.

    flow=False skips the max-flow on the graph method (bisection is then NaN) for callers
    that only need what is cut off.
    """
    if method == "closed-form" or (method == "auto" and _closed_form_applies(derived, failure)):
        if not _closed_form_applies(derived, failure):
            raise WhatIfError("the closed form covers unedited two-tier templates losing whole switches")
        return _closed_form(derived, failure)
    return _graph_method(derived, failure, flow)


# ----------------------------------------------------------------------------------------
# N-1 and the estimates that follow a failure


@dataclass(frozen=True)
class NMinusOne:
    worst: dict[str, WhatIf]          # tier -> worst single failure of that tier
    evaluated: dict[str, int]         # tier -> switches evaluated
    switches: dict[str, int]          # tier -> switches in the design
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "computed": True,
                "tiers": {t: {"switches": self.switches[t], "evaluated": self.evaluated[t],
                              "worst": w.to_json()} for t, w in self.worst.items()}}


def _severity(w: WhatIf) -> tuple[float, ...]:
    return (w.gpus_cut, w.endpoints_cut, -w.bisection_after_gbps, -(w.nic_share))


def n_minus_one(derived: Derived, method: str = "auto", limit: int = 400) -> NMinusOne:
    """Every single switch failure, the worst of each tier.

    Beyond `limit` switches, one switch per (tier, links down, links up) signature stands for
    its kind; the counts of evaluated switches say so. (The closed form of a two-tier fabric
    walks every endpoint per failure: 3,072 switches of a 131,072-endpoint plane took hours.)
    """
    use_graph = method == "max-flow" or (method == "auto" and not _closed_form_applies(derived, Failure(("spine-1",))))
    # A large fabric's kinds of switch, read as arrays: only the first switch of each is named.
    grouped = switch_kinds(derived.design, derived.resolved, derived.plan) \
        if derived.metrics.switches_total > limit else None
    if grouped is not None and sum(grouped.counts.values()) > limit:
        switches: list[str] = []
        by_tier: dict[str, list[str]] = defaultdict(list, grouped.first)
        counts = grouped.counts
    else:
        switches = switch_ids(derived)
        by_tier = defaultdict(list)
        for s in switches:
            by_tier[s.split(".")[-1].rsplit("-", 1)[0]].append(s)
        counts = {t: len(members) for t, members in by_tier.items()}
    kinds = switch_signatures(derived.design, derived.resolved, derived.plan) \
        if grouped is None and len(switches) > limit else None
    if use_graph and len(switches) > limit and kinds is None:   # an edit names an endpoint: the graph tells
        g = derived.graph
        import networkx as nx

        level = nx.get_node_attributes(g, "level")
        kinds = {s: (sum(1 for _, n in g.edges(s) if level[n] < level[s]), g.degree(s)) for s in switches}
    if kinds is not None:
        for tier, members in by_tier.items():
            seen: dict[tuple[int, int], str] = {}
            for s in members:
                seen.setdefault(kinds[s], s)
            by_tier[tier] = list(seen.values())
    worst: dict[str, WhatIf] = {}
    evaluated: dict[str, int] = {}
    methods: set[str] = set()
    for tier in TIER_ROLES:
        members = by_tier.get(tier, [])
        if not members:
            continue
        results = [what_if(derived, Failure((s,)), "max-flow" if use_graph else "auto") for s in members]
        methods.update(w.method for w in results)
        worst[tier] = max(results, key=_severity)
        evaluated[tier] = len(results)
    return NMinusOne(worst, evaluated, {t: counts[t] for t in worst}, " and ".join(sorted(methods)))


N1_COLUMNS = ("Tier", "Switches", "Evaluated", "Worst failure", "GPUs cut off", "Bisection after",
              "Leaf oversub.", "A job on every GPU")


def n1_rows(report: NMinusOne) -> list[tuple[str, ...]]:
    """The N-1 table as the report and the window write it: one row per tier, its worst failure."""
    from designer.model.common.units import ratio_label

    return [(tier, f"{report.switches[tier]:,}", f"{report.evaluated[tier]:,}", w.failure.label,
             f"{w.gpus_cut:,} of {w.gpus:,}", f"{w.ratio_after:.1%}",
             ratio_label(w.leaf_oversub_after) if w.leaf_oversub_after else "no uplinks",
             ("continues" + (f" at {w.nic_share:.0%} NIC bandwidth" if w.nic_share < 1 else ""))
             if w.job_continues else "stops")
            for tier, w in report.worst.items()]


def failed_design(derived: Derived, failure: Failure) -> FabricDesign:
    """The design with the failure written as edits: what the metrics and estimates read."""
    edits = [Edit("remove-device", d) for d in failure.devices]
    edits += [Edit("remove-links", a, b, 1) for a, b in failure.links]
    return replace(derived.design, edits=derived.design.edits + tuple(edits))


def performance_impact(derived: Derived, result: WhatIf) -> dict[str, Any]:
    """Estimated collective (and training step, if the design sets one) before and after.

    After the failure the job runs on the servers that keep every GPU, at the NIC bandwidth
    the worst connected GPU keeps; the performance model reads the failed fabric's uplinks.
    """
    settings = derived.design.performance
    out: dict[str, Any] = {"estimated": True, "collective": settings.collective,
                           "size_bytes": settings.message_size_bytes}
    try:
        before_ctx = context_for(derived)
        before = evaluate(before_ctx, settings.collective, [settings.message_size_bytes]).results[0]
        out["before_us"] = float(before.time_us)
    except CollectiveError as exc:
        out["note"] = str(exc)
        return out
    g = derived.resolved.gpus_per_server
    after_derived = derive(failed_design(derived, result.failure))
    job_gpus = before_ctx.gpus
    if result.gpus_cut:
        # Whole servers only: a server with any GPU cut off leaves the job.
        job_gpus = min(job_gpus, (derived.plan.servers - result.servers_cut) * g)
        out["job_gpus_after"] = job_gpus
        out["note"] = (f"{result.gpus_cut:,} GPUs are cut off: a job on every GPU stops; the time after is "
                       f"for the {job_gpus:,} GPUs of servers that keep all their GPUs")
    if job_gpus < 2:
        out["after_us"] = None
        return out
    try:
        ctx = context_for(after_derived, gpus=job_gpus)
        if result.nic_share < 1.0:
            ctx = replace(ctx, nic_raw_GBps=ctx.nic_raw_GBps * result.nic_share,
                          nic_GBps=ctx.nic_GBps * result.nic_share)
        after = evaluate(ctx, settings.collective, [settings.message_size_bytes]).results[0]
        out["after_us"] = float(after.time_us)
        out["bottleneck_after"] = after.bottleneck
        if settings.params and settings.compute_ms is not None:
            from designer.model.performance.training import estimate_step

            out["step_before_ms"] = estimate_step(derived).step_ms
            out.update(_step_after(settings, ctx))
    except CollectiveError as exc:
        out["after_us"] = out.get("after_us")
        out["note"] = str(exc)
    return out


def _step_after(settings: PerformanceSettings, ctx: FabricContext) -> dict[str, Any]:
    """The training step on the failed fabric, as estimate_step computes it, on a given context."""
    assert settings.params is not None and settings.compute_ms is not None   # the caller checks both
    # The training model loads only for a step estimate: N-1 and the report never ask for one.
    from designer.model.performance.training import gradient_comm, group_context

    gpus = ctx.gpus
    dp = settings.dp_degree or gpus
    if dp < 2 or dp > gpus or gpus % dp:
        return {"step_after_ms": None}
    mp = gpus // dp
    grad = max(1, math.ceil(settings.params * settings.bytes_per_grad / mp))
    comm_ms, _, _ = gradient_comm(group_context(ctx, dp, gpus), grad, settings.bucket_bytes)
    return {"step_after_ms": settings.compute_ms + comm_ms * (1.0 - settings.comm_overlap)}
