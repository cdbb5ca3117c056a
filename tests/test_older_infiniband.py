"""Older InfiniBand generations (QDR, FDR, EDR) as real site captures show them: the catalog's
technologies size a fabric, the ibnetdiscover writer names their rates and device ids, a capture
of one infers its own switch and rate back, and an older HCA at its own top rate is no degraded
link while a faster card at that rate is."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.catalog.device_ids import device_ids
from designer.io.fabric_capture import read_answer
from designer.io.ibnetdiscover import export_ibnetdiscover
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive
from designer.model.topology.server_evidence import at_card_rate

GENERATIONS = [("ib-qdr", "is5030", 40, "QDR"), ("ib-qdr", "grid-director-4036", 40, "QDR"),
               ("ib-fdr", "sx6036", 56, "FDR"), ("ib-edr", "sb7800", 100, "EDR")]


def _design(technology: str, switch: str, gbps: int, servers: int) -> FabricDesign:
    return FabricDesign(cluster=ClusterSpec(servers=servers, server="generic-8gpu", ports_per_server=1,
                                            port_gbps=gbps, gpus_per_server=1),
                        fabric=FabricSpec(template="leaf-spine", technology=technology, switch=switch))


def test_the_older_technologies_name_their_own_switches_and_hcas():
    cat = default_catalog()
    for tech, switch, gbps, generation in GENERATIONS:
        t = cat.technology(tech)
        assert (t.link_gbps, t.generation) == (gbps, generation) and switch in t.switch_options
        assert cat.switch(switch).ports_at(gbps) == 36 and cat.switch(switch).status == "end-of-life"
        assert cat.nic(t.default_nic).mode_for("infiniband", gbps) is not None
    # the modern technologies keep their own switches
    assert {cat.technology(t).default_switch for t in ("ib-hdr", "ib-ndr", "ib-xdr")} == {"qm8700", "qm9700", "q3400"}


@settings(max_examples=12, deadline=None)
@given(generation=st.sampled_from(GENERATIONS), servers=st.integers(2, 120))
def test_an_exported_older_fabric_reads_back_as_its_own_design(generation, servers, tmp_path_factory):
    tech, switch, gbps, name = generation
    derived = derive(_design(tech, switch, gbps, servers))
    text = export_ibnetdiscover(derived)
    assert f"4x{name}" in text and f"devid=0x{device_ids().for_part(switch, 'switch').devid:04x}" in text
    if switch == "grid-director-4036":          # a Voltaire box reports Voltaire's vendor id
        assert "vendid=0x8f1" in text
    path = tmp_path_factory.mktemp("cap") / "fabric.topo"
    path.write_text(text)
    answer = read_answer(path)
    fabric = answer.inference.design.fabric
    assert (fabric.technology, fabric.switch) == (tech, switch)
    assert {k: len(getattr(answer.report, k)) for k, _ in answer.report.rows()} == {}


def _qdr_capture_with_one_hca_at_ddr(tmp_path, devid: int):
    derived = derive(_design("ib-qdr", "is5030", 40, 30))
    text = export_ibnetdiscover(derived)
    blocks = text.split("\n\n")
    host = next(i for i, b in enumerate(blocks) if re.search(r'^Ca\t', b, re.M) and "srv-3 " in b)
    guid = re.search(r'"(H-[0-9a-f]+)"', blocks[host]).group(1)
    blocks[host] = re.sub(r"devid=0x[0-9a-f]+", f"devid=0x{devid:04x}", blocks[host]).replace("4xQDR", "4xDDR")
    text = "\n\n".join(blocks)
    # the switch end of the same cable reports the same rate
    text = re.sub(rf'(\[\d+\]\t"{guid}"\[\d+\].*?)4xQDR', r"\g<1>4xDDR", text)
    path = tmp_path / "ddr.topo"
    path.write_text(text)
    return read_answer(path)


def test_a_ddr_card_on_a_qdr_switch_runs_at_its_own_rate_and_is_no_degraded_link(tmp_path):
    answer = _qdr_capture_with_one_hca_at_ddr(tmp_path, 0x6732)
    facts = {f.subject: f.value for f in answer.inference.facts}
    assert facts["older HCAs"] == "1 at their own top rate"
    assert answer.report.degraded_links == []


def test_a_qdr_card_at_ddr_is_a_degraded_link(tmp_path):
    answer = _qdr_capture_with_one_hca_at_ddr(tmp_path, 0x673c)
    assert "older HCAs" not in {f.subject for f in answer.inference.facts}
    assert [e["as_built"] for e in answer.report.degraded_links] == ["4xDDR"]


@pytest.mark.parametrize("devid,gbps,expected", [(0x6732, 20, True), (0x6732, 10, False), (0x673c, 20, False),
                                                 (0x1003, 56, True), (0x1021, 200, False), (0xc738, 40, False)])
def test_at_card_rate_needs_a_published_top_rate(devid, gbps, expected):
    assert at_card_rate(devid, gbps) is expected
