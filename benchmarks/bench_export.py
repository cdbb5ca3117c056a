"""Time every export format on a 16,384-GPU design (run by hand or by `make bench`).

The design: 2,048 DGX H100 in 64 rail-optimized SUs on Quantum-2 QM9700, three tiers (1,280
switches, 49,152 links), and its RoCE counterpart on SN5600 for containerlab. Each format is
timed from the loaded design to the bytes on disk. The shared work (the device graph and,
for NetBox and NDT, the physical layer with racks and cable lengths) is timed on its own
first, as the first export of a session pays it. Target: each export a few seconds at most
on a current laptop core (TARGET_S, the shared work included).
"""

from __future__ import annotations

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


if __name__ == "__main__":
    sys.exit(main())
