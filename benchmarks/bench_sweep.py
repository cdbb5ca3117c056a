"""Time design-space sweeps (run by hand), counting built designs, not combinations.

Target: at least 500 built designs in under 10 s on two cores. Refused combinations (a ratio a
switch cannot give, a tier count that does not fit) cost little and are not counted as designs.

Rows:
- 1,024 GPUs: 3 templates x 4 technologies x 6 oversubscriptions x 2 plane counts x 2 tier
  counts = 288 combinations;
- 32,768 GPUs: 3 templates x 2 technologies x 3 switch choices x 8 oversubscriptions x 3 plane
  counts x 2 tier counts, for InfiniBand and for Ethernet: 1,728 combinations, of which more than
  500 build.
- 131,072 GPUs, one worker: the rate of one worker on large fabrics, which is what each worker
  of a cluster adds (`sweep --scheduler`).
- 1,048,576 GPUs, one worker (`--rows 1m`, not in the default run): HGX B300 (four 200G planes) at
  1:1 on Tomahawk 6 and Tomahawk 5 class switches, uplinks at the servers' speed or 400G: each
  point's bill counted by class of link (an oversubscribed point at this size leaves a switch cage
  with server ports and uplinks, and is counted link by link: tens of seconds and gigabytes).
Each built design is derived, priced (BOM) and its all-reduce estimated.

Each row also gives the CPU seconds it took (this process and its workers, start-up of the pool
included) and per built design, and the load average: on a machine shared with other work the
wall time says little, and CPU seconds over the cores give the wall time to expect when they are
free. `--workers N` runs the rows on N worker processes (default: one per core; 1 runs them in
this process). `--rows 32k` runs the 32,768-GPU row alone, `--rows 1m` the 1,048,576-GPU row.

`--scheduler ADDRESS` runs every row on that Dask cluster instead of this machine's cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from concurrent.futures import Executor

from designer.model.decisions.design_space import SweepSpec, run_sweep

TEMPLATES = ("leaf-spine", "fat-tree", "rail-optimized")
RATIOS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
RATIOS_32K = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes (user and system)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def row(label: str, specs: list[SweepSpec], workers: int, executor: Executor | None = None,
        target: bool = True) -> None:
    combos = sum(s.count for s in specs)
    cpu, start = cpu_seconds(), time.perf_counter()
    results = [run_sweep(s, workers=workers, executor=executor) for s in specs]
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    built = sum(len(r.built) for r in results)
    refused = sum(len(r.refused) for r in results)
    rate = built / elapsed if elapsed else 0.0
    where = "the Dask cluster" if executor is not None else f"{workers} worker process(es)"
    print(f"{label}: {combos:,} combinations on {where}: {built:,} designs built, "
          f"{refused:,} refused, in {elapsed:.2f} s ({rate:,.1f} built designs a second)")
    if executor is None and built:
        cores = min(workers, os.cpu_count() or 1)
        print(f"  {cpu:.2f} CPU seconds ({cpu / built * 1000:.1f} ms a built design), load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: {cpu / cores:.2f} s of wall time on "
              f"{cores} free core(s)")
    if target:
        print(f"  target 500 built designs in 10 s (50 a second): {'met' if rate >= 50 else 'NOT met'}"
              + ("" if built >= 500 else f" (as a rate: this row builds {built})"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run the rows on this Dask cluster")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per core; 1: in this process)")
    parser.add_argument("--rows", choices=("all", "32k", "1m"), default="all", help="the rows to run")
    args = parser.parse_args()
    if args.scheduler:
        from distributed import Client

        with Client(args.scheduler) as client:
            rows(os.cpu_count() or 1, client.get_executor(pure=False), args.rows)
    else:
        rows(max(1, args.workers), None, args.rows)


def rows(workers: int, executor: Executor | None, which: str = "all") -> None:
    if which == "32k":
        row_32k(workers, executor)
        return
    if which == "1m":
        million = [SweepSpec(gpus=1_048_576, server="hgx-b300-eth-4plane", templates=("fat-tree",),
                             technologies=("roce-400g",), switches=("tomahawk6-102t", "tomahawk5-51t"),
                             uplink_speeds=(None, 400))]
        if executor is None:
            row("1,048,576 GPUs, the rate of one worker", million, 1, None, target=False)
        else:
            row("1,048,576 GPUs", million, workers, executor, target=False)
        return
    row("1,024 GPUs", [SweepSpec(gpus=1024, templates=TEMPLATES,
                                 technologies=("ib-ndr", "ib-xdr", "roce-400g", "roce-800g"),
                                 oversubscriptions=RATIOS, planes=(1, 2), tiers=(2, 3))], workers, executor)
    row_32k(workers, executor)
    largest = [SweepSpec(gpus=131072, templates=("fat-tree", "rail-optimized"), technologies=(tech,),
                         oversubscriptions=(1.0, 2.0), planes=(1, 2), tiers=(3,))
               for tech in ("ib-xdr", "roce-800g")]
    if executor is None:
        row("131,072 GPUs, the rate of one worker", largest, 1, None, target=False)
    else:
        row("131,072 GPUs", largest, workers, executor, target=False)


def row_32k(workers: int, executor: Executor | None) -> None:
    row("32,768 GPUs", [
        SweepSpec(gpus=32768, templates=TEMPLATES, technologies=("ib-ndr", "ib-xdr"),
                  switches=(None, "qm9700", "q3400"), oversubscriptions=RATIOS_32K, planes=(1, 2, 4), tiers=(2, 3)),
        SweepSpec(gpus=32768, templates=TEMPLATES, technologies=("roce-400g", "roce-800g"),
                  switches=(None, "sn5600", "tomahawk5-51t"), oversubscriptions=RATIOS_32K, planes=(1, 2, 4),
                  tiers=(2, 3)),
    ], workers, executor)


if __name__ == "__main__":
    main()
