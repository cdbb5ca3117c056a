"""Off-thread compute: bursts are gathered, stale results never arrive, nothing outlives shutdown."""

from __future__ import annotations

import threading

import pytest

from designer.catalog import default_catalog
from designer.model.intent.design import Edit, replace_path
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.ui.services.compute import ComputeService, compute, running_services

# A ceiling on waiting for the real worker process, not a timing: on a machine loaded by other
# work, a 4,096-GPU bill with an edit took over a minute. A result that never comes still fails.
WORKER_CEILING_MS = 300_000


@pytest.fixture(params=["process", "thread"])
def service(qtbot, request):
    svc = ComputeService(default_catalog(), backend=request.param)
    yield svc
    svc.shutdown()


# Gathering a burst and dropping a stale result are the service's, whichever backend computes;
# that the child process's answers arrive is test_results_arrive_on_the_ui_thread_with_the_right_metrics[process].
# So these two run on the thread backend in `make test`, and on a child process too in `make test-slow`.
_PROCESS_COVERED = "the service's own logic, run on the thread backend; the process backend's answers are " \
                   "test_results_arrive_on_the_ui_thread_with_the_right_metrics[process]"
service_either = pytest.mark.parametrize(
    "service", [pytest.param("process", marks=pytest.mark.slow(reason=_PROCESS_COVERED)), "thread"], indirect=True)


def _design(servers: int):
    base = new_design(default_catalog(), "leaf-spine", gpus=256)
    return replace_path(base, "cluster.servers", servers)


def test_results_arrive_on_the_ui_thread_with_the_right_metrics(service, qtbot):
    seen = []
    service.resultReady.connect(lambda r: seen.append((r, threading.current_thread() is threading.main_thread())))
    # The process backend starts its worker first; with the tests on every core that can take
    # many seconds. The waits end as soon as the result arrives.
    with qtbot.waitSignal(service.resultReady, timeout=WORKER_CEILING_MS):
        service.request(_design(48))
    result, on_main = seen[-1]
    assert on_main
    assert result.metrics.servers == 48
    assert result.metrics.gpus == 384
    assert result.metrics == compute(_design(48)).metrics


@service_either
def test_a_burst_of_requests_yields_the_newest_result_only(service, qtbot):
    seen = []
    service.resultReady.connect(seen.append)
    for servers in range(20, 60):
        service.request(_design(servers))
    qtbot.waitUntil(lambda: not service.busy, timeout=WORKER_CEILING_MS)
    assert seen, "no result at all"
    assert seen[-1].metrics.servers == 59
    assert len(seen) <= 3  # gathered, not 40 computations
    assert all(r.generation == service.latest_generation for r in seen[-1:])


@service_either
def test_a_result_that_became_stale_while_computing_is_dropped(service, qtbot):
    big = new_design(default_catalog(), "rail-optimized", gpus=16384, switch="qm9700", name="stale test")
    seen = []
    service.resultReady.connect(seen.append)
    service.request(big)
    service._timer.stop()
    service._dispatch()  # what the timer does: the big design goes to the worker now
    service.request(_design(33))  # made before the UI thread could take any result
    qtbot.waitUntil(lambda: not service.busy, timeout=WORKER_CEILING_MS)
    assert [r.metrics.servers for r in seen] == [33]
    # the big one was either computed and thrown away, or skipped before it started
    assert service.dropped + service.skipped == 1
    assert all(r.design is not big for r in seen)


def test_shutdown_stops_the_thread_and_the_timer(qtbot):
    svc = ComputeService(default_catalog())
    svc.request(_design(40))
    assert svc in running_services()
    svc.shutdown()
    assert svc not in running_services()
    assert not svc.is_running()
    svc.shutdown()  # twice is fine


def test_synchronous_mode_computes_at_once_without_a_thread(qtbot):
    svc = ComputeService(default_catalog(), synchronous=True)
    seen = []
    svc.resultReady.connect(seen.append)
    svc.request(_design(40))
    assert seen[0].metrics.servers == 40
    assert not svc.is_running()


def test_a_design_that_cannot_be_sized_gives_an_error_result_not_an_exception():
    big = new_design(default_catalog(), "leaf-spine", gpus=16384, switch="qm9700")
    result = compute(replace_path(big, "fabric.tiers", 2))
    assert result.metrics is None
    assert "two tiers" in result.error


def test_a_child_process_that_dies_is_replaced_by_a_thread(qtbot):
    svc = ComputeService(default_catalog(), backend="process")
    try:
        with qtbot.waitSignal(svc.resultReady, timeout=20000):
            svc.request(_design(40))
        svc._channels["metrics"].process.popen.kill()
        qtbot.waitUntil(lambda: type(svc._channels["metrics"]).__name__ == "_ThreadChannel", timeout=10000)
        with qtbot.waitSignal(svc.resultReady, timeout=20000) as blocker:
            svc.request(_design(41))
        assert blocker.args[0].metrics.servers == 41
    finally:
        svc.shutdown()
    assert not svc.is_running()


def test_a_large_template_design_gets_its_bom_with_the_metrics():
    big = new_design(default_catalog(), "rail-optimized", gpus=16384, name="closed form")
    result = compute(big, default_catalog())
    assert not result.bom_pending and result.bom is not None
    assert result.bom.gpus == 16384 and result.bom.total_cost > 0


def test_a_large_design_with_switch_edits_gets_its_bom_with_the_metrics():
    big = new_design(default_catalog(), "rail-optimized", gpus=16384, name="edits replayed")
    big = replace_path(big, "edits", (Edit("add-links", "leaf-1", "spine-1", 1), Edit("remove-device", "spine-2")))
    result = compute(big, default_catalog())
    assert not result.bom_pending and result.bom is not None
    assert result.bom.to_json() == build_bom(derive(big), link_by_link=True).to_json()


def test_the_bom_of_a_large_design_with_a_nic_edit_follows_the_metrics(qtbot):
    svc = ComputeService(default_catalog())
    seen = []
    svc.resultReady.connect(seen.append)
    try:
        big = new_design(default_catalog(), "rail-optimized", gpus=4096, name="bom follows")
        big = replace_path(big, "edits", (Edit("remove-device", "srv-1.nic-1"),))
        svc.request(big)
        qtbot.waitUntil(lambda: bool(seen) and not svc.busy, timeout=WORKER_CEILING_MS)
    finally:
        svc.shutdown()
    assert seen[0].metrics.gpus == 4096
    assert seen[0].bom_pending and seen[0].bom is None
    assert seen[-1].bom is not None and not seen[-1].bom_pending
    assert seen[-1].metrics == seen[0].metrics
    assert seen[-1].bom.gpus == 4096
