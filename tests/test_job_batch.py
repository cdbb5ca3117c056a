"""A job that scales: the global batch grows with data parallelism to a published ceiling, the
micro-batch and pipeline schedule are the user's, and the bubble follows the schedule."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.project import design_from_json, design_to_json, load_design
from designer.model.decisions.comparison import CompareSettings, compare
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance import workload as W
from designer.model.performance.training import estimate_step, pipeline_bubble_ms
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run, examples

CAT = default_catalog()
EXAMPLE = "examples/dgx-h100-superpod-1su.json"


@cache
def rail(gpus: int):
    return derive(new_design(CAT, "rail-optimized", gpus=gpus, server="dgx-h100", switch="qm9700"), CAT)


def _step(gpus: int, **perf):
    d = rail(gpus)
    return estimate_step(d, workload="dense-70b", settings=replace(d.design.performance, **perf))


def test_the_default_batch_at_16384_gpus_keeps_the_bubble_under_a_quarter_of_the_step():
    s = _step(16384)
    w, p = s.workload, s.plan
    assert w.global_batch_tokens == W.preset("dense-70b").batch_ceiling_tokens == 16 * 2**20
    assert "Llama 3" in p.batch_basis and "Table 4" in p.batch_basis
    assert s.bubble_ms == pytest.approx(s.compute_ms * (p.pp - 1) / p.micro_batches)
    assert s.bubble_ms / s.step_ms < 0.25
    # The fixed 4M-token batch of before leaves 2 micro-batches per pipeline and a bubble of 1.5
    # times the compute.
    fixed = _step(16384, global_batch_tokens=4 * 2**20)
    assert fixed.plan.micro_batches == 2 and fixed.bubble_ms == pytest.approx(1.5 * fixed.compute_ms)
    assert fixed.bubble_ms / fixed.step_ms > 0.4


def test_the_default_batch_grows_with_data_parallelism_between_floor_and_ceiling():
    sizes = (256, 1024, 4096, 16384)
    tokens = [_step(n).workload.global_batch_tokens for n in sizes]
    assert tokens == sorted(tokens) and tokens[0] == W.preset("dense-70b").global_batch_tokens
    assert tokens[-1] == W.preset("dense-70b").batch_ceiling_tokens and tokens[1] < tokens[-1]


@settings(max_examples=examples(200), deadline=None)
@given(dp=st.integers(1, 4096), pp=st.integers(1, 64), name=st.sampled_from(sorted(W.presets())))
def test_batch_tokens_stay_between_the_workload_batch_and_its_ceiling(dp, pp, name):
    w = W.preset(name)
    tokens, basis = W.batch_tokens(w, dp, pp, PerformanceSettings())
    assert w.global_batch_tokens - w.seq_len < tokens <= max(w.global_batch_tokens, w.batch_ceiling_tokens)
    assert tokens % w.seq_len == 0 and basis
    more, _ = W.batch_tokens(w, dp * 2, pp, PerformanceSettings())
    assert more >= tokens


@settings(max_examples=examples(200), deadline=None)
@given(compute=st.floats(1, 1e5), pp=st.integers(1, 64), m=st.integers(1, 4096), v=st.integers(1, 8))
def test_the_bubble_shrinks_with_micro_batches_and_virtual_stages(compute, pp, m, v):
    b = pipeline_bubble_ms(compute, pp, m, v)
    assert b == pytest.approx(compute * (pp - 1) / (m * v))
    assert pipeline_bubble_ms(compute, pp, m + 1, v) <= b and pipeline_bubble_ms(compute, pp, m, v + 1) <= b


def test_an_interleaved_schedule_divides_the_bubble_by_its_virtual_stages():
    one = _step(4096)
    two = _step(4096, pipeline_schedule="interleaved")
    four = _step(4096, pipeline_schedule="interleaved", virtual_stages=4)
    assert two.plan.schedule == "interleaved" and two.plan.virtual_stages == 2
    assert two.bubble_ms == pytest.approx(one.bubble_ms / 2) and four.bubble_ms == pytest.approx(one.bubble_ms / 4)
    pp = {c.name: c for c in one.collectives}["PP send/receive"]
    pp4 = {c.name: c for c in four.collectives}["PP send/receive"]
    assert pp4.count == 4 * pp.count
    with pytest.raises(W.WorkloadError, match="virtual stages"):
        _step(4096, pipeline_schedule="interleaved", virtual_stages=64)


def test_global_batch_changes_the_bubble_and_the_cost_per_token():
    ib = load_design(EXAMPLE)
    other = replace(ib, meta=replace(ib.meta, name="same"))
    small = compare([ib, other], CompareSettings(global_batch_tokens=1 * 2**20))
    big = compare([ib, other], CompareSettings(global_batch_tokens=8 * 2**20))
    assert small.steps[0].workload.global_batch_tokens == 2**20
    assert small.steps[0].bubble_ms / small.steps[0].compute_ms > big.steps[0].bubble_ms / big.steps[0].compute_ms
    assert small.costs[0].cost_per_mtok > big.costs[0].cost_per_mtok
    doc = big.to_json()["assumptions"]
    assert doc["global_batch_tokens"] == 8 * 2**20 and doc["pipeline_schedule"] == "1f1b"


def test_the_cli_takes_the_batch_and_refuses_a_bad_one():
    base = ["collectives", EXAMPLE, "--workload", "dense-70b"]
    run = cli_run(*base, "--global-batch", "2M", "--micro-batch", "2", "--pipeline-schedule", "interleaved", "--json")
    assert run.returncode == 0, run.stderr
    plan = json.loads(run.stdout)["plan"]
    assert plan["global_batch_tokens"] == 2 * 2**20 and plan["micro_batch"] == 2
    assert plan["pipeline_schedule"] == "interleaved" and plan["virtual_stages"] == 2
    for bad in (["--global-batch", "lots"], ["--global-batch", "0"], ["--micro-batch", "-1"]):
        r = cli_run(*base, *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) <= 2 and "Traceback" not in r.stderr


def test_the_project_file_keeps_the_new_settings_and_an_older_file_writes_back_the_same():
    text = design_to_json(load_design(EXAMPLE))
    assert "global_batch_tokens" not in text and "background_load" not in text
    d = design_from_json(text)
    d = replace(d, performance=replace(d.performance, global_batch_tokens=8 * 2**20, micro_batch=2,
                                       pipeline_schedule="interleaved", virtual_stages=3, placement="scattered",
                                       occupancy=0.5, placement_seed=7, background_load=0.0))
    again = design_from_json(design_to_json(d))
    assert again.performance == d.performance and again.performance.background_load == 0.0
