"""`fabric-designer twin DESIGN`: bring the design up on the real InfiniBand or routing stack.

The stack follows the design's technology. This module holds the options every stack shares
(--json, --fault, --timeout) and hands an Ethernet design to the routing twin
(designer.cli.cmd_twin_routing, FRR in network namespaces).
"""

from __future__ import annotations

import argparse

from designer.catalog import default_catalog
from designer.cli.cmd_twin_routing import add_routing_arguments, run_routing_twin
from designer.cli.common import CommandError, SubParsers, bounded_float
from designer.io.export_source import ExportSource
from designer.io.project import load_design

MAX_TIMEOUT = 3600.0


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("twin", help="bring the design up on the real InfiniBand or routing stack",
                       description="Bring the design up on real network software and report what it did. "
                                   "Ethernet designs run on FRR (zebra, bgpd) in a Linux network namespace "
                                   "per switch, with the configuration the frr export writes; this needs "
                                   "root and the Debian packages frr and iproute2.")
    p.add_argument("file", help="project file")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--fault", nargs="+", metavar="FAULT",
                   help="after convergence, take down link:A--B (every link of the pair), link:SWITCH:PORT or "
                        "switch:NAME, and report the fabric again once it reconverged")
    p.add_argument("--timeout", type=bounded_float(1, MAX_TIMEOUT), default=120.0, metavar="SECONDS",
                   help="longest wait for the fabric to converge, each time (default 120)")
    add_routing_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    src = ExportSource(load_design(args.file), default_catalog())
    if src.family == "ethernet":
        return run_routing_twin(args)
    raise CommandError(f"the twin runs Ethernet designs on FRR here; this design is {src.technology.name}")
