"""Cisco NX-OS LLDP JSON (`show lldp neighbors | json native`) and the brief Junos table: every
cable reads as one link, whichever end reports it and however that end names the far port
(NX-OS calls its own port Eth1/1 and its neighbours call it Ethernet1/1; a Junos port appears
to NX-OS as an SNMP index)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.io.fabric_capture import parse_capture
from designer.io.ibnetdiscover import CaptureError
from tests.helpers import examples


def _nxos_row(remote: str, local_port: str, remote_port: str, caps: str = "BR") -> dict:
    return {"chassis_type": "Locally Assigned", "chassis_id": remote, "l_port_id": local_port, "hold_time": 120,
            "system_capability": caps, "enabled_capability": caps, "port_type": "Interface Name",
            "port_id": remote_port}


def _record(host: str, rows: list[dict]) -> dict:
    # NX-OS gives one neighbour as the object alone, several as a list
    table = {"ROW_nbor": rows[0] if len(rows) == 1 else rows}
    return {"hostname": host, "devtype": "nxos", "cmd": "show lldp neighbors | json native",
            "data": json.dumps({"neigh_hdr": "neigh_hdr", "TABLE_nbor": table})}


@settings(max_examples=examples(40), deadline=None)
@given(leaves=st.integers(1, 6), spines=st.integers(1, 4), reporters=st.sampled_from(["both", "spines", "leaves"]))
def test_every_nxos_cable_is_one_link_whichever_end_reports_it(leaves, spines, reporters):
    records = []
    if reporters in ("both", "spines"):
        for s in range(spines):
            records.append(_record(f"spine{s + 1}", [_nxos_row(f"leaf{i + 1}", f"Eth1/{i + 1}", f"Ethernet1/{s + 1}")
                                                      for i in range(leaves)]))
    if reporters in ("both", "leaves"):
        for i in range(leaves):
            records.append(_record(f"leaf{i + 1}", [_nxos_row(f"spine{s + 1}", f"Eth1/{s + 1}", f"Ethernet1/{i + 1}")
                                                     for s in range(spines)]))
    fabric = parse_capture(json.dumps(records), "nxos.output")
    assert len(fabric.links) == leaves * spines
    assert {(w.a, w.b) if w.a < w.b else (w.b, w.a) for w in fabric.links} == {
        (f"leaf{i + 1}", f"spine{s + 1}") for i in range(leaves) for s in range(spines)}
    assert all(d.kind == "switch" for d in fabric.devices.values())


def test_a_junos_port_seen_as_an_snmp_index_is_the_same_cable_as_its_name():
    # the brief Junos table names its local port lldp-local-port-id; NX-OS sees that port as 516
    junos = {"lldp-neighbors-information": [{"attributes": {"junos:style": "brief"}, "lldp-neighbor-information": [
        {"lldp-local-port-id": [{"data": "xe-0/0/0"}], "lldp-remote-port-id-subtype": [{"data": "Interface name"}],
         "lldp-remote-port-id": [{"data": "Ethernet1/3"}], "lldp-remote-system-name": [{"data": "spine1"}],
         "lldp-remote-system-capabilities-enabled": [{"data": "Bridge Router"}]}]}]}
    records = [_record("spine1", [_nxos_row("qfx1", "Eth1/3", "516")]),
               {"hostname": "qfx1", "devtype": "junos-qfx", "cmd": "show lldp neighbors | display json",
                "data": json.dumps(junos)}]
    for order in (records, records[::-1]):
        fabric = parse_capture(json.dumps(order), "mixed.output")
        assert [(w.pa, w.pb) if w.a == "qfx1" else (w.pb, w.pa) for w in fabric.links] == [(0, 3)]


def test_an_nxos_table_without_neighbours_is_refused_in_one_line():
    empty = [{"hostname": "spine1", "data": json.dumps({"neigh_hdr": "neigh_hdr", "TABLE_nbor": {}})}]
    with pytest.raises(CaptureError, match="holds no neighbours"):
        parse_capture(json.dumps(empty), "empty.output")
