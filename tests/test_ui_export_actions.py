"""File > Export and Edit > Copy Diagram: every action writes what the command line writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from designer.cli.main import main as cli
from designer.io.project import load_design
from tests.window_fixtures import window_per_module

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dgx-h100-superpod-1su.json"


def pdf_body(data: bytes) -> bytes:
    """A PDF without what differs between two runs a second apart: its dates."""
    data = re.sub(rb"/CreationDate \([^)]*\)", b"", data)
    data = re.sub(rb"/ModDate \([^)]*\)", b"", data)
    data = re.sub(rb'xmp:\w+Date="[^"]*"', b"", data)
    data = re.sub(rb"/Length \d+", b"", data)   # the XMP stream shrinks with the dates
    data = re.sub(rb"startxref\s+\d+", b"", data)
    return re.sub(rb"\n\d{10} \d{5} [nf] ", b"", data)   # xref offsets move with the above


def exported(window, qtbot, key: str, target: Path) -> Path:
    """Trigger the action `key` with the file dialog answering `target`; wait for the file."""
    asked = []

    def answer(caption, suggestion, file_filter):
        asked.append((caption, suggestion, file_filter))
        return str(target)

    window.exports.ask_path = answer
    with qtbot.waitSignal(window.exports.finished, timeout=60_000) as blocker:
        window.exports.actions[key].trigger()
    assert blocker.args == [str(target), ""], window.dialogs.errors
    assert asked and asked[0][1].endswith(Path(asked[0][1]).suffix)
    assert not window.exports.busy
    return target


_module_window, _open_window = window_per_module("export-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("export-window")


@pytest.fixture
def window(open_window):
    """The module's one window, set back to the example just opened (tests/window_fixtures.py)."""
    return open_window(load_design(EXAMPLE), EXAMPLE)


def test_export_menu_lists_every_output(window):
    titles = [a.text() for a in window.exports.menu.actions()]
    assert "&Bill of Materials (CSV)…" in titles and "&Cabling Plan (CSV)…" in titles
    assert {"Diagram as SVG…", "Diagram as PDF…", "Diagram as PNG…", "&Report (PDF)…"} <= set(titles)
    for key in ("bom", "cabling", "diagram_svg", "report", "view_svg", "copy_diagram"):
        assert not window.exports.actions[key].shortcut().isEmpty(), key
    window.document.load(None)
    assert not window.exports.actions["bom"].isEnabled()


def test_bom_and_cabling_csv_are_the_cli_bytes(window, qtbot, tmp_path):
    bom = exported(window, qtbot, "bom", tmp_path / "window-bom.csv")
    plan = exported(window, qtbot, "cabling", tmp_path / "window-plan.csv")
    assert cli(["bom", str(EXAMPLE), "-o", str(tmp_path / "cli-bom.csv"),
                "--cabling", str(tmp_path / "cli-plan.csv")]) == 0
    assert bom.read_bytes() == (tmp_path / "cli-bom.csv").read_bytes()
    assert plan.read_bytes() == (tmp_path / "cli-plan.csv").read_bytes()
    assert not list(tmp_path.glob(".*part"))


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_diagram_is_the_cli_render(window, qtbot, tmp_path, fmt):
    mine = exported(window, qtbot, f"diagram_{fmt}", tmp_path / f"window.{fmt}")
    theirs = tmp_path / f"cli.{fmt}"
    assert cli(["render", str(EXAMPLE), "-o", str(theirs)]) == 0
    if fmt == "pdf":
        assert pdf_body(mine.read_bytes()) == pdf_body(theirs.read_bytes())
    else:
        assert mine.read_bytes() == theirs.read_bytes()


def test_report_is_the_cli_report(window, qtbot, tmp_path):
    mine = exported(window, qtbot, "report", tmp_path / "window.pdf")
    assert cli(["report", str(EXAMPLE), "-o", str(tmp_path / "cli.pdf")]) == 0
    assert pdf_body(mine.read_bytes()) == pdf_body((tmp_path / "cli.pdf").read_bytes())


def test_report_with_counterpart_is_the_cli_report(window, qtbot, tmp_path):
    mine = exported(window, qtbot, "report_roce-400g", tmp_path / "window.pdf")
    assert cli(["report", str(EXAMPLE), "-o", str(tmp_path / "cli.pdf"), "--counterpart", "roce-400g"]) == 0
    assert pdf_body(mine.read_bytes()) == pdf_body((tmp_path / "cli.pdf").read_bytes())
    assert b"Comparison" in mine.read_bytes() or len(mine.read_bytes()) > len(
        exported(window, qtbot, "report", tmp_path / "alone.pdf").read_bytes())


def test_report_takes_the_open_comparison(window, qtbot, tmp_path):
    assert window.compare_launcher.add_counterpart("roce-400g")
    other = window.exports.compared_design(window.document.design)
    assert other is not None and other.fabric.technology == "roce-400g"
    with_comparison = exported(window, qtbot, "report", tmp_path / "with.pdf")
    window.compare_launcher.window.close()
    alone = exported(window, qtbot, "report", tmp_path / "alone.pdf")
    assert len(with_comparison.read_bytes()) > len(alone.read_bytes())


def test_current_view_is_the_visible_part(window, qtbot, tmp_path):
    from designer.ui.export.figure import Figure, FigureSpec
    from designer.ui.export.svg import svg_bytes
    from designer.ui.present.presentation_mode import view_slide

    window.view.fit()
    whole = exported(window, qtbot, "view_svg", tmp_path / "whole.svg")
    assert whole.read_bytes() == svg_bytes(Figure(window.document.design, FigureSpec()))
    window.view.zoom_by(4.0)
    slide = view_slide(window.view, window.document.design, 1)
    assert not slide.whole
    part = exported(window, qtbot, "view_svg", tmp_path / "part.svg")
    assert part.read_bytes() == svg_bytes(Figure(window.document.design, FigureSpec(slide=slide)))
    assert part.read_bytes() != whole.read_bytes()


def test_folder_is_remembered_and_cancel_writes_nothing(window, qtbot, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    exported(window, qtbot, "bom", folder / "a.csv")
    suggested = []
    window.exports.ask_path = lambda caption, suggestion, f: suggested.append(suggestion) or None
    window.exports.actions["bom"].trigger()
    assert Path(suggested[0]).parent == folder
    assert not window.exports.busy   # no file chosen: nothing started

    window.exports.ask_path = lambda *a: str(folder / "cancelled.pdf")
    window.exports.actions["report"].trigger()
    assert window.exports.busy
    window.exports.cancel()
    assert not window.exports.busy
    qtbot.wait(100)
    qtbot.waitUntil(lambda: not list(folder.glob(".*part")), timeout=60_000)
    assert not (folder / "cancelled.pdf").exists()


def test_design_with_errors_is_refused_with_a_message(window, qtbot, tmp_path):
    import dataclasses

    from designer.model.intent.design import Edit

    design = window.document.design
    broken = dataclasses.replace(design, edits=(Edit("add-links", "leaf-1", "spine-2", 4),))
    window.document.load(broken, None)
    asked = []
    window.exports.ask_path = lambda *a: asked.append(a) or str(tmp_path / "x.csv")
    for key in ("bom", "cabling"):
        # The metrics are in: refused before any file name is asked.
        assert window.exports.known_errors(broken)
        window.exports.actions[key].trigger()
        assert asked == [] and not window.exports.busy
        title, text, detail = window.dialogs.errors[-1]
        assert title == "Cannot export" and "errors" in text and "ports" in detail and "Findings" in detail
    assert len(window.dialogs.errors) == 2
    # Before the metrics come in, the worker refuses it the same way, after the name.
    window.compute.latest = None
    with qtbot.waitSignal(window.exports.finished, timeout=60_000) as blocker:
        window.exports.actions["bom"].trigger()
    assert blocker.args[1] and len(asked) == 1
    assert "error" in window.dialogs.errors[-1][2]
    assert not (tmp_path / "x.csv").exists()


def test_copy_diagram_puts_image_and_svg_on_the_clipboard(window, qtbot):
    from PySide6.QtGui import QGuiApplication

    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(window.exports.finished, timeout=60_000) as blocker:
        window.exports.actions["copy_diagram"].trigger()
    assert blocker.args == ["clipboard", ""]
    data = QGuiApplication.clipboard().mimeData()
    assert data.hasImage() and not data.imageData().isNull()
    svg = bytes(data.data("image/svg+xml").data())
    assert svg.startswith(b"<?xml") and b"<svg" in svg
    # Leave no data on the clipboard: the offscreen platform crashes tearing down a filled one.
    QGuiApplication.clipboard().clear()


# The group-writable umask tells a mode taken from the umask from both mkstemp's 0600 and a fixed
# 0644; the common 022 (whose 0644 a fixed mode would also give) runs with `make test-slow`.
@pytest.mark.parametrize("mask, expected", [pytest.param(0o022, 0o644, marks=pytest.mark.slow), (0o002, 0o664)])
def test_every_export_gets_the_users_umask_as_the_command_line_does(window, qtbot, tmp_path, mask, expected):
    """The window writes off the UI thread into a temporary file (mkstemp: 0600); the file the
    user gets must have the mode a normal write gives, like the CLI's."""
    import os
    import stat

    from designer.io.exporters import FORMATS

    suffix = {"bom": ".csv", "cabling": ".csv"}
    # Every file action of File > Export (the counterpart reports too), none left out by name.
    keys = [key for key in window.exports.actions if key != "copy_diagram"]
    assert {"bom", "cabling", "diagram_svg", "diagram_pdf", "diagram_png", "view_svg", "view_pdf", "view_png",
            "report", "report_ib-xdr", "report_roce-400g"} <= set(keys)
    # An H100's ConnectX-7 runs no XDR: that counterpart report is greyed out, with the reason.
    xdr = window.exports.actions["report_ib-xdr"]
    assert not xdr.isEnabled() and "ConnectX-7" in xdr.toolTip()
    keys = [key for key in keys if window.exports.actions[key].isEnabled()]
    assert "report_roce-400g" in keys and "report_ib-ndr" in keys
    old = os.umask(mask)
    try:
        written = {key: exported(window, qtbot, key, tmp_path / f"{key}{suffix.get(key, '.' + key.split('_')[-1])}"
                                 if not key.startswith("report") else tmp_path / f"{key}.pdf")
                   for key in keys}
        # And every format for the tools around the fabric (a NetBox folder's files each).
        exporter = window.ecosystem_export
        for name, fmt in FORMATS.items():
            if not exporter.actions[name].isEnabled():
                continue   # another technology's format (containerlab on InfiniBand)
            target = tmp_path / "tools" / (f"{name}-folder" if fmt.folder else f"{name}{fmt.extension}")
            target.parent.mkdir(exist_ok=True)
            exporter.ask_path = lambda f, suggestion, t=target: str(t)
            exporter.actions[name].trigger()
            files = sorted(target.iterdir()) if fmt.folder else [target]
            written.update({f"{name}/{p.name}": p for p in files})
        assert cli(["bom", str(EXAMPLE), "-o", str(tmp_path / "cli-bom.csv")]) == 0
    finally:
        os.umask(old)
    assert window.dialogs.errors == []
    modes = {key: stat.S_IMODE(path.stat().st_mode) for key, path in written.items()}
    assert modes == dict.fromkeys(written, expected)
    assert stat.S_IMODE((tmp_path / "cli-bom.csv").stat().st_mode) == expected
    folder = tmp_path / "tools" / "netbox-folder"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o777 & ~mask   # the folder it made, as mkdir does


def test_a_replaced_export_keeps_its_mode(window, qtbot, tmp_path):
    import stat

    target = tmp_path / "shared-bom.csv"
    target.write_text("old")
    target.chmod(0o640)
    exported(window, qtbot, "bom", target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() != "old"
