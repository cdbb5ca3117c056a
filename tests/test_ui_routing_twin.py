"""Tools > Run on the Routing Stack: the run happens off the UI thread, its progress and report
come back to the window, Stop and closing the window end it with its clean-up."""

from __future__ import annotations

import threading

import pytest

from designer.catalog import default_catalog
from designer.model.topology.presets import new_design
from designer.twin import routing
from designer.twin.namespaces import TwinUnavailable

CAT = default_catalog()


@pytest.fixture
def ethernet_window(make_window):
    return make_window(new_design(CAT, "leaf-spine", nodes=4, server="dgx-h100", technology="roce-400g"))


def _run_with(monkeypatch, behaviour):
    monkeypatch.setattr(routing.RoutingTwin, "run", behaviour)


def test_the_menu_entry_follows_the_designs_family(make_window):
    ib = make_window(new_design(CAT, "rail-optimized", nodes=4, server="dgx-h100", switch="qm9700", nodes_per_su=4))
    ib.routing_twin._enable()
    assert not ib.routing_twin.action.isEnabled()
    eth = make_window(new_design(CAT, "leaf-spine", nodes=4, server="dgx-h100", technology="roce-400g"))
    eth.routing_twin._enable()
    assert eth.routing_twin.action.isEnabled()


def test_a_machine_without_frr_is_told_in_the_window(ethernet_window, qtbot, monkeypatch):
    def missing(self):
        raise TwinUnavailable("the routing twin needs FRR (bgpd missing): install the Debian package frr")

    _run_with(monkeypatch, missing)
    dialog = ethernet_window.routing_twin.show()
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running and dialog.run_button.isEnabled(), timeout=10_000)
    assert "install the Debian package frr" in dialog.status.text()


def test_the_run_is_off_the_ui_thread_and_stop_ends_it(ethernet_window, qtbot, monkeypatch):
    seen = {}

    def slow(self):
        seen["thread"] = threading.current_thread()
        self.progress("waiting for BGP to converge")
        self.cancel.wait(10)               # a run in progress until Stop
        raise routing.TwinCancelled("stopped")

    _run_with(monkeypatch, slow)
    dialog = ethernet_window.routing_twin.show()
    dialog.start()
    qtbot.waitUntil(lambda: "Waiting for BGP" in dialog.status.text(), timeout=10_000)
    assert dialog.running and seen["thread"] is not threading.main_thread()
    dialog.stop()
    qtbot.waitUntil(lambda: not dialog.running and dialog.run_button.isEnabled(), timeout=10_000)
    assert dialog.status.text().startswith("Stopped")


def test_a_bad_fault_is_refused_before_anything_runs(ethernet_window, qtbot, monkeypatch):
    _run_with(monkeypatch, lambda self: pytest.fail("the run must not start"))
    dialog = ethernet_window.routing_twin.show()
    dialog.faults.setText("switch:nope-9")
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running and dialog.run_button.isEnabled(), timeout=10_000)
    assert "no switch 'nope-9'" in dialog.status.text()
