"""InfiniBand device ids come from resources/ids/infiniband.toml, each with its source."""

from __future__ import annotations

import re

from designer.catalog import default_catalog
from designer.catalog.device_ids import device_ids
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design


def test_every_id_has_a_source_and_names_known_parts():
    ids = device_ids()
    catalog = default_catalog()
    assert ids.vendid == 0x2C9 and ids.vendor_source
    assert len({d.devid for d in ids.devices}) == len(ids.devices)
    for d in ids.devices:
        assert d.source.strip() and d.kind in ("switch", "hca", "aggregation"), d
        for part in d.catalog:
            assert part in (catalog.switches if d.kind != "hca" else catalog.nics), (d.name, part)


def _blocks(text: str) -> dict[str, int]:
    """Node description -> devid of every block of an ibnetdiscover dump."""
    out, devid = {}, None
    for line in text.splitlines():
        if line.startswith("devid="):
            devid = int(line.split("=")[1], 16)
        m = re.match(r'^(?:Switch|Ca)\s+\d+\s+"[SH]-\w+"\s*#\s*"([^"]*)"', line)
        if m:
            out[m.group(1)] = devid
    return out


def test_exporter_writes_the_table_ids_and_zero_where_none_is_published():
    ids = device_ids()
    ndr = _blocks(export_ibnetdiscover(derive(FabricDesign(cluster=ClusterSpec(servers=8),
                                                           fabric=FabricSpec(template="rail-optimized")))))
    assert ndr["MF0;leaf-1:MQM9700/U1"] == ids.for_part("qm9700", "switch").devid
    assert ndr["srv-1 mlx5_0"] == ids.for_part("connectx-7", "hca").devid
    # No published id for a Quantum-2 aggregation node: written as 0, not guessed.
    assert ids.for_part("qm9700", "aggregation") is None
    assert ndr["Mellanox Technologies Aggregation Node"] == 0
    xdr = FabricDesign(cluster=ClusterSpec(servers=8, server="generic-8gpu", ports_per_server=8, port_gbps=800),
                       fabric=FabricSpec(template="leaf-spine", technology="ib-xdr",
                                         switch="q3400"))
    text = export_ibnetdiscover(derive(xdr))
    assert ids.for_part("q3400", "switch") is None
    assert {v for k, v in _blocks(text).items() if k.startswith("MF0;")} == {0}
    # the dump says so in its header comment, which readers skip
    note = next(line for line in text.splitlines() if line.startswith("# devid=0x0000"))
    assert "Q3400-RA switch" in note and "SHARP aggregation nodes" in note
    ndr_text = export_ibnetdiscover(derive(FabricDesign(cluster=ClusterSpec(servers=8),
                                                        fabric=FabricSpec(template="leaf-spine"))))
    assert "Q3400" not in next(line for line in ndr_text.splitlines() if line.startswith("# devid=0x0000"))


def test_switch_model_is_read_from_the_devid_when_descriptions_name_no_part():
    text = export_ibnetdiscover(derive(FabricDesign(cluster=ClusterSpec(servers=16),
                                                    fabric=FabricSpec(template="rail-optimized"))))
    inference = infer_design(parse_ibnetdiscover(text.replace(":MQM9700/U1", ":SWITCH/U1")))
    fact = next(f for f in inference.facts if f.subject == "switch model")
    assert (fact.value, fact.confidence) == ("qm9700", "medium") and "0xd2f2" in fact.why
    # the same capture with devids cleared falls back to a labelled low-confidence guess
    cleared = re.sub(r"devid=0x[0-9a-f]+", "devid=0x0000", text.replace(":MQM9700/U1", ":SWITCH/U1"))
    fact = next(f for f in infer_design(parse_ibnetdiscover(cleared)).facts if f.subject == "switch model")
    assert fact.confidence == "low"
