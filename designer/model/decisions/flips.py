"""When the InfiniBand-or-Ethernet verdict would flip: the break-even of each assumption behind it.

The verdict (designer/model/decisions/comparison.py) applies the literature's framework to the
designs' numbers: a GPU-count band, whether Ethernet is cheaper over the TCO period, and
whether communication passes a share of the step on Ethernet. Each break-even answers "at
what value would the other fabric win?", holding every other input where it is; `flips_at`
is None when no value in a sane range flips it, and `note` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Sane ranges searched for a break-even.
PRICE_RATIO_RANGE = (0.0, 10.0)          # Ethernet network capex / InfiniBand network capex
ROCE_EFFICIENCY_RANGE = (0.5, 1.0)       # share of line rate RoCE moves as payload


@dataclass(frozen=True)
class Flip:
    assumption: str          # stable id: price_ratio, capex_difference_usd, comm_share, sharp, roce_efficiency
    current: float | bool | str | None
    flips_at: float | bool | str | None
    unit: str
    note: str = ""

    def line(self) -> str:
        """One plain sentence for the text output, the Compare window and the report."""
        label = LABELS.get(self.assumption, self.assumption)
        now = _fmt(self.current, self.unit)
        at = "no value in a sane range" if self.flips_at is None else _fmt(self.flips_at, self.unit)
        return f"{label}: now {now}; flips at {at}" + (f"; {self.note}" if self.note else "")

    def to_json(self) -> dict[str, Any]:
        return {"assumption": self.assumption, "current": self.current, "flips_at": self.flips_at,
                "unit": self.unit, "note": self.note}


LABELS = {"price_ratio": "Ethernet/InfiniBand network capex ratio",
          "capex_difference_usd": "Ethernet minus InfiniBand network capex",
          "comm_share": "scale-out communication share of the step on Ethernet",
          "sharp": "InfiniBand SHARP", "roce_efficiency": "RoCE efficiency",
          "gpu_price": "GPU server price (x the price book's)",
          "load_balance_efficiency": "Ethernet load-balance efficiency",
          "placement": "rank placement", "background_load": "other jobs' load on every uplink"}


def _fmt(value: float | bool | str | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "on" if value else "off"
    if unit == "USD":
        sign = "-" if value < 0 else ""
        value = abs(value)
        return sign + (f"${value / 1e6:,.2f}M" if value >= 1e6 else f"${value:,.0f}")
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:.3g}"


def decide(band: str, eth_cheaper: bool, share_e: float | None, limit: float) -> str:
    """The framework's choice: "ethernet" or "infiniband" (the one rule the verdict and its flips share)."""
    if band == "ethernet":
        return "ethernet" if eth_cheaper else "infiniband"
    if band == "middle":
        return "infiniband" if (share_e is not None and share_e > limit) or not eth_cheaper else "ethernet"
    return "infiniband"


def _other(family: str) -> str:
    return "ethernet" if family == "infiniband" else "infiniband"


def _bisect(f: Callable[[float], bool], lo: float, hi: float, steps: int = 14) -> float:
    """The point in [lo, hi] where f turns from False to True (f(lo) False, f(hi) True)."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def price_flips(band: str, family: str, share_e: float | None, limit: float, capex_e: float, capex_i: float,
                energy_e: float, tco_i: float, years: int) -> list[Flip]:
    """Break-even of the Ethernet/InfiniBand capex ratio and of the capex difference.

    Ethernet's network capex scaled by r gives TCO r x capex_i + energy_e: it is the cheaper
    fabric while that stays at or below InfiniBand's TCO.
    """
    ratio = capex_e / capex_i if capex_i > 0 else None
    eth_cheaper = capex_e + energy_e <= tco_i
    flipped = decide(band, not eth_cheaper, share_e, limit) != family
    r_star = (tco_i - energy_e) / capex_i if capex_i > 0 else None
    lo, hi = PRICE_RATIO_RANGE
    if ratio is None:
        note = "no InfiniBand capex to compare against (unpriced items)"
        return [Flip("price_ratio", None, None, "x", note), Flip("capex_difference_usd", None, None, "USD", note)]
    if not flipped:
        why = ("above the InfiniBand band the verdict does not rest on price" if band == "infiniband" else
               "communication on Ethernet passes the share mark, which decides it whatever the price")
        return [Flip("price_ratio", ratio, None, "x", why),
                Flip("capex_difference_usd", capex_e - capex_i, None, "USD", why)]
    # A break-even within rounding of zero is no price at all (equal TCO only at a free fabric).
    if r_star is None or not lo + 1e-9 < r_star <= hi:
        note = f"no Ethernet price between {lo:g}x and {hi:g}x of InfiniBand's flips it"
        return [Flip("price_ratio", ratio, None, "x", note),
                Flip("capex_difference_usd", capex_e - capex_i, None, "USD", note)]
    winner = "Ethernet" if family == "infiniband" else "InfiniBand"
    direction = "at or below" if family == "infiniband" else "above"
    note = (f"{winner} wins with Ethernet's network capex {direction} {r_star:.3g}x InfiniBand's "
            f"(equal TCO over {years} years, energy included)")
    return [Flip("price_ratio", ratio, r_star, "x", note),
            Flip("capex_difference_usd", capex_e - capex_i, r_star * capex_i - capex_i, "USD", note)]


def share_flip(band: str, family: str, eth_cheaper: bool, share_e: float | None, limit: float) -> Flip:
    """Break-even of Ethernet's communication share of the step (in %)."""
    current = None if share_e is None else share_e * 100
    if share_e is None:
        return Flip("comm_share", None, None, "%", "no training step on the Ethernet design")
    probe = limit * 0.5 if share_e > limit else min(1.0, limit * 1.5 + 0.01)
    if decide(band, eth_cheaper, probe, limit) == family:
        why = {"ethernet": "in this band the literature's default does not depend on the communication share",
               "infiniband": "above the InfiniBand band the verdict does not depend on the communication share",
               "middle": "Ethernet is not the cheaper fabric here, so its communication share does not decide"}[band]
        return Flip("comm_share", current, None, "%", why)
    winner = _other(family).replace("infiniband", "InfiniBand").replace("ethernet", "Ethernet")
    side = "above" if family == "ethernet" else "at or below"
    return Flip("comm_share", current, limit * 100, "%",
                f"{winner} wins with Ethernet's scale-out communication share {side} {limit:.0%} of the step "
                "(performance.advice_comm_share, a heuristic)")


def sharp_flip(family: str, sharp_on: bool, capable: bool, share_i: float | None,
               share_i_toggled: float | None) -> Flip:
    """SHARP on or off on the InfiniBand design: does it change the verdict?"""
    if not capable:
        return Flip("sharp", sharp_on, None, "on/off", "the InfiniBand design's switches have no SHARP")
    if share_i is None or share_i_toggled is None:
        return Flip("sharp", sharp_on, None, "on/off", "no training step on the InfiniBand design")
    state = "off" if sharp_on else "on"
    if abs(share_i - share_i_toggled) < 5e-4:
        return Flip("sharp", sharp_on, None, "on/off",
                    f"SHARP {state} leaves InfiniBand's communication share at {share_i:.1%} (this job's network "
                    "collectives are not all-reduces SHARP would take), so the verdict holds")
    return Flip("sharp", sharp_on, None, "on/off",
                f"SHARP {state} moves InfiniBand's communication share from {share_i:.1%} to "
                f"{share_i_toggled:.1%}; the verdict rests on Ethernet's share and the costs, so it holds")


def roce_flip(band: str, family: str, eth_cheaper: bool, limit: float, current: float,
              share_at: Callable[[float], float | None]) -> Flip:
    """Break-even of RoCE's protocol efficiency: the payload share of line rate on Ethernet."""
    lo, hi = ROCE_EFFICIENCY_RANGE
    low_share, high_share = share_at(lo), share_at(hi)
    if low_share is None or high_share is None:
        return Flip("roce_efficiency", current, None, "share of line rate", "no training step on the Ethernet design")
    fam_lo = decide(band, eth_cheaper, low_share, limit)
    fam_hi = decide(band, eth_cheaper, high_share, limit)
    if fam_lo == fam_hi:
        return Flip("roce_efficiency", current, None, "share of line rate",
                    f"no RoCE efficiency between {lo:g} and {hi:g} changes the verdict")
    # Higher efficiency, lower share: the family turns from fam_lo to fam_hi at one point.
    at = _bisect(lambda e: decide(band, eth_cheaper, share_at(e), limit) == fam_hi, lo, hi)
    winner = "Ethernet" if fam_hi == "ethernet" else "InfiniBand"
    return Flip("roce_efficiency", current, round(at, 3), "share of line rate",
                f"{winner} wins with RoCE efficiency {'above' if fam_hi == 'ethernet' else 'below'} {at:.3f}")
