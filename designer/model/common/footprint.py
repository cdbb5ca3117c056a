"""How much memory a command's path will take, estimated from a design's counts before any of it
is built.

A heuristic, labelled as one: the closed-form BOM, the cabling plan and the streaming exports
hold a few arrays per link (run, medium, cable, both ends' cages and transceivers, the groups of
cages), so their peak grows with the link count. Measured with /usr/bin/time on the fat-tree
designs of benchmarks/bench_hostile_input.py: `bom` of 512 links took 44 MB, of 40,480 links
65 MB and of 490,760 links 430 MB; `export ndt` and `export netbox` of the last took 450 MB.
That is at most about 850 bytes a link over a 45 MB start; the estimate rounds both up.
"""

from __future__ import annotations

START_BYTES = 64 * 2**20        # interpreter, numpy, catalog and price book, before any design
BYTES_PER_LINK = 1024           # measured at most ~850 (see above), rounded up


def peak_bytes(links: int) -> int:
    """The estimated peak memory of a BOM, cabling plan or export over `links` links."""
    return START_BYTES + BYTES_PER_LINK * max(0, links)


def links_upper_bound(endpoints: int, tiers: int = 3) -> int:
    """Links of a fabric with `endpoints` host ports, before it is sized: every tier above the
    hosts carries at most as many links as the hosts do (no tier is oversubscribed upwards)."""
    return max(0, endpoints) * max(1, tiers)


def bytes_label(n: float) -> str:
    """'430 MiB', '8.5 GiB': a memory figure in the binary units the budget is given in."""
    if n >= 2**30:
        return f"{n / 2**30:,.1f} GiB"
    return f"{n / 2**20:,.0f} MiB"
