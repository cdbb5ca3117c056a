"""Leaves wired by a rule of their own: the audit's check, on a summary of each leaf's uplinks.

The summary is made link by link (`uplinks_of_pairs`, the reference) or on the switch-pair arrays
(`decisions/audit_compare.py`), and the check reads only it, so both paths give the same leaves.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sized
from dataclasses import dataclass

from designer.model.topology.asbuilt import natural_key
from designer.model.topology.design_view import DesignView


@dataclass
class LeafUplinks:
    """What the check reads of the design leaves that are present and have designed uplinks."""

    leaves: set[str]
    want: Mapping[str, int]              # designed uplinks per leaf
    others: set[str]                     # leaves not cabled as designed
    up: Mapping[str, Counter[str]]       # built links per upper switch, for each of `others`
    hosts: Mapping[str, int]             # host links per leaf, for each of `others`
    worst: float | None                  # most hosts per uplink of a leaf cabled as designed; None: none is
    spines: set[str]                     # the upper switches of the leaves' designed pairs
    per_pair: int                        # the most common designed links per pair


def uplinks_of_pairs(designed: Mapping[tuple[str, str], int], built: Mapping[tuple[str, str], Sized],
                     g: DesignView, hosts_on: Mapping[str | None, int], present: set[str]) -> LeafUplinks:
    """The summary link by link: `designed` every designed pair's links, `built` every built
    pair's links (lower, upper)."""
    leaves = {lo for lo, _ in designed if g.nodes[lo]["role"] == "leaf" and lo in present}
    up: dict[str, Counter[str]] = defaultdict(Counter)
    want: Counter[str] = Counter()
    for (lo, _), n in designed.items():
        if lo in leaves:
            want[lo] += n
    for (lo, hi), links in built.items():
        if lo in leaves:
            up[lo][hi] += len(links)
    # Each leaf's designed pairs indexed once: a 131,072-GPU design has 4,096 leaves and 262,144
    # pairs, and a scan of every pair per leaf took a minute.
    pairs_of: dict[str, list[tuple[tuple[str, str], int]]] = defaultdict(list)
    for p, n in designed.items():
        if p[0] in leaves:
            pairs_of[p[0]].append((p, n))
    as_designed = [leaf for leaf in leaves if sum(up[leaf].values()) == want[leaf] and all(
        len(built.get(p, ())) == n for p, n in pairs_of[leaf])]
    worst = max((hosts_on.get(leaf, 0) / max(1, want[leaf]) for leaf in as_designed), default=None)
    spines = {hi for lo, hi in designed if lo in leaves}
    counts = Counter(n for (lo, _), n in designed.items() if lo in leaves)
    others = leaves - set(as_designed)
    return LeafUplinks(leaves, want, others, up, {leaf: hosts_on.get(leaf, 0) for leaf in others}, worst, spines,
                       counts.most_common(1)[0][0] if counts else 0)


def own_uplink_rule(s: LeafUplinks, name_of: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(leaves, one note per leaf) whose uplinks follow a rule of their own that a site builds on
    purpose: X5's leaf with 6 links to each of 2 of its 4 spines, its 6-host leaf with 1 link to
    each spine, its leaf of uplinks only on 2 spines. Each spreads its uplinks evenly over the
    spines it reaches (k links to each of m spines), keeps all its uplinks or has no more hosts
    per uplink than the fullest leaf wired as the design says, and either reaches every spine,
    or pairs its links otherwise
    than the design (k is not the design's links per pair), or carries no host. A leaf that lost
    cables is uneven (3, 3, 2, 3), or lost a whole spine's links (3, 3, 3, 0: the design's k on
    fewer spines, with hosts): both stay findings."""
    if s.worst is None:
        return [], []
    worst = s.worst
    own: list[str] = []
    notes: list[str] = []
    for leaf in sorted(s.others, key=natural_key):
        up = s.up.get(leaf, Counter())
        hosts = s.hosts.get(leaf, 0)
        counts = set(up.values())
        total = sum(up.values())
        # All its uplinks kept, or fewer for fewer hosts: a leaf that lost cables holds more
        # hosts per uplink than the fullest leaf wired as designed.
        if len(counts) != 1 or not total or (total < s.want[leaf] and hosts > worst * total):
            continue
        k = next(iter(counts))
        # Fewer uplinks than designed on a leaf of hosts is read as the site's rule only where the
        # evenness is evidence: one cable gone from each of two spines is as likely lost as meant,
        # an even spread over three or more spines (X5's 6-host leaf, 1 to each of 4) is not.
        if total < s.want[leaf] and hosts and len(up) < 3:
            continue
        if set(up) >= s.spines or k != s.per_pair or not hosts:
            own.append(leaf)
            notes.append(f"{name_of.get(leaf, leaf)}: {k} link(s) to each of {len(up)} spines, "
                         f"{hosts} host(s)")
    return own, notes
