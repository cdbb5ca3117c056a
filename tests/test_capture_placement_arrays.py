"""Placing a capture on arrays gives what the device-by-device placing gives.

The leaf groups and rails (`capture_groups.group_view_on_arrays`), the spines and cores
(`capture_upper.place_upper`), the design's host positions read off its columns and each
server's HCAs mapped to its NICs by packed keys are each held equal to the reading of objects
they replace: `_group_view_by_objects`, `place_upper_by_objects`, and the loops over the view's
nodes and host links written out here. Captures are the messy generated ones
(tests/capture_factory.py), with and without faults, ibnetdiscover and LLDP, placed on the
design they were made from and on the design inferred from them.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from functools import cache

from capture_factory import make_capture
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_audit_generated_captures import GENERATED, _derived, generated_capture

from designer.catalog import default_catalog
from designer.io.fabric_capture import parse_capture
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology import capture_mapping, capture_servers
from designer.model.topology.asbuilt import natural_key
from designer.model.topology.capture_groups import shares_of, union_groups
from designer.model.topology.capture_upper import place_upper, place_upper_by_objects, switch_ids
from designer.model.topology.derive import derive
from designer.model.topology.design_view import design_view, view_from_graph
from designer.model.topology.inference import assign_roles, infer_design


def _capture(key: str, seed: int, faults: bool):
    """A generated capture; "leaf-spine-2hca" is a leaf-spine of servers with two HCAs on each
    leaf (the design's leaves hold several NICs of one server: placed by the HCAs' names)."""
    if key != "leaf-spine-2hca":
        return generated_capture(key, seed, faults)
    derived = _leaf_spine()
    return None, parse_capture(make_capture(derived, seed, "ibnetdiscover", faults=faults).text, "capture")


@cache
def _leaf_spine():
    return derive(FabricDesign(cluster=ClusterSpec(server="dgx-h100", servers=24),
                               fabric=FabricSpec(template="leaf-spine")))


def _views(key: str, fabric):
    """The design the capture was made from (its plan's view and its graph's view) and the one
    inferred from the capture."""
    derived = _leaf_spine() if key == "leaf-spine-2hca" else _derived(key)[1]
    views = [design_view(derived), view_from_graph(derived.graph)]
    inferred = infer_design(fabric, default_catalog())
    if inferred.derived is not None:
        views.append(design_view(inferred.derived))
    return views


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_the_groups_on_arrays_are_the_groups_of_objects(seed, key, faults):
    _, fabric = generated_capture(key, seed, faults)
    roles = assign_roles(fabric)
    made, want = capture_mapping._group_view(fabric, roles), capture_mapping._group_view_by_objects(fabric, roles)
    assert made == want
    assert list(made.ends.items()) == list(want.ends.items())
    assert list(made.rail_of.items()) == list(want.rail_of.items())
    assert made.groups == want.groups and made.slots == want.slots


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_spines_and_cores_on_arrays_are_placed_as_link_by_link(seed, key, faults):
    _, fabric = generated_capture(key, seed, faults)
    roles = assign_roles(fabric)
    for view in _views(key, fabric):
        placed = capture_mapping.place(fabric, roles, view).mapping
        # Leaves and HCAs placed, spines and cores not yet: both readings place them from there.
        lower = {d: n for d, n in placed.items() if roles.get(d) not in ("spine", "core")}
        same_name = {d: fabric.devices[d].name for d in switch_ids(fabric)
                     if roles.get(d) in ("spine", "core") and fabric.devices[d].name in view.nodes
                     and view.nodes[fabric.devices[d].name]["role"] == roles.get(d)}
        by_arrays, by_objects = dict(lower), dict(lower)
        place_upper(fabric, roles, view, by_arrays, same_name)
        place_upper_by_objects(fabric, roles, view, by_objects, same_name)
        assert list(by_arrays.items()) == list(by_objects.items())
        assert by_arrays == placed


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED + ["leaf-spine-2hca"]), st.booleans())
def test_the_placement_on_columns_is_the_placement_one_by_one(seed, key, faults):
    _, fabric = _capture(key, seed, faults)
    roles = assign_roles(fabric)
    for view in _views(key, fabric):
        made = capture_mapping.place(fabric, roles, view)
        want = capture_mapping.place(fabric, roles, view, one_by_one=True)
        assert list(made.mapping.items()) == list(want.mapping.items())
        assert list(made.server_of_host.items()) == list(want.server_of_host.items())
        assert list(made.attributed.items()) == list(want.attributed.items())
        assert made == want


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_the_designs_host_positions_on_columns_are_read_off_its_nodes(seed, key, faults):
    _, fabric = generated_capture(key, seed, faults)
    for g in _views(key, fabric):
        side = capture_mapping._design_side(g)
        at_port: dict[tuple[str, int], str] = {}
        d_hosts_on: dict[str, set[str]] = defaultdict(set)
        d_rails: dict[str, Counter[int]] = defaultdict(Counter)
        for nic, leaf, port, _ in g.host_links:
            at_port[(leaf, port)] = nic
            d_hosts_on[leaf].add(str(g.nodes[nic]["server"]))
            d_rails[leaf][g.nodes[nic]["port"]] += 1
        leaves = g.by_role("leaf")
        assert side.leaves == leaves
        assert list(side.at_port.items()) == list(at_port.items())
        assert side.shares == dict(shares_of(d_hosts_on))
        assert side.hosts == {leaf: len(s) for leaf, s in d_hosts_on.items()}
        assert side.rail == {leaf: c.most_common(1)[0][0] for leaf, c in d_rails.items()}
        assert side.server_min == {leaf: min((int(s) for s in d_hosts_on[leaf]), default=1 << 30) for leaf in leaves}
        assert side.one_port == (len({d["port"] for d in g.nodes.values() if d["role"] == "nic"}) == 1)
        hosts = {leaf: len(d_hosts_on[leaf]) for leaf in leaves}
        assert union_groups(leaves, side.shares, hosts) == union_groups(leaves, shares_of(d_hosts_on), hosts)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_named_hcas_take_their_servers_nics_as_a_lookup_by_server_and_port(seed, key, faults):
    _, fabric = generated_capture(key, seed, faults)
    rnd = random.Random(seed)
    roles = assign_roles(fabric)
    table = capture_mapping.device_table(fabric)
    hosts = table.hosts
    compute = [i for i, d in enumerate(table.ids) if roles.get(d) == "nic"]
    for g in _views(key, fabric):
        servers = sorted({int(s) for s in g.arrays().nic_server.tolist() if s >= 0})
        # Any server for any host, some hosts left out, as a placement can leave them.
        chosen_of = [rnd.choice(servers) if servers and rnd.random() < 0.8 else None for _ in hosts]
        ranks = sorted({int(h) for h in table.hca.tolist() if h >= 0})
        rank = {h: i for i, h in enumerate(ranks)}
        made: dict[str, str] = {}
        capture_servers.map_named_hcas(made, table, compute, chosen_of, rank, g)
        nic_of = {(d["server"], d["port"]): n for n, d in g.nodes.items() if d["role"] == "nic"}
        want: dict[str, str] = {}
        for i in compute:
            c, h = int(table.host_code[i]), int(table.hca[i])
            chosen = chosen_of[c] if c >= 0 else None
            nid = nic_of.get((chosen, rank[h])) if chosen is not None and h in rank else None
            if nid is not None:
                want[table.ids[i]] = nid
        assert list(made.items()) == list(want.items())


_NAMES = st.lists(st.text(alphabet="aAbB-_.01927²", max_size=8), max_size=30)


@settings(max_examples=examples(200), deadline=None)
@given(_NAMES)
def test_names_sorted_by_rank_are_sorted_by_natural_key(names):
    """Hosts and leaves are placed in name order on integer ranks: sorting by rank is sorting
    by `natural_key`, names of equal keys ('Leaf-1', 'leaf-1') ranked equal, ties kept in order."""
    ranks = capture_servers.natural_ranks(names)
    assert set(ranks) == set(names)
    assert sorted(names, key=ranks.__getitem__) == sorted(names, key=natural_key)
    for x in names:
        for y in names:
            assert (ranks[x] < ranks[y]) == (natural_key(x) < natural_key(y))


_BALLOTS = st.dictionaries(st.text(alphabet="h-0123", min_size=1, max_size=4),
                           st.dictionaries(st.sampled_from(["L1", "L2", "l2", "L10", "L3"]),
                                           st.tuples(st.integers(1, 3), st.integers(0, 3)), min_size=1, max_size=4),
                           max_size=25)


@settings(max_examples=examples(300), deadline=None)
@given(_BALLOTS)
def test_ballots_ordered_on_columns_as_one_by_one(ballots):
    """Hosts split between bundled design leaves take a leaf in the ballots' order: on columns
    (most HCAs, the neighbours' agreement, lowest HCA rank, names, order made) it is the order
    read a ballot at a time, ties, split hosts and names of equal natural keys included."""
    on_leaf = {h: Counter({lf: n for lf, (n, _) in c.items()}) for h, c in ballots.items()}
    first = {(h, lf): r for h, c in ballots.items() for lf, (_, r) in c.items()}
    key_of = capture_servers.natural_ranks([*on_leaf, "L1", "L2", "l2", "L10", "L3"])
    want = capture_servers._ballot_order_by_keys(on_leaf, first, key_of)
    assert capture_servers._ballot_order(capture_servers.ballots_of(on_leaf, first), key_of) == want
