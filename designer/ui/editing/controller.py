"""The canvas's link to the document: turns gestures into commands, and shows previews.

Canvas items and interactions call this controller; it builds the new design with the
model's edit functions, checks that it can be sized, and pushes one command. During a drag
it shows a preview design that is not on the undo stack; the command is pushed on release.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from designer.catalog import Catalog, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.topology.derive import plan_only
from designer.model.topology.edits import (
    add_links,
    count_step,
    remove_device,
    tier_count,
    with_tier_count,
    with_tiers,
    without_edits,
)
from designer.model.topology.refusal_hints import hint_text, what_would_build
from designer.ui.blocks import apply_block
from designer.ui.canvas.layout import ROWS, Layout, compute_layout, parse_device_id
from designer.ui.editing.commands import (
    ConnectCommand,
    DeleteCommand,
    DropBlockCommand,
    EditFieldCommand,
    ResizeTierCommand,
)
from designer.ui.editing.document import Document
from designer.ui.editing.generated_name import follow_generated_name
from designer.ui.editing.selection import SelectionModel
from designer.ui.services.compute import ComputeService
from designer.ui.services.compute_job import SIZING_ERRORS


def _tier_of(device: str) -> str:
    """The tier of a device id the caller has checked (can_connect, or the parsed selection)."""
    parsed = parse_device_id(device)
    assert parsed is not None
    return parsed[0]


@dataclass(frozen=True)
class Display:
    """What the canvas shows: a design with its layout, or why it cannot be drawn."""

    design: FabricDesign | None
    layout: Layout | None = None
    error: str | None = None
    preview: bool = False
    reset_view: bool = False   # a new fabric: fit it to the window


def make_display(design: FabricDesign | None, catalog: Catalog, preview: bool = False,
                 reset_view: bool = False, plane: int = 0) -> Display:
    if design is None:
        return Display(None, reset_view=reset_view)
    try:
        resolved, plan = plan_only(design, catalog)
    except SIZING_ERRORS as exc:
        return Display(design, None, str(exc), preview, reset_view)
    return Display(design, compute_layout(design, resolved, plan, plane), None, preview, reset_view)


def check(design: FabricDesign, catalog: Catalog) -> str | None:
    """None when the design can be sized, else the reason it cannot."""
    try:
        plan_only(design, catalog)
    except SIZING_ERRORS as exc:
        return str(exc)
    return None


def what_would_build_text(design: FabricDesign, catalog: Catalog) -> str:
    """'The fat-tree template, or 2 planes would build it.' for a refused design; '' when nothing
    tried sizes it (each alternative is sized, not guessed)."""
    try:
        tech = catalog.technology(design.fabric.technology)
    except (UnknownPartError, KeyError):
        return ""
    fabric = design.fabric
    fields = {"template": "template", "tiers": "tiers", "switch": "switch", "planes": "planes"}

    def builds(changes) -> bool:
        changed = dataclasses.replace(fabric, **{fields[k]: v for k, v in changes.items()})
        if "switch" in changes:   # the tiers follow the fabric's new switch
            changed = dataclasses.replace(changed, leaf=dataclasses.replace(changed.leaf, switch=None),
                                          spine=dataclasses.replace(changed.spine, switch=None),
                                          core=dataclasses.replace(changed.core, switch=None))
        return check(dataclasses.replace(design, fabric=changed), catalog) is None

    found = what_would_build(catalog, tech, template=fabric.template, tiers=fabric.tiers, switch=fabric.switch,
                             planes=fabric.planes, builds=builds)
    return hint_text(found, command_line=False)


class DesignController(QObject):
    """Mediates between the canvas (and palette, inspector) and the document."""

    displayChanged = Signal(object)
    """The canvas should show another design (an edit, an undo, or a drag preview); carries a Display."""

    message = Signal(str)
    """A short note for the status bar, e.g. why a drop changed nothing."""

    focusRequested = Signal(str)
    """The view should bring this element into sight (a finding was clicked); carries its id."""

    networkChanged = Signal(str)
    """The canvas shows another network of the cluster ("compute" or a role); a view setting."""

    def __init__(self, document: Document, catalog: Catalog, compute: ComputeService,
                 selection: SelectionModel | None = None, parent=None):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        self.compute = compute
        self.selection = selection or SelectionModel(self)
        self.default_technology = "ib-ndr"
        self._preview: FabricDesign | None = None
        self._previewing = False
        self.plane = 0   # the plane the canvas draws (0-based); a view setting, not an edit
        self.network = "compute"  # the network the canvas draws; a view setting, not an edit
        self.display = make_display(document.design, catalog, reset_view=True)
        document.designChanged.connect(self._on_design_changed)
        document.loaded.connect(self._reset_next)
        self._reset = False

    # --- display ---------------------------------------------------------------------------

    def _reset_next(self) -> None:
        self._reset = True  # the next design shown is a newly opened document

    def _on_design_changed(self, design: FabricDesign | None) -> None:
        reset = self._reset or (design is not None and self.display.design is None)
        self._reset = False
        if design is not None:
            self.default_technology = design.fabric.technology
        if reset:
            self.plane = 0
        self._show(make_display(design, self.catalog, reset_view=reset, plane=self.plane))
        if self.network != "compute" and (design is None or design.network(self.network) is None):
            self.set_network("compute")  # the network went away (an undo, another file)
        self.compute.request(design)

    def set_network(self, role: str) -> None:
        """Draw another network of the cluster ("compute", the default, or a network's role)."""
        design = self.display.design
        if role != "compute" and (design is None or design.network(role) is None):
            role = "compute"
        if role != self.network:
            self.network = role
            self.networkChanged.emit(role)

    def set_plane(self, plane: int) -> None:
        """Draw another plane of a multi-plane fabric (no edit, nothing recomputed)."""
        layout = self.display.layout
        if layout is None or plane == layout.plane or not 0 <= plane < layout.planes:
            return
        self.plane = plane
        self._show(make_display(self.display.design, self.catalog, self.display.preview, plane=plane))

    def _show(self, display: Display) -> None:
        self.display = display
        self._prune_selection()
        self.displayChanged.emit(display)

    def refresh(self) -> None:
        """Show the document's design again and recompute it (after a catalog or theme change)."""
        self._on_design_changed(self.document.design)

    @property
    def design(self) -> FabricDesign | None:
        return self.document.design

    def _prune_selection(self) -> None:
        layout = self.display.layout
        if not self.selection.elements:
            return
        if layout is None:
            self.selection.clear()
            return
        keep = set()
        for element in self.selection.elements:
            if element.startswith("tier:") and element[5:] in layout.rows:
                keep.add(element)
            elif element.startswith("block:"):
                _, tier, k = element.split(":")
                if tier in layout.rows and int(k) < len(layout.rows[tier].blocks):
                    keep.add(element)
            elif element.startswith("edit:"):
                i = int(element[5:])
                if i < len(layout.design.edits) and layout.design.edits[i].op == "add-links":
                    keep.add(element)
            elif layout.device_position(element) is not None:
                keep.add(element)
        self.selection.set(keep)

    # --- previews (a drag in progress) ------------------------------------------------------

    def preview(self, design: FabricDesign) -> None:
        """Show `design` on the canvas and in the metrics without touching the document."""
        self._preview = design
        self._previewing = True
        self._show(make_display(design, self.catalog, preview=True, plane=self.plane))
        self.compute.request(design, preview=True)

    def end_preview(self) -> None:
        """Back to the document's design (after a cancelled drag, or before pushing the command)."""
        if not self._previewing:
            return
        self._previewing = False
        self._preview = None
        self._show(make_display(self.document.design, self.catalog, plane=self.plane))
        self.compute.request(self.document.design)

    # --- tier sizes ------------------------------------------------------------------------

    def tier_count(self, tier: str) -> int | None:
        layout = self.display.layout
        if layout is None or tier not in layout.rows:
            return None
        return tier_count(layout.design, layout.plan, tier)

    def count_step(self, tier: str) -> int:
        layout = self.display.layout
        if layout is None:
            return 1
        return count_step(layout.design, layout.plan, layout.resolved, tier)

    def resized_design(self, base: FabricDesign, tier: str, count: int) -> tuple[FabricDesign | None, int, str | None]:
        """(design, count it gets, problem) for `base` with `count` devices in row `tier`."""
        try:
            resolved, plan = plan_only(base, self.catalog)
            design = with_tier_count(base, plan, resolved, tier, count)
            resolved2, plan2 = plan_only(design, self.catalog)
        except SIZING_ERRORS as exc:
            return None, count, str(exc)
        return design, tier_count(design, plan2, tier), None

    def commit_resize(self, base: FabricDesign, tier: str, count: int) -> bool:
        """Push one ResizeTierCommand from `base` (the design when the drag began)."""
        self.end_preview()
        design, actual, problem = self.resized_design(base, tier, count)
        if design is None:
            self.message.emit(f"Cannot resize the {tier} tier: {problem}")
            return False
        if design == base:
            return False
        design = follow_generated_name(base, design, self.catalog)
        self.document.push(ResizeTierCommand(self.document, design, tier, actual, old=base))
        return True

    # --- palette drops -----------------------------------------------------------------------

    def drop_block(self, block_id: str) -> bool:
        design = self.document.design
        tiers = self.display.layout.plan.tiers if self.display.layout else None
        try:
            outcome = apply_block(block_id, design, self.catalog, self.default_technology, tiers)
        except SIZING_ERRORS as exc:
            self.message.emit(f"Cannot drop here: {exc}")
            return False
        if outcome.design is None:
            self.message.emit(outcome.text)
            return False
        problem = check(outcome.design, self.catalog)
        if problem:
            self.message.emit(f"{outcome.text}: {problem}")
            return False
        self.document.push(DropBlockCommand(self.document, outcome.design, outcome.text))
        return True

    # --- connecting --------------------------------------------------------------------------

    def can_connect(self, a: str, b: str) -> str | None:
        """None when a link between devices a and b can be added, else why not."""
        pa, pb = parse_device_id(a), parse_device_id(b)
        if pa is None or pb is None:
            return "links join two switches"
        if "servers" in (pa[0], pb[0]):
            return "server ports are wired by the template; connect switches instead"
        if pa[0] == pb[0]:
            return f"both ends are {pa[0]} switches; links join different tiers"
        return None

    def connect_devices(self, a: str, b: str, count: int = 1) -> bool:
        design = self.document.design
        problem = self.can_connect(a, b)
        if design is None or problem:
            self.message.emit(f"Cannot connect {a} and {b}: {problem}")
            return False
        lo, hi = sorted((a, b), key=lambda d: ROWS.index(_tier_of(d)), reverse=True)
        new = add_links(design, lo, hi, count)
        noun = "link" if count == 1 else "links"
        self.document.push(ConnectCommand(self.document, new, f"Connect {lo} to {hi} ({count} {noun})"))
        return True

    # --- deleting ----------------------------------------------------------------------------

    def delete_selection(self) -> bool:
        design = self.document.design
        elements = set(self.selection.elements)
        layout = self.display.layout
        if design is None or not elements:
            return False
        tiers = {e[5:] for e in elements if e.startswith("tier:")}
        if layout is not None and {"leaf", "spine"} <= tiers:
            self.selection.clear()
            self.document.push(DeleteCommand(self.document, None, "Delete fabric"))
            return True
        new = design
        done: list[str] = []
        refused: list[str] = []
        edit_indexes = sorted(int(e[5:]) for e in elements if e.startswith("edit:"))
        if edit_indexes:
            new = without_edits(new, edit_indexes)
            done.append("manual link" if len(edit_indexes) == 1 else f"{len(edit_indexes)} manual links")
        if "core" in tiers and layout is not None and "core" in layout.rows:
            new = with_tiers(new, 2)
            done.append("core tier")
        devices = sorted(e for e in elements if parse_device_id(e) is not None)
        switches = [d for d in devices if _tier_of(d) != "servers"]
        for device in switches:
            if layout is None or device not in layout.removed:
                new = remove_device(new, device)
        if switches:
            done.append(switches[0] if len(switches) == 1 else f"{len(switches)} switches")
        if len(switches) < len(devices):
            refused.append("servers (change the server count instead)")
        if tiers - {"core"}:
            refused.append(f"the {' and '.join(sorted(tiers - {'core'}))} tier (a fabric needs leaves and spines)")
        if any(e.startswith("block:") for e in elements):
            refused.append("pods and scalable units (zoom in to pick switches)")
        if new is design:
            self.message.emit("Nothing deleted: " + "; ".join(refused) if refused else "Nothing to delete")
            return False
        problem = check(new, self.catalog)
        if problem:
            self.message.emit(f"Cannot delete: {problem}")
            return False
        self.selection.clear()
        self.document.push(DeleteCommand(self.document, new, "Delete " + ", ".join(done)))
        if refused:
            self.message.emit("Not deleted: " + "; ".join(refused))
        return True

    # --- inspector edits ---------------------------------------------------------------------

    def apply_edit(self, new: FabricDesign, field: str, text: str) -> str | None:
        """Push an inspector edit; returns why it was refused (the design cannot be sized) or None."""
        design = self.document.design
        if design is None or new == design:
            return None
        problem = check(new, self.catalog)
        if problem:
            hint = what_would_build_text(new, self.catalog)
            return f"{problem}. {hint}" if hint else problem
        new = follow_generated_name(design, new, self.catalog)
        self.document.push(EditFieldCommand(self.document, new, field, text))
        return None

    # --- selection ---------------------------------------------------------------------------

    def select_all(self) -> None:
        layout = self.display.layout
        if layout is not None:
            self.selection.set(f"tier:{t}" for t in layout.tiers)

    def focus(self, element: str) -> None:
        """Select an element (e.g. from a finding) and ask the view to show it."""
        if not element:
            return
        element = f"tier:{element}" if element in ROWS else element
        self.selection.set([element])
        self.focusRequested.emit(element)

    def describe(self, element: str) -> str:
        """One or two lines about an element, for tooltips and the status bar."""
        layout = self.display.layout
        if layout is None:
            return ""
        plan, r = layout.plan, layout.resolved
        if element.startswith("edit:"):
            i = int(element[5:])
            if i < len(layout.design.edits):
                e = layout.design.edits[i]
                return f"Manual link: {e.count} × {e.a} – {e.b}. Press Delete to remove it."
            return ""
        if element.startswith("tier:") or element.startswith("block:"):
            parts = element.split(":")
            tier = parts[1]
            row = layout.rows.get(tier)
            if row is None:
                return ""
            if tier == "servers":
                head = f"{row.count:,} × {row.model}, {r.gpus_per_server} GPUs and {r.ports_per_server} " \
                       f"fabric ports each"
            else:
                sw = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}[tier]
                head = f"{row.count:,} × {sw.name} ({sw.radix_label()}) per plane"
                if r.planes > 1:
                    head += f", {r.planes} planes"
            if row.liquid_cooled:
                head += f"\nLiquid-cooled racks: the catalog marks the {row.model} liquid-cooled"
            if element.startswith("block:"):
                block = row.blocks[int(parts[2])]
                return f"{block.label}: {block.count} {tier}\n{head}"
            return f"{tier.capitalize()} tier: {head}"
        parsed = parse_device_id(element)
        if parsed is None or parsed[0] not in layout.rows:
            return element
        tier, index, _ = parsed
        block = layout.rows[tier].block_of(index)
        where = f" · {block.label}" if block.label else ""
        cooled = " · liquid-cooled rack" if layout.rows[tier].liquid_cooled else ""
        if tier == "servers":
            return f"{element} · {r.server.name}{where} · {r.ports_per_server} × {r.port_gbps}G ports{cooled}"
        down_up = {"leaf": (plan.leaf_down, plan.leaf_up),
                   "spine": (plan.spine_down if plan.tiers == 3 else None, plan.spine_up),
                   "core": (None, 0)}[tier]
        sw = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}[tier]
        ports = f" · {down_up[0]} down / {down_up[1]} up" if down_up[0] else ""
        return f"{element} · {sw.name}{where}{ports}{cooled}"
