"""`fabric-designer twin` without the stack: an Ethernet design goes to the routing-stack twin,
or says in one line that it is not available; bad options are refused before any work."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from designer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("designer.cli.cmd_twin_routing") is not None,
                    reason="the routing-stack twin is present: its own tests cover Ethernet designs")
def test_an_ethernet_design_says_the_routing_twin_is_not_available(capsys):
    assert main(["twin", str(ROOT / "examples" / "roce-512-leaf-spine-sn5600.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "fabric-designer twin: error: the routing-stack twin is not available"


def test_whatif_twin_needs_fail_and_an_infiniband_design(capsys):
    assert main(["whatif", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"), "--n-1", "--twin"]) == 1
    assert capsys.readouterr().err.strip().endswith("--twin goes with --fail")
    assert main(["whatif", str(ROOT / "examples" / "roce-512-leaf-spine-sn5600.json"), "--fail", "spine-1",
                 "--twin"]) == 1
    assert "runs the InfiniBand stack" in capsys.readouterr().err


@pytest.mark.parametrize("args, said", [(["--timeout", "0"], "--timeout"),
                                        (["--engine", "magic"], "unknown routing engine 'magic'")])
def test_bad_options_are_one_line(args, said, capsys):
    assert main(["twin", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"), *args]) == 1
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err
