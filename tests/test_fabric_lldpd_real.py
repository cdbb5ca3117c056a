"""LLDP tables as a real lldpd writes them (tests/data/lldpd/).

The files are the output of `lldpcli show neighbors -f json` (and `-f json0` for the leaf) of
lldpd 1.0.16 (Debian 12), taken on veth pairs between network namespaces: leaf01 (announcing
Bridge and Router, port ids the interface names swp1-swp5) cabled to gpu-node-0001 and
gpu-node-0002 (two ports each, ens1f0np0 and ens1f1np1) and gpu-node-0003 (one port, enp65s0np0).
The servers run lldpd as a Linux host does: each announces Station, and sends its port's MAC as
the port id with the interface name only as the port description. A table of several neighbours
is the list form (`"interface": [{"swp1": {...}}, ...]`), a table of one is the dict form
(`"interface": {"enp65s0np0": {...}}`). Hand count: 5 cables, 3 servers, 1 switch.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from designer.io.fabric_capture import parse_capture

DATA = Path(__file__).parent / "data" / "lldpd"
SERVERS = ("gpu-node-0001", "gpu-node-0002", "gpu-node-0003")
CABLES = {("gpu-node-0001", "ens1f0np0", "swp1"), ("gpu-node-0001", "ens1f1np1", "swp2"),
          ("gpu-node-0002", "ens1f0np0", "swp3"), ("gpu-node-0002", "ens1f1np1", "swp4"),
          ("gpu-node-0003", "enp65s0np0", "swp5")}


def _table(host: str, suffix: str = ".json") -> str:
    return (DATA / f"{host}{suffix}").read_text()


def _records(hosts, suffix: str = ".json") -> str:
    """The tables of several hosts as one records file ({hostname, data}), as collectors store them."""
    return json.dumps([{"hostname": h, "data": _table(h, suffix)} for h in hosts])


def _cables(fabric) -> set[tuple[str, str, str]]:
    """(server, server port name, leaf port name) of every link of a capture with one switch."""
    out = set()
    for link in fabric.links:
        nic, port = (link.a, link.pb) if ":" in link.a else (link.b, link.pa)
        assert fabric.devices["leaf01"].kind == "switch"
        host, _, ifname = nic.partition(":")
        out.add((host, ifname, f"swp{port}"))
    return out


def test_the_fixtures_are_both_forms_of_lldpctl_json():
    assert isinstance(json.loads(_table("leaf01"))["lldp"]["interface"], list)
    assert isinstance(json.loads(_table("gpu-node-0003"))["lldp"]["interface"], dict)
    port = json.loads(_table("leaf01"))["lldp"]["interface"][0]["swp1"]["port"]
    assert port["id"]["type"] == "mac" and port["descr"] == "ens1f0np0"


@pytest.mark.parametrize("suffix", [".json", ".json0"])
def test_the_leafs_table_alone_names_the_hosts_ports(suffix):
    """The leaf sees each host port by MAC; the port description gives the interface name."""
    fabric = parse_capture(_records(["leaf01"], suffix), "records.json")
    assert _cables(fabric) == CABLES
    assert {d.host for d in fabric.endpoints()} == set(SERVERS)


def test_the_leaf_and_the_servers_tables_count_each_cable_once():
    fabric = parse_capture(_records(["leaf01", *SERVERS]), "records.json")
    assert len(fabric.links) == 5 and _cables(fabric) == CABLES
    assert [d.id for d in fabric.switches()] == ["leaf01"]
    assert Counter(d.host for d in fabric.endpoints()) == {"gpu-node-0001": 2, "gpu-node-0002": 2,
                                                           "gpu-node-0003": 1}
    # The switch keeps the system description its neighbours report.
    assert "SN5600" in fabric.devices["leaf01"].description


def test_the_servers_tables_alone_are_read_as_servers():
    """No neighbour describes the servers; their own ports' names say they are hosts."""
    fabric = parse_capture(_records(SERVERS), "records.json")
    assert [d.id for d in fabric.switches()] == ["leaf01"]
    assert _cables(fabric) == CABLES


def test_one_servers_table_in_the_dict_form_is_read_from_its_file_name():
    fabric = parse_capture(_table("gpu-node-0003"), "gpu-node-0003.json")
    assert _cables(fabric) == {("gpu-node-0003", "enp65s0np0", "swp5")}


def test_tables_written_one_after_another_merge_too():
    """Several `lldpctl -f json` outputs in one records file, in any order, give the same cables."""
    forward = parse_capture(_records([*SERVERS, "leaf01"]), "records.json")
    backward = parse_capture(_records(["leaf01", *reversed(SERVERS)]), "records.json")
    assert _cables(forward) == _cables(backward) == CABLES
