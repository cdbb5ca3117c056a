"""Small builders shared by the model tests."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess

import pytest

from designer.catalog import default_catalog
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.twin.frr_daemons import FRR_DIR

# What a test of the routing twin's real stack needs, each skip naming how to get it: FRR's
# daemons run in Linux network namespaces, which only root may make.
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the routing twin makes Linux network "
                                "namespaces (run the tests as root to include it)")
NEEDS_IPROUTE2 = pytest.mark.skipif(shutil.which("ip") is None,
                                    reason="iproute2 is missing (Debian package iproute2)")
NEEDS_FRR = pytest.mark.skipif(not (FRR_DIR / "bgpd").is_file() or shutil.which("vtysh") is None,
                               reason="FRR is missing (Debian package frr)")
ON_FRR = [NEEDS_ROOT, NEEDS_IPROUTE2, NEEDS_FRR]


def examples(full: int) -> int:
    """A property's example count under the loaded hypothesis profile (tests/conftest.py): `full`
    in the thorough run (`make test-slow`), scaled like the profile's default in the quick one
    (`make test`), never below 5 or `full`, whichever is smaller."""
    from hypothesis import settings

    scaled = round(full * settings.default.max_examples / 100)
    return max(min(full, 5), scaled)


def superpod(sus: int = 1, **kw):
    """DGX H100 SuperPOD compute fabric with 32 nodes per SU on QM9700."""
    return new_design(default_catalog(), "rail-optimized", nodes=32 * sus, server="dgx-h100",
                      switch="qm9700", **kw)


def derived(design):
    return derive(design, default_catalog())


def small_design_requests(max_nodes: int = 96):
    """Hypothesis strategy: small requests over the three templates, servers and radixes."""
    from hypothesis import strategies as st

    return st.fixed_dictionaries({
        "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
        "nodes": st.integers(1, max_nodes),
        "server": st.sampled_from(["dgx-h100", "gb200-nvl72-tray", "dgx-b300-eth"]),
        "radix": st.sampled_from([8, 12, 16, 32]),
        "oversubscription": st.sampled_from([1.0, 1.5, 3.0]),
        "tiers": st.sampled_from([None, 2, 3]),
        "nodes_per_su": st.integers(2, 16),
    })


def design_for(request):
    """The design a `small_design_requests` request asks for, or None when it cannot be sized."""
    from designer.model.topology.derive import plan_only
    from designer.model.topology.sizing import SizingError

    catalog = default_catalog()
    server = catalog.server(request["server"])
    try:
        design = new_design(catalog, request["template"], nodes=request["nodes"], server=request["server"],
                            radix=request["radix"], speed=server.port_gbps,
                            oversubscription=request["oversubscription"], tiers=request["tiers"],
                            nodes_per_su=request["nodes_per_su"])
        plan_only(design, catalog)
        return design
    except SizingError:
        return None


def assert_no_fewer_spines(plan, r, ratio: float) -> None:
    """No two-tier fabric with fewer spines carries the leaves at `ratio`: brute force over every
    uplink count the leaf holds that keeps the ratio, spread evenly over fewer spines."""
    import math

    n_down, n_up = r.leaf_switch.ports_at(r.link_gbps), r.leaf_switch.ports_at(r.uplink_gbps)
    n_spine = r.spine_switch.ports_at(r.uplink_gbps)
    u_min = math.ceil(plan.leaf_down * r.link_gbps / (ratio * r.uplink_gbps) - 1e-9)
    for u in range(u_min, n_up + 1):
        if plan.leaf_down * n_up + u * n_down > n_down * n_up:
            break
        for s in range(1, plan.spines):
            assert not (u % s == 0 and plan.leaves * u <= s * n_spine), (u, s, plan)


def cli_run(*args: str) -> subprocess.CompletedProcess[str]:
    """`fabric-designer ARGS` run in this process, its exit code and what it printed given as
    `subprocess.run(..., capture_output=True, text=True)` gives them: the same `main()`, without
    a Python start and the imports per call, and with the caches of earlier calls. Tests of what
    only the started program shows (its start-up, signals, the terminal) start it themselves."""
    from designer.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:   # argparse's refusals (exit 2) and --help (exit 0)
            if isinstance(exc.code, str):
                print(exc.code, file=err)
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return subprocess.CompletedProcess(["fabric-designer", *args], code, out.getvalue(), err.getvalue())


def record_started_pids(monkeypatch) -> list[int]:
    """The pids of every process the twin starts from now on (to check that each is stopped)."""
    from designer.twin.processes import Processes

    pids: list[int] = []
    start = Processes.start

    def recording(self, *args, **kwargs):
        proc = start(self, *args, **kwargs)
        pids.append(proc.pid)
        return proc

    monkeypatch.setattr(Processes, "start", recording)
    return pids
