"""Every command at 131K GPUs, as a new user runs it (run by hand or by `make bench`).

The design is the one `fabric-designer new --template fat-tree --gpus 131072 --switch qm9700
--planes 2` writes: a two-plane k=64 fat-tree of Quantum-2 QM9700 (16,384 DGX H100, 10,240
switches, 393,216 links). It is made here rather than kept in examples/, because the tests run
every example through link-by-link paths (diagrams, UFM's NDT rules) sized for small designs.

Each command runs as `fabric-designer ...` in a fresh process, start-up included, under a small
wrapper process that reads its child's peak memory (`resource.getrusage(RUSAGE_CHILDREN)`
maxrss) and CPU time, so that no row's memory is another row's. The ratio is CPU time over
`metrics`' CPU time, taken in the same pass, which holds better than wall time on a shared
machine. Per-link formats also give their size and the rate they were written at, in MB per
CPU-second (start-up and the design's derivation included).
Import and audit read the tool's own ibnetdiscover export of the design. A command that runs
longer than the cap (--cap, default 300 s) is stopped and shown as such.

Targets (each row, where one is set): report, whatif (one switch failed) and whatif --n-1 within 3x
metrics; slurm-* within 2x; every other export (graphml, dot, drawio, netbox, ibnetdiscover, ndt, opensm)
within 5x; every export under 400 MB; import and audit within 5x metrics, and the audit under 30 s and 1 GB.
`--only` runs the rows named.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

GPUS = 131072
EXPORTS = ("slurm-tree", "slurm-block", "slurm-yaml", "graphml", "dot", "drawio", "netbox", "ibnetdiscover", "ndt",
           "opensm")
PER_LINK = ("graphml", "dot", "netbox", "ibnetdiscover", "ndt")
RATIO_TARGET = {"report": 3.0, "whatif": 3.0, "whatif --n-1": 3.0,
                "slurm-tree": 2.0, "slurm-block": 2.0, "slurm-yaml": 2.0, "graphml": 5.0, "dot": 5.0, "drawio": 5.0,
                "netbox": 5.0, "ndt": 5.0, "ibnetdiscover": 5.0, "opensm": 5.0, "import": 5.0, "audit": 5.0}
EXPORT_MB = 400

# Runs one command and prints its wall time, CPU time and peak memory as JSON.
_WRAPPER = r"""
import json, resource, subprocess, sys, time
cap = float(sys.argv[1])
start = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    _, err = child.communicate(timeout=cap)
    stopped = False
except subprocess.TimeoutExpired:
    child.kill()
    _, err = child.communicate()
    stopped = True
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": use.ru_utime + use.ru_stime, "rss_mb": use.ru_maxrss / 1024,
                  "rc": child.returncode, "stopped": stopped, "err": err.decode(errors="replace")[-300:]}))
"""


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("fabric-designer")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "designer.cli.main"]


def measure(args: list[str], cap: float) -> dict:
    out = subprocess.run([sys.executable, "-c", _WRAPPER, str(cap), *_cli(), *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size if path.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=300.0, help="stop a command after this many seconds")
    parser.add_argument("--only", default="", help="comma-separated row names to run (metrics always runs)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each command this many times and keep its least CPU time (a shared machine)")
    opts = parser.parse_args()
    only = {x.strip() for x in opts.only.split(",") if x.strip()}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        design = tmp / "k64-131k-two-plane.json"
        subprocess.run([*_cli(), "new", "--template", "fat-tree", "--gpus", str(GPUS), "--switch", "qm9700",
                        "--planes", "2", "-o", str(design)], check=True, capture_output=True)
        capture = tmp / "capture.txt"
        rows: list[tuple[str, list[str], Path | None]] = [
            ("metrics", ["metrics", str(design)], None),
            ("bom", ["bom", str(design)], None),
            ("collectives", ["collectives", str(design)], None),
            ("report", ["report", str(design), "-o", str(tmp / "report.pdf")], tmp / "report.pdf"),
            ("whatif", ["whatif", str(design), "--fail", "p1.spine-1"], None),
            ("whatif --n-1", ["whatif", str(design), "--n-1"], None),
            ("grow", ["grow", str(design), "--to-gpus", str(GPUS), "--phases", "32768,65536,131072"], None),
            ("catalog", ["catalog", "--json"], None),
        ]
        for fmt in EXPORTS:
            out = capture if fmt == "ibnetdiscover" else tmp / f"out-{fmt}"
            rows.append((f"export {fmt}", ["export", str(design), "--format", fmt, "-o", str(out)], out))
        rows += [("import", ["import", str(capture), "-o", str(tmp / "imported.json")], None),
                 ("audit", ["audit", str(capture), "--against", str(design)], None)]
        if only:
            needed = only | {"metrics"} | ({"export ibnetdiscover"} if only & {"import", "audit"} else set())
            rows = [row for row in rows if row[0] in needed]

        print(f"{GPUS:,} GPUs, two-plane k=64 fat-tree (QM9700); {os.cpu_count()} CPU(s), "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start; cap {opts.cap:.0f} s"
              + (f"; least CPU of {opts.repeat} runs each" if opts.repeat > 1 else ""))
        print("| command | wall | CPU | peak memory | CPU vs metrics | target | output |")
        print("|---|---|---|---|---|---|---|")
        base = None
        failed = False
        for name, args, out in rows:
            m = min((measure(args, opts.cap) for _ in range(max(1, opts.repeat))), key=lambda run: run["cpu"])
            if base is None:
                base = m["cpu"]
            fmt = name.removeprefix("export ")
            ratio = m["cpu"] / base if base else 0.0
            target = RATIO_TARGET.get(fmt)
            notes = []
            verdict = ""
            if m["stopped"]:
                verdict = "stopped"
                wall = f"> {opts.cap:.0f} s (stopped)"
            else:
                wall = f"{m['wall']:.2f} s"
                if m["rc"]:
                    notes.append(f"exit {m['rc']}: {m['err'].strip().splitlines()[-1] if m['err'].strip() else ''}")
            if target is not None and not m["stopped"]:
                small = m["rss_mb"] < EXPORT_MB or not name.startswith("export")
                verdict = "met" if ratio <= target and small else "NOT met"
            if name.startswith("export") and m["rss_mb"] >= EXPORT_MB:
                notes.append(f"over {EXPORT_MB} MB")
            if name == "audit" and not m["stopped"]:
                verdict = "met" if ratio <= 5.0 and m["wall"] < 30 and m["rss_mb"] < 1024 else "NOT met"
            failed |= verdict in ("NOT met", "stopped") or bool(m["rc"])
            size = _size(out) if out is not None and not m["stopped"] else 0
            output = f"{size / 1e6:.1f} MB" if size else ""
            if size and fmt in PER_LINK:
                output += f", {size / 1e6 / m['cpu']:.0f} MB per CPU-second"
            cap_mb = f", < {EXPORT_MB} MB" if name.startswith("export") else ""
            goal = f"<= {target:g}x{cap_mb}" + (", < 30 s, < 1 GB" if name == "audit" else "") if target else ""
            print(f"| `{name}` | {wall} | {m['cpu']:.2f} s | {m['rss_mb']:.0f} MB | {ratio:.1f}x | {goal} "
                  f"{verdict} | {output}{'; ' if output and notes else ''}{'; '.join(notes)} |", flush=True)
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
