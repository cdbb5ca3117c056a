"""`fabric-designer twin` without the stack: an Ethernet design goes to the routing-stack twin
with its options; bad options are refused before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def test_an_ethernet_design_goes_to_the_routing_twin_with_its_faults(monkeypatch):
    from designer.cli import cmd_twin_routing

    seen = []
    monkeypatch.setattr(cmd_twin_routing, "run_routing_twin", lambda args: seen.append(args) or 7)
    code = main(["twin", str(ROOT / "examples" / "roce-512-leaf-spine-sn5600.json"),
                 "--fault", "switch:spine-3", "--fault", "link:leaf-1--spine-2", "--flows"])
    assert code == 7 and len(seen) == 1
    assert seen[0].fault == ["switch:spine-3", "link:leaf-1--spine-2"] and seen[0].flows
    # an InfiniBand design never reaches it
    main(["twin", str(ROOT / "examples" / "dgx-h100-superpod-1su.json"), "--timeout", "0"])
    assert len(seen) == 1


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


def test_fallback_reasons_are_words_not_log_lines():
    from designer.twin.infiniband import fallback_reason, routing_seconds

    log = ("Nov 27 12:54:14 910206 [606F66C0] 0x01 -> construct_fabric: ERR AB2B: Found more than one root on "
           "fabric with maximum rank 0\n"
           "Nov 27 12:54:14 910248 [606F66C0] 0x01 -> ucast_mgr_route: ftree: cannot build lid matrices\n")
    assert fallback_reason(log, "ftree") == ("ftree found more than one candidate root among the top-tier "
                                             "switches (no root GUID file)")
    quiet = "Nov 27 12:54:14 910248 [606F66C0] 0x01 -> ucast_mgr_route: ftree: cannot build lid matrices\n"
    assert "could not rank the fabric as a fat tree" in fallback_reason(quiet, "ftree")
    timed = ("Nov 27 23:59:59 900000 [1] 0x80 -> Entering MASTER state\n"
             "Nov 28 00:00:00 150000 [1] 0x02 -> osm_ucast_mgr_process: ftree tables configured on all switches\n")
    assert routing_seconds(timed) == pytest.approx(0.25)


def test_a_fabric_over_the_simulators_lids_names_the_limit(monkeypatch):
    from designer.io.project import load_design
    from designer.twin import infiniband
    from designer.twin.processes import TwinError

    monkeypatch.setattr(infiniband, "missing_stack", lambda capture=True: None)
    monkeypatch.setattr(infiniband, "SIM_MAX_LIDS", 200)
    with pytest.raises(TwinError) as info:
        infiniband.run_infiniband_twin(load_design(ROOT / "examples" / "dgx-h100-superpod-1su.json"))
    assert str(info.value) == ("the fabric needs 280 LIDs (12 switches, 268 CAs); the simulator's forwarding "
                               "tables and InfiniBand's unicast LID range hold 200, about 23 servers of 8 NIC "
                               "ports at this switch count")


def test_static_routes_from_opensm_need_the_static_routing_counterpart(capsys):
    su1 = str(ROOT / "examples" / "dgx-h100-superpod-1su.json")
    assert main(["compare", su1, su1, "--static-routes", "opensm"]) == 1
    err = capsys.readouterr().err.strip()
    assert "--counterpart ib-static" in err and "\n" not in err
