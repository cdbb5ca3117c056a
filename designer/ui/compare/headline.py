"""The Compare window's headline: which design wins, by how many dollars against the baseline,
and whether it is a close call, in one line above the table, readable without scrolling."""

from __future__ import annotations

from dataclasses import dataclass

from designer.model.decisions.comparison import Comparison
from designer.model.decisions.verdict import close_call, money, share_text


def _usd(value: float) -> str:
    """Dollars with the digits a small difference needs: '$0.0048', '$0.48', '$3,933', '$1.20M'."""
    if value and abs(value) < 0.1:
        return f"${value:.2g}" if abs(value) >= 0.001 else f"${value:.1e}"
    return money(value)


@dataclass(frozen=True)
class Headline:
    winner: int | None   # design index of the cheapest per unit of training work, None when unpriced
    text: str


def _unit(cost) -> float | None:
    """Cost per million tokens, else per step (as the verdict ranks them); None when unpriced."""
    per_mtok = cost.cost_per_mtok
    return per_mtok if per_mtok is not None else cost.cost_per_step


def headline(comparison: Comparison) -> Headline:
    costs = comparison.costs
    names = comparison.names
    units = [_unit(c) for c in costs]
    if not costs or any(u is None for u in units):
        return Headline(None, "No winner in dollars: a design has no GPU server price in the price book, "
                              "so the training cost cannot be compared (see the recommendation).")
    values = [float(u) for u in units if u is not None]
    win = min(range(len(values)), key=lambda i: values[i])
    per_mtok = costs[win].cost_per_mtok is not None
    per = "per million tokens" if per_mtok else "per step"
    head = f"Recommended: [{win + 1}] {names[win]}, {money(values[win])} {per}"
    if win == 0:
        others = values[1:]
        if others:
            best = min(range(1, len(values)), key=lambda i: values[i])
            gap = values[best] - values[0]
            head += (f"; the baseline stays cheapest, {_usd(gap)} {per} ({gap / values[best]:.0%}) below the "
                     f"next best [{best + 1}]")
    else:
        gap = values[0] - values[win]
        head += f"; {_usd(gap)} {per} less than the baseline [1] ({gap / values[0]:.1%})"
        if per_mtok and costs[win].token_budget:
            job = gap * costs[win].token_budget / 1e6
            head += f", {_usd(job)} over the example job's {costs[win].token_budget / 1e9:,.4g}B tokens"
    close = close_call(comparison.confidence, win)
    if close is not None and close.more_draws:
        head += (f". Close call: [{close.draws_winner + 1}] is cheapest in more scenarios "
                 f"({close.draws_share:.0%} against {close.book_share:.0%} of {close.draws:,}).")
    elif close is not None:
        head += (f". Close call: the p10-p90 ranges of [{win + 1}] and [{close.draws_winner + 1}] overlap "
                 f"([{close.draws_winner + 1}] cheapest in {share_text(close.draws_share, True)} of "
                 f"{close.draws:,} scenarios).")
    elif comparison.confidence is not None:
        head += (f". Not a close call: cheapest in {comparison.confidence.win_share[win]:.0%} of "
                 f"{comparison.confidence.draws:,} scenarios.")
    else:
        head += "."
    return Headline(win, head)
