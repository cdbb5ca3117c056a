"""The InfiniBand twin on the real stack: ibsim, OpenSM and ibnetdiscover (Debian: ibsim-utils,
opensm, infiniband-diags). Each run uses its own simulator on a private abstract socket and its
own temporary folder, so tests run side by side; every process a run starts is gone after it,
whether it ended well, by an error, a cancel, Ctrl-C or a timeout."""

from __future__ import annotations

import dataclasses
import os
import stat
import threading
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.io.project import load_design
from designer.twin import processes as processes_module
from designer.twin.infiniband import TwinOptions, missing_stack, run_infiniband_twin
from designer.twin.processes import Processes, TwinCancelled, TwinError

ROOT = Path(__file__).resolve().parents[1]
SU1 = ROOT / "examples" / "dgx-h100-superpod-1su.json"

# The reason names the packages this machine lacks (and the apt-get line that installs them).
pytestmark = pytest.mark.skipif(missing_stack() is not None, reason=missing_stack() or "")


@pytest.fixture
def started(monkeypatch):
    """Every Processes of the test, to look at its programs and folder afterwards."""
    runs: list[Processes] = []
    pids: list[int] = []
    original_init, original_start = Processes.__init__, Processes.start

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        runs.append(self)

    def start(self, *args, **kwargs):
        proc = original_start(self, *args, **kwargs)
        pids.append(proc.pid)
        return proc

    monkeypatch.setattr(Processes, "__init__", init)
    monkeypatch.setattr(Processes, "start", start)
    return runs, pids


def assert_all_gone(runs: list[Processes], pids: list[int]) -> None:
    assert pids, "the run started no program"
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)           # reaped, and its process group killed
    for run in runs:
        assert not run.folder.exists()


def test_ftree_routes_the_1su_example_with_the_exported_files(started):
    result = run_infiniband_twin(load_design(SU1))
    assert result.routed and result.routed_by == "ftree" and result.reason == ""
    assert result.subnet_up and result.seconds_to_subnet_up > 0
    assert (result.switches, result.cas) == (12, 268)
    load = result.load
    assert load is not None
    assert [p.pattern for p in load.patterns] == ["ring", "tree", "all-to-all"]
    a2a = load.pattern("all-to-all")
    assert a2a.flows == 256 * 255 and a2a.unrouted == 0
    # ftree on a non-blocking two-tier fat tree: all-to-all spreads evenly over every uplink.
    tiers = {t.tier: t for t in load.routes_per_port}
    assert tiers["leaf up"].least == tiers["leaf up"].most
    assert a2a.throughput == pytest.approx(a2a.model_throughput)
    assert_all_gone(*started)


def test_cli_json_has_each_pattern_beside_the_model(capsys, started):
    assert main(["twin", str(SU1), "--json", "--engine", "updn"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["engine"] == "updn" and doc["routed"] is True and doc["fallback_reason"] is None
    for p in doc["load"]["patterns"]:
        assert {"worst_port_load", "model_worst_port_load", "throughput", "model_throughput"} <= set(p)
    assert [t["tier"] for t in doc["load"]["all_to_all_routes_per_port"]] == ["leaf down to NICs", "leaf up",
                                                                               "spine down"]
    assert doc["simulated_link_speed"] == "4xQDR"
    assert_all_gone(*started)


@pytest.mark.parametrize("stage", ["starting the simulator", "routing with OpenSM (ftree)"])
def test_cancel_and_ctrl_c_stop_every_process(stage, started):
    cancel = threading.Event()

    def progress(message: str) -> None:
        if message == stage:
            cancel.set()

    with pytest.raises(TwinCancelled):
        run_infiniband_twin(load_design(SU1), cancel=cancel, progress=progress)
    assert_all_gone(*started)

    def interrupt(message: str) -> None:
        if message == stage:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_infiniband_twin(load_design(SU1), progress=interrupt)
    assert_all_gone(*started)


def test_a_timeout_stops_every_process(monkeypatch, started):
    # The clock jumps past the deadline once OpenSM is started: no wall-clock wait in the test.
    real = processes_module.time.monotonic
    jumped = {"on": False}
    monkeypatch.setattr(processes_module.time, "monotonic", lambda: real() + (10**6 if jumped["on"] else 0))

    def progress(message: str) -> None:
        if message.startswith("routing"):
            jumped["on"] = True

    with pytest.raises(TwinError, match="timed out"):
        run_infiniband_twin(load_design(SU1), options=TwinOptions(timeout=60), progress=progress)
    assert_all_gone(*started)


def _fake(tmp_path: Path, name: str, script: str) -> None:
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_opensm_exiting_gives_one_line_and_leaves_nothing(tmp_path, monkeypatch, started, capsys):
    _fake(tmp_path, "opensm", "echo 'opensm: cannot bind' >&2\nexit 3\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    assert main(["twin", str(SU1)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "fabric-designer twin: error: OpenSM exited (code 3) without bringing the subnet up: " \
                      "opensm: cannot bind"
    assert_all_gone(*started)


def test_a_simulator_that_does_not_come_up_gives_one_line(tmp_path, monkeypatch, started):
    _fake(tmp_path, "ibsim", "echo 'ibpanic: [1] new_node: no more nodes (max 4): Success'\nexit 255\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    with pytest.raises(TwinError) as info:
        run_infiniband_twin(load_design(SU1))
    assert str(info.value) == ("the simulator did not come up: the program exited (code 255) "
                               "(ibsim: no more nodes (max 4))")
    assert_all_gone(*started)


def test_missing_stack_names_the_packages(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["twin", str(SU1)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "ibsim-utils" in err and "opensm" in err and "apt-get install ibsim-utils opensm infiniband-diags" in err


def test_bad_faults_are_refused_before_anything_starts(capsys, started):
    for fault, said in (("link:leaf-99:1", "no switch named 'leaf-99'"), ("width:leaf-1:99", "no cable at that port"),
                        ("server:nobody", "no server named 'nobody'"), ("bogus", "use link:DEVICE:PORT"),
                        ("link:leaf-1:33 link:spine-1:1", "another fault already takes")):
        assert main(["twin", str(SU1), "--fault", *fault.split()]) == 1
        err = capsys.readouterr().err.strip()
        assert said in err and "\n" not in err
    assert started[1] == []


def test_whatif_twin_sets_the_rerouted_throughput_beside_the_analytic_figure(capsys, started):
    import json

    assert main(["whatif", str(SU1), "--fail", "spine-2", "--twin", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    twin = doc["twin"]
    assert twin["routed_after"] is True and twin["faults"][0]["target"] == "switch:spine-2"
    a2a = next(p for p in twin["patterns"] if p["pattern"] == "all-to-all")
    # One spine of four gone: the analytic what-if keeps 3/4 of the bisection; on the rerouted
    # tables the traffic that stays under a leaf is untouched, so more than that gets through.
    assert a2a["analytic_after"] == pytest.approx(0.75)
    assert a2a["throughput_before"] == pytest.approx(1.0)
    assert 0.75 <= a2a["throughput_after"] < 1.0
    assert_all_gone(*started)


def test_ftree_routes_a_three_tier_fat_tree_as_evenly_as_the_model(started):
    from designer.catalog import default_catalog
    from designer.model.topology.presets import new_design

    design = new_design(default_catalog(), "fat-tree", nodes=16, server="dgx-h100", radix=8, speed=400, tiers=3,
                        technology="ib-ndr")
    result = run_infiniband_twin(design)
    assert result.routed and result.routed_by == "ftree"
    tiers = {t.tier: t for t in result.load.routes_per_port}
    assert set(tiers) == {"leaf down to NICs", "leaf up", "spine down", "spine up", "core down"}
    for t in tiers.values():
        assert t.least == t.most          # every port of a tier carries as many all-to-all flows
    a2a = result.load.pattern("all-to-all")
    assert a2a.throughput == pytest.approx(a2a.model_throughput)
    assert_all_gone(*started)


def test_opensm_keeps_its_cache_in_the_runs_folder(monkeypatch):
    # Not /var/cache/opensm: runs side by side would read each other's LIDs.
    seen: dict[str, dict] = {}
    original = Processes.start

    def start(self, argv, log, env=None, cwd=None, stdin=False):
        seen[argv[0]] = {"env": dict(env or {}), "folder": self.folder}
        return original(self, argv, log, env, cwd, stdin)

    monkeypatch.setattr(Processes, "start", start)
    run_infiniband_twin(load_design(SU1), options=TwinOptions(loads=False))
    cache = Path(seen["opensm"]["env"]["OSM_CACHE_DIR"])
    assert cache.parent == seen["opensm"]["folder"]
    assert seen["ibsim"]["env"]["IBSIM_SOCKNAME"] == seen["opensm"]["env"]["IBSIM_SOCKNAME"]
    assert seen["ibsim"]["env"]["IBSIM_SOCKNAME"].startswith("fabric-twin-")


def test_the_twin_routes_with_the_engine_the_design_names(started):
    design = load_design(SU1)
    named = dataclasses.replace(design, performance=dataclasses.replace(design.performance, routing_engine="updn"))
    result = run_infiniband_twin(named)
    assert result.engine == "updn" and result.routed and result.routed_by == "updn"
    assert_all_gone(*started)


def test_compare_prices_static_routing_on_opensms_tables(capsys, started):
    from designer.cli.main import main

    assert main(["compare", str(SU1), "--counterpart", "ib-static", "--static-routes", "opensm"]) == 0
    out = capsys.readouterr().out
    # the flavour's load balance is the tables' worst pattern against the model, with its basis
    assert "% of balanced throughput on the uplinks, the worst of ring, tree and all-to-all on the tables " \
           "OpenSM ftree programmed" in out
    assert_all_gone(*started)
