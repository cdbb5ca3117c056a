"""The routing twin's Ethernet rows (run by hand as root, with FRR installed).

Rows:
- the 512-GPU RoCE leaf-spine example (examples/roce-512-leaf-spine-sn5600.json: 12 switches,
  bundles collapsed to 32 links): time to converge from the first configuration handed to FRR,
  target under 30 s; the run's wall time; the daemons' memory (zebra and bgpd, proportional set size);
- the same with every design link a veth pair (512 links, 1,024 BGP sessions);
- `--scale`: leaf-spine RoCE designs on SN5600 of growing size until one does not converge
  within the timeout or the daemons' memory would pass --memory-mb: the largest design this
  machine holds (namespaces, daemons, memory), with each size's row.

The time to converge includes the readers' polling (two commands per switch every half second,
over the daemons' vty sockets), which grows with the switch count on a small machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "roce-512-leaf-spine-sn5600.json"
TARGET_S = 30.0


def _pss_kb(pid: int) -> int:
    """The process's proportional set size: its own pages, and its share of the shared ones."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(label: str, design, every_link: bool = False, timeout: float = 120.0) -> tuple[bool, float, float]:
    from designer.catalog import default_catalog
    from designer.twin.routing import RoutingTwin

    memory = {"kb": 0}

    class Measured(RoutingTwin):
        def _settle(self, start):
            phase = super()._settle(start)
            memory["kb"] = sum(_pss_kb(p.pid) for d in self.fleet.switches.values() for p in d.processes.values())
            return phase

    start = time.perf_counter()
    twin = Measured(design, default_catalog(), every_link=every_link, timeout=timeout)
    report = twin.run()
    wall = time.perf_counter() - start
    b = report.before
    mb = memory["kb"] / 1024
    widths = sorted({w.low for w in b.widths})
    print(f"{label}: {report.switches:,} switches ({2 * report.switches:,} daemons), {report.links:,} veth pairs, "
          f"{b.expected_sessions:,} sessions: {'converged' if b.converged else 'NOT converged'} in {b.seconds:.1f} s, "
          f"{b.established:,} up, ECMP widths {widths}; run {wall:.1f} s; daemons {mb:,.0f} MB (PSS) "
          f"({mb / max(report.switches, 1):.1f} MB per switch)")
    return b.converged, b.seconds, mb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", action="store_true", help="grow leaf-spine designs to the largest that converges")
    parser.add_argument("--memory-mb", type=float, default=4096, help="daemons' memory budget for --scale")
    parser.add_argument("--timeout", type=float, default=300, help="convergence wait per row")
    parser.add_argument("--gpus", type=int, nargs="+", default=[2048, 4096, 8192, 16384, 32768],
                        help="the --scale sizes, in order")
    parser.add_argument("--skip-example", action="store_true", help="only the --scale rows")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("bench_twin_routing: needs root (network namespaces)", file=sys.stderr)
        return 2
    from designer.catalog import default_catalog
    from designer.io.project import load_design
    from designer.model.topology.presets import new_design

    if not args.skip_example:
        design = load_design(EXAMPLE)
        ok, seconds, _ = run("512-GPU RoCE example, bundles collapsed", design)
        print(f"  target: converged in under {TARGET_S:.0f} s: {'met' if ok and seconds < TARGET_S else 'NOT met'}")
        run("512-GPU RoCE example, every link", design, every_link=True, timeout=args.timeout)
    if args.scale:
        catalog = default_catalog()
        largest = None
        for gpus in args.gpus:
            d = new_design(catalog, "leaf-spine", gpus=gpus, server="dgx-h100", switch="sn5600",
                           technology="roce-400g")
            ok, seconds, mb = run(f"{gpus:,}-GPU leaf-spine", d, timeout=args.timeout)
            if not ok:
                break
            largest = gpus
            if mb * 2.2 > args.memory_mb:     # the next size roughly doubles the switches
                break
        print(f"largest design converged on this machine: {largest:,} GPUs" if largest else
              "no scale row converged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
