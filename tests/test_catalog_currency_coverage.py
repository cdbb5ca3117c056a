"""Catalog currency on every product: each switch, NIC, server, transceiver and cable states its
quarter and status with a source, or is an explicit generic stand-in that states none. Parts no
longer sold (the older InfiniBand generations real captures show) say end-of-life."""

import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import CatalogError, load_catalog
from designer.catalog.loader import BUILTIN_DIR, CURRENCY_KINDS
from tests.helpers import examples

CAT = load_catalog(BUILTIN_DIR)
TABLES = {"switch": CAT.switches, "nic": CAT.nics, "server": CAT.servers,
          "transceiver": CAT.transceivers, "cable": CAT.cables}
PRODUCTS = [(kind, entry_id) for kind in CURRENCY_KINDS for entry_id in TABLES[kind]]


def test_the_kinds_that_carry_currency_are_the_products():
    assert set(CURRENCY_KINDS) == set(TABLES)
    # Technologies and host ports are no products: their parts carry the currency.
    assert all(not t.available and not t.status for t in CAT.technologies.values())


@pytest.mark.parametrize("kind,entry_id", PRODUCTS)
def test_every_product_states_its_currency_or_is_a_stand_in(kind, entry_id):
    entry = TABLES[kind][entry_id]
    if entry.stand_in:
        assert not entry.available and not entry.status
        assert "generic stand-in" in entry.currency_note()
        return
    assert entry.available and entry.status in ("shipping", "announced", "preliminary", "end-of-life"), entry_id
    source = entry.currency_source or entry.source
    assert "http" in source or "docs.nvidia.com" in source, source
    if entry.is_estimate("available"):
        assert "available" in entry.estimate_basis


def test_the_stand_ins_are_the_generic_entries():
    stand_ins = {e.id for table in TABLES.values() for e in table.values() if e.stand_in}
    assert stand_ins == {"tomahawk5-51t", "tomahawk6-102t", "jericho3-ai-leaf", "ramon3-fabric",
                         "generic-8gpu", "generic-1gpu-host",
                         "ieee-400gbase-dr4", "ieee-400gbase-fr4", "qsfpdd-400gbase-sr8",
                         "qsfpdd-400gbase-dr4", "qsfpdd-400gbase-fr4", "smf-lc-duplex", "mmf-mpo12",
                         "mmf-mpo16", "osfp-1.6t-2xdr4-2", "smf-mpo12-4xlc"}
    assert CAT.switch("generic-64x400g").stand_in


def test_media_and_management_switches_get_their_quarter_from_the_currency_file():
    module = CAT.transceivers["mms4x00-ns"]
    assert (module.available, module.status) == ("2022-Q3", "shipping")
    assert module.is_estimate("available") and "Quantum-2" in module.currency_source
    assert CAT.cables["xdr-lacc-2x800g"].available == "2025-Q1"
    assert CAT.switch("sn2201").available == "2022-Q2" and "lore.kernel.org" in CAT.switch("sn2201").currency_note()
    assert CAT.nic("thor2").available == "2024-Q1"
    # A quarter stated by the entry itself stays its own.
    assert CAT.transceivers["osfp-800gbase-dr4"].currency_source == ""


def _copy(tmp_path):
    shutil.copytree(BUILTIN_DIR, tmp_path / "cat")
    return tmp_path / "cat"


def test_a_currency_row_naming_a_stand_in_is_refused(tmp_path):
    folder = _copy(tmp_path)
    path = folder / "currency.toml"
    path.write_text(path.read_text() + '\n[[currency]]\nkind = "cable"\nid = "mmf-mpo12"\navailable = "2020-Q1"\n'
                    'status = "shipping"\nsource = "a datasheet, https://example.com, 2020"\n')
    with pytest.raises(CatalogError, match="'mmf-mpo12' is a generic stand-in") as info:
        load_catalog(folder)
    assert "\n" not in str(info.value)


@settings(max_examples=examples(25), deadline=None)
@given(year=st.integers(2000, 2039), quarter=st.integers(1, 4),
       status=st.sampled_from(["shipping", "announced", "preliminary", ""]))
def test_a_stand_in_stating_currency_is_one_clear_error(tmp_path_factory, year, quarter, status):
    user = tmp_path_factory.mktemp("user")
    stated = f'available = "{year}-Q{quarter}"\n' + (f'status = "{status}"\n' if status else "")
    (user / "mine.toml").write_text(
        '[[cable]]\nid = "my-fiber"\nname = "My fiber"\nkind = "fiber"\nsource = "my supplier, 2026"\n'
        f'stand_in = true\n{stated}')
    with pytest.raises(CatalogError, match="mine.toml: cable 'my-fiber', field 'stand_in'"):
        load_catalog(BUILTIN_DIR, user)
    # Without the quarter and status the same stand-in loads.
    (user / "mine.toml").write_text(
        '[[cable]]\nid = "my-fiber"\nname = "My fiber"\nkind = "fiber"\nsource = "my supplier, 2026"\n'
        'stand_in = true\n')
    assert load_catalog(BUILTIN_DIR, user).cables["my-fiber"].stand_in


NEW_GENERATION = {
    "server": ("gb300-nvl72-tray", "gb300-nvl72-tray-eth", "hgx-b300-xdr", "hgx-b300-eth", "hgx-b300-eth-4plane",
               "vera-rubin-nvl72-tray", "mi300x-8gpu", "mi325x-8gpu", "mi355x-8gpu"),
    "nic": ("connectx-8", "connectx-9", "pollara-400"),
    "switch": ("q3450-ld", "sn6810", "sn6800", "spectrum6-102t"),
    "transceiver": ("osfp-800gbase-dr4", "osfp-2x800gbase-dr4"),
}


@pytest.mark.parametrize("kind,entry_id", [(k, i) for k, ids in NEW_GENERATION.items() for i in ids])
def test_every_new_generation_entry_has_a_url_and_is_listed_in_the_catalog_guide(kind, entry_id):
    from pathlib import Path

    entry = TABLES[kind][entry_id]
    assert "https://" in entry.source, entry.source
    guide = (Path(__file__).resolve().parents[1] / "docs" / "catalog.md").read_text()
    assert f"| `{entry_id}` |" in guide


def test_end_of_life_parts_say_so_in_their_label_and_are_never_a_default():
    eol = [e for table in TABLES.values() for e in table.values() if e.status == "end-of-life"]
    assert {e.id for e in eol} >= {"sx6036", "is5030", "grid-director-4036", "sb7800", "connectx-3"}
    for e in eol:
        assert e.currency_label() == f"end of life (shipped from {e.available})"
        assert e.name_with_status().endswith("(end-of-life)")
    defaults = {t.default_switch for t in CAT.technologies.values() if t.generation in ("HDR", "NDR", "XDR")}
    assert not defaults & {e.id for e in eol}
