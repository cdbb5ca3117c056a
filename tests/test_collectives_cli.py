"""`fabric-designer collectives`: JSON for scripts, tables for people, one-line refusals."""

from __future__ import annotations

import json

import pytest

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.topology.presets import new_design
from tests.helpers import cli_run

CAT = default_catalog()
KEYS = {"size_bytes", "time_us", "algbw_GBps", "busbw_GBps", "algorithm", "protocol", "bottleneck"}


def run(*args):
    return cli_run("collectives", *args)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("designs")
    ib = root / "ib.json"
    eth = root / "eth.json"
    save_design(new_design(CAT, "rail-optimized", nodes=16, server="dgx-h100", switch="qm9700",
                           name="16 x DGX H100 NDR"), ib)
    save_design(new_design(CAT, "rail-optimized", nodes=16, server="dgx-h100", switch="sn5600",
                           technology="roce-400g", name="16 x DGX H100 RoCE"), eth)
    return ib, eth


def test_json_sweep_lists_every_size_with_the_documented_keys(files):
    ib, _ = files
    result = run(str(ib), "--sweep", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["size_bytes"] for r in rows] == [2 ** k for k in range(3, 35)]
    for r in rows:
        assert set(r) >= KEYS and r["nccl_algorithm"]
        assert r["busbw_GBps"] == pytest.approx(r["algbw_GBps"] * 2 * 127 / 128)


@pytest.mark.parametrize("text, size", [("8GiB", 8 << 30), ("64KiB", 64 << 10), ("512B", 512),
                                        ("3MiB", 3 << 20), ("1024", 1024)])
def test_sizes_accept_units(files, text, size):
    ib, _ = files
    rows = json.loads(run(str(ib), "--size", text, "--json").stdout)
    assert len(rows) == 1 and rows[0]["size_bytes"] == size


def test_ring_at_8gib_gives_the_published_multi_node_figure(files):
    ib, _ = files
    rows = json.loads(run(str(ib), "--size", "8GiB", "--algorithm", "ring", "--json").stdout)
    assert rows[0]["algorithm"] == "ring"
    assert 380 * 0.85 <= rows[0]["busbw_GBps"] <= 396 * 1.15


def test_collective_gpus_and_placement_flags_change_the_answer(files):
    ib, _ = files
    a2a = json.loads(run(str(ib), "--collective", "alltoall", "--size", "1GiB", "--json").stdout)[0]
    ar = json.loads(run(str(ib), "--collective", "allreduce", "--size", "1GiB", "--json").stdout)[0]
    assert a2a["algorithm"] in ("pairwise", "hierarchical") and ar["time_us"] != a2a["time_us"]
    one = json.loads(run(str(ib), "--gpus", "8", "--size", "1GiB", "--algorithm", "ring", "--json").stdout)[0]
    assert one["bottleneck"] == "NVLink"
    nodes = json.loads(run(str(ib), "--nodes", "1", "--size", "1GiB", "--algorithm", "ring", "--json").stdout)[0]
    assert nodes == one
    spread = run(str(ib), "--placement", "spread", "--size", "1GiB", "--json")
    assert spread.returncode == 0


def test_text_output_explains_the_numbers(files):
    ib, _ = files
    result = run(str(ib), "--size", "1GiB")
    assert result.returncode == 0
    out = result.stdout
    for phrase in ("NVLink: 370.8 GB/s usable", "47.0 GB/s payload", "SHARP available", "busbw GB/s",
                   "bottleneck"):
        assert phrase in out


def test_compare_prints_two_designs_side_by_side(files):
    ib, eth = files
    result = run(str(ib), "--compare", str(eth))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "ib-ndr" in lines[0] and "roce-400g" in lines[0]
    assert sum(1 for line in lines if line.startswith(("8 B", "16 GiB"))) == 2


def test_training_step_view(files):
    ib, _ = files
    result = run(str(ib), "--params", "7e9", "--compute-ms", "300")
    assert result.returncode == 0, result.stderr
    assert "Communication share" in result.stdout and "Advice (heuristic)" in result.stdout
    data = json.loads(run(str(ib), "--params", "70B", "--compute-ms", "300", "--dp", "16", "--json").stdout)
    assert data["params"] == 70e9 and data["dp_degree"] == 16 and data["advice"]["heuristic"] is True
    assert 0 < data["comm_share"] < 1


@pytest.mark.parametrize("args, says", [
    (["--collective", "allsum"], "unknown collective 'allsum'"),
    (["--size", "0"], "at least 1 byte"),
    (["--size", "eight"], "malformed size"),
    (["--gpus", "4096"], "4,096 GPUs requested but the design has 128"),
    (["--nodes", "17"], "17 nodes requested but the design has 16"),
    (["--gpus", "12"], "not a whole number of 8-GPU servers"),
    (["--algorithm", "butterfly"], "invalid choice"),
    (["--collective", "broadcast", "--algorithm", "innetwork"], "has no innetwork algorithm"),
    (["--params", "70e9"], "compute time"),
    (["--compute-ms", "300"], "add --params"),
    (["--params", "lots", "--compute-ms", "3"], "malformed parameter count"),
    (["--compare", "x.json", "--json"], "leave out --json"),
])
def test_bad_requests_get_one_line_and_a_nonzero_exit(files, args, says):
    ib, _ = files
    result = run(str(ib), *args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert says in lines[0]
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_missing_file_is_one_line(tmp_path):
    result = run(str(tmp_path / "nope.json"))
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1
