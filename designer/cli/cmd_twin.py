"""`fabric-designer twin`: bring the design up on the real InfiniBand (or routing) stack.

An InfiniBand design runs on ibsim, is routed by OpenSM with the `opensm` export's files and
can be captured by the real ibnetdiscover with faults applied (designer/twin/infiniband.py).
An Ethernet design goes to the routing-stack twin (`cmd_twin_routing`: FRR's zebra and bgpd in a
network namespace per switch).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType

from designer.cli import cmd_twin_routing
from designer.cli.common import CommandError, SubParsers, print_json
from designer.io.project import load_design


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("twin", help="bring the design up on the real InfiniBand or routing stack",
                       description="Simulate the design's fabric with ibsim, route it with OpenSM (using the "
                                   "files of `export --format opensm`), read the forwarding tables it "
                                   "programmed and load NCCL's ring and tree and all-to-all on them, each "
                                   "beside the model's figure. Needs the Debian packages ibsim-utils, opensm "
                                   "and infiniband-diags. An Ethernet design runs on FRR (zebra, bgpd) in a "
                                   "Linux network namespace per switch, with the configuration the frr export "
                                   "writes; that needs root and the Debian packages frr and iproute2.")
    p.add_argument("file", help="project file")
    p.add_argument("--engine", "--routing-engine", dest="engine", default="ftree",
                   help="OpenSM routing engine (ftree, updn, dnup, minhop, dfsssp, sssp, lash, dor, nue); "
                        "default ftree")
    p.add_argument("--fault", action="append", nargs="+", default=[], metavar="FAULT",
                   help="apply before routing: link:DEVICE:PORT, switch:NAME, server:NAME, "
                        "swap:DEV:PORT,DEV:PORT (repeatable)")
    p.add_argument("--capture", metavar="FILE", help="write the real ibnetdiscover's capture of the simulated fabric")
    p.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                   help="stop everything after this long (default 300)")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    cmd_twin_routing.add_routing_arguments(p)
    p.set_defaults(run=run)


def _routing_twin(args: argparse.Namespace) -> int:
    args.fault = [f for group in args.fault for f in group]   # --fault may be given more than once
    return cmd_twin_routing.run_routing_twin(args)


def run(args: argparse.Namespace) -> int:
    from designer.model.topology.derive import derive

    design = load_design(args.file)
    if derive(design).resolved.family != "infiniband":
        return _routing_twin(args)
    if not 1 <= args.timeout <= 86400:
        raise CommandError("--timeout: give 1 to 86400 seconds")
    from designer.twin.infiniband import TwinOptions, run_infiniband_twin
    from designer.twin.processes import TwinCancelled, TwinError

    capture = Path(args.capture) if args.capture else None
    if capture is not None:
        from designer.io.atomic import check_target
        check_target(capture)
    faults = tuple(f for group in args.fault for f in group)
    options = TwinOptions(engine=args.engine, timeout=args.timeout, faults=faults, capture=capture)
    # SIGTERM (a CI job's timeout, `kill`) stops the run as Ctrl-C does: the processes go too.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        result = run_infiniband_twin(design, options=options,
                                     progress=None if args.json else lambda m: print(f"… {m}", file=sys.stderr))
    except TwinCancelled:
        raise KeyboardInterrupt from None
    except TwinError as exc:
        raise CommandError(str(exc)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.json:
        print_json(result.to_json())
    else:
        print(twin_text(result))
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _pct(x: float) -> str:
    return f"{x:.0%}"


def twin_text(result: object) -> str:
    from designer.twin.infiniband import TwinResult

    assert isinstance(result, TwinResult)
    r = result
    out = [f"{r.design}: {r.switches:,} switches, {r.cas:,} CAs on the ibsim simulator"]
    if r.routed:
        out.append(f"OpenSM {r.engine} routed the fabric: tables on every switch in {r.seconds_to_route:.2f} s, "
                   f"subnet up {r.seconds_to_subnet_up:.1f} s after OpenSM started")
    else:
        out.append(f"OpenSM {r.engine} did not route the fabric: {r.reason}. It fell back to {r.routed_by} "
                   f"(subnet up after {r.seconds_to_subnet_up:.1f} s)")
    for f in r.faults:
        out.append(f"fault applied: {f.target}")
    if r.capture:
        out.append(f"capture written: {r.capture} (ibnetdiscover on the simulator; speeds are the simulator's)")
    if r.load is not None:
        out.append("")
        out.append("All-to-all flows per port (static routes):")
        for t in r.load.routes_per_port:
            out.append(f"  {t.tier:<18} {t.ports:>6,} ports  min {t.least:,}  mean {t.mean:,.1f}  max {t.most:,}")
        out.append("")
        out.append(f"{'pattern':<11} {'flows':>10}  {'worst port load':>24}  {'throughput':>22}  slowest flow")
        out.append(f"{'':<11} {'':>10}  {'tables / model':>24}  {'tables / model':>22}")
        for p in r.load.patterns:
            lost = f", {p.unrouted:,} unrouted" if p.unrouted else ""
            out.append(f"{p.pattern:<11} {p.flows:>10,}  {_pct(p.worst_load) + ' / ' + _pct(p.model_worst_load):>24}  "
                       f"{_pct(p.throughput) + ' / ' + _pct(p.model_throughput):>22}  {_pct(p.slowest)}{lost}")
        out.append("(load: offered over capacity at the busiest port, each NIC sending at line rate; throughput: "
                   "delivered over offered, max-min fair; model: each tier's load spread evenly, as adaptive "
                   "routing approaches)")
    out += [f"note: {n}" for n in r.notes]
    return "\n".join(out)
