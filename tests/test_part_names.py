"""Part names as people type them: ids in any case, the vendor's model name or part number."""

import subprocess
import sys
from pathlib import Path

import pytest

from designer.catalog import UnknownPartError, default_catalog
from designer.io.project import load_design
from designer.model.topology.presets import new_design

CAT = default_catalog()
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("typed, expected", [
    ("QM9700", "qm9700"), ("qm9700", "qm9700"), ("MQM9700-NS2F", "qm9700"), ("mqm9700-ns2f", "qm9700"),
    ("Q3400", "q3400"), ("Q3400-RA", "q3400"), ("SN5600", "sn5600"), ("SN5400", "sn5400"), ("QM8700", "qm8700"),
])
def test_switches_by_model_name_part_number_or_id_in_any_case(typed, expected):
    assert CAT.switch(typed).id == expected


def test_servers_nics_and_technologies_in_any_case():
    assert CAT.server("DGX-H100").id == "dgx-h100"
    assert CAT.nic("ConnectX-7").id == "connectx-7"
    assert CAT.technology("IB-NDR").id == "ib-ndr"


@pytest.mark.parametrize("typed", ["Spectrum-4", "Quantum-2", "QM97", "", "qm9700x"])
def test_ambiguous_or_unknown_names_are_refused_with_the_known_ids(typed):
    with pytest.raises(UnknownPartError, match="known: .*qm9700"):
        CAT.switch(typed)


def test_new_writes_the_catalog_id_whatever_was_typed(tmp_path):
    design = new_design(CAT, "rail-optimized", nodes=32, switch="QM9700", server="DGX-H100", technology="IB-NDR")
    assert (design.fabric.switch, design.cluster.server, design.fabric.technology) == ("qm9700", "dgx-h100", "ib-ndr")


def test_without_a_speed_the_switch_runs_at_its_own(tmp_path):
    xdr = new_design(CAT, "rail-optimized", nodes=32, server="dgx-b300-xdr", switch="Q3400")
    assert xdr.fabric.switch == "q3400"
    from designer.model.topology.derive import derive
    assert derive(xdr, CAT).metrics.link_gbps == 800
    # A DGX H100's 400G NICs on an 800G-only switch: a clear refusal naming the NIC, not "no 400G ports".
    out = subprocess.run([sys.executable, "-m", "designer.cli.main", "new", "--template", "rail-optimized",
                          "--nodes", "32", "--switch", "q3400", "-o", str(tmp_path / "x.json")],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 1 and "ConnectX-7" in out.stderr and "no 400G ports" not in out.stderr
    assert not (tmp_path / "x.json").exists()


def test_cli_takes_vendor_names(tmp_path):
    out = tmp_path / "v.json"
    run = subprocess.run([sys.executable, "-m", "designer.cli.main", "new", "--template", "leaf-spine", "--gpus", "64",
                          "--switch", "QM9700", "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    assert load_design(out).fabric.switch == "qm9700"


def test_a_closed_pipe_ends_quietly():
    code = ("import os, sys\n"
            "r, w = os.pipe(); os.close(r)\n"
            "os.dup2(w, 1)\n"
            "from designer.cli.main import main\n"
            "sys.exit(main(['metrics', 'examples/k64-fat-tree-hosts.json', '--json']))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
