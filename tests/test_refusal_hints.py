"""A refusal says what would build the request: each alternative named was sized, not guessed."""

from __future__ import annotations

from designer.catalog import default_catalog
from designer.model.intent.design import replace_path
from designer.model.topology.presets import new_design
from designer.model.topology.refusal_hints import hint_text, what_would_build
from tests.helpers import cli_run


def test_only_alternatives_that_build_are_named_and_in_order():
    catalog = default_catalog()
    tech = catalog.technology("ib-ndr")
    asked = []

    def builds(changes):
        asked.append(dict(changes))
        return changes.get("planes") == 2 or changes.get("tiers") == 3

    found = what_would_build(catalog, tech, template="leaf-spine", tiers=2, switch="qm9700", planes=1,
                             builds=builds)
    assert [a.option for a in found] == ["--tiers 3", "--planes 2"]
    assert asked[0] == {"template": "fat-tree", "tiers": None}   # tried first, refused, not named
    assert hint_text(found, command_line=True) == "what builds it: --tiers 3, or --planes 2"
    assert hint_text(found, command_line=False) == "A 3-tier leaf-spine design, or 2 planes would build it."
    assert hint_text([], command_line=True) == ""
    assert what_would_build(catalog, tech, template="fat-tree", tiers=None, switch="qm9700", planes=1,
                            builds=lambda changes: False) == []


def test_an_alternative_that_raises_counts_as_refused():
    catalog = default_catalog()

    def builds(changes):
        raise ValueError("no")

    assert what_would_build(catalog, catalog.technology("ib-ndr"), template="rail-optimized", tiers=None,
                            switch=None, planes=1, builds=builds) == []


# In this process (tests.helpers.cli_run); tests/test_wheel.py runs `new` as an installed program.
def test_new_names_the_fat_tree_for_32k_gpus_rail_optimized(tmp_path):
    out = tmp_path / "f.json"
    done = cli_run("new", "--template", "rail-optimized", "--nodes", "4096", "--server", "dgx-h100", "-o", str(out))
    assert done.returncode == 1
    line, = done.stderr.strip().splitlines()
    assert "hold at most 64 pods" in line and line.endswith("what builds it: --template fat-tree")
    assert not out.exists()
    built = cli_run("new", "--template", "fat-tree", "--nodes", "4096", "--server", "dgx-h100", "-o", str(out))
    assert built.returncode == 0, built.stderr   # the hint holds
    assert out.exists()


def test_the_inspector_says_what_would_build_it_and_forgets_it_when_a_design_opens(make_window):
    catalog = default_catalog()
    small = new_design(catalog, "rail-optimized", nodes=128, server="dgx-h100", switch="qm9700")
    window = make_window(small)
    page = window.inspector.fabric_page
    page.servers.setValue(4096)
    assert window.document.design.cluster.servers == 128          # refused, nothing changed
    text = page.refused.text()
    assert "hold at most 64 pods" in text and "The fat-tree template would build it." in text
    assert page.refused.wordWrap()
    assert "Inspector says why" in window.statusBar().currentMessage()
    window.document.load(replace_path(small, "meta.name", "Another"))
    assert page.refused.isHidden() and page.refused.text() == ""
