"""`fabric-designer new` and `metrics`: scriptable output and one-line refusals."""

import json

import pytest

from designer.cli.main import main
from tests.helpers import cli_run


def run(*args):
    return cli_run(*args)


@pytest.mark.parametrize("args, says", [
    (["--template", "leaf-spine", "--gpus", "0"], "must be a positive whole number"),
    (["--template", "leaf-spine", "--gpus", "-8"], "must be a positive whole number"),
    (["--template", "leaf-spine", "--gpus", "12"], "not a whole number of 8-GPU nodes"),
    (["--template", "leaf-spine", "--gpus", "256", "--switch", "qm9999"], "unknown switch 'qm9999'"),
    (["--template", "leaf-spine", "--gpus", "256", "--oversubscription", "two:one"], "malformed oversubscription"),
    (["--template", "leaf-spine", "--gpus", "4096", "--switch", "qm9700", "--tiers", "2"],
     "two tiers of Quantum-2 QM9700 hold at most 64 leaves"),
    (["--template", "fat-tree", "--gpus", "131072", "--switch", "qm9700"], "hold at most 64 pods"),
    (["--template", "rail-optimized", "--nodes", "64", "--nodes-per-su", "40", "--switch", "qm9700"],
     "use at most 32 nodes per SU"),
    (["--template", "leaf-spine", "--gpus", "256", "--switch", "sn5600", "--speed", "300G"], "has no 300G ports"),
])
def test_impossible_requests_get_one_line_and_no_file(tmp_path, args, says):
    out = tmp_path / "f.json"
    result = run("new", *args, "-o", str(out))
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert says in lines[0]
    assert "Traceback" not in result.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_generic_radix_switch_and_host_level_fabric(tmp_path, capsys):
    out = tmp_path / "hosts.json"
    assert main(["new", "--template", "leaf-spine", "--gpus", "512", "--gpus-per-node", "1",
                 "--radix", "32", "--speed", "400G", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["gpus"] == m["endpoints"] == 512
    assert m["switches"]["by_tier"] == {"leaf": 32, "spine": 16, "core": 0}
    for key in ("bisection_gbps", "bisection_ratio", "max_hops", "findings"):
        assert key in m


def test_metrics_text_summary_and_bad_file(tmp_path, capsys):
    good = tmp_path / "g.json"
    main(["new", "--template", "rail-optimized", "--nodes", "32", "--server", "dgx-h100", "-o", str(good)])
    capsys.readouterr()
    assert main(["metrics", str(good)]) == 0
    text = capsys.readouterr().out
    assert "leaf" in text and "spine" in text and "Bisection" in text
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    result = run("metrics", str(bad))
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "not valid JSON" in result.stderr


def test_unknown_part_in_a_file_is_one_line(tmp_path):
    path = tmp_path / "p.json"
    run("new", "--template", "leaf-spine", "--gpus", "256", "-o", str(path))
    doc = json.loads(path.read_text())
    doc["design"]["cluster"]["server"] = "dgx-z900"
    path.write_text(json.dumps(doc))
    result = run("metrics", str(path))
    assert result.returncode == 1 and "unknown server 'dgx-z900'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
