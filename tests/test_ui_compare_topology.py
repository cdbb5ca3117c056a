"""Compare > Add Counterpart > Cheapest Topology: the window's `compare --counterpart cheapest-topology`."""

from __future__ import annotations

import json

import pytest

from designer.catalog import default_catalog
from designer.io.project import save_design
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import default_prices
from designer.model.topology.presets import new_design_choice
from tests.test_ui_compare import ScriptedCompareDialogs
from tests.window_fixtures import window_per_module

_module_window, _open_window = window_per_module("compare-topology-window")
# Under pytest-xdist the module's tests run on one worker, which makes its window once.
pytestmark = pytest.mark.xdist_group("compare-topology-window")


CAT = default_catalog()


def test_the_window_compares_what_the_command_line_compares(open_window, tmp_path, capsys):
    from designer.cli.main import main

    # 512 NDR GPUs built rail-optimized in two tiers: the cheapest other topology is rail-only.
    base = new_design_choice(CAT, "rail-optimized", gpus=512, technology="ib-ndr",
                             cost=fabric_cost(CAT, default_prices())).design
    path = tmp_path / "base.json"
    save_design(base, path)
    capsys.readouterr()
    assert main(["compare", str(path), "--counterpart", "cheapest-topology", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    window = open_window(base, path)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()
    launcher.update_actions()
    assert launcher.topology_action.isEnabled()
    launcher.topology_action.trigger()
    compare = launcher.window
    assert compare is not None and compare.comparison is not None
    assert json.loads(json.dumps(compare.comparison.to_json())) == cli
    made = compare.entries[1]
    assert made.design.fabric.template == "rail-only"
    assert any(note.startswith("cheapest topology of") for note in made.notes)


def test_a_cluster_no_other_topology_builds_says_why_in_one_message(open_window, monkeypatch):
    from designer.model.topology.sizing import SizingError
    from designer.ui.compare import launcher as launcher_module

    base = new_design_choice(CAT, "rail-optimized", gpus=512, technology="ib-ndr").design
    window = open_window(base)
    launcher = window.compare_launcher
    launcher.dialogs = ScriptedCompareDialogs()

    def refuse(design, catalog):
        raise SizingError("no other topology of this cluster could be built and priced (a reason)")
    monkeypatch.setattr(launcher_module, "cheapest_topology", refuse)
    launcher.topology_action.trigger()
    assert launcher.window is None
    title, text, detail = launcher.dialogs.errors[0]
    assert title == "Cannot build counterpart" and "cannot be rebuilt on another topology" in text
    assert "a reason" in detail
