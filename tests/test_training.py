"""Training-step view: communication per step, its share, and the heuristic advice."""

from __future__ import annotations

import math
from functools import cache

import pytest

from designer.catalog import default_catalog
from designer.model.decisions.advice import training_step
from designer.model.intent.design import replace_path
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collectives import CollectiveError, estimate
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()
MIB = 1 << 20


@cache
def design(**kw):
    return derive(new_design(CAT, "rail-optimized", **kw), CAT)


def ib(nodes=16):
    return design(nodes=nodes, server="dgx-h100", switch="qm9700")


def roce(nodes=16):
    return design(nodes=nodes, server="dgx-h100", switch="sn5600", technology="roce-400g")


def test_communication_is_the_gradient_all_reduce_in_ddp_buckets():
    d = ib()
    st = training_step(d, params=1e9, compute_ms=100)
    grad = int(1e9 * 2)
    assert st.grad_bytes == grad
    full, rest = divmod(grad, 25 * MIB)
    assert st.buckets == full + (1 if rest else 0)
    expected_us = full * estimate(d, "allreduce", 25 * MIB).time_us + estimate(d, "allreduce", rest).time_us
    assert st.comm_ms == pytest.approx(expected_us / 1000)
    assert st.step_ms == pytest.approx(st.compute_ms + st.exposed_comm_ms)
    assert st.comm_share == pytest.approx(st.exposed_comm_ms / st.step_ms)


def test_overlap_hides_part_of_the_communication():
    d = ib()
    base = training_step(d, params=1e9, compute_ms=100)
    half = training_step(derive(replace_path(d.design, "performance", PerformanceSettings(comm_overlap=0.5)), CAT),
                         params=1e9, compute_ms=100)
    assert half.comm_ms == pytest.approx(base.comm_ms)
    assert half.exposed_comm_ms == pytest.approx(base.comm_ms / 2)
    assert half.comm_share < base.comm_share


def test_bigger_buckets_pay_fewer_latencies():
    d = ib()
    small = training_step(d, params=7e9, compute_ms=100)
    big = training_step(derive(replace_path(d.design, "performance.bucket_bytes", 512 * MIB), CAT),
                        params=7e9, compute_ms=100)
    assert big.buckets < small.buckets
    assert big.comm_ms < small.comm_ms


def test_model_parallelism_shrinks_the_gradients_and_the_group():
    d = ib()
    st = training_step(d, params=70e9, compute_ms=300, dp_degree=16)
    assert st.model_parallel == 8
    assert st.grad_bytes == math.ceil(70e9 * 2 / 8)
    # One rank per server and group: each all-reduce runs on one rail's NICs, no NVLink.
    assert st.bottleneck in ("NIC", "latency")
    full = training_step(d, params=7e9, compute_ms=300)
    assert full.model_parallel == 1 and full.dp_degree == 128
    # 70B in pure data parallel cannot run on 80 GB GPUs: refused with the memory it needs.
    with pytest.raises(CollectiveError, match=r"do not fit: they need 287 GB per GPU"):
        training_step(d, params=70e9, compute_ms=300)


def test_a_slower_fabric_means_a_larger_communication_share():
    a = training_step(ib(), params=7e9, compute_ms=200)
    b = training_step(roce(), params=7e9, compute_ms=200)
    assert b.comm_ms > a.comm_ms
    assert b.comm_share > a.comm_share


def test_advice_follows_the_labelled_thresholds():
    small = training_step(ib(16), params=7e9, compute_ms=200)           # 128 GPUs
    assert "512" in small.advice.verdict and "heuristic" in small.advice.verdict
    assert small.advice.heuristic
    middle = training_step(roce(128), params=7e9, compute_ms=200)       # 1,024 GPUs
    assert "2,048" in middle.advice.verdict and "30%" in middle.advice.verdict
    assert f"{middle.comm_share:.0%}" in middle.advice.verdict
    big = training_step(ib(320), params=7e9, compute_ms=200)           # 2,560 GPUs
    assert "compounds" in big.advice.verdict
    assert any("editable heuristics" in r for r in big.advice.reasons)


def test_advice_thresholds_are_editable_per_design():
    d = ib(16)
    custom = derive(replace_path(d.design, "performance",
                                 PerformanceSettings(advice_ethernet_max_gpus=64, advice_infiniband_min_gpus=100)),
                    CAT)
    st = training_step(custom, params=7e9, compute_ms=200)
    assert "compounds" in st.advice.verdict and "100" in st.advice.verdict
    assert st.advice.thresholds == {"ethernet_max_gpus": 64, "infiniband_min_gpus": 100, "comm_share": 0.3}


def test_advice_states_its_reasons_with_the_design_numbers():
    st = training_step(roce(128), params=7e9, compute_ms=200)
    text = "\n".join(st.advice.lines())
    assert f"{st.gpus:,} GPUs" in text
    assert f"{st.comm_ms:,.1f} ms" in text
    assert f"{st.small_allreduce_us:,.1f} us" in text
    # The same cluster on the other fabric family, for comparison.
    assert "InfiniBand" in text and "would spend" in text
    assert "PFC" in text   # RoCE's operating conditions are part of the Ethernet advice


def test_json_shape_is_stable():
    data = training_step(ib(), params=7e9, compute_ms=200).to_json()
    assert {"params", "gpus", "dp_degree", "comm_ms", "compute_ms", "step_ms", "comm_share",
            "algorithm", "bottleneck", "advice"} <= set(data)
    assert data["advice"]["heuristic"] is True


@pytest.mark.parametrize("kwargs, message", [
    (dict(compute_ms=100), "parameters"),
    (dict(params=7e9), "compute time"),
    (dict(params=7e9, compute_ms=100, dp_degree=3), "divide"),
    (dict(params=7e9, compute_ms=100, dp_degree=1), "at least 2"),
])
def test_bad_training_requests_get_one_clear_message(kwargs, message):
    with pytest.raises(CollectiveError, match=message):
        training_step(ib(), **kwargs)


def test_design_settings_supply_the_training_inputs():
    d = ib()
    preset = derive(replace_path(d.design, "performance",
                                 PerformanceSettings(params=7e9, compute_ms=200.0, dp_degree=64)), CAT)
    st = training_step(preset)
    assert st.params == 7e9 and st.compute_ms == 200.0 and st.dp_degree == 64
