"""Time a design-space sweep (run by hand).

Target: at least 500 designs in under 10 s on two cores. The sweep below is 576 combinations
of one 1,024-GPU cluster: 3 templates x 4 technologies x 6 oversubscriptions x 2 plane counts x
2 tier counts; each built design is derived, priced (BOM) and its all-reduce estimated.
"""

from __future__ import annotations

import os
import time

from designer.model.decisions.design_space import SweepSpec, run_sweep


def main() -> None:
    spec = SweepSpec(gpus=1024, templates=("leaf-spine", "fat-tree", "rail-optimized"),
                     technologies=("ib-ndr", "ib-xdr", "roce-400g", "roce-800g"),
                     oversubscriptions=(1.0, 1.5, 2.0, 2.5, 3.0, 4.0), planes=(1, 2), tiers=(2, 3))
    workers = os.cpu_count() or 1
    start = time.perf_counter()
    result = run_sweep(spec, workers=workers)
    elapsed = time.perf_counter() - start
    print(f"{spec.count} combinations of {spec.gpus:,} GPUs on {workers} worker process(es): "
          f"{len(result.built)} built, {len(result.refused)} refused, in {elapsed:.2f} s "
          f"({elapsed / spec.count * 1000:.1f} ms per combination)")
    print(f"fronts: {len(result.front('cost_time'))} designs on cost vs time, "
          f"{len(result.front('cost_power'))} on cost vs power")
    print(f"target 500 designs in 10 s: {'met' if elapsed <= 10 * spec.count / 500 else 'NOT met'}")


if __name__ == "__main__":
    main()
