"""The formats a design can be handed to other tools in, and the one way every export is written.

Each format names its label, its file extension (or a folder), the function that renders it
from an ExportSource and the fabric family it needs, if any. The command line (`fabric-designer
export`) and the window (File > Export) both list FORMATS, so a new format is one `register`
line here, for example:

    register(ExportFormat("ibnetdiscover", "ibnetdiscover text", ".txt",
                          lambda src: ibnetdiscover.to_text(src.derived), family="infiniband"))

Every export refuses a design with errors unless forced, and writes atomically: a reader sees
the old file or the new one, never half of one (a folder of files is replaced as a set).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from designer.io.atomic import write_atomic, write_folder_atomic
from designer.io.export_source import ExportError, ExportSource
from designer.model.topology.bounds import check_per_link, plan_totals

Rendered = str | dict[str, str]


@dataclass(frozen=True)
class ExportFormat:
    name: str                                  # the --format value
    label: str                                 # menu entry
    extension: str                             # ".conf"; "" for a folder of files
    render: Callable[[ExportSource], Rendered]  # text, or {file name: text} for a folder
    family: str | None = None                  # "infiniband" or "ethernet" when only that family fits
    purpose: str = ""
    encoding: str = "utf-8"
    # The same text as `render`, in chunks written as they come: a per-link format of a large
    # fabric never sits whole in memory. None: `render` is written.
    chunks: Callable[[ExportSource], Iterable[str]] | None = None
    # A folder format's files, each whole or in chunks written as they come. None: `render` is written.
    files: Callable[[ExportSource], Mapping[str, str | Iterable[str]]] | None = None

    @property
    def folder(self) -> bool:
        return not self.extension


FORMATS: dict[str, ExportFormat] = {}


def register(fmt: ExportFormat) -> ExportFormat:
    FORMATS[fmt.name] = fmt
    return fmt


def _writer(module: str, function: str) -> Callable[[ExportSource], Rendered]:
    """`designer.io.<module>.<function>(src)`, the module imported on the first export:
    a command exporting Slurm's topology does not load the physical layer or the other networks."""

    def render(src: ExportSource) -> Any:
        return getattr(import_module(f"designer.io.{module}"), function)(src)

    render.__name__ = function
    return render


def _folder_writer(module: str, function: str) -> Callable[[ExportSource], Mapping[str, str | Iterable[str]]]:
    """`_writer` of a folder format's files, whole or in chunks."""

    def files(src: ExportSource) -> Any:
        return getattr(import_module(f"designer.io.{module}"), function)(src)

    files.__name__ = function
    return files


def _ibnetdiscover(function: str) -> Callable[[ExportSource], Rendered]:
    def render(src: ExportSource) -> Any:
        return getattr(import_module("designer.io.ibnetdiscover"), function)(src.derived, host_name=src.host)

    return render


register(ExportFormat("slurm-tree", "Slurm topology.conf (tree)", ".conf",
                      _writer("slurm_topology", "topology_conf_tree"),
                      purpose="Slurm's topology/tree plugin places jobs under as few switches as possible"))
register(ExportFormat("slurm-block", "Slurm topology.conf (block)", ".conf",
                      _writer("slurm_topology", "topology_conf_block"),
                      purpose="Slurm's topology/block plugin keeps jobs inside SUs and aligned groups of them"))
register(ExportFormat("slurm-yaml", "Slurm topology.yaml", ".yaml", _writer("slurm_topology", "topology_yaml"),
                      purpose="Slurm 25.05+: the tree and the blocks in one file (it takes precedence over "
                              "topology.conf)"))
register(ExportFormat("netbox", "NetBox import (CSV folder)", "", _writer("netbox_csv", "netbox_files"),
                      files=_folder_writer("netbox_csv", "netbox_file_chunks"),
                      purpose="bulk import of sites, racks, devices, interfaces and cables into NetBox"))
register(ExportFormat("clab", "containerlab topology", ".clab.yml", _writer("containerlab", "containerlab_yaml"),
                      family="ethernet", purpose="emulate an Ethernet fabric with containerlab"))
register(ExportFormat("frr", "FRR configuration per switch (folder)", "", _writer("frr", "frr_files"),
                      family="ethernet",
                      purpose="each switch's frr.conf (zebra, BGP unnumbered) and the interface plan"))
register(ExportFormat("air-dot", "NVIDIA Air topology (DOT)", ".dot", _writer("air_dot", "air_dot"),
                      family="ethernet", purpose="build the fabric as a digital twin in NVIDIA Air"))
register(ExportFormat("graphml", "GraphML device graph", ".graphml", _writer("graphml", "graphml"),
                      purpose="analysis in networkx, Gephi or yEd", chunks=_writer("graphml", "graphml_chunks")))
register(ExportFormat("dot", "Graphviz DOT device graph", ".dot", _writer("dot", "dot"),
                      purpose="Graphviz and DOT-reading tools", chunks=_writer("dot", "dot_chunks")))
register(ExportFormat("dot-bundled", "Graphviz DOT bundled view", ".dot", _writer("dot", "dot_bundled"),
                      purpose="a drawing people can read: tiers ranked, servers grouped, parallel links counted"))
register(ExportFormat("drawio", "draw.io diagram", ".drawio", _writer("drawio", "drawio"),
                      purpose="an editable diagram for review decks (diagrams.net)"))
register(ExportFormat("ibnetdiscover", "ibnetdiscover text", ".txt",
                      _ibnetdiscover("export_ibnetdiscover"),
                      family="infiniband",
                      chunks=_ibnetdiscover("ibnetdiscover_chunks"),
                      purpose="the fabric as ibnetdiscover would print it: diff it against a capture, or audit it"))
register(ExportFormat("opensm", "OpenSM subnet manager files (folder)", "", _writer("opensm", "opensm_files"),
                      family="infiniband",
                      purpose="OpenSM's root, compute-node and I/O GUID files, node-name map and opensm.conf "
                              "lines that let ftree route the fabric"))
register(ExportFormat("ndt", "UFM cabling topology (NDT CSV)", ".csv", _writer("ndt", "ndt_csv"), family="infiniband",
                      chunks=_writer("ndt", "ndt_chunks"),
                      purpose="UFM's NDT plugin checks the installed cabling against it"))


def format_named(name: str) -> ExportFormat:
    fmt = FORMATS.get(name)
    if fmt is None:
        raise ExportError(f"unknown export format '{name}' (use {', '.join(FORMATS)})")
    return fmt


def check_exportable(fmt: ExportFormat, src: ExportSource, force: bool = False) -> None:
    """Refuse a format the design's technology cannot use, and a design with errors unless forced."""
    if fmt.family and src.family != fmt.family:
        need = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}[fmt.family]
        raise ExportError(f"{fmt.name} is for {need} designs; this design is {src.technology.name}")
    if not fmt.name.startswith("slurm-"):   # the Slurm files list switches, not links
        d = src.derived
        check_per_link(f"export --format {fmt.name}", plan_totals(d.design, d.resolved, d.plan)["links"])
    errors = src.errors
    if errors and not force:
        more = f" and {len(errors) - 1} more" if len(errors) > 1 else ""
        raise ExportError(f"the design has errors ({errors[0].message}{more}); fix them, or export anyway "
                          "with --force")


def default_path(fmt: ExportFormat, stem: str) -> str:
    """A file (or folder) name for `fmt` beside a design saved as `stem`."""
    return stem + (f"-{fmt.name}" if fmt.folder else fmt.extension)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while an export is made. A large fabric's export makes
    hundreds of thousands of short-lived tuples and rows, none in a cycle, and every few
    thousand of them the collector would walk every object alive: 8-15% of a 131,072-GPU
    NetBox or GraphML export. Memory is unchanged (the rows are freed as they are written)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def write_export(fmt: ExportFormat, src: ExportSource, path: str | os.PathLike[str], force: bool = False) -> list[Path]:
    """Render `fmt` and write it to `path` (a file, or a folder for folder formats); returns what
    was written. Nothing is written when rendering fails."""
    with collector_paused():
        return _write_export(fmt, src, path, force)


def _write_export(fmt: ExportFormat, src: ExportSource, path: str | os.PathLike[str], force: bool) -> list[Path]:
    check_exportable(fmt, src, force)
    out = Path(path)
    if fmt.folder:
        if out.exists() and not out.is_dir():
            raise ExportError(f"{out} is a file; {fmt.name} writes a folder of files")
    elif out.is_dir():
        raise ExportError(f"{out} is a folder; give a file name")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise ExportError(f"folder {parent} does not exist")
    if fmt.chunks is not None:
        write_atomic(out, fmt.chunks(src), encoding=fmt.encoding)
        return [out]
    rendered: Rendered | Mapping[str, str | Iterable[str]] = fmt.files(src) if fmt.files else fmt.render(src)
    if isinstance(rendered, str):
        write_atomic(out, rendered, encoding=fmt.encoding)
        return [out]
    # Replaced as a set: the old folder stays whole until the new one is complete.
    return write_folder_atomic(out, rendered, encoding=fmt.encoding)
