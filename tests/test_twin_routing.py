"""The routing twin for real: FRR's zebra and bgpd in network namespaces, as root.

Each run makes its own namespaces (a random prefix per run) and removes them; traffic stays
inside them (`ip route get` asks the kernel, no packet is sent). Skipped without root or FRR.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design
from designer.twin.namespaces import NETNS_DIR
from designer.twin.routing import RoutingTwin
from designer.twin.routing_text import report_lines
from tests.helpers import ON_FRR

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ROCE = EXAMPLES / "roce-512-leaf-spine-sn5600.json"
CAT = default_catalog()

pytestmark = ON_FRR


def _left(prefix: str) -> list[str]:
    return sorted(p.name for p in NETNS_DIR.glob(prefix + "*")) if NETNS_DIR.is_dir() else []


@pytest.fixture(scope="module")
def two_faults():
    """One run of the command (bringing FRR up is the slow part), read as JSON and as text: the
    fabric as designed, then spine-3 and the leaf-1--spine-1 link down. Returns the exit code,
    the printed JSON, the twin and the report it printed."""
    runs = []
    real_run = RoutingTwin.run

    def run(twin):
        report = real_run(twin)
        runs.append((twin, report))
        return report

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.setattr(RoutingTwin, "run", run)
        code = main(["twin", str(ROCE), "--json", "--flows", "--timeout", "90",
                     "--fault", "switch:spine-3", "link:leaf-1--spine-1"])
    [(twin, report)] = runs
    return code, json.loads(out.getvalue()), twin, report


# The two tests of the one run share a worker (pytest-xdist, --dist loadgroup).
@pytest.mark.xdist_group("routing-twin-two-faults")
def test_the_512_gpu_example_converges_and_reconverges_after_a_spine_and_a_link(two_faults):
    code, report, _, _ = two_faults
    assert code == 0
    assert report["converged"] and report["converge_seconds"] > 0   # its speed target is in benchmarks/
    assert report["bundles_collapsed"] and report["links"] == 32 and report["design_links"] == 512
    sessions = report["sessions"]
    assert sessions["expected"] == sessions["established"] == 64 and not sessions["down"]
    assert len(report["ecmp"]) == 8
    for leaf in report["ecmp"]:
        assert leaf["spines"] == 4 and len(leaf["widths"]) == 7
        assert set(leaf["widths"].values()) == {4}
    tiers = {t["tier"]: t for t in report["tiers"]}
    assert tiers["leaf"]["switches"] == 8 and tiers["spine"]["switches"] == 4
    flows = report["flows"]
    assert flows["flows"] == 8 * 64 * flows["flows_per_nic"] and flows["unrouted"] == 0
    assert flows["paths"] == 4 and flows["busiest_uplink_flows"] >= flows["balanced_flows_per_uplink"]
    assert 0 < flows["load_balance"] <= 1 and 0 < flows["model"]["expected"] <= 1
    assert report["left_behind"] == []

    after = report["after_faults"]
    assert after["converged"]
    widths = {w["leaf"]: w for w in after["ecmp"]}
    # spine-3 gone: every leaf loses one path; leaf-1 also lost its link to spine-1
    assert widths["leaf-1"]["spines"] == 2 and set(widths["leaf-1"]["widths"].values()) == {2}
    for name, w in widths.items():
        if name != "leaf-1":
            assert w["spines"] == 3 and w["widths"]["leaf-1"] == 2
            assert {v for k, v in w["widths"].items() if k != "leaf-1"} == {3}
    assert after["sessions"]["established"] == after["sessions"]["expected"] == 64 - 16 - 2
    assert not after["sessions"]["down"]
    assert len(after["sessions"]["down_by_faults"]) == 8 + 2   # the leaves' sessions to spine-3, the cut link's
    assert after["flows"]["paths"] == 2 and after["flows"]["unrouted"] == 0
    assert tiers["spine"]["switches"] - 1 == {t["tier"]: t for t in after["tiers"]}["spine"]["switches"]


@pytest.mark.xdist_group("routing-twin-two-faults")
def test_the_text_report_says_what_reconverged(two_faults):
    _, _, twin, report = two_faults
    text = "\n".join(report_lines(report))
    assert "64 of 64 up" in text and "8 of 8 leaves equal to its spine count" in text
    # leaf-1 lost spine-3 and its link to spine-1; every other leaf lost spine-3, and reaches
    # leaf-1 over two spines only
    assert "ECMP width 4 before, 2 after (down by 2) on 1 of 8 lea" in text
    assert "ECMP width 4 before, 2 to 3 after (some leaves' width lower) on 7 of 8 leaves" in text
    assert "46 of 46 up" in text
    assert "bundles collapsed to one link per switch pair (512 design links as 32" in text
    assert report.cleanup == [] and _left(twin.ns.prefix) == []


def test_an_interrupted_run_removes_every_namespace_and_daemon():
    seen = {}

    def progress(message: str) -> None:
        if message.startswith("waiting"):
            seen["prefix"] = twin.ns.prefix
            seen["procs"] = [p for d in twin.fleet.switches.values() for p in d.processes.values()]
            assert _left(twin.ns.prefix)
            raise KeyboardInterrupt

    twin = RoutingTwin(load_design(ROCE), CAT, timeout=60, progress=progress)
    with pytest.raises(KeyboardInterrupt):
        twin.run()
    assert len(seen["procs"]) == 2 * 12
    assert all(p.poll() is not None for p in seen["procs"])
    assert _left(seen["prefix"]) == []


def test_sigterm_to_the_command_removes_everything_it_made(tmp_path):
    """`timeout` or `kill` ends the command as Ctrl-C does: one line, exit 130, nothing left."""
    import re
    import signal
    import subprocess
    import sys
    import threading
    import time

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "designer.cli.main", "twin", str(ROCE)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    prefix = None
    # Reading the command's lines waits for each: a command that stops talking without ending
    # would hold the test for ever, so a timer ends it (its stderr then ends, and the test fails).
    watchdog = threading.Timer(300, proc.kill)
    watchdog.start()
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if m := re.search(r"namespaces \((fdtw[0-9a-f]+-)1 ", line):
                prefix = m.group(1)
            if "waiting for BGP" in line:
                break
        assert prefix and _left(prefix)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in err and err.count("\n") == 1
    for _ in range(20):
        if not _left(prefix):
            break
        time.sleep(0.1)
    assert _left(prefix) == []
