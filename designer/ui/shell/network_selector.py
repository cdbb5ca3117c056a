"""The canvas's network selector: which network of the cluster the window draws.

The compute fabric stays the default view (its canvas, unchanged); choosing another network
shows that network's canvas in its place, and the inspector shows its form. The choice is a view
setting held by the controller (`network`), not an edit: nothing goes on the undo stack.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QStackedWidget, QToolBar

from designer.model.intent.design import FabricDesign
from designer.model.intent.networks import ROLE_LABELS
from designer.ui.canvas.network_view import NetworkScene, NetworkView


class NetworkSelector(QComboBox):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("networkSelector")
        self.setToolTip("The network of the cluster the canvas draws (the compute fabric by default)")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._filling = False
        controller.document.designChanged.connect(self._fill)
        controller.networkChanged.connect(self._follow)
        self.currentIndexChanged.connect(self._chosen)
        self._fill(controller.document.design)

    def _fill(self, design: FabricDesign | None) -> None:
        self._filling = True
        self.clear()
        self.addItem(ROLE_LABELS["compute"], "compute")
        for net in design.networks if design is not None else ():
            self.addItem(net.label, net.role)
        self.setEnabled(self.count() > 1)
        self._filling = False
        self._follow(self.controller.network)

    def _follow(self, role: str) -> None:
        index = self.findData(role)
        if index >= 0 and index != self.currentIndex():
            self._filling = True
            self.setCurrentIndex(index)
            self._filling = False

    def _chosen(self, index: int) -> None:
        if not self._filling and index >= 0:
            self.controller.set_network(self.itemData(index))


def install_network_canvas(window, toolbar: QToolBar) -> None:
    """Put the compute canvas and the network canvas in one stack at the window's centre, and the
    selector on the toolbar; the stack follows the controller's network."""
    controller = window.controller
    window.network_scene = NetworkScene(controller, window.theme, parent=window)
    window.network_view = NetworkView(window.network_scene)
    stack = QStackedWidget()
    stack.setObjectName("canvasStack")
    stack.addWidget(window.view)
    stack.addWidget(window.network_view)
    window.setCentralWidget(stack)
    window.canvas_stack = stack
    toolbar.addSeparator()
    toolbar.addWidget(QLabel(" Network: "))
    window.network_selector = NetworkSelector(controller)
    toolbar.addWidget(window.network_selector)

    def show(role: str) -> None:
        stack.setCurrentWidget(window.view if role == "compute" else window.network_view)

    controller.networkChanged.connect(show)
