"""`sweep --scheduler`: the sweep on a Dask distributed cluster gives the process pool's result.

The cluster is a LocalCluster started by the test, in this process (threads as workers, the
in-process transport): no port is opened, and it is closed however the test ends.
"""

from __future__ import annotations

import json
import sys

import pytest

from designer.cli.cluster import dask_executor
from designer.cli.common import CommandError
from designer.cli.main import main

SWEEP = ["sweep", "--gpus", "512", "--technology", "ib-ndr,roce-400g,ib-xdr", "--oversubscription", "1:1,2:1,3:1",
         "--planes", "1,2", "--json"]


@pytest.fixture
def local_cluster():
    """distributed's LocalCluster, imported by the tests that start one: collecting this file
    (on every pytest-xdist worker) does not import Dask (0.45 s of CPU), and the tests that need
    no cluster run without the extra too."""
    needed = pytest.importorskip("distributed",
                                 reason="needs dask[distributed] (pip install 'fabric-designer[cluster]')")
    return needed.LocalCluster


@pytest.fixture
def cluster(local_cluster):
    with local_cluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        yield local


def _sweep(capsys, *extra: str) -> dict:
    assert main([*SWEEP, *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    del data["seconds"]
    return data


def test_a_dask_cluster_gives_the_process_pools_result(cluster, capsys):
    on_cluster = _sweep(capsys, "--scheduler", cluster.scheduler_address)
    pooled = _sweep(capsys, "--workers", "2")
    assert on_cluster == pooled
    assert on_cluster["combinations"] == 18 and on_cluster["built"] > 0 and on_cluster["refused"] > 0


def test_the_cluster_ran_the_work(cluster):
    from designer.model.decisions.design_space import SweepSpec, run_sweep

    spec = SweepSpec(gpus=256, technologies=("ib-ndr", "roce-400g"), oversubscriptions=(1.0, 2.0, 3.0),
                     planes=(1, 2))
    before = cluster.scheduler.transition_counter
    with dask_executor(cluster.scheduler_address) as (executor, threads):
        result = run_sweep(spec, executor=executor)
    assert threads == 2
    assert result.points == run_sweep(spec, workers=1).points
    # Every chunk of 8 designs went through the scheduler (waiting, processing, memory, ...).
    chunks = -(-spec.count // 8)
    assert cluster.scheduler.transition_counter - before >= 3 * chunks


def test_an_unreachable_scheduler_is_one_line(local_cluster, capsys):
    # A scheduler on a port the system chose, closed again: nothing listens there any more.
    with local_cluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      protocol="tcp://", host="127.0.0.1", scheduler_port=0) as gone:
        address = gone.scheduler_address
    with pytest.raises(CommandError, match="cannot reach the Dask scheduler") as info, \
            dask_executor(address, timeout_s=1):
        pass
    assert "\n" not in str(info.value)


def test_a_malformed_address_is_one_line_at_once(capsys):
    assert main([*SWEEP, "--scheduler", "nonsense://scheduler"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Dask scheduler address" in err and "nonsense" in err


def test_without_dask_the_option_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed now fails
    assert main([*SWEEP, "--scheduler", "tcp://scheduler.invalid:8786"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fabric-designer[cluster]" in err


def test_workers_and_scheduler_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as info:
        main([*SWEEP, "--workers", "2", "--scheduler", "tcp://scheduler.invalid:8786"])
    assert info.value.code == 2 and "not allowed with" in capsys.readouterr().err
