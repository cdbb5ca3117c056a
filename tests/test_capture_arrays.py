"""The capture's passes on arrays give what the link-by-link passes give.

Roles, the hosts cabled only to spines and each leaf's host ends are read on arrays of the
links' ends (`asbuilt.link_ends`); the link-by-link readings are the reference. Captures are the messy generated ones
(tests/capture_factory.py): site names, absent switches and servers, missing and extra uplinks,
hosts on spines, aggregation nodes, management HCAs, ibnetdiscover and LLDP; and hand-made
shapes a generated capture does not have (a switch cabled to itself, a cascade of small
switches, a spare leaf's uplinks above the spines).
"""

from __future__ import annotations

from unittest.mock import patch

from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_audit_generated_captures import GENERATED, generated_capture

from designer.model.topology import capture_mapping, inference
from designer.model.topology.asbuilt import AsBuilt, Device, Link
from designer.model.topology.inference import _assign_roles_by_objects, _planes, assign_roles


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_roles_on_arrays_are_the_roles_link_by_link(seed, key, faults):
    _, fabric = generated_capture(key, seed, faults)
    roles = assign_roles(fabric)
    assert list(roles.items()) == list(_assign_roles_by_objects(fabric).items())
    _same_link_by_link(fabric, roles)


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(GENERATED), st.booleans())
def test_the_role_codes_the_inference_leaves_are_the_roles_looked_up(seed, key, faults):
    """The placement reads the inference's own role codes: the same, device for device, as each
    device's role looked up by name."""
    _, fabric = generated_capture(key, seed, faults)
    inferred = inference.infer_design(fabric)
    kept = fabric.__dict__.get("_role_codes")
    ends = capture_mapping.link_ends(fabric)
    if ends is None or not {"spine", "core"} & set(inferred.roles.values()):
        return   # roles read link by link, or a cascade's hub named after: looked up as before
    assert kept is not None and kept[0] is inferred.roles and kept[2] is ends.ids
    looked_up = [capture_mapping.ROLE_CODE.get(inferred.roles.get(d, ""), 0) for d in ends.ids]
    assert kept[3].tolist() == looked_up


def _same_link_by_link(fabric, roles) -> None:
    ends, on_spines = capture_mapping._leaf_ends(fabric, roles), capture_mapping._spine_hosts(fabric, roles)
    planes = _planes(fabric, roles)
    with patch.object(capture_mapping, "link_ends", lambda fabric: None), \
            patch.object(inference, "link_ends", lambda fabric: None):
        assert list(ends.items()) == list(capture_mapping._leaf_ends(fabric, roles).items())
        assert on_spines == capture_mapping._spine_hosts(fabric, roles)
        assert planes == _planes(fabric, roles)


def _fabric(switches: list[tuple[str, int]], hosts: list[str], links: list[tuple[str, str]]) -> AsBuilt:
    fabric = AsBuilt("ibnetdiscover")
    for name, ports in switches:
        fabric.devices[name] = Device(name, name, "switch", ports=ports)
    for name in hosts:
        # HCAs h0, h1, ... of servers srv-0, srv-1, ... two each (a server's HCAs can sit on a
        # leaf and a spine); an aggregation node has no server
        server = "" if name.startswith("agg") else f"srv-{int(name[1:]) // 2}"
        fabric.devices[name] = Device(name, f"{server} mlx5_{int(name[1:]) % 2}" if server else name, "host",
                                      ports=1, host=server, hca=int(name[1:]) % 2 if server else -1,
                                      aggregation=name.startswith("agg"))
    port: dict[str, int] = {}
    for a, b in links:
        port[a] = port.get(a, 0) + 1
        port[b] = port.get(b, 0) + 1
        fabric.links.append(Link(a, port[a], b, port[b], 400.0))
    return fabric


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 6), st.integers(1, 4), st.integers(0, 3), st.integers(0, 10**9), st.integers(1, 3),
       st.booleans())
def test_roles_agree_on_random_small_fabrics(switches, hosts_per, loops, seed, planes, crossed):
    """Random cabling of a few switches and hosts: cascades, loops, spines with hosts, switches
    above the spines, isolated switches and aggregation nodes; repeated as planes, one cable
    crossing between two planes or none."""
    import random

    rnd = random.Random(seed)
    sw = [(f"s{i}", rnd.choice([8, 24, 36])) for i in range(switches)]
    hosts = [f"h{i}" for i in range(rnd.randrange(0, hosts_per * switches + 1))] + ["agg0"]
    links = [(h, rnd.choice(sw)[0]) for h in hosts]
    links += [(rnd.choice(sw)[0], rnd.choice(sw)[0]) for _ in range(rnd.randrange(0, 3 * switches))]
    links += [(s, s) for s, _ in rnd.sample(sw, min(loops, len(sw)))]
    links = [(a, b) if rnd.random() < 0.5 else (b, a) for a, b in links]    # either end read first

    def plane(name: str, k: int) -> str:
        return name if k == 0 else f"{name[0]}{int(name[1:]) + 100 * k}" if name[0] == "h" else f"{name}p{k}"

    all_sw = [(plane(s, k), p) for k in range(planes) for s, p in sw]
    all_hosts = [plane(h, k) for k in range(planes) for h in hosts if h != "agg0"] + ["agg0"]
    all_links = [(plane(a, k) if a != "agg0" else a, plane(b, k) if b != "agg0" else b)
                 for k in range(planes) for a, b in links]
    if crossed and planes > 1:
        all_links.append((sw[0][0], plane(sw[-1][0], 1)))
    fabric = _fabric(all_sw, all_hosts, all_links)
    roles = assign_roles(fabric)
    assert list(roles.items()) == list(_assign_roles_by_objects(fabric).items())
    _same_link_by_link(fabric, roles)
