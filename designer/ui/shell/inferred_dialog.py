"""Tools > Inferred Design...: each figure inferred from a capture with its evidence, and the
figures the user may correct (server model, servers, group size, rails, spines).

The corrections are the same keys as `fabric-designer import --set KEY=VALUE`; the capture is
then imported again on the corrected design and audited, as the command line does.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import Catalog
from designer.model.decisions.audit_answer import CaptureAnswer

AS_INFERRED = "as inferred"


class InferredDesignDialog(QDialog):
    def __init__(self, parent: QWidget | None, answer: CaptureAnswer, catalog: Catalog) -> None:
        super().__init__(parent)
        self.setObjectName("inferredDesignDialog")
        self.setWindowTitle("Inferred Design")
        self.resize(820, 520)
        layout = QVBoxLayout(self)
        intro = QLabel("What the capture says, figure by figure, and the evidence behind each. Correct a "
                       "figure below and the capture is imported and audited again on the corrected design "
                       "(the command line's import --set).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        facts = answer.inference.facts
        self.table = QTableWidget(len(facts), 4)
        self.table.setObjectName("inferredFacts")
        self.table.setHorizontalHeaderLabels(["Figure", "Inferred", "Confidence", "Evidence"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        for row, fact in enumerate(facts):
            for col, text in enumerate((fact.subject, fact.value, fact.confidence, fact.why)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                self.table.setItem(row, col, cell)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)
        for problem in answer.inference.problems:
            note = QLabel(f"Note: {problem}")
            note.setWordWrap(True)
            layout.addWidget(note)

        design = answer.against
        form = QFormLayout()
        self.server = QComboBox()
        self.server.setObjectName("inferredServer")
        self.server.addItem(f"{AS_INFERRED} ({design.cluster.server if design else 'none'})", "")
        # The models the evidence leaves first, then the rest of the catalog.
        servers = getattr(catalog, "servers", {})
        fits = [sid for sid in answer.inference.server_candidates if sid in servers]
        for sid in fits:
            self.server.addItem(f"{servers[sid].name} ({sid}): fits the evidence", sid)
        for sid, server in sorted(servers.items()):
            if sid not in fits:
                self.server.addItem(f"{server.name} ({sid})", sid)
        form.addRow("Server model", self.server)
        self._initial: dict[str, int] = {}
        self.counts: dict[str, QSpinBox] = {}
        plan = answer.inference.derived.plan if answer.inference.derived is not None else None
        inferred = {
            "servers": design.cluster.servers if design else 0,
            "nodes_per_su": design.fabric.nodes_per_su if design else 0,
            "rails": (design.cluster.ports_per_server or _ports(catalog, design.cluster.server)) if design else 0,
            "spines": plan.spines if plan is not None else 0,
        }
        labels = {"servers": "Servers", "nodes_per_su": "Servers per group (SU)", "rails": "Rails (HCAs per server "
                  "in this fabric)", "spines": "Spines"}
        for key, label in labels.items():
            box = QSpinBox()
            box.setObjectName(f"inferred_{key}")
            box.setRange(1, 1_000_000)
            box.setValue(max(1, inferred[key]))
            self._initial[key] = box.value()
            self.counts[key] = box
            form.addRow(label, box)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        if ok is not None:
            ok.setText("Audit Again")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def corrections(self) -> dict[str, str]:
        """The figures the user changed, as `--set` keys and values."""
        out: dict[str, str] = {}
        server = self.server.currentData()
        if server:
            out["server"] = str(server)
        for key, box in self.counts.items():
            if box.value() != self._initial[key]:
                out[key] = str(box.value())
        return out


def _ports(catalog: Catalog, server_id: str) -> int:
    server = getattr(catalog, "servers", {}).get(server_id)
    return server.compute_ports if server is not None else 0
