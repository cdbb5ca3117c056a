"""File > Import Fabric Capture and Tools > Audit Against... in the window."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt

from designer.io.ibnetdiscover import write_ibnetdiscover
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec


def _design():
    return FabricDesign(cluster=ClusterSpec(servers=64), fabric=FabricSpec(template="rail-optimized"))


def test_import_opens_the_capture_as_an_unsaved_design(make_window, tmp_path):
    write_ibnetdiscover(_design(), tmp_path / "f.topo")
    window = make_window()
    assert window.audit.import_file(str(tmp_path / "f.topo"))
    design = window.document.design
    assert design.fabric.template == "rail-optimized" and design.cluster.servers == 64
    assert window.document.modified and window.document.path is None


def test_bad_capture_changes_nothing(make_window, tmp_path):
    (tmp_path / "bad.topo").write_bytes(b"\x00\x01binary")
    window = make_window(_design())
    before = window.document.design
    assert not window.audit.import_file(str(tmp_path / "bad.topo"))
    assert window.document.design is before
    assert window.dialogs.errors and "binary" in window.dialogs.errors[-1][-1]


def test_audit_overlays_findings_and_the_list_selects(make_window, tmp_path):
    design = _design()
    write_ibnetdiscover(dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-3", 1),
                                                           Edit("remove-device", "spine-8"))), tmp_path / "f.topo")
    window = make_window(design)
    window.audit.audit_file(str(tmp_path / "f.topo"))
    report = window.audit.report
    assert report is not None and len(report.missing_links) == 1 and len(report.missing_devices) == 1
    overlay = window.audit.overlay
    assert any(dashed and color == overlay.lines[0][2] for *_, color, dashed in overlay.lines)
    assert overlay.ghosts == ["spine-8"]
    items = window.audit.findings
    assert items.count() == 2 and window.audit.dock.isVisible()
    row = next(i for i in range(items.count()) if "missing link" in items.item(i).text())
    items.itemClicked.emit(items.item(row))
    assert window.controller.selection.elements == frozenset({items.item(row).data(Qt.ItemDataRole.UserRole)})


def test_import_opens_an_lldp_capture_as_its_inferred_ethernet_design(make_window, tmp_path):
    from designer.io.lldp import export_lldp_json as lldp_capture
    from designer.model.topology.derive import derive
    design = FabricDesign(cluster=ClusterSpec(servers=32),
                          fabric=FabricSpec(template="rail-optimized", technology="roce-400g", switch="sn5600"))
    broken = dataclasses.replace(design, edits=(Edit("remove-links", "leaf-2", "spine-2", 1),))
    (tmp_path / "lldp.json").write_text(lldp_capture(derive(broken)))
    window = make_window()
    assert window.audit.import_file(str(tmp_path / "lldp.json"))
    opened = window.document.design
    assert (opened.fabric.template, opened.fabric.switch, opened.cluster.servers) == ("rail-optimized", "sn5600", 32)
    assert opened.edits == (Edit("remove-links", "leaf-2", "spine-2", 1),)


def test_a_capture_audited_on_its_own_opens_that_audit(make_window, tmp_path):
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
    window = make_window(_design())
    before = window.document.design
    assert not window.audit.import_file(str(tmp_path / "lldp.json"))
    assert window.document.design is before and window.dialogs.errors == []
    assert window.audit.report is not None and window.audit.dock.isVisible()
    assert any("no link rates" in p for p in window.audit.report.inferred["problems"])
    assert "no link rates" in window.statusBar().currentMessage()
    lines = [window.audit.findings.item(i).text() for i in range(window.audit.findings.count())]
    assert lines[0].startswith("Audited on its own, without a design: the capture reports no link rates")
    assert "Read from the capture: servers 8 (high)" in lines
    assert not any("built as designed" in line for line in lines)
