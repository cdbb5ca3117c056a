"""Real captures with real faults: the audit of the real ibnetdiscover's capture of the simulated
1-SU fabric, with 20 random faults typed into ibsim's console or written into its fabric file
(slow links), reports exactly those faults and nothing else: no link is degraded for the
simulator's speed, and the slowed links are.

Each example starts its own simulator (private socket, private folder) and stops it; OpenSM is
not needed for a capture (ibnetdiscover walks the fabric by directed routes). The number of
examples is TWIN_FAULT_EXAMPLES (default 25, scaled by the hypothesis profile: 10 in `make test`;
set it to a few hundred for a long run).
"""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.export_source import ExportSource
from designer.io.fabric_capture import load_capture
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.io.project import load_design
from designer.model.decisions.audit import audit
from designer.twin.faults import FabricIndex, parse_fault
from designer.twin.infiniband import TwinOptions, missing_stack, run_infiniband_twin
from tests.helpers import examples

ROOT = Path(__file__).resolve().parents[1]
SU1 = ROOT / "examples" / "dgx-h100-superpod-1su.json"
EXAMPLES = int(os.environ.get("TWIN_FAULT_EXAMPLES") or examples(25))
FAULTS = 20

# The reason names the packages this machine lacks (and the apt-get line that installs them).
pytestmark = pytest.mark.skipif(missing_stack() is not None, reason=missing_stack() or "")


@lru_cache(maxsize=1)
def fabric():
    """The design, its fabric as the simulator gets it, and the names faults are written with."""
    design = load_design(SU1)
    src = ExportSource(design, default_catalog())
    built = parse_ibnetdiscover(export_ibnetdiscover(src.derived, host_name=src.host), "design")
    index = FabricIndex(built)
    names = {d.id: d.name for d in built.devices.values()}
    uplinks = sorted((names[a], pa) for w in built.links for a, pa, b in ((w.a, w.pa, w.b), (w.b, w.pb, w.a))
                     if built.devices[b].kind == "switch" and names[a].startswith("leaf"))
    spines = sorted(n for n in index.switch if n.startswith("spine"))
    hosts = sorted(index.nics)
    leaf_ports: dict[str, list[tuple[int, str]]] = {}   # leaf -> (port, host) of its NIC cables
    for w in built.links:
        for a, pa, b in ((w.a, w.pa, w.b), (w.b, w.pb, w.a)):
            if built.devices[a].kind == "switch" and built.devices[b].kind == "host" and built.devices[b].host:
                leaf_ports.setdefault(names[a], []).append((pa, built.devices[b].host))
    return design, index, names, uplinks, spines, hosts, leaf_ports


@st.composite
def fault_sets(draw):
    """FAULTS faults on distinct cables and servers that keep the fabric connected: at most one
    spine absent, servers absent, NIC ports down, NIC cables swapped on a leaf, uplinks down."""
    _, index, names, uplinks, spines, hosts, leaf_ports = fabric()
    faults: list[str] = []
    gone = draw(st.sampled_from([None, *spines]))
    if gone is not None:
        faults.append(f"switch:{gone}")
    n_server, n_nic, n_swap = draw(st.integers(0, 4)), draw(st.integers(0, 6)), draw(st.integers(0, 5))
    order = draw(st.permutations(hosts))
    servers, nics = order[:n_server], order[n_server:n_server + n_nic]
    pairs = order[n_server + n_nic:n_server + n_nic + 2 * n_swap]
    faults += [f"server:{h}" for h in servers]
    faults += [f"link:{h}:{draw(st.integers(1, 8))}" for h in nics]
    for a, b in zip(pairs[::2], pairs[1::2], strict=True):
        leaf = draw(st.sampled_from(sorted(leaf_ports)))
        port = dict((h, p) for p, h in leaf_ports[leaf])
        faults.append(f"swap:{leaf}:{port[a]},{leaf}:{port[b]}")
    spine_of = {}
    for leaf, port in uplinks:
        w = index.at[(index.switch[leaf], port)]
        spine_of[(leaf, port)] = names[w.b] if names[w.a] == leaf else names[w.a]
    allowed = [u for u in uplinks if spine_of[u] != gone]
    rest = FAULTS - len(faults)
    chosen = draw(st.lists(st.sampled_from(allowed), min_size=rest, max_size=rest, unique=True))
    # A few of the uplinks run slow (1x, or SDR among QDR) instead of going down.
    kinds = draw(st.lists(st.sampled_from(["link", "link", "link", "width", "speed"]), min_size=rest,
                          max_size=rest))
    faults += [f"{kind}:{leaf}:{port}" for (leaf, port), kind in zip(chosen, kinds, strict=True)]
    return faults


def expected_findings(faults: list[str]):
    _, index, names, *_ = fabric()
    host_index = {h: i for i, h in enumerate(sorted(index.nics, key=lambda h: int(h.rsplit("-", 1)[-1])))}
    absent, pairs, ports_down, swaps, slow = set(), Counter(), set(), set(), set()
    for text in faults:
        fault = parse_fault(text, index)
        if fault.kind == "switch":
            absent.add(text.split(":", 1)[1])
        elif fault.kind == "server":
            absent.add(f"srv-{host_index[text.split(':', 1)[1]] + 1}")
        elif fault.kind in ("width", "speed"):
            (a, pa, b, pb), = fault.links
            slow.add(frozenset({(names[a], pa), (names[b], pb)}))
        elif fault.kind == "link":
            (a, pa, b, pb), = fault.links
            na, nb = names[a], names[b]
            if na.startswith(("leaf", "spine")) and nb.startswith(("leaf", "spine")):
                pairs[tuple(sorted((na, nb)))] += 1
            else:
                host, port = text.split(":")[1:]
                ports_down.add((host, f"mlx5_{int(port) - 1}"))
        else:
            nic_names = []
            for a, _, b, _ in fault.links:
                nic = a if a.startswith("H-") else b
                d = index.fabric.devices[nic]
                nic_names.append(f"{d.host} mlx5_{d.hca}")
            swaps.add(frozenset(nic_names))
    return absent, pairs, ports_down, swaps, slow


def found_findings(report):
    absent = {e["device"] for e in report.missing_devices}
    pairs: Counter = Counter()
    ports_down = set()
    for e in report.missing_links:
        if e.get("reason") == "host port down":
            host, port = e["a"]["device"].rsplit(" ", 1)
            ports_down.add((host, port))
        else:
            pairs[tuple(sorted((e["a"]["device"], e["b"]["device"])))] += 1
    swaps = {frozenset((e["a"]["device"], e["b"]["device"])) for e in report.swapped}
    slow = {frozenset({(e["a"]["device"], e["a"]["port"]), (e["b"]["device"], e["b"]["port"])})
            for e in report.degraded_links}
    return absent, pairs, ports_down, swaps, slow


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(faults=fault_sets())
def test_the_audit_of_a_real_capture_reports_exactly_the_injected_faults(faults, tmp_path_factory):
    assert len(faults) == FAULTS
    design = fabric()[0]
    capture = tmp_path_factory.mktemp("twin") / "capture.txt"
    result = run_infiniband_twin(design, options=TwinOptions(faults=tuple(faults), capture=capture, route=False,
                                                             loads=False, timeout=120))
    assert [f.target for f in result.faults] == faults
    fabric_built = load_capture(capture)
    assert fabric_built.speeds_simulated
    report = audit(fabric_built, design)
    assert found_findings(report) == expected_findings(faults)
    assert report.miswired == [] and report.extra_links == []
    assert report.unnamed_devices == []
    assert "simulator" in report.summary["link_speeds"]
