"""Time and memory of the hostile-input cases and of one edit on the 65,536-GPU example.

Targets (README, "Reliability"): every hostile case ends within a second and a few hundred MB;
`add-links` of 10^5 links is linear; one edit on the k=64 example should cost at most about
twice the unedited metrics (printed with its ratio).
Each case runs in a child process so that its peak memory (max RSS) is its own.
"""

from __future__ import annotations

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
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.1f} s")
