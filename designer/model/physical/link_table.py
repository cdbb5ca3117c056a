"""Every link of a design with its cages, run, medium and cable, as arrays, for cabling exports.

The bill of materials counts the links by class (closed_form_bom.py) and an edited design's by
its edits (edited_bom.py); a cabling export (UFM's NDT) needs each link's line. This asks those
same passes for their per-link arrays instead of walking the device graph link by link
(media.py `compute_physical`), and stacks the devices into their racks as
io/export_source.py `ExportSource.elevation` does, from the positions by device code.
The arrays are in the device graph's edge order, the order of `compute_physical`'s links.
Edits that name a server's NIC are left to the link-by-link path (`link_table` returns None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog
from designer.catalog.entries import Cable
from designer.model.physical.closed_form_bom import (
    MEDIA_CODES,
    TIERS,
    _Cages,
    _generate,
    counts_from_links,
    template_cages,
)
from designer.model.physical.edited_bom import edited_physical
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.template_layout import template_positions

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived
    from designer.model.topology.metrics import Finding


@dataclass
class LinkTable:
    links: LinkArrays       # tier (index into TIERS), Gb/s, device codes and ports of each end
    cages: _Cages
    dev: DeviceCodes        # device codes: servers, then per plane leaves, spines, cores
    row: np.ndarray         # floor row and slot of every device code
    slot: np.ndarray
    removed: set[int]       # device codes the edits removed
    length: np.ndarray      # estimated run per link, m
    medium: np.ndarray      # index into MEDIA_CODES
    cable: np.ndarray       # index into `cables`, -1 for none
    sold: np.ndarray        # stock length bought per link, m (0 for none)
    cables: list[Cable]
    a_part: np.ndarray      # transceiver at each end, index into `parts` (-1 for none)
    b_part: np.ndarray
    parts: list[str]        # transceiver ids
    findings: list[Finding]  # the physical layer's (media not found, forced media, custom lengths)

    tiers = TIERS
    media = MEDIA_CODES


def link_table(derived: Derived, catalog: Catalog) -> LinkTable | None:
    """The links of the design as arrays; None when an edit names a NIC."""
    found: dict[str, Any] = {}
    if derived.design.edits:
        counts = edited_physical(derived, catalog, per_link=found)
        if counts is None:
            return None
    else:
        r, plan, design = derived.resolved, derived.plan, derived.design
        dev = DeviceCodes(design.cluster.servers, plan, r.planes)
        links, server_of_ep, leaf_of = _generate(r, plan, dev)
        row, slot, layout = template_positions(design.floorplan, design.cluster.servers, plan, r.planes, r.rails,
                                               dev, leaf_of, server_of_ep)
        cages = template_cages(derived, catalog, links)
        found.update(links=links, cages=cages, dev=dev, row=row, slot=slot, removed=set())
        counts = counts_from_links(derived, catalog, links, cages, dev, row, slot, layout, found)
    if "length" not in found:   # every link edited away
        n = 0
        found.update(length=np.zeros(n), medium=np.zeros(n, np.int64), cable=np.full(n, -1, np.int64),
                     sold=np.zeros(n), cables=[], a_part=np.zeros(n, np.int64), b_part=np.zeros(n, np.int64),
                     parts=[])
    return LinkTable(**found, findings=list(counts.findings))


def elevation(table: LinkTable, server_units: int, switch_units: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(rack code, lowest rack unit from 1) of every device code; the rack code is row * width +
    slot (see `rack_label`). Servers fill each rack from the bottom up in server order; the
    rack's switches sit above them, top tier first, then by plane and index.
    `switch_units` gives the rack units of each tier's switch ("leaf", "spine", "core")."""
    dev = table.dev
    codes = np.arange(dev.total, dtype=np.int64)
    if table.removed:
        codes = codes[~np.isin(codes, np.fromiter(table.removed, dtype=np.int64))]
    is_switch = codes >= dev.servers
    local = codes - dev.servers
    plane = np.where(is_switch, local // max(dev.per_plane, 1), 0)
    within = local - plane * dev.per_plane
    plan = dev.plan
    role = np.where(within < plan.leaves, 1, np.where(within < plan.leaves + plan.spines, 2, 3))
    index = np.where(role == 1, within, np.where(role == 2, within - plan.leaves, within - plan.leaves - plan.spines))
    level = np.where(is_switch, role, 0)
    index = np.where(is_switch, index, codes)
    row, slot = table.row[codes], table.slot[codes]
    order = np.lexsort((index, plane, -level, is_switch, slot, row))
    units = np.where(is_switch, np.select([role == 1, role == 2], [switch_units["leaf"], switch_units["spine"]],
                                          switch_units["core"]), server_units)[order]
    width = int(table.slot.max(initial=0)) + 1
    rack = (row * width + slot)[order]
    ends = np.cumsum(units)
    first_in_rack = np.r_[True, rack[1:] != rack[:-1]]
    before = np.maximum.accumulate(np.where(first_in_rack, ends - units, 0))
    start = ends - units - before + 1
    rack_of = np.zeros(dev.total, dtype=np.int64)
    unit_of = np.zeros(dev.total, dtype=np.int64)
    rack_of[codes[order]] = rack
    unit_of[codes[order]] = start
    return rack_of, unit_of


def rack_label(code: int, width: int) -> str:
    """A rack code of `elevation` as cabling plans label it (floor_layout.Position.rack)."""
    row, slot = divmod(code, width)
    return f"R{row + 1}.{slot + 1:02d}"
