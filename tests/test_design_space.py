"""The design-space sweep: every combination built or refused with a reason, and correct Pareto fronts."""

import csv
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.model.decisions.design_space import (
    SweepPoint,
    SweepSpec,
    dominates,
    mark_fronts,
    pareto,
    run_sweep,
)
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from tests.helpers import cli_run, examples

CAT = default_catalog()


def _check_fronts(result, x, y, flag):
    built = [p for p in result.points if p.ok]
    front = [p for p in built if getattr(p, flag)]
    assert front, "a sweep with built designs has a front"
    for p in front:
        assert not any(dominates(q, p, x, y) for q in built), f"front point {p.index} is dominated"
    for p in built:
        if any(dominates(q, p, x, y) for q in built):
            assert not getattr(p, flag)
            assert any(dominates(f, p, x, y) for f in front), f"dominated point {p.index} beaten by no front point"
        else:
            assert getattr(p, flag), f"non-dominated point {p.index} left off the front"


@pytest.fixture(scope="module")
def small_sweep():
    spec = SweepSpec(gpus=512, technologies=("ib-ndr", "roce-400g", "ib-xdr"), oversubscriptions=(1.0, 2.0, 3.0),
                     planes=(1, 2))
    return run_sweep(spec, workers=1)


def test_every_combination_is_built_or_refused_with_a_reason(small_sweep):
    assert len(small_sweep.points) == 3 * 3 * 2
    assert [p.index for p in small_sweep.points] == list(range(18))
    for p in small_sweep.points:
        if p.ok:
            assert p.capex_usd > 0 and p.power_w > 0 and p.tco_usd > p.capex_usd
            assert p.time_us > 0 and p.bisection_tbps > 0 and p.switches > 0 and p.gpus == 512
        else:
            assert p.error and p.capex_usd is None
    # A DGX H100 has 400G ports; the XDR default switch offers only 800G ports: refused with its reason.
    xdr = [p for p in small_sweep.points if p.choice["technology"] == "ib-xdr"]
    assert xdr and all(not p.ok and "400G" in p.error for p in xdr)


def test_points_measure_the_design_they_name(small_sweep):
    point = next(p for p in small_sweep.built if p.choice["oversubscription"] == 2.0)
    design = small_sweep.design(point, CAT)
    d = derive(design, CAT)
    bom = build_bom(d, CAT)
    assert design.meta.name == point.name
    assert point.switches == d.metrics.switches_total
    assert point.capex_usd == pytest.approx(bom.total_cost)
    assert point.power_w == pytest.approx(bom.total_power_w)
    assert point.oversubscription == pytest.approx(2.0)


def test_fronts_are_pareto_fronts(small_sweep):
    _check_fronts(small_sweep, "capex_usd", "time_us", "front_cost_time")
    _check_fronts(small_sweep, "capex_usd", "power_w", "front_cost_power")


def test_the_process_pool_and_any_executor_give_the_same_points(small_sweep):
    spec = small_sweep.spec
    pooled = run_sweep(spec, workers=2)
    with ThreadPoolExecutor(2) as pool:
        threaded = run_sweep(spec, executor=pool)
    assert pooled.points == small_sweep.points == threaded.points


def test_progress_and_cancel():
    spec = SweepSpec(gpus=256, technologies=("ib-ndr", "roce-400g"), oversubscriptions=(1.0, 2.0, 3.0, 4.0),
                     planes=(1, 2), tiers=(2, 3))
    seen = []
    result = run_sweep(spec, workers=1, progress=lambda done, total: seen.append((done, total)),
                       cancelled=lambda: len(seen) >= 1)
    assert seen[0][1] == spec.count == 32
    assert len(result.points) == seen[-1][0] < spec.count


@pytest.mark.parametrize("kwargs, message", [
    ({"gpus": 0}, "positive"),
    ({"gpus": 64, "templates": ("ring",)}, "unknown template"),
    ({"gpus": 64, "oversubscriptions": (float("nan"),)}, "positive ratio"),
    ({"gpus": 64, "technologies": ()}, "at least one"),
    ({"gpus": 64, "oversubscriptions": tuple(float(i) for i in range(1, 201)), "planes": tuple(range(1, 201))},
     "combinations"),
])
def test_impossible_sweeps_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SweepSpec(**kwargs)


_coord = st.one_of(st.none(), st.integers(0, 20).map(float))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(_coord, _coord, _coord), max_size=40))
def test_pareto_on_random_points(coords):
    points = [SweepPoint(i, {}, capex_usd=x, time_us=y, power_w=z) for i, (x, y, z) in enumerate(coords)]
    result = mark_fronts(SweepSpec(gpus=8), points)
    usable = [p for p in result.points if p.capex_usd is not None and p.time_us is not None]
    front = pareto(usable, "capex_usd", "time_us")
    for p in result.points:
        if p.capex_usd is None or p.time_us is None:
            assert not p.front_cost_time
            continue
        dominated = any(dominates(q, p, "capex_usd", "time_us") for q in usable)
        assert p.front_cost_time == (not dominated) == (p.index in front)


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "designer.cli.main", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_sweep_command_json_and_csv(tmp_path):
    out = tmp_path / "sweep.csv"
    r = _cli("sweep", "--gpus", "256", "--technology", "ib-ndr,roce-400g,ib-xdr", "--oversubscription", "1:1,2:1",
             "--workers", "1", "--json", "--csv", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["combinations"] == 6 and data["built"] + data["refused"] == 6 and data["refused"] >= 2
    assert any(p["front_cost_time"] for p in data["points"])
    with open(out, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 7 and rows[0][0] == "#"
    refused = [row for row in rows[1:] if row[-1]]
    assert len(refused) == data["refused"]


# In this process (tests.helpers.cli_run): the test above runs `sweep` as its own program.
def test_sweep_command_text_and_refusals(tmp_path):
    r = cli_run("sweep", "--gpus", "256", "--technology", "ib-ndr,ib-xdr", "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert "Refused:" in r.stdout and "front" in r.stdout
    bad = cli_run("sweep", "--gpus", "256", "--technology", "ib-zdr")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "ib-zdr" in bad.stderr
    bad = cli_run("sweep", "--gpus", "256", "--oversubscription", "1:0")
    assert bad.returncode == 2 and "oversubscription" in bad.stderr


@pytest.mark.parametrize("technologies,server,expected", [
    (("ib-xdr",), None, "dgx-b300-xdr"),                          # DGX H100 runs none of it
    (("ib-ndr", "ib-xdr", "roce-400g", "roce-800g"), None, "dgx-h100"),   # it runs most: one cluster
    (("ib-ndr",), None, "dgx-h100"),
    (("ib-xdr",), "gb300-nvl72-tray", "gb300-nvl72-tray"),        # a named server is kept
])
def test_the_sweep_builds_every_point_on_one_server(technologies, server, expected):
    from designer.model.decisions.design_space import sweep_server

    spec = SweepSpec(gpus=1152, server=server, technologies=technologies)
    assert sweep_server(spec, CAT) == expected


def test_a_pluggable_and_a_cpo_switch_side_by_side_on_xdr_alone():
    spec = SweepSpec(gpus=2304, technologies=("ib-xdr",), switches=("q3400", "q3450-ld"))
    result = run_sweep(spec, workers=1)
    assert [p.ok for p in result.points] == [True, True], [p.error for p in result.points]
    plug, cpo = result.points
    assert cpo.transceivers_switch_side == 0 < plug.transceivers_switch_side
    assert cpo.power_w < plug.power_w and cpo.failures_month < plug.failures_month
    assert result.to_json()["server_used"] == "dgx-b300-xdr"
