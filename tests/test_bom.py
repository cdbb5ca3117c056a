"""Bill of materials: counts reconcile with the metrics, prices and power add up, prices are labelled."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.intent.design import Edit, replace_path
from designer.model.physical.bom import CATEGORIES, ILLUSTRATIVE, build_bom
from designer.model.physical.media import physical_layer
from designer.model.physical.prices import PriceBookError, load_prices, parse_price_book, user_price_file
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import examples, superpod

CAT = default_catalog()

DESIGNS = {
    "superpod-1su": lambda: superpod(1),
    "roce-512-leaf-spine": lambda: new_design(CAT, "leaf-spine", gpus=512, server="dgx-h100", switch="sn5600",
                                               technology="roce-400g"),
    "xdr-b300": lambda: new_design(CAT, "rail-optimized", nodes=64, server="dgx-b300-xdr", technology="ib-xdr"),
    "fat-tree-3-tier": lambda: new_design(CAT, "fat-tree", gpus=4096, server="dgx-h100", switch="qm9700", tiers=3),
    "b300-two-planes": lambda: new_design(CAT, "rail-optimized", nodes=32, server="dgx-b300-eth",
                                          technology="roce-400g"),
    "hgx-top-of-rack": lambda: replace_path(new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100",
                                                       switch="qm9700"), "floorplan.placement", "su-racks"),
}


def bom_of(design, prices=None):
    d = derive(design, CAT)
    return d, build_bom(d, CAT, prices)


@pytest.mark.parametrize("name", DESIGNS)
def test_counts_reconcile_with_the_metrics(name):
    d, bom = bom_of(DESIGNS[name]())
    m = d.metrics
    assert bom.counts["links_by_tier"] == m.links_by_tier
    assert bom.counts["links_total"] == m.links_total
    switches = bom.by_category("Switches")
    assert sum(i.quantity for i in switches) == m.switches_total
    assert {i.key: i.quantity for i in switches} == m.switches_by_model
    assert bom.counts["switches_by_tier"] == m.switches_by_tier
    # NIC cards: the server's compute ports over the ports one card runs in this technology.
    mode = d.resolved.nic.mode_for(d.resolved.technology.family)
    cards = d.design.cluster.servers * math.ceil(d.resolved.ports_per_server / mode.ports)
    assert sum(i.quantity for i in bom.by_category("NICs")) == cards
    # Every link end is a transceiver port or a cable connector, and nothing is left out.
    phys = physical_layer(d, CAT)
    assert all(link.medium != "none" for link in phys.links)
    optical = sum(1 for link in phys.links if link.a_part)
    assert sum(phys.transceiver_ends.values()) == 2 * optical
    assert bom.optics_count == sum(phys.transceivers.values())
    assert bom.counts["spare_ports_by_tier"] == {t: p.ports_free for t, p in m.ports_by_tier.items()}


def test_superpod_bom_has_the_expected_parts():
    d, bom = bom_of(superpod(1))
    parts = {(i.category, i.part_number) for i in bom.items}
    assert ("Switches", "MQM9700-NS2F") in parts
    assert ("Transceivers", "MMA4Z00-NS") in parts
    # fibres are ordered by length: the length is in the part number (MFP7E10-N007)
    assert any(c == "Fiber" and p.startswith("MFP7E10-N0") for c, p in parts)
    sides = {i.description.rsplit(", ", 1)[1]: i.quantity for i in bom.by_category("Transceivers")}
    assert sides == {"switch side": bom.counts["transceivers"]["switch_side"],
                     "server side": bom.counts["transceivers"]["server_side"]}
    # 512 links: one 2 x 400G module per two switch ports, one per two DGX NICs, one fiber per link.
    links = d.metrics.links_total
    ports_on_switches = 2 * links - d.metrics.endpoints
    assert sides["switch side"] == ports_on_switches // 2
    assert sides["server side"] == d.metrics.endpoints // 2
    assert sum(i.quantity for i in bom.by_category("Fiber")) == links


def test_extended_prices_sum_to_the_total_and_per_gpu_figures():
    _, bom = bom_of(DESIGNS["roce-512-leaf-spine"]())
    assert bom.total_cost > 0
    for item in bom.items:
        assert item.extended_price == pytest.approx(item.unit_price * item.quantity, abs=0.01)
        assert item.total_power_w == pytest.approx(item.unit_power_w * item.quantity, abs=0.01)
    assert bom.total_cost == pytest.approx(sum(i.extended_price for i in bom.items), abs=0.005)
    assert bom.total_power_w == pytest.approx(sum(i.total_power_w for i in bom.items), abs=0.005)
    assert bom.cost_per_gpu == pytest.approx(bom.total_cost / 512, abs=0.01)
    assert bom.power_per_gpu_w == pytest.approx(bom.total_power_w / 512, abs=0.01)
    assert list(bom.counts_by_category) == list(CATEGORIES)
    assert [CATEGORIES.index(i.category) for i in bom.items] == sorted(CATEGORIES.index(i.category) for i in bom.items)


def test_power_is_switches_transceivers_nics_and_active_cables():
    d, bom = bom_of(DESIGNS["hgx-top-of-rack"]())
    phys = physical_layer(d, CAT)
    switches = sum(CAT.switch(model).power_w * n for model, n in d.metrics.switches_by_model.items())
    optics = sum(CAT.transceivers[t].power_w * n for (t, _), n in phys.transceivers.items())
    nics = d.resolved.nic.power_w * sum(i.quantity for i in bom.by_category("NICs"))
    cables = sum(phys.cable_power_w.values())
    assert bom.total_power_w == pytest.approx(switches + optics + nics + cables, abs=0.01)


def test_default_prices_are_labelled_illustrative_never_quotes():
    _, bom = bom_of(superpod(1))
    assert bom.illustrative_prices
    assert bom.to_json()["prices"] == ILLUSTRATIVE
    for item in bom.items:
        if item.unit_price:
            assert ILLUSTRATIVE in item.notes
            assert "quote" not in item.notes.replace("not a quote", "")


def test_nics_that_come_with_the_server_are_not_priced_twice():
    _, dgx = bom_of(superpod(1))
    (nic,) = dgx.by_category("NICs")
    assert nic.unit_price == 0 and "included with the DGX H100" in nic.notes
    assert nic.total_power_w > 0
    _, hgx = bom_of(DESIGNS["hgx-top-of-rack"]())
    (nic,) = hgx.by_category("NICs")
    assert nic.unit_price > 0


def test_user_price_book_overrides_and_is_not_called_illustrative(tmp_path):
    user = user_price_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[price_book]\ncurrency = "USD"\n\n[[price]]\nkey = "qm9700"\nunit_price = 12345.5\n'
                    'basis = "our quote 2024-17"\n', encoding="utf-8")
    prices = load_prices()
    _, bom = bom_of(superpod(1), prices)
    (sw,) = bom.by_category("Switches")
    assert sw.unit_price == 12345.5
    assert ILLUSTRATIVE not in sw.notes and str(user) in sw.notes
    # everything else still comes from the built-in book, labelled as such
    assert all(ILLUSTRATIVE in i.notes for i in bom.by_category("Transceivers"))
    extra = tmp_path / "p.toml"
    extra.write_text('[[price]]\nkey = "qm9700"\nunit_price = 1\n', encoding="utf-8")
    _, bom2 = bom_of(superpod(1), load_prices(extra))
    assert bom2.by_category("Switches")[0].unit_price == 1


def test_missing_prices_are_reported():
    book = parse_price_book('[[price]]\nkey = "qm9700"\nunit_price = 100\n', "mine.toml")
    _, bom = bom_of(superpod(1), book)
    assert bom.by_category("Switches")[0].extended_price == 1200
    unpriced = {i.key for i in bom.unpriced}
    assert "mma4z00-ns" in unpriced
    assert any(f.code == "not-priced" and "mma4z00-ns" in f.message for f in bom.findings)


@pytest.mark.parametrize("text, says", [
    ('[[price]]\nkey = "x"\n', "missing field 'unit_price'"),
    ('[[price]]\nkey = "x"\nunit_price = -3\n', "must not be negative"),
    ('[[price]]\nkey = "x"\nunit_price = "cheap"\n', "expected a number"),
    ('[[price]]\nkey = "x"\nunit_price = 1\ncolour = "red"\n', "unknown field 'colour'"),
    ('[[prise]]\nkey = "x"\n', "unknown section 'prise'"),
    ('[[price]\n', "not valid TOML"),
])
def test_bad_price_books_name_file_entry_and_field(text, says):
    with pytest.raises(PriceBookError) as info:
        parse_price_book(text, "/somewhere/prices.toml")
    assert says in str(info.value)
    assert "prices.toml" in str(info.value)


def test_builtin_price_book_is_valid_and_explained():
    book = load_prices(user_file=False)
    assert book.currency == "USD"
    for price in book.prices.values():
        assert price.illustrative and price.basis
    # every switch, NIC, transceiver and cable one can buy has a price; an end-of-life part (the
    # older InfiniBand generations real captures show) has none rather than an invented one
    parts = [*CAT.switches.values(), *CAT.nics.values(), *CAT.transceivers.values(), *CAT.cables.values()]
    assert {p.id for p in parts if p.status != "end-of-life"} <= set(book.prices)
    assert not {p.id for p in parts if p.status == "end-of-life"} & set(book.prices)


def test_edited_design_counts_follow_the_graph():
    base = superpod(1)
    edited = replace_path(base, "edits", (Edit("remove-links", "leaf-1", "spine-1", 2),))
    d, bom = bom_of(edited)
    assert bom.counts["links_by_tier"] == d.metrics.links_by_tier
    assert bom.counts["links_by_tier"]["leaf-spine"] == 254
    fibers = sum(i.quantity for i in bom.by_category("Fiber"))
    assert fibers == d.metrics.links_total


def test_json_carries_items_totals_and_counts():
    _, bom = bom_of(superpod(1))
    doc = bom.to_json()
    for key in ("items", "total_cost", "total_power_w", "cost_per_gpu", "power_per_gpu_w",
                "counts_by_category", "counts", "findings", "currency"):
        assert key in doc
    assert len(doc["items"]) == len(bom.items)
    assert set(doc["items"][0]) >= {"category", "part_number", "description", "quantity", "unit_price",
                                    "extended_price", "unit_power_w", "total_power_w", "notes"}
    assert doc["counts_by_category"]["Transceivers"] == bom.optics_count
    assert bom.cable_count == doc["counts_by_category"]["Fiber"] + doc["counts_by_category"]["Copper cables"]



@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(template=st.sampled_from(["leaf-spine", "rail-optimized", "fat-tree"]),
       nodes=st.integers(min_value=1, max_value=48),
       server=st.sampled_from(["dgx-h100", "hgx-h100", "dgx-b300-xdr", "dgx-a100"]),
       placement=st.sampled_from(["su-racks", "middle-of-row", "network-row"]),
       per_rack=st.integers(min_value=1, max_value=8))
def test_any_small_design_reconciles(template, nodes, server, placement, per_rack):
    tech = {"dgx-b300-xdr": "ib-xdr", "dgx-a100": "ib-hdr"}.get(server, "ib-ndr")
    su = 16 if server == "dgx-a100" else 32  # QM8700 leaves have 20 downlinks at 1:1
    design = new_design(CAT, template, nodes=nodes, server=server, technology=tech, nodes_per_su=su)
    design = replace_path(replace_path(design, "floorplan.placement", placement),
                          "floorplan.servers_per_rack", per_rack)
    d, bom = bom_of(design)
    phys = physical_layer(d, CAT)
    assert bom.counts["links_by_tier"] == d.metrics.links_by_tier
    assert sum(i.quantity for i in bom.by_category("Switches")) == d.metrics.switches_total
    ends = [(e.device, e.port) for link in phys.links for e in (link.a, link.b)]
    assert len(ends) == len(set(ends))
    optical = [link for link in phys.links if link.a_part]
    assert sum(phys.transceiver_ends.values()) == 2 * len(optical)
    assert bom.optics_count == len({(e.key) for link in optical for e in (link.a, link.b)})
    unresolved = [link for link in phys.links if link.medium == "none"]
    assert bool(unresolved) == any(f.code == "no-medium" for f in bom.findings)
    assert bom.total_cost == pytest.approx(sum(i.extended_price for i in bom.items), abs=0.005)
