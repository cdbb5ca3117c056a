"""The verdict as a fleet runs it: scattered ranks and other jobs' uplink load reach the step.

Static ECMP's hash collisions slow the collectives only where the job's traffic crosses the
uplinks: with ranks scattered over the cluster (the fleet default) or other jobs sharing the
uplinks. Spectrum-X's adaptive routing spreads the same traffic; the step shows the difference
the flow placement gives.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.decisions.comparison import CompareSettings, compare
from designer.model.decisions.counterpart import make_counterpart, static_routing_twin
from designer.model.performance import fleet
from designer.model.performance.collectives import context_for
from designer.model.performance.training import estimate_step
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run

CAT = default_catalog()


@cache
def rail(gpus: int):
    return new_design(CAT, "rail-optimized", gpus=gpus, server="dgx-h100", switch="qm9700")


@cache
def twins(gpus: int):
    base = rail(gpus)
    return base, make_counterpart(base, "roce-400g", CAT).design, make_counterpart(base, "roce-ecmp-400g", CAT).design


def _with(design, **perf):
    return replace(design, performance=replace(design.performance, **perf))


def _dp_factor(design) -> tuple[float, float]:
    """The ring's uplink factor and its flow-placement figure on this design's context."""
    ctx = context_for(derive(design, CAT), None)
    placed = dict(ctx.flow_placements).get("ring")
    return ctx.limits["ring"].factor, placed.expected if placed else 1.0


def test_the_fleet_defaults_have_their_basis():
    d = fleet.fleet_defaults()
    assert d.placement in fleet.PLACEMENTS
    for basis in (d.placement_basis, d.occupancy_basis, d.background_basis):
        assert basis.startswith("assumption") or "SIGCOMM" in basis


@pytest.mark.parametrize("gpus, perf", [(16384, {}), (4096, {"placement": "scattered", "background_load": 0.3})],
                         ids=["16K fleet defaults", "4K scattered 30% background"])
def test_static_ecmp_is_slower_than_spectrum_x_by_what_the_flow_placement_says(gpus, perf):
    assumed = CompareSettings(**perf).fleet(rail(gpus).performance)
    _, spx, ecmp = (_with(d, placement=assumed.placement, occupancy=assumed.occupancy,
                          background_load=assumed.background_load) for d in twins(gpus))
    factor, expected = _dp_factor(ecmp)
    load = dict(context_for(derive(ecmp, CAT), None).flow_placements)["ring"].load
    # The ring's uplink factor is the placement's delivered share at that load, capped by capacity.
    assert factor == pytest.approx(min(1.0, expected * min(1.0, 1.0 / load)))
    assert factor < 0.9
    assert _dp_factor(spx)[0] > factor
    s_spx = estimate_step(derive(spx, CAT), workload="dense-70b")
    s_ecmp = estimate_step(derive(ecmp, CAT), workload="dense-70b")
    assert s_ecmp.step_ms > s_spx.step_ms * 1.02
    # The data-parallel collectives (the ones crossing the uplinks) carry the difference.
    dp = {c.name: c.time_ms for c in s_spx.collectives if c.name.startswith("DP")}
    dp_e = {c.name: c.time_ms for c in s_ecmp.collectives if c.name.startswith("DP")}
    assert all(dp_e[k] > dp[k] for k in dp)
    # Packed ranks with no other jobs: the same two fabrics run the same step.
    packed = [_with(d, placement="packed", background_load=0.0) for d in (twins(gpus)[1], twins(gpus)[2])]
    a, b = (estimate_step(derive(d, CAT), workload="dense-70b").step_ms for d in packed)
    if gpus == 4096:
        assert a == pytest.approx(b, rel=1e-3)


def test_compare_says_which_fleet_it_assumed_in_text_and_json(tmp_path):
    path = tmp_path / "h.json"
    save_design(rail(4096), path)
    cmd = ["compare", str(path), "--counterpart", "roce-400g",
           "--counterpart", "roce-ecmp-400g", "--placement", "scattered", "--background-load", "0.3"]
    run = cli_run(*cmd, "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assumed = doc["assumptions"]["fleet"]
    assert assumed["placement"] == "scattered" and assumed["background_load"] == 0.3
    steps = {r["key"]: r["values"] for r in doc["rows"]}["step_ms"]
    assert steps[2] > steps[1] * 1.02          # static ECMP slower than Spectrum-X
    flips = {f["assumption"]: f for f in doc["recommendation"]["flips"]}
    assert flips["placement"]["current"] == "scattered" and flips["background_load"]["current"] == 0.3
    text = cli_run(*cmd)
    assert text.returncode == 0, text.stderr
    assert "Assumed fleet: ranks scattered" in text.stdout and "30% of every uplink" in text.stdout
    assert "rank placement: now scattered" in text.stdout


def test_scattered_placement_is_seeded_and_occupancy_spreads_the_job():
    base = _with(twins(4096)[2], placement="scattered")
    a = context_for(derive(_with(base, placement_seed=1), CAT), 2048)
    again = context_for(derive(_with(base, placement_seed=1), CAT), 2048)
    assert a.limits == again.limits
    tight = context_for(derive(_with(base, occupancy=0.01), CAT), 2048)
    busy = context_for(derive(_with(base, occupancy=0.9), CAT), 2048)
    assert busy.sus_used >= tight.sus_used


def test_background_load_slows_adaptive_routing_only_past_capacity_and_hashing_sooner():
    spx, ecmp = (_with(d, placement="scattered") for d in twins(4096)[1:])
    for bg in (0.0, 0.3, 0.6):
        f_spx = context_for(derive(_with(spx, background_load=bg), CAT), None).limits["ring"].factor
        f_ecmp = context_for(derive(_with(ecmp, background_load=bg), CAT), None).limits["ring"].factor
        assert f_ecmp <= f_spx + 1e-9
    low = context_for(derive(_with(ecmp, background_load=0.0), CAT), None).limits["ring"].factor
    high = context_for(derive(_with(ecmp, background_load=0.6), CAT), None).limits["ring"].factor
    assert high < low


def test_static_routing_twin_takes_an_outside_load_balance_figure():
    base = rail(4096)
    made = static_routing_twin(base, CAT)
    assert made.design.performance.adaptive_routing is False and "static" in made.design.meta.name
    ctx = context_for(derive(_with(made.design, placement="scattered"), CAT), None)
    assert ctx.load_balancing == "ecmp" and ctx.limits["ring"].factor < 1
    given = static_routing_twin(base, CAT, load_balance=0.9, basis="OpenSM ftree tables of this design")
    assert given.design.performance.load_balance_efficiency == 0.9 and "OpenSM" in given.notes[0]
    with pytest.raises(Exception, match="InfiniBand"):
        static_routing_twin(twins(4096)[1], CAT)
    c = compare([_with(base, placement="scattered"), made.design], CompareSettings(placement="scattered"))
    assert c.steps[1].step_ms > c.steps[0].step_ms


def test_compare_counterpart_ib_static_in_the_cli_and_its_refusal_on_ethernet():
    run = cli_run("compare", "examples/dgx-h100-superpod-1su.json", "--counterpart", "ib-static", "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["designs"][1]["name"].endswith("static routing") and doc["designs"][1]["technology"] == "ib-ndr"
    assert doc["training_cost"][1]["load_balancing"] == "ecmp"
    bad = cli_run("compare", "examples/roce-512-leaf-spine-sn5600.json", "--counterpart", "ib-static")
    assert bad.returncode == 1 and "InfiniBand" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
