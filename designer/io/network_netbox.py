"""NetBox bulk-import CSV files for the cluster's other networks, beside the compute fabric's.

Numbered after the compute fabric's files (designer/io/netbox_csv.py), in the order NetBox needs
them: manufacturers, device roles and device types of the networks' switches, the devices
(switches, PDUs, storage appliances and other management endpoints), their interfaces and the
cables. Servers are the compute fabric's devices, cabled once per role. Everything is `planned`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from itertools import filterfalse

from designer.io.csv_cells import csv_field, rows_to_csv, safe_cell, safe_field
from designer.io.export_source import ExportError, ExportSource
from designer.io.markup import one_line, slug
from designer.io.row_text import Part, numbers
from designer.io.row_text import rows as text_rows
from designer.model.networks.devices import LinkRun, NetDevice, NetLink, expand_runs
from designer.model.networks.sizing import (
    NetworkSize,
    servers_per_rack,
    size_networks,
    template_switch_count,
)

FILES = ("09-network-manufacturers.csv", "10-network-device-roles.csv", "11-network-device-types.csv",
         "12-network-devices.csv", "13-network-interfaces.csv", "14-network-cables.csv")
CABLE_TYPES = {"optic": "mmf", "dac": "dac-passive", "copper": "cat6"}
ENDPOINT_MAKER = ("Generic", "Endpoint")


def checked_sizes(src: ExportSource) -> tuple[NetworkSize, ...]:
    """The design's other networks, sized; a network that cannot be sized stops the export."""
    design, catalog = src.design, src.catalog
    sizes = size_networks(design, catalog, template_switch_count(design, catalog))
    errors = [e for size in sizes for e in size.errors]
    if errors:
        raise ExportError(f"a network of the design cannot be sized: {errors[0]}")
    return sizes


def compute_switch_names(src: ExportSource) -> list[str]:
    """The compute fabric's switches in the graph's order: read off the plan for a template
    design (as the builder numbers them), so a streamed export of a large fabric never builds
    the device graph for the other networks' sake. An edited design's are the wiring's, which
    replays its edits (edits remove switches, never add one); edits that name a NIC take the graph."""
    if not src.design.edits:
        from designer.io.plan_stream import switch_nodes

        return [n.id for n in switch_nodes(src.derived)]
    from designer.model.physical.edited_bom import counted_from_arrays

    if counted_from_arrays(src.design):
        w = src.wiring
        return [w.name(node) for node in w.order() if w.is_switch(node)]
    return [n for n, d in src.graph.nodes(data=True) if d.get("role") in ("leaf", "spine", "core")]


def network_inventory(src: ExportSource) -> tuple[list[NetDevice], list[NetLink]]:
    """Every device and link of the design's other networks, servers named as the exports name them."""
    devices, runs = network_runs(src)
    return devices, [link for run in runs for link in run.links()]


def network_runs(src: ExportSource) -> tuple[list[NetDevice], list[LinkRun]]:
    """The same devices, and the same links in the same order as runs of one kind, in columns."""
    design, catalog = src.design, src.catalog
    compute = compute_switch_names(src)
    sizes = checked_sizes(src)
    server = catalog.server(design.cluster.server)
    rack = servers_per_rack(design, server)
    devices: list[NetDevice] = []
    runs: list[LinkRun] = []
    for size in sizes:
        others = compute + [d.name for d in devices if d.switch] if size.role == "oob" else []
        new_devices, new_runs = expand_runs(size, design.cluster.servers, rack, src.host, others)
        devices += new_devices
        runs += new_runs
    return devices, runs


def network_netbox_files(src: ExportSource) -> dict[str, str]:
    return {name: text if isinstance(text, str) else "".join(text)
            for name, text in network_netbox_chunks(src).items()}


def network_netbox_chunks(src: ExportSource) -> dict[str, str | Iterable[str]]:
    """The networks' files, the interfaces and cables as chunks of rows. The inventory is
    expanded (and a network that cannot be sized refused) before this returns."""
    if not src.design.networks:
        return {}
    site = one_line(src.options.site or src.name, 100) or "Fabric"
    devices, runs = network_runs(src)
    catalog = src.catalog

    made: dict[tuple[str, str], tuple[str, str]] = {}   # per (tier, switch): 15,846 devices, a few kinds

    def maker_model(d: NetDevice) -> tuple[str, str]:
        key = (d.tier, d.switch)
        if key not in made:
            if not d.switch:
                made[key] = ENDPOINT_MAKER[0], f"{d.tier} ({ENDPOINT_MAKER[1]})"
            else:
                sw = catalog.switch(d.switch)
                made[key] = sw.vendor or "Generic", sw.name
        return made[key]

    roles = sorted({f"{d.network} {d.tier}" for d in devices})
    makers = sorted({maker_model(d)[0] for d in devices})
    types = sorted({maker_model(d) for d in devices})
    out: dict[str, str | Iterable[str]] = {
        FILES[0]: rows_to_csv([["name", "slug"]] + [[safe_cell(m), slug(m)] for m in makers]),
        FILES[1]: rows_to_csv([["name", "slug", "color"]] + [[safe_cell(r), slug(r), "607d8b"] for r in roles]),
        FILES[2]: rows_to_csv([["manufacturer", "model", "slug", "u_height"]] + [
            [safe_cell(m), safe_cell(t), slug(f"{m}-{t}"), "1" if m != ENDPOINT_MAKER[0] else "0"] for m, t in types]),
    }
    cell = _Cells()   # one for the three files: the same names recur in each
    out[FILES[3]] = _device_rows(devices, maker_model, site, cell)
    out[FILES[4]] = _interface_rows(runs, cell)
    out[FILES[5]] = _cable_rows(runs, cell)
    return out


# Rows are written as rows_to_csv would write them, each cell made once per distinct value
# (device names and ports repeat on every link): the networks of a 131,072-GPU design have
# 174,000 links.
_STEP = 2000


class _Cells(dict[str, str]):
    """`safe_field` of each text, made once; `changed` holds the texts whose cell differs."""

    def __init__(self) -> None:
        super().__init__()
        self.changed: set[str] = set()

    def __missing__(self, text: str) -> str:
        self[text] = cell = safe_field(text)
        if cell != text:
            self.changed.add(text)
        return cell

    def cells(self, texts: list[str]) -> list[str]:
        """The cell of each text. The texts not met before are looked at together: where none
        needs a quote or a leading apostrophe (every name this tool makes), each is its own
        cell, without a call per text (100,000 server ports at 131,072 GPUs). They are looked for
        where the first text is new (a column of names met before, as in the cables after the
        interfaces, skips the search); any other new text is made on its own as it is met."""
        if texts and texts[0] not in self:
            fresh = set(filterfalse(self.__contains__, texts))
            if not _NEEDS_CARE.search("\0".join(fresh)):
                self.update(zip(fresh, fresh, strict=True))
        return list(map(self.__getitem__, texts))


# What makes a text's cell differ from it (csv_cells.safe_field), in texts joined by NULs: a
# formula's first character at the start of one, or a character that takes quotes.
_NEEDS_CARE = re.compile('(?:^|\0)[=+\\-@\t\r]|[,"\r\n]')


def _device_rows(devices: list[NetDevice], maker_model: Callable[[NetDevice], tuple[str, str]],
                 site: str, cell: _Cells) -> Iterator[str]:
    yield rows_to_csv([["name", "role", "manufacturer", "device_type", "site", "status"]])
    tail = f"{safe_field(site)},planned\r\n"
    for first in range(0, len(devices), _STEP):
        yield "".join([f"{cell[d.name]},{cell[f'{d.network} {d.tier}']},{cell[maker]},{cell[model]},{tail}"
                       for d in devices[first:first + _STEP] for maker, model in (maker_model(d),)])


def _groups(runs: list[LinkRun]) -> Iterator[list[tuple[LinkRun, int, int]]]:
    """The runs' links in groups of about _STEP, each group a list of (run, first, last) slices
    in order: the out-of-band network has a run of a few links per rack (8,192 runs at 131,072
    GPUs), written together; a long run is written a slice at a time."""
    group: list[tuple[LinkRun, int, int]] = []
    size = 0
    for run in runs:
        for first in range(0, len(run.a), _STEP):
            last = min(first + _STEP, len(run.a))
            group.append((run, first, last))
            size += last - first
            if size >= _STEP:
                yield group
                group, size = [], 0
    if group:
        yield group


def _columns(group: list[tuple[LinkRun, int, int]]) -> tuple[list[str], list[str], list[str], list[str]]:
    """The group's a, a_port, b and b_port columns, end to end."""
    a: list[str] = []
    a_port: list[str] = []
    b: list[str] = []
    b_port: list[str] = []
    for run, first, last in group:
        a += run.a[first:last]
        a_port += run.a_port[first:last]
        b += run.b[first:last]
        b_port += run.b_port[first:last]
    return a, a_port, b, b_port


def _per_link(group: list[tuple[LinkRun, int, int]], value: Callable[[LinkRun], str]) -> str | list[str]:
    """A column of `value(run)` for each link of the group; one str where every run gives the same."""
    values = [value(run) for run, _, _ in group]
    if all(v == values[0] for v in values):
        return values[0]
    out: list[str] = []
    for v, (_, first, last) in zip(values, group, strict=True):
        out += [v] * (last - first)
    return out


def _interface_rows(runs: list[LinkRun], cell: _Cells) -> Iterator[str]:
    """Two rows per link, its a end's then its b end's, each described as "<network> <kind> to
    <other end>": plain where the other end's name is (the network and kind are this tool's
    words), made safe as a whole otherwise."""
    yield rows_to_csv([["device", "name", "type", "speed", "description"]])
    plain_words: dict[str, bool] = {}

    def speed(run: LinkRun) -> str:
        return f"{'1000base-t' if run.medium == 'copper' else 'other'},{run.gbps * 1_000_000}"

    def what(run: LinkRun) -> str:
        return f"{run.network} {run.kind} to "

    for group in _groups(runs):
        a, a_port, b, b_port = _columns(group)
        a_cells, b_cells = cell.cells(a), cell.cells(b)   # fills cell.changed
        words = _per_link(group, what)
        distinct = {words} if isinstance(words, str) else set(words)
        for text in distinct:
            if text not in plain_words:
                plain_words[text] = safe_field(text) == text
        # where every word and name is its own cell, a description is the word and the name's cell
        described_b: list[Part] = [words, b_cells]
        described_a: list[Part] = [words, a_cells]
        if not all(plain_words[text] for text in distinct) \
                or not (cell.changed.isdisjoint(a) and cell.changed.isdisjoint(b)):
            word_column = [words] * len(a) if isinstance(words, str) else words
            column_b, column_a = list(map(str.__add__, word_column, b)), list(map(str.__add__, word_column, a))
            for i, text in enumerate(word_column):
                if not plain_words[text] or b[i] in cell.changed:
                    column_b[i] = safe_field(column_b[i])
                if not plain_words[text] or a[i] in cell.changed:
                    column_a[i] = safe_field(column_a[i])
            described_b, described_a = [column_b], [column_a]
        link_speed = _per_link(group, speed)
        if isinstance(link_speed, str) and described_b[0] is words and isinstance(words, str):
            # one kind of link with plain descriptions: a port's cell, the speed and the words
            # before the other end's name, made once per port name
            tail = f",{link_speed},{words}"
            after = {port: f",{cell[port]}{tail}" for port in {*a_port, *b_port}}
            yield text_rows([a_cells, list(map(after.__getitem__, a_port)), b_cells, "\r\n",
                             b_cells, list(map(after.__getitem__, b_port)), a_cells, "\r\n"], len(a))
            continue
        yield text_rows([a_cells, ",", cell.cells(a_port), ",", link_speed, ",", *described_b, "\r\n",
                         b_cells, ",", cell.cells(b_port), ",", link_speed, ",", *described_a, "\r\n"], len(a))


def _cable_rows(runs: list[LinkRun], cell: _Cells) -> Iterator[str]:
    yield rows_to_csv([["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
                        "type", "status", "label"]])
    labels = {network: csv_field(network.upper()) for network in {run.network for run in runs}}
    k = 0
    for group in _groups(runs):
        a, a_port, b, b_port = _columns(group)
        yield text_rows([cell.cells(a), ",dcim.interface,", cell.cells(a_port), ",",
                         cell.cells(b), ",dcim.interface,", cell.cells(b_port), ",",
                         _per_link(group, lambda run: f"{CABLE_TYPES[run.medium]},planned,{labels[run.network]}"),
                         numbers(k + 1, len(a)), "\r\n"], len(a))
        k += len(a)
