"""`fabric-designer export`: hand the design to the tools around the fabric.

Slurm topology (tree, block, topology.yaml), NetBox import CSVs, a containerlab topology,
GraphML and DOT device graphs, a draw.io diagram and a UFM cabling topology (NDT). Works
without a display; every file is written atomically.
"""

from __future__ import annotations

import argparse
import sys

from designer.cli.common import CommandError, SubParsers, check_design_memory
from designer.io.containerlab import PROFILES
from designer.io.export_source import DEFAULT_NODE_PATTERN, ExportError, ExportOptions, ExportSource, parse_view
from designer.io.exporters import FORMATS, format_named, write_export
from designer.io.ndt import NDT_KINDS
from designer.io.project import load_design
from designer.model.topology.derive import derive


def _view(text: str) -> str:
    try:
        parse_view(text)
    except ExportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _hca_names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(","))
    if not all(n and len(n) <= 40 and n.isprintable() and " " not in n and "," not in n for n in names):
        raise argparse.ArgumentTypeError("give HCA device names separated by commas, such as mlx5_0,mlx5_1")
    return names


def add_parser(sub: SubParsers) -> None:
    formats = "\n".join(f"  {f.name:<12} {f.label}\n  {'':<12} {f.purpose}" for f in FORMATS.values())
    p = sub.add_parser(
        "export", help="write the design for Slurm, NetBox, containerlab, GraphML/DOT, draw.io or UFM",
        description="Write the design in the format of another tool: the scheduler's topology, the inventory,\n"
                    "the lab, analysis tools, diagram editors or the InfiniBand fabric manager.\n"
                    "Refuses a design with errors unless --force. Works without a display.",
        epilog="formats:\n" + formats, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="project file")
    p.add_argument("--format", "-f", required=True, choices=list(FORMATS), metavar="FORMAT",
                   help="one of: " + ", ".join(FORMATS))
    p.add_argument("-o", "--output", required=True, help="output file (a folder for netbox)")
    p.add_argument("--force", action="store_true", help="export even when the design has errors")
    p.add_argument("--view", type=_view, default="fabric", metavar="VIEW",
                   help="fabric (default), su:N (one SU or pod with the switches above it) or plane:N")
    p.add_argument("--node-pattern", default=DEFAULT_NODE_PATTERN, metavar="PATTERN",
                   help="server names: {n} number from 1, {su} SU from 1, {i} place in the SU from 1 "
                        f"(default {DEFAULT_NODE_PATTERN})")
    p.add_argument("--site", default="", help="netbox: site name (default: the design's name)")
    p.add_argument("--netbox-ib-lanes", action="store_true",
                   help="netbox: 4-lane InfiniBand ports as NetBox's 4X types (infiniband-ndr-4x ...), which "
                        "NetBox 4.6.9 and later have; without it, infiniband-ndr, infiniband-xdr ...")
    p.add_argument("--ndt-kind", choices=NDT_KINDS, default="all",
                   help="ndt: the links UFM's NDT plugin takes as one file type: switch-to-switch, "
                        "switch-to-host, or all (upload it as switch_to_host)")
    p.add_argument("--hca-names", type=_hca_names, default=(), metavar="NAMES",
                   help="ndt: the servers' HCA device names in NIC order, comma-separated, as UFM sees them "
                        "(e.g. mlx5_0,mlx5_1,mlx5_4,mlx5_5); default mlx5_0, mlx5_1, ...")
    p.add_argument("--clab-profile", choices=list(PROFILES), default="sonic",
                   help="clab: switch node defaults, " + "; ".join(f"{k} = {v.label}" for k, v in PROFILES.items()))
    p.add_argument("--clab-kind", default="", help="clab: containerlab kind of the switches (overrides the profile)")
    p.add_argument("--clab-image", default="", help="clab: container image of the switches (overrides the profile)")
    p.add_argument("--clab-servers", action="store_true", help="clab: add the servers as Linux nodes")
    p.add_argument("--clab-server-image", default="", help="clab: container image of the server nodes")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    fmt = format_named(args.format)
    options = ExportOptions(node_pattern=args.node_pattern, view=args.view, site=args.site,
                            netbox_ib_lanes=args.netbox_ib_lanes, ndt_kind=args.ndt_kind,
                            hca_names=args.hca_names,
                            clab_profile=args.clab_profile, clab_kind=args.clab_kind, clab_image=args.clab_image,
                            clab_servers=args.clab_servers, clab_server_image=args.clab_server_image)
    design = load_design(args.file)
    check_design_memory(derive(design), "the export")
    try:
        src = ExportSource(design, options=options)
        written = write_export(fmt, src, args.output, force=args.force)
    except ExportError as exc:
        raise CommandError(str(exc)) from None
    if src.errors:
        print(f"warning: the design has {len(src.errors)} error(s); exported anyway (--force): "
              f"{src.errors[0].message}", file=sys.stderr)
    what = f"{len(written)} files" if fmt.folder else fmt.label
    print(f"wrote {args.output} ({what}, {src.view_label})")
    return 0
