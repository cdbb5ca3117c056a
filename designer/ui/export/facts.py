"""What a report or a slide says about a design, gathered once, and how its numbers are written.

Plain Python: the figures come from the model (metrics, BOM, collective estimates); this
module only picks them and writes them with their units, marking every estimate as one.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from designer.catalog import Catalog, default_catalog
from designer.model.common.units import bandwidth_label, power_label
from designer.model.common.units import ratio_label as ratio
from designer.model.common.units import size_label as size
from designer.model.intent.design import FabricDesign
from designer.model.performance.collectives import CollectiveResult, estimate
from designer.model.physical.bom import Bom, build_bom
from designer.model.topology.derive import Derived, derive

CURRENCY_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£"}


def money(value: float, currency: str = "USD", digits: int = 1) -> str:
    symbol = CURRENCY_SYMBOL.get(currency, "")
    for factor, suffix in ((1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{symbol}{value / factor:,.{digits}f}{suffix}" + ("" if symbol else f" {currency}")
    return f"{symbol}{value:,.0f}" + ("" if symbol else f" {currency}")


def money_exact(value: float, currency: str = "USD") -> str:
    symbol = CURRENCY_SYMBOL.get(currency, "")
    return f"{symbol}{value:,.0f}" + ("" if symbol else f" {currency}")


def power(watts: float) -> str:
    return power_label(watts)


def today() -> str:
    return datetime.date.today().isoformat()


@dataclass(frozen=True)
class Card:
    """One key figure: a title, the value with its unit, a line of detail."""

    title: str
    value: str
    detail: str | tuple[str, ...] = ""   # a line, or its forms longest first (the first that fits is shown)


@dataclass
class Facts:
    """A derived design with its BOM and collective estimate (either may be missing, with a reason)."""

    design: FabricDesign
    derived: Derived
    bom: Bom | None = None
    bom_error: str = ""
    allreduce: CollectiveResult | None = None
    collective_error: str = ""

    @classmethod
    def gather(cls, design: FabricDesign, catalog: Catalog | None = None, bom: bool | Bom | None = True,
               allreduce: bool | CollectiveResult | None = True) -> Facts:
        """Derive `design`; build its BOM and all-reduce estimate unless given (or False to skip).

        Raises the model's SizingError / UnknownPartError when the design cannot be sized.
        """
        catalog = catalog or default_catalog()
        derived = derive(design, catalog)
        facts = cls(design, derived)
        if bom is True:
            try:
                facts.bom = build_bom(derived, catalog)
            except Exception as exc:  # the report still shows everything else, and says why
                facts.bom_error = str(exc)
        elif isinstance(bom, Bom):
            facts.bom = bom
        if allreduce is True:
            try:
                perf = design.performance
                facts.allreduce = estimate(derived, "allreduce", perf.message_size_bytes)
            except Exception as exc:
                facts.collective_error = str(exc)
        elif isinstance(allreduce, CollectiveResult):
            facts.allreduce = allreduce
        return facts

    @property
    def metrics(self):
        return self.derived.metrics

    @property
    def power_is_estimate(self) -> bool:
        return self.bom is not None and any("power is an estimate" in i.notes for i in self.bom.items)

    def cards(self) -> list[Card]:
        """The key-metrics strip."""
        m = self.metrics
        r = self.derived.resolved
        tiers = [t for t in ("leaf", "spine", "core") if m.switches_by_tier.get(t)]
        speeds = f"{m.link_gbps}G" if m.link_gbps == m.uplink_gbps else f"{m.link_gbps}G / {m.uplink_gbps}G up"
        leaf = m.oversubscription("leaf")
        spine = m.oversubscription("spine") if m.tiers == 3 else None
        out = [
            Card("GPUs", f"{m.gpus:,}", (f"{m.servers:,} × {r.server.name}", f"{m.servers:,} servers")),
            Card("Switches", f"{m.switches_total:,}", " · ".join(f"{t} {m.switches_by_tier[t]:,}" for t in tiers)),
            Card("Links", f"{m.links_total:,}", speeds + (f" · {m.planes} planes" if m.planes > 1 else "")),
            Card("Bisection", bandwidth_label(m.bisection_gbps), f"{m.bisection_ratio:.0%} of full"),
            Card("Oversubscription", ratio(leaf), "leaf" + (f" · spine {ratio(spine)}" if m.tiers == 3 else "")),
            Card("Max hops", f"{m.max_hops}", "switch hops, any pair"),
        ]
        if self.bom is not None:
            b = self.bom
            label = "illustrative estimate" if b.illustrative_prices else "from price book"
            if b.incomplete:
                label = b.incomplete_note()
            out.append(Card("Network cost", money(b.total_cost, b.currency) + (" (incomplete)" if b.incomplete else ""),
                            label))
            out.append(Card("Network power", power(b.total_power_w),
                            "incl. estimates" if self.power_is_estimate else "network only"))
        if self.allreduce is not None:
            a = self.allreduce
            out.append(Card("All-reduce busbw", f"{a.busbw_GBps:,.0f} GB/s", f"{size(a.size_bytes)} · estimate"))
        return out
