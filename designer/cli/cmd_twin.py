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
    p.add_argument("--engine", "--routing-engine", dest="engine", default=None,
                   help="OpenSM routing engine (ftree, updn, dnup, minhop, dfsssp, sssp, lash, dor, nue); "
                        "default: the one the design names (performance.routing_engine), else ftree")
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
        from designer.twin.report import twin_text

        print(twin_text(result))
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


# --- whatif --fail ... --twin ---------------------------------------------------------------------

def whatif_twin(design: object, failure: object, analytic: object, timeout: float = 300.0) -> dict[str, object]:
    """The fabric routed by OpenSM before and after the failure, each pattern's throughput on the
    real tables beside the analytic what-if's figure (bisection kept for all-to-all, the NIC
    bandwidth kept for ring and tree)."""
    from designer.model.decisions.whatif import Failure, WhatIf
    from designer.model.intent.design import FabricDesign
    from designer.twin.infiniband import TwinOptions, run_infiniband_twin
    from designer.twin.processes import TwinCancelled, TwinError

    assert isinstance(design, FabricDesign) and isinstance(failure, Failure) and isinstance(analytic, WhatIf)
    faults = tuple(f"switch:{d}" for d in failure.devices) + tuple(f"cable:{a}--{b}" for a, b in failure.links)
    try:
        before = run_infiniband_twin(design, options=TwinOptions(timeout=timeout))
        after = run_infiniband_twin(design, options=TwinOptions(timeout=timeout, faults=faults))
    except TwinCancelled:
        raise KeyboardInterrupt from None
    except TwinError as exc:
        raise CommandError(f"--twin: {exc}") from None
    kept_bisection = analytic.ratio_after / analytic.ratio_before if analytic.ratio_before else 0.0
    kept_nic = analytic.nic_share if analytic.job_continues else 0.0
    rows = []
    assert before.load is not None and after.load is not None
    for b, a in zip(before.load.patterns, after.load.patterns, strict=True):
        model = kept_bisection if b.pattern == "all-to-all" else kept_nic
        rows.append({"pattern": b.pattern, "throughput_before": b.throughput, "throughput_after": a.throughput,
                     "unrouted_after": a.unrouted, "analytic_after": model,
                     "analytic_basis": "bisection kept" if b.pattern == "all-to-all" else "NIC bandwidth kept"})
    return {"engine": after.engine, "routed_by_after": after.routed_by, "routed_after": after.routed,
            "fallback_reason_after": after.reason or None, "seconds_to_route_after": round(after.seconds_to_route, 3),
            "faults": [f.to_json() for f in after.faults], "patterns": rows}


def whatif_twin_text(doc: dict[str, object]) -> str:
    from designer.twin.report import percent as _pct

    routed = (f"OpenSM {doc['engine']} rerouted the fabric in {doc['seconds_to_route_after']} s"
              if doc["routed_after"] else
              f"OpenSM {doc['engine']} did not route the failed fabric ({doc['fallback_reason_after']}); "
              f"{doc['routed_by_after']} did")
    out = ["", f"On the InfiniBand stack (ibsim + OpenSM): {routed}",
           f"  {'pattern':<11} {'before':>7} {'after, real tables':>19} {'after, analytic':>16}"]
    patterns = doc["patterns"]
    assert isinstance(patterns, list)
    for p in patterns:
        lost = f" ({p['unrouted_after']:,} flows unrouted)" if p["unrouted_after"] else ""
        out.append(f"  {p['pattern']:<11} {_pct(p['throughput_before']):>7} {_pct(p['throughput_after']):>19} "
                   f"{_pct(p['analytic_after']):>16}  ({p['analytic_basis']}){lost}")
    out.append("  (throughput: delivered over offered, max-min fair on the forwarding tables OpenSM programmed)")
    return "\n".join(out)
