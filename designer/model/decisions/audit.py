"""Audit: the fabric as built against a design (the inferred one or the user's).

Links are compared as multisets of device pairs after mapping as-built devices onto design
devices (inference.map_devices). A designed pair with fewer links than designed gives missing
links; a pair that is not designed gives extra links; an extra link that shares one end with a
missing link is a miswired cable (wrong rail, wrong SU, wrong switch). Degraded links run below
the designed rate or width. The impact is measured on the as-built graph: the design plus the
differences as edits.
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from designer.catalog import Catalog, default_catalog
from designer.model.common.units import bandwidth_label, duration_label, ratio_label
from designer.model.intent.design import MAX_EDITS, Edit, FabricDesign
from designer.model.performance.collectives import estimate
from designer.model.topology.asbuilt import AsBuilt, Link
from designer.model.topology.derive import Derived, derive
from designer.model.topology.inference import Inference, assign_roles, map_devices

if TYPE_CHECKING:
    import networkx as nx

_LEVEL = {"nic": 0, "leaf": 1, "spine": 2, "core": 3}
KEYS = ("inferred", "missing_devices", "missing_links", "extra_links", "miswired", "degraded_links",
        "unnamed_devices", "impact")


@dataclass
class AuditReport:
    inferred: dict[str, Any]
    missing_devices: list[dict[str, Any]] = field(default_factory=list)
    missing_links: list[dict[str, Any]] = field(default_factory=list)
    extra_links: list[dict[str, Any]] = field(default_factory=list)
    miswired: list[dict[str, Any]] = field(default_factory=list)
    degraded_links: list[dict[str, Any]] = field(default_factory=list)
    unnamed_devices: list[dict[str, Any]] = field(default_factory=list)
    impact: dict[str, Any] = field(default_factory=dict)
    edits: tuple[Edit, ...] = ()          # the differences, as design edits

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in KEYS}

    def rows(self) -> list[tuple[str, dict[str, Any]]]:
        """(kind, entry) for every finding, in report order."""
        out: list[tuple[str, dict[str, Any]]] = []
        for key in KEYS[1:-1]:
            out += [(key, e) for e in getattr(self, key)]
        return out


def _place(g: nx.MultiGraph[str] | None, node: str | None) -> dict[str, Any]:
    if node is None or g is None or node not in g:
        return {"design_id": None, "tier": None, "su": None, "rail": None}
    d = g.nodes[node]
    role = d["role"]
    return {"design_id": node, "tier": "server" if role == "nic" else role,
            "su": d["pod"] + 1 if d.get("pod", -1) >= 0 and role in ("nic", "leaf") else None,
            "rail": d["rail"] + 1 if d.get("rail", -1) >= 0 else None}


def audit(fabric: AsBuilt, design: FabricDesign | None = None, inference: Inference | None = None,
          catalog: Catalog | None = None) -> AuditReport:
    """Compare `fabric` with `design` (or with the inference's design when none is given)."""
    catalog = catalog or default_catalog()
    devs = fabric.devices
    if design is not None:
        designed_fabric = derive(design, catalog)
        derived: Derived | None = designed_fabric
        roles = inference.roles if inference else assign_roles(fabric)
        mapping = map_devices(fabric, roles, designed_fabric)
    else:
        derived = inference.derived if inference else None
        roles = inference.roles if inference else assign_roles(fabric)
        mapping = inference.mapping if inference else {}
    report = AuditReport(inference.to_json() if inference else {"template": None, "facts": [], "problems": []})
    report.unnamed_devices = [{"device": d.name, "description": d.description, "id": d.id,
                               "tier": "server" if roles.get(d.id) == "nic" else roles.get(d.id)}
                              for d in devs.values() if d.default_named]
    g = derived.graph if derived else None

    def end(dev: str, port: int, node: str | None = None) -> dict[str, Any]:
        node = node if node is not None else mapping.get(dev)
        name = devs[dev].name if dev in devs else dev
        return {"device": name, "port": port, **_place(g, node)}

    built_links = [wire for wire in fabric.links
                   if roles.get(wire.a) != "aggregation" and roles.get(wire.b) != "aggregation"]
    for wire in built_links:
        if wire.a == wire.b:
            report.miswired.append({"a": end(wire.a, wire.pa), "b": end(wire.b, wire.pb),
                                    "reason": "switch cabled to itself"})
    if g is None or derived is None:   # no design to hold the capture against
        _degraded_by_mode(report, built_links, roles, end)
        return report

    designed: dict[frozenset[str], list[dict[str, Any]]] = defaultdict(list)
    for u, v, d in g.edges(data=True):
        designed[frozenset((u, v))].append(d)
    built: dict[frozenset[str], list[Link]] = defaultdict(list)
    unmapped = []
    for wire in built_links:
        if wire.a == wire.b:
            continue
        a, b = mapping.get(wire.a), mapping.get(wire.b)
        if a is None or b is None:
            unmapped.append(wire)
        else:
            built[frozenset((a, b))].append(wire)
    missing, extra = [], list(unmapped)
    for pair, want in designed.items():
        have = built.get(pair, [])
        for wire, d in zip(have, want, strict=False):   # the shorter side: the rest is missing or extra
            if wire.gbps and wire.gbps < d["gbps"] or 0 < wire.width < 4:
                report.degraded_links.append({"a": end(wire.a, wire.pa), "b": end(wire.b, wire.pb),
                                              "as_built": wire.label,
                                              "designed": f"{d['gbps']}G", "gbps": wire.gbps})
        if len(have) < len(want):
            for d in want[len(have):]:
                missing.append((pair, d, len(have), len(want)))
    for pair, have in built.items():
        extra += have[len(designed.get(pair, ())):]
    # An extra link that shares a device with a missing link is one cable in the wrong place.
    open_ends: dict[str, list[int]] = defaultdict(list)
    for i, (pair, _d, _, _) in enumerate(missing):
        for n in pair:
            open_ends[n].append(i)
    used_missing: set[int] = set()
    used_extra: set[int] = set()
    for j, wire in enumerate(extra):
        # Name the cable by its lower end (the HCA of a host link): that is the end to move.
        for dev in sorted((wire.a, wire.b), key=lambda x: _LEVEL.get(roles.get(x, ""), 9)):
            node = mapping.get(dev)
            cands = [i for i in open_ends.get(node, []) if i not in used_missing] if node else []
            if node and cands:
                i = cands[0]
                used_missing.add(i)
                used_extra.add(j)
                pair, d, _, _ = missing[i]
                other = next(iter(pair - {node}), node)
                built_other = wire.b if dev == wire.a else wire.a
                report.miswired.append({"a": end(dev, wire.pa if dev == wire.a else wire.pb),
                                        "b": end(built_other, wire.pb if dev == wire.a else wire.pa),
                                        "designed_peer": {"device": other, **_place(g, other)},
                                        "reason": _reason(g, other, mapping.get(built_other))})
                break
    named = {node: devs[dev].name for dev, node in mapping.items() if dev in devs}
    present = set(mapping.values())
    # A NIC port is seen only through its cable (LLDP lists no unplugged port, ibnetdiscover no
    # unplugged HCA), so a port absent from a server that is present is a missing link.
    nic_nodes = [n for n, d in g.nodes(data=True) if d["role"] == "nic"]
    seen_servers = {g.nodes[n]["server"] for n in nic_nodes if n in present}
    unplugged = {n for n in nic_nodes if n not in present and g.nodes[n]["server"] in seen_servers}
    absent: Counter[str] = Counter()
    for i, (pair, d, n_have, n_want) in enumerate(missing):
        if i in used_missing:
            continue
        gone = [n for n in pair if n not in present and n not in unplugged]
        if gone:                    # reported once, with its device
            absent[gone[0]] += 1
            continue
        lo, hi = d["a"], next(iter(pair - {d["a"]}), d["a"])
        report.missing_links.append({"a": {"device": named.get(lo, lo), "port": d["pa"], **_place(g, lo)},
                                     "b": {"device": named.get(hi, hi), "port": d["pb"], **_place(g, hi)},
                                     "tier": d["tier"], "pair_links": f"{n_have} of {n_want}"})
    for j, wire in enumerate(extra):
        if j not in used_extra:
            report.extra_links.append({"a": end(wire.a, wire.pa), "b": end(wire.b, wire.pb), "as_built": wire.label})
    report.missing_devices = [{"device": n, **_place(g, n), "links": absent[n]} for n in g.nodes
                              if n not in present and n not in unplugged]
    report.edits = _edits(report, mapping, fabric, unplugged)
    report.impact = _impact(derived, report.edits, catalog)
    return report


def _reason(g: nx.MultiGraph[str], designed: str, built: str | None) -> str:
    if built is None or built not in g:
        return "cabled to a device that is not in the design"
    a, b = g.nodes[designed], g.nodes[built]
    if a["role"] != b["role"]:
        return f"wrong tier: cabled to a {b['role']} instead of a {a['role']}"
    if a.get("rail", -1) >= 0 and a.get("rail") != b.get("rail"):
        return f"wrong rail: rail {b['rail'] + 1} instead of rail {a['rail'] + 1}"
    if a.get("pod", -1) != b.get("pod", -1):
        return f"wrong SU: SU {b['pod'] + 1} instead of SU {a['pod'] + 1}"
    return f"wrong switch: {built} instead of {designed}"


def _degraded_by_mode(report: AuditReport, links: list[Link], roles: dict[str, str],
                      end: Callable[[str, int], dict[str, Any]]) -> None:
    """Without a design, a link is degraded when it runs below the most common rate of its tier."""
    def tier_of(wire: Link) -> tuple[str, ...]:
        return tuple(sorted((roles.get(wire.a, ""), roles.get(wire.b, ""))))

    best: dict[tuple[str, ...], Counter[float]] = defaultdict(Counter)
    for wire in links:
        best[tier_of(wire)][wire.gbps] += 1
    for wire in links:
        mode = best[tier_of(wire)].most_common(1)[0][0]
        if wire.gbps < mode or 0 < wire.width < 4:
            report.degraded_links.append({"a": end(wire.a, wire.pa), "b": end(wire.b, wire.pb), "as_built": wire.label,
                                          "designed": f"{mode:g}G (most common in this tier)", "gbps": wire.gbps})


def _edits(report: AuditReport, mapping: dict[str, str], fabric: AsBuilt,
           unplugged: AbstractSet[str] = frozenset()) -> tuple[Edit, ...]:
    """The as-built fabric as edits on the design: removed devices and links, added links.

    A NIC port missing from its server (reported as a missing link) is removed with its link, as
    the capture shows it: the as-built design then has no port left without a cable.
    """
    edits = [Edit("remove-device", d["device"]) for d in report.missing_devices]
    gone = {d["device"] for d in report.missing_devices}
    edits += [Edit("remove-device", n) for n in sorted(unplugged)]
    gone |= set(unplugged)
    removed: Counter[tuple[str, str]] = Counter()
    for m in report.missing_links:
        a, b = m["a"]["design_id"], m["b"]["design_id"]
        if a not in gone and b not in gone:
            removed[(a, b)] += 1
    for m in report.miswired:
        if "designed_peer" in m and m["a"]["design_id"] and m["designed_peer"]["design_id"]:
            removed[(m["a"]["design_id"], m["designed_peer"]["design_id"])] += 1
    edits += [Edit("remove-links", a, b, n) for (a, b), n in removed.items()]
    added: Counter[tuple[str, str]] = Counter()
    for m in report.extra_links + [m for m in report.miswired if "designed_peer" in m]:
        a, b = m["a"]["design_id"], m["b"]["design_id"]
        # Two servers cabled to each other carry no fabric traffic: listed, not drawn into the fabric.
        if a and b and a != b and not (m["a"]["tier"] == m["b"]["tier"] == "server"):
            added[(a, b)] += 1
    edits += [Edit("add-links", a, b, n) for (a, b), n in added.items()]
    return tuple(edits)


def _impact(derived: Derived, edits: tuple[Edit, ...], catalog: Catalog) -> dict[str, Any]:
    design = derived.design
    if len(design.edits) + len(edits) > MAX_EDITS:
        m = derived.metrics
        return {"designed": {"bisection_gbps": m.bisection_gbps, "oversubscription_leaf": m.oversubscription("leaf"),
                             "links": m.links_total},
                "as_built_note": f"not measured: the capture differs from the design in {len(edits):,} places, "
                                 f"more than the {MAX_EDITS:,} edits a design holds"}
    # A fabric built as designed is the design: its metrics stay the closed-form ones.
    as_built = derive(dataclasses.replace(design, edits=design.edits + edits), catalog) if edits else derived
    out: dict[str, Any] = {}
    for label, d in (("designed", derived), ("as_built", as_built)):
        m = d.metrics
        out[label] = {"bisection_gbps": m.bisection_gbps,
                      "oversubscription_leaf": m.oversubscription("leaf"),
                      "links": m.links_total}
    worst = _worst_leaf(as_built)
    out["as_built"]["oversubscription_by_leaf"] = worst
    try:
        for label, d in (("designed", derived), ("as_built", as_built)):
            out[label]["allreduce_1GiB_us"] = estimate(d, "allreduce", 1 << 30).time_us
    except (ValueError, KeyError, ZeroDivisionError) as exc:  # reported, not fatal
        out["collective_note"] = f"no collective estimate: {exc}"
    return out


def _worst_leaf(derived: Derived) -> dict[str, Any]:
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


def impact_lines(impact: dict[str, Any]) -> list[str]:
    """The impact as the metrics are written (Tb/s, ratios, ms): 'Bisection: 108.8 Tb/s -> 92.8 Tb/s'."""
    designed, built = impact.get("designed", {}), impact.get("as_built", {})
    out = []
    for key, label, fmt in _IMPACT_LINES:
        if designed.get(key) is not None and built.get(key) is not None:
            out.append(f"{label}: {fmt(designed[key])} -> {fmt(built[key])}")
    if "as_built_note" in impact:
        out.append(f"As built: {impact['as_built_note']}")
    return out

