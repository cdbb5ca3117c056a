"""`fabric-designer export`: every format from the command line, refusals in one line, atomic writes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.io.exporters import FORMATS
from designer.io.project import load_design, save_design
from designer.model.intent.design import Edit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
IB = EXAMPLES / "dgx-h100-superpod-1su.json"
ETH = EXAMPLES / "roce-512-leaf-spine-sn5600.json"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_is_written_from_the_command_line(fmt, tmp_path, capsys):
    design = ETH if FORMATS[fmt].family == "ethernet" else IB
    out = tmp_path / f"out{FORMATS[fmt].extension}"
    assert main(["export", str(design), "--format", fmt, "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    if fmt == "frr":
        assert {"README.txt", "interfaces.csv", "leaf-1", "spine-4"} <= {p.name for p in out.iterdir()}
        assert (out / "leaf-1" / "frr.conf").read_text().startswith("! FRR configuration of leaf-1")
    elif FORMATS[fmt].folder:
        first = {"netbox": ["01-sites.csv", "02-manufacturers.csv"], "opensm": ["cn_guids.conf", "ib-node-name-map"]}
        assert sorted(p.name for p in out.iterdir())[:2] == first[fmt]
    else:
        assert out.stat().st_size > 100
    assert not [p for p in tmp_path.rglob(".*.tmp")], "a temporary file was left behind"


def _broken(tmp_path) -> Path:
    design = dataclasses.replace(load_design(IB), edits=(Edit("add-links", "leaf-1", "spine-1", 40),))
    path = tmp_path / "broken.json"
    save_design(design, path)
    return path


def test_a_design_with_errors_is_refused_unless_forced(tmp_path, capsys):
    broken = _broken(tmp_path)
    out = tmp_path / "topology.conf"
    out.write_text("old\n")
    assert main(["export", str(broken), "-f", "slurm-tree", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "errors" in err and "--force" in err
    assert out.read_text() == "old\n"  # untouched
    assert main(["export", str(broken), "-f", "slurm-tree", "-o", str(out), "--force"]) == 0
    assert "exported anyway" in capsys.readouterr().err
    assert out.read_text().startswith("# Slurm topology.conf")


@pytest.mark.parametrize("args, message", [
    (["-f", "clab"], "is for Ethernet designs"),
    (["-f", "slurm-tree", "--view", "su:9"], "SU 9 does not exist"),
    (["-f", "slurm-tree", "--view", "plane:2"], "plane 2 does not exist"),
    (["-f", "slurm-tree", "--node-pattern", "gpu"], "must contain {n}"),
])
def test_refusals_are_one_line_and_write_nothing(args, message, tmp_path, capsys):
    out = tmp_path / "out.txt"
    assert main(["export", str(IB), *args, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_usage_errors_name_the_option(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["export", str(IB), "-f", "visio", "-o", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    assert "--format" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", str(IB), "-f", "dot", "-o", str(tmp_path / "x"), "--view", "rack:1"])
    assert "malformed view" in capsys.readouterr().err


def test_output_places_that_cannot_work_are_refused(tmp_path, capsys):
    assert main(["export", str(IB), "-f", "dot", "-o", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["export", str(IB), "-f", "netbox", "-o", str(blocker)]) == 1
    assert "writes a folder" in capsys.readouterr().err
    assert main(["export", str(IB), "-f", "dot", "-o", str(tmp_path / "missing" / "x.dot")]) == 1
    assert "does not exist" in capsys.readouterr().err
