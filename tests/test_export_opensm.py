"""`export --format opensm`: the GUID files and node-name map agree with the design's ibnetdiscover
export, for the examples and for random InfiniBand fabrics; the folder is written atomically."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.export_source import ExportError, ExportSource
from designer.io.exporters import FORMATS, write_export
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.io.opensm import CN_FILE, CONF, IO_FILE, NAME_MAP, ROOT_FILE, conf_fragment, opensm_files
from designer.io.project import load_design
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples

CAT = default_catalog()
ROOT = Path(__file__).resolve().parents[1]


def _guids(text: str) -> list[str]:
    return [line[2:] for line in text.splitlines() if line.startswith("0x")]


def check_agrees_with_ibnetdiscover(src: ExportSource) -> dict[str, str]:
    files = opensm_files(src)
    fabric = parse_ibnetdiscover(export_ibnetdiscover(src.derived, host_name=src.host), "export")
    switches = [d for d in fabric.devices.values() if d.kind == "switch"]
    tiers = {d.id: d.name.split("-")[0].split(".")[-1] for d in switches}
    top = "core" if "core" in tiers.values() else "spine" if "spine" in tiers.values() else "leaf"
    assert sorted(_guids(files[ROOT_FILE])) == sorted(i[2:] for i, t in tiers.items() if t == top)
    # Port GUIDs: node GUID + 1, port 1 of each CA (as ibsim numbers them).
    def port1(node_id: str) -> str:
        return f"{int(node_id[2:], 16) + 1:016x}"
    hcas = [d for d in fabric.devices.values() if d.kind == "host" and not d.aggregation]
    aggregators = [d for d in fabric.devices.values() if d.aggregation]
    assert sorted(_guids(files[CN_FILE])) == sorted(port1(d.id) for d in hcas)
    assert sorted(_guids(files[IO_FILE])) == sorted(port1(d.id) for d in aggregators)
    # The name map names every node the fabric holds, by the name its description carries.
    named = dict(re.findall(r'^0x([0-9a-f]{16}) "([^"\n]*)"$', files[NAME_MAP], re.M))
    assert set(named) == {d.id[2:] for d in fabric.devices.values()}
    for d in switches:
        assert named[d.id[2:]] == d.name
    for d in hcas:
        assert named[d.id[2:]] == d.description
    return files


@pytest.mark.parametrize("example", ["dgx-h100-superpod-1su", "dgx-h100-superpod-4su"])
def test_examples_guid_files_match_the_ibnetdiscover_export(example):
    src = ExportSource(load_design(ROOT / "examples" / f"{example}.json"), CAT)
    files = check_agrees_with_ibnetdiscover(src)
    assert len(_guids(files[IO_FILE])) > 0      # QM9700 switches carry SHARP aggregation nodes
    assert "routing_engine ftree" in files[CONF]


ib_fabrics = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
    "nodes": st.integers(1, 40),
    "radix": st.sampled_from([8, 16, 32, 64]),
    "tiers": st.sampled_from([None, 2, 3]),
    "nodes_per_su": st.integers(2, 16),
    "planes": st.sampled_from([None, 2]),
})


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(ib_fabrics)
def test_any_infiniband_fabric_guid_files_match_its_ibnetdiscover_export(req):
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server="dgx-h100", radix=req["radix"],
                            tiers=req["tiers"], nodes_per_su=req["nodes_per_su"], planes=req["planes"])
        src = ExportSource(design, CAT)
    except (SizingError, ExportError, ValueError):
        assume(False)
        return
    assume(src.family == "infiniband")
    check_agrees_with_ibnetdiscover(src)


def test_conf_fragment_names_the_files_and_refuses_an_unknown_engine():
    text = conf_fragment("updn")
    assert re.search(r"^routing_engine updn$", text, re.M)
    for name, key in ((ROOT_FILE, "root_guid_file"), (CN_FILE, "cn_guid_file"), (IO_FILE, "io_guid_file"),
                      (NAME_MAP, "node_name_map_name")):
        assert re.search(rf"^{key} {re.escape(name)}$", text, re.M)
    with pytest.raises(ValueError, match="unknown routing engine"):
        conf_fragment("magic")


def test_cli_writes_the_folder_and_refuses_an_ethernet_design(tmp_path, capsys):
    out = tmp_path / "sm"
    assert main(["export", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"), "--format", "opensm",
                 "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([ROOT_FILE, CN_FILE, IO_FILE, NAME_MAP, CONF])
    assert len(_guids((out / CN_FILE).read_text())) == 256
    capsys.readouterr()
    eth = tmp_path / "eth"
    assert main(["export", str(ROOT / "examples" / "roce-512-leaf-spine-sn5600.json"), "--format", "opensm",
                 "-o", str(eth)]) == 1
    assert "InfiniBand" in capsys.readouterr().err
    assert not eth.exists()


def test_the_format_is_registered_as_an_infiniband_folder(tmp_path):
    fmt = FORMATS["opensm"]
    assert fmt.folder and fmt.family == "infiniband"
    src = ExportSource(load_design(ROOT / "examples" / "dgx-h100-superpod-1su.json"), CAT)
    written = write_export(fmt, src, tmp_path / "sm")
    assert sorted(p.name for p in written) == sorted([ROOT_FILE, CN_FILE, IO_FILE, NAME_MAP, CONF])
    assert not [p for p in (tmp_path / "sm").iterdir() if p.name not in {w.name for w in written}]


def test_a_fabric_without_aggregation_nodes_names_no_io_file():
    # ftree refuses an I/O file with no GUID in it, so the fragment leaves it out.
    design = new_design(CAT, "fat-tree", nodes=16, server="dgx-h100", radix=8, speed=400, tiers=3,
                        technology="ib-ndr")
    files = opensm_files(ExportSource(design, CAT))
    assert _guids(files[IO_FILE]) == []
    assert not re.search(r"^io_guid_file", files[CONF], re.M)
    assert re.search(r"^root_guid_file root_guids.conf$", files[CONF], re.M)


def test_the_export_configures_the_engine_the_design_names_and_a_file_refuses_an_unknown_one(tmp_path):
    import dataclasses
    import json

    from designer.io.project import ProjectFileError, save_design

    design = load_design(ROOT / "examples" / "dgx-h100-superpod-1su.json")
    assert "routing_engine ftree" in opensm_files(ExportSource(design, default_catalog()))[CONF]
    named = dataclasses.replace(design, performance=dataclasses.replace(design.performance, routing_engine="dfsssp"))
    assert "routing_engine dfsssp" in opensm_files(ExportSource(named, default_catalog()))[CONF]
    path = tmp_path / "named.json"
    save_design(named, path)
    assert load_design(path).performance.routing_engine == "dfsssp"
    doc = json.loads(path.read_text())
    doc["design"]["performance"]["routing_engine"] = "magic"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectFileError):
        load_design(path)
