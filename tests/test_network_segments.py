"""In-band management as a segment of the converged network: the Enterprise RAs' pattern.

NVIDIA's Enterprise RAs (HGX AI Factory, NVL72 AI Factory: "network logical architecture") say the
CPU converged network carries compute, storage, in-band management and end-user traffic, and build
three physical fabrics (compute, converged, out-of-band); the DGX SuperPOD GB200 RA carries storage
and in-band on one "Storage and In-band Ethernet Fabric". A design carries in-band there as a
segment with no switches or cables of its own. The DGX SuperPOD H100 RA gives in-band its own
SN4600C switches, which stay.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import design_from_json, design_to_json
from designer.model.intent.design import ClusterSpec, FabricDesign
from designer.model.intent.networks import NetworkSpec
from designer.model.intent.serde import DesignValidationError
from designer.model.networks.arrangements import arrangements
from designer.model.networks.bom import network_boms
from designer.model.networks.defaults import ra_networks
from designer.model.networks.devices import expand
from designer.model.networks.diagram import network_rows
from designer.model.networks.resilience import single_failures
from designer.model.networks.sizing import size_networks
from designer.model.physical.prices import default_prices
from tests.helpers import examples

CAT = default_catalog()
CONVERGED_SERVERS = sorted(s.id for s in CAT.servers.values() if s.ports_for("converged"))


def _design(server: str, servers: int, networks: tuple[NetworkSpec, ...] | None = None) -> FabricDesign:
    return FabricDesign(cluster=ClusterSpec(server=server, servers=servers),
                        networks=ra_networks(CAT.server(server)) if networks is None else networks)


def _sizes(design: FabricDesign, compute_switches: int = 0) -> dict[str, object]:
    return {s.role: s for s in size_networks(design, CAT, compute_switches)}


@pytest.mark.parametrize("server_id", CONVERGED_SERVERS)
def test_every_converged_pattern_server_states_in_band_on_its_converged_ports_with_a_source(server_id):
    server = CAT.server(server_id)
    inband, converged = server.ports_for("inband"), server.ports_for("converged")
    assert inband is not None and inband.carried_by == "converged"
    assert (inband.count, inband.gbps) == (converged.count, converged.gbps)
    assert "in-band management" in inband.source and "Enterprise RA" in inband.source
    nets = ra_networks(server)
    assert [(n.role, n.template) for n in nets] == [("converged", "leaf-pair-spine"), ("inband", "segment"),
                                                    ("oob", "per-rack")]


def test_the_server_list_covers_the_ras_converged_pattern():
    assert {"gb200-nvl72-tray", "gb300-nvl72-tray", "hgx-b300-xdr", "dgx-b200", "dgx-b300-xdr",
            "hgx-h100"} <= set(CONVERGED_SERVERS)


def test_gb300_nvl72_8_racks_match_the_enterprise_ras_three_physical_fabrics():
    """NVL72 AI Factory Enterprise RA, networking physical topologies: three physical fabrics
    (GPU compute, CPU converged, out-of-band), two SN2201 per GB300 NVL72 rack; in-band has no
    switches of its own."""
    design = _design("gb300-nvl72-tray", 8 * 18)
    sizes = _sizes(design, compute_switches=12)
    assert list(sizes) == ["converged", "inband", "oob"]
    inband = sizes["inband"]
    assert (inband.switch_count, inband.link_count, inband.carried_by) == (0, 0, "converged")
    assert (inband.shared_ports, inband.shared_gbps) == (144 * 2, 400)
    assert sizes["converged"].switch_count > 0
    oob = {g.tier: g.count for g in sizes["oob"].switches}
    assert oob["management (server racks)"] == 8 * 2
    assert "Storage and In-band Ethernet Fabric" in " ".join(inband.notes)


@settings(max_examples=examples(25), deadline=None)
@given(server=st.sampled_from(CONVERGED_SERVERS), servers=st.integers(1, 600))
def test_a_segment_costs_nothing_and_changes_no_other_network(server, servers):
    with_segment = _design(server, servers)
    without = dataclasses.replace(with_segment, networks=tuple(n for n in with_segment.networks
                                                               if n.role != "inband"))
    book = default_prices()
    a = {b.size.role: b for b in network_boms(with_segment, CAT, book, 10)}
    b = {b.size.role: b for b in network_boms(without, CAT, book, 10)}
    assert a["inband"].items == () and a["inband"].total_cost == 0 and a["inband"].total_power_w == 0
    ports = CAT.server(server).ports_for("converged").count
    assert a["inband"].size.shared_ports == servers * ports
    for role in b:
        same = ("switches", "links", "storage_ports", "racks", "errors")
        assert all(getattr(a[role].size, f) == getattr(b[role].size, f) for f in same), role
        assert a[role].items == b[role].items and a[role].total_cost == b[role].total_cost
    carries = [n for n in a["converged"].size.notes if n.startswith("also carries")]
    assert carries == ["also carries In-band management as a segment (VLAN/VRF) on these ports and switches"]


def test_dgx_h100_keeps_its_own_in_band_switches():
    sizes = _sizes(_design("dgx-h100", 128))
    inband = sizes["inband"]
    assert inband.template == "leaf-pair-spine" and inband.switch_count > 0
    assert {g.switch for g in inband.switches} == {"sn4600c"}


def test_a_segment_without_its_carrier_says_so():
    design = _design("gb300-nvl72-tray", 18, networks=(NetworkSpec(role="inband", template="segment"),))
    (inband,) = size_networks(design, CAT, 0)
    assert inband.errors and "does not have" in inband.errors[0] and "converged" in inband.errors[0]


def test_a_segment_of_the_compute_fabric_shares_its_ports():
    design = _design("gb300-nvl72-tray", 18, networks=(
        NetworkSpec(role="inband", template="segment", carried_by="compute"),))
    (inband,) = size_networks(design, CAT, 0)
    assert not inband.errors and inband.carried_by == "compute"
    server = CAT.server("gb300-nvl72-tray")
    assert (inband.shared_ports, inband.shared_gbps) == (18 * server.compute_ports, server.port_gbps)


@pytest.mark.parametrize("kwargs, field", [
    ({"template": "segment", "role": "converged"}, "carried_by"),     # converged on itself
    ({"template": "segment", "carried_by": "bogus"}, "carried_by"),
    ({"template": "segment", "role": "oob"}, "template"),
])
def test_bad_segments_are_refused_with_the_field_named(kwargs, field):
    with pytest.raises(DesignValidationError) as err:
        NetworkSpec(**{"role": "inband", **kwargs})
    assert err.value.field == field


def test_a_segment_round_trips_and_older_files_stay_equal():
    design = _design("gb300-nvl72-tray", 36)
    text = design_to_json(design)
    assert "carried_by" not in text            # "" is left out: files without segments are unchanged
    assert design_from_json(text) == design
    moved = dataclasses.replace(design, networks=(NetworkSpec(role="inband", template="segment",
                                                              carried_by="compute"),))
    assert design_from_json(design_to_json(moved)) == moved


def test_a_segment_has_no_devices_and_draws_its_carrier_and_shared_ports():
    design = _design("gb300-nvl72-tray", 144)
    inband = _sizes(design)["inband"]
    assert expand(inband, 144, 18, lambda i: f"s{i}") == ([], [])
    rows, bundles = network_rows(inband, 144)
    assert [(r.key, r.count) for r in rows] == [("leaf", 0), ("servers", 144)]
    assert bundles == [(0, 1, "288 x 400G ports shared with Converged / storage (north-south)")]
    (failure,) = single_failures(inband, 144)
    assert failure.units == 0 and not failure.stops_jobs and "none of its own" in failure.effect


def test_the_arrangements_carry_in_band_and_price_it_at_nothing():
    from designer.model.topology.presets import new_design

    base = new_design(CAT, "rail-optimized", gpus=576, server="gb300-nvl72-tray")
    design = dataclasses.replace(base, networks=ra_networks(CAT.server("gb300-nvl72-tray")))
    options = {a.key: a for a in arrangements(design, CAT, default_prices())}
    assert options["design"].available and options["hybrid"].available
    without = dataclasses.replace(design, networks=tuple(n for n in design.networks if n.role != "inband"))
    plain = {a.key: a for a in arrangements(without, CAT, default_prices())}
    assert options["design"].total_cost == plain["design"].total_cost
    assert options["design"].switches == plain["design"].switches


def test_cli_bom_text_json_and_csv_carry_in_band_for_gb300(tmp_path, capsys):
    import csv

    path = tmp_path / "gb300.json"
    assert main(["new", "--server", "gb300-nvl72-tray", "--gpus", "576", "-o", str(path)]) == 0
    assert "In-band management (a segment of the converged network" in capsys.readouterr().out
    assert main(["bom", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Network: In-band management (segment, ethernet)" in text
    assert "carried by Converged / storage (north-south): 0 switches" in text
    assert main(["bom", str(path), "--json", "-o", str(tmp_path / "bom.csv")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cluster_total"]["networks"] == ["compute", "converged", "inband", "oob"]
    inband = next(n for n in doc["networks"] if n["role"] == "inband")
    assert (inband["template"], inband["carried_by"], inband["switches"], inband["links"]) == \
        ("segment", "converged", [], [])
    with open(tmp_path / "bom.csv", encoding="utf-8-sig") as fh:
        rows = [r for r in csv.reader(fh) if r[-1] == "In-band management"]
    assert [r[0] for r in rows] == ["Network total", "Note"]
    assert main(["new", "--server", "gb300-nvl72-tray", "--gpus", "576", "--networks", "compute",
                 "-o", str(tmp_path / "c.json")]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "c.json").read_text()).get("networks") is None


def test_failing_converged_leaves_takes_in_band_with_them():
    from designer.model.networks.failures import match_network_switches, network_failures

    sizes = size_networks(_design("gb300-nvl72-tray", 144), CAT, 12)
    failed, rest = match_network_switches(["conv-leaf-01a", "conv-leaf-01b", "conv-leaf-02a"], sizes)
    assert not rest
    effects = {f.network: f for f in network_failures(failed, sizes, 144)}
    assert set(effects) == {"converged", "inband"}
    conv, inband = effects["converged"], effects["inband"]
    assert (inband.servers_cut, inband.servers_degraded) == (conv.servers_cut, conv.servers_degraded) == (54, 54)
    assert inband.failed == () and "rides Converged" in inband.effects[0]


def test_a_segment_adds_no_expected_failures_of_its_own():
    from designer.model.decisions.interruptions import load_rates
    from designer.model.networks.resilience import expected_failures

    inband = _sizes(_design("gb300-nvl72-tray", 144))["inband"]
    assert expected_failures(inband, load_rates()) == ()


def test_the_draw_io_network_pages_label_each_bundle_with_its_count_per_rack():
    import xml.etree.ElementTree as ET
    from pathlib import Path

    from designer.io.export_source import ExportSource
    from designer.io.network_drawio import network_pages
    from designer.io.project import load_design

    design = load_design(Path(__file__).resolve().parents[1] / "examples" / "gb300-nvl72-8rack.json")
    pages = ET.fromstring("<mxfile>" + "\n".join(network_pages(ExportSource(design, CAT))) + "</mxfile>")
    sizes = _sizes(design)
    for page in pages.iter("diagram"):
        size = next(s for s in sizes.values() if s.label == page.get("name"))
        edges = [o for o in page.iter("object") if o.get("id", "").startswith("b")]
        assert edges and all(" x " in o.get("label") for o in edges), size.role   # count and speed
        racked = [o for o in edges if o.get("per_rack")]
        assert racked, size.role
        for o in racked:
            assert [int(n) for n in o.get("per_rack").split(",")] == list(size.rack_links)
            assert f"{size.rack_links[0]} x {o.get('gbps')}G per rack" in o.get("label")
