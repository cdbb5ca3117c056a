"""Presentation mode in the designer window, and slides saved with a design."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QToolBar

from designer.catalog import default_catalog
from designer.io.project import design_from_json, design_to_json, load_design
from designer.model.intent.serde import DesignValidationError
from designer.model.intent.slides import Slide, default_slides
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("presentation-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("presentation-window")


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SUPERPOD = EXAMPLES / "dgx-h100-superpod-4su.json"


# --- slides in the model (no Qt) ------------------------------------------------------------------


def test_slides_are_saved_with_the_design_and_older_files_still_load():
    design = load_design(SUPERPOD)
    assert design.slides == ()  # the example predates slides
    slides = (Slide("All of it"), Slide("SU 2", "su", su=2), Slide("Plane 1", "plane", plane=1),
              Slide("Left half", left=0.0, right=0.5), Slide("Versus RoCE", "comparison", compare_with="roce-400g"))
    again = design_from_json(design_to_json(dataclasses.replace(design, slides=slides)))
    assert again.slides == slides


@pytest.mark.parametrize("kwargs, field", [({"kind": "su"}, "su"), ({"kind": "plane"}, "plane"),
                                           ({"kind": "su", "su": 0}, "su"), ({"left": 0.6, "right": 0.4}, "left")])
def test_a_slide_that_makes_no_sense_is_refused_with_its_field(kwargs, field):
    with pytest.raises(DesignValidationError) as info:
        Slide("x", **kwargs)
    assert info.value.path == field


def test_a_bad_slide_in_a_file_names_its_path():
    text = design_to_json(load_design(SUPERPOD)).replace('"slides": []', '"slides": [{"kind": "su"}]')
    from designer.io.project import ProjectFileError

    with pytest.raises(ProjectFileError, match=r"design\.slides\[0\]\.su"):
        design_from_json(text)


def test_default_slides_follow_the_fabric():
    assert [s.title for s in default_slides("rail-optimized", 2, 4, 4, 1)] == \
        ["Whole fabric", "SU 1 of 4", "SU 2 of 4", "SU 3 of 4", "SU 4 of 4"]
    eight = default_slides("rail-optimized", 2, 8, 8, 1)
    assert [s.su for s in eight[1:]] == list(range(1, 9)) and eight[0].title == "Whole fabric"
    many = default_slides("rail-optimized", 3, 64, 64, 1)
    assert [s.su for s in many[1:]] == list(range(1, 9))
    assert many[0].title == "Whole fabric (SUs 9–64 have no slide of their own)"
    assert default_slides("rail-optimized", 3, 9, 9, 1)[0].title == "Whole fabric (SU 9 has no slide of its own)"
    assert [s.title for s in default_slides("rail-optimized", 2, 1, 1, 1)] == ["Whole fabric"]
    assert [s.title for s in default_slides("fat-tree", 3, 8, 0, 1)][:2] == ["Whole fabric", "Pod 1 of 8"]
    assert default_slides("fat-tree", 3, 16, 0, 1)[0].title == "Whole fabric (Pods 9–16 have no slide of their own)"
    two_planes = default_slides("rail-optimized", 2, 2, 2, 2, comparison=True)
    assert [(s.kind, s.su, s.plane) for s in two_planes] == [
        ("fabric", None, None), ("su", 1, None), ("su", 2, None), ("plane", None, 1), ("plane", None, 2),
        ("comparison", None, None)]


# --- presentation mode in the window ----------------------------------------------------------------


def _chrome(window) -> dict:
    return {"menu": window.menuBar().isVisible(), "status": window.statusBar().isVisible(),
            "docks": {d.objectName(): d.isVisible() for d in window.findChildren(QDockWidget)},
            "toolbars": {b.objectName(): b.isVisible() for b in window.findChildren(QToolBar)}}


def test_f5_presents_steps_through_the_slides_and_esc_restores_the_window(make_window, qtbot):
    window = make_window(load_design(SUPERPOD))
    window.docks["plots"].hide()   # a layout of the user's own, to be restored as it was
    qtbot.wait(20)                 # ... once the docks have settled
    geometry, state, chrome = window.geometry(), window.saveState(), _chrome(window)
    stack_before = window.document.undo_stack.count()
    mode = window.presentation

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)   # shortcuts reach the active window only
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F5)
    assert mode.active and window.isFullScreen()
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert not any(d.isVisible() for d in window.findChildren(QDockWidget))
    assert not any(b.isVisible() for b in window.findChildren(QToolBar))
    assert mode.widget.geometry() == window.rect() and mode.widget.hasFocus()
    assert [s.title for s in mode.slides] == ["Whole fabric", "SU 1 of 4", "SU 2 of 4", "SU 3 of 4", "SU 4 of 4"]

    steps = []
    mode.slideChanged.connect(steps.append)
    for key in (Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Space, Qt.Key.Key_Right, Qt.Key.Key_Right,
                Qt.Key.Key_Left, Qt.Key.Key_PageUp):
        QTest.keyClick(mode.widget, key)
    assert steps == [1, 2, 3, 4, 3, 2]   # stops at the last slide
    assert mode.current().su == 2
    # Editing keys do nothing while presenting.
    QTest.keyClick(mode.widget, Qt.Key.Key_Delete)
    QTest.keyClick(mode.widget, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.undo_stack.count() == stack_before

    QTest.keyClick(mode.widget, Qt.Key.Key_Escape)
    assert not mode.active and not window.isFullScreen()
    qtbot.waitUntil(lambda: window.geometry() == geometry)
    assert window.saveState() == state
    assert _chrome(window) == chrome
    assert mode.widget is None
    # F5 toggles: in again, and out again with F5 itself
    QTest.keyClick(window.view, Qt.Key.Key_F5)
    assert mode.active
    QTest.keyClick(mode.widget, Qt.Key.Key_F5)
    assert not mode.active


def test_the_slide_shows_title_block_diagram_legend_and_key_figures(make_window):
    window = make_window(load_design(SUPERPOD))
    mode = window.presentation
    assert mode.start(2)
    mode.widget.resize(1920, 1080)
    mode.widget.grab()
    texts = [t for _, t in mode.widget.last_ink.texts]
    for expected in ("DGX H100 SuperPOD, 4 SU (NDR)", "Author", "Date", "InfiniBand NDR 400G", "SU 2 of 4",
                     "Spine", "Leaf", "Servers", "leaf-9", "leaf-16", "Legend", "GPUS", "1,024", "NETWORK COST",
                     "illustrative estimate", "Slide 3 / 5"):
        assert expected in texts, expected
    assert "leaf-17" not in texts
    from designer.ui.export.ink import overlapping_texts

    assert overlapping_texts(mode.widget.last_ink.texts) == []
    # Large labels: the slide is scaled to the screen, so a 1080-pixel screen gets 2 pixels per point.
    spine = next(box for box, text in mode.widget.last_ink.texts if text == "Spine")
    assert spine.height() > 25
    mode.stop()


def test_saved_slides_are_presented_including_a_comparison(make_window, qtbot):
    design = dataclasses.replace(load_design(SUPERPOD), slides=(
        Slide("Everything"), Slide("Against Spectrum-X", "comparison", compare_with="roce-400g")))
    window = make_window(design)
    mode = window.presentation
    assert mode.start()
    assert [s.title for s in mode.slides] == ["Everything", "Against Spectrum-X"]
    mode.next()
    qtbot.waitUntil(lambda: mode.widget.content.comparison is not None, timeout=20000)
    content = mode.widget.content
    assert content.other.derived.resolved.technology.id == "roce-400g"
    mode.widget.resize(1600, 900)
    mode.widget.grab()
    texts = " ".join(t for _, t in mode.widget.last_ink.texts)
    assert "Recommendation (heuristic)" in texts and "Spectrum-4 SN5600" in texts
    mode.stop()


def test_a_comparison_slide_that_cannot_be_made_says_why(open_window, qtbot, tmp_path):
    design = dataclasses.replace(load_design(SUPERPOD), slides=(
        Slide("Versus a missing file", "comparison", compare_with=str(tmp_path / "missing.json")),))
    window = open_window(design)
    mode = window.presentation
    assert mode.start()
    qtbot.waitUntil(lambda: not mode.widget.content.pending, timeout=10000)
    assert "Cannot show the comparison" in mode.widget.content.error and "no such file" in mode.widget.content.error
    mode.stop()


def test_adding_the_view_as_a_slide_is_undoable(open_window):
    window = open_window(load_design(SUPERPOD))
    action = window.presentation.actions["add_slide"]
    action.trigger()
    assert [s.title for s in window.document.design.slides] == ["View 1"]
    assert window.document.design.slides[0].whole
    # zoomed in on the left: the slide keeps that part of the fabric
    window.view.set_zoom(window.view.sx * 4)
    window.view.horizontalScrollBar().setValue(window.view.horizontalScrollBar().minimum())
    action.trigger()
    second = window.document.design.slides[1]
    assert second.left == 0.0 and 0.05 < second.right < 0.6
    stack = window.document.undo_stack
    stack.undo()
    assert len(window.document.design.slides) == 1
    stack.undo()
    assert window.document.design.slides == ()
    stack.redo()
    stack.redo()
    assert window.document.design.slides[1] == second
    # and the presentation uses them
    assert window.presentation.start()
    assert [s.title for s in window.presentation.slides] == ["View 1", "View 2"]
    window.presentation.stop()


def test_without_a_design_there_is_nothing_to_present(open_window):
    window = open_window(None)
    assert not window.presentation.start()
    assert not window.isFullScreen() and not window.presentation.active
    assert "Nothing to present" in window.statusBar().currentMessage()


def test_closing_the_window_while_presenting_leaves_presentation_mode_first(make_window):
    window = make_window(load_design(SUPERPOD))
    geometry = window.geometry()
    mode = window.presentation
    assert mode.start()
    seen = []
    mode.finished.connect(lambda: seen.append(window.geometry()))
    window.close()
    assert seen == [geometry]
    assert not mode.active


def test_a_comparison_open_in_the_window_becomes_a_default_slide(open_window, qtbot):
    window = open_window(load_design(SUPERPOD))
    other = load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json")
    window.presentation.comparison_provider = lambda: [window.document.design, other]
    assert window.presentation.start()
    assert window.presentation.slides[-1].kind == "comparison"
    window.presentation.go(len(window.presentation.slides) - 1)
    qtbot.waitUntil(lambda: window.presentation.widget.content.comparison is not None, timeout=20000)
    assert window.presentation.widget.content.other.design == other
    window.presentation.stop()


def test_the_other_family_counterpart_is_the_closest_speed():
    from designer.model.topology.presets import new_design
    from designer.ui.present.presentation_mode import other_family_technology

    catalog = default_catalog()
    ndr = new_design(catalog, "leaf-spine", gpus=256, technology="ib-ndr")
    xdr = new_design(catalog, "leaf-spine", gpus=256, server="dgx-b300-xdr", technology="ib-xdr")
    roce = load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json")
    assert other_family_technology(ndr, catalog) == "roce-400g"
    assert other_family_technology(xdr, catalog) == "roce-800g"
    assert other_family_technology(roce, catalog) == "ib-ndr"


def test_any_su_can_be_added_as_a_slide_and_the_16th_is_presented(open_window, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    from designer.catalog import default_catalog
    from designer.model.topology.presets import new_design

    design = new_design(default_catalog(), "rail-optimized", nodes=512, server="dgx-h100", switch="qm9700")
    window = open_window(design)
    mode = window.presentation
    assert mode.start()
    defaults = mode.slides
    assert [s.su for s in defaults[1:]] == list(range(1, 9))
    assert defaults[0].title == "Whole fabric (SUs 9–16 have no slide of their own)"
    mode.stop()
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (16, True)))
    mode.actions["add_su_slide"].trigger()
    assert window.document.design.slides == (Slide("SU 16 of 16", "su", su=16),)
    assert window.document.undo_stack.undoText() == "Add slide 'SU 16 of 16'"
    assert mode.start()
    assert mode.current().su == 16
    mode.stop()
