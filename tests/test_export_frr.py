"""The FRR configuration of every switch: one routing plan for every export, and text that FRR's
own parser accepts (`vtysh --dryrun`, FRR 8.4 as Debian 12 ships it)."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.containerlab import containerlab_yaml
from designer.io.export_source import ExportOptions, ExportSource
from designer.io.exporters import FORMATS, write_export
from designer.io.frr import (
    ASN_BASE,
    LOOPBACKS,
    collapse_bundles,
    fabric_links,
    frr_conf,
    frr_files,
    routing_plan,
    swp,
)
from designer.io.project import load_design
from tests.helpers import examples

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CAT = default_catalog()
ETHERNET_EXAMPLES = sorted(p for p in EXAMPLES.glob("*.json")
                           if ExportSource(load_design(p), CAT).family == "ethernet")
VTYSH = shutil.which("vtysh")


def test_there_are_ethernet_examples_to_check():
    assert {p.name for p in ETHERNET_EXAMPLES} >= {"roce-512-leaf-spine-sn5600.json", "b300-roce-two-plane.json"}


@pytest.mark.skipif(VTYSH is None, reason="FRR's vtysh is missing (Debian package frr)")
@pytest.mark.parametrize("example", ETHERNET_EXAMPLES, ids=lambda p: p.stem)
def test_frrs_own_parser_accepts_every_file_of_every_ethernet_example(example, tmp_path):
    out = tmp_path / "frr"
    write_export(FORMATS["frr"], ExportSource(load_design(example), CAT), out)
    confs = sorted(out.glob("*/frr.conf"))
    assert len(confs) == len(ExportSource(load_design(example), CAT).switches)
    for conf in confs:
        run = subprocess.run([VTYSH, "--dryrun", "-f", str(conf)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, f"{conf.parent.name}: {run.stdout}{run.stderr}"


@pytest.mark.skipif(VTYSH is None, reason="FRR's vtysh is missing (Debian package frr)")
def test_the_check_refuses_a_broken_configuration(tmp_path):
    """The dry run is a real check: a misspelt command fails it."""
    src = ExportSource(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), CAT)
    text = frr_files(src)["leaf-1/frr.conf"].replace(" ip address 10.0.0.0/31", " ip adress 10.0.0.0/31")
    conf = tmp_path / "frr.conf"
    conf.write_text(text)
    run = subprocess.run([VTYSH, "--dryrun", "-f", str(conf)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0


def test_every_switch_has_its_own_loopback_asn_and_each_link_a_31():
    src = ExportSource(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), CAT)
    files = frr_files(src)
    switches, links = fabric_links(src)
    plan = routing_plan(switches, links)
    assert set(files) == {f"{s}/frr.conf" for s in switches} | {"interfaces.csv", "README.txt"}
    assert len({s.loopback for s in plan.values()}) == len({s.asn for s in plan.values()}) == len(switches) == 12
    assert sum(len(s.ports) for s in plan.values()) == 2 * len(links) == 2 * 512
    # the CSV has a row per loopback and per port end
    assert files["interfaces.csv"].count("\r\n") == 1 + len(switches) + 2 * len(links)
    leaf = plan["leaf-1"]
    text = files["leaf-1/frr.conf"]
    assert text.count("interface swp") == len(leaf.ports) == 64
    assert text.count(" interface peer-group fabric") == 64
    assert f"router bgp {leaf.asn}\n" in text and f" ip address {leaf.loopback}/32\n" in text


def test_containerlab_takes_its_routing_from_the_same_plan():
    """The SONiC lab's vtysh commands and addresses are the FRR plan's, not a second copy."""
    src = ExportSource(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), CAT,
                       ExportOptions(clab_image="any:1"))   # a custom image keeps every link
    lab = containerlab_yaml(src)
    plan = routing_plan(*fabric_links(src))
    for sw in plan.values():
        assert f"router bgp {sw.asn}" in lab
        assert f"config interface ip add Loopback0 {sw.loopback}/32" in lab
        for p in sw.ports:
            assert f" {p.address}; config interface ipv6 enable" in lab


links_strategy = st.lists(st.tuples(st.integers(0, 7), st.integers(1, 64), st.integers(0, 7), st.integers(1, 64))
                          .filter(lambda t: t[0] != t[2]), max_size=40)


@settings(max_examples=examples(60), deadline=None)
@given(raw=links_strategy)
def test_routing_plan_pairs_each_link_on_one_31_and_numbers_switches_in_order(raw):
    names = [f"sw{k}" for k in range(8)]
    links = [((names[a], pa), (names[b], pb)) for a, pa, b, pb in raw]
    plan = routing_plan(names, links)
    assert [plan[n].asn for n in names] == [ASN_BASE + k for k in range(1, 9)]
    assert all(ipaddress.ip_address(plan[n].loopback) in LOOPBACKS for n in names)
    ends = [(s.name, p) for s in plan.values() for p in s.ports]
    assert len(ends) == 2 * len(links)
    nets = {}
    for name, p in ends:
        iface = ipaddress.ip_interface(p.address)
        nets.setdefault(iface.network, []).append((name, p.peer))
    assert len(nets) == len(links)
    for pair in nets.values():
        assert len(pair) == 2 and pair[0] == pair[1][::-1]
    kept = collapse_bundles(links)
    assert len(kept) == len({frozenset((a[0], b[0])) for a, b in links})
    for sw in plan.values():
        text = frr_conf(sw)
        assert text.count("\ninterface swp") == len(sw.ports)
        assert all(f"neighbor {swp(p.port)} interface peer-group fabric" in text for p in sw.ports)
