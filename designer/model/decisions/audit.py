"""As built against as designed: every missing, extra, miswired or degraded link, and its effect.

Devices are matched by name: switches by their host name (the design's device ids, `leaf-3`,
`p2.spine-1`), host ports by `<host> mlx5_<n>` with the host named by the node-name pattern
(`gpu-node-{n:04d}` by default, as the exporters write it). Links are compared per pair of
devices, so a cable moved to another port of the right switch is not a finding, while one
that reaches the wrong switch is:
- missing: a pair with fewer links than designed (a leaf-spine pair short of the others);
- extra: a pair with more links than designed;
- miswired: an extra link and a missing link that share one end, with the other ends of the
  same role (the wrong rail, SU or spine), reported as one finding with both;
- degraded: a designed link that runs below the design's speed (width or rate);
- missing devices, and devices with default or no names.
The effect is measured on the as-built fabric: the design with the differences applied as
edits, whose metrics come from its graph (max-flow bisection).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from designer.catalog import Catalog
from designer.model.intent.design import Edit, FabricDesign
from designer.model.performance.collective_costs import CollectiveError
from designer.model.performance.collectives import estimate
from designer.model.topology.as_built import AsBuilt
from designer.model.topology.derive import derive

DEFAULT_PATTERN = "gpu-node-{n:04d}"


def host_name(pattern: str, server: int) -> str:
    return pattern.format(n=server + 1)


@dataclass
class Audit:
    inferred: dict
    missing_devices: list = field(default_factory=list)
    missing_links: list = field(default_factory=list)
    extra_links: list = field(default_factory=list)
    miswired: list = field(default_factory=list)
    degraded_links: list = field(default_factory=list)
    unnamed_devices: list = field(default_factory=list)
    extra_devices: list = field(default_factory=list)
    impact: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    as_built: FabricDesign | None = None

    def to_json(self) -> dict:
        return {"inferred": self.inferred, "missing_devices": self.missing_devices,
                "missing_links": self.missing_links, "extra_links": self.extra_links, "miswired": self.miswired,
                "degraded_links": self.degraded_links, "unnamed_devices": self.unnamed_devices,
                "extra_devices": self.extra_devices, "impact": self.impact, "notes": self.notes}

    @property
    def findings(self) -> int:
        return sum(len(x) for x in (self.missing_devices, self.missing_links, self.extra_links, self.miswired,
                                    self.degraded_links, self.unnamed_devices))


def _names(design_graph, pattern: str) -> dict[str, str]:
    """Design node id -> the name the device has in a capture."""
    out = {}
    for node, d in design_graph.nodes(data=True):
        out[node] = f"{host_name(pattern, d['server'])} mlx5_{d['port']}" if d["role"] == "nic" else node
    return out


def _place(d: dict) -> dict:
    place = {"tier": d["role"]}
    if d.get("plane") is not None:
        place["plane"] = d["plane"] + 1
    if d.get("pod", -1) >= 0 and d["role"] in ("leaf", "nic", "spine"):
        place["su_or_pod"] = d["pod"] + 1
    if d.get("rail", -1) >= 0:
        place["rail"] = d["rail"] + 1
    return place


def audit(design: FabricDesign, asb: AsBuilt, catalog: Catalog, pattern: str = DEFAULT_PATTERN,
          inferred: dict | None = None) -> Audit:
    derived = derive(design, catalog)
    g = derived.graph
    name = _names(g, pattern)
    back = {v: k for k, v in name.items()}
    place = {name[v]: _place(d) for v, d in g.nodes(data=True)}
    result = Audit(inferred or {})

    def end(device: str, port: int | None = None) -> dict:
        out = {"device": device, "place": place.get(device, {"tier": "unknown"})}
        if port is not None:
            out["port"] = port
        return out

    built = asb.devices
    for v in g.nodes:
        if name[v] not in built:
            result.missing_devices.append(end(name[v]))
    result.unnamed_devices = [{"device": n, "description": d.description} for n, d in built.items()
                              if d.default_named]
    result.extra_devices = [{"device": n, "description": d.description} for n, d in built.items()
                            if n not in back and not d.default_named]

    def key(a: str, b: str) -> tuple[str, str]:
        return (a, b) if a <= b else (b, a)

    want: Counter = Counter()
    speed: dict = {}
    for u, v, d in g.edges(data=True):
        k = key(name[u], name[v])
        want[k] += 1
        speed[k] = d["gbps"]
    have: Counter = Counter()
    found_ports: dict = {}
    for link in asb.links:
        k = key(link.a, link.b)
        have[k] += 1
        found_ports.setdefault(k, []).append(link)
    missing = want - have
    extra = have - want
    # Degraded: designed pairs whose links run below the design's speed.
    for k, links in found_ports.items():
        if k in want:
            for link in links:
                if link.gbps + 1e-9 < speed[k]:
                    result.degraded_links.append({"a": end(link.a, link.pa), "b": end(link.b, link.pb),
                                                  "designed_gbps": speed[k], "built_gbps": link.gbps,
                                                  "label": link.label})
    # Miswired: an extra and a missing link sharing one end, the other ends of the same role.
    for xk in list(extra):
        for mk in list(missing):
            if extra[xk] <= 0 or missing[mk] <= 0:
                continue
            shared = set(xk) & set(mk)
            if len(shared) != 1:
                continue
            s = shared.pop()
            got = next(x for x in xk if x != s) if xk[0] != xk[1] else s
            expected = next(x for x in mk if x != s) if mk[0] != mk[1] else s
            if place.get(got, {}).get("tier") != place.get(expected, {}).get("tier"):
                continue
            n = min(extra[xk], missing[mk])
            why = [w for w in ("plane", "su_or_pod", "rail") if place.get(got, {}).get(w) != place.get(expected, {}).get(w)]
            ports = [(l.pa, l.pb) if l.a == s else (l.pb, l.pa) for l in found_ports.get(xk, [])][:1]
            result.miswired.append({"end": end(s, ports[0][0] if ports else None),
                                    "found": end(got, ports[0][1] if ports else None), "expected": end(expected),
                                    "count": n, "wrong": why or ["port block"]})
            extra[xk] -= n
            missing[mk] -= n
    for k, n in (+missing).items():
        result.missing_links.append({"a": end(k[0]), "b": end(k[1]), "count": n, "gbps": speed.get(k)})
    for k, n in (+extra).items():
        links = found_ports.get(k, [])[:1]
        l = links[0] if links else None
        result.extra_links.append({"a": end(k[0], l.pa if l and l.a == k[0] else (l.pb if l else None)),
                                   "b": end(k[1], l.pb if l and l.b == k[1] else (l.pa if l else None)),
                                   "count": n})
    result.as_built, result.impact = _impact(design, derived, result, back, catalog)
    return result


def _impact(design: FabricDesign, derived, result: Audit, back: dict, catalog: Catalog):
    """The design with the differences applied as edits, and what they cost in bandwidth and time."""
    edits = [Edit("remove-device", back[m["device"]]) for m in result.missing_devices if m["device"] in back]
    gone = {e.a for e in edits}
    for m in result.missing_links:
        a, b = back.get(m["a"]["device"]), back.get(m["b"]["device"])
        if a and b and a not in gone and b not in gone:
            edits.append(Edit("remove-links", a, b, m["count"]))
    for m in result.miswired:
        s, exp, got = (back.get(m[k]["device"]) for k in ("end", "expected", "found"))
        if s and exp and got and not {s, exp, got} & gone:
            edits += [Edit("remove-links", s, exp, m["count"]), Edit("add-links", s, got, m["count"])]
    for x in result.extra_links:
        a, b = back.get(x["a"]["device"]), back.get(x["b"]["device"])
        if a and b and a != b and not {a, b} & gone:
            edits.append(Edit("add-links", a, b, x["count"]))
    before = derived.metrics
    impact = {"edits": len(edits), "bisection_gbps_designed": before.bisection_gbps}
    if not edits:
        impact.update(bisection_gbps_built=before.bisection_gbps, bisection_ratio_built=before.bisection_ratio)
        return design, impact
    built = replace(design, edits=tuple(design.edits) + tuple(edits))
    after = derive(built, catalog).metrics
    worst = {t: after.oversubscription(t) for t in after.ports_by_tier}
    impact.update(bisection_gbps_built=after.bisection_gbps,
                  bisection_ratio_built=after.bisection_gbps / before.full_bisection_gbps
                  if before.full_bisection_gbps else 0.0,
                  oversubscription_worst_built=worst, gpus_reachable=after.gpus)
    try:
        impact["allreduce_1GiB_us_designed"] = estimate(derived, "allreduce", 1 << 30).time_us
        ratio = after.bisection_gbps / before.bisection_gbps if before.bisection_gbps else 1.0
        impact["allreduce_1GiB_us_built_estimate"] = impact["allreduce_1GiB_us_designed"] / max(min(ratio, 1.0), 1e-9)
        impact["collective_method"] = ("the designed estimate scaled by the as-built bisection (a bound for "
                                       "traffic that crosses the fabric; within an SU it may be less)")
    except CollectiveError:
        pass
    return built, impact


def audit_without_design(asb: AsBuilt, facts=(), reason: str = "") -> Audit:
    """What a capture shows on its own when no design fits it: links slower than the fabric's
    usual rate for their kind, unnamed devices, and the notes of the import."""
    from designer.model.topology.as_built import roles_of

    roles = roles_of(asb)
    result = Audit({"design": None, "reason": reason,
                    "facts": [{"what": w, "value": v, "confidence": c, "why": y} for w, v, c, y in facts]})
    kind = {}
    for link in asb.links:
        if link.a == link.b:
            result.extra_links.append({"a": {"device": link.a, "port": link.pa, "place": {"tier": roles.get(link.a)}},
                                       "b": {"device": link.b, "port": link.pb, "place": {"tier": roles.get(link.b)}},
                                       "count": 1, "why": "a switch cabled to itself"})
            continue
        kind.setdefault(tuple(sorted((roles.get(link.a, "?"), roles.get(link.b, "?")))), []).append(link)
    for links in kind.values():
        counts = Counter(l.gbps for l in links)
        usual = max(counts, key=lambda rate: (counts[rate], rate))   # the commonest rate; on a tie the faster
        for link in links:
            if link.gbps + 1e-9 < usual:
                result.degraded_links.append({"a": {"device": link.a, "port": link.pa, "place": {"tier": roles.get(link.a)}},
                                              "b": {"device": link.b, "port": link.pb, "place": {"tier": roles.get(link.b)}},
                                              "designed_gbps": usual, "built_gbps": link.gbps, "label": link.label,
                                              "basis": "the usual rate of this kind of link in the capture"})
    result.unnamed_devices = [{"device": n, "description": d.description} for n, d in asb.devices.items()
                              if d.default_named]
    result.notes.append("no catalog design fits this capture, so only what it shows on its own is reported")
    return result
