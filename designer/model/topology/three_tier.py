"""Three-tier layout: the fewest switches in total that meet the leaf and spine ratios.

Once the leaves and their pods are fixed (see sizing.plan_fabric), a three-tier fabric is
four integers, each bound by the same wiring rule as two tiers, whole and equal links per pair:
- `u` uplinks per leaf: at least the `u_min` the leaf ratio needs, at most what the leaf holds;
- `s` spines per pod: a divisor of `u`, so each leaf has `u / s` links to every spine of its pod.
  A spine then has `D = leaves_per_pod * u / s` downlinks;
- `v` uplinks per spine: at least `D / spine ratio`, and `D + v` fit on the spine;
- `g` cores per core group: spine `j` of every pod spreads `v` evenly over core group `j`, so
  `g` divides `v` and each core takes `pods * v / g` links, no more than its ports.

It costs `leaves + pods * s + s * g` switches and `leaves * u + pods * s * v` links between
switches. The search takes the fewest switches, then the fewest links, then the fewest uplinks
per leaf (the reference architectures give a leaf exactly the uplinks its ratio needs), then
the fewest spines. The brute-force check in tests/test_three_tier_sizing.py enumerates the same
space without any of the pruning used here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Layout:
    leaf_up: int          # u
    spines_per_pod: int   # s
    spine_down: int       # D
    spine_up: int         # v
    core_group: int       # g

    def switches(self, leaves: int, pods: int) -> int:
        return leaves + pods * self.spines_per_pod + self.spines_per_pod * self.core_group

    def links(self, leaves: int, pods: int) -> int:
        return leaves * self.leaf_up + pods * self.spines_per_pod * self.spine_up


# Sizing runs these searches for every candidate layout of every switch, and the candidates of one
# cluster repeat the same few port counts and pod shapes: each is a pure function of integers
# (and a ratio), so its answers are kept.
@lru_cache(maxsize=4096)
def divisors(n: int) -> tuple[int, ...]:
    """Divisors of n in ascending order, in O(sqrt n)."""
    small, large = [], []
    for k in range(1, math.isqrt(n) + 1):
        if n % k == 0:
            small.append(k)
            if k != n // k:
                large.append(n // k)
    return tuple(small + large[::-1])


def spine_uplinks_needed(down: int, ratio: float) -> int:
    return max(1, math.ceil(down / ratio - 1e-9))


@lru_cache(maxsize=4096)
def core_group(down: int, pods: int, spine_ports: int, core_ports: int,
               ratio: float) -> tuple[int, int] | None:
    """(g, v) for spines with `down` downlinks: the fewest cores per group, then the fewest
    spine uplinks; None when no uplink count fits beside `down` on the spine."""
    best: tuple[int, int] | None = None
    for v in range(spine_uplinks_needed(down, ratio), spine_ports - down + 1):
        low = max(1, math.ceil(pods * v / core_ports))
        if best is not None and low >= best[0]:
            break  # the bound only rises with v, and ties go to fewer uplinks
        g = next((k for k in divisors(v) if k >= low), None)
        if g is not None and (best is None or g < best[0]):
            best = (g, v)
    return best


@lru_cache(maxsize=1024)
def fewest_switches(leaves: int, pods: int, leaves_per_pod: int, u_min: int, u_max: int,
                    spine_ports: int, core_ports: int, spine_ratio: float,
                    spine_down_max: int) -> Layout | None:
    """The layout with the fewest switches (ties: links, uplinks per leaf, spines per pod).

    `spine_down_max` is the most downlinks a spine takes at `spine_ratio`; `leaves_per_pod`
    must not exceed it, so that one link from each leaf to each spine (s = u) always fits;
    None only when it does, or when there are more pods than core ports.
    """
    memo: dict[int, tuple[int, int] | None] = {}
    best: tuple[tuple[int, int, int, int], Layout] | None = None
    for u in range(u_min, max(u_min, u_max) + 1):
        s_low = max(1, math.ceil(leaves_per_pod * u / spine_down_max))
        # Every core group has at least one core: no larger u can beat the best once this bound does.
        if best is not None and leaves + s_low * (pods + 1) > best[0][0]:
            break
        for s in divisors(u):
            if s < s_low:
                continue
            if best is not None and leaves + s * (pods + 1) > best[0][0]:
                break
            down = leaves_per_pod * u // s
            if down not in memo:
                memo[down] = core_group(down, pods, spine_ports, core_ports, spine_ratio)
            found = memo[down]
            if found is None:
                continue
            layout = Layout(u, s, down, found[1], found[0])
            key = (layout.switches(leaves, pods), layout.links(leaves, pods), u, s)
            if best is None or key < best[0]:
                best = (key, layout)
    return best[1] if best is not None else None
