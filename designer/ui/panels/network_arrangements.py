"""The choice of the cluster's network arrangement on the inspector's fabric form.

Choosing one replaces the design's `networks` (the compute fabric is left as it is): one undo
step through the controller, as every inspector edit.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.intent.networks import NetworkSpec
from designer.model.networks.defaults import (
    ARRANGEMENT_LABELS,
    converged_networks,
    ra_networks,
)

# The arrangements the fabric form offers (the compute fabric itself is not changed by them).
WINDOW_ARRANGEMENTS = ("ra", "compute", "hybrid", "merged")


def arrangement_networks(design: FabricDesign, catalog: Catalog, key: str) -> tuple[NetworkSpec, ...]:
    server = catalog.server(design.cluster.server)
    if key == "ra":
        return ra_networks(server)
    if key == "hybrid":
        return converged_networks(server)
    if key == "merged":
        return converged_networks(server, merged=True)
    return ()


def current_arrangement(design: FabricDesign, catalog: Catalog) -> str | None:
    for key in WINDOW_ARRANGEMENTS:
        if design.networks == arrangement_networks(design, catalog, key):
            return key
    return None   # networks edited by hand


# Short enough to sit beside their label in the inspector at 1280x800 (the full wording, shared
# with the command line, is each choice's tooltip).
SHORT_LABELS = {"ra": "As the reference architecture", "compute": "Compute fabric only",
                "hybrid": "Hybrid: Ethernet storage", "ethernet": "All-Ethernet",
                "merged": "Merged into converged"}


def fill_arrangements(box: QComboBox, design: FabricDesign, catalog: Catalog) -> None:
    box.clear()
    ethernet = catalog.technology(design.fabric.technology).family == "ethernet"
    for key in WINDOW_ARRANGEMENTS:
        if key == "merged" and not ethernet:
            continue   # the converged ports can ride only on an Ethernet compute fabric
        if key == "compute" or arrangement_networks(design, catalog, key):
            box.addItem(SHORT_LABELS[key], key)
            box.setItemData(box.count() - 1, ARRANGEMENT_LABELS[key].capitalize(), Qt.ItemDataRole.ToolTipRole)
    current = current_arrangement(design, catalog)
    if current is None:
        box.addItem("Edited networks", None)
    index = box.findData(current)
    box.setCurrentIndex(index if index >= 0 else box.count() - 1)


def arrangement_edit(design: FabricDesign, catalog: Catalog, key: str) -> tuple[FabricDesign, str]:
    new = dataclasses.replace(design, networks=arrangement_networks(design, catalog, key))
    return new, f"Networks: {ARRANGEMENT_LABELS[key]}"
