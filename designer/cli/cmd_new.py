"""`fabric-designer new`: make a design file from a template."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from typing import Any

from designer.catalog import Catalog, default_catalog
from designer.cli.common import (
    MAX_NODES,
    CommandError,
    SubParsers,
    bounded_int,
    check_memory,
    check_project_target,
    non_empty,
    output_file,
    positive_int,
    speed_gbps,
)
from designer.io.project import save_design
from designer.limits import MAX_RADIX, quote
from designer.model.common.footprint import links_upper_bound
from designer.model.common.units import ratio_label
from designer.model.intent.design import (
    MAX_PER_SERVER,
    MAX_PLANES,
    MAX_RATIO,
    MIN_RATIO,
)
from designer.model.networks.defaults import converged_networks, ra_networks
from designer.model.networks.sizing import size_networks
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import load_prices
from designer.model.topology.bounds import check_endpoints
from designer.model.topology.derive import derive
from designer.model.topology.presets import TEMPLATES, new_design_choice
from designer.model.topology.refusal_hints import hint_text, what_would_build
from designer.model.topology.sizing import SizingError, parse_ratio


def _ratio(text: str) -> float:
    if not text.isascii():   # float() takes full-width and other scripts' digits; a user means ASCII
        raise argparse.ArgumentTypeError(f"malformed oversubscription ratio {quote(text, 40)} "
                                         "(use plain digits, like 1:1, 3:1 or 1.5)")
    try:
        value = parse_ratio(text) if len(text) <= 40 else parse_ratio("x")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if len(text) <= 40 else "malformed ratio (too long)") from None
    if not MIN_RATIO <= value <= MAX_RATIO:
        raise argparse.ArgumentTypeError(f"oversubscription ratio '{text}' is out of range "
                                         f"({MIN_RATIO:g} to {MAX_RATIO:g})")
    return value


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("new", help="make a new design file from a template",
                       description="Make a design from a template and write it as a project file. "
                                   "Nothing is written when the request cannot be built.")
    p.add_argument("--template", choices=TEMPLATES,
                   help="fabric template (default: rail-optimized, the reference architectures' layout, built "
                        "rail-only (one switch per rail, no spine) where every rail fits one switch and NVLink "
                        "spans the server, unless --tiers or --nodes-per-su is given)")
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--gpus", type=positive_int, help="GPU count")
    size.add_argument("--nodes", type=bounded_int(1, MAX_NODES), help="server (node) count")
    p.add_argument("--gpus-per-node", type=bounded_int(1, MAX_PER_SERVER),
                   help="GPUs per server (default: the server model's)")
    p.add_argument("--server", type=non_empty, help="server model id from the catalog (default: dgx-h100; "
                                                        "`fabric-designer catalog servers` lists them)")
    p.add_argument("--switch", type=non_empty,
                   help="switch from the catalog: its id or the vendor's model name or part "
                                    "number, in any case (e.g. QM9700, MQM9700-NS2F, q3400)")
    p.add_argument("--radix", type=bounded_int(2, MAX_RADIX), help="a generic switch of this many ports (with --speed)")
    p.add_argument("--speed", type=speed_gbps, help="link speed such as 400G (default: the NIC port speed, or the "
                                                     "switch's own speed where it has no ports at that speed)")
    p.add_argument("--uplink-speed", type=speed_gbps,
                   help="switch-to-switch speed such as 800G, where the switch's port modes allow it (e.g. 200G "
                        "down and 800G up on a 102.4T switch: a quarter of the uplink cables for the same "
                        "bandwidth); default: the technology's")
    p.add_argument("--technology", type=non_empty, help="fabric technology id, e.g. ib-ndr or roce-ecmp-400g "
                                                         "(`fabric-designer catalog technologies` lists them)")
    p.add_argument("--oversubscription", type=_ratio, default=1.0, help="leaf downlink:uplink, e.g. 1:1 or 3:1")
    p.add_argument("--spine-oversubscription", type=_ratio, default=1.0,
                   help="spine downlink:uplink in three-tier fabrics")
    p.add_argument("--tiers", type=int, choices=(1, 2, 3),
                   help="fix the tier count (default: smallest that fits; one when a plane fits one switch)")
    p.add_argument("--nodes-per-su", type=bounded_int(1, MAX_NODES),
                   help="servers per scalable unit (default: the server's reference-architecture SU for the "
                        "technology from the catalog, e.g. 72 for DGX B300 on XDR, else 32; rack-scale systems "
                        "such as GB200 NVL72 take whole racks); other SU sizes (unless given) and rails per leaf "
                        "are priced too")
    p.add_argument("--planes", type=bounded_int(1, MAX_PLANES), help="parallel fabric planes (default: the server's)")
    p.add_argument("--name", help="design name")
    p.add_argument("--prices", help="price book (TOML) for choosing the cheapest switch; its entries override "
                                    "the built-in and user prices")
    p.add_argument("--networks", choices=("ra", "compute", "hybrid", "merged"), default="ra",
                   help="the cluster's other networks: 'ra' (default) adds the converged/storage, in-band "
                        "and out-of-band networks the server's reference architecture gives it (servers "
                        "whose catalog entry states ports per role); 'compute' makes the compute fabric only; "
                        "'hybrid' one converged Ethernet network (storage, in-band, users) and out-of-band; "
                        "'merged' the converged ports on the compute fabric, and out-of-band")
    p.add_argument("-o", "--output", required=True, type=output_file, help="project file to write")
    p.add_argument("--force", action="store_true",
                   help="replace the output file even if it is not a Fabric Designer project")
    p.set_defaults(run=run)


def _what_would_build(catalog: Catalog, request: dict[str, Any]) -> str:
    """'what builds it: --template fat-tree, or --tiers 3' when those size the refused request; ''."""
    if request["radix"]:
        return ""   # a generic switch of a given radix: the user chose the box on purpose
    try:   # the technology the request runs on: the one a one-server design of it takes
        tech_id = request["technology"] or new_design_choice(
            catalog, request["template"], nodes=1, server=request["server"], switch=request["switch"],
            speed=request["speed"]).design.fabric.technology
    except (SizingError, KeyError, ValueError):
        return ""

    def builds(changes: Mapping[str, Any]) -> bool:
        derive(new_design_choice(catalog, **{**request, **changes}).design, catalog)
        return True

    found = what_would_build(catalog, catalog.technology(tech_id), template=request["template"],
                             tiers=request["tiers"], switch=request["switch"], planes=request["planes"] or 1,
                             builds=builds)
    return hint_text(found, command_line=True)


def _check_switch_fits_technology(args: argparse.Namespace, catalog: Catalog) -> None:
    """A named switch of another family, or an InfiniBand switch of another generation, than the
    named technology is refused here, not found later by `bom` (a QM9700 runs NDR, not XDR)."""
    if not (args.switch and args.technology):
        return
    switch, tech = catalog.switch(args.switch), catalog.technology(args.technology)
    if switch.family != tech.family:
        raise CommandError(f"switch {switch.id} ({switch.name}) is {switch.family}; technology {tech.id} is "
                           f"{tech.family}: choose a switch of that family or leave --switch out")
    if (tech.family == "infiniband" and switch.generation != tech.generation
            and switch.id not in (*tech.switches, tech.default_switch)):
        raise CommandError(f"switch {switch.id} ({switch.name}) runs InfiniBand {switch.generation}; technology "
                           f"{tech.id} is {tech.generation}: choose one of its switches "
                           f"({', '.join(dict.fromkeys((tech.default_switch, *tech.switches)))}) or leave --switch out")


def _request_size(args: argparse.Namespace, catalog: Catalog) -> tuple[int, int]:
    """(servers, NIC ports attached to the fabric) of the request, from the command line alone."""
    server = catalog.servers.get(args.server) if args.server else None
    gpus_per_server = args.gpus_per_node or (server.gpus if server else 8)
    ports = server.compute_ports if server else gpus_per_server
    servers = args.nodes or -(-(args.gpus or 0) // max(1, gpus_per_server))
    return servers, servers * ports


def run(args: argparse.Namespace) -> int:
    if args.radix and args.switch:
        raise CommandError("give either --switch or --radix, not both")
    out = check_project_target(args.output, args.force)
    catalog = default_catalog()
    # Without --switch or --radix the technology's switches are compared by price (see README,
    # "How sizing chooses"); a named switch is used as named, and its layouts (SU size, rails per
    # leaf) are compared by price all the same.
    _check_switch_fits_technology(args, catalog)
    prices = load_prices(args.prices)
    # Before sizing, from the request alone: the closed forms' ceiling (the plainer refusal), then
    # the memory that pricing the candidates takes, each of which builds its links.
    servers, endpoints = _request_size(args, catalog)
    check_endpoints(endpoints)
    check_memory(links_upper_bound(endpoints, args.tiers or 3), "sizing and pricing this fabric",
                 "a smaller cluster (--nodes, --gpus) fits, or a larger budget", devices=servers)
    request: dict[str, Any] = dict(
        template=args.template or "rail-optimized", gpus=args.gpus, nodes=args.nodes, gpus_per_node=args.gpus_per_node,
        server=args.server, switch=args.switch, radix=args.radix, speed=args.speed,
        oversubscription=args.oversubscription, spine_oversubscription=args.spine_oversubscription,
        tiers=args.tiers, nodes_per_su=args.nodes_per_su, planes=args.planes,
        technology=args.technology, name=args.name, uplink_speed=args.uplink_speed)
    try:
        choice = new_design_choice(catalog, **request, cost=fabric_cost(catalog, prices),
                                   bound=fabric_bound(catalog, prices),
                                   rail_only_default=True if args.template is None else None)
        derive(choice.design, catalog)   # a three-tier ceiling shows only when the plan is made
    except SizingError as exc:
        hint = _what_would_build(catalog, request)
        raise CommandError(f"{exc}; {hint}" if hint else str(exc)) from None
    design = choice.design
    if args.networks != "compute":
        server = catalog.server(design.cluster.server)
        networks = (ra_networks(server) if args.networks == "ra"
                    else converged_networks(server, merged=args.networks == "merged"))
        if not networks and args.networks != "ra":
            raise CommandError(f"the server model '{server.id}' states no converged or storage ports; "
                               f"use --networks compute")
        design = dataclasses.replace(design, networks=networks)
    derived = derive(design, catalog)  # raises before anything is written
    errors = derived.metrics.errors
    if errors:
        raise CommandError(errors[0].message)
    network_errors = [e for s in size_networks(design, catalog, derived.metrics.switches_total) for e in s.errors]
    if network_errors:
        raise CommandError(network_errors[0])
    save_design(design, out)
    m = derived.metrics
    print(f"wrote {out}: {m.gpus:,} GPUs, {m.tiers} tier{'s' if m.tiers != 1 else ''}, {m.switches_total:,} switches")
    for net in design.networks:
        if net.template == "segment":
            print(f"  network: {net.label} (a segment of the {net.carrier} network: no switches of its own)")
        else:
            print(f"  network: {net.label} ({net.technology}, {net.switch})")
    for note in choice.notes:
        print(f"  note: {note}")
    for tier, asked in (("leaf", args.oversubscription), ("spine", args.spine_oversubscription)):
        got = m.oversubscription(tier)
        if got is not None and (tier == "leaf" or m.tiers == 3) and (abs(got - asked) > 1e-6 or choice.notes):
            # Sizing never exceeds the request; fewer, fuller spines can land below it.
            print(f"  {tier} oversubscription {ratio_label(got)} (asked {ratio_label(asked)})")
    return 0
