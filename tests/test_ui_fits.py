"""Nothing in the window is cut off at 1280x800: invalid-card notes, plot titles, the findings
count; and a first start fits the screen."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

from designer.io.project import load_design
from designer.model.intent.design import Edit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TWO_PLANES = EXAMPLES / "b300-roce-two-plane.json"


def _invalid_window(make_window, qtbot):
    # Two extra links on a full spine: a ports-beyond-radix error, so every card is invalid.
    design = dataclasses.replace(load_design(TWO_PLANES), edits=(Edit("add-links", "p2.leaf-1", "p2.spine-3", 2),))
    window = make_window(design, TWO_PLANES)
    window.resize(1280, 800)
    window._initial_dock_sizes()
    qtbot.wait(50)
    return window


def test_invalid_notes_are_whole_or_point_to_the_findings(make_window, qtbot):
    window = _invalid_window(make_window, qtbot)
    invalid = [card for card in window.metrics.cards.values() if card.invalid]
    assert len(invalid) >= 5
    for card in invalid:
        label = card.detail
        fm = label.fontMetrics()
        need = fm.boundingRect(0, 0, label.width(), 10_000, int(Qt.TextFlag.TextWordWrap), label.text()).height()
        assert need <= max(label.height(), 2 * fm.lineSpacing()) + 1, f"'{label.text()}' is cut in {card.title.text()}"
        assert label.text().startswith("invalid")
        assert "needs 130 ports" in label.toolTip()
    assert any("needs 130 ports" in card.detail.text() for card in invalid), "a wide card shows the reason in full"


def test_findings_count_and_plot_titles_fit(make_window, qtbot):
    window = _invalid_window(make_window, qtbot)
    assert window.metrics.findings_title.text() == "FINDINGS  ·  2 errors"
    one = dataclasses.replace(load_design(TWO_PLANES), edits=(Edit("remove-device", "p2.spine-1"),
                                                                  Edit("add-links", "p2.leaf-1", "p2.spine-3", 2)))
    window.document.load(one, TWO_PLANES)
    qtbot.wait(20)
    title = window.metrics.findings_title.text()
    assert title == "FINDINGS  ·  1 error, 1 warning"
    font = QFont(window.plots.font())
    font.setPointSizeF(9)
    fm = QFontMetrics(font)
    for plot in (window.plots.ports, window.plots.busbw):
        text = plot.getPlotItem().titleLabel.text
        assert fm.horizontalAdvance(text) <= plot.width() - 16, f"plot title '{text}' is wider than its plot"
    # Room again (tall enough that the plots stack, now that the inspector's form is a row
    # longer): the long title comes back.
    window.resize(1800, 1200)
    qtbot.wait(50)
    assert not window.plots.side_by_side
    assert window.plots.ports.getPlotItem().titleLabel.text.startswith("Port use per tier (solid")


def test_a_first_start_fits_a_small_screen(qtbot):
    from designer.ui.shell.main_window import MainWindow

    window = MainWindow(synchronous=True)
    qtbot.addWidget(window)
    free = window.screen().availableGeometry()
    assert window.width() <= max(free.width(), 1500) and window.height() <= max(free.height(), 950)
    if free.width() < 1540 or free.height() < 1000:
        assert window.width() <= free.width() and window.height() <= free.height()
    window.shutdown()


def test_ratios_read_the_same_everywhere():
    from designer.model.common.units import ratio_label

    assert [ratio_label(x) for x in (1.0, 1.5, 2.666666, 1.14, 3.0, None)] == ["1:1", "1.5:1", "2.67:1", "1.14:1",
                                                                               "3:1", "\u2014"]
    from designer.ui.shell.whatif_actions import _ratio

    assert _ratio(1.0) == "1:1" and _ratio(None) == "no uplinks"


def test_toolbar_glyphs_follow_a_dark_palette(make_window, qtbot, qapp):
    from PySide6.QtGui import QColor, QIcon, QPalette

    before = qapp.palette()
    dark = QPalette(before)
    for role, color in [(QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.Base, "#1e1e1e"),
                        (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.WindowText, "#e6e6e6")]:
        dark.setColor(role, QColor(color))
    try:
        qapp.setPalette(dark)
        window = make_window()
        assert window.theme.dark
        for key in ("undo", "zoom_in", "fit"):
            icon: QIcon = window.actions_[key].icon()
            if not QIcon.fromTheme({"undo": "edit-undo", "zoom_in": "zoom-in", "fit": "zoom-fit-best"}[key]).isNull():
                continue   # the desktop theme's own icon
            image = icon.pixmap(22, 22).toImage()
            ink = [QColor(image.pixel(x, y)) for x in range(22) for y in range(22)
                   if QColor(image.pixelColor(x, y)).alpha() > 128]
            assert ink and sum(c.lightness() for c in ink) / len(ink) > 160, f"{key} icon is dark on a dark toolbar"
    finally:
        qapp.setPalette(before)


def test_a_view_not_zoomed_stays_fitted_as_the_window_changes_size(make_window, qtbot):
    window = make_window(load_design(EXAMPLES / "k64-fat-tree-hosts.json"), EXAMPLES / "k64-fat-tree-hosts.json")
    view = window.view
    view.fit()
    content = view._content().width()
    window.resize(1800, 1000)
    qtbot.wait(30)
    wide = view._sx
    window.resize(1280, 800)
    qtbot.wait(30)
    assert view._sx < wide, "the fabric shrinks with the window"
    assert content * view._sx <= view.viewport().width()
    view.set_zoom(view._sx * 3)
    zoomed = view._sx
    window.resize(1500, 900)
    qtbot.wait(30)
    assert view._sx == zoomed, "a zoom the user chose is kept"


def test_the_legend_grows_a_line_for_failure_entries(make_window, qtbot):
    window = make_window(load_design(EXAMPLES / "k64-fat-tree-hosts.json"), EXAMPLES / "k64-fat-tree-hosts.json")
    window.resize(1280, 800)
    window._initial_dock_sizes()
    qtbot.wait(30)
    legend = window.view.legend
    window.fail_mode.overlay.show_failure(("leaf-1",), (0,))
    placed = legend.arrange()
    assert legend.hidden == []
    shown = [text for _, text, *_ in placed]
    assert "Failed switch" in shown and "Failed link" in shown
    assert legend.height() == legend.HEIGHT * (1 + max(line for *_, line in placed))


def test_the_status_line_tells_metrics_time_from_bom_time(qtbot):
    from designer.catalog import default_catalog
    from designer.ui.panels.metrics_panel import MetricsPanel
    from designer.ui.services.compute_job import compute, compute_bom

    design = dataclasses.replace(load_design(TWO_PLANES), edits=(Edit("remove-device", "p2.spine-1"),))
    first = compute(design, default_catalog(), bom="skip")
    assert first.bom is None and first.bom_ms == 0
    done = compute_bom(first, default_catalog())
    assert done.bom is not None and 0 < done.bom_ms <= done.elapsed_ms
    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.show_result(done)
    assert "metrics in" in panel.status.text() and "BOM in" in panel.status.text()
    panel.show_result(first)
    assert panel.status.text().startswith("computed in")


def test_every_card_detail_shows_whole_within_its_card_at_1280(make_window, qtbot):
    """A detail that wraps to more lines than its card shows is shortened (the whole line in the
    tooltip), never drawn under the card's frame: the two-plane GPUs card had lost its planes."""
    design = load_design(TWO_PLANES)
    window = make_window(design, TWO_PLANES)
    window.resize(1280, 800)
    window._initial_dock_sizes()
    qtbot.wait(50)
    gpus = window.metrics.cards["gpus"]
    assert "2 planes" in gpus.detail.text() + gpus.detail.toolTip()
    for name, card in window.metrics.cards.items():
        label = card.detail
        if not label.text():
            continue
        fm = label.fontMetrics()
        need = fm.boundingRect(0, 0, label.width(), 10_000, int(Qt.TextFlag.TextWordWrap), label.text()).height()
        shown = card.contentsRect().bottom() - 8 - label.y() + 1
        assert need <= shown + 1, f"'{label.text()}' is cut in the {name} card ({need} > {shown} px)"
