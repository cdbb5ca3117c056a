"""One capture, one answer: the window's Import and Audit Against and the CLI's `import` and
`audit` give the same inferred design and the same findings, and `--set` / the Inferred design
dialog correct the inference before the audit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from capture_factory import make_capture  # noqa: E402

from designer.cli.main import main
from designer.io.project import load_design
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.topology.derive import derive


def _faulty_capture(tmp_path: Path) -> Path:
    design = FabricDesign(cluster=ClusterSpec(servers=64), fabric=FabricSpec(template="rail-optimized"))
    capture = next(c for c in (make_capture(derive(design), seed) for seed in range(100))
                   if c.faults.swaps and c.faults.missing_uplinks and c.faults.absent_switches)
    path = tmp_path / "f.topo"
    path.write_text(capture.text)
    return path


def _cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_the_four_paths_give_one_inference_and_the_same_findings(make_window, tmp_path, capsys, monkeypatch):
    path = _faulty_capture(tmp_path)
    cli_audit = _cli_json(capsys, "audit", str(path), "--json")
    assert main(["import", str(path), "-o", str(tmp_path / "p.json")]) == 0
    cli_import = load_design(tmp_path / "p.json")

    import designer.ui.shell.audit_actions as audit_actions
    calls = []
    real = audit_actions.read_answer
    monkeypatch.setattr(audit_actions, "read_answer", lambda *a, **k: calls.append(a) or real(*a, **k))
    window = make_window()
    assert window.audit.import_file(str(path))
    window_import = window.audit.report.to_json()
    # the window imports the design the CLI writes, and opens the audit: the capture breaks its rule
    assert window.document.design == cli_import and window.audit.dock.isVisible()
    window.audit.audit_file(str(path))         # Audit Against on the imported design
    window_audit = window.audit.report.to_json()
    assert len(calls) == 2                       # both window paths call the CLI's function
    assert json.loads(json.dumps(window_import)) == cli_audit == json.loads(json.dumps(window_audit))
    assert cli_audit["missing_devices"] and cli_audit["swapped"] and cli_audit["missing_links"]
    # and `audit --against` the imported project file is that same answer
    assert _cli_json(capsys, "audit", str(path), "--json", "--against", str(tmp_path / "p.json")) == cli_audit


def test_an_absent_leaf_leaves_no_hca_without_a_link_in_the_imported_design(tmp_path, capsys):
    """The HCAs behind an absent leaf go with it: no 'srv-19.nic-4 has no link' on names the
    capture never gave."""
    design = FabricDesign(cluster=ClusterSpec(servers=64), fabric=FabricSpec(template="rail-optimized"))
    capture = next(c for c in (make_capture(derive(design), seed) for seed in range(100))
                   if any(s.startswith("leaf") for s in c.faults.absent_switches))
    (tmp_path / "f.topo").write_text(capture.text)
    assert main(["import", str(tmp_path / "f.topo"), "-o", str(tmp_path / "p.json")]) == 0
    imported = load_design(tmp_path / "p.json")
    assert any(e.op == "remove-device" and e.a.startswith("leaf") for e in imported.edits)
    assert not [f for f in derive(imported).metrics.findings if f.code == "disconnected-endpoint"]


def test_a_capture_wired_as_the_rule_says_imports_without_opening_the_audit(make_window, tmp_path):
    design = FabricDesign(cluster=ClusterSpec(servers=32), fabric=FabricSpec(template="rail-optimized"))
    path = tmp_path / "clean.topo"
    path.write_text(make_capture(derive(design), 1, faults=False).text)
    window = make_window()
    assert window.audit.import_file(str(path))
    assert window.audit.report is not None and not window.audit.report.rows()
    assert not window.audit.dock.isVisible() and window.document.design.edits == ()


def test_set_corrects_a_figure_and_the_audit_runs_on_the_corrected_design(tmp_path, capsys):
    path = _faulty_capture(tmp_path)
    plain = _cli_json(capsys, "audit", str(path), "--json")
    corrected = _cli_json(capsys, "audit", str(path), "--json", "--set", "server=hgx-h100", "--set", "servers=60")
    facts = {f["subject"]: f for f in corrected["inferred"]["facts"]}
    assert facts["server model"]["value"] == "hgx-h100" and facts["server model"]["confidence"] == "set"
    assert facts["servers"]["value"] == "60" and "inferred 64" in facts["servers"]["why"]
    # four servers fewer in the design: the capture's last four servers now have no place
    assert corrected != plain
    assert main(["import", str(path), "-o", str(tmp_path / "p.json"), "--set", "server=hgx-h100"]) == 0
    assert load_design(tmp_path / "p.json").cluster.server == "hgx-h100"


@pytest.mark.parametrize("setting, message", [("colour=red", "unknown figure 'colour'"),
                                              ("servers=many", "expected a whole number"),
                                              ("server=dgx-9000", "not a catalog server"),
                                              ("rails", "expected key=value")])
def test_a_bad_setting_is_one_line_and_writes_nothing(tmp_path, capsys, setting, message):
    path = _faulty_capture(tmp_path)
    capsys.readouterr()
    assert main(["import", str(path), "-o", str(tmp_path / "p.json"), "--set", setting]) != 0
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and not (tmp_path / "p.json").exists()


def test_the_inferred_design_dialog_shows_the_evidence_and_audits_again(make_window, tmp_path):
    from PySide6.QtWidgets import QDialog

    from designer.ui.shell.inferred_dialog import InferredDesignDialog

    path = _faulty_capture(tmp_path)
    window = make_window()
    assert window.audit.import_file(str(path))
    dialog = InferredDesignDialog(window, window.audit.answer, window.catalog)
    subjects = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    assert {"servers", "server model", "nodes per SU", "rails", "template"} <= set(subjects)
    row = subjects.index("server model")
    assert dialog.table.item(row, 3).text()      # its evidence
    assert dialog.corrections() == {}            # nothing changed, nothing corrected
    dialog.counts["nodes_per_su"].setValue(16)
    dialog.server.setCurrentIndex(dialog.server.findData("hgx-h100"))
    wanted = dialog.corrections()
    assert wanted == {"nodes_per_su": "16", "server": "hgx-h100"}
    dialog.done(QDialog.DialogCode.Accepted)
    assert window.audit.correct_inference(wanted)
    # the open design was the import itself: replaced without asking to save it
    assert not [a for a in window.dialogs.asked if a.startswith("save-changes")]
    design = window.document.design
    assert design.fabric.nodes_per_su == 16 and design.cluster.server == "hgx-h100"
    facts = {f["subject"]: f for f in window.audit.report.inferred["facts"]}
    assert facts["nodes per SU"]["confidence"] == "set"


def test_correcting_after_other_work_asks_before_replacing_the_design(make_window, tmp_path):
    path = _faulty_capture(tmp_path)
    window = make_window()
    assert window.audit.import_file(str(path))
    other = FabricDesign(cluster=ClusterSpec(servers=16), fabric=FabricSpec(template="leaf-spine"))
    window.document.load(other, None, modified=True)          # the user moved on to another design
    window.dialogs.save_changes = "cancel"
    assert not window.audit.correct_inference({"nodes_per_su": "16"})
    assert window.document.design == other and window.dialogs.asked[-1].startswith("save-changes")
    assert not window.audit.correct_inference({})              # nothing corrected: nothing happens
    window.statusBar().clearMessage()      # the import's timed status line; no wall-clock wait
