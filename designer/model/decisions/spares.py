"""Spares a buyer orders with the bill of materials: a share of each class of part.

The default share of a class is `years` of its expected failures at a rate of
resources/reliability/failure_rates.toml (a heuristic: that many years of replacements on the
shelf, as resources/parts/orderable.toml sets it). A class without a published rate has no
default and says so. Any share can be set by the user (`bom --spares transceivers=2%`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from designer.model.decisions.interruptions import Rate, load_rates
from designer.model.physical.bom import LineItem
from designer.model.physical.orderable_parts import rules

# BOM category -> spares class
CLASSES = {"Switches": "switches", "NICs": "nics", "Transceivers": "transceivers", "Copper cables": "cables",
           "Fiber": "cables"}


@dataclass(frozen=True)
class SpareShare:
    share: float | None     # of the quantity, 0..1; None: no default and none given
    basis: str


def default_shares(rates: Sequence[Rate] | None = None) -> dict[str, SpareShare]:
    table = rules()["spares"]
    years = float(table.get("years", 1))
    by_id = {r.id: r for r in (rates if rates is not None else load_rates())}
    out = {}
    for cls in ("switches", "nics", "transceivers", "cables"):
        rate = by_id.get(str(table.get(cls, "")))
        if rate is None or rate.per_unit_day is None:
            noun = {"switches": "switch", "nics": "NIC", "transceivers": "transceiver", "cables": "cable"}[cls]
            out[cls] = SpareShare(None, f"no published {noun} failure rate in resources/reliability/"
                                        f"failure_rates.toml: no default; set one with --spares {cls}=N%")
            continue
        share = rate.per_unit_day * 365 * years
        out[cls] = SpareShare(share, f"heuristic: {years:g} year of expected failures at {share:.3%} a year "
                                     f"({rate.label}; {rate.source})")
    return out


def spares_items(items: Sequence[LineItem], shares: Mapping[str, SpareShare]) -> list[LineItem]:
    """One spares line per part with a share: the quantity rounded up, priced and powered as the part
    (spares on the shelf draw no power, so their power is 0)."""
    out = []
    for item in items:
        cls = CLASSES.get(item.category)
        spare = shares.get(cls) if cls else None
        if spare is None or spare.share is None or spare.share <= 0 or item.quantity <= 0:
            continue
        qty = math.ceil(item.quantity * spare.share)
        out.append(LineItem("Spares", item.part_number, f"spare: {item.description}", qty, item.unit_price,
                            round(item.unit_price * qty, 2), 0.0, 0.0,
                            f"{spare.share:.2%} of {item.quantity:,}; {spare.basis}", item.key))
    return out


def parse_shares(text: str, defaults: Mapping[str, SpareShare]) -> dict[str, SpareShare]:
    """'transceivers=2%,switches=1%' over the defaults; 'none' for no spares. ValueError when bad."""
    out = dict(defaults)
    if text.strip().lower() in ("none", "0", "off"):
        return {k: SpareShare(None, "no spares asked for") for k in out}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or key not in out:
            raise ValueError(f"malformed spares '{part.strip()[:40]}' (use class=N% with class one of "
                             f"{', '.join(sorted(out))})")
        number = value[:-1] if value.endswith("%") else value
        try:
            share = float(number) / 100
        except ValueError:
            raise ValueError(f"malformed spares share '{value[:20]}' (use a percentage such as 2%)") from None
        if not (0 <= share <= 1) or math.isnan(share):
            raise ValueError(f"spares share '{value[:20]}' must be 0% to 100%")
        out[key] = SpareShare(share, "set by the user")
    return out
