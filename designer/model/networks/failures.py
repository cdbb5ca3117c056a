"""What failing named switches of the cluster's other networks does (`whatif --fail stor-leaf-01a`).

Names are those of the device expansion (devices.py): `stor-leaf-01a`, `conv-spine-02`,
`oob-r003-1`, globs allowed. For a leaf pair network: a pair with one leaf down leaves its servers
at half that network's bandwidth; with both down its servers lose the network. Spines down take
their share of the leaf uplinks; all of them leave each leaf pair on its own. Out-of-band: a rack
whose every management switch is down has its BMCs and PDUs unreachable.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.devices import NetDevice, switch_devices
from designer.model.networks.sizing import NetworkSize


@dataclass(frozen=True)
class NetworkFailure:
    network: str
    failed: tuple[str, ...]
    effects: tuple[str, ...]
    servers_cut: int
    servers_degraded: int

    def to_json(self) -> dict[str, object]:
        return {"network": self.network, "failed": list(self.failed), "effects": list(self.effects),
                "servers_cut": self.servers_cut, "servers_degraded": self.servers_degraded}


def _devices(sizes: tuple[NetworkSize, ...]) -> dict[str, list[NetDevice]]:
    """Each network's switches by name, as the exports name them; their links are not needed (at
    131,072 GPUs expanding them took most of a `whatif --fail`)."""
    return {size.role: [d for d in switch_devices(size) if d.switch] for size in sizes}


def match_network_switches(tokens: list[str],
                           sizes: tuple[NetworkSize, ...]) -> tuple[dict[str, set[str]], list[str]]:
    """(failed switch names by network, the tokens that name none of them)."""
    by_network = _devices(sizes)
    names = {d.name: role for role, devices in by_network.items() for d in devices}
    failed: dict[str, set[str]] = {}
    rest: list[str] = []
    for token in tokens:
        matched = fnmatch.filter(names, token) if any(ch in token for ch in "*?[") else \
            [token] if token in names else []
        if not matched:
            rest.append(token)
        for name in matched:
            failed.setdefault(names[name], set()).add(name)
    return failed, rest


def network_failures(failed: dict[str, set[str]], sizes: tuple[NetworkSize, ...],
                     servers: int) -> tuple[NetworkFailure, ...]:
    by_network = _devices(sizes)
    out: list[NetworkFailure] = []
    for size in sizes:
        down = failed.get(size.role, set())
        if not down:
            continue
        devices = by_network[size.role]
        effects: list[str] = []
        cut = degraded = 0
        if size.template == "per-rack":
            racks: dict[str, list[str]] = {}
            for d in devices:
                if d.name.startswith("oob-r"):
                    racks.setdefault(d.name.rsplit("-", 1)[0], []).append(d.name)
            dark = [r for r, names in racks.items() if all(n in down for n in names)]
            part = [r for r, names in racks.items() if any(n in down for n in names) and r not in dark]
            if dark:
                effects.append(f"{len(dark)} rack(s) with every management switch down: their BMCs and PDUs "
                               "are unreachable; running jobs go on")
            if part:
                effects.append(f"{len(part)} rack(s) lose part of their management ports")
            net_switches = [n for n in down if n.startswith("oob-net-")]
            if net_switches:
                effects.append(f"{len(net_switches)} network-rack management switch(es) down: the switches "
                               "they manage are reachable in-band only")
        else:
            per_pair = int(size.extra.get("servers_per_pair", servers))
            leaves = [d.name for d in devices if d.tier == "leaf"]
            for k in range(0, len(leaves), 2):
                pair = leaves[k:k + 2]
                first = (k // 2) * per_pair
                served = max(0, min(servers, first + per_pair) - first)
                lost = sum(1 for n in pair if n in down)
                if lost == 2:
                    cut += served
                elif lost == 1:
                    degraded += served
            if cut:
                effects.append(f"{cut:,} servers lose {size.label.lower()}: both leaves of their pair are down")
            if degraded:
                effects.append(f"{degraded:,} servers run on one port of the pair: half their "
                               f"{size.label.lower()} bandwidth")
            spines = [d.name for d in devices if d.tier == "spine"]
            spines_down = sum(1 for n in spines if n in down)
            if spines_down == len(spines) and spines:
                effects.append("every spine is down: each leaf pair is cut off from the others")
            elif spines_down:
                effects.append(f"{spines_down} of {len(spines)} spines down: leaf uplink bandwidth drops to "
                               f"{(len(spines) - spines_down) / len(spines):.0%}")
            storage = [d.name for d in devices if d.tier == "storage leaf" and d.name in down]
            if storage:
                effects.append(f"{len(storage)} storage leaf(s) down: their appliance ports go dark")
        out.append(NetworkFailure(size.role, tuple(sorted(down)), tuple(effects), cut, degraded))
    # A segment shares its carrier's failures: the same servers lose or halve it.
    for size in sizes:
        hit = next((f for f in out if f.network == size.carried_by), None) if size.template == "segment" else None
        if hit is not None and (hit.servers_cut or hit.servers_degraded):
            out.append(NetworkFailure(size.role, (), (
                f"{size.label} rides {ROLE_LABELS.get(size.carried_by, size.carried_by)}: the same "
                f"{hit.servers_cut:,} servers lose it and {hit.servers_degraded:,} run on half its ports",),
                hit.servers_cut, hit.servers_degraded))
    return tuple(out)
