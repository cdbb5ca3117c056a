"""Time design-space sweeps (run by hand), counting built designs, not combinations.

Target: at least 500 built designs in under 10 s on two cores. Refused combinations (a ratio a
switch cannot give, a tier count that does not fit) cost little and are not counted as designs.

Rows:
- 1,024 GPUs: 3 templates x 4 technologies x 6 oversubscriptions x 2 plane counts x 2 tier
  counts = 288 combinations;
- 32,768 GPUs: 3 templates x 2 technologies x 3 switch choices x 8 oversubscriptions x 3 plane
  counts x 2 tier counts, for InfiniBand and for Ethernet: 1,728 combinations, of which more than
  500 build.
Each built design is derived, priced (BOM) and its all-reduce estimated.
"""

from __future__ import annotations

import os
import time

from designer.model.decisions.design_space import SweepSpec, run_sweep

TEMPLATES = ("leaf-spine", "fat-tree", "rail-optimized")
RATIOS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
RATIOS_32K = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)


def row(label: str, specs: list[SweepSpec], workers: int) -> None:
    combos = sum(s.count for s in specs)
    start = time.perf_counter()
    results = [run_sweep(s, workers=workers) for s in specs]
    elapsed = time.perf_counter() - start
    built = sum(len(r.built) for r in results)
    refused = sum(len(r.refused) for r in results)
    rate = built / elapsed if elapsed else 0.0
    print(f"{label}: {combos:,} combinations on {workers} worker process(es): {built:,} designs built, "
          f"{refused:,} refused, in {elapsed:.2f} s ({rate:,.0f} built designs a second)")
    print(f"  target 500 built designs in 10 s (50 a second): {'met' if rate >= 50 else 'NOT met'}"
          + ("" if built >= 500 else f" (as a rate: this row builds {built})"))


def main() -> None:
    workers = os.cpu_count() or 1
    row("1,024 GPUs", [SweepSpec(gpus=1024, templates=TEMPLATES,
                                 technologies=("ib-ndr", "ib-xdr", "roce-400g", "roce-800g"),
                                 oversubscriptions=RATIOS, planes=(1, 2), tiers=(2, 3))], workers)
    row("32,768 GPUs", [
        SweepSpec(gpus=32768, templates=TEMPLATES, technologies=("ib-ndr", "ib-xdr"),
                  switches=(None, "qm9700", "q3400"), oversubscriptions=RATIOS_32K, planes=(1, 2, 4), tiers=(2, 3)),
        SweepSpec(gpus=32768, templates=TEMPLATES, technologies=("roce-400g", "roce-800g"),
                  switches=(None, "sn5600", "tomahawk5-51t"), oversubscriptions=RATIOS_32K, planes=(1, 2, 4),
                  tiers=(2, 3)),
    ], workers)


if __name__ == "__main__":
    main()
