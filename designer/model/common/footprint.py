"""How much memory a command's path will take, estimated from a design's counts before any of it
is built.

A heuristic, labelled as one: the closed-form BOM, the cabling plan and the streaming exports
hold a few arrays per link (run, medium, cable, both ends' cages and transceivers, the groups of
cages) and a few per device (placement, names, cages in use), so their peak grows with both
counts. Measured with /usr/bin/time: `bom` of the fat-tree designs of
benchmarks/bench_hostile_input.py took 44 MB for 512 links, 65 MB for 40,480 links and 430 MB for
490,760 links on 245,000 one-GPU servers (`export ndt` and `export netbox` of the last 450 MB);
`bom` of the 1,048,576-GPU two-tier design of benchmarks/bench_million.py took 3.8 GB for 12.6
million links on 172,032 devices. Both fit at most about 300 bytes a link plus 1 KB a device
over a 45 MB start; the estimate rounds each up.
"""

from __future__ import annotations

START_BYTES = 64 * 2**20        # interpreter, numpy, catalog and price book, before any design
BYTES_PER_LINK = 320            # measured at most ~300 (see above), rounded up
BYTES_PER_DEVICE = 1280         # measured at most ~1,000, rounded up


def peak_bytes(links: int, devices: int = 0) -> int:
    """The estimated peak memory of a BOM, cabling plan or export over `links` links between
    `devices` servers and switches."""
    return START_BYTES + BYTES_PER_LINK * max(0, links) + BYTES_PER_DEVICE * max(0, devices)


def links_upper_bound(endpoints: int, tiers: int = 3) -> int:
    """Links of a fabric with `endpoints` host ports, before it is sized: every tier above the
    hosts carries at most as many links as the hosts do (no tier is oversubscribed upwards)."""
    return max(0, endpoints) * max(1, tiers)


def bytes_label(n: float) -> str:
    """'430 MiB', '8.5 GiB': a memory figure in the binary units the budget is given in."""
    if n >= 2**30:
        return f"{n / 2**30:,.1f} GiB"
    return f"{n / 2**20:,.0f} MiB"
