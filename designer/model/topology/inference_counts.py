"""The capture as the counts inference reads: devices and links as arrays, with each device's role.

A 131,072-GPU capture has 151,552 devices and 403,456 links; inference (inference.py) asks
how many of each role there are, the rates per tier, the hosts per leaf, the HCA indices per
leaf, the HCAs per host and the links per switch pair. Each is a count over these arrays, read
from the bulk reader's columns (`asbuilt.device_table`, `asbuilt.link_ends`) or, for a capture
made of objects, from its objects once. Where a count feeds a "most common" choice, its values
come in the order the link-by-link reading met them, so a tie is broken as it always was.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from designer.model.topology.asbuilt import AsBuilt, ColumnDevices, device_table, link_ends

# Role codes: 0 for an isolated switch or a device no block describes.
LEAF, SPINE, CORE, NIC, AGGREGATION = 1, 2, 3, 4, 5
_ROLE_CODE = {"leaf": LEAF, "spine": SPINE, "core": CORE, "nic": NIC, "aggregation": AGGREGATION}


@dataclass(frozen=True)
class CaptureCounts:
    """Row i of the device arrays is device `ids[i]`; the last row (index len(ids)) stands for
    any device a link names that the capture does not describe. a, b are the links' ends as rows."""

    ids: list[str]
    index: dict[str, int]
    role: np.ndarray
    host_code: np.ndarray
    hosts: list[str]
    hca: np.ndarray
    devid: np.ndarray
    a: np.ndarray
    b: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    gbps: np.ndarray

    def rows(self, role: int) -> np.ndarray:
        """The devices of a role, in the capture's order."""
        return np.flatnonzero(self.role == role)


def capture_counts(fabric: AsBuilt, roles: dict[str, str], role_codes: np.ndarray | None = None) -> CaptureCounts:
    """The counts' arrays; `role_codes` (per row, and 0 for the last) are the roles already
    numbered, where the caller has them."""
    table = device_table(fabric)
    n = len(table.ids)
    ends = link_ends(fabric)
    if ends is not None:
        a, b, pa, pb, gbps = ends.a, ends.b, ends.pa, ends.pb, ends.gbps
    else:   # a link to a device the capture does not describe: that end is the last row
        links, index = fabric.links, table.index
        a = np.array([index.get(w.a, n) for w in links], dtype=np.int64)
        b = np.array([index.get(w.b, n) for w in links], dtype=np.int64)
        pa = np.array([w.pa for w in links], dtype=np.int64)
        pb = np.array([w.pb for w in links], dtype=np.int64)
        gbps = np.array([w.gbps for w in links], dtype=np.float64)
    role = role_codes if role_codes is not None and ends is not None else np.array(
        [_ROLE_CODE.get(roles.get(d, ""), 0) for d in table.ids] + [0], dtype=np.int8)
    return CaptureCounts(table.ids, table.index, role, np.append(table.host_code, -1), table.hosts,
                         np.append(table.hca, -1), np.append(table.devid, 0), a, b, pa, pb, gbps)


def counts_in_order(values: np.ndarray) -> Counter[int]:
    """Counter(values), its keys in the order they first come (as a Counter fed one by one)."""
    if not len(values):
        return Counter()
    keys, first, counts = np.unique(values, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return Counter(dict(zip(keys[order].tolist(), counts[order].tolist(), strict=True)))


def fastest_mode(rates: np.ndarray, default: float) -> float:
    """The most common rate, the faster of a tie: of one 4xSDR and one 1xSDR uplink, the 1x one
    is the degraded link, not the design."""
    if not len(rates):
        return default
    values, counts = np.unique(rates, return_counts=True)
    return float(values[counts == counts.max()].max())


def pair_keys(counts: CaptureCounts, links: np.ndarray) -> np.ndarray:
    """One key per unordered pair of ends of the given links (a cable from either end)."""
    a, b = counts.a[links], counts.b[links]
    keys: np.ndarray = np.minimum(a, b) * (len(counts.ids) + 1) + np.maximum(a, b)
    return keys


def leaf_ends_in_order(counts: CaptureCounts, links: np.ndarray) -> np.ndarray:
    """The leaves at the given links' ends, link by link, the first end before the second."""
    ends = np.stack([counts.a[links], counts.b[links]], axis=1).ravel()
    leaves: np.ndarray = ends[counts.role[ends] == LEAF]
    return leaves


def host_key_rows(counts: CaptureCounts, keys: set[str]) -> np.ndarray:
    """Which rows are HCAs whose server (or, without one, whose own id) is in `keys`."""
    mask = np.zeros(len(counts.role), dtype=bool)
    codes = [i for i, h in enumerate(counts.hosts) if h in keys]
    if codes:
        mask |= np.isin(counts.host_code, codes)
    own = [counts.index[k] for k in keys if k in counts.index]
    if own:
        alone = np.zeros(len(counts.role), dtype=bool)
        alone[own] = True
        mask |= alone & (counts.host_code < 0)
    rows: np.ndarray = mask & (counts.role == NIC)
    return rows


class SwitchFacts(NamedTuple):
    """What inference reads of a switch: its name, part number, device id and description."""

    name: str
    part: str
    devid: int
    description: str


def switch_facts(fabric: AsBuilt, ids: list[str], rows: np.ndarray) -> list[SwitchFacts]:
    """The switches at `rows` of `device_table(fabric)` (ids `ids`), in that order: read from the
    reader's columns where the capture is columns (20,480 switches at 131,072 GPUs, no `Device`
    made), else from its devices."""
    devices = fabric.devices
    picked = rows.tolist()
    if isinstance(devices, ColumnDevices):      # its rows are the table's rows, in its order
        c = devices.columns
        name, part, description = c.name, c.part, c.description
        return list(map(SwitchFacts, [name[r] for r in picked], [part[r] for r in picked], c.devid[rows].tolist(),
                        [description[r] for r in picked]))
    return [SwitchFacts(d.name, d.part, d.devid, d.description) for d in (devices[ids[r]] for r in picked)]
