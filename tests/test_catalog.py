"""The hardware catalog: sourced entries, clear errors, user overrides."""

import pytest

from designer.catalog import CatalogError, UnknownPartError, default_catalog, load_catalog
from designer.catalog.loader import BUILTIN_DIR, user_catalog_dir

REQUIRED = {
    "switches": {"qm8700", "qm9700", "qm9790", "q3400", "sn5600", "tomahawk5-51t", "tomahawk6-102t"},
    "nics": {"connectx-7", "connectx-8", "bluefield-3-supernic", "thor2"},
    "servers": {"dgx-h100", "dgx-b200", "dgx-b300-xdr", "dgx-b300-eth", "gb200-nvl72-tray", "generic-8gpu"},
    "technologies": {"ib-hdr", "ib-ndr", "ib-xdr", "roce-400g", "roce-800g"},
}


@pytest.fixture(scope="module")
def builtin():
    return load_catalog(BUILTIN_DIR)


def test_required_entries_are_present_and_sourced(builtin):
    for attr, ids in REQUIRED.items():
        section = getattr(builtin, attr)
        assert ids <= set(section), f"{attr} lacks {ids - set(section)}"
        for entry in section.values():
            assert entry.source.strip()
            assert set(entry.estimates) <= {f for f in vars(entry)}
            assert not entry.estimates or entry.estimate_basis


def test_reference_figures(builtin):
    assert builtin.switch("qm8700").ports_at(200) == 40
    assert builtin.switch("qm9700").ports_at(400) == 64 and builtin.switch("qm9700").cages == 32
    assert builtin.switch("qm9700").ports_at(200) == 128
    assert builtin.switch("q3400").ports_at(800) == 144
    sn = builtin.switch("sn5600")
    assert (sn.ports_at(800), sn.ports_at(400), sn.ports_at(200)) == (64, 128, 256)
    assert builtin.switch("tomahawk6-102t").ports_at(1600) == 64
    cx8 = builtin.nic("connectx-8")
    assert cx8.mode_for("infiniband").gbps == 800
    assert (cx8.mode_for("ethernet").ports, cx8.mode_for("ethernet").gbps) == (2, 400)
    h100 = builtin.server("dgx-h100")
    assert (h100.gpus, h100.compute_ports, h100.port_gbps, h100.nvlink_GBps_per_gpu) == (8, 8, 400, 450)
    assert builtin.server("gb200-nvl72-tray").nvlink_domain_gpus == 72
    assert builtin.server("dgx-b300-eth").compute_ports == 16


def test_unverified_figures_are_labelled(builtin):
    for switch in builtin.switches.values():
        assert switch.is_estimate("power_w") and switch.is_estimate("latency_ns")


def test_generic_switch_ids(builtin):
    sw = builtin.switch("generic-48x100g")
    assert sw.ports_at(100) == 48
    with pytest.raises(UnknownPartError, match="unknown switch 'no-such-box'"):
        builtin.switch("no-such-box")


def _copy_builtin(tmp_path):
    target = tmp_path / "catalog"
    target.mkdir()
    for path in BUILTIN_DIR.glob("*.toml"):
        (target / path.name).write_text(path.read_text())
    return target


@pytest.mark.parametrize("entry, says", [
    ('[[switch]]\nid = "x1"\nname = "X"\nfamily = "infiniband"\nport_modes = [{count = 8, gbps = 400}]\n',
     "bad.toml: switch 'x1': missing required field 'source'"),
    ('[[switch]]\nid = "x2"\nname = "X"\nsource = "s"\nfamily = "infiniband"\nport_modes = "64x400"\n',
     "bad.toml: switch 'x2', field 'port_modes': expected a list"),
    ('[[switch]]\nid = "x3"\nname = "X"\nsource = "s"\nfamily = "fibre-channel"\nport_modes = [{count=8, gbps=400}]\n',
     "bad.toml: switch 'x3', field 'family'"),
    ('[[nic]]\nid = "n1"\nname = "N"\nsource = "s"\npower_w = "hot"\n'
     'modes = [{family="ethernet", ports=1, gbps=400}]\n',
     "bad.toml: nic 'n1', field 'power_w': expected a number"),
    ('[[server]]\nid = "s1"\nname = "S"\nsource = "s"\ncompute_nic = "connectx-99"\n',
     "server 's1', field 'compute_nic': unknown NIC 'connectx-99'"),
    ('[[switch]]\nid = "x4"\nname = "X"\nsource = "s"\nestimates = ["power_w"]\nport_modes = [{count=8, gbps=400}]\n',
     "field 'estimate_basis'"),
    ('[[router]]\nid = "r"\n', "unknown section '[[router]]'"),
    ('[[switch]\nid=', "bad.toml: not valid TOML"),
])
def test_a_bad_entry_names_file_entry_and_field(tmp_path, entry, says):
    user = tmp_path / "user"
    user.mkdir()
    (user / "bad.toml").write_text(entry)
    with pytest.raises(CatalogError) as info:
        load_catalog(BUILTIN_DIR, user)
    assert says in str(info.value)


def test_user_catalog_adds_and_overrides(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "mine.toml").write_text(
        '[[switch]]\nid = "qm9700"\nname = "QM9700 (site price list)"\nvendor = "NVIDIA"\nsource = "site"\n'
        'family = "infiniband"\nport_modes = [{count = 64, gbps = 400}]\npower_w = 700.0\n'
        '[[switch]]\nid = "lab-32x400"\nname = "Lab switch"\nsource = "lab"\nfamily = "ethernet"\n'
        'port_modes = [{count = 32, gbps = 400}]\n')
    cat = load_catalog(BUILTIN_DIR, user)
    assert cat.switch("qm9700").name == "QM9700 (site price list)" and cat.switch("qm9700").power_w == 700
    assert cat.switch("lab-32x400").ports_at(400) == 32
    assert cat.origin("switch", "lab-32x400").endswith("mine.toml")
    assert "sn5600" in cat.switches


def test_user_catalog_dir_follows_the_platform_config_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("FABRIC_DESIGNER_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert user_catalog_dir() == tmp_path / "fabric-designer" / "catalog"


def test_the_config_dir_variable_moves_the_user_catalog_and_price_book(tmp_path, monkeypatch):
    from designer.model.physical.prices import user_price_file

    monkeypatch.setenv("FABRIC_DESIGNER_CONFIG_DIR", str(tmp_path / "cfg"))
    assert user_catalog_dir() == tmp_path / "cfg" / "catalog"
    assert user_price_file() == tmp_path / "cfg" / "prices.toml"


def test_a_missing_builtin_catalog_is_one_clear_error(tmp_path):
    with pytest.raises(CatalogError, match="built-in hardware catalog is missing"):
        load_catalog(tmp_path / "nowhere")


def test_lists_offer_technologies_by_family_then_speed():
    cat = default_catalog()
    listed = cat.technologies_by_speed()
    assert sorted(t.id for t in listed) == sorted(cat.technologies)
    infiniband = [t.link_gbps for t in listed if t.family == "infiniband"]
    assert infiniband == sorted(infiniband) and infiniband[0] == 10   # SDR first, not QDR
    families = [t.family for t in listed]
    assert families == sorted(families, key=families.index)   # each family's entries together
