"""GB300 NVL72, HGX B300, Vera Rubin NVL72, AMD Instinct on Ethernet, ConnectX-9, Pollara 400 and
co-packaged-optics switches: sourced entries, rack-scale sizing, CPO media, catalog currency."""

import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import CatalogError, default_catalog, load_catalog
from designer.catalog.gpus import gpu_spec
from designer.catalog.loader import BUILTIN_DIR
from designer.model.decisions.counterpart import optics_twin
from designer.model.performance.collectives import estimate
from designer.model.physical.bom import build_bom
from designer.model.topology.presets import new_design, new_design_choice
from designer.model.topology.sizing import SizingError
from tests.helpers import derived, examples

NEW = {
    "servers": ("gb300-nvl72-tray", "gb300-nvl72-tray-eth", "hgx-b300-xdr", "hgx-b300-eth",
                "vera-rubin-nvl72-tray", "mi300x-8gpu", "mi325x-8gpu", "mi355x-8gpu"),
    "nics": ("connectx-9", "pollara-400"),
    "switches": ("q3450-ld", "sn6810", "sn6800", "spectrum6-102t"),
}
CAT = default_catalog()


@pytest.mark.parametrize("attr,entry_id", [(a, i) for a, ids in NEW.items() for i in ids])
def test_every_new_entry_has_a_dated_source_and_its_currency(attr, entry_id):
    entry = getattr(CAT, attr)[entry_id]
    assert "http" in entry.source or "REFERENCE.md" in entry.source
    assert any(str(year) in entry.source for year in range(2023, 2027)), entry.source
    assert entry.available and entry.status in ("shipping", "announced", "preliminary")


def test_vera_rubin_is_marked_preliminary_as_its_source_says():
    vr = CAT.server("vera-rubin-nvl72-tray")
    assert vr.status == "preliminary" and CAT.nic("connectx-9").status == "preliminary"
    assert vr.compute_ports * vr.port_gbps / vr.gpus == 1600


def test_gpu_figures_are_sourced_with_fp8():
    for gpu in ("GB300 (Blackwell Ultra)", "MI300X", "MI325X", "MI355X", "Rubin"):
        spec = gpu_spec(gpu)
        assert spec is not None and spec.id == gpu and spec.source and spec.fp8_dense_TFLOPS
        assert spec.fp8_dense_TFLOPS == pytest.approx(2 * spec.bf16_dense_TFLOPS, rel=0.01)
    assert gpu_spec("Rubin").estimate and not gpu_spec("MI355X").estimate


def test_connectx8_keeps_its_real_port_modes():
    cx8 = CAT.nic("connectx-8")
    assert [(m.family, m.ports, m.gbps) for m in cx8.modes] == [("infiniband", 1, 800), ("ethernet", 2, 400),
                                                                 ("ethernet", 4, 200)]
    assert cx8.mode_for("ethernet").ports == 2   # dual-plane is the default Ethernet mode


@pytest.mark.parametrize("tech,planes", [("ib-xdr", 1), ("roce-800g", 2)])
def test_gb300_1152_gpus_is_rack_aligned_and_measures(tech, planes):
    choice = new_design_choice(CAT, "rail-optimized", gpus=1152, server="gb300-nvl72-tray", technology=tech)
    d = derived(choice.design)
    m = d.metrics
    assert not m.errors and m.gpus == 1152 and m.planes == planes
    # One SU is 8 NVL72 racks of 18 trays; every leaf takes whole racks of one rail.
    assert d.plan.rail_su_size == 144 and d.plan.leaf_down % 18 == 0 and d.plan.rail_leaves > 1
    assert m.gbps_per_gpu == 800
    bom = build_bom(d)
    assert bom.counts["liquid_cooled"]["server_racks"] == 16
    assert not [f for f in bom.findings if f.severity == "error"]
    assert estimate(d, "allreduce", 1 << 30).busbw_GBps > 0


def test_vera_rubin_reports_1_6_tbps_per_gpu():
    d = derived(new_design(CAT, "rail-optimized", gpus=1152, server="vera-rubin-nvl72-tray", technology="ib-xdr"))
    assert d.metrics.gbps_per_gpu == 1600 and not d.metrics.errors


def test_mi355x_builds_on_ethernet_and_is_refused_on_infiniband():
    d = derived(new_design(CAT, "rail-optimized", gpus=1024, server="mi355x-8gpu", technology="roce-400g"))
    assert not d.metrics.errors and d.resolved.nic.id == "pollara-400"
    with pytest.raises(SizingError) as refused:
        new_design(CAT, "rail-optimized", gpus=1024, server="mi355x-8gpu", technology="ib-xdr")
    assert "\n" not in str(refused.value) and "built for ethernet" in str(refused.value)


@pytest.mark.parametrize("server,switch", [("dgx-b300-xdr", "q3450-ld"), ("vera-rubin-nvl72-tray", "sn6810")])
def test_cpo_closed_form_bom_equals_the_link_by_link_walk(server, switch):
    d = derived(new_design(CAT, "rail-optimized", nodes=144, server=server, switch=switch))
    closed, walked = build_bom(d), build_bom(d, link_by_link=True)
    assert closed.counts == walked.counts
    assert [(i.key, i.quantity) for i in closed.items] == [(i.key, i.quantity) for i in walked.items]
    assert closed.counts["transceivers"]["switch_side"] == 0 and closed.counts["transceivers"]["server_side"] > 0


@settings(max_examples=examples(15), deadline=None)
@given(nodes=st.integers(1, 300), twin=st.sampled_from(["q3400", "spectrum6-102t"]))
def test_a_cpo_twin_has_the_same_links_and_servers_and_no_switch_side_modules(nodes, twin):
    server = "dgx-b300-xdr" if twin == "q3400" else "vera-rubin-nvl72-tray"
    try:
        plug = new_design(CAT, "leaf-spine", nodes=nodes, server=server, switch=twin)
    except SizingError:
        return
    cpo = optics_twin(plug, CAT).design
    b_plug, b_cpo = build_bom(derived(plug)), build_bom(derived(cpo))
    assert b_cpo.counts["links_total"] == b_plug.counts["links_total"]
    assert b_cpo.counts["transceivers"]["switch_side"] == 0
    assert b_cpo.counts["transceivers"]["server_side"] == b_plug.counts["transceivers"]["server_side"]


def test_a_design_without_a_twin_is_one_clear_refusal():
    design = new_design(CAT, "leaf-spine", nodes=8, server="dgx-h100", switch="qm9700")
    with pytest.raises(SizingError, match="twin"):
        optics_twin(design, CAT)


def _catalog_with(tmp_path, old: str, new: str):
    shutil.copytree(BUILTIN_DIR, tmp_path / "cat")
    path = tmp_path / "cat" / "switches.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return load_catalog(tmp_path / "cat")


@pytest.mark.parametrize("old,new,message", [
    ('cpo_fiber = "mfp7e30"', 'cpo_fiber = ""', "cpo_fiber"),
    ('cpo_fiber = "mfp7e30"', 'cpo_fiber = "no-such-fiber"', "unknown fiber cable"),
    ('cpo_optic = "dr"', 'cpo_optic = "xx"', "cpo_optic"),
    ('available = "2026-Q1"', 'available = "early 2026"', "YYYY-Qn"),
    ('status = "shipping"', 'status = "soon"', "must be one of shipping"),
    ('pluggable_twin = "q3400"', 'pluggable_twin = "q9999"', "pluggable_twin"),
])
def test_bad_cpo_or_currency_fields_are_one_clear_error(tmp_path, old, new, message):
    with pytest.raises(CatalogError, match=message):
        _catalog_with(tmp_path, old, new)


def test_twins_point_both_ways():
    assert CAT.twin_of("q3400").id == "q3450-ld" and CAT.twin_of("q3450-ld").id == "q3400"
    assert CAT.twin_of("sn6810").id == "spectrum6-102t" and CAT.twin_of("qm9700") is None


def test_currency_file_gives_existing_entries_their_quarter_and_source():
    h100 = CAT.server("dgx-h100")
    assert (h100.available, h100.status) == ("2023-Q1", "shipping") and "2023" in h100.currency_source
    assert not h100.is_estimate("available")
    b300 = CAT.server("dgx-b300-xdr")
    assert b300.is_estimate("available") and "available:" in b300.estimate_basis
    # DGX B200's quarter is sourced (the first deliveries, October 2024), no longer an estimate.
    b200 = CAT.server("dgx-b200")
    assert b200.available == "2024-Q4" and not b200.is_estimate("available") and "8 Oct 2024" in b200.currency_source
    assert CAT.server("generic-8gpu").currency_label() == ""


def test_a_currency_row_naming_an_unknown_entry_is_refused(tmp_path):
    shutil.copytree(BUILTIN_DIR, tmp_path / "cat")
    path = tmp_path / "cat" / "currency.toml"
    path.write_text(path.read_text().replace('id = "dgx-a100"', 'id = "dgx-z900"', 1))
    with pytest.raises(CatalogError, match="unknown server 'dgx-z900'"):
        load_catalog(tmp_path / "cat")


def test_the_default_server_is_the_newest_shipping_one_of_its_family():
    from designer.model.topology.presets import default_server

    assert default_server(CAT, CAT.technology("ib-xdr")).id == "dgx-b300-xdr"
    assert default_server(CAT, CAT.technology("ib-ndr")).id == "dgx-b200"
    assert default_server(CAT, CAT.technology("roce-800g")).id == "dgx-b300-eth"
    # Without --server, `new` keeps DGX H100 where it runs the technology, else the newest.
    assert new_design(CAT, "leaf-spine", gpus=256, technology="ib-ndr").cluster.server == "dgx-h100"
    assert new_design(CAT, "leaf-spine", gpus=1024, technology="ib-xdr").cluster.server == "dgx-b300-xdr"


def test_b300_runs_on_four_planes_as_nvidia_documents_and_gb300_on_two():
    d = derived(new_design(CAT, "rail-optimized", gpus=2048, server="hgx-b300-eth-4plane", technology="roce-800g"))
    assert d.metrics.planes == 4 and d.metrics.gbps_per_gpu == 800 and not d.metrics.errors
    bom = build_bom(d)
    nics = next(i for i in bom.items if i.category == "NICs")
    assert nics.quantity == 256 * 8 and "4 x 200G" in nics.description   # one ConnectX-8 per GPU
    assert CAT.server("gb300-nvl72-tray-eth").planes_hint == 2 and CAT.server("hgx-b300-eth").planes_hint == 2
