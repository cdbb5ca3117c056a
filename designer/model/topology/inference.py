"""Inference: recover the intended design from a fabric as built.

Tiers come from distance to the endpoints (switches with hosts are leaves, switches above them
spines, then cores). Servers come from HCA descriptions (`host mlx5_N`) or, in LLDP captures,
from the host names and port names. Speeds are the most common rate per tier, so a few degraded
links do not change them. The switch model comes from part numbers or device ids (InfiniBand)
or from the system descriptions LLDP neighbours report (Ethernet, then a RoCE technology). The
template, oversubscription and tier sizes are found by sizing candidate designs and keeping the
one with the same switch and link counts as the capture. Every inference carries its
confidence and reason.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict, TypeVar

import numpy as np

from designer.catalog import Catalog, default_catalog
from designer.catalog.device_ids import device_ids
from designer.catalog.entries import Switch, Technology
from designer.model.common.arrays import sorted_distinct
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, Template, TierSpec
from designer.model.topology import closed_form
from designer.model.topology.asbuilt import (
    KIND_AGGREGATION,
    KIND_HOST,
    KIND_SWITCH,
    AsBuilt,
    device_table,
    link_ends,
)
from designer.model.topology.builders import leaf_assignment
from designer.model.topology.capture_mapping import Placement, group_view, place, remember_role_codes
from designer.model.topology.derive import Derived, derive, plan_only
from designer.model.topology.design_view import design_view
from designer.model.topology.inference_counts import (
    AGGREGATION,
    CORE,
    LEAF,
    NIC,
    SPINE,
    SwitchFacts,
    capture_counts,
    counts_in_order,
    fastest_mode,
    host_key_rows,
    leaf_ends_in_order,
    pair_keys,
    switch_facts,
)
from designer.model.topology.server_evidence import cluster_of, older_cards, older_nic, read_server_counts
from designer.model.topology.sizing import Plan, Resolved

ROLES = ("leaf", "spine", "core")

_T = TypeVar("_T", bound=Hashable)


class InferenceJson(TypedDict):
    """The inference as the audit's JSON key `inferred` carries it."""

    template: str | None
    # Absent when the capture is audited without any inference.
    exact_counts: NotRequired[bool]
    facts: list[dict[str, str]]           # Inferred, field by field
    problems: list[str]


@dataclass(frozen=True)
class Inferred:
    subject: str
    value: str
    confidence: str          # "high", "medium" or "low"
    why: str


@dataclass
class Inference:
    design: FabricDesign | None
    derived: Derived | None
    roles: dict[str, str]                 # as-built device id -> leaf/spine/core/nic/aggregation/isolated
    mapping: dict[str, str] = field(default_factory=dict)   # as-built device id -> design node id (placed())
    facts: list[Inferred] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    exact: bool = False                   # the design's counts equal the capture's
    placement: Placement | None = None    # where each as-built device sits in the design
    server_candidates: tuple[str, ...] = ()   # catalog servers the capture's evidence leaves
    _fabric: AsBuilt | None = None

    def placed(self) -> Placement | None:
        """Where each as-built device sits in the inferred design, placed once, when first asked
        (an audit against another design never needs it)."""
        if self.placement is None and self.derived is not None and self._fabric is not None:
            self.placement = place(self._fabric, self.roles, design_view(self.derived))
            self.mapping = self.placement.mapping
        return self.placement

    def to_json(self) -> InferenceJson:
        d = self.design
        return {
            "template": d.fabric.template if d else None,
            "exact_counts": self.exact,
            "facts": [dataclasses.asdict(f) for f in self.facts],
            "problems": list(self.problems),
        }


def _mode(values: Iterable[_T], default: _T) -> _T:
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else default


def _fastest_mode(rates: Iterable[float], default: float) -> float:
    """The most common rate, the faster of a tie: of one 4xSDR and one 1xSDR uplink, the 1x one
    is the degraded link, not the design."""
    counts = Counter(rates)
    top = max(counts.values(), default=0)
    return max((r for r, n in counts.items() if n == top), default=default)


def assign_roles(fabric: AsBuilt) -> dict[str, str]:
    """Each device's role: hosts are NICs (or aggregation nodes); switches are leaves, spines
    or cores by their distance from the hosts, corrected for hosts cabled to a spine and for
    spare leaves. Read on arrays of the links' ends: a 131,072-GPU capture has 400,000 links."""
    return _roles_and_codes(fabric)[0]


def _roles_and_codes(fabric: AsBuilt) -> tuple[dict[str, str], np.ndarray | None]:
    """(roles, role codes as inference_counts numbers them, per row of `link_ends`); no codes
    where the roles were read link by link or a cascade's hub was named after."""
    ends_of = link_ends(fabric)
    if ends_of is None:   # a link to a device the capture does not describe
        return _assign_roles_by_objects(fabric), None
    ids, a, b = ends_of.ids, ends_of.a, ends_of.b
    n = len(ids)
    kind = device_table(fabric).kind
    switch = kind == KIND_SWITCH
    endpoint = kind == KIND_HOST
    cabled = a != b
    ea, eb = np.concatenate([a[cabled], b[cabled]]), np.concatenate([b[cabled], a[cabled]])   # both ways
    # Distance from the hosts through switches, up to three tiers.
    level = np.where(endpoint, 0, -1)
    for depth in range(1, 4):
        reached = eb[(level[ea] == depth - 1) & switch[eb] & (level[eb] < 0)]
        if not len(reached):
            break
        level[reached] = depth
    role = np.where(kind == KIND_HOST, NIC, np.where(kind == KIND_AGGREGATION, AGGREGATION, np.maximum(level, 0)))
    # A switch with a few hosts whose every switch neighbour is a leaf, and which has more
    # switch links than host links, is a spine with hosts cabled to it directly (a storage or
    # service host on a spine), not a leaf.
    leaf = switch & (level == 1)
    nic = endpoint
    ends_a, ends_b = np.concatenate([a, b]), np.concatenate([b, a])        # every link end, loops twice
    at_leaf = leaf[ends_a]
    hosts_of = np.bincount(ends_a[at_leaf & nic[ends_b]], minlength=n)
    links_of = np.bincount(ends_a[at_leaf & ~nic[ends_b]], minlength=n)
    # Distinct switch neighbours counted only for the leaves with more switch links than host
    # links and no switch neighbour that is not a leaf: a fat-tree's leaves (their spines above,
    # and as many uplinks as hosts but for an aggregation node's) have none, so none is sorted.
    candidate = leaf & (links_of > hosts_of)
    to_switch = candidate[ea] & switch[eb]
    candidate &= np.bincount(ea[to_switch & ~leaf[eb]], minlength=n) == 0
    chosen = to_switch & candidate[ea]
    peer_pairs = sorted_distinct(ea[chosen] * n + eb[chosen])
    peers = np.bincount(peer_pairs // n, minlength=n)
    role[candidate & (peers >= 2)] = SPINE
    # A core tier reaches every spine; switches above at most half the spines are leaves with
    # no host cabled (a spare leaf's uplinks), not cores.
    cores, spines = role == CORE, role == SPINE
    if cores.any() and 2 * len(sorted_distinct(eb[cores[ea] & spines[eb]])) <= int(spines.sum()):
        role[cores] = LEAF
    # Hosts first, then switches, each in the capture's order (as the link-by-link pass names them).
    role_names = np.array(["isolated", *ROLES, "nic", "aggregation"], dtype=object)
    hosts_first = np.concatenate([np.flatnonzero(~switch), np.flatnonzero(switch)])
    roles: dict[str, str] = dict(zip([ids[i] for i in hosts_first.tolist()],
                                     role_names[role[hosts_first]].tolist(), strict=True))
    if not ((role == SPINE) | (role == CORE)).any():
        _cascade_hub(fabric, roles, _adjacency(fabric))
        return roles, None
    return roles, np.append(role, 0).astype(np.int8)


def _adjacency(fabric: AsBuilt) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fabric.links:
        if link.a != link.b:
            adj[link.a].add(link.b)
            adj[link.b].add(link.a)
    return adj


def _assign_roles_by_objects(fabric: AsBuilt) -> dict[str, str]:
    """assign_roles, link by link: the reference the arrays are held equal to."""
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fabric.links:
        if link.a != link.b:
            adj[link.a].add(link.b)
            adj[link.b].add(link.a)
    roles: dict[str, str] = {}
    level: dict[str, int] = {}
    frontier: list[str] = []
    for dev in fabric.devices.values():
        if dev.kind == "host":
            roles[dev.id] = "aggregation" if dev.aggregation else "nic"
            if not dev.aggregation:
                level[dev.id] = 0
                frontier.append(dev.id)
    depth = 0
    while frontier and depth < 3:
        depth += 1
        nxt: list[str] = []
        for n in frontier:
            for m in adj[n]:
                if m not in level and fabric.devices[m].kind == "switch":
                    level[m] = depth
                    nxt.append(m)
        frontier = nxt
    for dev in fabric.switches():
        roles[dev.id] = ROLES[level[dev.id] - 1] if dev.id in level else "isolated"
    # A switch with a few hosts whose every switch neighbour is a leaf, and which has more
    # switch links than host links, is a spine with hosts cabled to it directly (a storage or
    # service host on a spine), not a leaf.
    leaves = {d for d, r in roles.items() if r == "leaf"}
    nics = {d for d, r in roles.items() if r == "nic"}
    # Plain counts, each end read once: a 131,072-GPU capture has 400,000 links.
    links_of: defaultdict[str, int] = defaultdict(int)
    hosts_of: defaultdict[str, int] = defaultdict(int)
    for link in fabric.links:
        a, b = link.a, link.b
        if a in leaves:
            (hosts_of if b in nics else links_of)[a] += 1
        if b in leaves:
            (hosts_of if a in nics else links_of)[b] += 1
    for d in leaves:
        switch_peers = {m for m in adj[d] if fabric.devices[m].kind == "switch"}
        if len(switch_peers) >= 2 and switch_peers <= leaves and links_of[d] > hosts_of[d]:
            roles[d] = "spine"
    # A core tier reaches every spine; switches above at most half the spines are leaves with
    # no host cabled (a spare leaf's uplinks), not cores.
    cores = {d for d, r in roles.items() if r == "core"}
    spines = {d for d, r in roles.items() if r == "spine"}
    if cores and 2 * len({m for c in cores for m in adj[c] if m in spines}) <= len(spines):
        roles.update((c, "leaf") for c in cores)
    _cascade_hub(fabric, roles, adj)
    return roles


def _cascade_hub(fabric: AsBuilt, roles: dict[str, str], adj: dict[str, set[str]]) -> None:
    """Small older fabrics cascade switches that all carry hosts (an 8-port switch hung off a
    24-port one by two cables, the ibnetdiscover(8) example): no switch is above the others by
    distance, but the one cabled to every other switch and with the most ports is the spine they
    hang from; its own hosts sit on a spine, as a storage host does on a larger fabric."""
    leaves = [d for d, r in roles.items() if r == "leaf"]
    if len(leaves) < 2 or any(r in ("spine", "core") for r in roles.values()):
        return
    switch_peers = {d: {m for m in adj[d] if roles.get(m) == "leaf"} for d in leaves}
    if not all(switch_peers[d] for d in leaves):
        return
    hubs = [d for d in leaves if switch_peers[d] >= set(leaves) - {d}]
    if not hubs:
        return
    ports = {d: fabric.devices[d].ports for d in hubs}
    hub = max(hubs, key=lambda d: (ports[d], len(adj[d]), d))
    # Two hubs of one size (two switches cabled to each other) name no spine.
    if len(hubs) > 1 and sorted(ports.values())[-2] == ports[hub]:
        return
    roles[hub] = "spine"


def infer_design(fabric: AsBuilt, catalog: Catalog | None = None, name: str = "As built") -> Inference:
    catalog = catalog or default_catalog()
    roles, role_codes = _roles_and_codes(fabric)
    ends = link_ends(fabric)
    if role_codes is not None and ends is not None:   # the placement reads the same roles as codes
        remember_role_codes(fabric, roles, ends.ids, role_codes[:-1])
    inf = Inference(None, None, roles)
    facts = inf.facts
    family = fabric.family
    # Counts over arrays of the devices and links, never a pass over 400,000 link objects.
    cap = capture_counts(fabric, roles, role_codes)
    a, b, role = cap.a, cap.b, cap.role
    n_nics = int((role == NIC).sum())
    if not n_nics or not (role == LEAF).any():
        switch = device_table(fabric).kind == KIND_SWITCH
        switch = np.append(switch, False)      # the row of undescribed devices
        between = int((switch[a] & switch[b]).sum())
        facts.append(Inferred("read", f"{int(switch.sum())} switches, {between} links between them, {n_nics} host "
                              f"{'NIC ports' if family == 'ethernet' else 'HCAs'}", "high",
                              "every device and link the capture names; hosts without a neighbour table "
                              "(servers not running LLDP) do not appear"))
        inf.problems.append(
            "the capture holds no host connected to a switch: " + (
                "a design is inferred from the hosts' links and the leaves they reach, so none is; its "
                f"{between} switch-to-switch links are audited on their own (a capture that also holds the "
                "hosts' neighbours, e.g. lldpd on the servers, infers the design)" if between else
                "there is no fabric to infer"))
        return inf
    # Only the switches' names, parts, device ids and descriptions are read.
    by_tier = {r: switch_facts(fabric, cap.ids, cap.rows(code))
               for r, code in zip(ROLES, (LEAF, SPINE, CORE), strict=True)}
    tiers = 3 if by_tier["core"] else 2 if by_tier["spine"] else 1
    facts.append(Inferred("tiers", str(tiers), "high", "switch distance from the hosts: "
                          + ", ".join(f"{len(by_tier[r])} {r}" for r in ROLES if by_tier[r])))

    view = group_view(fabric, roles)
    mgmt = host_key_rows(cap, view.management)
    n_mgmt = int(mgmt.sum())
    compute = (role == NIC) & ~mgmt
    n_compute = n_nics - n_mgmt
    aggregation = int((role == AGGREGATION).sum())
    if n_mgmt or aggregation:
        facts.append(Inferred("set apart", f"{aggregation} aggregation nodes, {n_mgmt} management HCAs", "high",
                              "SHARP aggregation nodes by their description; management HCAs are hosts named "
                              "unlike the compute hosts with fewer HCAs, or cabled only to spines ("
                              + (", ".join(sorted(view.management)[:3]) or "none") + ")"))
    named = np.flatnonzero(compute & (cap.host_code >= 0))
    # The compute hosts in the order their first HCA comes, with their HCAs.
    hcas_of = counts_in_order(cap.host_code[named])
    # HCAs per server: the HCA indices the compute hosts use (HCA-1/2/5/6 is 4), whatever the naming.
    ports = len(view.rank) if len(view.rank) > 1 else (_mode(hcas_of.values(), 0) if hcas_of else 1)
    # Default-named HCAs first fill the hosts that lack one, then make up whole servers.
    servers = max(len(hcas_of), (n_compute + ports - 1) // ports)
    nic_word = "NIC ports" if family == "ethernet" else "HCAs"
    why = f"{len(hcas_of)} host names with {ports} {nic_word} each most often"
    if len(named) < n_compute:
        why += f"; {n_compute - len(named)} default-named HCAs counted as {ports} per server"
    server_fact = len(facts)
    facts.append(Inferred("servers", str(servers), "high" if len(named) == n_compute else "medium", why))

    nic = role == NIC
    tier = np.where((role >= LEAF) & (role <= CORE), role, -9).astype(np.int64)
    host_links = np.flatnonzero((nic[a] | nic[b]) & ~mgmt[a] & ~mgmt[b])
    up_links = np.flatnonzero(np.abs(tier[a] - tier[b]) == 1)   # leaf-spine and spine-core: adjacent tiers
    # Links of unknown rate (0) say nothing about the designed speed.
    rates = cap.gbps[host_links]
    link = int(fastest_mode(rates[rates != 0], 0.0))
    rates = cap.gbps[up_links]
    uplink = int(fastest_mode(rates[rates != 0], float(link)))
    facts.append(Inferred("link speed", f"{link}G hosts, {uplink}G between switches", "high",
                          "most common rate per tier; slower links are reported as degraded"))
    compute_rows = np.flatnonzero(compute)
    nic_devids = counts_in_order(cap.devid[compute_rows][cap.devid[compute_rows] != 0])
    slow, cards = older_cards(nic_devids, link) if family == "infiniband" and link else (0, "")
    if slow:
        facts.append(Inferred("older HCAs", f"{slow} at their own top rate", "high",
                              f"{cards}: their links run slower than {link}G because the card does, "
                              "not the cable; they are not reported as degraded"))
    # The hosts' HCAs' device ids, host by host.
    by_host = named[np.lexsort((named, cap.host_code[named]))]   # hosts are numbered as they first come
    host_devids = counts_in_order(cap.devid[by_host][cap.devid[by_host] != 0])
    evidence = read_server_counts([cap.hosts[h] for h in hcas_of], host_devids, ports, link, catalog, family)
    facts.append(Inferred("server model", evidence.value, evidence.confidence, evidence.why))
    inf.server_candidates = evidence.candidates

    if family == "ethernet":
        switch_id, conf, why, unknown = _ethernet_switch_model(by_tier["leaf"] + by_tier["spine"] + by_tier["core"],
                                                               catalog, max(link, uplink))
        if switch_id and unknown:
            inf.problems.append(f"switch model not recognised: {unknown}; the design assumes {switch_id}")
    else:
        switch_id, conf, why = _switch_model(by_tier["leaf"] + by_tier["spine"], catalog, max(link, uplink))
    facts.append(Inferred("switch model", switch_id or "unknown", conf, why))

    # Each host link's HCA end and other end.
    nic_end = np.where(nic[a[host_links]], a[host_links], b[host_links])
    other_end = np.where(nic[a[host_links]], b[host_links], a[host_links])
    on_leaf = (cap.hca[nic_end] >= 0) & (role[other_end] == LEAF)
    # Per leaf, the host links of each HCA index: the most common index's share of the leaf's.
    indices = max(int(cap.hca.max()) + 1, 1)
    by_index = np.unique(other_end[on_leaf] * indices + cap.hca[nic_end[on_leaf]], return_counts=True)
    leaf_of_index = by_index[0] // indices
    served = np.bincount(leaf_of_index, weights=by_index[1], minlength=len(role))
    most = np.zeros(len(role), dtype=np.int64)
    np.maximum.at(most, leaf_of_index, by_index[1])
    leaves_with = sorted_distinct(leaf_of_index)
    # Rail-optimized when nearly every leaf serves one HCA index: a leaf keeps its rail when a
    # swapped or miswired cable or two bring it another index.
    single = int((most[leaves_with] >= 0.75 * served[leaves_with]).sum())
    rails_clean = ports > 1 and bool(len(leaves_with)) and single >= 0.75 * len(leaves_with)
    hosts_per_leaf = np.bincount(other_end, minlength=len(role))
    nodes_per_su = int(hosts_per_leaf.max()) if len(host_links) else 1
    templates: list[Template] = ["rail-optimized"] if rails_clean else []
    templates += ["fat-tree", "leaf-spine"] if tiers == 3 else ["leaf-spine", "fat-tree"]
    if tiers == 1 and ports > 1 and not rails_clean:
        # One switch takes every server: a rail-optimized plane lays its ports out by rail (a
        # server's HCAs spread over the switch), a leaf-spine one by server (its HCAs side by side).
        ports_of: dict[str, list[int]] = defaultdict(list)
        at_a = nic[a[host_links]]
        port_at = np.where(at_a, cap.pb[host_links], cap.pa[host_links])
        for code, port in zip(cap.host_code[nic_end].tolist(), port_at.tolist(), strict=True):
            if code >= 0:
                ports_of[cap.hosts[code]].append(port)
        side_by_side = sum(1 for p in ports_of.values() if len(p) > 1 and max(p) - min(p) == len(p) - 1)
        if ports_of and side_by_side < len(ports_of) / 2:
            templates.insert(0, "rail-optimized")
            nodes_per_su = max(1, min(nodes_per_su, len(ports_of)))
    if rails_clean:
        facts.append(Inferred("rails", str(ports), "high" if single == len(leaves_with) else "medium",
                              f"{single} of {len(leaves_with)} leaves serve one "
                              + ("port name (ethN) only" if family == "ethernet" else "HCA index")
                              + f" (indices {', '.join(str(i) for i in sorted(view.rank))}, ranked)"))
        # Groups (SUs): leaves that share hosts; their size is the leaf ports they hold servers on,
        # so an absent server or a management HCA does not change it.
        groups = len(view.groups)
        nodes_per_su = view.group_size or nodes_per_su
        whole = sum(1 for n in view.slots if n >= nodes_per_su)
        conf = "high" if whole >= groups - 1 else "medium"
        facts.append(Inferred("nodes per SU", str(nodes_per_su), conf,
                              f"{groups} groups of leaves that share hosts; {whole} of them hold {nodes_per_su} "
                              "servers on their leaf ports"))
        by_slots = nodes_per_su * (groups - 1) + min(nodes_per_su, view.slots[-1] if view.slots else 0)
        if by_slots != servers:
            servers = max(by_slots, len(hcas_of))
            facts[server_fact] = Inferred("servers", str(servers), "medium",
                                          f"{groups} groups of {nodes_per_su} servers, read from the leaf ports "
                                          f"that hold HCAs ({len(hcas_of)} host names seen)")

    if not link:
        inf.problems.append("the capture reports no link rates (LLDP neighbours without a MAU type, or a CSV "
                            "without speeds); the capture is audited on its own, without a design")
        return inf
    if switch_id is None:
        described = sorted({d.description for d in by_tier["leaf"] + by_tier["spine"] if d.description})
        inf.problems.append(f"no catalog switch runs {link}G host links and {uplink}G uplinks"
                            + (f" (the switches describe themselves as {', '.join(described[:3])})"
                               if described else "")
                            + "; the capture is audited on its own, without a design")
        return inf
    mixed = _generations(by_tier["leaf"] + by_tier["spine"] + by_tier["core"], catalog)
    core = _core_generation(by_tier, catalog) if len(mixed) > 1 else None
    if core is not None:
        # A fabric of two generations is designed at its core's: the older switches' links run
        # their own top rate and are reported as slower links, not read as the design.
        generation, technology, switch_id = core
        link = uplink = technology.link_gbps
        counted = ", ".join(f"{n} {gen}" for gen, n in sorted(mixed.items()))
        slow, cards = older_cards(nic_devids, link)
        revised = {"link speed": Inferred("link speed", f"{link}G hosts, {uplink}G between switches", "medium",
                                          f"the {generation} rate of the switches at the top tier; links of the "
                                          "older switches run slower and are reported as degraded"),
                   "switch model": Inferred("switch model", switch_id, "medium",
                                            f"the {generation} switches at the top tier, by their device ids"),
                   "older HCAs": Inferred("older HCAs", f"{slow} at their own top rate", "high",
                                          f"{cards}: their links run slower than {link}G because the card does, "
                                          "not the cable; they are not reported as degraded")}
        facts[:] = [revised.get(f.subject, f) for f in facts if f.subject != "older HCAs" or slow]
        if slow and not any(f.subject == "older HCAs" for f in facts):
            facts.append(revised["older HCAs"])
        facts.append(Inferred("generations", counted, "medium",
                              f"switch device ids; the design is the top tier's ({generation}, {technology.id})"))
    elif len(mixed) > 1:
        inf.problems.append("the switches are of more than one generation ("
                            + ", ".join(f"{n} {gen}" for gen, n in sorted(mixed.items()))
                            + ", by their device ids): no one catalog design has them; "
                            "the capture is audited on its own, without a design")
        return inf
    planes = _planes(fabric, roles, role_codes)
    if planes > 1:
        facts.append(Inferred("planes", str(planes), "high", f"the switches form {planes} fabrics of the same size "
                              "that share no link; each server has HCAs in every one"))
    server = cluster_of(evidence, catalog, ports, link)
    card = older_nic(nic_devids, catalog, link) if family == "infiniband" and evidence.decided is None else None
    if card:
        server = dataclasses.replace(server, nic=card)
    observed = (len(by_tier["leaf"]), len(by_tier["spine"]), len(by_tier["core"]),
                len(host_links), int(((role[a[up_links]] == LEAF) | (role[b[up_links]] == LEAF)).sum()),
                int(((role[a[up_links]] == CORE) | (role[b[up_links]] == CORE)).sum()))
    # Uplinks per leaf, the leaves in the order their first uplink comes (a tie keeps the first).
    leaf_up = counts_in_order(leaf_ends_in_order(cap, up_links))
    up = _mode(leaf_up.values(), 1) if leaf_up else 0   # one tier: no leaf has an uplink
    # Links per switch pair, the pairs in the order their first link comes (read for two tiers).
    pair_of = pair_keys(cap, up_links)
    pair_links = counts_in_order(pair_of) if tiers == 2 else Counter()
    if tiers == 2 and leaf_up:
        # A missing cable takes one link off one leaf-spine pair but off its leaf's whole total:
        # when most leaves miss one, the usual links per pair times the spines is the design.
        # (An uplink's pair holds one leaf: its ends are of adjacent tiers.)
        _, first_link = np.unique(pair_of, return_index=True)
        spines_of = counts_in_order(leaf_ends_in_order(cap, up_links[np.sort(first_link)]))
        if spines_of and _mode(spines_of.values(), 0) == len(by_tier["spine"]):
            # as many pairs with 9 links as with 8: a cable is missing more often than one is added
            per_pair = Counter(pair_links.values())
            usual = max(v for v, n in per_pair.items() if n == max(per_pair.values()))
            up = max(up, usual * len(by_tier["spine"]))
    # Spines numbered 1..9 with one number missing: the missing one is absent, not undesigned.
    gaps = _numbering_gaps(by_tier["spine"]) if tiers == 2 else 0
    if gaps:
        parallel = _mode(pair_links.values(), 1)
        observed = (observed[0], observed[1] + gaps, observed[2], observed[3],
                    observed[4] + gaps * parallel * len(by_tier["leaf"]), observed[5])
        up += gaps * parallel
    # Switches per tier as designed: the spines seen plus those missing from their numbering.
    tier_sizes = {r: len(by_tier[r]) + (gaps if r == "spine" else 0) for r in ROLES}
    seen_spread = sorted(hosts_per_leaf[cap.rows(LEAF)].tolist())
    ratio = round(nodes_per_su * link / (up * uplink), 3) if up else 1.0
    ratios = sorted({1.0, ratio, 1.5, 2.0, 3.0, 4.0}, key=lambda x: abs(x - ratio))
    # Sizing spreads the servers evenly over the leaves seen, so a leaf holds fewer than the
    # fullest one: the ratio that gives it the uplinks seen is tried last (ties keep the others).
    if up and tier_sizes["leaf"]:
        # rounded up to 3 decimals: a hair more ratio keeps the same whole uplinks, and reads 1.084:1
        even = math.ceil(-(-servers // tier_sizes["leaf"]) * link / (up * uplink) * 1000) / 1000
        ratios += [even] if even not in ratios else []
    # (score, SU size off, spread off, order, candidate, template, ratio)
    scored: list[tuple[int, int, int, int, FabricDesign, Template, float]] = []
    for template in templates:
        for r, nps, counts in [(ratio, n, c) for ratio in ratios for c in (False, True)
                               for n in dict.fromkeys((nodes_per_su, int(up * ratio * uplink // link) or 1))]:
            # Sizing alone gives a candidate's counts; only the one kept is derived in full.
            try:
                cand = _candidate(name, server, ports, link, uplink, switch_id, template, tiers, nps,
                                  r, servers, counts, tier_sizes, family, planes)
                resolved, plan = plan_only(cand, catalog)
            except (ValueError, KeyError):
                continue
            planned = _planned_counts(resolved, plan)
            score = sum(abs(a - b) for a, b in zip(planned, observed, strict=True))
            # A capture can lack designed switches (absent), never hold more than the design has:
            # a design with fewer switches than seen counts each one ten times, as the links a
            # switch carries would (X5's 7 uneven leaves and 4 spines are not a 5-leaf, 2-spine
            # design with a few links off).
            score += 9 * sum(max(0, b - a) for a, b in zip(planned[:3], observed[:3], strict=True))
            # Likewise a cable between switches is more often missing than extra: a design with
            # fewer switch links than seen counts each one three times (a site that lost one
            # uplink on most leaves is not a design with one uplink fewer).
            score += 2 * sum(max(0, b - a) for a, b in zip(planned[4:], observed[4:], strict=True))
            # Uplinks that do not spread evenly over the spines (17 over 2) are no design a site
            # builds: each leaf would hold one pair short, so each leaf counts twice.
            if plan.tiers == 2 and plan.spines and plan.leaf_up % plan.spines:
                score += 2 * plan.leaves * (plan.leaf_up % plan.spines)
            # Equal counts can come from another SU size (uplinks rounded up to spread evenly over
            # fewer spines): the SU size seen on the leaves breaks the tie.
            su_off = abs(plan.rail_su_size - nodes_per_su) if template == "rail-optimized" else 0
            # Equal counts can also come from another ratio that reserves more down ports per leaf
            # and so spreads the hosts differently: the hosts seen per leaf break that tie.
            spread_off = _spread_off(plan, resolved, seen_spread) if score == 0 else 0
            scored.append((score, su_off, spread_off, len(scored), cand, template, r))
            if score == 0 and su_off == 0 and spread_off == 0:
                break
        if scored and scored[-1][:3] == (0, 0, 0):
            break
    best: tuple[int, FabricDesign, Derived, Template, float] | None = None
    # Leaves that each serve one HCA index are rails: that is the template, whatever absent
    # devices do to the counts (another template can match a damaged capture's counts better).
    first = (lambda c: c[5] != "rail-optimized") if rails_clean else (lambda c: False)  # noqa: E731
    for score, _, _, _, cand, template, r in sorted(scored, key=lambda c: (first(c), *c[:4])):
        try:
            best = (score, cand, derive(cand, catalog), template, r)
            break
        except (ValueError, KeyError):
            continue
    if best is None:
        inf.problems.append("no catalog design fits the capture's counts")
        return inf
    score, inf.design, inf.derived, template, r = best
    inf.exact = score == 0
    total = sum(observed) or 1
    if score == 0:
        conf, why = "high", "the candidate whose switch and link counts equal the capture's"
    elif template == "rail-optimized" and rails_clean and single >= 0.9 * len(leaves_with):
        # The rails say rail-optimized; a few absent devices or links do not change that.
        conf, why = "high", (f"rails read from the HCA index; the closest sizing differs from the capture by {score} "
                             "switches or links (absent devices and missing links, listed by the audit)")
    else:
        conf, why = ("medium" if score <= 0.1 * total else "low",
                     f"closest candidate; {score} switches or links differ from the capture")
    facts.append(Inferred("template", template, conf, why))
    if tiers == 2 and tier_sizes["spine"] and leaf_up:
        parallel = _mode(pair_links.values(), 1)
        seen = tier_sizes["spine"] - gaps
        facts.append(Inferred("spines", f"{tier_sizes['spine']}, {parallel} link(s) from each leaf to each",
                              "high" if inf.derived.plan.spines == tier_sizes["spine"] else "medium",
                              f"{seen} spines seen" + (f" and {gaps} missing from their numbering" if gaps else "")
                              + f"; {up} uplinks on most leaves"))
    facts.append(Inferred("leaf oversubscription", f"{r:g}:1", "medium",
                          f"{nodes_per_su} host ports and {up} uplinks on most leaves"))
    inf._fabric = fabric               # placed on the inferred design when first asked (placed())
    return inf


def _planes(fabric: AsBuilt, roles: dict[str, str], role_codes: np.ndarray | None = None) -> int:
    """Independent planes: switch groups linked among themselves and not to each other, each
    with the same numbers of leaves, spines and cores (else 1). `role_codes`: the roles as
    inference_counts numbers them, when known."""
    ends = link_ends(fabric)
    if ends is not None:
        # On arrays: each switch takes the lowest label of its component, passed along the links
        # between switches until none changes (a few rounds: a fabric's diameter).
        codes = role_codes[:-1] if role_codes is not None else _tier_codes(ends.ids, roles)
        tier = np.where(codes <= CORE, codes, 0).astype(np.int64) * (device_table(fabric).kind == KIND_SWITCH)
        between = (tier[ends.a] > 0) & (tier[ends.b] > 0)
        a, b = ends.a[between], ends.b[between]
        label = np.arange(len(tier))
        while True:
            low = np.minimum(label[a], label[b])
            before = label.copy()
            np.minimum.at(label, a, low)
            np.minimum.at(label, b, low)
            label = label[label]
            if np.array_equal(label, before):
                break
        switch = np.flatnonzero(tier > 0)
        groups, group = np.unique(label[switch], return_inverse=True)
        shape = np.zeros((len(groups), 4), dtype=np.int64)
        np.add.at(shape, (group, tier[switch]), 1)
        with_leaves = shape[shape[:, 1] > 0]
        if len(with_leaves) > 1 and (with_leaves == with_leaves[0]).all():
            return len(with_leaves)
        return 1
    parent: dict[str, str] = {d.id: d.id for d in fabric.switches() if roles.get(d.id) in ROLES}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for w in fabric.links:
        if w.a in parent and w.b in parent:
            parent[find(w.a)] = find(w.b)
    shapes: dict[str, Counter[str]] = defaultdict(Counter)
    for sw in parent:
        shapes[find(sw)][roles[sw]] += 1
    planes = [s for s in shapes.values() if s["leaf"]]
    if len(planes) > 1 and all(s == planes[0] for s in planes):
        return len(planes)
    return 1


def _tier_codes(ids: list[str], roles: dict[str, str]) -> np.ndarray:
    """Per device of `ids`: 1 leaf, 2 spine, 3 core, 0 any other role."""
    code = {"leaf": 1, "spine": 2, "core": 3}
    return np.array([code.get(roles.get(d, ""), 0) for d in ids], dtype=np.int64)


def _numbering_gaps(switches: Sequence[SwitchFacts]) -> int:
    """How many numbers are missing from switch names numbered alike (spine-1 .. spine-9 without
    spine-4: 1); 0 when the names do not number them so."""
    stems: set[str] = set()
    nums: list[int] = []
    for d in switches:
        found = re.findall(r"\d+", d.name, re.ASCII)
        if not found:
            return 0
        nums.append(int(found[-1]))
        stems.add(re.sub(r"\d+", "#", d.name))
    if len(stems) != 1 or len(set(nums)) != len(nums) or not nums:
        return 0
    count = max(nums) + (1 if min(nums) == 0 else 0)
    missing = count - len(nums)
    return missing if 0 < missing <= max(1, len(nums) // 4) else 0


def _spread_off(plan: Plan, resolved: Resolved, seen: list[int]) -> int:
    """How far the candidate's hosts per leaf (sorted, all planes) are from the capture's."""
    per_leaf = Counter(leaf for leaf, _ in leaf_assignment(plan, resolved.rails))
    planned = sorted([per_leaf.get(i, 0) for i in range(plan.leaves)] * resolved.planes)
    if len(planned) != len(seen):
        return abs(len(planned) - len(seen)) * max(plan.leaf_down, 1)
    return sum(abs(a - b) for a, b in zip(planned, seen, strict=True))


def _planned_counts(resolved: Resolved, plan: Plan) -> tuple[int, ...]:
    """(leaves, spines, cores, host links, leaf-spine links, spine-core links) of a sized design,
    all planes: the counts its metrics report, read off the plan without building anything."""
    p = resolved.planes
    links = closed_form.links_by_tier(plan, resolved)
    return (plan.leaves * p, plan.spines * p, plan.cores * p, links.get("node-leaf", 0),
            links.get("leaf-spine", 0), links.get("spine-core", 0))


def _switch_model(switches: Sequence[SwitchFacts], catalog: Catalog, gbps: int) -> tuple[str | None, str, str]:
    """(catalog id, confidence, why) from part numbers, else device ids, else the largest switch."""
    parts = Counter(d.part for d in switches if d.part)
    ib = [s for s in catalog.switches.values() if s.family == "infiniband"] if hasattr(catalog, "switches") else []
    for part, n in parts.most_common():
        for s in ib:
            pn = (s.part_number or "").upper()
            if pn and (pn.startswith(part.upper()) or part.upper().startswith(pn[:6])):
                exact = pn.split("-")[0] == part.upper()
                return s.id, "high" if exact else "medium", (
                    f"{n} switch descriptions name part {part}" + ("" if exact else f", nearest catalog part {pn}"))
    # Without a part number, the chip's PCI device id names the switch family.
    ids = device_ids()
    for devid, n in Counter(d.devid for d in switches if d.devid).most_common():
        known = ids.by_devid(devid)
        if known is None or known.kind != "switch":
            continue
        on_chip = [c for c in known.catalog if c in getattr(catalog, "switches", {})]
        if on_chip:
            return on_chip[0], "medium", (f"{n} switches report devid 0x{devid:04x} ({known.name}); catalog parts "
                                          f"on that chip: {', '.join(on_chip)}")
    # An end-of-life switch runs the slower rates too, but a capture at those rates is of its
    # own generation (an SDR ISR9024 is no FDR SX6036): it is the guess only at its own top rate.
    fits = [s for s in ib if s.ports_at(gbps) and (s.status != "end-of-life" or s.max_gbps == gbps)]
    if fits:
        s = max(fits, key=lambda s: s.ports_at(gbps))
        return s.id, "low", f"no known part number in the switch descriptions; the largest {gbps}G catalog switch"
    return None, "low", f"no catalog InfiniBand switch offers {gbps}G ports"


def _generations(switches: Sequence[SwitchFacts], catalog: Catalog) -> Counter[str]:
    """Switches per generation (QDR, FDR, EDR ...), read from the device ids the catalog knows."""
    ids = device_ids()
    out: Counter[str] = Counter()
    for devid, n in Counter(d.devid for d in switches).items():     # a few parts among 20,000 switches
        known = ids.by_devid(devid) if devid else None
        parts = [catalog.switches[c] for c in (known.catalog if known else ()) if c in catalog.switches]
        if parts and parts[0].generation:
            out[parts[0].generation] += n
    return out


def _core_generation(by_tier: dict[str, list[SwitchFacts]], catalog: Catalog) -> tuple[str, Technology, str] | None:
    """(generation, technology, catalog switch) of the top tier's switches, by their device ids:
    the generation a fabric of two was built around. None when the top tier is itself mixed or
    no catalog technology has its generation."""
    top = by_tier["core"] or by_tier["spine"] or by_tier["leaf"]
    gens = _generations(top, catalog)
    if len(gens) != 1:
        return None
    generation = next(iter(gens))
    techs = [t for t in catalog.technologies.values() if t.family == "infiniband" and t.generation == generation]
    if not techs:
        return None
    ids = device_ids()
    parts = [c for d in top for known in (ids.by_devid(d.devid) if d.devid else None,) if known
             for c in known.catalog if c in techs[0].switch_options]
    return generation, techs[0], parts[0] if parts else techs[0].default_switch


def _candidate(name: str, server: ClusterSpec, ports: int, link: int, uplink: int, switch_id: str, template: Template,
               tiers: int, nodes_per_su: int, ratio: float, servers: int, counts: bool, tier_sizes: dict[str, int],
               family: str = "infiniband", planes: int = 1) -> FabricDesign:
    cluster = dataclasses.replace(server, servers=max(1, servers))

    # Tier counts are per plane.
    def tier(r: str, over: float = 1.0) -> TierSpec:
        return TierSpec(count=tier_sizes[r] // planes if counts and tier_sizes[r] else None, oversubscription=over)

    fabric = FabricSpec(template=template, technology=_technology(link, uplink, family), switch=switch_id,
                        link_gbps=None, uplink_gbps=uplink if uplink != link else None, tiers=tiers,
                        nodes_per_su=max(1, nodes_per_su),
                        leaf=TierSpec(count=tier_sizes["leaf"] // planes if counts and template != "rail-optimized"
                                      else None, oversubscription=ratio),
                        spine=tier("spine"), core=tier("core") if tiers == 3 else TierSpec(), planes=planes)
    if server.port_gbps is None and link:
        fabric = dataclasses.replace(fabric, link_gbps=None)
    return FabricDesign(meta=Meta(name=name), cluster=cluster, fabric=fabric)


def _technology(gbps: int, uplink: int = 0, family: str = "infiniband") -> str:
    if family == "ethernet":
        return "roce-800g" if gbps == 400 and uplink == 800 else "roce-400g"
    # Older generations (resources/catalog/infiniband_older.toml): QDR and FDR10 both run 40G.
    return {800: "ib-xdr", 400: "ib-ndr", 200: "ib-ndr", 100: "ib-edr", 56: "ib-fdr", 40: "ib-qdr",
            10: "ib-sdr"}.get(gbps, "ib-ndr")


_MODEL = re.compile(r"\b[A-Z]{1,4}\d{3,5}[A-Z]?\b")


def _model_names(switch: Switch) -> set[str]:
    """Model names a system description may carry for a catalog switch (SN5600, QM9700)."""
    text = f"{switch.name} {switch.part_number or ''} {switch.id}".upper()
    return set(_MODEL.findall(text))


def _ethernet_switch_model(switches: Sequence[SwitchFacts], catalog: Catalog,
                           gbps: int) -> tuple[str | None, str, str, str]:
    """(catalog id, confidence, why, unrecognised descriptions) from the system descriptions that
    LLDP neighbours report (`... running on Mellanox SN5600`, `HwSku: Mellanox-SN5600-...`)."""
    eth: list[Switch] = [s for s in getattr(catalog, "switches", {}).values() if s.family == "ethernet"]
    found: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for d in switches:
        text = (d.description or "").upper()
        hits = [s.id for s in eth for m in _model_names(s) if re.search(rf"(?<![A-Z0-9])M?{m}(?![0-9])", text)]
        if hits:
            found[hits[0]] += 1
        else:
            unknown[d.description.strip() or "no system description"] += 1
    named = ", ".join(f"{n} x '{t[:80]}'" for t, n in unknown.most_common(3))
    if found:
        sid, n = found.most_common(1)[0]
        why = f"{n} of {len(switches)} switches describe themselves as {sid} (LLDP system description)"
        why += f"; unrecognised: {named}" if unknown else ""
        return sid, "high" if n == len(switches) else "medium", why, ""
    fits = [s for s in eth if s.ports_at(gbps)]
    if not fits:
        return None, "low", f"no catalog Ethernet switch offers {gbps}G ports; switches report {named}", named
    s = max(fits, key=lambda s: s.ports_at(gbps))
    return s.id, "low", (f"no catalog model in the LLDP system descriptions ({named}); "
                         f"assumed the largest {gbps}G catalog Ethernet switch"), named


def map_devices(fabric: AsBuilt, roles: dict[str, str], derived: Derived) -> dict[str, str]:
    """As-built device id -> design node id, placed by where devices are cabled (capture_mapping)."""
    return place(fabric, roles, design_view(derived)).mapping
