"""NetBox bulk-import CSV files: the design as data-centre inventory.

A folder of CSV files, one per object type, numbered in the order NetBox needs them (each
refers only to objects of the files before it). Paste or upload each under its object type's
Import page (sites, manufacturers, device roles, device types, racks, devices, interfaces,
cables). Field names follow NetBox's import forms (netbox dcim/forms/bulk_import.py, v4):
- devices: name, role, manufacturer, device_type, site, rack, position, face, status;
- interfaces: device, name, label, type, speed (kbps), description; the type is NetBox's slug
  (`infiniband-ndr`, `infiniband-xdr`, `400gbase-x-osfp`, `800gbase-x-osfp`, ...); with
  `netbox_ib_lanes`, InfiniBand ports get the 4X and 2X types of recent NetBox releases
  (`infiniband-ndr-4x` for a 400G NDR port, `infiniband-ndr-2x` for NDR200);
- cables: side_a_device, side_a_type (`dcim.interface`), side_a_name, the same for side b,
  type (`dac-passive`, `dac-active`, `aoc`, `mmf`, `smf`, or the fiber grade when the catalog
  names one, such as `mmf-om4`), status, label, length, length_unit.
Racks and rack units come from the floor plan (servers from the bottom of each rack, switches
above them); cable lengths are the stock lengths of the cabling plan. Everything is `planned`.
Every cell a user controls is neutralised against spreadsheet formulas (designer.io.csv_cells).
"""

from __future__ import annotations

import re

from designer import __version__
from designer.io.csv_cells import rows_to_csv, safe_cell
from designer.io.export_source import DEFAULT_RACK_UNITS, ExportSource
from designer.io.markup import one_line, slug
from designer.model.physical.media import End, LinkPlan, Physical

FILES = ("01-sites.csv", "02-manufacturers.csv", "03-device-roles.csv", "04-device-types.csv", "05-racks.csv",
         "06-devices.csv", "07-interfaces.csv", "08-cables.csv")
ROLES = {"server": ("GPU server", "4caf50"), "leaf": ("Leaf switch", "2196f3"),
         "spine": ("Spine switch", "3f51b5"), "core": ("Core switch", "9c27b0")}
INFINIBAND_TYPES = {"HDR": "infiniband-hdr", "NDR": "infiniband-ndr", "XDR": "infiniband-xdr"}
# NetBox's plain InfiniBand types are labelled with the rate of one lane (NDR: 100 Gbps); recent
# releases add 4X and 2X types for the usual 4-lane ports and 2-lane splits (netbox #23016, #23163).
INFINIBAND_LANE_GBPS = {"HDR": 50, "NDR": 100, "XDR": 200}
# Ethernet interface types by (speed in Gb/s, cage), NetBox InterfaceTypeChoices.
ETHERNET_TYPES = {
    (100, "QSFP28"): "100gbase-x-qsfp28", (200, "QSFP56"): "200gbase-x-qsfp56",
    (200, "QSFP-DD"): "200gbase-x-qsfpdd", (400, "OSFP"): "400gbase-x-osfp",
    (400, "QSFP112"): "400gbase-x-qsfp112", (400, "QSFP-DD"): "400gbase-x-qsfpdd",
    (800, "OSFP"): "800gbase-x-osfp", (800, "QSFP-DD"): "800gbase-x-qsfpdd",
}
CABLE_TYPES = {"dac": "dac-passive", "acc": "dac-active", "aoc": "aoc", "mmf": "mmf", "smf": "smf"}
FIBER_GRADES = {"OM3": "mmf-om3", "OM4": "mmf-om4", "OM5": "mmf-om5", "OS1": "smf-os1", "OS2": "smf-os2"}


def interface_type(src: ExportSource, gbps: int, cage_type: str) -> str:
    if src.family == "infiniband":
        generation = src.technology.generation.upper()
        slug = INFINIBAND_TYPES.get(generation, "other")
        lane = INFINIBAND_LANE_GBPS.get(generation)
        if src.options.netbox_ib_lanes and lane and gbps // lane in (2, 4) and gbps % lane == 0:
            slug += f"-{gbps // lane}x"
        return slug
    return ETHERNET_TYPES.get((gbps, cage_type.upper()), "other")


def cable_type(src: ExportSource, link: LinkPlan) -> str:
    if link.medium in ("mmf", "smf"):
        cable = src.catalog.cables.get(link.cable)
        grade = re.search(r"\b(OM[345]|OS[12])\b", cable.name) if cable else None
        if grade and FIBER_GRADES[grade.group(1)].startswith(link.medium):
            return FIBER_GRADES[grade.group(1)]
    return CABLE_TYPES.get(link.medium, "")


def _interface_name(end: End, host: bool) -> str:
    """'nic-5' on a server (as on the cabling plan), 'Port 17' on a switch (as UFM names it)."""
    return end.port if host else f"Port {end.port}"


def netbox_files(src: ExportSource) -> dict[str, str]:
    site = one_line(src.options.site or src.name, 100) or "Fabric"
    phys = src.physical
    links = src.physical_links()
    elevation = src.elevation
    heights = src.rack_heights
    g = src.graph
    server = src.server_model

    devices: dict[str, tuple[str, str, str]] = {}    # device -> (role key, manufacturer, model name)
    for link in links:
        for end in (link.a, link.b):
            if end.device in devices:
                continue
            if end.host:
                devices[end.device] = ("server", server.vendor or "Generic", server.name)
            else:
                d = g.nodes[end.device]
                sw = src.switch_model(d["model"])
                devices[end.device] = (d["role"], sw.vendor or "Generic", sw.name)
    order = sorted(devices, key=lambda dev: (elevation[dev][0], elevation[dev][1]))

    manufacturers = sorted({m for _, m, _ in devices.values()})
    types: dict[tuple[str, str], int] = {}
    for dev, (_, maker, model) in devices.items():
        types[(maker, model)] = src.device_units(dev)
    racks = sorted({elevation[dev][0] for dev in devices})

    out = {FILES[0]: [["name", "slug", "status", "description"],
                      [safe_cell(site), slug(site), "planned", f"Fabric Designer {__version__}"]]}
    out[FILES[1]] = [["name", "slug"]] + [[safe_cell(m), slug(m)] for m in manufacturers]
    used_roles = sorted({role for role, _, _ in devices.values()}, key=list(ROLES).index)
    out[FILES[2]] = [["name", "slug", "color"]] + [[ROLES[r][0], slug(ROLES[r][0]), ROLES[r][1]] for r in used_roles]
    out[FILES[3]] = [["manufacturer", "model", "slug", "u_height"]] + [
        [safe_cell(maker), safe_cell(model), slug(f"{maker}-{model}"), str(units)]
        for (maker, model), units in sorted(types.items())]
    out[FILES[4]] = [["site", "name", "status", "u_height"]] + [
        [safe_cell(site), rack, "planned", str(heights[rack])] for rack in racks]
    rows = [["name", "role", "manufacturer", "device_type", "site", "rack", "position", "face", "status"]]
    for dev in order:
        role, maker, model = devices[dev]
        rack, unit = elevation[dev]
        rows.append([safe_cell(src.device_name(dev)), ROLES[role][0], safe_cell(maker), safe_cell(model),
                     safe_cell(site), rack, str(unit), "front", "planned"])
    out[FILES[5]] = rows

    interfaces = [["device", "name", "label", "type", "speed", "description"]]
    cables = [["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
               "type", "status", "label", "length", "length_unit"]]
    for link in links:
        ends = []
        for end, other in ((link.a, link.b), (link.b, link.a)):
            name = _interface_name(end, end.host)
            ends.append(name)
            interfaces.append([safe_cell(src.device_name(end.device)), safe_cell(name), end.cage_label,
                               interface_type(src, link.gbps, end.cage_type), str(link.gbps * 1_000_000),
                               safe_cell(f"{link.tier} to {src.device_name(other.device)}")])
        length = link.cable_length_m or link.length_m
        cables.append([safe_cell(src.device_name(link.a.device)), "dcim.interface", safe_cell(ends[0]),
                       safe_cell(src.device_name(link.b.device)), "dcim.interface", safe_cell(ends[1]),
                       cable_type(src, link), "planned", f"L{link.index + 1}", f"{length:g}", "m"])
    out[FILES[6]] = interfaces
    out[FILES[7]] = cables
    files = {name: rows_to_csv(rows) for name, rows in out.items()}
    files["README.txt"] = _readme(src, site, phys, heights)
    # The cluster's other networks, in files numbered after these (none for a compute-only design).
    from designer.io.network_netbox import network_netbox_files  # it builds on this module

    files.update(network_netbox_files(src))
    return files


def _readme(src: ExportSource, site: str, phys: Physical, heights: dict[str, int]) -> str:
    tall = [rack for rack, h in heights.items() if h > DEFAULT_RACK_UNITS]
    lines = [f"NetBox import of \"{one_line(src.name, 120)}\" ({src.view_label}), written by Fabric Designer"
             f" {__version__}.",
             "",
             "Import the files in their numbered order, each on the Import page of its object type",
             "(Organization > Sites, Devices > Manufacturers, Device Roles, Device Types, Racks > Racks,",
             "Devices > Devices, Interfaces, Connections > Cables).",
             f"Everything is created with status 'planned' in site '{site}'.",
             "Racks and rack units follow the design's floor plan: servers fill each rack from U1 up, switches",
             f"sit above them. Racks are {DEFAULT_RACK_UNITS}U unless the floor plan stacks more into one.",
             "Cable lengths are the stock lengths of the cabling plan (estimated run where none is sold).",
             "Server interfaces are named as on the cabling plan (nic-K); switch interfaces 'Port N' with",
             "the cage position (cage/lane) as their label."]
    if tall:
        lines.append(f"Note: {len(tall)} rack(s) need more than {DEFAULT_RACK_UNITS}U for what the floor plan puts "
                     f"in them ({', '.join(sorted(tall)[:5])}); lower 'switches per network rack' or 'servers "
                     "per rack' in the floor plan.")
    for finding in phys.findings:
        if finding.severity == "error":
            lines.append(f"Warning: {one_line(finding.message, 300)}")
    return "\r\n".join(lines) + "\r\n"
