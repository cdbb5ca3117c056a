"""Realistic, messy fabric captures made from any design, with the faults they hold recorded.

A capture is made the way a site's fabric looks to ibnetdiscover or to LLDP: site names for
switches and hosts, HCAs named `<host> HCA-<n>`, `<host> mlx5_<n>` or only by the default
`MT4129 ConnectX7   Mellanox Technologies`, a SHARP aggregation node on every switch, parallel
leaf-spine links on shuffled uplink ports, management HCAs, stray stderr lines; and the faults a
technician finds on the floor: absent switches and servers, host ports down, missing uplinks,
swapped and crossed cables, a cable on a spare port of the wrong leaf, degraded links, an HCA
that no position explains. `Faults` records exactly what was injected, in design ids.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

from designer.model.topology.derive import Derived

DEFAULT_HCA = "MT4129 ConnectX7   Mellanox Technologies"


@dataclass
class Faults:
    absent_switches: list[str] = field(default_factory=list)
    absent_servers: list[str] = field(default_factory=list)            # srv-N
    ports_down: list[str] = field(default_factory=list)                # NIC nodes, leaf present
    missing_uplinks: Counter = field(default_factory=Counter)          # (lower, upper) -> links
    swaps: list[tuple[str, str]] = field(default_factory=list)         # two NICs of one server
    crossed: list[tuple[str, str]] = field(default_factory=list)       # two servers' NICs, one leaf
    miswired: list[str] = field(default_factory=list)                  # NICs on a spare port of another leaf
    degraded: list[tuple[str, str]] = field(default_factory=list)      # (lower, upper) design pairs
    default_named: list[str] = field(default_factory=list)             # NICs with the default name
    unplaced: int = 0                                                  # default-named HCAs on spare ports
    management: int = 0
    # Not faults: leaves whose uplinks follow a rule of their own (X5's leaf with 6 links to each
    # of 2 of its 4 spines), which the audit names as "uplinks by design" and reports nothing of.
    own_rule: list[str] = field(default_factory=list)


@dataclass
class Capture:
    text: str
    faults: Faults
    names: dict[str, str]            # design node -> name in the capture


@dataclass
class _Wire:
    a: str
    pa: int
    b: str
    pb: int
    speed: str = "NDR"
    width: int = 4


# Real sites' naming schemes (host, leaf, spine), each as the public capture or site guide
# that shows it names devices; `{n}` is the host's number, with the gaps a site leaves between
# groups, `{row}`/`{hall}` follow the group, `{su}`, `{rail}`, `{index}` the switch's place.
SITES: dict[str, tuple[str, str, str]] = {
    # DGX SuperPOD rows and pods (the site: R07-P1-IBLEAF-02-03, r07-p1-dgx-070-c01 HCA-2)
    "superpod-rows": ("r{row:02d}-p1-dgx-{n:03d}-c01", "R{row:02d}-P1-IBLEAF-{su:02d}-{rail:02d}",
                      "R07-P1-IBSPINE-{index:02d}"),
    # loginoff/infiniband_topology: switches ib1..ibN in one series, hosts by role (stage97)
    "loginoff": ("stage{n}", "ib{index}", "ibsp{index}"),
    # ltaulell/HPC_toolset (PSMN X5): switches hoibpNNNN, hosts by chassis model (r510gluster1)
    "psmn": ("r510node{n}", "hoibp{index:04d}", "hoibp{index:04d}s"),
    # halls with their own host prefixes (rows of several halls in one fabric)
    "halls": ("h{hall}-gpu{n:04d}", "h{hall}-su{su}-rail{rail}-leaf", "core-spine-{index}"),
    # NVIDIA topograph's NDR captures: rail-and-group encoded leaves, GPU nodes by rack
    "topograph": ("gpu-rack{row:02d}-{n:02d}", "ibleaf-g{su}-r{rail}", "ibspine{index:02d}"),
}


def make_capture(derived: Derived, seed: int, fmt: str = "ibnetdiscover", faults: bool = True,
                 quiet: bool = False, site: str | None = None, shuffle_host_ports: bool = False,
                 crossed_leaves: int = 0) -> Capture:
    """A capture of the design's fabric with random faults (none when `faults` is False).

    With `site`, devices are named in that site's scheme (SITES), host numbers leave a gap
    between groups, each HCA of a host is named its own way (HCA-N or mlx5_N) and default names
    are both the vendor's and `localhost HCA-N`.

    For designs whose servers have several HCAs on one leaf (a leaf-spine of two-HCA servers):
    `shuffle_host_ports` cables each leaf's hosts on its host ports in a random order (the site's
    port plan, not the design's side-by-side HCAs), and `crossed_leaves` exchanges that many
    pairs of cables between two servers on different leaves (the same HCA of each), recorded in
    `faults.crossed`. Both are meant with `faults=False`."""
    rnd = random.Random(seed)
    g = derived.graph
    f = Faults()
    role = {n: d["role"] for n, d in g.nodes(data=True)}
    servers = sorted({d["server"] for n, d in g.nodes(data=True) if d["role"] == "nic"})
    nics_of: dict[int, list[str]] = {}
    for n, d in g.nodes(data=True):
        if d["role"] == "nic":
            nics_of.setdefault(d["server"], []).append(n)
    for v in nics_of.values():
        v.sort(key=lambda n: g.nodes[n]["port"])
    ports = len(nics_of[servers[0]])
    # Naming: site names; HCA indices as a DGX numbers the compute HCAs of one plane.
    indices = rnd.choice([list(range(ports)), [i + (i >= ports // 2) * 2 for i in range(ports)]]
                         if ports % 2 == 0 else [list(range(ports))])
    host_style = rnd.choice(["dgx-{:03d}", "node{:04d}", "h100-a{:02d}-c01"])
    leaf_style = rnd.choice(["IBLEAF-{su:02d}-{rail:02d}", "leaf-{index}", "su{su}-rail{rail}-l{index}"])
    spine_style = rnd.choice(["IBSPINE-{index:02d}", "spine-{index}", "sp{index}"])
    names: dict[str, str] = {}
    su_of = {d["server"]: max(d.get("pod", 0), 0) for n, d in g.nodes(data=True) if d["role"] == "nic"}
    if site is not None:
        host_style, leaf_style, spine_style = SITES[site]
    for n, d in g.nodes(data=True):
        place = {"su": d.get("pod", 0) + 1, "rail": d.get("rail", 0) + 1, "index": d["index"] + 1,
                 "row": 7 + d.get("pod", 0), "hall": 1 + (d.get("pod", 0) >= 2)}
        if d["role"] == "leaf":
            names[n] = leaf_style.format(**place)
        elif d["role"] in ("spine", "core"):
            names[n] = (spine_style if d["role"] == "spine" else "core-{index}").format(**place)
    hca_style = {s: rnd.choice(["HCA-{}", "mlx5_{}"]) for s in servers}

    def host_name(server: int) -> str:
        if site is None:
            return host_style.format(server + 1)
        su = su_of[server]
        # numbering gaps: each group's hosts start 10 numbers after the last group's
        return host_style.format(n=server + 1 + 10 * su, row=7 + su, hall=1 + (su >= 2))

    def hca_name(nic: str) -> str:
        d = g.nodes[nic]
        idx = indices[d["port"]]
        style = hca_style[d["server"]] if site is None else rnd.choice(["HCA-{}", "mlx5_{}"])
        return f"{host_name(d['server'])} " + style.format(idx + 1 if style.startswith("HCA") else idx)

    for s in servers:
        for n in nics_of[s]:
            names[n] = hca_name(n)
    wires: list[_Wire] = []
    for u, v, d in g.edges(data=True):
        a, b = (d["a"], v if d["a"] == u else u)
        pa, pb = d["pa"], d["pb"]
        wires.append(_Wire(a, pa, b, pb))
    max_port = Counter()
    for w in wires:
        for n, p in ((w.a, w.pa), (w.b, w.pb)):
            max_port[n] = max(max_port[n], p)
    switch_ports = derived.resolved.leaf_switch.ports_at(derived.resolved.link_gbps) or 64
    # Uplink ports as a site numbers them: shuffled on every switch (the rule says which pairs, not ports).
    ends_of: dict[str, list[tuple[_Wire, str]]] = {}
    for w in wires:
        if role[w.a] != "nic" and role[w.b] != "nic":
            ends_of.setdefault(w.a, []).append((w, "a"))
            ends_of.setdefault(w.b, []).append((w, "b"))
    for n in sorted(ends_of):
        up = ends_of[n]
        got = [getattr(w, "p" + side) for w, side in up]
        rnd.shuffle(got)
        for (w, side), p in zip(up, got, strict=True):
            setattr(w, "p" + side, p)
    leaves = sorted((n for n in g if role[n] == "leaf"), key=lambda n: g.nodes[n]["index"])
    spines = sorted((n for n in g if role[n] in ("spine", "core")), key=lambda n: g.nodes[n]["index"])
    stray_hcas: list[tuple[str, int, str]] = []      # (leaf, port, description) on spare ports
    _recable_hosts(wires, role, nics_of, f, rnd, shuffle_host_ports, crossed_leaves)
    if faults:
        removed_nics: set[str] = set()
        # a leaf or a spine absent (at most one leaf per SU, so every server keeps an HCA)
        if rnd.random() < 0.7 and len(leaves) > 2:
            gone = rnd.choice(leaves if rnd.random() < 0.7 or not spines else spines)
            f.absent_switches.append(gone)
            for w in wires:
                if w.a == gone and role[w.b] == "nic" or w.b == gone and role[w.a] == "nic":
                    removed_nics.add(w.a if role[w.a] == "nic" else w.b)
        # absent servers
        for s in rnd.sample(servers, min(len(servers) // 8, rnd.randint(0, 2))):
            if not any(n in removed_nics for n in nics_of[s]) and len(servers) > 2:
                f.absent_servers.append(f"srv-{s + 1}")
                removed_nics |= set(nics_of[s])
        live = [s for s in servers if f"srv-{s + 1}" not in f.absent_servers
                and not any(n in removed_nics for n in nics_of[s])]
        rnd.shuffle(live)
        # host ports down (one per server, on servers left otherwise whole)
        for s in live[:rnd.randint(0, 3)] if ports > 1 else []:
            n = rnd.choice(nics_of[s])
            f.ports_down.append(n)
            removed_nics.add(n)
        busy = set(live[:3])
        # swaps: two HCAs of one server on each other's leaves
        for s in [s for s in live if s not in busy][:rnd.randint(0, 2)] if ports > 1 else []:
            a, b = rnd.sample(nics_of[s], 2)
            f.swaps.append((a, b))
            busy.add(s)
        # crossed: the same HCA of two servers on one leaf, on each other's ports
        if rnd.random() < 0.5:
            pairs = {}
            for s in live:
                if s in busy:
                    continue
                n = nics_of[s][0]
                leaf = next(p for p in g.neighbors(n))
                if leaf in pairs and pairs[leaf] not in busy:
                    f.crossed.append((nics_of[pairs[leaf]][0], n))
                    busy |= {s, pairs[leaf]}
                    break
                pairs[leaf] = s
        wires = [w for w in wires if w.a not in removed_nics and w.b not in removed_nics
                 and not set(f.absent_switches) & {w.a, w.b}]
        host_at = {}
        for w in wires:
            if role[w.a] == "nic":
                host_at[w.a] = w
        for a, b in f.swaps + f.crossed:
            wa, wb = host_at[a], host_at[b]
            wa.b, wa.pb, wb.b, wb.pb = wb.b, wb.pb, wa.b, wa.pb
        # a cable moved to a spare port of another leaf
        spare = [(leaf, p) for leaf in leaves if leaf not in f.absent_switches
                 for p in range(max_port[leaf] + 1, switch_ports + 1)]
        if spare and rnd.random() < 0.5:
            s = next((s for s in live if s not in busy), None)
            if s is not None:
                n = nics_of[s][-1]
                w = host_at[n]
                others = [(lf, p) for lf, p in spare if lf != w.b]
                if others:
                    w.b, w.pb = others[0]
                    spare.remove(others[0])
                    f.miswired.append(n)
                    busy.add(s)
        # missing uplinks on pairs whose ends are both there
        ups = [w for w in wires if role[w.a] != "nic"]
        cut = {id(w) for w in rnd.sample(ups, min(len(ups) // 4, rnd.randint(0, 4)))}
        for w in ups:
            if id(w) in cut:
                f.missing_uplinks[(w.a, w.b)] += 1
        wires = [w for w in wires if id(w) not in cut]
        # degraded links
        for w in rnd.sample(wires, min(len(wires) // 10, rnd.randint(0, 3))):
            w.speed, w.width = rnd.choice([("HDR", 4), ("NDR", 1), ("NDR", 2)])
            f.degraded.append((w.a, w.b))
        if site is not None:
            f.own_rule = _own_uplink_rule(g, wires, leaves, spines, f, switch_ports, random.Random(seed * 7919 + 1))
        # an HCA that no position explains
        if spare and rnd.random() < 0.5 and fmt == "ibnetdiscover":
            leaf, p = spare.pop(0)
            stray_hcas.append((leaf, p, DEFAULT_HCA))
            f.unplaced += 1
        present_nics = {w.a for w in wires if role[w.a] == "nic"}
        if fmt == "ibnetdiscover":
            untouched = [n for n in sorted(present_nics) if g.nodes[n]["server"] not in busy]
            f.default_named = rnd.sample(untouched, min(len(untouched), rnd.randint(0, max(1, len(untouched) // 5))))
            for n in f.default_named:
                names[n] = DEFAULT_HCA if site is None or rnd.random() < 0.5 else \
                    f"localhost HCA-{indices[g.nodes[n]['port']] + 1}"
        if spare and rnd.random() < 0.7:
            for i in range(min(len(spare), rnd.randint(1, 3))):
                leaf, p = spare.pop(0)
                stray_hcas.append((leaf, p, f"ufm-{i + 1:02d} mlx5_0"))
                f.management += 1
    if fmt == "ibnetdiscover":
        text = _ibnetdiscover(g, names, wires, stray_hcas, rnd, switch_ports, quiet)
    else:
        # suzieq's NX-OS lab: spines report `show lldp neighbors | json native`, naming their own
        # ports Eth1/N where the leaves name them Ethernet1/N, and no link rate
        nxos = set(spines) if site is not None and random.Random(seed * 31 + 7).random() < 0.5 else set()
        text = _lldp(g, names, wires, stray_hcas, indices, nxos)
    return Capture(text, f, names)


def _recable_hosts(wires: list[_Wire], role: dict[str, str], nics_of: dict[int, list[str]], f: Faults,
                   rnd: random.Random, shuffle: bool, crossed: int) -> None:
    """Host cables in the site's port order, and HCAs crossed between servers of two leaves."""
    if not (shuffle or crossed):
        return                      # the random stream of every other capture stays as it was
    host_wire = {w.a: w for w in wires if role[w.a] == "nic"}
    if shuffle:
        on_leaf: dict[str, list[_Wire]] = {}
        for w in host_wire.values():
            on_leaf.setdefault(w.b, []).append(w)
        for ws in on_leaf.values():
            ports = [w.pb for w in ws]
            rnd.shuffle(ports)
            for w, p in zip(ws, ports, strict=True):
                w.pb = p
    servers = sorted(nics_of)
    rnd.shuffle(servers)
    busy: set[int] = set()
    for s in servers:
        if len(f.crossed) >= crossed:
            break
        if s in busy:
            continue
        k = rnd.randrange(len(nics_of[s]))
        a = nics_of[s][k]
        other = next((t for t in servers if t not in busy and t != s and len(nics_of[t]) > k
                      and host_wire[nics_of[t][k]].b != host_wire[a].b), None)
        if other is None:
            continue
        b = nics_of[other][k]
        wa, wb = host_wire[a], host_wire[b]
        wa.b, wa.pb, wb.b, wb.pb = wb.b, wb.pb, wa.b, wa.pb
        f.crossed.append((a, b))
        busy |= {s, other}


def _own_uplink_rule(g, wires, leaves, spines, f: Faults, switch_ports: int, rnd: random.Random) -> list[str]:
    """Rewire one whole leaf's uplinks onto fewer spines, as many on each (18 links over 9 spines
    become 3 on each of 6), as X5's site did on purpose: the same uplinks, another pairing. Only
    on a two-tier fabric with every spine there, on a leaf none of whose uplinks is cut or
    degraded, and only when the spines taking them have free ports."""
    role = {n: d["role"] for n, d in g.nodes(data=True)}
    if rnd.random() < 0.3 or any(role[n] != "spine" for n in spines) or set(f.absent_switches) & set(spines):
        return []
    touched = {n for pair in list(f.missing_uplinks) + f.degraded for n in pair}
    candidates = [leaf for leaf in leaves if leaf not in f.absent_switches and leaf not in touched]
    if not candidates:
        return []
    leaf = rnd.choice(candidates)
    ups = [w for w in wires if leaf in (w.a, w.b) and role.get(w.b if w.a == leaf else w.a) == "spine"]
    reached = sorted({w.b if w.a == leaf else w.a for w in ups}, key=lambda n: g.nodes[n]["index"])
    per_pair = len(ups) // max(1, len(reached))
    fewer = [t for t in range(2, len(reached)) if len(ups) % t == 0 and len(ups) // t != per_pair]
    if not fewer:
        return []
    targets = reached[:max(fewer)]
    used: dict[str, set[int]] = {n: set() for n in targets}
    for w in wires:
        for n, p in ((w.a, w.pa), (w.b, w.pb)):
            if n in used:
                used[n].add(p)
    movers = [w for w in ups if (w.b if w.a == leaf else w.a) not in targets]
    free = {n: [p for p in range(1, switch_ports + 1) if p not in used[n]] for n in targets}
    # each target takes as many of the movers as it needs to hold len(ups) / len(targets)
    want = {n: len(ups) // len(targets) - sum(1 for w in ups if n in (w.a, w.b)) for n in targets}
    if any(len(free[n]) < want[n] for n in targets):
        return []
    queue = [n for n in targets for _ in range(want[n])]
    for w, n in zip(movers, queue, strict=True):
        p = free[n].pop(0)
        if w.a == leaf:
            w.b, w.pb = n, p
        else:
            w.a, w.pa = n, p
    return [leaf]


_GBPS = {("NDR", 4): 400, ("NDR", 2): 200, ("NDR", 1): 100, ("HDR", 4): 200, ("XDR", 4): 800}


def _ibnetdiscover(g, names, wires, stray, rnd, switch_ports, quiet) -> str:
    guid = {}

    def gid(key: str) -> str:
        if key not in guid:
            guid[key] = f"{rnd.getrandbits(64):016x}"
        return guid[key]

    role = {n: d["role"] for n, d in g.nodes(data=True)}
    present = {w.a for w in wires} | {w.b for w in wires} | {leaf for leaf, _, _ in stray}
    ports: dict[str, list[tuple[int, str, int, _Wire]]] = {}
    for w in wires:
        ports.setdefault(w.a, []).append((w.pa, w.b, w.pb, w))
        ports.setdefault(w.b, []).append((w.pb, w.a, w.pa, w))
    stray_ids = {}
    for i, (leaf, p, desc) in enumerate(stray):
        sid = f"stray-{i}"
        stray_ids[sid] = desc
        role[sid] = "nic"
        names[sid] = desc
        w = _Wire(sid, 1, leaf, p)
        ports.setdefault(sid, []).append((1, leaf, p, w))
        ports.setdefault(leaf, []).append((p, sid, 1, w))

    def desc(n: str) -> str:
        return names[n] if role[n] == "nic" else f"MF0;{names[n]}:MQM9700/U1"

    def kind(n: str) -> str:
        return "H" if role[n] == "nic" else "S"

    out = ["#", "# Topology file: generated on Mon Nov 24 10:00:00 2026", "#"]
    if not quiet:
        out.insert(0, "ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,25)")
    switches = [n for n in present if role.get(n) in ("leaf", "spine", "core")]
    rnd.shuffle(switches)
    aggs = []
    for n in switches:
        out += ["", "vendid=0x2c9", "devid=0xd2f0", f"sysimgguid=0x{gid(n)}", f"switchguid=0x{gid(n)}({gid(n)})",
                f'Switch\t{switch_ports + 1} "S-{gid(n)}"\t\t# "{desc(n)}" enhanced port 0 lid 1 lmc 0']
        for own, peer, pport, w in sorted(ports.get(n, ())):
            pg = f"({gid(peer)})" if kind(peer) == "H" else ""
            out.append(f'[{own}]\t"{kind(peer)}-{gid(peer)}"[{pport}]{pg}\t\t# "{desc(peer)}" lid 2 '
                       f'{w.width}x{w.speed}')
        agg = gid("agg/" + n)
        aggs.append((n, agg))
        out.append(f'[{switch_ports + 1}]\t"H-{agg}"[1]({agg})\t\t# "Mellanox Technologies Aggregation Node" '
                   f'lid 3 4xNDR')
    if not quiet:
        out.append("src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,3) bad status 110; Connection timed out")
    cas = [n for n in ports if role.get(n) == "nic"]
    rnd.shuffle(cas)
    for n in cas:
        out += ["", "vendid=0x2c9", "devid=0x1021", f"sysimgguid=0x{gid(n)}", f"caguid=0x{gid(n)}",
                f'Ca\t1 "H-{gid(n)}"\t\t# "{desc(n)}"']
        for own, peer, pport, w in sorted(ports[n]):
            out.append(f'[{own}]({gid(n)})\t"S-{gid(peer)}"[{pport}]\t\t# lid 4 lmc 0 "{desc(peer)}" lid 1 '
                       f'{w.width}x{w.speed}')
    for n, agg in aggs:
        out += ["", "vendid=0x2c9", "devid=0xcf09", f"sysimgguid=0x{agg}", f"caguid=0x{agg}",
                f'Ca\t1 "H-{agg}"\t\t# "Mellanox Technologies Aggregation Node"',
                f'[1]({agg})\t"S-{gid(n)}"[{switch_ports + 1}]\t\t# lid 3 lmc 0 "{desc(n)}" lid 1 4xNDR']
    return "\n".join(out) + "\n"


def _lldp(g, names, wires, stray, indices, nxos=frozenset()) -> str:
    role = {n: d["role"] for n, d in g.nodes(data=True)}
    tables: dict[str, list[dict]] = {}
    nxos_rows: dict[str, list[dict]] = {}

    def port_name(n: str, p: int) -> str:
        if role.get(n) == "nic":
            return f"eth{indices[g.nodes[n]['port']]}"
        return f"Ethernet1/{p}" if n in nxos else f"swp{p}"

    def chassis(n: str) -> tuple[str, dict]:
        if role.get(n) == "nic":
            return names[n].split()[0], {"descr": "Ubuntu 22.04", "capability": [{"type": "Station", "enabled": True}]}
        return names[n], {"descr": "NVIDIA Mellanox SN5600", "capability": [{"type": "Bridge", "enabled": True}]}

    def entry(own_port: str, peer: str, peer_port: str, gbps: int) -> dict:
        name, ch = chassis(peer) if peer in role else (peer, {"descr": "Ubuntu 22.04",
                                                               "capability": [{"type": "Station", "enabled": True}]})
        mac = {"type": "mac", "value": "00:00:00:00:00:00"}
        return {own_port: {"via": "LLDP", "chassis": {name: {"id": mac, **ch}},
                           "port": {"id": {"type": "ifname", "value": peer_port},
                                    "auto-negotiation": {"current": f"{gbps}GbaseCR8 - {gbps}G link"}}}}

    for w in wires:
        gbps = _GBPS.get((w.speed, w.width), 400)
        for own, op, peer, pp in ((w.a, w.pa, w.b, w.pb), (w.b, w.pb, w.a, w.pa)):
            if own in nxos:
                nxos_rows.setdefault(names[own], []).append(
                    {"chassis_type": "Locally Assigned", "chassis_id": chassis(peer)[0], "l_port_id": f"Eth1/{op}",
                     "hold_time": 120, "system_capability": "BR", "enabled_capability": "BR",
                     "port_type": "Interface Name", "port_id": port_name(peer, pp)})
            elif role.get(own) != "nic":
                tables.setdefault(names[own], []).append(entry(port_name(own, op), peer, port_name(peer, pp), gbps))
    for leaf, p, desc in stray:
        host = desc.split()[0]
        tables.setdefault(names[leaf], []).append(entry(f"swp{p}", host, "eth0", 400))
    records = [{"hostname": h, "cmd": "lldpctl -f json", "data": json.dumps({"lldp": {"interface": t}})}
               for h, t in tables.items()]
    records += [{"hostname": h, "devtype": "nxos", "cmd": "show lldp neighbors | json native",
                 "data": json.dumps({"neigh_hdr": "neigh_hdr", "TABLE_nbor": {"ROW_nbor": rows}})}
                for h, rows in nxos_rows.items()]
    return json.dumps(records)
