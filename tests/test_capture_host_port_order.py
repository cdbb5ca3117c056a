"""Servers of several HCAs on one leaf (a leaf-spine of two-HCA servers): the design numbers a
server's HCAs side by side on the leaf, a site cables them in its own port order. Each host is
placed by what its HCAs are (their names), not by the ports they use, so the site's order is no
finding, while two servers' HCAs crossed between two leaves are found as crossed cables."""

from __future__ import annotations

import random
from pathlib import Path

from capture_factory import DEFAULT_HCA, Capture, make_capture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.io.fabric_capture import parse_capture, read_answer
from designer.model.decisions.audit import audit
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.asbuilt import AsBuilt
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from tests.helpers import examples

_DERIVED: dict[tuple[int, int], tuple[FabricDesign, object]] = {}


def _leaf_spine(servers: int, hcas: int):
    """A leaf-spine of `servers` servers with `hcas` 400G HCAs each, all on one leaf."""
    key = (servers, hcas)
    if key not in _DERIVED:
        design = FabricDesign(cluster=ClusterSpec(server="generic-8gpu", ports_per_server=hcas, port_gbps=400,
                                                  servers=servers),
                              fabric=FabricSpec(template="leaf-spine"))
        _DERIVED[key] = (design, derive(design))
    return _DERIVED[key]


def _findings(report) -> dict[str, int]:
    return {kind: len(getattr(report, kind)) for kind, _ in report.rows()}


def _moved_off_design_ports(fabric: AsBuilt, capture: Capture, derived) -> int:
    """How many HCAs the capture shows on another leaf port than the design gives them."""
    g = derived.graph
    by_name = {d.description: d.id for d in fabric.devices.values() if d.kind == "host"}
    port_of = {}                                    # HCA id -> the leaf port it is on
    for w in fabric.links:
        for hca, switch, port in ((w.a, w.b, w.pb), (w.b, w.a, w.pa)):
            if fabric.devices[hca].kind == "host" and fabric.devices[switch].kind == "switch":
                port_of[hca] = port
    moved = 0
    for nic, name in capture.names.items():
        if g.nodes[nic]["role"] != "nic" or name not in by_name:
            continue
        (leaf,) = g.neighbors(nic)
        data = g.edges[nic, leaf, 0]
        designed = data["pb"] if data["a"] == nic else data["pa"]
        moved += port_of.get(by_name[name]) != designed
    return moved


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([(40, 2), (20, 4)]), st.booleans())
def test_hosts_cabled_in_the_sites_port_order_give_no_finding(seed, shape, default_names):
    """The design's side-by-side ports, shuffled on every leaf; some HCAs with the vendor's
    default description (placed on a free NIC of their leaf): against the design and against
    the inferred one, the only findings are the unnamed HCAs, each attributed to a server."""
    design, derived = _leaf_spine(*shape)
    capture = make_capture(derived, seed, faults=False, shuffle_host_ports=True)
    text = capture.text
    defaulted = []
    if default_names:
        nics = sorted(n for n in capture.names if derived.graph.nodes[n]["role"] == "nic")
        defaulted = random.Random(seed).sample(nics, 1 + seed % 6)
        for nic in defaulted:
            text = text.replace(f'"{capture.names[nic]}"', f'"{DEFAULT_HCA}"')
    fabric = parse_capture(text, "site.topo")
    assert _moved_off_design_ports(fabric, capture, derived) > 0   # the capture is not the design's order
    inference = infer_design(fabric)
    assert inference.design is not None and inference.design.fabric.template == "leaf-spine"
    for against in (design, None):
        report = audit(fabric, design=against, inference=inference)
        assert _findings(report) == ({"unnamed_devices": len(defaulted)} if defaulted else {})
        assert all("attributed_to" in e for e in report.unnamed_devices)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([(40, 2), (20, 4)]), st.integers(1, 2))
def test_hcas_crossed_between_servers_of_two_leaves_are_found(seed, shape, pairs):
    """The same capture with two servers' HCAs really exchanged between two leaves: each
    exchange is one crossed-cables finding naming both HCAs, and nothing else is reported."""
    design, derived = _leaf_spine(*shape)
    capture = make_capture(derived, seed, faults=False, shuffle_host_ports=True, crossed_leaves=pairs)
    assert len(capture.faults.crossed) == pairs
    fabric = parse_capture(capture.text, "site.topo")
    inference = infer_design(fabric)
    g = derived.graph
    servers = {frozenset(capture.names[n].split()[0] for n in pair) for pair in capture.faults.crossed}
    # The HCAs crossed, or, for two-HCA servers whose neighbours by name sit on both leaves, the
    # servers' other two: a capture cannot tell one from the other (the same two cables to swap).
    other = {n: next(m for m in g.nodes if g.nodes[m].get("server") == g.nodes[n]["server"] and m != n)
             for pair in capture.faults.crossed for n in pair} if shape[1] == 2 else {}
    readings = [{frozenset(capture.names[n] for n in pair)} | ({frozenset(capture.names[other[n]] for n in pair)}
                                                              if other else set()) for pair in capture.faults.crossed]
    for against in (design, None):
        report = audit(fabric, design=against, inference=inference)
        assert _findings(report) == {"swapped": pairs}
        got = {frozenset((s["server"], s["reason"].split()[3].rstrip(":"))) for s in report.swapped}
        if got == servers:
            found = [frozenset((s["a"]["device"], s["b"]["device"])) for s in report.swapped]
            assert all(any(f in r for r in readings) for f in found)
        else:
            # Two exchanges between the same two leaves, whose ports follow no rule, read as well
            # in the other pairing: the same servers, each crossed once.
            assert pairs == 2 and len(got) == 2 and set().union(*got) == set().union(*servers)
            assert all(len(p) == 2 for p in got)
        assert all(s["kind"] == "crossed" and "on each other's leaves" in s["reason"] for s in report.swapped)


def test_a_host_port_down_names_a_leaf_port_no_cable_holds():
    """ibtopotool's 3.topo: r-ufm101's HCAs sit on ports 2 and 3 of the SX6012, where the design
    puts other servers' HCAs; the HCAs r-ufm100 and r-ufm96 lack are named on ports the capture
    leaves free, one port each."""
    answer = read_answer(Path(__file__).parent / "data" / "real_captures" / "ibtopotool" / "3.topo")
    fabric = answer.fabric
    leaf = next(d.id for d in fabric.devices.values() if d.name == "switch-de779e")
    used = {p for w in fabric.links for d, p in ((w.a, w.pa), (w.b, w.pb)) if d == leaf}
    down = [m for m in answer.report.missing_links if m.get("reason") == "host port down"]
    assert sorted(m["a"]["device"] for m in down) == ["r-ufm100 HCA-1", "r-ufm96 HCA-2"]
    ports = [m["b"]["port"] for m in down]
    assert all(m["b"]["device"] == "switch-de779e" for m in down)
    assert len(set(ports)) == 2 and not set(ports) & used and all(1 <= p <= 12 for p in ports)
