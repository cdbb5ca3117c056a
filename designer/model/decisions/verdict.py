"""The verdict in dollars of training: the design whose step costs least per token wins.

The rule of thumb of the literature (GPU-count bands, a communication-share mark) stays as
context lines under the verdict; it no longer decides. The break-evens answer "at what value
would the best design of the other family cost the same per token?", each assumption alone:
Ethernet's network capex, the GPU server price, RoCE's protocol efficiency, Ethernet's load
balance, SHARP. Costs are linear in each of them around the computed step (the step time in
1/efficiency, fitted on re-runs), so each break-even is solved, not searched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


BACKGROUND_GRID = (0.0, 0.9)   # other jobs' uplink load searched between, by bisection


def fleet_flips(costs: Sequence[TrainingCost], winner: int, rival: int,
                reruns: Sequence[Callable[..., Any] | None], placement: str, background: float,
                placements: Sequence[str]) -> list[Flip]:
    """The rank placement and the background load at which the rival would cost less per token
    than the winner: each re-run of the two steps under the other value, the rest held."""
    rw, rr = reruns[winner], reruns[rival]
    if rw is None or rr is None:
        return []
    w, r = costs[winner], costs[rival]

    def gap(**perf: Any) -> float | None:
        """Rival's minus winner's cost per unit of work under these settings (None: a step cannot run)."""
        sw, sr = rw(**perf), rr(**perf)
        if sw is None or sr is None:
            return None
        return float(_scale(r) * sr.step_ms - _scale(w) * sw.step_ms)

    out = []
    flipping = [p for p in placements if p != placement and (g := gap(placement=p)) is not None and g < 0]
    if flipping:
        out.append(Flip("placement", placement, flipping[0], "",
                        f"with {flipping[0]} ranks {r.name} costs less per token than {w.name}"))
    else:
        others = " or ".join(p for p in placements if p != placement)
        out.append(Flip("placement", placement, None, "",
                        f"with {others} ranks {w.name} still costs least per token against {r.name}"))
    # Background load: the gap is taken to move one way with other jobs' load (more load slows
    # hashed paths before adaptive ones), so the far end of each side says whether it flips
    # there; bisection between the assumed figure and that end finds where.
    at: float | None = None
    for end in (BACKGROUND_GRID[-1], BACKGROUND_GRID[0]):
        if abs(end - background) < 1e-9:
            continue
        g = gap(background_load=end)
        if g is None or g >= 0:
            continue
        lo, hi = background, end
        for _ in range(7):    # to within 1 point of uplink capacity
            mid = (lo + hi) / 2
            gm = gap(background_load=mid)
            lo, hi = (lo, mid) if gm is not None and gm < 0 else (mid, hi)
        at = round(hi, 3)
        break
    if at is None:
        out.append(Flip("background_load", background, None, "share of uplink capacity",
                        f"no other jobs' load from {BACKGROUND_GRID[0]:.0%} to {BACKGROUND_GRID[-1]:.0%} of every "
                        f"uplink makes {r.name} cost less per token than {w.name}"))
    else:
        out.append(Flip("background_load", background, at, "share of uplink capacity",
                        f"with other jobs' traffic at {at:.0%} of every uplink {r.name} costs less per token "
                        f"than {w.name}"))
    return out


@dataclass(frozen=True)
class CloseCall:
    """The verdict is a close call: the draws do not settle it.

    Either another design is cheapest in more draws than the one cheapest at book prices, or the
    two leaders' p10-p90 ranges of cost per token overlap (at any size): one number must not hide
    a coin toss, so the verdict's first line says so.
    """

    book_winner: int        # cheapest at the price book's prices and the computed step
    draws_winner: int       # the other leader: cheapest in the most draws, else the runner-up
    book_share: float       # share of the draws each is cheapest in, alone or tied, 0 to 1
    draws_share: float
    draws: int
    overlap: bool = False   # the two leaders' p10-p90 ranges overlap
    ranges: tuple[tuple[float, float], tuple[float, float]] = ((0.0, 0.0), (0.0, 0.0))
    more_draws: bool = True  # the other leader wins more draws than the book winner

    def text(self, names: Sequence[str], tags: Sequence[str] = ()) -> str:
        def who(i: int) -> str:
            return f"{names[i]} ({tags[i]})" if tags else names[i]

        if self.more_draws:
            out = (f"{who(self.draws_winner)} is cheapest in the most scenarios: {self.draws_share:.0%} of "
                   f"{self.draws:,} price and efficiency scenarios against {self.book_share:.0%}")
        else:
            out = (f"{who(self.draws_winner)} is cheapest in {share_text(self.draws_share, self.overlap)} of "
                   f"{self.draws:,} price and efficiency scenarios against "
                   f"{share_text(self.book_share, self.overlap)}")
        if self.overlap:
            (a_lo, a_hi), (b_lo, b_hi) = self.ranges
            out += (f"; their p10-p90 ranges overlap ({money(a_lo)}-{money(a_hi)} against "
                    f"{money(b_lo)}-{money(b_hi)})")
            if self.draws_share == 0:
                # The draws never reverse the two, yet the ranges overlap: what both share (the
                # GPU servers' price and energy) moves them together. Said, not hidden.
                out += (f". The ranges overlap through what both share (the GPU servers' price and energy): "
                        f"{names[self.book_winner]} costs less in every one of the {self.draws:,} scenarios drawn, "
                        "by less than those shared costs vary")
        return out

    def to_json(self, names: Sequence[str]) -> dict[str, Any]:
        return {"book_price_winner": names[self.book_winner], "book_price_winner_share": self.book_share,
                "most_draws_winner": names[self.draws_winner], "most_draws_share": self.draws_share,
                "draws": self.draws, "p10_p90_overlap": self.overlap, "other_leader": names[self.draws_winner],
                "other_leader_wins_more_draws": self.more_draws}


def share_text(share: float, uncertain: bool = False) -> str:
    """A share of draws that is neither 0% nor 100% unless it is: '<1%' and '>99%' at the ends.

    `uncertain` (the two leaders' p10-p90 ranges overlap): never 0% nor 100% either, since a
    thousand draws that all agree do not make a certainty of two overlapping ranges: '<1%' and
    '>99%' (both true of 0 and 1,000 of 1,000)."""
    if 0 < share < 0.005 or (uncertain and share <= 0):
        return "<1%"
    if 0.995 < share < 1 or (uncertain and share >= 1):
        return ">99%"
    return f"{share:.0%}"


def leader_share_cell(close: CloseCall | None, design: int, pct: float | None) -> str | None:
    """The table's share cell of a leader of a close call on overlapping ranges, where its count
    reads 0 or 100: '<1' or '>99' (true of 0 and 1,000 of 1,000), as the verdict writes it;
    None where the counted figure stands."""
    if close is None or not close.overlap or pct is None or design not in (close.book_winner, close.draws_winner):
        return None
    return "<1" if pct <= 0 else ">99" if pct >= 100 else None


def close_call(conf: Confidence | None, win: int, units: Sequence[float] = ()) -> CloseCall | None:
    """The close call against the point winner `win`: another design wins more draws, or the
    runner-up's p10-p90 range (next-lowest cost at book prices) overlaps the winner's; None otherwise."""
    if conf is None:
        return None
    # A design leads a draw when it is cheapest in it, alone or tied: a twin that ties the winner
    # in every draw shares its lead and is no rival, nor the runner-up.
    ties = conf.tie_share or tuple(0.0 for _ in conf.win_share)
    lead = [w + t for w, t in zip(conf.win_share, ties, strict=True)]
    rivals = [i for i in range(len(lead)) if i != win and lead[i] > lead[win]]
    twin = [bool(units) and abs(units[i] - units[win]) <= abs(units[win]) * 1e-9 for i in range(len(lead))]
    others = [i for i in range(len(lead)) if i != win and not twin[i]]
    if not others:
        return None
    runner = min(others, key=lambda i: units[i]) if units else max(others, key=lambda i: lead[i])
    top = max(rivals, key=lambda i: lead[i]) if rivals else runner
    # Overlapping ranges make a close call at any size, as the verdict's rule says, even where one
    # design is cheaper in every draw (the ranges then overlap through what both share, the GPU
    # servers' price and energy: the close call's text says so).
    overlap = conf.overlap(win, top)
    if not rivals and not overlap:
        return None
    q = conf.cost_per_mtok
    return CloseCall(win, top, lead[win], lead[top], conf.draws, overlap,
                     ((q[win][0], q[win][2]), (q[top][0], q[top][2])), bool(rivals))


def margin_text(costs: Sequence[TrainingCost], names: Sequence[str], win: int, budget: float) -> str:
    """'$4.20M less than <baseline> over 1T tokens': the winner's saving over the token budget
    against the baseline (the first design), or against the runner-up when the baseline wins."""
    units = [_unit_cost(c) for c in costs]
    if costs[win].cost_per_mtok is None or len(costs) < 2:
        return ""
    other = 0 if win != 0 else min((i for i in range(len(costs)) if i != win), key=lambda i: units[i])
    saving = (units[other] - units[win]) * budget / 1e6
    label = _tokens(budget)
    if abs(saving) < 0.5:
        return f"the same as {names[other]} over {label} tokens"
    return f"{money(saving)} less than {names[other]} over {label} tokens"


def _tokens(n: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= scale:
            return f"{n / scale:,.3g}{suffix}"
    return f"{n:,.0f}"


def verdict_lines(costs: Sequence[TrainingCost], conf: Confidence | None, names: Sequence[str],
                  tags: Sequence[str] = (), budget: float | None = None) -> tuple[str, int]:
    """The winner's sentence and index: the design with the lowest cost per token (or step).

    `tags` (a family label per design) follow the winner's name at the end, or, in a close call,
    each name they qualify, since two designs are named. With a token budget the sentence gives
    the winner's margin in dollars over it against the baseline.
    """
    units = [_unit_cost(c) for c in costs]
    win = min(range(len(costs)), key=lambda i: units[i])
    per = "per million tokens" if costs[win].cost_per_mtok is not None else "per step"
    margin = margin_text(costs, names, win, budget) if budget else ""
    margin = f" ({margin})" if margin else ""
    close = close_call(conf, win, units)
    if close is not None:
        who = f"{names[win]} ({tags[win]})" if tags else names[win]
        return (f"Close call: {who} trains the example job for the least at book prices, {money(units[win])} "
                f"{per}{margin}, but {close.text(names, tags)}."), win
    text = f"{names[win]} trains the example job for the least: {money(units[win])} {per}{margin}"
    if conf is not None:
        text += (f", cheapest in {share_text(conf.win_share[win])} of {conf.draws:,} price and efficiency "
                 "scenarios")
        if conf.tie_share and conf.tie_share[win] > 0:
            text += f" and tied for cheapest in {share_text(conf.tie_share[win])}"
    return text + (f" ({tags[win]})." if tags else "."), win


def cost_reasons(costs: Sequence[TrainingCost], conf: Confidence | None, names: Sequence[str], years: int,
                 budget: float) -> list[str]:
    out = []
    # The two leaders of a close call on overlapping ranges: neither share reads as a certainty.
    units = [_unit_cost(c) for c in costs]
    win = min(range(len(costs)), key=lambda i: units[i])
    close = close_call(conf, win, units)
    leaders = {win, close.draws_winner} if close is not None and close.overlap else set()
    for i, c in enumerate(costs):
        per = f"{money(c.cost_per_mtok)} per million tokens, " if c.cost_per_mtok is not None else ""
        days = f", {c.train_days:,.1f} days for {budget / 1e9:,.4g}B tokens" if c.train_days is not None else ""
        share = (f"; cheapest in {share_text(conf.win_share[i], i in leaders)} of scenarios"
                 if conf is not None else "")
        if conf is not None and conf.tie_share and conf.tie_share[i] > 0:
            share += f", tied for cheapest in {share_text(conf.tie_share[i])}"
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
