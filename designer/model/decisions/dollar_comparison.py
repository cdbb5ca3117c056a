"""The comparison's verdict in dollars of training: its rows, its recommendation, its confidence.

comparison.py (which imports this module; the columns, settings and rule-of-thumb
recommendation arrive as arguments) builds the columns (derived design, BOM, training step) and the rule-of-thumb
recommendation; this module prices the example step on each design (training_cost.py), draws
the confidence, puts the cost rows under the table, and replaces the verdict with the design
that costs least per token. The rule of thumb's lines stay, marked as context.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from designer.catalog import default_catalog
from designer.model.decisions.rows import HOURS_PER_YEAR, Row, energy_cost_usd
from designer.model.decisions.training_cost import (
    Confidence,
    Sensitivity,
    TrainingCost,
    balance_fit,
    confidence,
    sensitivity,
    training_cost,
)
from designer.model.decisions.verdict import close_call, cost_reasons, dollar_flips, fleet_flips, verdict_lines
from designer.model.performance import fleet
from designer.model.performance.collectives import context_for
from designer.model.physical.prices import default_prices

FAMILY_TAG = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def tokens_label(n: float) -> str:
    """1e12 -> '1T', 2.5e9 -> '2.5B': a token budget as people say it."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= scale:
            return f"{n / scale:,.3g}{suffix}"
    return f"{n:,.0f}"


def why_unpriced(cols: Sequence[Any]) -> str:
    prices = default_prices()
    missing = sorted({c.derived.resolved.server.id for c in cols if prices.get(c.derived.resolved.server.id) is None})
    if missing:
        return (f"the price book has no price for the GPU server(s) {', '.join(missing)}; add one (key = the "
                "server id) to weigh GPU time against network cost")
    return "the example job cannot run on every design"


def training_costs(names: Sequence[str], cols: Sequence[Any], s: Any
                   ) -> tuple[list[TrainingCost], list[Sensitivity], Confidence | None] | None:
    """Each design's cost of the example work, their sensitivities and the confidence draws."""
    prices = default_prices()
    if any(c.step is None or prices.get(c.derived.resolved.server.id) is None for c in cols):
        return None
    energy = [energy_cost_usd(c.bom.total_power_w, s) for c in cols]
    costs = [training_cost(n, c.derived, c.bom, c.step, prices, s.years, s.energy_usd_per_kwh, s.pue,
                           s.token_budget, e) for n, c, e in zip(names, cols, energy, strict=True)]
    sens = [sensitivity(c.derived, c.step, c.rerun) for c in cols]
    conf = confidence(costs, sens, [c.bom for c in cols], prices, energy, s.years, vendor_of=_vendor_lookup())
    return costs, sens, conf


def _vendor_lookup() -> Callable[[str], str]:
    """A catalog id's vendor (the id itself where the catalog names none): discounts are per vendor."""
    cat = default_catalog()
    tables = (cat.switches, cat.nics, cat.transceivers, cat.cables, cat.servers)

    def vendor_of(key: str) -> str:
        for table in tables:
            entry = table.get(key)
            if entry is not None:
                return entry.vendor or key
        return key
    return vendor_of


def cost_rows(costs: Sequence[TrainingCost], conf: Confidence | None, s: Any) -> list[Row]:
    def row(key: str, label: str, unit: str, values: Sequence[float | None], better: str = "") -> Row:
        return Row(key, label, unit, tuple(None if v is None else float(v) for v in values), better, "Training cost")

    out = [
        row("gpu_capex_usd", "GPU servers (capex)", "USD", [c.gpu_capex_usd for c in costs]),
        row("load_balance_pct", "Load balance at full load (flow placement)", "%",
            [c.load_balance_efficiency * 100 for c in costs], "higher"),
        row("network_wait_ms", "Step time waiting on the network", "ms", [c.network_ms for c in costs], "lower"),
        row("cost_per_step_usd", "Cost per step (network + GPUs)", "USD", [c.cost_per_step for c in costs], "lower"),
        row("idle_gpu_usd_per_step", "GPU cost idle on the network per step", "USD",
            [c.idle_gpu_per_step for c in costs], "lower"),
        row("cost_per_mtok_usd", "Cost per million tokens", "USD", [c.cost_per_mtok for c in costs], "lower"),
        row("train_days", f"Time to train {tokens_label(s.token_budget)} tokens", "days", [c.train_days for c in costs],
            "lower"),
    ]
    if conf is not None:
        out.append(row("win_share_pct", f"Cheapest in ({conf.draws:,} draws)", "%",
                       [w * 100 for w in conf.win_share], "higher"))
        if conf.tied > 0:
            out.append(row("tie_share_pct", "Tied for cheapest in (draws)", "%",
                           [t * 100 for t in conf.tie_share], ""))
    return out


def dollar_recommendation(cols: Sequence[Any], costs: Sequence[TrainingCost], sens: Sequence[Sensitivity],
                          conf: Confidence | None, rule: Any, s: Any,
                          names: Sequence[str]) -> Any:
    """The verdict by cost per token; the rule of thumb's reasons follow as context."""
    fams = [c.derived.resolved.family for c in cols]
    both = "infiniband" in fams and "ethernet" in fams
    tags = [FAMILY_TAG.get(f, f) for f in fams] if both else []
    text, win = verdict_lines(costs, conf, names, tags, s.token_budget)
    close = close_call(conf, win, [c.cost_per_mtok if c.cost_per_mtok is not None else (c.cost_per_step or 0.0)
                                   for c in costs])
    reasons = cost_reasons(costs, conf, names, s.years, s.token_budget)
    context = tuple(f"context (rule of thumb, no longer deciding): {r}" for r in rule.reasons)
    if not both:
        # The close call leads: a reader of the first line learns the draws disagree.
        verdict = text + " " + rule.verdict if close is not None else rule.verdict + " " + text
        return replace(rule, verdict=verdict, family="", reasons=tuple(reasons) + context, flips=(),
                       close_call=close)
    family = fams[win]
    units = [c.cost_per_mtok if c.cost_per_mtok is not None else (c.cost_per_step or 0.0) for c in costs]
    rival = min((i for i, f in enumerate(fams) if f != family), key=lambda i: units[i])
    eth = win if family == "ethernet" else rival
    ib = rival if family == "ethernet" else win
    ci = cols[ib]
    sharp_steps = None
    if ci.step is not None and context_for(ci.derived, ci.step.gpus).sharp_capable and ci.rerun is not None:
        on = ci.derived.design.performance.sharp
        toggled = ci.rerun(sharp=not on)
        if toggled is not None:
            sharp_steps = (on, toggled.step_ms)
    energy = [energy_cost_usd(c.bom.total_power_w, s) for c in cols]
    rerun_e = cols[eth].rerun
    if sens[eth].mode not in ("ecmp", "ecmp-qp") and rerun_e is not None:
        # Load balance is fitted for hashed fabrics only; the break-even needs it here too.
        sens = [*sens]
        sens[eth] = replace(sens[eth], balance_ms=balance_fit(rerun_e))
    flips = dollar_flips(costs, sens, [c.bom for c in cols], win, rival, eth, energy, s.years * HOURS_PER_YEAR,
                         sharp_steps)
    perf = cols[win].derived.design.performance
    # Packed and scattered ranks are the schedulers buyers run (spread is a test of the fabric).
    flips += fleet_flips(costs, win, rival, [c.rerun for c in cols], perf.placement,
                         fleet.background_load(perf), ("packed", "scattered"))
    return replace(rule, verdict=text, family=family, reasons=tuple(reasons) + context, flips=tuple(flips),
                   close_call=close)
