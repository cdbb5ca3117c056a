"""The diagram as reference architectures draw it: SU blocks, rail colours, labelled bundles."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design
from designer.model.intent.slides import Slide
from designer.model.topology.presets import new_design

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def gui(qapp):
    return qapp


def _drawn(design, links="bundles", slide=None, size=(13.333, 7.5)):
    from designer.ui.export.figure import Figure, FigureSpec
    from designer.ui.export.png import png_image

    figure = Figure(design, FigureSpec(*size, slide=slide, links=links))
    png_image(figure, 72)
    return figure


def test_the_4su_superpod_is_drawn_in_su_blocks_with_rails_and_labelled_bundles(gui):
    figure = _drawn(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    d = figure.diagram
    assert d.frames == ["SU 1", "SU 2", "SU 3", "SU 4"]
    # leaf to spine: one bundle from each SU to each of the 16 spines, 16 links in each
    up = d.bundles["leaf"]
    assert len(up) == 4 * 16
    assert {b.links for b in up} == {16}
    assert sum(b.links for b in up) == d.drawn_links["leaf"] == 1024
    # server to leaf: one bundle from each SU's servers to each of its 8 rail leaves
    down = d.bundles["servers"]
    assert len(down) == 4 * 8 and {b.links for b in down} == {32}
    assert Counter(label.text for label in d.bundle_labels["leaf"]) == {"16 × 400G to each spine": 4}
    assert Counter(label.text for label in d.bundle_labels["servers"]) == {"32 × 400G to each rail leaf": 4}
    kinds = {kind: (label, colours) for kind, label, colours in figure.source.legend_entries(figure.ink.theme)}
    assert "rails" in kinds and len(kinds["rails"][1]) == 8 and kinds["rails"][0].startswith("Rails 1–8")
    assert len({c.name() for c in kinds["rails"][1]}) == 8


def test_link_by_link_is_one_option_away(gui):
    figure = _drawn(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"), links="each")
    d = figure.diagram
    assert d.bundles == {} and d.frames == [] and d.bundle_labels == {}
    assert d.drawn_links["leaf"] == 1024


def test_16k_gpus_stay_readable_with_every_link_in_a_bundle(gui):
    from designer.ui.export.ink import overlapping_texts

    design = new_design(default_catalog(), "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700")
    figure = _drawn(design)
    d = figure.diagram
    plan = figure.source.plan
    for tier, total in (("servers", plan.servers * 8), ("leaf", plan.leaves * plan.leaf_up),
                        ("spine", plan.spines * plan.spine_up)):
        assert sum(b.links for b in d.bundles[tier]) == total, tier
        assert len(d.bundles[tier]) <= 40 * 40, tier      # aggregated: never one line per link
    assert d.frames and all(label.startswith("SUs ") for label in d.frames)
    assert overlapping_texts(figure.ink.texts) == []


def test_the_svg_report_and_slides_carry_the_same_drawing(gui, tmp_path, capsys):
    from pypdf import PdfReader

    svg = tmp_path / "f.svg"
    assert main(["render", str(EXAMPLES / "dgx-h100-superpod-4su.json"), "-o", str(svg)]) == 0
    texts = ["".join(el.itertext()).strip() for el in ET.fromstring(svg.read_bytes()).iter(f"{SVG}text")]
    joined = " ".join(texts)
    assert joined.count("16 × 400G to each spine") == 4 and "SU 4" in joined and "Rails 1–8" in joined
    report = tmp_path / "r.pdf"
    assert main(["report", str(EXAMPLES / "dgx-h100-superpod-4su.json"), "-o", str(report)]) == 0
    first_pages = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(report).pages[:3])
    assert "to each spine" in first_pages and "SU 4" in first_pages
    # a slide of one SU draws each switch's bundles from that switch: 2 x 400G from each leaf to
    # each spine, and each server's rail links to its 8 rail leaves
    su = _drawn(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"), slide=Slide(kind="su", su=2))
    assert len(su.diagram.bundles["leaf"]) == 8 * 16 and {b.links for b in su.diagram.bundles["leaf"]} == {2}
    assert len(su.diagram.bundles["servers"]) == 32 * 8
    assert {label.text for label in su.diagram.bundle_labels["leaf"]} <= {"2 × 400G to each spine",
                                                                          "2 × 400G each", "2 × 400G"}
    each = tmp_path / "each.svg"
    assert main(["render", str(EXAMPLES / "dgx-h100-superpod-4su.json"), "--links", "each", "-o", str(each)]) == 0
    assert "to each spine" not in each.read_text()


def test_the_canvas_labels_each_su_bundle_as_the_export_does(make_window):
    from designer.ui.canvas.bundle_item import BundleItem

    window = make_window(load_design(EXAMPLES / "dgx-h100-superpod-4su.json"))
    items = {(i.lower, i.upper): i for i in window.scene.items() if isinstance(i, BundleItem)}
    up = items[("leaf", "spine")]._count_texts(window.scene.layout)
    assert {k: v[0] for k, v in up.items()} == {k: "16 × 400G to each spine" for k in range(4)}
    down = items[("servers", "leaf")]._count_texts(window.scene.layout)
    assert {v[0] for v in down.values()} == {"32 × 400G to each rail leaf"}
