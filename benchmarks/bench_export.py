"""Time every export format on a 16,384-GPU design (run by hand or by `make bench`).

The design: 2,048 DGX H100 in 64 rail-optimized SUs on Quantum-2 QM9700, three tiers (1,280
switches, 49,152 links), and its RoCE counterpart on SN5600 for containerlab. Each format is
timed from the loaded design to the bytes on disk. The shared work (the device graph and,
for NetBox and NDT, the physical layer with racks and cable lengths) is timed on its own
first, as the first export of a session pays it. Target: each export a few seconds at most
on a current laptop core (TARGET_S, the shared work included).

`--at-131k` times the command line as a user runs it on the 131,072-GPU two-plane fat-tree
(QM9700, 10,240 switches, 393,216 links): `metrics`, then each streamed export (GraphML, DOT),
each in a fresh process, best of 3, with the process's peak memory. Targets: within
5x the metrics time and under 400 MB.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 5.0


def main() -> int:
    from designer.catalog import default_catalog
    from designer.io.export_source import ExportSource
    from designer.io.exporters import FORMATS, write_export
    from designer.model.topology.presets import new_design

    catalog = default_catalog()
    designs = {
        "infiniband": new_design(catalog, "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700"),
        "ethernet": new_design(catalog, "rail-optimized", gpus=16384, server="dgx-h100", switch="sn5600",
                               technology="roce-400g"),
    }
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for family, design in designs.items():
            start = time.perf_counter()
            src = ExportSource(design, catalog)
            _ = src.graph
            graph_s = time.perf_counter() - start
            start = time.perf_counter()
            _ = src.physical
            physical_s = time.perf_counter() - start
            m = src.derived.metrics
            print(f"{design.meta.name}: {m.gpus:,} GPUs, {m.switches_total:,} switches, {m.links_total:,} links; "
                  f"graph {graph_s:.2f} s, physical layer {physical_s:.2f} s")
            for fmt in FORMATS.values():
                if fmt.family and fmt.family != family:
                    continue
                if fmt.family is None and family == "ethernet":
                    continue  # family-neutral formats are timed once, on the InfiniBand design
                start = time.perf_counter()
                written = write_export(fmt, src, Path(tmp) / f"{fmt.name}{fmt.extension}")
                took = time.perf_counter() - start
                shared = graph_s + (physical_s if fmt.name in ("netbox", "ndt") else 0.0)
                worst = max(worst, took + shared)
                size = sum(p.stat().st_size for p in written) / 1e6
                print(f"  {fmt.name:<12} {took:6.2f} s  (+ {shared:.2f} s shared)  {size:7.1f} MB")
    verdict = "ok" if worst <= TARGET_S else "SLOW"
    print(f"slowest export, shared work included: {worst:.2f} s (target {TARGET_S:.0f} s) {verdict}")
    return 0 if worst <= TARGET_S else 1


STREAMED = ("graphml", "dot", "dot-bundled")
RATIO_TARGET, MEMORY_TARGET_MB = 5.0, 400


def _run(args: list[str]) -> tuple[float, float]:
    """(seconds, peak MB) of one fresh `fabric-designer` process."""
    code = ("import resource, sys, time; from designer.cli.main import main; t = time.perf_counter(); "
            f"rc = main({args!r}); print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024); sys.exit(rc)")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    peak = float(out.strip().splitlines()[-1].split()[1])
    return wall, peak


def at_131k() -> int:
    from designer.catalog import default_catalog
    from designer.io.project import save_design
    from designer.model.topology.presets import new_design

    design = new_design(default_catalog(), "fat-tree", gpus=131072, switch="qm9700", planes=2)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "131k.json")
        save_design(design, path)
        metrics = min(_run(["metrics", path]) for _ in range(3))
        print(f"{'metrics':<12} {metrics[0]:6.2f} s  {metrics[1]:6.0f} MB")
        for fmt in STREAMED:
            out = str(Path(tmp) / f"131k.{fmt}")
            took, peak = min(_run(["export", path, "-f", fmt, "-o", out, "--force"]) for _ in range(3))
            ratio = took / metrics[0]
            good = ratio <= RATIO_TARGET and peak < MEMORY_TARGET_MB
            ok &= good
            print(f"{fmt:<12} {took:6.2f} s  {peak:6.0f} MB  {ratio:4.1f}x metrics  "
                  f"{Path(out).stat().st_size / 1e6:6.0f} MB written  {'ok' if good else 'SLOW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(at_131k() if "--at-131k" in sys.argv[1:] else main())
