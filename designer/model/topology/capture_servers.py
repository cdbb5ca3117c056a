"""Placing the servers of a capture whose HCAs share a design leaf (a leaf holding several HCAs
of each server), on the capture's columns: the votes of the leaves' ends, the ballots of hosts
for design leaves, and each placed server's HCAs paired with its NICs by rank.

`capture_mapping.place` calls these; the record of a placement (`Placement`) lives here so
that both read it without importing each other.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.topology.asbuilt import DeviceTable
from designer.model.topology.capture_groups import LeafEndRows, natural_ranks
from designer.model.topology.design_view import DesignView


@dataclass
class Placement:
    """Where each as-built device sits in the design."""

    mapping: dict[str, str] = field(default_factory=dict)        # as-built id -> design node
    server_of_host: dict[str, int] = field(default_factory=dict)  # host name -> design server (0-based)
    management: list[str] = field(default_factory=list)          # as-built ids set apart
    attributed: dict[str, int] = field(default_factory=dict)     # default-named HCA id -> design server
    unplaced: list[tuple[str, str, int]] = field(default_factory=list)  # (HCA id, leaf id, leaf port)
    rank: dict[int, int] = field(default_factory=dict)           # HCA index -> rail rank
    groups: list[list[str]] = field(default_factory=list)        # as-built leaf groups, design order
    group_size: int = 0                                          # most common hosts per group
    # HCAs placed by the leaf they are on, not by its port: an inferred design of one-HCA servers
    # cannot know the site's port plan (hosts on ports 1-16 and the even ports above), so a host
    # on its leaf is where the design wants it whatever the port.
    by_leaf: set[str] = field(default_factory=set)
    # HCAs in place on any port of the leaf they are on, when it is their designed leaf: a leaf
    # holding several HCAs of each server (a leaf-spine of two-HCA servers) numbers its ports
    # as the site plans, so a server is placed by its HCAs' names, not by their ports.
    any_port: set[str] = field(default_factory=set)



@dataclass(frozen=True)
class Ballots:
    """Hosts' ballots for the bundled design leaves their HCAs are on, as columns: ballot i is
    host `hosts[host[i]]` for leaf `leaves[leaf[i]]`, with `votes[i]` of its HCAs there and
    `first[i]` the lowest rail rank among them; host by host as each first comes, a host's
    leaves as each first comes (as `on_leaf` lists them)."""

    hosts: list[str]
    leaves: list[str]
    host: np.ndarray
    leaf: np.ndarray
    votes: np.ndarray
    first: np.ndarray


def ballots_of(on_leaf: dict[str, Counter[str]], first: dict[tuple[str, str], int]) -> Ballots:
    """`Ballots` of host -> design leaf -> its HCAs there, and (host, leaf) -> lowest rank."""
    leaf_code: dict[str, int] = {}
    b_host: list[int] = []
    b_leaf: list[int] = []
    b_votes: list[int] = []
    b_first: list[int] = []
    for h, (name, counts) in enumerate(on_leaf.items()):
        for lf, n in counts.items():
            b_host.append(h)
            b_leaf.append(leaf_code.setdefault(lf, len(leaf_code)))
            b_votes.append(n)
            b_first.append(first[(name, lf)])
    return Ballots(list(on_leaf), list(leaf_code), np.array(b_host, dtype=np.int64),
                   np.array(b_leaf, dtype=np.int64), np.array(b_votes, dtype=np.int64),
                   np.array(b_first, dtype=np.int64))


@dataclass(frozen=True)
class OnLeafRows:
    """The HCAs of compute hosts on leaves placed on bundled design leaves, and their ballots."""

    hcas: list[str]                          # their ids, and their hosts
    hosts: list[str]
    ballots: Ballots


def votes_on_rows(rows: LeafEndRows, table: DeviceTable, mgmt_hosts: set[str], mapping: dict[str, str],
                   bundled: set[str], g: DesignView, rank: dict[int, int],
                   votes: dict[str, Counter[int]]) -> OnLeafRows:
    """Fill `votes` (host -> design server -> its HCAs on that server's ports) as the leaves' ends
    read in order fill it, and make the ballots of hosts for the bundled design leaves their HCAs
    are on (`Ballots`: 65,536 at 131K GPUs), on the end rows: hosts, servers and leaves in the
    order they first come."""
    da = g.arrays()
    ids, names, code = table.ids, da.names, da.code
    e_leaf, e_port, e_hca = rows.leaf, rows.port, rows.hca
    # The ends as `GroupView.ends` lists them: leaf by leaf as each first comes, in link order.
    leaves, first_at, inverse = np.unique(e_leaf, return_index=True, return_inverse=True)
    leaf_rank = np.empty(len(leaves), dtype=np.int64)
    leaf_rank[np.argsort(first_at, kind="stable")] = np.arange(len(leaves), dtype=np.int64)
    order = np.argsort(leaf_rank[inverse], kind="stable")
    e_leaf, e_port, e_hca = e_leaf[order], e_port[order], e_hca[order]
    placed_on = np.array([code.get(mapping.get(ids[r], ""), -1) for r in leaves.tolist()] + [-1], dtype=np.int64)
    d_leaf = placed_on[np.searchsorted(leaves, e_leaf)]
    is_bundled = np.zeros(len(names) + 1, dtype=bool)
    is_bundled[[code[n] for n in bundled]] = True
    host = table.host_code[e_hca]
    mgmt = np.array([h in mgmt_hosts for h in table.hosts] + [True], dtype=bool)   # -1: no host name
    compute = ~mgmt[host]
    on = compute & (d_leaf >= 0) & is_bundled[d_leaf]
    n_nodes = len(names) + 1
    hosts = table.hosts
    # The ballots: (host, design leaf) with its HCAs there, host by host as each first comes and
    # a host's leaves as each first comes.
    keys, first, counts = np.unique(host[on] * n_nodes + d_leaf[on], return_index=True, return_counts=True)
    k_host, k_leaf = np.divmod(keys, n_nodes)
    rank_of = np.full(int(table.hca.max(initial=0)) + 2, 1 << 30, dtype=np.int64)
    for h, r in rank.items():
        rank_of[h] = r
    lowest = np.full(len(keys), 1 << 30, dtype=np.int64)
    np.minimum.at(lowest, np.searchsorted(keys, host[on] * n_nodes + d_leaf[on]), rank_of[table.hca[e_hca[on]]])
    host_first = np.full(len(hosts) + 1, len(host), dtype=np.int64)
    np.minimum.at(host_first, k_host, first)
    made = np.lexsort((first, host_first[k_host]))
    b_host, b_leaf = k_host[made], k_leaf[made]
    new_host = np.r_[True, b_host[1:] != b_host[:-1]] if len(b_host) else np.zeros(0, dtype=bool)
    found, b_leaf_no = np.unique(b_leaf, return_inverse=True)
    ballots = Ballots([hosts[h] for h in b_host[new_host].tolist()], [names[c] for c in found.tolist()],
                      np.cumsum(new_host) - 1, b_leaf_no.reshape(-1), counts[made], lowest[made])
    # votes: the NIC designed at each other end's leaf port, its server.
    ports = int(max(int(e_port.max(initial=0)), int(da.host_port.max(initial=0)))) + 1
    at_keys = da.host_leaf * ports + da.host_port
    last = len(at_keys) - 1 - np.unique(at_keys[::-1], return_index=True)[1]    # the last NIC of a position
    by_key = np.argsort(at_keys[last], kind="stable")
    known, nic_at = at_keys[last][by_key], da.host_nic[last][by_key]
    want = np.where(compute & ~on & (d_leaf >= 0) & (d_leaf < len(names)), d_leaf * ports + e_port, -1)
    at = np.minimum(np.searchsorted(known, want), max(0, len(known) - 1))
    hit = (want >= 0) & (known[at] == want) if len(known) else np.zeros(len(want), dtype=bool)
    server = da.nic_server[nic_at[at[hit]]]
    width = int(server.max(initial=0)) + 1
    keys, first, counts = np.unique(host[hit] * width + server, return_index=True, return_counts=True)
    by_first = np.argsort(first, kind="stable")
    for key, c in zip(keys[by_first].tolist(), counts[by_first].tolist(), strict=True):
        h, sv = divmod(key, width)
        votes[hosts[h]][sv] = c
    on_hcas = e_hca[on].tolist()
    return OnLeafRows([ids[r] for r in on_hcas], [hosts[h] for h in host[on].tolist()], ballots)


def _servers_on(g: DesignView, leaves: set[str]) -> dict[str, list[int]]:
    """Design leaf of `leaves` -> its servers, in order; the leaves as their first host link comes."""
    da = g.arrays()
    names = da.names
    pick = np.zeros(len(names), dtype=bool)
    pick[[da.code[n] for n in leaves]] = True
    rows = np.flatnonzero(pick[da.host_leaf])
    leaf, server = da.host_leaf[rows], da.host_server_index[rows]
    found, first = np.unique(leaf, return_index=True)
    out: dict[str, list[int]] = {}
    width = int(server.max(initial=0)) + 1
    pairs = sorted_distinct(leaf * width + server)
    p_leaf, p_server = np.divmod(pairs, width)
    bounds = np.searchsorted(p_leaf, found)
    ends_at = np.searchsorted(p_leaf, found, side="right")
    servers = p_server.tolist()
    for i in np.argsort(first, kind="stable").tolist():
        out[names[int(found[i])]] = servers[int(bounds[i]):int(ends_at[i])]
    return out


def map_named_hcas(mapping: dict[str, str], table: DeviceTable, compute: list[int],
                    chosen_of: list[int | None], rank: dict[int, int], g: DesignView) -> None:
    """Each compute HCA of a placed server: its server's NIC of the same rail rank (the NIC of
    that server and port), on the columns."""
    da = g.arrays()
    rows = np.array(compute, dtype=np.int64)
    chosen = np.array([-1 if c is None else c for c in chosen_of] + [-1], dtype=np.int64)[table.host_code[rows]]
    rank_of = np.full(int(table.hca.max(initial=0)) + 2, -1, dtype=np.int64)
    for h, r in rank.items():
        rank_of[h] = r
    r = rank_of[table.hca[rows]]
    nics = np.flatnonzero(da.nic)
    width = int(max(int(da.nic_port[nics].max(initial=0)), max(rank.values(), default=0))) + 1
    keys = da.nic_server[nics] * width + da.nic_port[nics]
    # The last NIC of a (server, port) stands, as a dict filled in node order keeps it.
    last = len(keys) - 1 - np.unique(keys[::-1], return_index=True)[1]
    order = np.argsort(keys[last], kind="stable")
    known, node = keys[last][order], nics[last][order]
    want = np.where((chosen >= 0) & (r >= 0), chosen * width + r, -1)
    at = np.minimum(np.searchsorted(known, want), max(0, len(known) - 1))
    hit = (want >= 0) & (known[at] == want) if len(known) else np.zeros(len(want), dtype=bool)
    ids, names = table.ids, da.names
    mapping.update(zip([ids[i] for i in rows[hit].tolist()], [names[c] for c in node[at[hit]].tolist()], strict=True))


def bundled_leaves(g: DesignView) -> set[str]:
    """Design leaves holding two or more NICs of one server."""
    da = g.arrays()
    key = da.host_leaf * (int(da.host_server_index.max(initial=0)) + 1) + da.host_server_index
    values, counts = np.unique(key, return_counts=True)
    return {da.names[c] for c in sorted_distinct(da.host_leaf[np.isin(key, values[counts > 1])]).tolist()}


def place_by_hcas(out: Placement, on_leaf: dict[str, Counter[str]], g: DesignView,
                   ends: dict[str, list[tuple[int, str]]], host_of: dict[str, str], hca_by_id: dict[str, int],
                   bundled: set[str], taken: set[int], on_rows: OnLeafRows | None = None,
                   host_rank: dict[str, int] | None = None) -> None:
    """Servers whose HCAs share a design leaf: a host takes a free design server of the leaf most
    of its HCAs are on (its lowest-numbered HCA's leaf breaks a tie), whatever ports they use;
    its HCAs then pair with the server's NICs by name. Hosts whose leaf is full take the servers
    left anywhere, in place on any leaf: the design spreads its servers evenly over its leaves
    (7, 7, 6), a site fills them its own way (6, 7, 7)."""
    servers_on = _servers_on(g, bundled)
    first: dict[tuple[str, str], int] = {}     # (host, design leaf) -> lowest rank
    for leaf, rows in ends.items() if on_rows is None else ():
        d_leaf = out.mapping.get(leaf)
        for _, nic in rows:
            host = host_of[nic]
            if host in on_leaf and d_leaf in bundled:
                key = (host, d_leaf)
                first[key] = min(first.get(key, 1 << 30), out.rank.get(hca_by_id[nic], 1 << 30))
    # A host split evenly between two leaves (one of its two HCAs crossed with another server's)
    # says nothing of its leaf by itself: a site numbers the hosts of a leaf together, so the
    # leaf of the hosts named next to it decides, and then its lowest-numbered HCA's leaf.
    # Names compare by their rank in natural order (equal keys, equal ranks): 16,384 hosts and
    # 65,536 ballots at 131K GPUs sort on integers.
    made = ballots_of(on_leaf, first) if on_rows is None else on_rows.ballots
    # The hosts' ranks as the groups read them, where every host has one and no host is named
    # as a design leaf (one rank per name): one sort of 16,384 host names at 131K GPUs, not two.
    leaf_names = [*servers_on, *made.leaves]
    if host_rank is not None and all(h in host_rank for h in made.hosts) and host_rank.keys().isdisjoint(leaf_names):
        key_of = natural_ranks(leaf_names)
        key_of.update((h, host_rank[h]) for h in made.hosts)
    else:
        key_of = natural_ranks([*made.hosts, *leaf_names])
    ballots = _ballot_order(made, key_of)
    room = {leaf: sum(1 for s in servers if s not in taken) for leaf, servers in servers_on.items()}
    leaf_of: dict[str, str] = {}
    for host, leaf in ballots:
        if host not in out.server_of_host and host not in leaf_of and room[leaf]:
            leaf_of[host] = leaf
            room[leaf] -= 1
    # Within a leaf, hosts take its servers in name order (a site numbers its hosts as it cables).
    hosts_of: dict[str, list[str]] = defaultdict(list)
    for host, leaf in leaf_of.items():
        hosts_of[leaf].append(host)
    for leaf, hosts in hosts_of.items():
        free = [s for s in servers_on[leaf] if s not in taken]
        for host, server in zip(sorted(hosts, key=key_of.__getitem__), free, strict=False):
            out.server_of_host[host] = server
            taken.add(server)
    left = [s for leaf in sorted(servers_on, key=key_of.__getitem__) for s in servers_on[leaf] if s not in taken]
    spread = set()
    for host, server in zip(sorted((h for h in made.hosts if h not in out.server_of_host), key=key_of.__getitem__),
                            left, strict=False):
        out.server_of_host[host] = server
        taken.add(server)
        spread.add(host)
    if on_rows is not None:
        if not spread:          # every host on its leaf (131,072 HCAs at 131K GPUs)
            out.any_port.update(on_rows.hcas)
            return
        for nic, host in zip(on_rows.hcas, on_rows.hosts, strict=True):
            (out.by_leaf if host in spread else out.any_port).add(nic)
        return
    for leaf, rows in ends.items():
        if out.mapping.get(leaf) in bundled:
            for _, nic in rows:
                if host_of[nic] in on_leaf:
                    (out.by_leaf if host_of[nic] in spread else out.any_port).add(nic)


def _ballot_order(ballots: Ballots, key_of: dict[str, int]) -> list[tuple[str, str]]:
    """The ballots (host, design leaf) in the order they are counted: most HCAs first, then the
    leaf the names around a host's agree on (`doubt`), its lowest HCA's rank there, the host's
    and the leaf's natural order, and the order they are made; on columns (65,536 ballots at
    131K GPUs).

    A host with one leaf holding the most of its HCAs has that leaf as its home (doubt 0 there,
    2 elsewhere); a host split evenly asks the homes of the decided hosts named next to it (in
    natural order, just before and from it on): 0 where they all name the leaf, 1 where one
    does, else 2."""
    hosts, leaves = ballots.hosts, ballots.leaves
    host, leaf, votes = ballots.host, ballots.leaf, ballots.votes
    # Each host's home: its one leaf of the most votes (-1: none, or a tie).
    best = np.full(len(hosts), -1, dtype=np.int64)
    np.maximum.at(best, host, votes)
    top = votes == best[host]
    decided = np.bincount(host[top], minlength=len(hosts)) == 1
    home = np.full(len(hosts), -1, dtype=np.int64)
    home[host[top & decided[host]]] = leaf[top & decided[host]]
    host_key = np.array([key_of[h] for h in hosts], dtype=np.int64)
    # The decided hosts in natural order (ties in the order they come), each undecided host's
    # neighbours among them: the one before its place and the one at it.
    by_name = np.flatnonzero(decided)
    by_name = by_name[np.argsort(host_key[by_name], kind="stable")]
    homes = np.r_[home[by_name], -1]                # -1 past either end
    at = np.searchsorted(host_key[by_name], host_key, side="left")
    before = np.where(at > 0, homes[at - 1], -1)
    after = np.where(at < len(by_name), homes[np.minimum(at, len(by_name))], -1)
    lo, hi = before[host], after[host]
    near_only = ((lo == leaf) | (lo < 0)) & ((hi == leaf) | (hi < 0)) & ((lo >= 0) | (hi >= 0))
    near_one = (lo == leaf) | (hi == leaf)
    doubt = np.where(decided[host], np.where(home[host] == leaf, 0, 2),
                     np.where(near_only, 0, np.where(near_one, 1, 2)))
    leaf_key = np.array([key_of[lf] for lf in leaves], dtype=np.int64)
    order = np.lexsort((np.arange(len(host)), leaf_key[leaf] if len(leaves) else leaf, host_key[host],
                        ballots.first, doubt, -votes))
    return [(hosts[h], leaves[lf]) for h, lf in zip(host[order].tolist(), leaf[order].tolist(), strict=True)]


def _ballot_order_by_keys(on_leaf: dict[str, Counter[str]], first: dict[tuple[str, str], int],
                          key_of: dict[str, int]) -> list[tuple[str, str]]:
    """`_ballot_order` a ballot at a time (the reference the columns are held equal to)."""
    home: dict[str, str] = {}
    for h, c in on_leaf.items():
        best = max(c.values())
        if sum(1 for v in c.values() if v == best) == 1:
            home[h] = next(lf for lf, v in c.items() if v == best)
    decided = sorted(home, key=key_of.__getitem__)
    keys = [key_of[h] for h in decided]
    near_of: dict[str, set[str]] = {}
    for host in on_leaf:
        if host not in home:
            i = bisect_left(keys, key_of[host])
            near_of[host] = {home[decided[j]] for j in (i - 1, i) if 0 <= j < len(decided)}

    def doubt(host: str, leaf: str) -> int:
        if host in home:
            return 0 if home[host] == leaf else 2
        near = near_of[host]
        return 0 if near == {leaf} else 1 if leaf in near else 2

    # The ballots' order, ties in the order they are made (each one's position, before its names).
    ballots = sorted((-n, doubt(host, leaf), first[(host, leaf)], key_of[host], key_of[leaf], i, host, leaf)
                     for i, (host, leaf, n) in enumerate((host, leaf, n) for host, c in on_leaf.items()
                                                         for leaf, n in c.items()))
    return [(host, leaf) for *_, host, leaf in ballots]
