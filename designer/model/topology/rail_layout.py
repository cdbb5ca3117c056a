"""The SU size and rail grouping a rail-optimized fabric is sized with.

A rail-optimized SU puts rail p of its servers on one leaf. Two integers shape it:
- the SU size (servers per SU): the server's reference-architecture SU from the catalog
  (`reference_su` in servers.toml, per fabric family or technology), else a rack-scale system's
  `su_servers`, else the DGX SuperPOD's 32 nodes;
- the rails per leaf k: 1 in the reference architectures; a high-radix leaf (SN5600 with 64
  downlinks at 400G) may take k rails of a smaller SU instead, which halves the leaves when the
  reference layout would leave them half empty.

Sizing prices every layout returned here and keeps the cheapest (ties go to the reference SU,
then the fewest rails per leaf), as it does for the switch model (switch_choice.py).

Which are priced: every SU size a leaf holds, with every rails-per-leaf that divides the rails,
with the published SU first. With a price book all of them are considered: a price does not
follow the switch and link counts alone (cable lengths and media move it); those whose floor
price (physical/cost_bound.py) already exceeds a priced layout's by more than the layout tie are
left unpriced, which changes nothing chosen (switch_choice.price_candidates). Without a book, the
counts decide, and only the layouts no other matches or beats on both counts (`pareto`) are kept.
tests/test_rail_layout.py holds that no SU size, rail grouping or switch model found by brute
force is cheaper.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.catalog import Server, Technology
from designer.model.topology.sizing import rack_group, rack_size

DEFAULT_NODES_PER_SU = 32   # the DGX SuperPOD SU (H100, B200: 32 nodes on 8 rail leaves)


@dataclass(frozen=True)
class ReferenceSU:
    """The default SU for a server on a technology, and where it comes from."""

    nodes: int
    why: str


@dataclass(frozen=True)
class RailLayout:
    nodes_per_su: int
    rails_per_leaf: int


def divisors(n: int) -> list[int]:
    return [k for k in range(1, n + 1) if n % k == 0]


def reference_su(server: Server, tech: Technology, d_max: int) -> ReferenceSU:
    """The SU the server's reference architecture builds on this technology, if a leaf with
    `d_max` downlinks holds it (whole, or one rack group per leaf for a rack-scale SU); else the
    rack-scale or SuperPOD default."""
    ref = server.reference_su_for(tech.id, tech.family)
    if ref is not None and (ref.nodes <= d_max or rack_group(server, ref.nodes, d_max)):
        return ReferenceSU(ref.nodes, f"the reference SU of {server.name} on {tech.family} ({ref.source})")
    if server.su_servers and (server.su_servers <= d_max or rack_group(server, server.su_servers, d_max)):
        return ReferenceSU(server.su_servers, f"the reference SU of {server.name}")
    per_rack = rack_size(server)
    if per_rack:
        fit = per_rack * max(1, d_max // per_rack)
        return ReferenceSU(fit, f"the most whole {per_rack}-tray racks one leaf takes ({d_max} downlinks)")
    missing = (f"{ref.nodes} nodes, its reference SU, do not fit one leaf of {d_max} downlinks; "
               if ref is not None else "the catalog gives no reference SU for it; ")
    return ReferenceSU(DEFAULT_NODES_PER_SU, f"{server.name}: {missing}the DGX SuperPOD SU of "
                                             f"{DEFAULT_NODES_PER_SU} nodes")


def rail_layouts(servers: int, rails: int, d_max: int, reference: int, fixed: int | None,
                 rack_scale: bool) -> list[RailLayout]:
    """The (SU size, rails per leaf) pairs sizing considers, the reference (or given) SU first.

    Every SU size a leaf holds with each rails-per-leaf that divides the rails.
    `fixed` is an SU size the user gave (--nodes-per-su): only the rail grouping varies.
    A rack-scale server keeps SUs of whole racks and one rail per leaf (the NVL72 RA's layout).
    """
    su0 = fixed or reference
    out = [RailLayout(su0, 1)]
    if rack_scale or d_max <= 0:
        return out
    seen = set(out)
    for k in divisors(rails):
        cap = d_max // k
        if cap < 1:
            continue
        sizes = ([fixed] if fixed <= cap else []) if fixed else range(1, min(servers, cap) + 1)
        for su in sizes:
            layout = RailLayout(su, k)
            if layout not in seen:
                seen.add(layout)
                out.append(layout)
    return out


def pareto(counts: list[tuple[int, int]]) -> list[int]:
    """Indexes of the (switches, links) pairs no other pair matches or beats on both counts
    (the first of equal pairs is kept): the layouts a choice by counts can take."""
    keep: list[int] = []
    for i, (sw, links) in enumerate(counts):
        beaten = any(s2 <= sw and l2 <= links and ((s2, l2) != (sw, links) or j < i)
                     for j, (s2, l2) in enumerate(counts) if j != i)
        if not beaten:
            keep.append(i)
    return keep
