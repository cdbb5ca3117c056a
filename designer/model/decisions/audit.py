"""Audit: the fabric as built against a design (the inferred one or the user's).

Devices are placed on the design by where they are cabled (topology/capture_mapping.py), then
the capture is read against the design's wiring rule, in the order a technician works:

- host links: an HCA on the leaf port the rule gives its NIC is right; two HCAs each on the
  other's position are one swap (same server) or one pair of crossed cables (two servers); any
  other HCA off its position is one miswire, with the rule it breaks (rail, SU, leaf, port);
  a designed NIC with no HCA is a host port down when its server is there, else the server is
  absent. A default-named HCA is placed by its position and is never a miswire; one that no
  position explains is listed once as an unnamed HCA on its leaf port.
- switch links: compared per switch pair (leaf-spine ports are not part of the rule); fewer
  links than designed are missing uplinks, counted per lower switch; more are extra, and an
  extra link that shares its lower switch with a missing one is a miswired uplink.
- degraded links run below the designed rate or width.
- aggregation nodes and management HCAs are set apart, never findings.

The impact is measured on the as-built design: the design plus the differences as edits.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from designer.catalog import Catalog, default_catalog
from designer.model.common.units import bandwidth_label, duration_label, ratio_label
from designer.model.decisions.audit_compare import Held, select
from designer.model.decisions.audit_confidence import grade, missing_by_symmetry
from designer.model.decisions.audit_summary import summarise
from designer.model.decisions.audit_uplinks import LeafUplinks, own_uplink_rule, uplinks_of_pairs
from designer.model.intent.design import MAX_EDITS, Edit, FabricDesign
from designer.model.performance.collectives import estimate
from designer.model.topology.asbuilt import KIND_AGGREGATION, AsBuilt, Device, Link, device_table, natural_key
from designer.model.topology.capture_mapping import Placement, place
from designer.model.topology.derive import Derived, derive
from designer.model.topology.design_view import ANY_PORT, DesignView, design_view
from designer.model.topology.inference import Inference, InferenceJson, assign_roles
from designer.model.topology.server_evidence import at_card_rate

KEYS = ("inferred", "missing_devices", "missing_links", "extra_links", "miswired", "degraded_links",
        "unnamed_devices", "impact", "summary", "swapped", "set_apart")
# The finding lists, in the order a technician works through them.
FINDINGS = ("missing_devices", "missing_links", "swapped", "miswired", "extra_links", "degraded_links",
            "unnamed_devices")

# One finding, one summary or the impact: JSON objects whose keys differ by kind (the JSON
# output's stable keys); their values are strings, numbers, None and nested objects.
Json = dict[str, Any]
# (device id, its port) -> the finding's end: the device's name, port and design position.
EndOf = Callable[[str, int], Json]
# A host cable off its position: (design NIC, designed leaf, design leaf it is on or None).
Move = tuple[str, str, str | None]


@dataclass
class AuditReport:
    inferred: InferenceJson
    missing_devices: list[Json] = field(default_factory=list)
    missing_links: list[Json] = field(default_factory=list)
    extra_links: list[Json] = field(default_factory=list)
    miswired: list[Json] = field(default_factory=list)
    degraded_links: list[Json] = field(default_factory=list)
    unnamed_devices: list[Json] = field(default_factory=list)
    impact: Json = field(default_factory=dict)
    summary: Json = field(default_factory=dict)
    swapped: list[Json] = field(default_factory=list)     # swaps and crossed cables, one entry each
    set_apart: list[Json] = field(default_factory=list)   # aggregation nodes and management HCAs
    edits: tuple[Edit, ...] = ()          # the differences, as design edits

    def to_json(self) -> Json:
        return {k: getattr(self, k) for k in KEYS}

    def rows(self) -> list[tuple[str, Json]]:
        """(kind, entry) for every finding, in report order."""
        out: list[tuple[str, Json]] = []
        for key in FINDINGS:
            out += [(key, e) for e in getattr(self, key)]
        return out


def _place(g: DesignView | None, node: str | None) -> Json:
    if node is None or g is None or node not in g:
        return {"design_id": node if node and node.startswith("srv-") else None, "tier": None, "su": None,
                "rail": None}
    d = g.nodes[node]
    role = d["role"]
    return {"design_id": node, "tier": "server" if role == "nic" else role,
            "su": d["pod"] + 1 if d.get("pod", -1) >= 0 and role in ("nic", "leaf") else None,
            "rail": d["rail"] + 1 if d.get("rail", -1) >= 0 else None}


_INDEX = re.compile(r"(mlx\d_|HCA-)(\d+)\s*$")


def hca_label(description: str, host: str, device_id: str = "") -> str:
    """'dgx-01 HCA-5' -> 'HCA-5': the HCA's own part of its description; an LLDP host port
    ('srv-1:eth3') by its port name."""
    text = description.strip()
    own = text[len(host):].strip() if host and text.startswith(host) else text
    if not own and device_id.startswith(f"{host}:"):
        return device_id[len(host) + 1:]
    return own


def _sort_key(e: Json) -> tuple[int, list[int | str], int]:
    a = e.get("a", e)
    return (a.get("su") or 0, natural_key(str(a.get("device") or a.get("server") or "")), a.get("port") or 0)


def audit(fabric: AsBuilt, design: FabricDesign | None = None, inference: Inference | None = None,
          catalog: Catalog | None = None, one_by_one: bool = False) -> AuditReport:
    """Compare `fabric` with `design` (or with the inference's design when none is given).

    `one_by_one` reads every link as an object, the reference the comparison on arrays is held
    equal to (tests/test_audit_compare.py)."""
    catalog = catalog or default_catalog()
    devs = fabric.devices
    roles = inference.roles if inference else assign_roles(fabric)
    if design is not None:
        derived: Derived | None = derive(design, catalog)
    else:
        derived = inference.derived if inference else None
    report = AuditReport(inference.to_json() if inference else {"template": None, "facts": [], "problems": []})
    # The design as placing needs it: read off the plan for a template (no per-link graph).
    g = design_view(derived) if derived else None
    placed = inference.placed() if design is None and inference is not None else None
    placement = placed if placed is not None else (place(fabric, roles, g) if g is not None else Placement())
    mapping = placement.mapping
    management = set(placement.management)
    upper = {d for d, role in roles.items() if role in ("spine", "core")} if management else set()
    # Without management HCAs no link is read here: a 131,072-GPU capture has none, and 400,000 links.
    on_spine = {e for w in fabric.links for e, other in ((w.a, w.b), (w.b, w.a))
                if e in management and other in upper} if management else set()
    table = device_table(fabric)       # the devices as columns: 151,552 at 131K GPUs
    report.set_apart = ([{"device": table.name[k], "id": table.ids[k], "kind": "aggregation node"}
                         for k in np.flatnonzero(table.kind == KIND_AGGREGATION).tolist()
                         if roles.get(table.ids[k]) == "aggregation"]
                        + [{"device": devs[i].name, "id": i, "kind": "host HCA on a spine" if i in on_spine
                            else "management HCA"} for i in sorted(management)])
    aside = {e["id"] for e in report.set_apart}

    def end(dev: str, port: int, node: str | None = None) -> Json:
        node = node if node is not None else mapping.get(dev)
        name = devs[dev].name if dev in devs else dev
        return {"device": name, "port": port, **_place(g, node)}

    # Compared on arrays against a design, the links that differ read one by one; without a
    # design, on a simulator's rates or where the arrays cannot say, every link is.
    chosen = None if g is None or fabric.speeds_simulated or one_by_one else select(
        fabric, roles, g, placement, aside, own_rule=design is None)
    if chosen is not None:
        links, loops = [], chosen.self_loops
    else:
        links = [w for w in fabric.links if w.a not in aside and w.b not in aside]
        loops = [w for w in links if w.a == w.b]
        links = [w for w in links if w.a != w.b]
    for w in loops:
        report.miswired.append({"a": end(w.a, w.pa), "b": end(w.b, w.pb), "reason": "switch cabled to itself"})
    unplaced = {nic for nic, _, _ in placement.unplaced}
    for i in np.flatnonzero(table.default_named).tolist():
        d = devs[table.ids[i]]
        if d.id in aside:
            continue
        role = roles.get(d.id)
        entry: Json = {"device": d.name, "description": d.description, "id": d.id,
                 "tier": "server" if role == "nic" else role}
        if d.id in placement.attributed:
            design_server = placement.attributed[d.id]
            entry["attributed_to"] = mapping[d.id].split(".nic-")[0]
            entry["server"] = next((h for h, s in placement.server_of_host.items() if s == design_server),
                                   entry["attributed_to"])
            entry.update(_place(g, mapping[d.id]))
        elif d.id in unplaced:
            leaf, port = next((lf, p) for n, lf, p in placement.unplaced if n == d.id)
            entry["device"] = f"unnamed HCA on {devs[leaf].name} port {port}"
            entry["leaf"], entry["port"] = devs[leaf].name, port
        report.unnamed_devices.append(entry)
    if g is None or derived is None:        # g is read off derived: both or neither
        _degraded_by_mode(report, links, roles, end, {d.id: d.devid for d in fabric.endpoints()})
        report.missing_links = missing_by_symmetry(links, roles, {d: devs[d].name for d in devs})
        grade(report, None)
        report.summary = summarise(report, {}, {})
        if fabric.speeds_simulated:
            report.summary["link_speeds"] = SIMULATED_SPEEDS
        return report

    # A leaf's own uplink rule is read only against the inferred design: a design the user gives
    # says how every leaf is cabled, and a leaf cabled otherwise is a finding.
    own_rule: Counter[tuple[str, str]] | None = Counter() if design is None else None
    name_of = _NamesOf(mapping, devs)
    if chosen is not None:
        down_by_server, absent_nics, moves = _host_links(report, fabric, roles, g, mapping, placement,
                                                         chosen.host_wires, end, chosen.held)
        missing_pairs, absent_links = _switch_links(report, g, mapping, chosen.switch_wires, end, name_of,
                                                    chosen.pairs, chosen.uplinks, own_rule)
        da = g.arrays()
        absent_switches = [da.names[c] for c in np.flatnonzero(~da.nic & ~chosen.present).tolist()]
    else:
        nic_ids = {d for d, role in roles.items() if role == "nic"}          # sets: 400,000 links at 131K
        switch_ids = {d for d, role in roles.items() if role in ("leaf", "spine", "core")}
        host_wires = [w for w in links if w.a in nic_ids or w.b in nic_ids]
        switch_wires = [w for w in links if w.a in switch_ids and w.b in switch_ids]
        down_by_server, absent_nics, moves = _host_links(report, fabric, roles, g, mapping, placement, host_wires,
                                                         end)
        hosts_on = Counter(mapping.get(w.b if w.a in nic_ids else w.a) for w in host_wires)
        missing_pairs, absent_links = _switch_links(report, g, mapping, switch_wires, end, name_of, None, None,
                                                    own_rule, hosts_on)
        present = set(mapping.values())
        absent_switches = [n for n, d in g.nodes.items() if d["role"] != "nic" and n not in present]
    host_ports = Counter(leaf for _, leaf, _, _ in g.host_links) if absent_switches else Counter()
    report.missing_devices = [{"device": n, **_place(g, n), "links": absent_links[n] + host_ports[n],
                               "host_ports": host_ports[n], "uplinks": absent_links[n]} for n in absent_switches]
    absent_servers: dict[str, list[str]] = defaultdict(list)
    for n in absent_nics:
        absent_servers[n.split(".nic-")[0]].append(n)
    leaf_port = {nic: port for nic, _, port, _ in g.host_links} if absent_servers else {}
    for server, nics in sorted(absent_servers.items(), key=lambda t: natural_key(t[0])):
        report.missing_devices.append({"device": server, **_place(g, nics[0]), "design_id": server,
                                       "tier": "server", "rail": None, "links": len(nics), "ports": len(nics),
                                       "leaf_port": leaf_port.get(nics[0])})
    for key in FINDINGS:
        getattr(report, key).sort(key=_sort_key)
    # The HCAs behind an absent leaf are removed with it in the as-built design, as a port down
    # is: the capture shows no cable on them, and a NIC left without a link would read as a
    # design problem on a name the capture never gave.
    gone, counted = set(absent_switches), set(absent_nics)
    behind = [nic for nic, leaf, _, _ in g.host_links if leaf in gone and nic not in counted] if gone else []
    report.edits = _edits(report, missing_pairs, absent_switches, absent_nics + behind, down_by_server, moves,
                          own_rule)
    report.impact = _impact(derived, report.edits, catalog)
    if fabric.speeds_simulated:
        # A simulator's capture: its rates say nothing of the design's (ibsim knows nothing
        # faster than QDR), so a link is degraded against the others of its tier instead.
        report.degraded_links.clear()
        _degraded_by_mode(report, links, roles, end, {d.id: d.devid for d in fabric.endpoints()})
    report.summary = summarise(report, down_by_server, missing_pairs)
    template = next((f.confidence for f in inference.facts if f.subject == "template"), None) if inference else None
    grade(report, template if design is None else None)
    if fabric.speeds_simulated:
        report.summary["link_speeds"] = SIMULATED_SPEEDS
    return report


NO_DESIGNED_HOST_LINK = "more links than designed: the design has no link on this HCA"

SIMULATED_SPEEDS = ("link speeds came from a simulator, not the hardware: a link is degraded when it runs "
                    "below the others of its tier, not against the design's speed")


def _host_links(report: AuditReport, fabric: AsBuilt, roles: dict[str, str], g: DesignView, mapping: dict[str, str],
                placement: Placement, wires: list[Link], end: EndOf,
                held: Held | None = None) -> tuple[dict[str, list[str]], list[str], list[Move]]:
    """Host links against the wiring rule; returns (ports down by server, NICs of absent servers,
    moved cables). `wires` are every host link, or (with `held`, what the others hold) the links
    of the HCAs the comparison on arrays could not place as designed."""
    devs = fabric.devices
    designed_at, at_port = _DesignedAt(g), _AtPort(g)
    on_switch: dict[str, list[tuple[str, int, Link]]] = defaultdict(list)
    for w in wires:
        ra, rb = roles.get(w.a), roles.get(w.b)
        if ra == rb == "nic":
            a, b = end(w.a, w.pa), end(w.b, w.pb)
            report.miswired.append({"a": a, "b": b, "reason": "cabled to another server's HCA, not to a switch"})
            continue
        nic, sw, port = (w.a, w.b, w.pb) if ra == "nic" else (w.b, w.a, w.pa)
        on_switch[nic].append((sw, port, w))
    unplaced = {n for n, _, _ in placement.unplaced}
    misplaced: dict[str, tuple[str, int, Link]] = {}
    for nic, rows in on_switch.items():
        node = mapping.get(nic)
        if node is None:
            if nic in unplaced:
                continue            # listed once among the unnamed devices
            sw, port, w = rows[0]
            why = ("the host is not in the design" if devs[nic].host else "an HCA no position explains")
            report.extra_links.append({"a": end(nic, 1), "b": end(sw, port), "as_built": w.label, "reason": why})
            continue
        if node not in designed_at:
            # A design NIC whose host link an edit removed: each cable of its HCA is one more link
            # than the design has (the as-built edits add it back).
            for sw, port, w in rows:
                report.extra_links.append({"a": end(nic, 1), "b": end(sw, port), "as_built": w.label,
                                           "reason": NO_DESIGNED_HOST_LINK})
            continue
        leaf, port, gbps = designed_at[node]
        # An HCA placed by its leaf (an inferred design of one-HCA servers) is in place on any leaf.
        # Nearly every HCA has one cable, on its designed port: that is checked first. One placed
        # by its HCAs' names (a leaf of several HCAs per server) is in place on any port.
        first = rows[0]
        if mapping.get(first[0]) == leaf and (first[1] == port or port == ANY_PORT):
            ok: tuple[str, int, Link] | None = first
        else:
            ok = next(((sw, p, w) for sw, p, w in rows if (mapping.get(sw) == leaf and (
                p == port or port == ANY_PORT or nic in placement.any_port)) or (
                nic in placement.by_leaf and g.nodes.get(mapping.get(sw, ""), {}).get("role") == "leaf")), None)
        if ok is None:
            misplaced[nic] = ok = rows[0]
        sw, p, w = ok
        # A moved cable can run slow too; an older HCA at its own top rate is no fault.
        if (w.gbps and w.gbps < gbps and not at_card_rate(devs[nic].devid, w.gbps)) or 0 < w.width < 4:
            report.degraded_links.append({"a": end(nic, 1), "b": end(sw, p), "as_built": w.label,
                                          "designed": f"{gbps}G", "gbps": w.gbps})
    # An HCA that the capture lists without a cable to a switch is a port down, like one not listed.
    if held is None:
        node_hca = {node: nic for nic, node in mapping.items() if roles.get(nic) == "nic" and nic in on_switch}
        full = node_hca
        present_servers = {n.split(".nic-")[0] for n in node_hca}
        held = Held([n for n in designed_at if n not in node_hca],
                    lambda nic: nic.split(".nic-")[0] in present_servers, lambda: full)
    else:       # the HCAs judged here; each design NIC is held by one HCA at most
        node_hca = {mapping[nic]: nic for nic in on_switch if nic in mapping}
    paired: set[str] = set()
    # (NIC, designed leaf, leaf it is on or None): the moved cables, as edits for the impact
    moves: list[Move] = []
    for h, (sw, _, _) in misplaced.items():
        on = mapping.get(sw)
        moves.append((mapping[h], designed_at[mapping[h]][0], on if on and g.nodes[on]["role"] == "leaf" else None))
    for h1, (sw1, p1, _) in sorted(misplaced.items()):
        if h1 in paired:
            continue
        on1 = mapping.get(sw1)
        if h1 in placement.any_port:
            h2 = _leaf_partner(h1, on1, misplaced, paired, mapping, designed_at, g)
        else:
            n2 = at_port.get((on1, p1)) if on1 is not None else None
            h2 = node_hca.get(n2) if n2 else None
        if h2 is None or h2 in paired or h2 not in misplaced:
            continue
        sw2, p2, _ = misplaced[h2]
        leaf1, port1, _ = designed_at[mapping[h1]]
        if (mapping.get(sw2), p2 if h1 not in placement.any_port else port1) != (leaf1, port1):
            continue
        paired |= {h1, h2}
        d1, d2 = devs[h1], devs[h2]
        s1, s2 = mapping[h1].split(".nic-")[0], mapping[h2].split(".nic-")[0]
        host1 = d1.host or s1
        l1, l2 = sorted((hca_label(d1.name, d1.host, d1.id), hca_label(d2.name, d2.host, d2.id)), key=natural_key) \
            if s1 == s2 else (hca_label(d1.name, d1.host, d1.id), hca_label(d2.name, d2.host, d2.id))
        where = "leaves" if mapping.get(sw1) != mapping.get(sw2) else "ports"
        if s1 == s2:
            text = f"server {host1}: {l1} and {l2} are on each other's {where}"
            kind = "swap"
        else:
            text = f"servers {host1} and {d2.host or s2}: {l1} and {l2} are on each other's {where} (crossed cables)"
            kind = "crossed"
        report.swapped.append({"kind": kind, "a": end(h1, 1), "b": end(h2, 1), "server": host1, "labels": [l1, l2],
                               "a_on": end(sw1, p1), "b_on": end(sw2, p2), "reason": text})
    for h, (sw, p, _w) in sorted(misplaced.items()):
        if h in paired:
            continue
        leaf, port, _ = designed_at[mapping[h]]
        d = devs[h]
        want = leaf if port == ANY_PORT else f"{leaf} port {port}"
        report.miswired.append({"a": end(h, 1), "b": end(sw, p), "designed_peer": {"device": leaf,
                                                                                "port": port or None,
                                                                                **_place(g, leaf)},
                                "reason": f"{_reason(g, leaf, port, mapping.get(sw), p)}: "
                                          f"{hca_label(d.name, d.host, d.id)} of "
                                          f"{d.host or mapping[h].split('.nic-')[0]} belongs on {want}"})
    # Designed NICs without an HCA: a port down on a server that is there, else an absent server.
    down: dict[str, list[str]] = defaultdict(list)
    absent: list[str] = []
    unheld = sorted(held.unheld, key=natural_key)
    host_of = {mapping[n].split(".nic-")[0]: devs[n] for n in held.node_hca().values() if devs[n].host} \
        if unheld else {}
    present = set(mapping.values()) if unheld else set()
    in_use: dict[str, set[int]] = {}      # leaf -> its ports holding a cable, read when first asked
    # Only the designed NICs without an HCA are sorted: at 131K GPUs nearly all have one.
    for nic in unheld:
        server = nic.split(".nic-")[0]
        if designed_at[nic][0] not in present:
            continue                # counted with its absent leaf: nothing is seen behind it
        if held.present(nic):
            down[server].append(nic)
            leaf, port, gbps = designed_at[nic]
            other = host_of.get(server)
            name = _port_name(other, g.nodes[nic]["port"], placement) if other is not None else nic
            if (other is not None and other.id in placement.any_port) or port == ANY_PORT:
                # Its server's HCAs follow the site's port order, not the design's (or its link was
                # added by an edit, on no port): name a leaf port free in the capture, not one
                # another HCA holds.
                port = _free_port(fabric, mapping, leaf, port, in_use)
            report.missing_links.append({"a": {"device": name, "port": 1, **_place(g, nic)},
                                         "b": {"device": _built_name(mapping, devs, leaf), "port": port,
                                               **_place(g, leaf)},
                                         "tier": "node-leaf", "pair_links": "0 of 1", "reason": "host port down"})
        else:
            absent.append(nic)
    return down, absent, moves


class _DesignedAt(Mapping[str, tuple[str, int, int]]):
    """Design NIC -> (leaf, leaf port, rate) of its host link, read when first asked: a few HCAs
    are judged one by one at 131K GPUs, so a NIC is looked up by its row on the arrays."""

    def __init__(self, g: DesignView) -> None:
        self._g = g
        self._all: dict[str, tuple[str, int, int]] | None = None

    def _every(self) -> dict[str, tuple[str, int, int]]:
        if self._all is None:
            self._all = {nic: (leaf, port, gbps) for nic, leaf, port, gbps in self._g.host_links}
        return self._all

    def __getitem__(self, nic: str) -> tuple[str, int, int]:
        arrays = self._g.arrays_if_made()
        if self._all is None and arrays is not None and arrays.one_link_per_nic:
            code = arrays.code.get(nic)
            row = int(arrays.row_of[code]) if code is not None else -1
            if row < 0:
                raise KeyError(nic)
            _, leaf, port, gbps = self._g.host_links[row]
            return leaf, port, gbps
        return self._every()[nic]

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())


class _AtPort(Mapping[tuple[str, int], str]):
    """(leaf, leaf port) -> the design NIC there, made when first asked."""

    def __init__(self, g: DesignView) -> None:
        self._g = g
        self._all: dict[tuple[str, int], str] | None = None

    def _every(self) -> dict[tuple[str, int], str]:
        if self._all is None:
            self._all = {(leaf, port): nic for nic, leaf, port, _ in self._g.host_links}
        return self._all

    def __getitem__(self, key: tuple[str, int]) -> str:
        return self._every()[key]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())


class _NamesOf(Mapping[str, str]):
    """Design node -> the name of the capture device placed on it (the last placed), made when
    a finding first names one."""

    def __init__(self, mapping: dict[str, str], devs: Mapping[str, Device]) -> None:
        self._mapping, self._devs = mapping, devs
        self._all: dict[str, str] | None = None

    def _every(self) -> dict[str, str]:
        if self._all is None:
            self._all = {node: self._devs[dev].name for dev, node in self._mapping.items()}
        return self._all

    def __getitem__(self, node: str) -> str:
        return self._every()[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())


def _free_port(fabric: AsBuilt, mapping: dict[str, str], leaf: str, port: int, in_use: dict[str, set[int]]) -> int:
    """The design's leaf port when no cable holds it in the capture, else (or when the design names
    none, ANY_PORT) the lowest free one (taken, so two ports down are given two ports)."""
    built = next((d for d, n in mapping.items() if n == leaf), None)
    if built is None:
        return port
    if built not in in_use:
        in_use[built] = {p for w in fabric.links for d, p in ((w.a, w.pa), (w.b, w.pb)) if d == built}
    used = in_use[built]
    size = fabric.devices[built].ports
    if port in used or port == ANY_PORT:
        port = next((p for p in range(1, size + 1) if p not in used), port)
    used.add(port)
    return port


def _port_name(other: Device, rank: int, placement: Placement) -> str:
    """The name a server's HCA of rail `rank` would carry, in the style of its other HCAs."""
    index = next((i for i, r in placement.rank.items() if r == rank), rank)
    m = _INDEX.search(other.description.strip())
    if other.host and m:
        return f"{other.host} {m.group(1)}{index + 1 if m.group(1) == 'HCA-' else index}"
    return f"{other.host or other.name} port {rank + 1}"


def _built_name(mapping: dict[str, str], devs: Mapping[str, Device], node: str) -> str:
    for dev, n in mapping.items():
        if n == node:
            return devs[dev].name
    return node


def _switch_links(report: AuditReport, g: DesignView, mapping: dict[str, str], wires: list[Link], end: EndOf,
                  name_of: Mapping[str, str], pairs: Mapping[tuple[str, str], tuple[int, int, str]] | None,
                  uplinks: LeafUplinks | None, own_rule: Counter[tuple[str, str]] | None = None,
                  hosts_on: Counter[str | None] | None = None) -> tuple[Counter[tuple[str, str]], Counter[str]]:
    """Switch pairs against the design; returns (missing links per (lower, upper) pair, links of
    absent switches). `wires` and `pairs` are every switch link and designed pair, or those the
    comparison on arrays found to differ (with `uplinks`, its summary of the leaves' uplinks).
    `own_rule` receives, per pair of a leaf wired by its own rule, the links it has more (or,
    negative, fewer) than the design: no finding, but the fabric as built."""
    view_pairs = g.pairs if pairs is None else pairs
    designed: Counter[tuple[str, str]] = Counter({p: n for p, (n, _, _) in view_pairs.items()})
    rate: dict[tuple[str, str], int] = {p: gbps for p, (_, gbps, _) in view_pairs.items()}
    built: dict[tuple[str, str], list[Link]] = defaultdict(list)
    nodes = g.nodes
    for w in wires:
        a, b = mapping.get(w.a), mapping.get(w.b)
        if a is None or b is None:
            why = "a switch that is not in the design"
            report.extra_links.append({"a": end(w.a, w.pa), "b": end(w.b, w.pb), "as_built": w.label, "reason": why})
            continue
        lo, hi = (a, b) if nodes[a]["level"] <= nodes[b]["level"] else (b, a)
        built[(lo, hi)].append(w)
    present = set(mapping.values())
    if own_rule is not None and uplinks is None:
        uplinks = uplinks_of_pairs(designed, built, g, hosts_on or Counter(), present)
    own, notes = own_uplink_rule(uplinks, name_of) if own_rule is not None and uplinks is not None else ([], [])
    own_pairs: dict[str, list[tuple[str, str]]] = {leaf: [] for leaf in own}
    for pair_list in (list(designed), list(built)):     # each leaf's uplinks, designed first, then built
        for pair in pair_list:
            # an uplink only: a cable from the leaf to another leaf stays an extra link
            if pair[0] in own_pairs and nodes[pair[1]]["level"] > nodes[pair[0]]["level"]:
                own_pairs[pair[0]].append(pair)
    for leaf in own:
        # The leaf's uplinks as built are its rule: no missing, extra or moved uplink on it. One to
        # a switch the design does not pair it with is held to the leaf's designed uplink speed.
        speeds = [rate[p] for p in own_pairs[leaf] if p in rate]
        for pair in own_pairs[leaf]:
            if own_rule is not None and len(built.get(pair, [])) != designed[pair]:
                own_rule[pair] = len(built.get(pair, [])) - designed[pair]
            designed[pair] = len(built.get(pair, []))
            rate.setdefault(pair, max(speeds, default=0))
    if notes:
        report.inferred["facts"].append({
            "subject": "uplinks by design", "value": f"{len(notes)} leaves wired their own way",
            "confidence": "medium",
            "why": "; ".join(notes) + ": each spreads its uplinks evenly over the spines it "
                   "reaches, keeping them all or with no more hosts per uplink than the leaves wired as "
                   "the design says (fewer than designed only over three or more spines), so its "
                   "cabling is the site's rule for it, not missing or moved "
                   "cables (read against the inferred design only)"})
    absent_links: Counter[str] = Counter()
    missing: Counter[tuple[str, str]] = Counter()
    for pair, want in designed.items():
        have = built.get(pair, [])
        gone = [n for n in pair if n not in present]
        if gone:
            absent_links[gone[0]] += want
            continue
        for w in have[:want]:
            if (w.gbps and w.gbps < rate[pair]) or 0 < w.width < 4:
                a, b = (w.a, w.b) if mapping[w.a] == pair[0] else (w.b, w.a)
                pa, pb = (w.pa, w.pb) if a == w.a else (w.pb, w.pa)
                report.degraded_links.append({"a": end(a, pa), "b": end(b, pb), "as_built": w.label,
                                              "designed": f"{rate[pair]}G", "gbps": w.gbps})
        if len(have) < want:
            missing[pair] = want - len(have)
    extra = [(pair, w) for pair, have in built.items() for w in have[designed.get(pair, 0):]]
    # An extra link from a switch that misses one is one cable on the wrong port of the tier above.
    for pair, w in extra:
        lo, hi = pair
        wrong = next((p for p in sorted(missing) if p[0] == lo and missing[p] > 0), None)
        a, b = (w.a, w.b) if mapping[w.a] == lo else (w.b, w.a)
        pa, pb = (w.pa, w.pb) if a == w.a else (w.pb, w.pa)
        if wrong is not None and g.nodes[wrong[1]]["level"] == g.nodes[hi]["level"]:
            missing[wrong] -= 1
            report.miswired.append({"a": end(a, pa), "b": end(b, pb),
                                    "designed_peer": {"device": wrong[1], **_place(g, wrong[1])},
                                    "reason": f"wrong switch: cabled to {name_of.get(hi, hi)} instead of "
                                              f"{name_of.get(wrong[1], wrong[1])}"})
        else:
            report.extra_links.append({"a": end(a, pa), "b": end(b, pb), "as_built": w.label,
                                       "reason": "more links than designed between these switches"})
    for (lo, hi), n in sorted(missing.items()):
        for _ in range(n):
            report.missing_links.append({"a": {"device": name_of.get(lo, lo), "port": None, **_place(g, lo)},
                                         "b": {"device": name_of.get(hi, hi), "port": None, **_place(g, hi)},
                                         "tier": g.pairs[(lo, hi)][2] if (lo, hi) in g.pairs else "",
                                         "pair_links": f"{designed[(lo, hi)] - n} of {designed[(lo, hi)]}"})
    return +missing, absent_links


def _leaf_partner(h1: str, on1: str | None, misplaced: dict[str, tuple[str, int, Link]], paired: set[str],
                  mapping: dict[str, str], designed_at: Mapping[str, tuple[str, int, int]],
                  g: DesignView) -> str | None:
    """The HCA on the other end of a cross between two leaves whose ports carry no rule: one
    designed on the leaf h1 is on and on h1's designed leaf, the same NIC of its server first."""
    if on1 is None:
        return None
    leaf1 = designed_at[mapping[h1]][0]
    rank1 = g.nodes[mapping[h1]]["port"]
    found = [(g.nodes[mapping[h]]["port"] != rank1, h) for h, (sw, _, _) in sorted(misplaced.items())
             if h != h1 and h not in paired and designed_at[mapping[h]][0] == on1 and mapping.get(sw) == leaf1]
    return min(found)[1] if found else None


def _reason(g: DesignView, leaf: str, port: int, built_leaf: str | None, built_port: int) -> str:
    if built_leaf is None or built_leaf not in g:
        return "on a switch that is not in the design"
    a, b = g.nodes[leaf], g.nodes[built_leaf]
    if b["role"] != "leaf":
        return f"wrong tier: on a {b['role']}"
    if a.get("rail", -1) >= 0 and a.get("rail") != b.get("rail"):
        return f"wrong rail: on rail {b['rail'] + 1} instead of rail {a['rail'] + 1}"
    if a.get("pod", -1) != b.get("pod", -1):
        return f"wrong SU: on SU {b['pod'] + 1} instead of SU {a['pod'] + 1}"
    if leaf != built_leaf:
        return f"wrong leaf: on {built_leaf} instead of {leaf}"
    return f"wrong port: on port {built_port} instead of port {port}"


def _degraded_by_mode(report: AuditReport, links: list[Link], roles: dict[str, str], end: EndOf,
                      devid_of: dict[str, int]) -> None:
    """Without a design, a link is degraded when it runs below the most common rate of its tier."""
    def tier_of(wire: Link) -> tuple[str, ...]:
        return tuple(sorted((roles.get(wire.a, ""), roles.get(wire.b, ""))))

    best: dict[tuple[str, ...], Counter[float]] = defaultdict(Counter)
    for wire in links:
        best[tier_of(wire)][wire.gbps] += 1
    for wire in links:
        mode = best[tier_of(wire)].most_common(1)[0][0]
        card = wire.a if roles.get(wire.a) == "nic" else wire.b if roles.get(wire.b) == "nic" else ""
        if (wire.gbps < mode and not (card and at_card_rate(devid_of.get(card, 0), wire.gbps))) or 0 < wire.width < 4:
            report.degraded_links.append({"a": end(wire.a, wire.pa), "b": end(wire.b, wire.pb), "as_built": wire.label,
                                          "designed": f"{mode:g}G (most common in this tier)", "gbps": wire.gbps})


def _edits(report: AuditReport, missing_pairs: Mapping[tuple[str, str], int], absent_switches: list[str],
           absent_nics: list[str], down: dict[str, list[str]], moves: list[Move],
           own_rule: Mapping[tuple[str, str], int] | None = None) -> tuple[Edit, ...]:
    """The as-built fabric as edits on the design: removed devices and links, moved cables, and
    the uplinks of leaves wired by their own rule as they are.

    A NIC port down is removed with its link, as the capture shows it: the as-built design then
    has no port left without a cable.
    """
    edits = [Edit("remove-device", n) for n in absent_switches]
    edits += [Edit("remove-device", n) for n in absent_nics]
    edits += [Edit("remove-device", n) for nics in down.values() for n in nics]
    edits += [Edit("remove-links", lo, hi, n) for (lo, hi), n in sorted(missing_pairs.items())]
    removed: Counter[tuple[str, str]] = Counter()
    added: Counter[tuple[str, str]] = Counter()
    for nic, designed_leaf, built in moves:          # host cables off their position
        removed[(nic, designed_leaf)] += 1
        if built is not None:
            added[(nic, built)] += 1
    for m in report.miswired:                        # uplinks on the wrong switch
        if m["a"].get("tier") != "server" and "designed_peer" in m and m["a"]["design_id"]:
            removed[(m["a"]["design_id"], m["designed_peer"]["design_id"])] += 1
            added[(m["a"]["design_id"], m["b"]["design_id"])] += 1
    for m in report.extra_links:
        a, b = m["a"]["design_id"], m["b"]["design_id"]
        # Two servers cabled to each other carry no fabric traffic: listed, not drawn into the fabric.
        if a and b and a != b and not (m["a"]["tier"] == m["b"]["tier"] == "server"):
            added[(a, b)] += 1
    for (lo, hi), n in sorted((own_rule or {}).items()):
        (added if n > 0 else removed)[(lo, hi)] += abs(n)
    edits += [Edit("remove-links", a, b, n) for (a, b), n in removed.items()]
    edits += [Edit("add-links", a, b, n) for (a, b), n in added.items()]
    return tuple(edits)


def _impact(derived: Derived, edits: tuple[Edit, ...], catalog: Catalog) -> Json:
    design = derived.design
    if len(design.edits) + len(edits) > MAX_EDITS:
        m = derived.metrics
        return {"designed": {"bisection_gbps": m.bisection_gbps, "oversubscription_leaf": m.oversubscription("leaf"),
                             "links": m.links_total},
                "as_built_note": f"not measured: the capture differs from the design in {len(edits):,} places, "
                                 f"more than the {MAX_EDITS:,} edits a design holds"}
    # A fabric built as designed is the design: its metrics stay the closed-form ones.
    as_built = derive(dataclasses.replace(design, edits=design.edits + edits), catalog) if edits else derived
    out: Json = {}
    for label, d in (("designed", derived), ("as_built", as_built)):
        m = d.metrics
        out[label] = {"bisection_gbps": m.bisection_gbps,
                      "oversubscription_leaf": m.oversubscription("leaf"),
                      "links": m.links_total}
    worst = _worst_leaf(as_built) if edits else _worst_leaf_of_view(design_view(derived))
    out["as_built"]["oversubscription_by_leaf"] = worst
    try:
        for label, d in (("designed", derived), ("as_built", as_built)):
            out[label]["allreduce_1GiB_us"] = estimate(d, "allreduce", 1 << 30).time_us
    except (ValueError, KeyError, ZeroDivisionError) as exc:  # reported, not fatal
        out["collective_note"] = f"no collective estimate: {exc}"
    return out


def _worst_leaf_of_view(view: DesignView) -> dict[str, float | None]:
    """As `_worst_leaf`, for a design read off its plan (no graph), on its arrays."""
    da = view.arrays()
    n = len(da.names)
    down = np.bincount(da.host_leaf, weights=da.host_gbps, minlength=n)
    lo = da.pair_key[da.pair_leaf_spine] // max(1, n)
    up = np.bincount(lo, weights=(da.pair_links * da.pair_gbps)[da.pair_leaf_spine], minlength=n)
    leaves = np.flatnonzero(da.leaf)
    ratio = {da.names[c]: (round(d / u, 3) if u else None)
             for c, d, u in zip(leaves.tolist(), down[leaves].tolist(), up[leaves].tolist(), strict=True)}
    common = Counter(ratio.values()).most_common(1)[0][0] if ratio else None
    return {n: r for n, r in ratio.items() if r != common}


def _worst_leaf(derived: Derived) -> dict[str, float | None]:
    """Downlink:uplink bandwidth per leaf, as built, for the leaves that differ from the design."""
    g = derived.graph
    ratio: dict[str, float | None] = {}
    for n, d in g.nodes(data=True):
        if d["role"] != "leaf":
            continue
        down = sum(e["gbps"] for _, p, e in g.edges(n, data=True) if g.nodes[p]["level"] < 1)
        up = sum(e["gbps"] for _, p, e in g.edges(n, data=True) if g.nodes[p]["level"] > 1)
        ratio[n] = round(down / up, 3) if up else None
    common = Counter(ratio.values()).most_common(1)[0][0] if ratio else None
    return {n: r for n, r in ratio.items() if r != common}


_IMPACT_LINES = (("bisection_gbps", "Bisection", bandwidth_label), ("oversubscription_leaf", "Leaf oversubscription",
                 ratio_label), ("links", "Links", lambda n: f"{n:,}"),
                 ("allreduce_1GiB_us", "All-reduce of 1 GiB", duration_label))


def impact_lines(impact: Json) -> list[str]:
    """The impact as the metrics are written (Tb/s, ratios, ms): 'Bisection: 108.8 Tb/s -> 92.8 Tb/s'."""
    designed, built = impact.get("designed", {}), impact.get("as_built", {})
    out = []
    for key, label, fmt in _IMPACT_LINES:
        if designed.get(key) is not None and built.get(key) is not None:
            out.append(f"{label}: {fmt(designed[key])} -> {fmt(built[key])}")
    if "as_built_note" in impact:
        out.append(f"As built: {impact['as_built_note']}")
    return out

