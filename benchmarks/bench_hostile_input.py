"""Time and memory of the hostile-input cases and of one edit on the 65,536-GPU example, the
reproductions of round four, and the full seeded hostile campaign.

Targets (README, "Reliability"): every hostile case ends within a second and a few hundred MB;
`add-links` of 10^5 links is linear; one edit on the k=64 example should cost at most about
twice the unedited metrics (printed with its ratio). Each reproduction of round four ends in one
line, exit 1 or 2, under 2 s and 200 MB, leaving no file; the 245,000-node design's `bom` runs
within 1 GB. The campaign (tests/hostile_campaign.py, `--cases`, default 5,000, one process a
case under a 2 GiB cap and 30 s) has no defect; tests/test_hostile_campaign.py runs 240 of them.
Each case runs in a child process so that its peak memory (max RSS) is its own.

    python benchmarks/bench_hostile_input.py [--cases N] [--jobs J] [--skip-campaign]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
K64 = ROOT / "examples" / "k64-fat-tree-hosts.json"

CHILD = r"""
import json, resource, sys, time
sys.argv = ["fabric-designer", *json.loads(sys.argv[1])]
from designer.cli.main import main
start = time.perf_counter()
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
elapsed = time.perf_counter() - start
print(json.dumps({"code": code, "s": elapsed,
                  "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), file=sys.stderr)
"""


def run(args: list[str]) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    return json.loads(result.stderr.strip().splitlines()[-1])


def _project(folder: Path, name: str, edit: dict | None = None, **fabric) -> str:
    doc = json.loads(K64.read_text())
    if edit:
        doc["design"]["edits"] = [edit]
    for key, value in fabric.items():
        tier, field = key.split("__")
        doc["design"]["fabric"][tier][field] = value
    path = folder / name
    path.write_text(json.dumps(doc))
    return str(path)


def round_four(folder: Path) -> None:
    """The reproductions of round four: each one line, exit 1 or 2, < 2 s, < 200 MB, no file."""
    example = ROOT / "examples" / "dgx-h100-superpod-1su.json"
    deep = folder / "d.json"
    deep.write_text('{"lldp": ' + "[" * 100_000 + "]" * 100_000 + "}")
    rates = folder / "r.toml"
    rates.write_text('[[rate]]\nid = "x"\nlabel = ' + "[" * 100_000 + "]" * 100_000 + "\n")
    nan_rates = folder / "nan.toml"
    nan_rates.write_text('[[rate]]\nid = "x"\nlabel = nan\napplies_to = "links"\nper = "link-month"\nvalue = 1\n')
    capture = subprocess.run([sys.executable, "-c", "from designer.io.ibnetdiscover import export_ibnetdiscover as e;"
                              "from designer.io.project import load_design as l;"
                              "from designer.model.topology.derive import derive as d;"
                              f"print(e(d(l({str(example)!r}))), end='')"],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout
    at = capture.index("\n[")
    dangling = folder / "dangling.topo"
    dangling.write_text(capture[:at] + '\n[1]\t"H-ffff"[1]\t# x' + capture[at:])
    evil = folder / "evil.json"
    doc = json.loads(example.read_text())
    doc["design"]["meta"]["name"] = "x\nBisection   999 Tb/s\x1b[2J"
    evil.write_text(json.dumps(doc))
    (folder / "dir").mkdir()
    out = folder / "out"
    cases = {
        "1 audit of a 100,000-deep LLDP JSON": ["audit", str(deep)],
        "2 whatif --rates 100,000-deep TOML": ["whatif", str(example), "--interruptions", "--rates", str(rates)],
        "2 whatif --rates label = nan": ["whatif", str(example), "--interruptions", "--rates", str(nan_rates)],
        "3 import with a dangling peer": ["import", str(dangling), "-o", str(out)],
        "4 collectives --size 8Gi (works)": ["collectives", str(example), "--size", "8Gi"],
        "5 metrics FOLDER": ["metrics", str(folder / "dir")],
        "6 export --node-pattern 'gpu{n}\\n'": ["export", str(example), "-f", "ndt", "-o", str(out),
                                                "--node-pattern", "gpu{n}\n"],
        "8 metrics of a forged name (works)": ["metrics", str(evil)],
        "11 gui --screenshot FOLDER": ["gui", "--screenshot", str(folder / "dir")],
        "s full-width --dpi": ["render", str(example), "-o", str(out), "--dpi", "\uff17\uff12"],
        "s technology/switch mismatch": ["new", "--server", "dgx-a100", "--switch", "qm9700", "--technology",
                                         "ib-xdr", "--gpus", "64", "-o", str(out)],
    }
    for name, args in cases.items():
        r = run(args)
        left = out.exists()
        good = r["s"] < 2.0 and r["mb"] < 200 and not (left and r["code"] != 0)
        print(f"{name:45} exit {r['code']}  {r['s'] * 1000:8.0f} ms  {r['mb']:6.0f} MB  "
              f"{'file left' if left and r['code'] else ''}{'ok' if good else 'MISSED'}")
        if left:
            out.unlink()
    big = folder / "n245k.json"
    new = run(["new", "--nodes", "245000", "--server", "generic-1gpu-host", "--template", "fat-tree", "--radix",
               "2048", "--speed", "400G", "-o", str(big)])
    print(f"{'9 new --nodes 245000 (radix 2048)':45} exit {new['code']}  {new['s'] * 1000:8.0f} ms  "
          f"{new['mb']:6.0f} MB  {'ok' if new['mb'] < 1024 else 'MISSED'}")
    if big.exists():
        bom = run(["bom", str(big)])
        print(f"{'9 bom of the 245,000-node design':45} exit {bom['code']}  {bom['s'] * 1000:8.0f} ms  "
              f"{bom['mb']:6.0f} MB  {'ok' if bom['mb'] < 1024 else 'MISSED'}")


def full_campaign(cases: int, jobs: int) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import hostile_campaign as campaign

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = campaign.run_cases(campaign.make_cases(46, cases, campaign.make_base()), Path(tmp),
                                      per_process=1, jobs=jobs)
    summary = campaign.summarize(outcomes)
    print(f"campaign: {summary['cases']:,} cases, {summary['worked']:,} worked, {summary['refused']:,} refused, "
          f"defects {summary['defects'] or 'none'}, slowest {summary['slowest_s']} s, "
          f"{time.perf_counter() - started:.0f} s in all")
    for line in summary["failing"]:
        print(f"  {line}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deep = folder / "deep.json"
        deep.write_text("[" * 100_000 + "]" * 100_000)
        small = folder / "small.json"
        subprocess.run([sys.executable, "-m", "designer.cli.main", "new", "--template", "rail-optimized",
                        "--nodes", "32", "-o", str(small)], check=True, capture_output=True)
        doc = json.loads(small.read_text())
        cases = {
            "metrics on a file nested 100,000 deep": ["metrics", str(deep)],
            "metrics /dev/zero": ["metrics", "/dev/zero"],
            "spine.count 1e9": ["metrics", _project(folder, "s.json", spine__count=1e9)],
            "spine.count 1e6 (ceiling)": ["metrics", _project(folder, "s6.json", spine__count=1_000_000)],
            "new --gpus 1e9 --radix 100000": ["new", "--template", "fat-tree", "--gpus", "1000000000",
                                              "--radix", "100000", "--speed", "400G", "-o", str(folder / "x.json")],
            "new --gpus 4M --radix 2048 (ceiling)": ["new", "--template", "fat-tree", "--gpus", "4000000",
                                                     "--radix", "2048", "--speed", "400G", "-o",
                                                     str(folder / "y.json")],
            "collectives --params 1e400": ["collectives", str(small), "--params", "1e400"],
        }
        for n in (10_000, 100_000):
            doc["design"]["edits"] = [{"op": "add-links", "a": "leaf-1", "b": "spine-1", "count": n}]
            path = folder / f"add{n}.json"
            path.write_text(json.dumps(doc))
            cases[f"add-links x {n:,}"] = ["metrics", str(path)]
        for name, args in cases.items():
            r = run(args)
            verdict = "ok" if r["s"] < 1.0 else "SLOW"
            print(f"{name:45} exit {r['code']}  {r['s'] * 1000:8.0f} ms  {r['mb']:6.0f} MB  {verdict}")

        base = run(["metrics", str(K64)])
        edited = run(["metrics", _project(folder, "edit.json",
                                          {"op": "remove-links", "a": "leaf-1", "b": "spine-1", "count": 1})])
        ratio = edited["s"] / base["s"]
        print(f"k=64 metrics: {base['s']:.2f} s unedited, {edited['s']:.2f} s after one remove-links "
              f"({ratio:.1f}x; target about 2x), {edited['mb']:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000, help="cases of the seeded campaign (default 5,000)")
    parser.add_argument("--jobs", type=int, default=1, help="campaign processes at a time")
    parser.add_argument("--skip-campaign", action="store_true", help="the timed cases only")
    options = parser.parse_args()
    start = time.perf_counter()
    main()
    with tempfile.TemporaryDirectory() as tmp:
        round_four(Path(tmp))
    if not options.skip_campaign:
        full_campaign(options.cases, options.jobs)
    print(f"total {time.perf_counter() - start:.1f} s")
