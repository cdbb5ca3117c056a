"""Counterpart designs keep the cluster and its targets while the fabric changes technology."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import UnknownPartError, default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES, make_counterpart
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import Price, PriceBook, default_prices
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import cli_run, examples, superpod

CAT = default_catalog()


@pytest.mark.parametrize("tech", [t for t in COUNTERPART_TECHNOLOGIES if t != "ib-xdr"])
def test_superpod_counterparts_keep_gpus_and_bisection_ratio(tech):
    original = derive(superpod(1), CAT).metrics
    result = make_counterpart(superpod(1), tech, CAT)
    m = derive(result.design, CAT).metrics
    assert m.gpus == original.gpus == 256
    assert m.bisection_ratio == pytest.approx(original.bisection_ratio)
    assert m.technology == tech
    assert not m.errors


def test_ethernet_counterpart_of_one_su_compares_the_technologys_switches_by_cost():
    # SN5600 in 128 x 400G mode: two rails of the SU per leaf fill its 64 downlinks, 4 leaves and
    # 2 spines (6 boxes) on twin-port optics; SN5400 (64 x 400G): 8 full leaves and 4 spines
    # (12 boxes) on a module per link. Both are sized and priced; the whole bill of materials decides.
    result = make_counterpart(superpod(1), "roce-400g", CAT)
    d = derive(result.design, CAT)
    (note,) = [n for n in result.notes if n.startswith("switch:")]
    assert "SN5600 in 128 x 400G mode: 6 switches" in note and "SN5400 in 64 x 400G mode: 12 switches" in note
    costs = {}
    for sid in ("sn5600", "sn5400"):
        # Each switch with its own cheapest layout: the SN5400 has no room for two rails per leaf.
        grouped = result.design.fabric.rails_per_leaf if sid == result.design.fabric.switch else None
        alone = dataclasses.replace(result.design, fabric=dataclasses.replace(
            result.design.fabric, switch=sid, rails_per_leaf=grouped))
        costs[sid] = build_bom(derive(alone, CAT), CAT).total_cost
    assert d.resolved.leaf_switch.id == min(costs, key=costs.get) and d.resolved.family == "ethernet"
    expected = {"sn5600": {"leaf": 4, "spine": 2, "core": 0}, "sn5400": {"leaf": 8, "spine": 4, "core": 0}}
    assert d.metrics.switches_by_tier == expected[d.resolved.leaf_switch.id]
    assert d.metrics.links_by_tier["leaf-spine"] == 256
    assert d.metrics.oversubscription("leaf") == pytest.approx(1.0)
    assert any("leaf oversubscription 1.00:1 (asked 1:1)" in n for n in result.notes)


def test_ethernet_counterpart_takes_the_cheaper_switch_when_the_price_book_says_so():
    # With the SN5400 priced low, its fabric is the cheaper one; with the SN5600 low, the SN5600's.
    for cheap, other, tiers in (("sn5400", "sn5600", {"leaf": 8, "spine": 4, "core": 0}),
                                ("sn5600", "sn5400", {"leaf": 4, "spine": 2, "core": 0})):
        book = default_prices().merged(PriceBook("USD", {cheap: Price(cheap, 1000.0), other: Price(other, 90000.0)}))
        d = derive(make_counterpart(superpod(1), "roce-400g", CAT, prices=book).design, CAT)
        assert d.resolved.leaf_switch.id == cheap and d.metrics.switches_by_tier == tiers


def test_ethernet_counterpart_with_an_unpriced_switch_never_takes_it_as_free():
    # The SN5400 has no price: the priced SN5600 fabric is chosen and the note says why.
    prices = default_prices()
    book = PriceBook(prices.currency, {k: v for k, v in prices.prices.items() if k != "sn5400"})
    result = make_counterpart(superpod(1), "roce-400g", CAT, prices=book)
    assert result.design.fabric.switch == "sn5600"
    # Taken as free, its fabric would have been the cheaper one.
    assert any(n.startswith("Spectrum-4 SN5400 was not compared by cost (incomplete: no price for")
               for n in result.notes)


def test_slower_technology_splits_ports_over_planes_to_keep_server_bandwidth():
    b300 = new_design(CAT, "rail-optimized", nodes=64, server="dgx-b300-xdr", technology="ib-xdr")
    result = make_counterpart(b300, "roce-400g", CAT)
    d = derive(result.design, CAT)
    assert d.resolved.planes == 2 and d.resolved.rails == 8
    assert d.resolved.ports_per_server * d.resolved.link_gbps == 8 * 800
    assert any("2 planes" in n for n in result.notes)


def test_oversubscription_target_is_kept():
    design = new_design(CAT, "leaf-spine", gpus=1152, server="dgx-h100", switch="qm9700", oversubscription=3.0)
    m = derive(make_counterpart(design, "roce-400g", CAT).design, CAT).metrics
    assert m.oversubscription("leaf") == pytest.approx(3.0)


def test_counterpart_command(tmp_path):
    out = tmp_path / "eth.json"
    run = cli_run("counterpart",
                  "examples/dgx-h100-superpod-1su.json", "--technology", "roce-400g", "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert load_design(out).fabric.technology == "roce-400g"
    bad = cli_run("counterpart",
                  "examples/dgx-h100-superpod-1su.json", "--technology", "token-ring", "-o",
                  str(tmp_path / "x.json"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.json").exists()


def test_counterpart_name_replaces_the_technology_tag():
    result = make_counterpart(superpod(1), "roce-400g", CAT)
    ib = CAT.technology("ib-ndr")
    assert result.design.meta.name == f"{superpod(1).meta.name} \u2013 {CAT.technology('roce-400g').name}"
    from designer.model.decisions.counterpart import counterpart_name
    assert counterpart_name("DGX H100 SuperPOD, 1 SU (NDR)", ib, CAT.technology("roce-400g")) == \
        "DGX H100 SuperPOD, 1 SU \u2013 RoCE 400GbE (Spectrum-X)"
    assert counterpart_name("Lab (phase 2)", ib, CAT.technology("roce-400g")).startswith("Lab (phase 2) \u2013")


def test_h100_xdr_counterpart_is_refused_in_one_line():
    with pytest.raises(SizingError) as err:
        make_counterpart(superpod(1), "ib-xdr", CAT)
    assert str(err.value) == "DGX H100's ConnectX-7 runs at most 400G; InfiniBand XDR 800G needs ConnectX-8 servers"


def test_b300_spectrum_counterpart_on_xdr_uses_the_xdr_variant():
    eth = new_design(CAT, "rail-optimized", nodes=256, server="dgx-b300-eth", technology="roce-800g",
                     nodes_per_su=64)
    result = make_counterpart(eth, "ib-xdr", CAT)
    d = derive(result.design, CAT)
    assert d.resolved.server.id == "dgx-b300-xdr"
    assert (d.resolved.ports_per_server, d.resolved.link_gbps, d.resolved.planes) == (8, 800, 1)
    assert any("network variant" in n for n in result.notes)
    back = derive(make_counterpart(result.design, "roce-400g", CAT).design, CAT).resolved
    assert (back.server.id, back.ports_per_server, back.link_gbps, back.planes) == ("dgx-b300-eth", 16, 400, 2)


@settings(max_examples=examples(30), deadline=None)
@given(server=st.sampled_from(sorted(CAT.servers)), tech=st.sampled_from(COUNTERPART_TECHNOLOGIES),
       target=st.sampled_from(COUNTERPART_TECHNOLOGIES), sus=st.integers(1, 3))
def test_counterparts_never_change_builtin_nics(server, tech, target, sus):
    """A counterpart keeps the server's NIC, ports and speed, or moves to a catalog variant."""
    srv = CAT.server(server)
    try:
        design = new_design(CAT, "rail-optimized", nodes=16 * sus, server=server, technology=tech,
                            nodes_per_su=16)
        derive(design, CAT)
        result = make_counterpart(design, target, CAT)
    except (SizingError, UnknownPartError):
        return
    new = derive(result.design, CAT).resolved
    if new.server.id == srv.id:
        assert new.nic.id == srv.compute_nic
        old = derive(design, CAT).resolved
        mode = new.nic.mode_for(new.family)
        # Same NIC: its ports only split into the NIC's own sub-ports, never beyond what it offers.
        assert mode is not None and new.link_gbps <= mode.gbps
        assert new.ports_per_server <= old.ports_per_server * mode.ports
    else:
        assert new.server.chassis and new.server.chassis == srv.chassis
        assert new.nic.id == new.server.compute_nic
        assert new.ports_per_server == new.server.compute_ports
        assert new.port_gbps <= new.server.port_gbps


def test_rack_scale_counterpart_keeps_whole_rack_sus():
    # A GB200 NVL72 SU (8 racks of 18 trays) larger than an Ethernet leaf stays whole: each rail
    # spreads over one leaf per rack group instead of the SU shrinking through a rack.
    gb200 = new_design(CAT, "rail-optimized", nodes=576, server="gb200-nvl72-tray")
    result = make_counterpart(gb200, "roce-400g", CAT)
    d = derive(result.design, CAT)
    assert result.design.fabric.nodes_per_su == 144 and not d.metrics.errors
    assert not {"partial-rack", "split-rack"} & {f.code for f in d.metrics.findings}
    assert d.plan.rail_leaf_size % 18 == 0


def test_a_family_switch_lands_on_the_same_link_speed_or_the_nearest_below():
    from designer.model.decisions.counterpart import family_technology

    cat = default_catalog()
    techs = list(cat.technologies.values())
    for tech in techs:
        for family in {t.family for t in techs}:
            chosen = family_technology(tech, family, cat)
            options = [t for t in techs if t.family == family]
            assert chosen.family == family
            speeds = {t.link_gbps for t in options}
            if tech.link_gbps in speeds:
                assert chosen.link_gbps == tech.link_gbps
            elif any(s < tech.link_gbps for s in speeds):
                assert chosen.link_gbps == max(s for s in speeds if s < tech.link_gbps)
            else:
                assert chosen.link_gbps == min(speeds)
    assert family_technology(cat.technology("roce-400g"), "infiniband", cat).id == "ib-ndr"
    assert family_technology(cat.technology("ib-xdr"), "ethernet", cat).id == "roce-400g"
    assert family_technology(cat.technology("ib-sdr"), "ethernet", cat).link_gbps == 400
