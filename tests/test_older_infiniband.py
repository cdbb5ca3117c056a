"""Older InfiniBand generations (QDR, FDR, EDR) as real site captures show them: the catalog's
technologies size a fabric, the ibnetdiscover writer names their rates and device ids, a capture
of one infers its own switch and rate back, and an older HCA at its own top rate is no degraded
link while a faster card at that rate is."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.catalog.device_ids import device_ids
from designer.io.fabric_capture import read_answer
from designer.io.ibnetdiscover import export_ibnetdiscover
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive
from designer.model.topology.server_evidence import at_card_rate
from tests.helpers import examples

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


@settings(max_examples=examples(12), deadline=None)
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


def _site_capture(derived, seed: int) -> tuple[str, dict]:
    """The design's capture as a QDR site cabled it (loginoff's scheme: switches ib1..ibN, hosts
    `stageN mlx4_0`): host ports in the site's own plan on each leaf, a storage host on a spine,
    and faults: a few servers absent, a few leaf-spine uplinks missing (one per pair)."""
    rnd = random.Random(seed)
    text = export_ibnetdiscover(derived)
    leaves = max(map(int, re.findall(r"MF0;leaf-(\d+):", text)))
    text = re.sub(r'"srv-(\d+) mlx5_0"', r'"stage\1 mlx4_0"', text)
    text = re.sub(r"MF0;leaf-(\d+):", r"MF0;ib\1:", text)
    text = re.sub(r"MF0;spine-(\d+):", lambda m: f"MF0;ib{leaves + int(m.group(1))}:", text)
    blocks = text.split("\n\n")
    switch_of = {re.search(r'Switch\t\d+ "(S-[0-9a-f]+)"', b).group(1): i for i, b in enumerate(blocks)
                 if re.search(r"^Switch\t", b, re.M)}
    kind = {g: ("leaf" if re.search(r'# "MF0;ib(\d+):', blocks[i]) and
                int(re.search(r'# "MF0;ib(\d+):', blocks[i]).group(1)) <= leaves else "spine")
            for g, i in switch_of.items()}
    name = {g: re.search(r'# "MF0;(ib\d+):', blocks[i]).group(1) for g, i in switch_of.items()}
    faults = {"absent": 0, "missing": set(), "storage": 0}
    # the site's port plan: each leaf's hosts on ports of its own choosing among the free ones
    for g, i in switch_of.items():
        if kind[g] != "leaf":
            continue
        lines = blocks[i].split("\n")
        host_rows = [k for k, ln in enumerate(lines) if re.match(r'\[\d+\]\t"H-', ln)]
        used_up = {int(re.match(r"\[(\d+)\]", ln).group(1)) for ln in lines if re.match(r'\[\d+\]\t"S-', ln)}
        ports = rnd.sample(sorted(set(range(1, 37)) - used_up), len(host_rows))
        for k, p in zip(host_rows, ports, strict=True):
            hg = re.search(r'"H-([0-9a-f]+)"', lines[k]).group(1)
            old = int(re.match(r"\[(\d+)\]", lines[k]).group(1))
            lines[k] = re.sub(r"^\[\d+\]", f"[{p}]", lines[k])
            ca = next(j for j, b in enumerate(blocks) if f'Ca\t1 "H-{hg}"' in b)
            blocks[ca] = blocks[ca].replace(f'"{g}"[{old}]', f'"{g}"[{p}]')
        blocks[i] = "\n".join(lines)
    # absent servers: their HCA block and the leaf's line to them
    cas = [j for j, b in enumerate(blocks) if re.search(r"^Ca\t", b, re.M)]
    gone = rnd.sample(cas, rnd.randint(0, min(3, len(cas) // 6)))
    for j in gone:
        hg = re.search(r'Ca\t1 "(H-[0-9a-f]+)"', blocks[j]).group(1)
        for i in switch_of.values():
            blocks[i] = "\n".join(ln for ln in blocks[i].split("\n") if f'"{hg}"' not in ln)
        blocks[j] = ""
    faults["absent"] = len(gone)
    # missing uplinks, at most one per leaf-spine pair
    ups = [(g, ln) for g, i in switch_of.items() if kind[g] == "leaf" for ln in blocks[switch_of[g]].split("\n")
           if re.match(r'\[\d+\]\t"S-', ln)]
    for g, ln in rnd.sample(ups, rnd.randint(0, min(3, len(ups) // 8))):
        peer, q = re.match(r'\[(\d+)\]\t"(S-[0-9a-f]+)"\[(\d+)\]', ln).group(2, 3)
        p = re.match(r"\[(\d+)\]", ln).group(1)
        if (name[g], name[peer]) in faults["missing"]:
            continue
        faults["missing"].add((name[g], name[peer]))
        blocks[switch_of[g]] = "\n".join(x for x in blocks[switch_of[g]].split("\n") if x != ln)
        blocks[switch_of[peer]] = "\n".join(x for x in blocks[switch_of[peer]].split("\n")
                                            if not x.startswith(f'[{q}]\t"{g}"[{p}]'))
    # a storage host cabled to a spine's last port
    if rnd.random() < 0.6:
        spine = next(g for g in switch_of if kind[g] == "spine")
        blocks[switch_of[spine]] += '\n[36]\t"H-00000000000000aa"[1]\t\t# "tank1 mlx4_0" lid 900 4xQDR'
        blocks.append(f'vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x00000000000000aa\ncaguid=0x00000000000000aa\n'
                      f'Ca\t1 "H-00000000000000aa"\t\t# "tank1 mlx4_0"\n'
                      f'[1](00000000000000aa)\t"{spine}"[36]\t\t# lid 900 lmc 0 "MF0;{name[spine]}:SX6036/U1" '
                      f'lid 1 4xQDR')
        faults["storage"] = 1
    return "\n\n".join(b for b in blocks if b).rstrip("\n") + "\n", faults


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 10**9), servers=st.integers(40, 150))
@example(seed=1545, servers=48)   # the partly filled leaf lost one cable to each of its two spines
def test_a_qdr_site_capture_audits_to_exactly_its_faults(seed, servers, tmp_path_factory):
    design = _design("ib-qdr", "sx6036", 40, servers)
    derived = derive(design)
    text, faults = _site_capture(derived, seed)
    path = tmp_path_factory.mktemp("site") / "site.topo"
    path.write_text(text)

    def found(report):
        return {k: len(getattr(report, k)) for k, _ in report.rows()}

    # from the capture alone: the site's own port plan and the storage host are no fault; an
    # absent server leaves no gap a capture can show, the missing uplinks are found
    answer = read_answer(path)
    fabric, plan = answer.inference.design.fabric, answer.inference.derived.plan
    assert (fabric.technology, fabric.switch, plan.leaves, plan.spines) == (
        "ib-qdr", "sx6036", derived.plan.leaves, derived.plan.spines)
    missing = {(e["a"]["device"], e["b"]["device"]) for e in answer.report.missing_links}
    assert missing == faults["missing"]
    assert found(answer.report) == ({"missing_links": len(faults["missing"])} if faults["missing"] else {})
    assert len(answer.report.set_apart) == faults["storage"]
    # against the design it was built from: the absent servers too, and nothing else
    against = read_answer(path, against=design).report
    assert len([d for d in against.missing_devices if d["tier"] == "server"]) == faults["absent"]
    assert {(e["a"]["device"], e["b"]["device"]) for e in against.missing_links} == faults["missing"]
    assert not against.extra_links and not against.miswired and not against.degraded_links
