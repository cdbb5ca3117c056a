"""`fabric-designer twin DESIGN` for Ethernet designs: the design on FRR in network namespaces.

`add_routing_arguments` adds the routing twin's own options to the `twin` command's parser (the
common ones, --json, --fault and --timeout, are the command's); `run_routing_twin` runs it for an
Ethernet design and prints the report. The twin lives in designer.twin.routing.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType

from designer.catalog import default_catalog
from designer.cli.common import CommandError, print_json
from designer.io.project import load_design


def add_routing_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Ethernet designs (FRR in network namespaces)")
    group.add_argument("--flows", action="store_true",
                       help="ask the kernel where each NCCL-like flow goes (UDP 4791, a source port per queue "
                            "pair) and compare the load balance with the model's flow placement")
    group.add_argument("--every-link", action="store_true",
                       help="a veth pair for every design link; by default the parallel links of a switch "
                            "pair are collapsed to one (the report says so)")


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    # SIGTERM (a timeout, a kill) ends the run as Ctrl-C does: through every clean-up on the way out.
    raise KeyboardInterrupt(f"signal {signum}")


def run_routing_twin(args: argparse.Namespace) -> int:
    """Bring an Ethernet design up on FRR; the report as text, or JSON with --json."""
    from designer.twin.namespaces import CommandFailed, TwinUnavailable
    from designer.twin.routing import RoutingTwin
    from designer.twin.routing_text import report_lines

    design = load_design(args.file)
    twin = RoutingTwin(design, default_catalog(), every_link=bool(getattr(args, "every_link", False)),
                       faults=tuple(args.fault or ()), flows=bool(getattr(args, "flows", False)),
                       timeout=float(args.timeout),
                       progress=lambda msg: print(f"twin: {msg}", file=sys.stderr, flush=True))
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        report = twin.run()
    except TwinUnavailable as exc:
        raise CommandError(str(exc)) from None
    except CommandFailed as exc:
        raise CommandError(f"the twin stopped: {exc}; every namespace and daemon it made was removed") from None
    except KeyboardInterrupt:
        print("fabric-designer twin: interrupted; every namespace and daemon the run made was removed",
              file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.json:
        print_json(report.to_json())
    else:
        print("\n".join(report_lines(report)))
    converged = report.before.converged and (report.after is None or report.after.converged)
    return 0 if converged and not report.cleanup else 1
