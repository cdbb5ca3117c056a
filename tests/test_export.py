"""Exporting the diagram: SVG, PDF and PNG files, readable layouts at every size, the render command."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design, save_design
from designer.model.intent.slides import Slide
from designer.model.topology.presets import new_design
from tests.helpers import examples

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def gui(qapp):
    """Drawing needs a Qt application; pytest-qt's serves the whole session (the commands reuse it)."""
    return qapp


@pytest.fixture(scope="module")
def design_16k():
    return new_design(default_catalog(), "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700",
                      name="16K-GPU SuperPOD")


def _figure(design, **spec):
    from designer.ui.export.figure import Figure, FigureSpec

    return Figure(design, FigureSpec(**spec))


def pdf_text(page) -> str:
    """A PDF page's text with spacing normalised (Qt places words one by one) and ligatures undone."""
    text = page.extract_text().replace("\ufb01", "fi").replace("\ufb02", "fl")
    return " ".join(text.split())


def _svg_texts(data: bytes) -> list[str]:
    root = ET.fromstring(data)  # raises on anything that is not well-formed XML
    assert root.tag == f"{SVG}svg"
    return ["".join(el.itertext()).strip() for el in root.iter(f"{SVG}text")]


# --- SVG ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, tiers", [("dgx-h100-superpod-1su.json", ("Spine", "Leaf", "Servers")),
                                         ("ndr-8k-fat-tree.json", ("Core", "Spine", "Leaf", "Servers"))])
def test_svg_is_valid_xml_with_every_tier_label_and_a_title(gui, name, tiers):
    from designer.ui.export.svg import svg_bytes

    design = load_design(EXAMPLES / name)
    data = svg_bytes(_figure(design))
    texts = _svg_texts(data)
    for tier in tiers:
        assert tier in texts, f"tier label {tier!r} missing from the SVG"
    if "Core" not in tiers:
        assert "Core" not in texts
    root = ET.fromstring(data)
    assert root.find(f"{SVG}title").text == design.meta.name
    assert "InfiniBand NDR" in root.find(f"{SVG}desc").text
    # Vector: shapes and text, no embedded raster image.
    assert not list(root.iter(f"{SVG}image"))


def test_svg_device_names_appear_when_there_is_room_and_blocks_when_there_is_not(gui, design_16k):
    from designer.ui.export.svg import svg_bytes

    small = _svg_texts(svg_bytes(_figure(load_design(EXAMPLES / "dgx-h100-superpod-1su.json"))))
    assert {f"leaf-{k}" for k in range(1, 9)} <= set(small)
    assert {f"spine-{k}" for k in range(1, 5)} <= set(small)
    big = _svg_texts(svg_bytes(_figure(design_16k)))
    assert not any(t.startswith("leaf-") for t in big)          # 512 leaves: drawn as groups
    assert any(t.startswith("SUs 1–") for t in big)


# --- PDF and PNG --------------------------------------------------------------------------------


def test_pdf_is_one_vector_page_of_the_requested_size(gui):
    from designer.ui.export.pdf import pdf_bytes

    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    reader = PdfReader(io.BytesIO(pdf_bytes(_figure(design, width_in=11.0, height_in=8.5))))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (792, 612)
    text = pdf_text(reader.pages[0])
    for word in (design.meta.name, "Spine", "Leaf", "Servers", "Legend"):
        assert word in text
    assert not reader.pages[0].images  # drawn as vectors, not as a picture


@settings(max_examples=examples(60), deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_a_pdf_document_id_is_the_name_based_uuid_of_its_title(title):
    """Qt makes the id that uuid.uuid5 would (the window's file and the command line's are the
    same bytes), without the uuid module loaded for it."""
    import uuid

    from PySide6.QtCore import QUuid

    from designer.ui.export.pdf import document_id

    expected = uuid.uuid5(uuid.NAMESPACE_URL, f"fabric-designer:{title}")
    assert document_id(title) == QUuid(str(expected))


@pytest.mark.parametrize("dpi", [72, 150, 300])
def test_png_pixel_size_follows_the_dpi(gui, dpi):
    from PySide6.QtGui import QImage

    from designer.ui.export.png import png_bytes

    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    image = QImage.fromData(png_bytes(_figure(design, width_in=10.0, height_in=5.0), dpi))
    assert (image.width(), image.height()) == (10 * dpi, 5 * dpi)
    assert round(image.dotsPerMeterX() / 39.37007874) == dpi  # the DPI is stored in the file


def test_png_text_keeps_its_physical_size_at_any_dpi(gui):
    from designer.ui.export.png import png_image

    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    boxes = {}
    for dpi in (100, 200):
        figure = _figure(design)
        png_image(figure, dpi)
        boxes[dpi] = {text: rect for rect, text in figure.ink.texts}
    for label in ("Spine", "leaf-1", "spine-4"):
        assert boxes[200][label].width() == pytest.approx(2 * boxes[100][label].width(), rel=0.08)
        assert boxes[200][label].left() == pytest.approx(2 * boxes[100][label].left(), rel=0.03, abs=3)


def test_png_refuses_a_dpi_out_of_range(gui):
    from designer.ui.export.png import png_bytes

    with pytest.raises(ValueError, match="DPI"):
        png_bytes(_figure(load_design(EXAMPLES / "dgx-h100-superpod-1su.json")), 5000)


# --- readable at every size -----------------------------------------------------------------------


def _draw(design, width_in, height_in, slide=None):
    from designer.ui.export.png import png_image

    figure = _figure(design, width_in=width_in, height_in=height_in, slide=slide)
    png_image(figure, 72)
    return figure


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
@pytest.mark.parametrize("size", [(6.0, 4.0), (13.333, 7.5), (24.0, 12.0)])
def test_no_two_labels_overlap(gui, name, size):
    from designer.ui.export.ink import overlapping_texts

    figure = _draw(load_design(EXAMPLES / name), *size)
    assert figure.ink.texts, "nothing was labelled"
    assert overlapping_texts(figure.ink.texts) == []


def test_a_16k_gpu_fabric_is_drawn_aggregated_with_every_link_accounted_for(gui, design_16k):
    from designer.ui.export.diagram import DEVICE
    from designer.ui.export.ink import overlapping_texts

    figure = _draw(design_16k, 13.333, 7.5)
    diagram = figure.diagram
    assert all(lod != DEVICE for lod in diagram.lods().values())
    for tier, row in diagram.rows.items():
        assert len(row.x0) <= 40, f"{tier}: {len(row.x0)} boxes is not an aggregated drawing"
        # every device is in exactly one box, and the boxes do not overlap
        assert (row.cell_of >= 0).all()
        assert (row.x0[1:] >= row.x1[:-1] - 1e-6).all()
        assert int(row.count.sum()) == row.row.count
    plan = figure.source.plan
    assert diagram.drawn_links == {"servers": plan.servers * 8, "leaf": plan.leaves * plan.leaf_up,
                                   "spine": plan.spines * plan.spine_up}
    assert overlapping_texts(figure.ink.texts) == []


def test_an_su_view_draws_that_su_device_by_device(gui):
    from designer.ui.export.diagram import DEVICE

    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    figure = _draw(design, 13.333, 7.5, Slide("SU 2", "su", su=2))
    rows = figure.diagram.rows
    assert all(lod == DEVICE for lod in figure.diagram.lods().values())
    assert rows["servers"].first.tolist() == list(range(32, 64))
    assert rows["leaf"].first.tolist() == list(range(8, 16))
    assert len(rows["spine"].first) == 16  # two tiers: every spine is in reach of the SU
    # 32 servers x 8 rails, and the SU's 8 leaves x 32 uplinks
    assert figure.diagram.drawn_links == {"servers": 256, "leaf": 256}
    labels = {text for _, text in figure.ink.texts}
    assert {"leaf-9", "leaf-16", "33", "64"} <= labels and "leaf-1" not in labels


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(template=st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
       nodes=st.integers(min_value=4, max_value=3000), planes=st.sampled_from([1, 2]),
       width=st.floats(min_value=4.0, max_value=30.0), height=st.floats(min_value=3.0, max_value=12.0))
def test_any_design_at_any_size_keeps_labels_apart_and_links_whole(gui, template, nodes, planes, width, height):
    from designer.model.topology.derive import plan_only
    from designer.model.topology.sizing import SizingError
    from designer.ui.export.ink import overlapping_texts

    try:
        design = new_design(default_catalog(), template, nodes=nodes, planes=planes)
        plan_only(design)
    except SizingError:
        return  # beyond what the switch can build: nothing to draw
    figure = _draw(design, width, height)
    assert overlapping_texts(figure.ink.texts) == []
    plan, rails = figure.source.plan, figure.source.resolved.rails
    assert figure.diagram.drawn_links["servers"] == plan.servers * rails
    assert figure.diagram.drawn_links["leaf"] == plan.leaves * plan.leaf_up


# --- the render command ----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["svg", "pdf", "png"])
def test_render_command_writes_each_format(gui, tmp_path, capsys, suffix):
    out = tmp_path / f"fabric.{suffix}"
    code = main(["render", str(EXAMPLES / "dgx-h100-superpod-4su.json"), "-o", str(out), "--dpi", "100"])
    assert code == 0
    assert out.stat().st_size > 1000
    assert f"wrote {out}" in capsys.readouterr().out
    head = out.read_bytes()[:8]
    assert head.startswith({"svg": b"<?xml", "pdf": b"%PDF", "png": b"\x89PNG"}[suffix])
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind


def test_render_command_view_option_picks_an_su_and_a_saved_slide(gui, tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")

    with_slides = dataclasses.replace(design, slides=(Slide("SU three", "su", su=3),))
    path = tmp_path / "d.json"
    save_design(with_slides, path)
    for view, expected in (("su:3", "leaf-17"), ("slide:1", "leaf-17")):
        out = tmp_path / f"{view.replace(':', '')}.svg"
        assert main(["render", str(path), "-o", str(out), "--view", view]) == 0
        texts = _svg_texts(out.read_bytes())
        assert expected in texts and "leaf-1" not in texts


def test_render_reaches_the_default_slides_of_a_design_without_saved_ones(gui, tmp_path):
    design = load_design(EXAMPLES / "dgx-h100-superpod-4su.json")
    assert not design.slides
    out = tmp_path / "s5.svg"
    assert main(["render", str(EXAMPLES / "dgx-h100-superpod-4su.json"), "-o", str(out), "--view", "slide:5"]) == 0
    texts = _svg_texts(out.read_bytes())
    assert "leaf-25" in texts and "leaf-1" not in texts and any("SU 4 of 4" in t for t in texts)


@pytest.mark.parametrize("args, message", [
    (["-o", "{tmp}/out.jpg"], "cannot write .jpg files: use .svg, .pdf or .png"),
    (["-o", "{tmp}/out"], "give the output file an extension"),
    (["-o", "{tmp}/missing/out.svg"], "does not exist"),
    (["-o", "{tmp}"], "is a folder"),
    (["-o", "{tmp}/out.svg", "--view", "su:9"], "SU 9 does not exist"),
    (["-o", "{tmp}/out.svg", "--view", "slide:6"], "has no default slide 6 (it has only 5)"),
    (["-o", "{tmp}/out.png", "--dpi", "5000"], "DPI must be"),
])
def test_render_command_refuses_bad_requests_in_one_line_and_writes_nothing(gui, tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    try:
        code = main(["render", str(EXAMPLES / "dgx-h100-superpod-4su.json"), *args])
    except SystemExit as exc:   # an output that cannot be written is refused as an argument
        code = exc.code
    err = capsys.readouterr().err
    assert code == (2 if message in ("does not exist", "is a folder") else 1)
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_render_command_with_a_bad_design_file_writes_nothing(gui, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "fabric-designer", "format_version": 1, "design": {"fabric": {"planes": 0}}}')
    out = tmp_path / "out.svg"
    assert main(["render", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "planes" in err and err.count("\n") == 1
    assert not out.exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(gui, tmp_path, capsys, monkeypatch):
    import designer.io.atomic as atomic

    out = tmp_path / "out.png"
    out.write_bytes(b"old picture")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full_disk)
    code = main(["render", str(EXAMPLES / "dgx-h100-superpod-1su.json"), "-o", str(out)])
    assert code == 1
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["out.png"]


def test_render_works_headless_without_any_display(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    out = tmp_path / "fabric.png"
    result = subprocess.run([sys.executable, "-m", "designer.cli.main", "render",
                             str(EXAMPLES / "ndr-8k-fat-tree.json"), "-o", str(out), "--dpi", "60"],
                            env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_overlap_check_finds_overlaps_and_allows_touching_boxes():
    from PySide6.QtCore import QRectF

    from designer.ui.export.ink import overlapping_texts

    a, b = QRectF(0, 0, 10, 5), QRectF(10, 0, 10, 5)      # side by side
    c = QRectF(5, 2, 10, 5)                                 # over both
    assert overlapping_texts([(a, "a"), (b, "b")]) == []
    assert sorted(map(sorted, overlapping_texts([(a, "a"), (b, "b"), (c, "c")]))) == [["a", "c"], ["b", "c"]]


def test_a_removed_device_loses_its_links_in_the_drawing(gui):
    from designer.model.intent.design import Edit
    from designer.model.topology.derive import derive

    design = load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json")
    edited = dataclasses.replace(design, edits=(Edit("remove-device", "leaf-3"), Edit("add-links", "leaf-1",
                                                                                      "spine-2")))
    figure = _draw(edited, 13.333, 7.5)
    links = derive(edited).metrics.links_by_tier
    assert figure.diagram.drawn_links == {"servers": links["node-leaf"], "leaf": links["leaf-spine"]}
    assert figure.diagram.drawn_links["servers"] < _draw(design, 13.333, 7.5).diagram.drawn_links["servers"]
    labels = {text for _, text in figure.ink.texts}
    assert "Link added by hand" in labels and "Removed device" in labels and "8 switches, 1 removed" in labels
