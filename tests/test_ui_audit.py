"""File > Import Fabric Capture and Tools > Audit Against... in the window."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt

from designer.io.ibnetdiscover import write_ibnetdiscover
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("audit-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("audit-window")


def _design():
    return FabricDesign(cluster=ClusterSpec(servers=64), fabric=FabricSpec(template="rail-optimized"))


def test_import_opens_the_capture_as_an_unsaved_design(open_window, tmp_path):
    write_ibnetdiscover(_design(), tmp_path / "f.topo")
    window = open_window()
    assert window.audit.import_file(str(tmp_path / "f.topo"))
    design = window.document.design
    assert design.fabric.template == "rail-optimized" and design.cluster.servers == 64
    assert window.document.modified and window.document.path is None


def test_bad_capture_changes_nothing(open_window, tmp_path):
    (tmp_path / "bad.topo").write_bytes(b"\x00\x01binary")
    window = open_window(_design())
    before = window.document.design
    assert not window.audit.import_file(str(tmp_path / "bad.topo"))
    assert window.document.design is before
    assert window.dialogs.errors and "binary" in window.dialogs.errors[-1][-1]


def test_audit_overlays_findings_and_the_list_selects(open_window, tmp_path):
    design = _design()
    write_ibnetdiscover(dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-3", 1),
                                                           Edit("remove-device", "spine-8"))), tmp_path / "f.topo")
    window = open_window(design)
    window.audit.audit_file(str(tmp_path / "f.topo"))
    report = window.audit.report
    assert report is not None and len(report.missing_links) == 1 and len(report.missing_devices) == 1
    overlay = window.audit.overlay
    # only the faulty link and the absent spine are marked
    assert [(a, b, dashed) for a, b, _, dashed in overlay.lines] == [("leaf-2", "spine-3", True)]
    assert overlay.ghosts == ["spine-8"]
    panel = window.audit.panel
    assert panel.model.rowCount() == 2 and window.audit.dock.isVisible()
    row = next(r for r in range(panel.proxy.rowCount()) if panel.proxy.index(r, 3).data() == "Missing link")
    panel.table.selectRow(row)
    assert window.controller.selection.elements == frozenset({"leaf-2"})
    assert overlay.focus is not None and overlay.focus[0][0][:2] == ("leaf-2", "spine-3")


def test_the_panel_shows_the_cli_summary_sorts_filters_and_exports(open_window, tmp_path, capsys):
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from capture_factory import make_capture

    from designer.cli.main import main
    from designer.io.project import save_design
    from designer.model.topology.derive import derive
    design = _design()
    capture = next(c for c in (make_capture(derive(design), seed) for seed in range(200))
                   if c.faults.swaps and c.faults.missing_uplinks and c.faults.default_named)
    (tmp_path / "f.topo").write_text(capture.text)
    save_design(design, tmp_path / "d.json")
    window = open_window(design)
    window.audit.audit_file(str(tmp_path / "f.topo"))
    panel = window.audit.panel
    shown = [panel.summary.item(i).text() for i in range(panel.summary.count())]
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "f.topo"), "--against", str(tmp_path / "d.json")]) == 0
    printed = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip() not in ("", "Summary")]
    # the inferred figures, the notes, then the summary, line for line as the CLI prints them
    assert shown[0].startswith("Inferred:") and shown == printed[:len(shown)]
    # impact cards, as the metrics are written
    cards = panel.findChildren(__import__("PySide6.QtWidgets", fromlist=["QFrame"]).QFrame, "auditImpactCard")
    assert cards and any("Tb/s" in c.findChildren(__import__("PySide6.QtWidgets", fromlist=["QLabel"]).QLabel)[1].text()
                         for c in cards)
    # a summary line filters the table to its kind; text filters too
    swap_line = next(i for i in range(panel.summary.count()) if panel.summary.item(i).text().startswith("Swapped"))
    panel.summary.itemClicked.emit(panel.summary.item(swap_line))
    assert panel.visible_rows() == len(capture.faults.swaps) + len(capture.faults.crossed)
    panel.kind.setCurrentIndex(0)
    panel.filter.setText("each other")
    assert panel.visible_rows() == len(capture.faults.swaps) + len(capture.faults.crossed) < panel.model.rowCount()
    panel.filter.setText("")
    # sorting by port, descending
    panel.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    ports = [panel.proxy.index(r, 2).data() for r in range(panel.proxy.rowCount())]
    numbers = [int(p) for p in ports if p]
    assert numbers == sorted(numbers, reverse=True)
    # CSV export, the rows of audit --csv
    assert window.audit.export_csv(str(tmp_path / "a.csv"))
    assert main(["audit", str(tmp_path / "f.topo"), "--against", str(tmp_path / "d.json"), "--json",
                 "--csv", str(tmp_path / "b.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_the_legend_and_findings_agree(open_window, tmp_path):
    window = open_window(_design())
    legend = window.view.legend
    kinds = [kind for kind, *_ in legend.entries()]
    assert ("problem" in kinds) == bool(legend.problems)
    write_ibnetdiscover(dataclasses.replace(_design(), edits=(Edit("remove-links", "leaf-2", "spine-3", 1),)),
                        tmp_path / "f.topo")
    window.audit.audit_file(str(tmp_path / "f.topo"))
    labels = [texts[0] for _, texts, _ in legend.entries()]
    assert "Audit: missing link or absent device" in labels and "Audit: degraded link" not in labels
    window.audit.clear()
    assert not [t for _, (t, *_), _ in legend.entries() if t.startswith("Audit")]


def test_import_opens_an_lldp_capture_as_its_inferred_ethernet_design(open_window, tmp_path):
    from designer.io.lldp import export_lldp_json as lldp_capture
    from designer.model.topology.derive import derive
    design = FabricDesign(cluster=ClusterSpec(servers=32),
                          fabric=FabricSpec(template="rail-optimized", technology="roce-400g", switch="sn5600"))
    broken = dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-2", 1),))
    (tmp_path / "lldp.json").write_text(lldp_capture(derive(broken)))
    window = open_window()
    assert window.audit.import_file(str(tmp_path / "lldp.json"))
    opened = window.document.design
    assert (opened.fabric.template, opened.fabric.switch, opened.cluster.servers) == ("rail-optimized", "sn5600", 32)
    assert opened.edits == (Edit("remove-links", "leaf-2", "spine-2", 1),)


def test_a_capture_audited_on_its_own_opens_that_audit(open_window, tmp_path):
    import json

    from designer.io.lldp import export_lldp_json as lldp_capture
    from designer.model.topology.derive import derive

    design = FabricDesign(cluster=ClusterSpec(servers=8),
                          fabric=FabricSpec(template="rail-optimized", technology="roce-400g", switch="sn5600"))
    records = json.loads(lldp_capture(derive(design)))
    for record in records:   # without link rates no design can be inferred: the CLI audits it on its own
        data = json.loads(record["data"])
        for item in data["lldp"]["interface"]:
            for entry in item.values():
                entry["port"].pop("auto-negotiation", None)
        record["data"] = json.dumps(data)
    (tmp_path / "lldp.json").write_text(json.dumps(records))
    window = open_window(_design())
    before = window.document.design
    assert not window.audit.import_file(str(tmp_path / "lldp.json"))
    assert window.document.design is before and window.dialogs.errors == []
    assert window.audit.report is not None and window.audit.dock.isVisible()
    assert any("no link rates" in p for p in window.audit.report.inferred["problems"])
    assert "no link rates" in window.statusBar().currentMessage()
    summary = window.audit.panel.summary
    lines = [summary.item(i).text() for i in range(summary.count())]
    assert "built as designed" not in window.audit.panel.title.text()
    assert lines[0].startswith("Audited on its own, without a design: the capture reports no link rates")
    # what was read from the capture, as the CLI prints it
    assert any(line.startswith("Inferred:") and "servers 8 (high)" in line for line in lines), lines
    assert not any("built as designed" in line for line in lines)


def test_findings_and_summary_lines_show_whole_in_a_narrow_dock(make_window, tmp_path):
    """The summary's first line ran off under a sideways scroll bar and each finding ended in
    '...': the lines wrap, a few findings' rows grow to their text, and the chosen finding is
    written in full under the table."""
    from PySide6.QtWidgets import QHeaderView

    design = _design()
    write_ibnetdiscover(dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-3", 1),
                                                           Edit("remove-device", "spine-8"))), tmp_path / "f.topo")
    window = make_window(design)
    window.audit.audit_file(str(tmp_path / "f.topo"))
    panel = window.audit.panel
    panel.resize(700, 300)
    panel.show()
    assert panel.summary.wordWrap()
    assert panel.summary.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert panel.table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.ResizeToContents
    finding = panel.model.columnCount() - 1
    for row in range(panel.proxy.rowCount()):
        text = panel.proxy.index(row, finding).data()
        assert panel.proxy.index(row, finding).data(Qt.ItemDataRole.ToolTipRole) == text
    panel.table.selectRow(0)
    chosen = panel.proxy.index(0, finding).data()
    assert chosen and chosen in panel.detail.text()
    window.audit.panel.set_report(None)
    assert panel.detail.text() == ""


def test_the_audit_dock_fits_beside_the_inspector_at_1280_by_800(make_window, tmp_path):
    """After an import at 1280x800 the four impact cards side by side made the Audit dock wider
    than the room left of the Inspector, and the findings ran on under it."""
    design = _design()
    write_ibnetdiscover(dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-3", 1),)),
                        tmp_path / "f.topo")
    window = make_window(design)
    window.resize(1280, 800)
    window.audit.audit_file(str(tmp_path / "f.topo"))
    panel = window.audit.panel
    assert panel.cards.count() >= 4                      # the impact cards, two a row
    room = window.width() - window.docks["inspector"].width()
    assert panel.minimumSizeHint().width() <= room
    dock = window.audit.dock
    right_edge = dock.mapTo(window, dock.rect().topRight()).x()
    assert right_edge <= window.docks["inspector"].mapTo(window, window.docks["inspector"].rect().topLeft()).x()
