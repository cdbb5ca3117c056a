"""The physical layer at scale, each figure beside its target (run by `make bench`).

At 16K, 65K and 131K GPUs:
- BOM time against metrics time (target: the BOM at most 3x the metrics). Template designs get
  their BOM in closed form (designer/model/physical/closed_form_bom.py); the link-by-link BOM
  is timed too, for reference;
- peak memory of a compute worker (the window's background process) that derives the design and
  builds its metrics, collective estimate and BOM (target: under 400 MB);
- writing the cabling plan against Python's csv module writing the same rows to a file
  (target: at most 2x); the plan needs every link, so the link-by-link layer is built first,
  untimed;
- `fabric-designer report` of the design, as a user runs it (target: under 3 s).

Each timing is the best of a few runs, in a fresh process where a cache would otherwise help.
`python benchmarks/bench_bom.py --quick` skips the cabling plan and the link-by-link BOM.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from designer.catalog import default_catalog
from designer.io.cabling_csv import cabling_rows, write_cabling_csv
from designer.io.csv_cells import ENCODING
from designer.io.project import design_to_json
from designer.model.topology.presets import new_design

DESIGNS = {
    "16K": ("rail-optimized", dict(gpus=16384, switch="qm9700")),
    "65K": ("fat-tree", dict(gpus=65536, switch="qm9700")),
    "131K": ("fat-tree", dict(gpus=131072, switch="qm9700", planes=2)),
}

# Runs in a fresh interpreter: metrics and BOM of one design, timed from a cold cache.
_TIMING = """
import json, sys, time
from designer.catalog import default_catalog
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
template, kw, link_by_link = json.loads(sys.argv[1])
cat = default_catalog()
design = new_design(cat, template, **kw)
start = time.perf_counter()
d = derive(design, cat)
metrics = time.perf_counter() - start
start = time.perf_counter()
bom = build_bom(d, cat, link_by_link=link_by_link)
print(json.dumps([metrics, time.perf_counter() - start, bom.total_cost, bom.total_power_w]))
"""

# A compute worker's job: what the window's background process does for one design.
_WORKER = """
import json, resource, sys
from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from designer.ui.services.compute_job import compute
template, kw = json.loads(sys.argv[1])
cat = default_catalog()
result = compute(new_design(cat, template, **kw), cat)
assert result.bom is not None and not result.bom_pending
try:  # this process's own peak (ru_maxrss would include the parent's, kept across exec)
    with open("/proc/self/status") as fh:
        print(next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024)
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _python(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    return out.stdout.strip().splitlines()[-1]


def bom_times(template: str, kw: dict, link_by_link: bool = False, runs: int = 3) -> tuple[float, float]:
    best = [float("inf"), float("inf")]
    for _ in range(runs):
        metrics, bom, _, _ = json.loads(_python(_TIMING, json.dumps([template, kw, link_by_link])))
        best = [min(best[0], metrics), min(best[1], bom)]
    return best[0], best[1]


def worker_mb(template: str, kw: dict) -> float:
    return float(_python(_WORKER, json.dumps([template, kw])))


def report_s(template: str, kw: dict, folder: Path, runs: int = 2) -> float:
    project = folder / "design.json"
    project.write_text(design_to_json(new_design(default_catalog(), template, **kw)))
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "designer.cli.main", "report", str(project), "-o",
                        str(folder / "report.pdf")], check=True, capture_output=True,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        best = min(best, time.perf_counter() - start)
    return best


def cabling_times(template: str, kw: dict, folder: Path, runs: int = 2) -> tuple[float, float, int]:
    """(writing the plan, the csv module writing the same rows, rows)."""
    from designer.model.physical.media import physical_layer
    from designer.model.topology.derive import derive

    cat = default_catalog()
    phys = physical_layer(derive(new_design(cat, template, **kw), cat), cat)
    rows = cabling_rows(phys, cat)
    plan = base = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        write_cabling_csv(phys, folder / "plan.csv", cat)
        plan = min(plan, time.perf_counter() - start)
        start = time.perf_counter()
        with open(folder / "baseline.csv", "w", newline="", encoding=ENCODING) as fh:
            csv.writer(fh, dialect="excel", lineterminator="\r\n").writerows(rows)
        base = min(base, time.perf_counter() - start)
    return plan, base, len(rows) - 1


def main() -> None:
    quick = "--quick" in sys.argv
    print("| GPUs | metrics | BOM (closed form) | BOM / metrics (target <= 3x) | link-by-link BOM "
          "| worker peak (target < 400 MB) | cabling plan / csv module (target <= 2x) "
          "| report (target < 3 s) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, (template, kw) in DESIGNS.items():
            metrics, bom = bom_times(template, kw)
            walked = "skipped" if quick else f"{bom_times(template, kw, link_by_link=True, runs=1)[1]:.2f} s"
            mb = worker_mb(template, kw)
            if quick:
                cabling = "skipped"
            else:
                plan, base, rows = cabling_times(template, kw, folder)
                cabling = f"{plan:.2f} s / {base:.2f} s = {plan / base:.2f}x ({rows:,} rows)"
            report = report_s(template, kw, folder)
            print(f"| {label} | {metrics:.3f} s | {bom:.3f} s | {bom / metrics:.1f}x | {walked} | {mb:.0f} MB "
                  f"| {cabling} | {report:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
