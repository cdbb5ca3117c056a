"""`fabric-designer whatif`: the fabric after switches, a plane or cables fail, or the worst N-1."""

from __future__ import annotations

import argparse
import fnmatch
from typing import TYPE_CHECKING, Any

from designer.catalog import default_catalog
from designer.cli.common import CommandError, SubParsers, check_design_memory, print_json, table
from designer.io.project import load_design
from designer.model.common.units import bandwidth_label, duration_label, rate_label, ratio_label
from designer.model.decisions.whatif import (
    NMinusOne,
    WhatIf,
    WhatIfError,
    n_minus_one,
    parse_failure,
    performance_impact,
    switch_ids,
    what_if,
)
from designer.model.networks.failures import NetworkFailure, match_network_switches, network_failures
from designer.model.networks.sizing import size_networks
from designer.model.topology.derive import Derived, derive

if TYPE_CHECKING:   # the expected interruptions (and the bill of materials they count) load only for them
    from designer.model.decisions.interruptions import Interruptions
    from designer.model.networks.resilience import NetworkResilience


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("whatif", help="what a failure does to the fabric",
                       description="Fail devices or links (or every switch in turn with --n-1) and show "
                                   "the GPUs cut off, bisection, leaf oversubscription, the SUs and rails "
                                   "hurt, and the estimated collective time before and after.")
    p.add_argument("file", help="project file")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--fail", nargs="+", metavar="DEVICE_OR_LINK",
                      help="switch ids (spine-3, p2.leaf-1), globs (spine-*), plane:N, or a cable A--B")
    mode.add_argument("--n-1", dest="n1", action="store_true",
                      help="fail every switch in turn; report the worst of each tier")
    mode.add_argument("--interruptions", action="store_true",
                      help="expected link failures and interruptions from the failure-rate table")
    p.add_argument("--rates", metavar="FILE", help="failure-rate table (TOML) instead of the built-in one")
    p.add_argument("--twin", action="store_true",
                   help="with --fail on an InfiniBand design: re-run OpenSM on the simulated fabric with the "
                        "failure and set the rerouted throughput beside the analytic figures (needs ibsim-utils, "
                        "opensm, infiniband-diags)")
    p.add_argument("--json", action="store_true", help="machine-readable output (stable keys)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    derived = derive(load_design(args.file))
    if args.twin and not args.fail:
        raise CommandError("--twin goes with --fail")
    check_design_memory(derived, "the failure analysis")
    try:
        if args.interruptions:
            from designer.model.decisions.interruptions import interruptions, load_rates
            from designer.model.networks.resilience import design_resilience

            rates = load_rates(args.rates) if args.rates else None
            report = interruptions(derived, rates)
            networks = design_resilience(derived, default_catalog(), rates)
            if args.json:
                doc = report.to_json()
                if networks:  # the cluster's other networks, beside the compute fabric's keys
                    doc["networks"] = [n.to_json() for n in networks]
                print_json(doc)
            else:
                print(interruptions_text(report))
                if networks:
                    print(networks_text(networks))
            return 0
        if args.n1:
            worst = n_minus_one(derived)
            if args.json:
                print_json(worst.to_json())
            else:
                print(n1_text(worst))
            return 0
        tokens, network_failed = _network_tokens(derived, args.fail)
        if network_failed and not tokens:   # only switches of the other networks were named
            if args.json:
                print_json({"networks": [f.to_json() for f in network_failed]})
            else:
                print(network_failures_text(network_failed))
            return 0
        result = what_if(derived, parse_failure(derived, tokens))
    except WhatIfError as exc:
        raise CommandError(str(exc)) from None
    impact = performance_impact(derived, result)
    twin = None
    if args.twin:
        if derived.resolved.family != "infiniband":
            raise CommandError("--twin runs the InfiniBand stack; this design is "
                               f"{derived.resolved.technology.name}")
        from designer.cli.cmd_twin import whatif_twin, whatif_twin_text

        twin = whatif_twin(derived.design, result.failure, result)
    if args.json:
        data = result.to_json()
        data["performance"] = impact
        if network_failed:
            data["networks"] = [f.to_json() for f in network_failed]
        if twin is not None:
            data["twin"] = twin
        print_json(data)
    else:
        print(whatif_text(result, impact))
        if network_failed:
            print(network_failures_text(network_failed))
        if twin is not None:
            print(whatif_twin_text(twin))
    return 0


def _network_tokens(derived: Derived, tokens: list[str]) -> tuple[list[str], tuple[NetworkFailure, ...]]:
    """The tokens naming compute-fabric elements, and the failures of the other networks' switches."""
    design = derived.design
    if not design.networks:
        return list(tokens), ()
    catalog = default_catalog()
    sizes = size_networks(design, catalog, derived.metrics.switches_total)
    failed, rest = match_network_switches(list(tokens), sizes)
    # A glob may name switches of both: the compute fabric's part goes to its own failure model.
    compute = switch_ids(derived)
    rest += [t for t in tokens if t not in rest and any(ch in t for ch in "*?[") and fnmatch.filter(compute, t)]
    return rest, network_failures(failed, sizes, design.cluster.servers)


def network_failures_text(failures: tuple[NetworkFailure, ...]) -> str:
    lines: list[str] = []
    for f in failures:
        lines += [f"Network {f.network}: {', '.join(f.failed)} down" if f.failed else
                  f"Network {f.network}: no switch of its own down"]
        lines += [f"  {e}" for e in f.effects]
    return "\n".join(lines)


def _ratio(v: float | None) -> str:
    return ratio_label(v, "no uplinks")


def _time(us: float | None) -> str:
    return "-" if us is None else duration_label(us, "us")


def whatif_text(w: WhatIf, impact: dict[str, Any] | None = None) -> str:
    verdict = ("the job continues" + (f" at {w.nic_share:.0%} of NIC bandwidth" if w.nic_share < 1 else "")
               if w.job_continues else "a job on every GPU stops")
    rows = [
        ("Failed", w.failure.label),
        ("Result", verdict),
        ("GPUs cut off", f"{w.gpus_cut:,} of {w.gpus:,} (endpoints cut off: {w.endpoints_cut:,})"),
        ("GPUs degraded", f"{w.gpus_degraded:,} (keep {w.nic_share:.0%} of their NIC bandwidth)"),
        ("Bisection", f"{w.ratio_before:.2%} -> {w.ratio_after:.2%} of full "
                      f"({bandwidth_label(w.bisection_before_gbps)} -> {bandwidth_label(w.bisection_after_gbps)})"),
        ("Leaf oversubscription", f"{_ratio(w.leaf_oversub_before)} -> {_ratio(w.leaf_oversub_after)} worst, "
                                  f"{len(w.leaf_oversub)} leaves changed"),
    ]
    if w.sus_cut or w.rails_cut:
        rows.append(("Hurt",
                     f"SU {', '.join(map(str, w.sus_cut)) or '-'}; rail {', '.join(map(str, w.rails_cut)) or '-'}"))
    if w.sus_degraded:
        rows.append(("SUs with fewer uplinks", ", ".join(map(str, w.sus_degraded))))
    rows.append(("Method", f"computed ({w.method})"))
    if impact and "before_us" in impact:
        rows.append((f"{impact['collective']} (estimated)",
                     f"{_time(impact['before_us'])} -> {_time(impact.get('after_us'))}"))
        if impact.get("step_before_ms") is not None:
            after = impact.get("step_after_ms")
            rows.append(("Training step (estimated)",
                         f"{impact['step_before_ms']:.1f} ms -> {'-' if after is None else f'{after:.1f} ms'}"))
    if impact and impact.get("note"):
        rows.append(("Note", impact["note"]))
    return table(rows)


def n1_text(report: NMinusOne) -> str:
    rows = []
    for tier, w in report.worst.items():
        rows.append((tier, report.switches[tier], report.evaluated[tier], w.failure.label, w.gpus_cut,
                     f"{w.ratio_after:.2%}", _ratio(w.leaf_oversub_after),
                     "continues" if w.job_continues else "stops"))
    head = ("tier", "switches", "evaluated", "worst", "GPUs cut", "bisection", "leaf oversub", "job")
    return (f"N-1: every single switch failure, worst of each tier (computed, {report.method})\n"
            + table(rows, head))


def _rate(v: float | None) -> str:
    return rate_label(v)


def interruptions_text(report: Interruptions) -> str:
    from designer.model.decisions.interruptions import unit_name

    rows = [(e.rate.label, f"{e.units:,} {unit_name(e.rate.applies_to)}", _rate(e.per_day), _rate(e.per_month))
            for e in report.expected]
    out = ["Expected failures (estimated: computed counts x published rates, extrapolated)",
           table(rows, ("kind", "of", "per day", "per month"))]
    for e in report.expected:
        if e.per_day is not None:
            out.append(f"  {e.rate.label}: measured: {e.rate.measured} ({e.rate.source}); "
                       f"extrapolated: {e.rate.extrapolated}")
    for share in (report.design_share, report.other_share):
        if share is None:
            continue
        stops = ", ".join(k for k, v in share.stops_by_kind.items() if v) or "none"
        value = "-" if share.share is None else f"{share.share:.0%}"
        out.append(f"{share.label} ({share.planes} plane(s)): {value} of link and NIC failures stop a job "
                   f"(single failures that cut a GPU off: {stops})")
    out += [f"Note: {n}" for n in report.notes]
    return "\n".join(out)


def networks_text(networks: tuple[NetworkResilience, ...]) -> str:
    from designer.model.decisions.interruptions import unit_name

    lines: list[str] = []
    for net in networks:
        lines += ["", f"Network: {net.size.label}"]
        lines += [f"  one {f.component} down ({f.units:,} of them): {f.effect}"
                  + (" - stops jobs" if f.stops_jobs else "") for f in net.failures]
        for e in net.expected:
            if e.per_month is None:
                lines.append(f"  {e.rate.label}: no published rate ({e.units:,} {unit_name(e.rate.applies_to)})")
            else:
                lines.append(f"  {e.rate.label}: {e.per_month:.2f} per month over {e.units:,} "
                             f"{unit_name(e.rate.applies_to)} (estimate)")
    return "\n".join(lines)
