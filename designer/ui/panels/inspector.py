"""The inspector: edits the selected tier, or the fabric when nothing is selected.

Every field change builds a new design from the shown one and goes through the controller,
which refuses designs that cannot be sized: the refusal shows inline, in red, under the
field, and nothing changes. Problems of a valid design (more ports used than a switch has,
oversubscription above target) come from the metrics and show in red under the form.
"""

from __future__ import annotations

import dataclasses
import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QLabel,
    QLineEdit,
    QScrollArea,
    QStackedWidget,
)

from designer.catalog import Catalog, Server, Switch, UnknownPartError
from designer.model.decisions.counterpart import family_technology, pick_server
from designer.model.intent.design import FabricDesign, replace_path
from designer.model.topology.derive import plan_only
from designer.model.topology.edits import tier_count, with_server, with_technology, with_tier_count, with_tiers
from designer.model.topology.metrics import Finding
from designer.model.topology.sizing import SizingError, parse_ratio, resolve
from designer.model.topology.switch_choice import design_modes_text
from designer.ui.blocks import choice_cost
from designer.ui.canvas.layout import TIER_LABEL
from designer.ui.panels.form_page import FormPage, WholeCombo
from designer.ui.panels.network_arrangements import arrangement_edit, fill_arrangements
from designer.ui.panels.network_page import NetworkPage
from designer.ui.panels.port_modes_dialog import PortModesDialog
from designer.ui.theme import ERROR_HUE, FAMILY_LABEL

RATIOS = ("1:1", "1.5:1", "2:1", "3:1", "4:1")
SPEEDS = (100, 200, 400, 800, 1600)
MODE_PRICES = "every mode's price"   # the link that opens the table of port modes
TEMPLATE_NAMES = {"leaf-spine": "Leaf-spine", "fat-tree": "Fat-tree", "rail-optimized": "Rail-optimized",
                  "rail-only": "Rail-only"}


def _speed(gbps: int) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"


def _ratio_text(value: float) -> str:
    return f"{value:g}:1"


def _when(part: Server | Switch) -> str:
    return part.short_currency()




class FabricPage(FormPage):
    inspector: Inspector    # the holder, with all it offers (the base knows only what it asks)

    def __init__(self, inspector):
        super().__init__(inspector)
        self.title.setText("Fabric")
        self.name = QLineEdit()
        self.name.editingFinished.connect(self._name)
        self.add("Name", self.name, "The design's name, shown in the title and reports")
        self.template = self.combo("Template", "How the fabric is wired", self._template)
        self.family = self.combo("Technology", "InfiniBand or Ethernet (RoCE)", self._family)
        self.generation = self.combo("Generation", "Link generation and speed", self._generation)
        self.switch = self.combo("Switch", "The switch model of every tier (a tier can override it)", self._switch)
        self.server = self.combo("Server model", "The GPU server", self._server)
        # The parts' currency on a line of its own: in the choices it made them too wide for the panel.
        self.availability = QLabel()
        self.availability.setWordWrap(True)
        self.add("Available", self.availability, "When the server and the switch ship, as their sources say")
        self.cooling = QLabel()
        self.cooling.setWordWrap(True)
        self.add("Cooling", self.cooling, "Racks that need liquid cooling, as the catalog marks servers and switches")
        self.servers = self.spin("Servers", "Number of servers", self._servers)
        self.gpus = self.spin("GPUs per server", "0 keeps the server model's GPU count", self._gpus, 0, 1024)
        self.total = QLabel()
        self.add("GPUs", self.total, "Servers × GPUs per server")
        self.su = self.spin("Servers per SU", "Servers in one scalable unit (rail-optimized)", self._su, 1, 4096)
        self.planes = self.spin("Planes", "Parallel identical fabric planes; each server's ports split over them",
                                self._planes, 1, 16)
        self.tiers = self.combo("Tiers", "Switch tiers: Auto picks the fewest that fit", self._tiers)
        self.link = self.combo("Server link speed", "Speed of the server-to-leaf links", self._link)
        self.port_mode = QLabel()
        self.port_mode.setWordWrap(True)
        self.modes_text = ""            # the mode's words, without the link
        self.port_mode.setToolTip("The mode the switches run their cages in. A new fabric takes the cheapest "
                                  "mode that meets the design, priced as a switch is, optics and breakouts included. "
                                  f"“{MODE_PRICES}” opens a table of every mode of the technology's switches on this "
                                  "design, each with its fabric's price, power, switches, transceivers and breakout "
                                  "cables, and the one sizing takes; choose one to run it (one step on Undo)")
        # The price of every mode opens beside the form (a table too wide for the Inspector's
        # column), from a link at the end of the mode's line: a button would wrap the row under
        # its label and cost the form a row's height (at 1280x800 every row must stay in view).
        self.port_mode.setTextFormat(Qt.TextFormat.RichText)
        self.port_mode.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.port_mode.linkActivated.connect(lambda _link: self.inspector.show_port_modes())
        self.form.addRow("Port mode", self.port_mode)
        self.uplink = self.combo("Uplink speed", "Speed of the switch-to-switch links (leaf up, spine, core), "
                                 "among the speeds every tier's switch has a port mode for: faster uplinks than "
                                 "server links carry the same bandwidth over fewer cables and spine ports "
                                 "(as `new --uplink-speed`)", self._uplink)
        self.uplink_tip = self.uplink.toolTip()
        self.uplink_effect = ""        # what the sizing made of the uplinks, for the tooltip
        self.networks = self.combo("Other networks", "The cluster's networks beside the compute fabric: as the "
                                   "reference architecture gives them, none, a hybrid (Ethernet converged/storage) "
                                   "or merged into the compute fabric", self._networks)

    def load(self, design: FabricDesign, catalog: Catalog, layout) -> None:
        self._loading = True
        f, c = design.fabric, design.cluster
        tech = catalog.technology(f.technology)
        self.name.setText(design.meta.name)
        self.name.setCursorPosition(0)
        self.fill(self.template, [(v, k) for k, v in TEMPLATE_NAMES.items()], f.template)
        families = sorted({t.family for t in catalog.technologies.values()})
        self.fill(self.family, [(FAMILY_LABEL.get(x, x), x) for x in families], tech.family)
        self.fill(self.generation, [(t.name, t.id) for t in catalog.technologies_by_speed()
                                    if t.family == tech.family], tech.id)
        # The fabric switch is a leaf's: a scheduled fabric's cell switch takes no servers (its
        # leaf box brings it in as spine), so it is offered per tier only.
        switches = [(s.name_with_status(), s.id) for s in catalog.switches.values()
                    if s.family in (tech.family, "any") and not s.fabric_element]
        if f.switch not in dict((v, k) for k, v in switches):
            switches.append((catalog.switch(f.switch).name, f.switch))
        self.fill(self.switch, switches, f.switch)
        self.fill(self.server, [(s.name_with_status(), s.id) for s in catalog.servers.values()], c.server)
        self.server.setToolTip(catalog.server(c.server).currency_note())
        self.switch.setToolTip(catalog.switch(f.switch).currency_note())
        server = catalog.server(c.server)
        switch = catalog.switch(f.switch)
        self.availability.setText(f"server {_when(server)} · switch {_when(switch)}")
        self.availability.setToolTip(f"{server.currency_note()}\n{switch.currency_note()}")
        self._load_cooling(server, switch, catalog, layout)
        self.servers.setValue(c.servers)
        self.gpus.setSpecialValueText(f"Model default ({server.gpus})")
        self.gpus.setValue(c.gpus_per_server or 0)
        per = c.gpus_per_server or server.gpus
        self.total.setText(f"<b>{c.servers * per:,}</b>")
        self.su.setValue(f.nodes_per_su)
        self.form.setRowVisible(self.su, f.template == "rail-optimized")
        self.planes.setValue(f.planes)
        auto = self._auto_tiers_label(design, catalog, layout)
        self.fill(self.tiers, [(auto, None), ("1", 1), ("2", 2), ("3", 3)], f.tiers)
        port = c.port_gbps or server.port_gbps
        self.fill(self.link, [(f"Auto ({_speed(port)}, the NIC port)", None)]
                  + [(_speed(s), s) for s in SPEEDS], f.link_gbps)
        modes = design_modes_text(design, catalog)
        self.modes_text = modes or "not sized"
        self.port_mode.setText(f"{html.escape(modes or 'not sized')} · <a href='port-modes'>{MODE_PRICES}</a>")
        self._load_uplink(design, catalog, layout)
        fill_arrangements(self.networks, design, catalog)
        self.subtitle.setText(f"{TEMPLATE_NAMES[f.template]} on {tech.name}. "
                              "Click a tier on the canvas to edit its switches.")
        self._loading = False

    def _load_uplink(self, design: FabricDesign, catalog: Catalog, layout) -> None:
        """The uplink speeds the tiers' switches all offer a port mode at (each with the leaf's
        port count there), Auto first; and what the sizing made of the chosen one."""
        f = design.fabric
        r = layout.resolved if layout is not None else None
        plan = layout.plan if layout is not None else None
        leaf = r.leaf_switch if r is not None else catalog.switch(f.switch)
        switches = [leaf] if r is None else [r.leaf_switch, r.spine_switch, r.core_switch]
        speeds = sorted(set.intersection(*(set(sw.speeds) for sw in switches)))
        # Unset, the switches talk at the server links' speed (the sizing's rule); read from the
        # design, so the text (and the form's height) is the same before and after the sizing.
        server = catalog.server(design.cluster.server)
        auto = f"As server links ({_speed(f.link_gbps or design.cluster.port_gbps or server.port_gbps)})"
        items: list[tuple[str, int | None]] = [(auto, None)]
        items += [(f"{_speed(s)} ({leaf.ports_at(s)} ports)", s) for s in speeds]
        if f.uplink_gbps and f.uplink_gbps not in speeds:   # a file's speed the switches lack: shown as it is
            items.append((f"{_speed(f.uplink_gbps)} (no port mode)", f.uplink_gbps))
        self.fill(self.uplink, items, f.uplink_gbps)
        one_tier = plan is not None and plan.tiers == 1
        self.uplink.setEnabled(not one_tier)
        # What the sizing made of it, in the tooltip: the form keeps its rows (at 1280x800 all of
        # them stay in view); the Links card and the canvas's bundle labels show it too.
        if plan is None or r is None:
            self.uplink_effect = ""
        elif one_tier:
            self.uplink_effect = "One tier: no switch-to-switch links"
        else:
            links = plan.leaf_up * plan.leaves * r.planes
            self.uplink_effect = (f"Sized: {plan.leaf_down} x {_speed(r.link_gbps)} down, {plan.leaf_up} x "
                                  f"{_speed(r.uplink_gbps)} up per leaf; {links:,} leaf-spine links")
        self.uplink.setToolTip(f"{self.uplink_tip}\n\n{self.uplink_effect}" if self.uplink_effect
                               else self.uplink_tip)

    def _load_cooling(self, server: Server, switch: Switch, catalog: Catalog, layout) -> None:
        """Which racks need liquid cooling: the server's, and those of each switch model the tiers use
        (the canvas's rows, where it has drawn them, know a tier's own switch)."""
        if layout is not None:
            switches = {row.model: row.liquid_cooled for tier, row in layout.rows.items() if tier != "servers"}
        else:
            switches = {switch.name: switch.liquid_cooled}
        cooled = [name for name, liquid in switches.items() if liquid]
        racks = (["server racks"] if server.liquid_cooled else []) + (["network racks"] if cooled else [])
        self.cooling.setText(f"liquid-cooled {' and '.join(racks)}" if racks else "air-cooled")
        # Shown where it says something: an air-cooled design keeps the form a row shorter (at
        # 1280x800 every row of it must stay in view).
        self.form.setRowVisible(self.cooling, bool(racks))
        names = ([server.name] if server.liquid_cooled else []) + cooled
        self.cooling.setToolTip("Marked liquid-cooled in the catalog: " + ", ".join(names) if names
                                else "No server or switch of this design is marked liquid-cooled in the catalog")

    @staticmethod
    def _auto_tiers_label(design: FabricDesign, catalog: Catalog, layout) -> str:
        """'Auto (N)' with the N that choosing Auto builds, which differs from the drawn plan
        when the tiers are fixed: the sizing is asked with the tier count left open."""
        if design.fabric.tiers is None:
            return f"Auto ({layout.plan.tiers})" if layout is not None else "Auto"
        try:
            _, plan = plan_only(with_tiers(design, None), catalog)
        except (SizingError, UnknownPartError, ValueError):
            return "Auto (cannot size)"
        return f"Auto ({plan.tiers})"

    # each handler builds the new design from the document's design
    def _d(self) -> FabricDesign:
        return self.inspector.design()

    def _name(self) -> None:
        text = self.name.text().strip()
        if text and text != self._d().meta.name:
            self.edit(replace_path(self._d(), "meta.name", text), "meta.name", f"Rename design to “{text}”")

    def _template(self) -> None:
        value = self.template.currentData()
        self.edit(replace_path(self._d(), "fabric.template", value), "fabric.template",
                  f"Change template to {TEMPLATE_NAMES[value]}")

    def _family(self) -> None:
        family = self.family.currentData()
        catalog = self.inspector.catalog
        current = catalog.technology(self._d().fabric.technology)
        self._use_technology(family_technology(current, family, catalog))

    def _generation(self) -> None:
        self._use_technology(self.inspector.catalog.technology(self.generation.currentData()))

    def _use_technology(self, tech) -> None:
        """The fabric on `tech` under the rule `counterpart` follows: the servers' own NICs must
        run it, or the same chassis's variant built for it takes their place; else it is refused
        with the same words (an H100's ConnectX-7 never runs XDR)."""
        catalog = self.inspector.catalog
        design = self._d()
        try:
            server, _ = pick_server(design, resolve(design, catalog), tech, catalog)
        except (SizingError, UnknownPartError, ValueError) as exc:
            self.refused.show_lines([("error", f"Not applied: {exc}")])
            self.inspector.editRefused.emit(str(exc))
            self.inspector.reload()
            return
        text = f"Use {tech.name}"
        if server.id != design.cluster.server:
            design = with_server(design, catalog, server.id)
            text += f" on {server.name}"
        self.edit(with_technology(design, catalog, tech.id, choice_cost(catalog)), "fabric.technology", text)

    def _networks(self) -> None:
        key = self.networks.currentData()
        if key is not None:
            new, text = arrangement_edit(self._d(), self.inspector.catalog, key)
            self.edit(new, "networks", text)

    def _switch(self) -> None:
        value = self.switch.currentData()
        name = self.inspector.catalog.switch(value).name
        self.edit(replace_path(self._d(), "fabric.switch", value), "fabric.switch", f"Use {name} switches")

    def _server(self) -> None:
        catalog = self.inspector.catalog
        value = self.server.currentData()
        self.edit(with_server(self._d(), catalog, value), "cluster.server",
                  f"Use {catalog.server(value).name} servers")

    def _servers(self) -> None:
        value = self.servers.value()
        self.edit(replace_path(self._d(), "cluster.servers", value), "cluster.servers", f"Set servers to {value}")

    def _gpus(self) -> None:
        value = self.gpus.value() or None
        d = self._d()
        cluster = dataclasses.replace(d.cluster, gpus_per_server=value, ports_per_server=None)
        text = f"Set GPUs per server to {value}" if value else "Use the server model's GPU count"
        self.edit(dataclasses.replace(d, cluster=cluster), "cluster.gpus_per_server", text)

    def _su(self) -> None:
        value = self.su.value()
        self.edit(replace_path(self._d(), "fabric.nodes_per_su", value), "fabric.nodes_per_su",
                  f"Set servers per SU to {value}")

    def _planes(self) -> None:
        value = self.planes.value()
        self.edit(replace_path(self._d(), "fabric.planes", value), "fabric.planes", f"Set planes to {value}")

    def _tiers(self) -> None:
        value = self.tiers.currentData()
        self.edit(with_tiers(self._d(), value), "fabric.tiers",
                  f"Use {value} tiers" if value else "Pick the tier count automatically")

    def _link(self) -> None:
        value = self.link.currentData()
        self.edit(replace_path(self._d(), "fabric.link_gbps", value), "fabric.link_gbps",
                  f"Set server links to {_speed(value)}" if value else "Use the NIC port speed")


    def _uplink(self) -> None:
        value = self.uplink.currentData()
        self.edit(replace_path(self._d(), "fabric.uplink_gbps", value), "fabric.uplink_gbps",
                  f"Set uplinks to {_speed(value)}" if value else "Use the server link speed between switches")


class TierPage(FormPage):
    inspector: Inspector    # the holder, with all it offers (the base knows only what it asks)

    def __init__(self, inspector):
        super().__init__(inspector)
        self.tier = "leaf"
        self.switch = self.combo("Switch model", "This tier's switch; “Fabric switch” follows the fabric", self._switch)
        self.count = self.spin("Count", "Switches per plane; Auto sizes the tier for the servers", self._count, 0)
        self.split = QLabel()
        self.split.setWordWrap(True)
        self.add("Port split", self.split, "Ports per switch: down to the tier below, up to the tier above")
        self.ratio = QComboBox()
        self.ratio.setEditable(True)
        self.ratio.addItems(RATIOS)
        self.ratio.lineEdit().editingFinished.connect(self._ratio)
        self.ratio.activated.connect(lambda _: self._ratio())
        self.add("Oversubscription", self.ratio, "Downlink : uplink bandwidth, e.g. 1:1 (non-blocking) or 3:1")
        self.link = self.combo("Link speed", "Speed of this tier's uplinks (switch to switch)", self._link)
        self.planes = self.spin("Planes", "Parallel identical fabric planes (all tiers)", self._planes, 1, 16)
        self.device = QLabel()
        self.device.setWordWrap(True)
        self.form.addRow(self.device)

    def load(self, design: FabricDesign, catalog: Catalog, layout, tier: str, device: str | None) -> None:
        self._loading = True
        self.tier = tier
        f = design.fabric
        tech = catalog.technology(f.technology)
        self.title.setText(f"{TIER_LABEL[tier]} tier")
        spec = f.tier(tier)
        fabric_switch = catalog.switch(f.switch)
        leaf = catalog.switch(f.leaf.switch) if f.leaf.switch else fabric_switch
        items: list[tuple[str, str | None]]
        if tier != "leaf" and leaf.fabric_switch:
            # A scheduled fabric's leaf box sprays cells to its own fabric element only: that is
            # the one switch its spine and core tiers can take (sizing refuses any other).
            element = catalog.switch(leaf.fabric_switch)
            items = [(f"Leaf's fabric element ({element.name})", None), (element.name_with_status(), element.id)]
        else:
            # A fabric element takes no servers and no uplinks but its own leaf boxes'.
            items = [(f"Fabric switch ({fabric_switch.name})", None)]
            items += [(s.name_with_status(), s.id) for s in catalog.switches.values()
                      if s.family in (tech.family, "any") and not s.fabric_element]
        self.fill(self.switch, items, spec.switch)
        plan = layout.plan if layout is not None else None
        r = layout.resolved if layout is not None else None
        step = 1
        if plan is not None and r is not None:
            from designer.model.topology.edits import count_step

            step = count_step(design, plan, r, tier)
            self.count.setSpecialValueText(f"Auto ({tier_count(design, plan, tier)})")
            self.count.setSingleStep(step)
        rail_leaf = tier == "leaf" and f.template == "rail-optimized"
        self.count.setValue(0 if spec.count is None or rail_leaf else spec.count)
        self.count.setEnabled(not rail_leaf)
        self.count.setToolTip("Rail-optimized leaves are one per rail of each SU: change the servers instead"
                              if rail_leaf else "Switches per plane; Auto sizes the tier for the servers")
        sw = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}[tier] if r else fabric_switch
        self.split.setText(self._split_text(plan, r, sw, tier))
        self.form.setRowVisible(self.ratio, tier != "core")
        self.ratio.blockSignals(True)
        self.ratio.setEditText(_ratio_text(spec.oversubscription))
        self.ratio.blockSignals(False)
        uplink = r.uplink_gbps if r else None
        speeds = sorted(set(sw.speeds) | ({f.uplink_gbps} if f.uplink_gbps else set()))
        self.fill(self.link, [(f"Auto ({_speed(uplink)})" if uplink else "Auto", None)]
                  + [(_speed(s), s) for s in speeds], f.uplink_gbps)
        self.planes.setValue(f.planes)
        names = {"leaf": "the servers' leaf switches", "spine": "the spine switches", "core": "the core switches"}
        self.subtitle.setText(f"{sw.name}: {sw.radix_label()} — {names[tier]}")
        self.device.setText(f"<i>Selected: {self.inspector.describe(device)}</i>" if device else "")
        self._loading = False

    @staticmethod
    def _split_text(plan, r, sw, tier) -> str:
        if plan is None:
            return "—"
        if tier == "leaf":
            down, up, s_down = plan.leaf_down, plan.leaf_up, r.link_gbps
        elif tier == "spine":
            if plan.tiers == 3:
                down, up = plan.spine_down, plan.spine_up
            else:
                down, up = -(-plan.leaves * plan.leaf_up // max(plan.spines, 1)), 0
            s_down = r.uplink_gbps
        else:
            down = -(-plan.spines * plan.spine_up // max(plan.cores, 1)) if plan.cores else 0
            up, s_down = 0, r.uplink_gbps
        n_down = sw.ports_at(s_down) or sw.ports_at(sw.max_gbps)
        n_up = sw.ports_at(r.uplink_gbps) or n_down
        used = down / n_down + (up / n_up if up else 0)
        text = f"{down} down × {_speed(s_down)}"
        if up:
            text += f" + {up} up × {_speed(r.uplink_gbps)}"
        text += f" of {n_down}"
        if used > 1 + 1e-9:
            return f"<span style='color:{ERROR_HUE}'><b>{text}: {used:.0%} of the switch</b></span>"
        return text

    def _d(self) -> FabricDesign:
        return self.inspector.design()

    def _switch(self) -> None:
        value = self.switch.currentData()
        name = self.inspector.catalog.switch(value).name if value else "the fabric switch"
        self.edit(replace_path(self._d(), f"fabric.{self.tier}.switch", value), f"fabric.{self.tier}.switch",
                  f"Use {name} in the {self.tier} tier")

    def _count(self) -> None:
        layout = self.inspector.layout()
        value = self.count.value() or None
        d = self._d()
        new = with_tier_count(d, layout.plan, layout.resolved, self.tier, value)
        text = f"Resize {self.tier} tier to {value}" if value else f"Size the {self.tier} tier automatically"
        self.edit(new, f"fabric.{self.tier}.count", text)

    def _ratio(self) -> None:
        if self._loading:
            return
        text = self.ratio.currentText()
        try:
            value = parse_ratio(text)
        except ValueError as exc:
            self.refused.show_lines([("error", str(exc))])
            return
        if value == self._d().fabric.tier(self.tier).oversubscription:
            self.refused.show_lines([])
            return
        self.edit(replace_path(self._d(), f"fabric.{self.tier}.oversubscription", value),
                  f"fabric.{self.tier}.oversubscription", f"Set {self.tier} oversubscription to {value:g}:1")

    def _link(self) -> None:
        value = self.link.currentData()
        self.edit(replace_path(self._d(), "fabric.uplink_gbps", value), "fabric.uplink_gbps",
                  f"Set switch links to {_speed(value)}" if value else "Use the server link speed between switches")

    def _planes(self) -> None:
        value = self.planes.value()
        self.edit(replace_path(self._d(), "fabric.planes", value), "fabric.planes", f"Set planes to {value}")


class Inspector(QScrollArea):
    """Shows and edits what is selected: a tier (or a device of it), else the whole fabric."""

    editRefused = Signal(str)
    """An edit was not applied because the design could not be sized; carries the reason."""

    def __init__(self, controller, catalog: Catalog, parent=None, synchronous: bool = False):
        super().__init__(parent)
        self.controller = controller
        self.catalog = catalog
        self.synchronous = synchronous
        self.port_modes: PortModesDialog | None = None    # made when first asked for
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the forms wrap instead
        self.stack = QStackedWidget()
        self.empty = QLabel("Nothing to inspect yet.\n\nDrag a fabric template from the palette onto the canvas.")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setEnabled(False)
        self.fabric_page = FabricPage(self)
        self.tier_page = TierPage(self)

        self.network_page = NetworkPage(self)
        for page in (self.empty, self.fabric_page, self.tier_page, self.network_page):
            self.stack.addWidget(page)
        self.setWidget(self.stack)
        self.compact = False
        self._findings: tuple[Finding, ...] = ()
        controller.displayChanged.connect(self._on_display)
        controller.selection.changed.connect(self.reload)
        controller.networkChanged.connect(self.reload)
        controller.document.loaded.connect(self.clear_refusals)
        self.reload()

    def show_port_modes(self) -> PortModesDialog:
        """Open (or raise) the table of port modes, following the open design."""
        if self.port_modes is None:
            self.port_modes = PortModesDialog(self.catalog, self.synchronous, self.window())
            self.port_modes.modeChosen.connect(self._use_port_mode)
            self.controller.document.designChanged.connect(self._follow_port_modes)
        self.port_modes.set_design(self.design())
        self.port_modes.show()
        self.port_modes.raise_()
        self.port_modes.activateWindow()
        return self.port_modes

    def _follow_port_modes(self, *_) -> None:
        if self.port_modes is not None:
            self.port_modes.set_design(self.design())

    def _use_port_mode(self, new: FabricDesign, text: str) -> None:
        """The mode chosen in the table: its switch and uplink speed, one step on the undo stack."""
        problem = self.commit(new, "fabric.port_mode", text)
        self.fabric_page.refused.show_lines([("error", f"Not applied: {problem}")] if problem else [])

    def clear_refusals(self) -> None:
        """Another design was opened: an earlier edit's refusal no longer speaks of it."""
        for page in (self.fabric_page, self.tier_page, self.network_page):
            page.refused.show_lines([])

    # what pages ask
    def design(self) -> FabricDesign:
        return self.controller.document.design

    def layout(self):
        return self.controller.display.layout

    def describe(self, element: str) -> str:
        return self.controller.describe(element)

    def commit(self, new: FabricDesign, field: str, text: str) -> str | None:
        problem = self.controller.apply_edit(new, field, text)
        if problem:
            self.editRefused.emit(problem)
        return problem

    def current_tier(self) -> str | None:
        tiers = [t for t in self.controller.selection.tiers() if t != "servers"]
        return tiers[0] if len(tiers) == 1 else None

    def _on_display(self, display) -> None:
        # A drag preview leaves the document as it is, and so the form: no rebuild per mouse move.
        if not display.preview:
            self.reload()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._cap_choices()

    def _cap_choices(self) -> None:
        """No choice asks for more than the panel's width (its page's and form's margins left out), so a long
        server name never pushes the form, and the end of every row, past the panel's edge."""
        room = max(80, self.viewport().width() - 30)
        for page in (self.fabric_page, self.tier_page, self.network_page):
            for box in page.findChildren(WholeCombo):
                box.set_cap(room)

    def set_compact(self, compact: bool) -> None:
        """Tighter rows when the panel is too short for the form at the style's spacing (a long
        fabric form on a 1280x800 screen), so that every row stays whole without scrolling."""
        if compact == self.compact:
            return
        self.compact = compact
        for page in (self.fabric_page, self.tier_page, self.network_page):
            page.form.setVerticalSpacing(2 if compact else -1)
            page.form.invalidate()
            layout = page.layout()
            if layout is not None:
                layout.activate()   # the size hint the main window reads next is the new one
            page.updateGeometry()

    def reload(self, *_) -> None:
        """Show the document's design (not a drag preview: the form edits the document)."""
        design = self.controller.document.design
        display = self.controller.display
        layout = display.layout if display.design is design else None
        if design is None:
            self.stack.setCurrentWidget(self.empty)
            return
        tier = self.current_tier()
        role = self.controller.network
        if role != "compute" and design.network(role) is not None:
            self.network_page.load(design, self.catalog, role)
            self.stack.setCurrentWidget(self.network_page)
            return
        if tier is not None and (layout is None or tier in layout.rows):
            devices = [e for e in self.controller.selection.elements if not e.startswith(("tier:", "block:", "edit:"))]
            self.tier_page.load(design, self.catalog, layout, tier, devices[0] if len(devices) == 1 else None)
            self.stack.setCurrentWidget(self.tier_page)
        else:
            self.fabric_page.load(design, self.catalog, layout)
            self.stack.setCurrentWidget(self.fabric_page)
        self._show_problems()

    def set_findings(self, findings) -> None:
        """Findings of the document's design, shown under the form they concern."""
        self._findings = tuple(findings or ())
        self._show_problems()

    def _show_problems(self) -> None:
        page = self.stack.currentWidget()
        if not isinstance(page, FormPage):
            return
        tier = page.tier if isinstance(page, TierPage) else None
        lines: list[tuple[str, str]] = []
        for f in self._findings:
            if f.severity == "info":
                continue
            element = f.element or ""
            owner = element if element in TIER_LABEL else element.split(".")[-1].rsplit("-", 1)[0]
            if tier is None or owner == tier:
                lines.append((f.severity, f.message))
        more = len(lines) - 4
        lines = lines[:4] + ([("warning", f"… and {more} more in Findings")] if more > 0 else [])
        page.problems.show_lines(lines)

