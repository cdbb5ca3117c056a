"""A training job that fits: presets, plan, memory per GPU, compute from FLOPs, the step's collectives."""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.catalog.gpus import gpu_spec, gpu_specs
from designer.model.decisions.advice import training_step
from designer.model.intent.design import replace_path
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance import workload as W
from designer.model.performance.collectives import CollectiveError
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run, examples

CAT = default_catalog()


@cache
def design(**kw):
    return derive(new_design(CAT, "rail-optimized", **kw), CAT)


def h100(nodes=32, **kw):
    return design(nodes=nodes, server="dgx-h100", switch="qm9700", **kw)


def test_every_server_gpu_has_memory_and_flops_with_a_source():
    for server in CAT.servers.values():
        spec = gpu_spec(server.gpu)
        assert spec is not None, server.gpu
        assert spec.memory_GB > 0 and spec.bf16_dense_TFLOPS > 0 and spec.source
    assert gpu_spec("H100 SXM5").memory_GB == 80 and gpu_spec("H100 SXM5").bf16_dense_TFLOPS == 989
    assert all(s.source for s in gpu_specs().values())


def test_presets_carry_their_sources_and_published_shapes():
    p = W.presets()
    assert {"dense-70b", "moe-deepseek-v3"} <= set(p)
    for w in p.values():
        assert w.source and w.plan_source
    ds = p["moe-deepseek-v3"]
    assert ds.moe and ds.params == 671e9 and ds.active_params == 37e9 and ds.top_k == 8
    assert (ds.pp, ds.ep, ds.tp) == (16, 64, 1)     # the report's own plan
    # The expert parameters follow from the published shape: 58 MoE layers x 256 experts x 3 x 7168 x 2048.
    assert ds.expert_params == pytest.approx(58 * 256 * 3 * 7168 * 2048, rel=1e-3)


def test_memory_counts_weights_gradients_optimizer_and_activations():
    w = W.preset("dense-70b")
    plan = W.make_plan(w, 256, 8)
    assert (plan.tp, plan.pp, plan.dp) == (8, 4, 8)
    mem = W.memory(w, plan, gpu_spec("H100 SXM5"))
    local = 70e9 / 32
    assert mem.weights == pytest.approx(2 * local)
    assert mem.gradients == pytest.approx(2 * local)
    assert mem.optimizer == pytest.approx(12 * local / 8)             # ZeRO-1 over DP 8
    # Korthikanti et al., all layers of one micro-batch
    assert mem.activations == pytest.approx(34 * 4096 * 8192 / 8 * 80)
    assert mem.fits


@settings(max_examples=examples(25), deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4, 8]), st.integers(0, 2))
def test_more_sharding_never_needs_more_memory(tp, pp, zero):
    w = dataclasses.replace(W.preset("dense-70b"), tp=tp, pp=pp, zero=zero)
    plan = W.make_plan(w, 512, 8)
    assert plan.tp * plan.pp * plan.dp == 512
    gpu = gpu_spec("H100 SXM5")
    now = W.memory(w, plan, gpu).total
    assert W.memory(w, dataclasses.replace(plan, zero=zero + 1), gpu).total <= now
    if pp * 2 <= w.layers:
        more = W.make_plan(dataclasses.replace(w, pp=pp * 2), 512, 8)
        assert W.memory(w, more, gpu).total <= now * (1 + 1e-9)


def test_a_job_that_does_not_fit_is_refused_with_the_memory_it_needs():
    d = h100()
    plain = replace_path(d.design, "performance", PerformanceSettings(workload="dense-70b", tp_degree=1, pp_degree=1,
                                                                       zero_stage=0))
    with pytest.raises(CollectiveError,
                       match=r"does not fit: it needs 1,211 GB per GPU \(weights 140, gradients 140, optimizer"
                              r" 840, activations 91\).* H100 SXM5 has 80 GB"):
        training_step(derive(plain, CAT))
    with pytest.raises(CollectiveError, match="expert parallel 64 must divide"):
        training_step(d, workload="moe-deepseek-v3")
    with pytest.raises(CollectiveError, match="tensor parallel 16 does not fit the 8-GPU NVLink domain"):
        training_step(derive(replace_path(d.design, "performance",
                                          PerformanceSettings(workload="dense-70b", tp_degree=16)), CAT))


def test_compute_is_six_n_t_over_peak_times_mfu():
    d = h100()
    st_ = training_step(d, workload="dense-70b")
    w = W.preset("dense-70b")
    expected = 6 * w.active_params * w.global_batch_tokens / (256 * 989e12 * 0.40) * 1000
    assert st_.compute_ms == pytest.approx(expected)
    slower = derive(replace_path(d.design, "performance", PerformanceSettings(workload="dense-70b", mfu=0.2)), CAT)
    assert training_step(slower).compute_ms == pytest.approx(2 * expected)


def test_the_step_lists_each_collective_where_it_runs():
    st_ = training_step(h100(), workload="dense-70b")
    by = {c.name: c for c in st_.collectives}
    assert by["TP all-reduce"].where == "NVLink"
    assert by["TP all-reduce"].count == 4 * (80 // 4) * st_.plan.micro_batches
    assert by["PP send/receive"].where == "network"
    assert by["DP reduce-scatter"].where == "network" and "DP all-gather" in by
    assert st_.comm_ms == pytest.approx(sum(c.time_ms for c in st_.collectives))
    # The step counts the 1F1B pipeline bubble: (PP - 1) / micro-batches of the compute.
    p = st_.plan
    assert st_.bubble_ms == pytest.approx(st_.compute_ms * (p.pp - 1) / p.micro_batches)
    assert st_.step_ms == pytest.approx(st_.compute_ms + st_.bubble_ms + st_.exposed_comm_ms)
    assert 0 < st_.comm_share < 0.5
    # The scale-out share leaves out the NVLink tensor-parallel time, which no fabric changes.
    network = sum(c.exposed_ms for c in st_.collectives if c.where == "network")
    assert st_.scaleout_ms == pytest.approx(network) and st_.scaleout_share < st_.comm_share
    assert st_.nvlink_comm_ms == pytest.approx(by["TP all-reduce"].exposed_ms)


def test_the_pipeline_bubble_at_16k_gpus_is_counted():
    """At 16K GPUs the 70B plan has few micro-batches per pipeline, even with the batch grown to
    its published ceiling (at most 4 per pipeline stage): the bubble is in the step."""
    d = derive(new_design(CAT, "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700"), CAT)
    st_ = training_step(d, workload="dense-70b")
    p = st_.plan
    assert p.pp > 1 and p.micro_batches <= 4 * p.pp
    assert st_.bubble_ms == pytest.approx(st_.compute_ms * (p.pp - 1) / p.micro_batches)
    assert st_.step_ms > st_.compute_ms + st_.bubble_ms
    assert "pipeline bubble" in " ".join(st_.advice.reasons)
    assert st_.to_json()["pipeline_bubble_ms"] == st_.bubble_ms


def test_fsdp_adds_a_forward_all_gather_and_overlap_hides_data_parallel_traffic():
    d = h100()
    perf = PerformanceSettings(workload="dense-70b", zero_stage=3)
    fsdp = training_step(derive(replace_path(d.design, "performance", perf), CAT))
    assert any("forward" in c.name for c in fsdp.collectives)
    hidden = training_step(derive(replace_path(d.design, "performance",
                                               dataclasses.replace(perf, comm_overlap=1.0)), CAT))
    dp = [c for c in hidden.collectives if c.name.startswith("DP")]
    assert all(c.exposed_ms == pytest.approx(0.0) for c in dp)
    tp = next(c for c in hidden.collectives if c.name == "TP all-reduce")
    assert tp.exposed_ms == tp.time_ms                    # on the critical path: never hidden
    assert hidden.comm_share < fsdp.comm_share


def test_mixture_of_experts_runs_expert_all_to_all_across_nodes():
    st_ = training_step(h100(nodes=256), workload="moe-deepseek-v3")     # 2,048 GPUs, as in the report
    by = {c.name: c for c in st_.collectives}
    ep = by["EP all-to-all"]
    assert ep.where == "network" and ep.algorithm == "pairwise"
    assert ep.bytes_each == 4096 * 8 * 7168 * 2
    assert "Expert DP reduce-scatter" in by
    assert st_.memory.fits
    # The report calls cross-node expert parallelism roughly 1:1 computation to communication.
    assert 0.5 < ep.time_ms / st_.compute_ms < 2.0


def test_collectives_cli_training_view_of_a_workload(tmp_path):
    from designer.io.project import save_design
    path = tmp_path / "d.json"
    save_design(h100().design, path)
    out = cli_run("collectives", str(path), "--workload",
                  "dense-70b", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    plan = {k: data["plan"][k] for k in ("tp", "pp", "dp", "ep", "zero", "micro_batches")}
    assert plan == {"tp": 8, "pp": 4, "dp": 8, "ep": 1, "zero": 1, "micro_batches": 128}
    assert data["memory"]["fits"] and data["mfu_heuristic"] is True
    assert {c["name"] for c in data["collectives"]} >= {"TP all-reduce", "DP reduce-scatter"}
    bad = cli_run("collectives", str(path), "--workload",
                  "moe-deepseek-v3")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "at least 1,024 GPUs" in bad.stderr


def test_compare_example_job_fits_on_both_fabrics():
    from designer.model.decisions.comparison import compare
    from designer.model.decisions.counterpart import make_counterpart
    ib = h100(nodes=32, nodes_per_su=32).design
    c = compare([ib, make_counterpart(ib, "roce-400g", CAT).design])
    assert all(s is not None and s.memory.fits for s in c.steps)
    assert not any("cannot run" in w for w in c.warnings)
    data = c.to_json()
    assert data["assumptions"]["workload"] == "dense-70b" and data["assumptions"]["params"] == 70e9


def test_workload_settings_survive_a_project_file():
    from designer.io.project import design_from_json, design_to_json
    d = replace_path(h100().design, "performance",
                     PerformanceSettings(workload="dense-70b", sharp=True, mfu=0.35, tp_degree=4, zero_stage=3))
    assert design_from_json(design_to_json(d)).performance == d.performance
    with pytest.raises(ValueError, match="zero_stage"):
        PerformanceSettings(zero_stage=4)
    with pytest.raises(ValueError, match="mfu"):
        PerformanceSettings(mfu=0)
    unknown = derive(replace_path(h100().design, "performance", PerformanceSettings(workload="gpt-9")), CAT)
    with pytest.raises(CollectiveError, match="unknown workload 'gpt-9'"):
        training_step(unknown)


def test_parallel_groups_follow_megatron_rank_order():
    from designer.model.performance.collectives import context_for
    from designer.model.performance.training import _one_domain, _strided
    nvl = design(gpus=576, server="gb200-nvl72-tray", switch="qm9700", nodes_per_su=18)
    ctx = context_for(nvl, 576)
    dp = _strided(ctx, 18, 8)            # TP 8, PP 4 on 576 GPUs: DP 18, 8 apart, 9 to a rack
    assert (dp.gpus, dp.domains, dp.per_domain) == (18, 2, 9)
    tp = _one_domain(ctx, 8)             # TP 8 on 4-GPU trays: one domain, two trays
    assert tp.domains == 1 and tp.trays == 2 and tp.nvls
    h = context_for(h100(), 256)
    dgx_dp = _strided(h, 8, 8)           # DGX: one rank per server
    assert (dgx_dp.domains, dgx_dp.per_domain) == (8, 1)
