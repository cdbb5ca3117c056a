"""The verdict in dollars of training: the design whose step costs least per token wins.

The rule of thumb of the literature (GPU-count bands, a communication-share mark) stays as
context lines under the verdict; it no longer decides. The break-evens answer "at what value
would the best design of the other family cost the same per token?", each assumption alone:
Ethernet's network capex, the GPU server price, RoCE's protocol efficiency, Ethernet's load
balance, SHARP. Costs are linear in each of them around the computed step (the step time in
1/efficiency, fitted on re-runs), so each break-even is solved, not searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from designer.model.decisions.flips import Flip
from designer.model.decisions.training_cost import Confidence, Sensitivity, TrainingCost, mode_name

GPU_PRICE_RANGE = (0.0, 10.0)        # multiplier on every GPU server price
BALANCE_RANGE = (0.05, 1.0)          # load-balance efficiency searched
PROTOCOL_RANGE = (0.5, 1.0)


def money(v: float) -> str:
    if abs(v) >= 1e6:
        return f"${v / 1e6:,.2f}M"
    if abs(v) >= 100:
        return f"${v:,.0f}"
    return f"${v:,.2f}"


def _unit_cost(c: TrainingCost) -> float:
    """Cost per million tokens where the job has tokens, else per step."""
    return c.cost_per_mtok if c.cost_per_mtok is not None else c.cost_per_step  # type: ignore[return-value]


def _per_hour(c: TrainingCost) -> float:
    return c.usd_per_hour  # type: ignore[return-value]


def _scale(c: TrainingCost) -> float:
    """Cost per ms of step at the design's hourly cost, in the verdict's unit."""
    per_ms = _per_hour(c) / 3.6e6
    return per_ms / c.tokens_per_step * 1e6 if c.tokens_per_step else per_ms


def dollar_flips(costs: Sequence[TrainingCost], sens: Sequence[Sensitivity], boms: Sequence[Any], winner: int,
                 rival: int, eth: int, energy: Sequence[float], hours: float,
                 sharp_steps: tuple[bool, float] | None) -> list[Flip]:
    """Break-even of each assumption between the winner and the best design of the other family."""
    w, r = costs[winner], costs[rival]
    e = costs[eth]
    ib = rival if eth == winner else winner
    other_unit = _unit_cost(costs[ib])
    out: list[Flip] = []
    # Ethernet's network capex x ratio: its hourly cost changes by capex x (ratio - 1) / hours.
    capex_e = boms[eth].total_cost
    capex_i = boms[ib].total_cost
    ratio = capex_e / capex_i if capex_i else None
    per_ms = _scale(e) / _per_hour(e)           # unit cost per (USD/h) per ms of step
    if capex_e > 0 and capex_i > 0:
        # unit_e(x) = (net_e(x) + gpu_e) * step_e * per_ms, net_e(x) = (x * capex_e + energy_e) / hours
        need_hour = other_unit / (e.step_ms * per_ms)
        x = ((need_hour - e.gpu_usd_per_hour) * hours - energy[eth]) / capex_e  # type: ignore[operator]
        r_star = x * capex_e / capex_i
        if 0 < r_star <= 10:
            note = (f"Ethernet's network capex at {r_star:.3g}x InfiniBand's gives equal cost per "
                    f"{'million tokens' if e.tokens_per_step else 'step'}, GPU idle time included")
            out += [Flip("price_ratio", ratio, r_star, "x", note),
                    Flip("capex_difference_usd", capex_e - capex_i, r_star * capex_i - capex_i, "USD", note)]
        else:
            note = "no Ethernet network price between 0x and 10x of InfiniBand's makes the costs per token equal"
            out += [Flip("price_ratio", ratio, None, "x", note),
                    Flip("capex_difference_usd", capex_e - capex_i, None, "USD", note)]
    out.append(Flip("comm_share", None if e.step_ms <= 0 else e.network_ms / e.step_ms * 100, None, "%",
                    "a context line now: the verdict rests on the cost per token, not on a share mark"))
    # GPU server prices x m (every design): unit_k(m) = (net_k + m gc_k + ge_k) step_k per_ms_k.
    out.append(_gpu_flip(w, r))
    out.append(_sharp_flip(costs[ib], sharp_steps, _unit_cost(costs[eth])))
    # RoCE protocol efficiency: step_e(pe) = step_e + P (pe0 / pe - 1).
    s = sens[eth]
    out.append(_solve_efficiency("roce_efficiency", e, other_unit, s.protocol, s.protocol_ms, PROTOCOL_RANGE,
                                 "share of line rate", "RoCE efficiency"))
    # Load balance: step_e(lb) = step_e + B (1 / lb - 1 / lb0).
    out.append(_solve_balance(e, s, other_unit))
    return out


def _gpu_flip(w: TrainingCost, r: TrainingCost) -> Flip:
    def parts(c: TrainingCost) -> tuple[float, float]:
        k = _scale(c) / _per_hour(c) * c.step_ms
        fixed = (c.network_usd_per_hour + c.gpu_usd_per_hour - c.gpu_capex_usd_per_hour) * k  # type: ignore[operator]
        return fixed, c.gpu_capex_usd_per_hour * k  # type: ignore[operator]

    (fw, gw), (fr, gr) = parts(w), parts(r)
    lo, hi = GPU_PRICE_RANGE
    if abs(gw - gr) < 1e-12:
        return Flip("gpu_price", 1.0, None, "x", "the GPU server cost per token is the same on both designs")
    m = (fr - fw) / (gw - gr)
    if not lo < m <= hi or abs(m - 1.0) < 1e-9:
        return Flip("gpu_price", 1.0, None, "x",
                    f"no GPU server price between {lo:g}x and {hi:g}x of the price book's changes the winner")
    side = "above" if m > 1 else "below"
    return Flip("gpu_price", 1.0, round(m, 3), "x",
                f"{r.name} costs less per token with GPU server prices {side} {m:.3g}x the price book's "
                f"({money(w.server_price * m) if w.server_price else 'n/a'} per {w.server_key} server)")


def _sharp_flip(ib: TrainingCost, sharp_steps: tuple[bool, float] | None, eth_unit: float) -> Flip:
    if sharp_steps is None:
        return Flip("sharp", None, None, "on/off", "the InfiniBand design's switches have no SHARP, or no step ran")
    on, toggled_ms = sharp_steps
    state = "off" if on else "on"
    unit = _unit_cost(ib) * toggled_ms / ib.step_ms
    before = _unit_cost(ib) <= eth_unit
    after = unit <= eth_unit
    verdict = "changes the winner" if before != after else "leaves the winner"
    return Flip("sharp", on, (not on) if before != after else None, "on/off",
                f"SHARP {state} moves InfiniBand's cost to {money(unit)} per unit of work and {verdict}")


def _solve_efficiency(key: str, c: TrainingCost, target: float, e0: float, ms: float, bounds: tuple[float, float],
                      unit: str, label: str) -> Flip:
    per_ms = _scale(c)
    if ms <= 0:
        return Flip(key, e0, None, unit, f"no network time on this design depends on its {label.lower()}")
    need_ms = target / per_ms
    # step + ms (e0 / e - 1) = need_ms  ->  e = e0 ms / (need_ms - step + ms)
    denom = need_ms - c.step_ms + ms
    at = e0 * ms / denom if denom > 0 else None
    lo, hi = bounds
    if at is None or not lo <= at <= hi:
        return Flip(key, e0, None, unit, f"no {label} between {lo:g} and {hi:g} changes the winner")
    return Flip(key, e0, round(at, 3), unit,
                f"{c.name} and the best other design cost the same per token at {label} {at:.3f}")


def _solve_balance(c: TrainingCost, s: Sensitivity, target: float) -> Flip:
    lb0 = c.load_balance_efficiency
    unit = "share of balanced throughput"
    how = f"{mode_name(c.load_balancing)}"
    if s.balance_ms <= 0:
        return Flip("load_balance_efficiency", lb0, None, unit,
                    f"{how}: the example job's traffic across the uplinks stays below their capacity, so load balance "
                    "does not move its step")
    need_ms = target / _scale(c)
    # step + B (1/lb - 1/lb0) = need  ->  1/lb = (need - step) / B + 1/lb0
    inv = (need_ms - c.step_ms) / s.balance_ms + 1 / lb0
    lo, hi = BALANCE_RANGE
    if inv <= 0 or not lo <= 1 / inv <= hi:
        return Flip("load_balance_efficiency", lb0, None, unit,
                    f"{how}: no load-balance efficiency between {lo:g} and {hi:g} changes the winner")
    at = 1 / inv
    return Flip("load_balance_efficiency", lb0, round(at, 3), unit,
                f"{how}: the costs per token are equal at a load-balance efficiency of {at:.3f}")


@dataclass(frozen=True)
class CloseCall:
    """The design cheapest at book prices is not the one cheapest in the most draws.

    The point verdict rests on one set of prices and efficiencies; the draws vary them. When
    another design wins more draws, the verdict says so in its first line rather than let one
    number hide a coin toss (a tie on draws is no close call: the point winner shares the lead).
    """

    book_winner: int        # cheapest at the price book's prices and the computed step
    draws_winner: int       # cheapest in the most draws (another design)
    book_share: float       # share of the draws each wins, 0 to 1
    draws_share: float
    draws: int

    def text(self, names: Sequence[str], tags: Sequence[str] = ()) -> str:
        def who(i: int) -> str:
            return f"{names[i]} ({tags[i]})" if tags else names[i]

        return (f"{who(self.draws_winner)} is cheapest in the most scenarios: {self.draws_share:.0%} of "
                f"{self.draws:,} price and efficiency scenarios against {self.book_share:.0%}")

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        return {"book_price_winner": names[self.book_winner], "book_price_winner_share": self.book_share,
                "most_draws_winner": names[self.draws_winner], "most_draws_share": self.draws_share,
                "draws": self.draws}


def close_call(conf: Confidence | None, win: int) -> CloseCall | None:
    """The close call against the point winner `win`, or None when no design wins more draws (a
    design tied with it on draws shares the lead: the point winner is one of the most frequent)."""
    if conf is None:
        return None
    shares = conf.win_share
    rivals = [i for i in range(len(shares)) if i != win and shares[i] > shares[win]]
    if not rivals:
        return None
    top = max(rivals, key=lambda i: shares[i])
    return CloseCall(win, top, shares[win], shares[top], conf.draws)


def verdict_lines(costs: Sequence[TrainingCost], conf: Confidence | None, names: Sequence[str],
                  tags: Sequence[str] = ()) -> tuple[str, int]:
    """The winner's sentence and index: the design with the lowest cost per token (or step).

    `tags` (a family label per design) follow the winner's name at the end, or, in a close call,
    each name they qualify, since two designs are named.
    """
    units = [_unit_cost(c) for c in costs]
    win = min(range(len(costs)), key=lambda i: units[i])
    per = "per million tokens" if costs[win].cost_per_mtok is not None else "per step"
    close = close_call(conf, win)
    if close is not None:
        who = f"{names[win]} ({tags[win]})" if tags else names[win]
        return (f"Close call: {who} trains the example job for the least at book prices, {money(units[win])} "
                f"{per}, but {close.text(names, tags)}."), win
    text = f"{names[win]} trains the example job for the least: {money(units[win])} {per}"
    if conf is not None:
        text += f", cheapest in {conf.win_share[win]:.0%} of {conf.draws:,} price and efficiency scenarios"
    return text + (f" ({tags[win]})." if tags else "."), win


def cost_reasons(costs: Sequence[TrainingCost], conf: Confidence | None, names: Sequence[str], years: int,
                 budget: float) -> list[str]:
    out = []
    for i, c in enumerate(costs):
        per = f"{money(c.cost_per_mtok)} per million tokens, " if c.cost_per_mtok is not None else ""
        days = f", {c.train_days:,.1f} days for {budget / 1e9:,.4g}B tokens" if c.train_days is not None else ""
        share = f"; cheapest in {conf.win_share[i]:.0%} of scenarios" if conf is not None else ""
        out.append(f"{names[i]}: {per}{money(c.cost_per_step or 0.0)} per {c.step_ms:,.0f} ms step, of which "
                   f"{money(c.idle_gpu_per_step or 0.0)} is GPU capex and energy idle for {c.network_ms:,.0f} ms "
                   f"on the network{days}{share}")
    out.append(f"cost of the same training work = (network TCO + GPU server capex over {years} years + GPU "
               "energy) per hour x step time: a slower step keeps every GPU idle for the difference")
    for c in costs:
        if c.placement is not None and c.placement.hashed:
            out.append(f"{c.name} load balance at full load, from flow placement: {c.placement.text()}")
    if conf is not None:
        out.append(f"confidence: {conf.draws:,} seeded draws ({'; '.join(conf.varied)}); the step moves "
                   "linearly in 1/efficiency around the computed one, an approximation")
    return out
