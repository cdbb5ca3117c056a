"""The inspector's form for one network of the cluster beside the compute fabric.

Every change builds a new design (its `networks` with one network replaced) and goes through the
controller's apply_edit: one undo step on the document's one stack, as every other inspector edit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtWidgets import QDoubleSpinBox, QLabel

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.intent.networks import ROLE_LABELS, NetworkSpec
from designer.model.networks.sizing import (
    server_ports,
    size_networks,
    template_switch_count,
)
from designer.model.topology.sizing import SizingError
from designer.ui.panels.form_page import FormPage


class NetworkPage(FormPage):
    def __init__(self, inspector):
        super().__init__(inspector)
        self.role = ""
        self.switch = self.combo("Switch", "The leaf (or management) switch of this network", self._switch)
        self.spine = self.combo("Spine switch", "The spine switch (leaf pairs with more than one pair)",
                                self._spine)
        self.ports = self.spin("Ports per server", "0 takes the server model's ports for this role",
                               self._ports, 0, 64)
        self.speed = self.spin("Port speed (Gb/s)", "0 takes the server model's speed for this role",
                               self._speed, 0, 1600)
        self.ratio = QDoubleSpinBox()
        self.ratio.setRange(0.25, 20)
        self.ratio.setSingleStep(0.5)
        self.ratio.setKeyboardTracking(False)
        self.ratio.valueChanged.connect(lambda _: None if self._loading else self._ratio())
        self.add("Oversubscription", self.ratio, "Leaf downlink : uplink bandwidth (1 = non-blocking)")
        self.storage = QDoubleSpinBox()
        self.storage.setRange(0, 1000)
        self.storage.setSingleStep(0.5)
        self.storage.setSuffix(" GB/s per GPU")
        self.storage.setKeyboardTracking(False)
        self.storage.valueChanged.connect(lambda _: None if self._loading else self._storage())
        self.add("Storage bandwidth", self.storage, "Storage appliance bandwidth asked per GPU (0: none)")
        self.per_rack = self.spin("Switches per rack", "0: as the RA gives it, else by port count",
                                  self._per_rack, 0, 16)
        self.availability = QLabel()
        self.availability.setWordWrap(True)
        self.add("Available", self.availability, "When this network's switches ship, as their sources say")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.add("Sized", self.summary, "Switches and links of this network, sized in closed form")

    def net(self) -> NetworkSpec | None:
        design = self.inspector.design()
        return design.network(self.role) if design is not None else None

    def load(self, design: FabricDesign, catalog: Catalog, role: str) -> None:
        self._loading = True
        self.role = role
        net = design.network(role)
        assert net is not None
        self.title.setText(net.label)
        self.subtitle.setText(f"{ROLE_LABELS[role]}; template {net.template}, {net.technology}. "
                              "The compute fabric stays the default view.")
        family = catalog.switches[net.switch].family if net.switch in catalog.switches else None
        switches = [(s.name_with_status(), s.id) for s in catalog.switches.values() if family in (None, s.family)]
        self.fill(self.switch, switches, net.switch)
        self.fill(self.spine, switches, net.spine_switch or net.switch)
        # The parts' currency beside them, as the compute fabric's page shows it (sources in the tooltip).
        parts = [catalog.switch(i) for i in dict.fromkeys((net.switch, net.spine_switch or net.switch))
                 if i in catalog.switches]
        self.switch.setToolTip(parts[0].currency_note() if parts else "")
        self.spine.setToolTip(parts[-1].currency_note() if parts else "")
        self.availability.setText(" · ".join(f"{p.name} {p.short_currency()}" for p in parts) or "not stated")
        self.availability.setToolTip("\n".join(p.currency_note() for p in parts))
        ports, gbps, _ = server_ports(net, catalog.server(design.cluster.server))
        self.ports.setSpecialValueText(f"Model default ({ports})")
        self.ports.setValue(net.ports_per_server or 0)
        self.speed.setSpecialValueText(f"Model default ({gbps}G)")
        self.speed.setValue(net.port_gbps or 0)
        self.ratio.setValue(net.oversubscription)
        self.storage.setValue(net.storage_GBps_per_gpu)
        server = catalog.server(design.cluster.server)
        self.per_rack.setSpecialValueText(f"As the RA gives it ({server.mgmt_switches_per_rack})"
                                          if server.mgmt_switches_per_rack else "By port count")
        self.per_rack.setValue(net.switches_per_rack or 0)
        pairs = net.template == "leaf-pair-spine"
        own = net.template != "segment"     # a segment has no switches or ports of its own to set
        for widget, shown in ((self.switch, own), (self.availability, own), (self.ports, own), (self.speed, own),
                              (self.spine, pairs), (self.ratio, pairs),
                              (self.storage, own and net.role != "oob"), (self.per_rack, net.role == "oob")):
            self.form.setRowVisible(widget, shown)
        try:
            compute = template_switch_count(design, catalog)
        except (SizingError, ValueError, KeyError):
            compute = 0
        size = next((s for s in size_networks(design, catalog, compute) if s.role == role), None)
        if size is not None and size.template == "segment" and not size.errors:
            self.summary.setText("<br>".join(
                [f"no switches or cables of its own: a segment of {ROLE_LABELS.get(size.carried_by, '')}",
                 f"{size.shared_ports:,} x {size.shared_gbps}G server ports shared with it"]
                + list(size.notes[1:2])))
            self.problems.show_lines([])
        elif size is not None:
            self.summary.setText("<br>".join(
                [", ".join(f"{g.count:,} {g.tier}" for g in size.switches) or "no switches of its own"]
                + [f"{g.count:,} x {g.gbps}G {g.kind}" for g in size.links]))
            self.problems.show_lines([("error", e) for e in size.errors])
        self._loading = False

    def _change(self, field: str, value: Any, text: str) -> None:
        design = self.inspector.design()
        net = self.net()
        if design is None or net is None:
            return
        try:
            new_net = dataclasses.replace(net, **{field: value})
        except ValueError as exc:
            self.refused.show_lines([("error", f"Not applied: {exc}")])
            return
        nets = tuple(new_net if n.role == self.role else n for n in design.networks)
        self.edit(dataclasses.replace(design, networks=nets), f"networks.{self.role}.{field}",
                  f"{net.label}: {text}")

    def _switch(self) -> None:
        self._change("switch", self.switch.currentData(), f"use {self.switch.currentText()}")

    def _spine(self) -> None:
        self._change("spine_switch", self.spine.currentData(), f"spines {self.spine.currentText()}")

    def _ports(self) -> None:
        self._change("ports_per_server", self.ports.value() or None, "ports per server")

    def _speed(self) -> None:
        self._change("port_gbps", self.speed.value() or None, "port speed")

    def _ratio(self) -> None:
        self._change("oversubscription", self.ratio.value(), f"oversubscription {self.ratio.value():g}:1")

    def _storage(self) -> None:
        self._change("storage_GBps_per_gpu", self.storage.value(), "storage bandwidth")

    def _per_rack(self) -> None:
        self._change("switches_per_rack", self.per_rack.value() or None, "switches per rack")

