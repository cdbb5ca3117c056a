"""The server model a capture shows, from everything it says together.

Evidence: the host names (`dgx-070`, `r07-p1-dgx-070-c01` name a DGX; `gb200-...` a tray), the
compute HCAs each host has in this capture, the HCAs' and switches' device ids and the host
links' rate. A host named like a DGX with 4 compute HCAs in this plane is a DGX cabled on 4 of
its 8 rails here, never a 4-GPU tray. Where the evidence leaves more than one catalog model, the
answer is "not decided" with the models left, and the design uses a generic server with the
HCAs seen, so nothing downstream rests on a guess.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from designer.catalog import Catalog
from designer.catalog.device_ids import device_ids
from designer.catalog.entries import Server
from designer.model.common.arrays import sorted_distinct
from designer.model.intent.design import ClusterSpec
from designer.model.topology.asbuilt import Device

# Host-name words that name a server family, and the catalog ids they point to (by prefix).
_FAMILY_WORDS = (
    (re.compile(r"(?<![a-z])dgx", re.I), ("dgx-",)),
    (re.compile(r"(?<![a-z])hgx", re.I), ("hgx-",)),
    (re.compile(r"gb200|nvl72", re.I), ("gb200-",)),
    (re.compile(r"gb300", re.I), ("gb300-",)),
    (re.compile(r"mi300", re.I), ("mi300x",)),
    (re.compile(r"mi325", re.I), ("mi325x",)),
    (re.compile(r"mi355", re.I), ("mi355x",)),
)
# GPU generations a host name may carry, to tell DGX H100 from DGX B200.
_GPU_WORDS = (("h100", "H100"), ("h200", "H100"), ("b200", "B200"), ("b300", "B300"), ("a100", "A100"))


@dataclass(frozen=True)
class ServerEvidence:
    decided: str | None          # the catalog server id, or None when the evidence leaves several
    candidates: tuple[str, ...]  # catalog server ids the evidence leaves
    value: str                   # "DGX H100" or "not decided: DGX H100 or HGX H100, 4 of 8 HCAs in this plane"
    confidence: str
    why: str
    gpus: int | None             # GPUs per server when every candidate agrees


def read_server(hosts: dict[str, list[Device]], ports: int, gbps: int, catalog: Catalog,
                family: str = "infiniband") -> ServerEvidence:
    """The server model of the compute hosts (`hosts`: host name -> its HCAs in the capture)."""
    return read_server_counts(list(hosts), Counter(d.devid for hcas in hosts.values() for d in hcas if d.devid),
                              ports, gbps, catalog, family)


def _name_hits(names: list[str]) -> tuple[Counter[str], Counter[str]]:
    """(family prefix -> host names naming it, GPU label -> host names naming it). At 131,072
    GPUs there are 16,384 names: each word is searched once over all of them, one a line, and
    its matches counted by line (a name that names a word twice counts once)."""
    word_hits: Counter[str] = Counter()
    gpu_hits: Counter[str] = Counter()
    if any("\n" in name for name in names):       # no line of its own: name by name
        for name in names:
            for pattern, prefixes in _FAMILY_WORDS:
                if pattern.search(name):
                    word_hits[prefixes[0]] += 1
        gpu_hits.update(label for name in names for word, label in _GPU_WORDS if word in name.lower())
        return word_hits, gpu_hits
    joined = "\n".join(names)
    lowered = joined.lower()

    # Each text's line breaks found once, not once per word (lowering may change a name's length).
    joined_breaks, lowered_breaks = (np.array([m.start() for m in _BREAK.finditer(text)], dtype=np.int64)
                                     for text in (joined, lowered))

    def lines_with(found: list[int], breaks: np.ndarray) -> np.ndarray:
        return sorted_distinct(np.searchsorted(breaks, np.array(found, dtype=np.int64)))

    # Counted in the order the name-by-name count meets them (first name, then word order):
    # most_common breaks ties by that order.
    met: list[tuple[int, int, Counter[str], str, int]] = []
    for k, (pattern, prefixes) in enumerate(_FAMILY_WORDS):
        lines = lines_with([m.start() for m in pattern.finditer(joined)], joined_breaks)
        if len(lines):
            met.append((int(lines[0]), k, word_hits, prefixes[0], len(lines)))
    for k, (word, label) in enumerate(_GPU_WORDS):
        lines = lines_with([m.start() for m in re.finditer(re.escape(word), lowered)], lowered_breaks)
        if len(lines):
            met.append((int(lines[0]), k, gpu_hits, label, len(lines)))
    for _, _, hits, key, count in sorted(met, key=lambda m: (m[2] is gpu_hits, m[0], m[1])):
        hits[key] += count
    return word_hits, gpu_hits


_BREAK = re.compile("\n")


def read_server_counts(names: list[str], nic_ids: Counter[int], ports: int, gbps: int, catalog: Catalog,
                       family: str = "infiniband") -> ServerEvidence:
    """The server model of the compute hosts named `names`, whose HCAs report the device ids
    counted in `nic_ids` (host by host, as `read_server` counts them)."""
    servers: dict[str, Server] = getattr(catalog, "servers", {})
    word_hits, gpu_hits = _name_hits(names)
    nic_names = [n for n in (_nic_name(devid) for devid, _ in nic_ids.most_common(2)) if n]
    evidence = [f"{len(names)} host names"]
    family_prefix = None
    if word_hits:
        family_prefix, n = word_hits.most_common(1)[0]
        evidence.append(f"{n} named like {family_prefix.rstrip('-').upper()}")
    evidence.append(f"{ports} compute {'NIC ports' if family == 'ethernet' else 'HCAs'} per host seen")
    if gbps:
        evidence.append(f"{gbps}G host links")
    if nic_names:
        evidence.append("NIC " + ", ".join(nic_names))
    fits = [s for s in servers.values() if s.port_gbps == gbps and not s.id.startswith("generic")
            and (not s.fabric_families or family in s.fabric_families)]
    if family_prefix:
        fits = [s for s in fits if s.id.startswith(family_prefix)]
    # A host name that names no family leaves every model with that many HCAs or a multiple (an
    # 8-HCA server cabled on 4 rails of this plane looks like a 4-HCA tray): several remain, and
    # the answer is "not decided" rather than the one model with exactly the HCAs seen.
    if gpu_hits:
        gpu = gpu_hits.most_common(1)[0][0]
        evidence.append(f"names say {gpu}")
        fits = [s for s in fits if gpu.upper() in f"{s.name} {s.gpu}".upper()] or fits
    # A model with more HCAs than seen is a server cabled on some of its rails here (one plane of
    # several, or HCAs down); fewer than seen cannot be.
    fits = [s for s in fits if s.compute_ports >= ports and ports > 0 and s.compute_ports % ports == 0]
    why = "; ".join(evidence)
    ids = tuple(sorted(s.id for s in fits))
    gpu_counts = {s.gpus for s in fits}
    gpus = gpu_counts.pop() if len(gpu_counts) == 1 else None
    if len(fits) == 1:
        s = fits[0]
        share = "" if s.compute_ports == ports else f", cabled on {ports} of its {s.compute_ports} rails here"
        return ServerEvidence(s.id, ids, f"{s.name}{share}", "high" if family_prefix else "medium", why, s.gpus)
    if not fits:
        return ServerEvidence(None, (), f"not decided: no catalog server has {ports} x {gbps}G compute ports",
                              "low", why, None)
    models = " or ".join(s.name for s in sorted(fits, key=lambda s: s.id)[:4])
    total = {s.compute_ports for s in fits}
    share = f", {ports} of {total.pop()} HCAs in this plane" if len(total) == 1 and ports not in total else ""
    return ServerEvidence(None, ids, f"not decided: {models}{share}", "low", why, gpus)


def at_card_rate(devid: int, gbps: float) -> bool:
    """True when an HCA runs at its own top rate (a DDR ConnectX at 20G on a QDR switch): slower
    than the fabric, but no fault of the cable or the port. Only HCAs whose device id has a
    published top rate (resources/ids/infiniband.toml `max_gbps`) are recognised."""
    known = device_ids().by_devid(devid)
    return known is not None and known.kind == "hca" and 0 < known.max_gbps <= gbps


def older_cards(hcas: Counter[int], gbps: int) -> tuple[int, str]:
    """(how many, which) of the HCAs (their device ids counted, in the order they come) are cards
    whose top rate is below the fabric's `gbps`."""
    slow = Counter({devid: n for devid, n in hcas.items() if devid and 0 < _top_rate(devid) < gbps})
    names = ", ".join(f"{n} x devid 0x{devid:04x} ({_nic_name(devid)}, {_top_rate(devid)}G)"
                      for devid, n in slow.most_common())
    return sum(slow.values()), names


def older_nic(hcas: Counter[int], catalog: Catalog, gbps: int) -> str | None:
    """The catalog HCA of an older generation (end-of-life) that most of the HCAs (their device
    ids counted, in the order they come) are, when it runs `gbps`: the design's NIC then is the
    card the site has, not a ConnectX-7."""
    nics = getattr(catalog, "nics", {})
    for devid, _ in Counter({devid: n for devid, n in hcas.items() if devid}).most_common(1):
        known = device_ids().by_devid(devid)
        for nic_id in known.catalog if known is not None and known.kind == "hca" else ():
            nic = nics.get(nic_id)
            if nic is not None and nic.status == "end-of-life" and any(
                    m.family == "infiniband" and m.gbps == gbps for m in nic.modes):
                return nic_id
    return None


def _top_rate(devid: int) -> int:
    known = device_ids().by_devid(devid)
    return known.max_gbps if known is not None and known.kind == "hca" else 0


def _nic_name(devid: int) -> str:
    known = device_ids().by_devid(devid)
    return known.name if known is not None and known.kind != "switch" else ""


def cluster_of(evidence: ServerEvidence, catalog: Catalog, ports: int, gbps: int) -> ClusterSpec:
    """The design's servers: the decided model cabled on the ports seen, else a generic server
    with those ports (and the candidates' GPU count when they agree)."""
    servers = getattr(catalog, "servers", {})
    if evidence.decided is not None and evidence.decided in servers:
        s = servers[evidence.decided]
        return ClusterSpec(server=s.id, ports_per_server=None if s.compute_ports == ports else ports)
    return ClusterSpec(server="generic-8gpu", ports_per_server=ports, port_gbps=gbps,
                       gpus_per_server=evidence.gpus or max(1, ports))

