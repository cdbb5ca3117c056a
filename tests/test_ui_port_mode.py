"""The inspector says which port mode the fabric's switches run their cages in."""

from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("port-mode-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("port-mode-window")


CAT = default_catalog()


def test_the_inspector_shows_a_split_port_mode(open_window):
    design = new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                        uplink_speed=800)
    window = open_window(design)
    text = window.inspector.fabric_page.modes_text
    assert text == "512 x 200G to the servers, 128 x 800G between switches"


def test_the_inspector_shows_one_mode_when_every_link_runs_it(open_window):
    window = open_window(new_design(CAT, "rail-optimized", nodes=64, server="dgx-h100", technology="ib-ndr"))
    assert window.inspector.fabric_page.modes_text == "64 x 400G"


def _th6_window(make_window, **kw):
    design = new_design(CAT, "fat-tree", gpus=4096, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                        uplink_speed=800)
    return make_window(design, **kw), design


def test_prices_open_a_table_of_every_mode_with_this_design_and_sizings_choice_marked(make_window):
    from designer.ui.panels.port_modes_dialog import COLUMNS, PRICE, STATUS

    window, design = _th6_window(make_window)
    page = window.inspector.fabric_page
    assert "every mode's price</a>" in page.port_mode.text()
    page.port_mode.linkActivated.emit("port-modes")
    dialog = window.inspector.port_modes
    assert dialog.isVisible()
    data = dialog.table_data
    assert data is not None and dialog.table.rowCount() == len(data.rows)
    assert dialog.table.columnCount() == len(COLUMNS)
    statuses = [dialog.table.item(i, STATUS).text() for i in range(dialog.table.rowCount())]
    mine = data.rows.index(data.current)
    assert "this design" in statuses[mine]
    assert sum("sizing's choice" in s for s in statuses) == 1
    assert (dialog.table.item(mine, 1).text(), dialog.table.item(mine, 2).text()) == ("512 x 200G", "128 x 800G")
    assert dialog.table.item(mine, PRICE).text() == f"USD {data.current.cost:,.0f}"
    # A mode that cannot be cabled says why in its row and cannot be chosen.
    unbuildable = [i for i, r in enumerate(data.rows) if r.cost is None]
    assert unbuildable and all("not buildable" in statuses[i] or "cannot be built" in statuses[i]
                               for i in unbuildable)
    assert data.why in dialog.heading.text()


def test_choosing_a_mode_is_one_undo_step(make_window):
    window, design = _th6_window(make_window)
    dialog = window.inspector.show_port_modes()
    stack = window.document.undo_stack
    before = stack.count()
    assert dialog.select("tomahawk6-102t", 200)
    assert dialog.use_button.isEnabled()
    dialog.use_button.click()
    assert window.document.design.fabric.uplink_gbps is None
    assert window.document.design.fabric.switch == "tomahawk6-102t"
    assert stack.count() == before + 1
    assert window.inspector.fabric_page.modes_text == "512 x 200G"
    stack.undo()
    assert window.document.design == design
    # The current mode cannot be chosen again.
    dialog.compute()
    assert dialog.select("tomahawk6-102t", 800) and not dialog.use_button.isEnabled()


def test_an_edit_waits_for_the_debounce_before_pricing_again(make_window):
    import dataclasses

    window, design = _th6_window(make_window)
    dialog = window.inspector.show_port_modes()
    assert dialog.table_data is not None
    cluster = dataclasses.replace(design.cluster, servers=256)
    assert window.controller.apply_edit(dataclasses.replace(design, cluster=cluster), "cluster.servers",
                                        "Set servers to 256") is None
    # The old table is gone at once; nothing is priced until the edits settle.
    assert dialog.table_data is None and dialog.table.rowCount() == 0
    assert dialog._debounce.isActive()
    dialog._debounce.timeout.emit()          # the debounce elapses (driven, not waited for)
    assert dialog.table_data is not None
    assert dialog.table_data.current.switches < 96      # the smaller cluster's fabric


def test_modes_are_priced_off_the_ui_thread_and_a_stale_result_is_dropped(make_window, qtbot):
    import dataclasses

    window, design = _th6_window(make_window, synchronous=False)
    dialog = window.inspector.show_port_modes()
    # Started, not delivered: the UI thread did not wait for the pricing.
    assert dialog.table_data is None
    cluster = dataclasses.replace(design.cluster, servers=256)
    smaller = dataclasses.replace(design, cluster=cluster)
    assert window.controller.apply_edit(smaller, "cluster.servers", "Set servers to 256") is None
    dialog._debounce.timeout.emit()
    qtbot.waitUntil(lambda: dialog.table_data is not None, timeout=120_000)
    # Whatever finished first, what shows is the table of the design now open.
    assert dialog.design is window.document.design
    assert dialog.table_data.current.design.cluster.servers == 256


def test_the_fabric_form_and_its_port_mode_link_stay_in_the_panel_at_1280x800(make_window, qtbot):
    # The HGX B300 four-plane server's long name once asked for more than the panel's width, which
    # pushed the end of every row (the link to the modes' prices with it) past the panel's edge.
    window, _ = _th6_window(make_window)
    window.resize(1280, 800)
    window._initial_dock_sizes()
    qtbot.wait(20)
    inspector = window.inspector
    page = inspector.fabric_page
    assert page.minimumSizeHint().width() <= inspector.viewport().width()
    label = page.port_mode
    right = label.mapTo(inspector.viewport(), label.rect().topRight()).x()
    assert right <= inspector.viewport().width()
    assert label.height() >= label.heightForWidth(label.width())


def test_every_column_of_the_modes_shows_whole_in_a_1280_pixel_screen(make_window, qtbot):
    window, _ = _th6_window(make_window)
    dialog = window.inspector.show_port_modes()
    qtbot.waitExposed(dialog)
    assert dialog.width() <= 1280 - 60
    table = dialog.table
    assert table.horizontalScrollBar().maximum() == 0      # no column pushed out of view
    header = table.horizontalHeader()
    for col in range(table.columnCount()):
        assert header.sectionSize(col) >= header.sectionSizeHint(col) or col == table.columnCount() - 1
