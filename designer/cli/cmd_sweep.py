"""`fabric-designer sweep`: every buildable fabric for one cluster, measured, with Pareto fronts."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

from designer.catalog import default_catalog
from designer.cli.common import (
    CommandError,
    SubParsers,
    non_empty,
    output_file,
    positive_int,
    print_json,
    size_bytes,
    speed_gbps,
    table,
)
from designer.io.sweep_csv import write_sweep_csv
from designer.model.common.units import duration_label, ratio_label, size_label
from designer.model.decisions.comparison import CompareSettings
from designer.model.decisions.design_space import DEFAULT_TECHNOLOGIES, SweepResult, SweepSpec, run_sweep
from designer.model.topology.presets import TEMPLATES
from designer.model.topology.sizing import parse_ratio

_T = TypeVar("_T")


def _list(kind: Callable[[str], _T]) -> Callable[[str], tuple[_T, ...]]:
    def parse(text: str) -> tuple[_T, ...]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError("give at least one value")
        try:
            return tuple(kind(t) for t in items)
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _tiers(text: str) -> int:
    if text not in ("2", "3"):
        raise ValueError(f"tiers must be 2 or 3, got '{text}'")
    return int(text)


def _template(text: str) -> str:
    if text not in TEMPLATES:
        raise ValueError(f"unknown template '{text}' (choose from {', '.join(TEMPLATES)})")
    return text


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("sweep", help="explore the design space: every combination, with Pareto fronts",
                       description="Build every combination of the given technologies, oversubscriptions, "
                                   "planes, switches and tiers for one cluster; measure capex, power, TCO, "
                                   "bisection and a collective's time; mark the Pareto fronts (cost against "
                                   "time, cost against power). Combinations that cannot be built are listed "
                                   "with their reason. Lists are comma-separated.")
    p.add_argument("--gpus", type=positive_int, required=True, help="GPU count of the cluster")
    p.add_argument("--server", type=non_empty,
                   help="server model id from the catalog (default: dgx-h100, or the newest shipping "
                        "8-GPU server where it runs more of the technologies)")
    p.add_argument("--template", type=_list(_template), default=("rail-optimized",),
                   help="templates (default rail-optimized)")
    p.add_argument("--technology", type=_list(str), default=DEFAULT_TECHNOLOGIES,
                   help="technology ids (default " + ",".join(DEFAULT_TECHNOLOGIES) + ")")
    p.add_argument("--oversubscription", type=_list(parse_ratio), default=(1.0,),
                   help="leaf oversubscriptions, e.g. 1:1,2:1,3:1 (default 1:1)")
    p.add_argument("--planes", type=_list(positive_int), default=(None,),
                   help="plane counts, e.g. 1,2 (default: the server's)")
    p.add_argument("--switch", type=_list(str), default=(None,),
                   help="switch ids (default: each technology's default switch)")
    p.add_argument("--tiers", type=_list(_tiers), default=(None,), help="tier counts, 2 and/or 3 (default: fewest)")
    p.add_argument("--uplink-speed", type=_list(speed_gbps), default=(None,),
                   help="switch-to-switch speeds, e.g. 200G,800G: speed-asymmetric uplinks where a switch's "
                        "modes allow them (default: the technology's)")
    p.add_argument("--nodes-per-su", type=positive_int, default=32, help="servers per scalable unit")
    p.add_argument("--collective", default="allreduce", help="collective to estimate (default allreduce)")
    p.add_argument("--size", type=size_bytes, default=1 << 30, help="message size (default 1GiB)")
    p.add_argument("--years", type=int, default=CompareSettings.years, help="TCO period in years")
    p.add_argument("--energy-price", type=float, default=CompareSettings.energy_usd_per_kwh,
                   help="USD per kWh (an assumption: use your tariff)")
    p.add_argument("--pue", type=float, default=CompareSettings.pue, help="power usage effectiveness")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, help="worker processes (default: one per core)")
    where.add_argument("--scheduler", metavar="ADDRESS", type=non_empty,
                       help="run on the Dask distributed cluster whose scheduler is at ADDRESS, e.g. "
                            "tcp://10.0.0.5:8786 (needs pip install 'fabric-designer[cluster]' here and "
                            "on every worker)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="OUT", type=output_file, help="also write every combination as CSV")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    catalog = default_catalog()
    for tech in args.technology:
        catalog.technology(tech)  # an unknown id is one clear line before any work
    for sw in args.switch:
        if sw is not None:
            catalog.switch(sw)
    if args.server:
        catalog.server(args.server)
    try:
        settings = CompareSettings(years=args.years, energy_usd_per_kwh=args.energy_price, pue=args.pue)
        spec = SweepSpec(gpus=args.gpus, server=args.server, templates=args.template, technologies=args.technology,
                         oversubscriptions=args.oversubscription, planes=args.planes, switches=args.switch,
                         tiers=args.tiers, uplink_speeds=args.uplink_speed, nodes_per_su=args.nodes_per_su,
                         collective=args.collective,
                         size_bytes=args.size, settings=settings)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if args.scheduler:
        result, elapsed = _on_cluster(spec, args.scheduler)
    else:
        start = time.perf_counter()
        result = run_sweep(spec, workers=args.workers)
        elapsed = time.perf_counter() - start
    if args.csv:
        write_sweep_csv(result, args.csv)
    if args.json:
        data = result.to_json()
        data["seconds"] = round(elapsed, 3)
        print_json(data)
    else:
        print(render_text(result, elapsed))
    return 0


def _on_cluster(spec: SweepSpec, address: str) -> tuple[SweepResult, float]:
    """The sweep on a Dask cluster: the same chunks as the process pool, the same result."""
    from designer.cli.cluster import dask_executor

    with dask_executor(address) as (executor, _threads):
        start = time.perf_counter()
        try:
            result = run_sweep(spec, executor=executor)
        except Exception as exc:   # raised on a worker: one line, not the worker's traceback
            text = str(exc).splitlines()[0] if str(exc) else ""
            raise CommandError(f"the sweep failed on the Dask cluster: {type(exc).__name__}"
                               + (f": {text}" if text else "")) from None
        return result, time.perf_counter() - start


def _money(v: float | None) -> str:
    return "-" if v is None else f"${v / 1e6:,.2f}M"


def render_text(result: SweepResult, elapsed: float) -> str:
    s = result.spec
    built = sorted(result.built, key=lambda p: (p.capex_usd, p.time_us))
    rows = []
    for p in built:
        c = p.choice
        assert p.power_w is not None and p.time_us is not None  # a built point measured both
        mark = ("T" if p.front_cost_time else "") + ("P" if p.front_cost_power else "")
        up = c.get("uplink_speed")
        rows.append((mark, p.index + 1, c["template"], c["technology"], p.switch, f"{c['oversubscription']:g}:1",
                     ratio_label(p.oversubscription or None, "-"), p.planes, p.tiers,
                     f"{up}G" if up else "=", p.switches,
                     _money(p.capex_usd) + ("*" if p.unpriced else ""), f"{p.power_w / 1000:,.0f}",
                     _money(p.tco_usd), f"{p.bisection_tbps:,.1f}", duration_label(p.time_us, "us"),
                     p.algorithm, f"{p.transceivers:,} ({p.transceivers_switch_side:,})",
                     "-" if p.failures_month is None else f"{p.failures_month:,.1f}"))
    head = ("front", "#", "template", "technology", "switch", "asked", "achieved", "planes", "tiers", "up",
            "switches", "capex",
            "kW", f"TCO {s.settings.years}y", "bisection Tb/s", f"{s.collective} {size_label(s.size_bytes)}",
            "algorithm", "optics (switch side)", "failures/month")
    out = [f"{len(result.points):,} combinations for {s.gpus:,} GPUs: {len(built):,} built, "
           f"{len(result.refused):,} refused, in {elapsed:.2f} s", ""]
    out.append(table(rows, head) if rows else "nothing could be built")
    out += ["", "front: T = on the cost-vs-time Pareto front, P = on the cost-vs-power front. Prices are "
                "illustrative estimates unless a price book says otherwise; collective times are estimates.",
            "up: the switch-to-switch speed asked ('=': the technology's, or the servers' speed where that "
            "keeps fewer tiers).",
            "optics: pluggable modules (a co-packaged-optics switch has none on its side); failures/month: "
            "expected link and module failures, an estimate from resources/reliability/failure_rates.toml "
            "(link rate: Alibaba HPN, SIGCOMM 2024; module rate: an upper bound derived from it)."]
    if any(p.unpriced for p in built):
        out.append("* has parts without a price: its capex and TCO read low (incomplete)")
    if result.refused:
        out += ["", "Refused:"]
        for p in result.refused:
            c = p.choice
            planes = f", {c['planes']} plane(s)" if c["planes"] else ""
            sw = f", {c['switch']}" if c["switch"] else ""
            tiers = f", {c['tiers']} tiers" if c["tiers"] else ""
            up = f", {c['uplink_speed']}G uplinks" if c.get("uplink_speed") else ""
            out.append(f"  #{p.index + 1} {c['template']} {c['technology']} {c['oversubscription']:g}:1"
                       f"{planes}{sw}{tiers}{up}: {p.error}")
    return "\n".join(out)
