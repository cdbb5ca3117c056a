"""Physical layer: positions, lengths, media by reach, and how link ends map to parts."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import ProjectFileError, design_from_json, design_to_json
from designer.model.intent.design import replace_path
from designer.model.intent.floorplan import FloorPlan
from designer.model.intent.serde import DesignValidationError
from designer.model.physical.media import (
    COPPER_KINDS,
    End,
    LinkPlan,
    MediaIndex,
    choose_medium,
    compute_physical,
)
from designer.model.topology.presets import new_design
from tests.helpers import derived, examples, superpod

CAT = default_catalog()


def phys(design):
    return compute_physical(derived(design), CAT)


# ---------------------------------------------------------------- DGX H100 SuperPOD, 1 SU

def test_superpod_every_link_has_two_ends_accounted_for():
    d = derived(superpod(1))
    p = compute_physical(d, CAT)
    assert len(p.links) == d.metrics.links_total == d.graph.number_of_edges()
    for link in p.links:
        assert link.medium != "none"
        assert link.cable, link
        if link.medium in COPPER_KINDS:
            assert not link.a_part and not link.b_part
        else:
            assert link.a_part and link.b_part
    optical = [link for link in p.links if link.medium not in COPPER_KINDS]
    # Every optical link end is one port of one module: ends served = 2 x optical links.
    assert sum(p.transceiver_ends.values()) == 2 * len(optical)


def test_superpod_twin_port_transceiver_counted_once_for_its_two_ports():
    d = derived(superpod(1))
    p = compute_physical(d, CAT)
    g = d.graph
    # QM9700 cages hold two 400G ports; ports are used from 1 upward, so each switch needs
    # ceil(ports used / 2) modules. DGX H100 has 4 twin-port cages for its 8 NICs.
    expected_switch = sum(math.ceil(g.degree(n) / 2) for n, data in g.nodes(data=True) if data["role"] != "nic")
    expected_host = d.design.cluster.servers * d.resolved.ports_per_server // 2
    sides = Counter()
    for (tid, side), n in p.transceivers.items():
        sides[side] += n
        assert CAT.transceivers[tid].part_number == "MMA4Z00-NS"
    assert sides["switch"] == expected_switch
    assert sides["host"] == expected_host
    # ...and each of those modules serves exactly two link ends.
    for key, n in p.transceivers.items():
        assert p.transceiver_ends[key] == 2 * n
    # The cages holding modules are exactly the distinct cages at the link ends.
    cages = {(e.key, e.host) for link in p.links for e in (link.a, link.b)}
    assert len(cages) == sides["switch"] + sides["host"]


def test_superpod_is_multimode_with_one_fiber_per_link():
    p = phys(superpod(1))
    assert {link.medium for link in p.links} == {"mmf"}
    fibers = sum(n for (cid, _), n in p.cables.items() if CAT.cables[cid].kind == "fiber")
    assert fibers == len(p.links)
    for link in p.links:
        sold = CAT.cables[link.cable].lengths_m
        assert link.cable_length_m in sold
        assert link.cable_length_m >= link.length_m
        # the shortest stock length that covers the run
        assert all(s < link.length_m for s in sold if s < link.cable_length_m)


def test_no_port_is_used_twice():
    p = phys(superpod(2))
    ends = [(e.device, e.port) for link in p.links for e in (link.a, link.b)]
    assert len(ends) == len(set(ends))
    cage_slots = [(e.device, e.cage, e.lane) for link in p.links for e in (link.a, link.b)]
    assert len(cage_slots) == len(set(cage_slots))


# ---------------------------------------------------------------- media by reach

def _switch_end(name, cage=0, lane=0, capacity=2, cage_type="OSFP"):
    return End(name, str(cage * capacity + lane + 1), cage, lane, False, cage_type, capacity)


def _host_end(server, cage=0, lane=0, capacity=1, cage_type="OSFP"):
    return End(f"srv-{server}", f"nic-{cage * capacity + lane + 1}", cage, lane, True, cage_type, capacity)


def _choose(family, links, forced="auto"):
    return choose_medium(links, MediaIndex(CAT, family), forced)


def _switch_pair(length, gbps=400, capacity=2):
    """Two links between one cage of each of two switches (a straight twin-port run)."""
    return [LinkPlan(i, "leaf-spine", gbps, _switch_end("leaf-1", 0, i, capacity), _switch_end("spine-1", 0, i,
                                                                                               capacity),
                     length) for i in range(capacity)]


def _switch_to_nics(length, gbps=400, host_capacity=1):
    """One twin-port switch cage to two single-port NIC cages on two servers."""
    return [LinkPlan(i, "node-leaf", gbps, _host_end(i + 1, 0, 0, host_capacity), _switch_end("leaf-1", 0, i),
                     length) for i in range(2)]


def _describe(choice):
    if choice is None:
        return None
    if choice.cable:
        return choice.cable.id
    return tuple(sorted({m.id for m in choice.modules.values()}))


@pytest.mark.parametrize("length, expected", [
    (0.5, "mcp4y10"), (2.0, "mcp4y10"),                   # DAC to 2 m at 2 x 400G switch-to-switch
    (2.01, "lacc-2x400g"), (5.0, "lacc-2x400g"),         # active copper to 5 m
    (5.01, ("mma4z00-ns",)), (50.0, ("mma4z00-ns",)),    # multimode 2xSR4 to 50 m
    (50.01, ("mms4x00-ns",)), (100.0, ("mms4x00-ns",)),  # single-mode 2xDR4, 100 m variant
    (100.01, ("mms4x00-nm",)), (500.0, ("mms4x00-nm",)),  # 500 m variant
    (500.01, ("mms4x50-nm",)), (2000.0, ("mms4x50-nm",)),  # 2xFR4 to 2 km
    (2000.01, None),
])
def test_ndr_switch_to_switch_reach_boundaries(length, expected):
    assert _describe(_choose("infiniband", _switch_pair(length))) == expected


@pytest.mark.parametrize("length, expected", [
    (1.0, "mcp7y00"), (3.0, "mcp7y00"),                  # splitter DAC to 3 m
    (3.01, "lacc-800g-2x400g"), (5.0, "lacc-800g-2x400g"),
    (5.01, ("mma4z00-ns", "mma4z00-ns400")), (50.0, ("mma4z00-ns", "mma4z00-ns400")),
    (50.01, ("mms4x00-ns", "mms4x00-ns400")), (100.0, ("mms4x00-ns", "mms4x00-ns400")),
    (100.01, None),  # InfiniBand single-port 400G modules stop at 100 m
])
def test_ndr_switch_to_single_port_nics_reach_boundaries(length, expected):
    assert _describe(_choose("infiniband", _switch_to_nics(length))) == expected


def test_ethernet_single_port_nics_beyond_100m_use_ieee_dr4():
    choice = _choose("ethernet", _switch_to_nics(300.0))
    assert _describe(choice) == ("ieee-400gbase-dr4", "mms4x00-nm")


def test_twin_port_server_cage_rules_out_copper():
    # Two NICs of one DGX cage going to two different leaves cannot share one copper connector.
    links = [LinkPlan(i, "node-leaf", 400, _host_end(1, 0, i, 2), _switch_end(f"leaf-{i + 1}"), 1.0)
             for i in range(2)]
    choice = _choose("infiniband", links)
    assert choice.kind == "mmf"
    assert _describe(choice) == ("mma4z00-ns",)


def test_a_twin_port_module_takes_the_reach_of_its_longest_port():
    # One leaf cage serves a near and a far server: both ports must use the same optics.
    links = [LinkPlan(0, "node-leaf", 400, _host_end(1), _switch_end("leaf-1", 0, 0), 10.0),
             LinkPlan(1, "node-leaf", 400, _host_end(2), _switch_end("leaf-1", 0, 1), 80.0)]
    choice = _choose("infiniband", links)
    assert choice.optic == "dr"
    assert {m.id for m in choice.modules.values()} == {"mms4x00-ns", "mms4x00-ns400"}


@settings(max_examples=examples(60), deadline=None)
@given(length=st.floats(min_value=0.1, max_value=600), host=st.booleans())
def test_xdr_never_uses_dac_aoc_or_multimode(length, host):
    if host:
        links = [LinkPlan(i, "node-leaf", 800, _host_end(i + 1), _switch_end("leaf-1", 0, i), length) for i in range(2)]
    else:
        links = _switch_pair(length, gbps=800)
    choice = _choose("infiniband", links)
    if choice is not None:
        assert choice.kind in ("acc", "smf")
        assert all(m.lane_gbps == 200 for m in choice.modules.values())
    assert (choice is None) == (length > 500)


def test_reach_is_never_exceeded_on_a_real_design():
    d = new_design(CAT, "rail-optimized", nodes=128, server="dgx-h100", switch="qm9700")
    p = phys(replace_path(d, "floorplan.racks_per_row", 4))
    for link in p.links:
        if link.medium in COPPER_KINDS:
            assert link.length_m <= CAT.cables[link.cable].reach_m
        else:
            for part in (link.a_part, link.b_part):
                assert link.length_m <= CAT.transceivers[part].reach_m


# ---------------------------------------------------------------- copper and splitters

def test_top_of_rack_single_port_nics_get_splitter_dacs():
    d = new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700")
    p = phys(replace_path(d, "floorplan.placement", "su-racks"))
    node_leaf = [link for link in p.links if link.tier == "node-leaf"]
    assert {link.medium for link in node_leaf} == {"dac"}
    assert {link.cable for link in node_leaf} == {"mcp7y00"}
    # one splitter serves two NICs from one twin-port cage; no server-side optics at all
    assert p.cables[("mcp7y00", node_leaf[0].cable_length_m)] == len(node_leaf) / 2
    assert not any(side == "host" for _, side in p.transceivers)


def test_switches_in_one_rack_use_twin_port_dacs():
    d = replace_path(superpod(1), "floorplan.placement", "network-row")
    p = phys(d)
    ls = [link for link in p.links if link.tier == "leaf-spine"]
    assert {link.cable for link in ls} == {"mcp4y10"}
    assert sum(n for (cid, _), n in p.cables.items() if cid == "mcp4y10") == len(ls) / 2


def test_ndr200_uses_splitter_fibers():
    d = new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700", speed=200)
    p = phys(d)
    assert {link.cable for link in p.links} == {"mfp7e20"}
    assert sum(p.cables.values()) == len(p.links) / 2
    assert all(p.transceiver_ends[k] == 4 * n for k, n in p.transceivers.items() if k[1] == "switch")


def test_two_plane_server_cage_carries_one_port_per_plane():
    d = new_design(CAT, "rail-optimized", nodes=32, server="dgx-b300-eth", technology="roce-400g")
    p = phys(d)
    by_cage = {}
    for link in p.links:
        if link.a.host:
            by_cage.setdefault(link.a.key, []).append(link.b.device.split(".")[0])
    assert len(by_cage) == 32 * 8
    assert all(sorted(planes) == ["p1", "p2"] for planes in by_cage.values())


# ---------------------------------------------------------------- forced media and findings

def test_forced_single_mode_on_a_tier():
    p = phys(replace_path(superpod(1), "floorplan.medium_leaf_spine", "smf"))
    assert {link.medium for link in p.links if link.tier == "leaf-spine"} == {"smf"}
    assert {link.medium for link in p.links if link.tier == "node-leaf"} == {"mmf"}
    assert not p.findings


@pytest.mark.parametrize("forced", ["dac", "aoc", "mmf"])
def test_impossible_forced_medium_on_xdr_is_reported_and_replaced(forced):
    d = new_design(CAT, "rail-optimized", nodes=32, server="dgx-b300-xdr", technology="ib-xdr")
    p = phys(replace_path(d, "floorplan.medium_node_leaf", forced))
    assert {link.medium for link in p.links} == {"smf"}
    assert [f.code for f in p.findings] == ["forced-medium-not-possible"]
    assert "node-leaf" in p.findings[0].message


def test_links_beyond_every_reach_are_errors_not_silently_dropped():
    d = new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700")
    d = replace_path(d, "floorplan.placement", "network-row")
    p = phys(replace_path(d, "floorplan.row_pitch_m", 200.0))  # NICs 200 m from their leaves
    missing = [link for link in p.links if link.medium == "none"]
    assert missing
    assert any(f.code == "no-medium" and f.severity == "error" and str(len(missing)) in f.message
               for f in p.findings)


# ---------------------------------------------------------------- floor plan

def test_default_floor_plan_lengths():
    fp = FloorPlan()
    p = phys(superpod(1))
    pos = p.layout.positions
    for link in p.links:
        a, b = pos[link.a.device], pos[link.b.device]
        if (a.row, a.slot) == (b.row, b.slot):
            assert link.length_m == fp.in_rack_m
        else:
            run = abs(a.x - b.x) + abs(a.y - b.y)
            assert link.length_m == pytest.approx(run + 2 * fp.vertical_run_m + fp.slack_m)
    assert p.layout.server_racks == 32 // fp.servers_per_rack


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pitch=st.floats(min_value=1.0, max_value=5.0), extra=st.floats(min_value=0.1, max_value=5.0),
       placement=st.sampled_from(["su-racks", "middle-of-row", "network-row"]))
def test_wider_row_pitch_never_shortens_a_link(pitch, extra, placement):
    base = replace_path(superpod(2), "floorplan.placement", placement)
    near = phys(replace_path(base, "floorplan.row_pitch_m", pitch))
    far = phys(replace_path(base, "floorplan.row_pitch_m", pitch + extra))
    assert [link.index for link in near.links] == [link.index for link in far.links]
    assert all(b.length_m >= a.length_m for a, b in zip(near.links, far.links, strict=True))


def test_top_of_rack_is_shorter_than_a_network_row_for_server_links():
    d = new_design(CAT, "leaf-spine", nodes=64, server="hgx-h100", switch="qm9700")

    def mean_node_leaf(placement):
        p = phys(replace_path(d, "floorplan.placement", placement))
        lengths = [link.length_m for link in p.links if link.tier == "node-leaf"]
        return sum(lengths) / len(lengths)

    assert mean_node_leaf("su-racks") < mean_node_leaf("middle-of-row") < mean_node_leaf("network-row")


@pytest.mark.parametrize("field, value", [("servers_per_rack", 0), ("racks_per_row", -1),
                                          ("rack_width_m", 0.0), ("slack_m", -1.0)])
def test_floor_plan_rejects_nonsense(field, value):
    with pytest.raises(DesignValidationError) as info:
        replace_path(superpod(1), f"floorplan.{field}", value)
    assert field in str(info.value)


def test_floor_plan_survives_save_and_load():
    d = replace_path(superpod(1), "floorplan.placement", "network-row")
    d = replace_path(d, "floorplan.medium_leaf_spine", "smf")
    assert design_from_json(design_to_json(d)) == d


def test_files_with_a_partial_floor_plan_get_defaults_and_bad_values_are_refused():
    doc = json.loads(design_to_json(superpod(1)))
    doc["design"]["floorplan"] = {"servers_per_rack": 2}
    assert design_from_json(json.dumps(doc)).floorplan == FloorPlan(servers_per_rack=2)
    doc["design"]["floorplan"] = {"placement": "ceiling"}
    with pytest.raises(ProjectFileError, match="placement"):
        design_from_json(json.dumps(doc))
