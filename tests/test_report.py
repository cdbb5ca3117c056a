"""The PDF report: its pages read back with pypdf, no overlapping labels, the report command."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import load_design, save_design
from designer.model.intent.slides import Slide
from designer.model.topology.presets import new_design
from tests.helpers import cli_run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SUPERPOD = EXAMPLES / "dgx-h100-superpod-4su.json"


@pytest.fixture
def gui(qapp):
    """Drawing needs a Qt application; pytest-qt's serves the whole session (the commands reuse it)."""
    return qapp


def pdf_text(page) -> str:
    text = page.extract_text().replace("\ufb01", "fi").replace("\ufb02", "fl")
    return " ".join(text.split())


def _read(data: bytes) -> list[str]:
    return [pdf_text(p) for p in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture(scope="module")
def superpod_report(qapp):
    from designer.ui.export.report import Report

    report = Report(load_design(SUPERPOD), date="2025-03-01")
    data, inks = report.render()
    return report, data, inks


def test_the_report_has_the_expected_pages_in_order(superpod_report):
    report, data, _ = superpod_report
    pages = _read(data)
    assert len(pages) == 6
    design = report.design
    headings = ["Overview", "SU 1 in detail", "Metrics summary", "Bill of materials",
                "Collective performance (estimate)"]
    for number, (text, heading) in enumerate(zip(pages, headings, strict=False), 1):
        assert heading in text
        assert f"Page {number} / 6" in text
        assert design.meta.name in text          # running header
        assert "2025-03-01" in text               # footer date
    overview, detail, metrics, bom, collectives = pages[:5]
    # page 1: title block, diagram, legend and key figures
    for word in ("Author", "Date", "Technology", "InfiniBand NDR 400G", "Spine", "Leaf", "Servers", "Legend",
                 "GPUS", "1,024", "BISECTION", "204.8 Tb/s", "illustrative estimate", "ALL-REDUCE BUSBW"):
        assert word in overview, word
    assert "leaf-8" in detail and "leaf-9" not in detail and "32 of 128 servers" in detail
    for word in ("Switches by tier", "Links", "Findings", "Bisection ratio", "Growth headroom", "2,048"):
        assert word in metrics, word
    for word in ("By category", "Switches", "Transceivers", "Fiber", "Line items", "MQM9700-NS2F",
                 "Prices are illustrative estimates, not quotes", "$4,236,240"):
        assert word in bom, word
    for word in ("Bus bandwidth (estimate)", "Time per collective (estimate)", "All-reduce", "All-to-all",
                 "1 GiB", "not a measurement"):
        assert word in collectives, word


def test_the_bom_page_totals_are_the_bom_totals(superpod_report):
    report, data, _ = superpod_report
    bom = report.facts.bom
    text = _read(data)[3]
    assert f"${bom.total_cost:,.0f}" in text
    for category in ("Switches", "Transceivers"):
        cost = sum(i.extended_price for i in bom.by_category(category))
        assert f"${cost:,.0f}" in text


def test_no_two_labels_overlap_on_any_page(superpod_report):
    from designer.ui.export.ink import overlapping_texts

    _, _, inks = superpod_report
    for number, ink in enumerate(inks, 1):
        assert ink.texts
        assert overlapping_texts(ink.texts) == [], f"page {number}"


def test_a_16k_gpu_report_draws_the_fabric_aggregated_and_stays_readable(gui):
    from designer.ui.export.diagram import DEVICE
    from designer.ui.export.ink import overlapping_texts
    from designer.ui.export.report import Report

    design = new_design(default_catalog(), "rail-optimized", gpus=16384, server="dgx-h100", switch="qm9700")
    report = Report(design)
    data, inks = report.render()
    assert all(lod != DEVICE for lod in report.overview_lods.values())
    for ink in inks:
        assert overlapping_texts(ink.texts) == []
    pages = _read(data)
    assert "SUs 1–4" in pages[0] and "leaf-1 " not in pages[0]
    assert "16,384" in pages[0]


def test_a_comparison_adds_its_pages(gui):
    from designer.ui.export.report import Report

    design = load_design(SUPERPOD)
    from designer.model.decisions.counterpart import make_counterpart

    other = make_counterpart(design, "roce-400g", default_catalog()).design
    report = Report(design, other)
    data, _ = report.render()
    pages = _read(data)
    # The comparison's rows and recommendation run onto a continuation page rather than be cut.
    assert len(pages) == 10
    assert report.sections[5:9] == ["Comparison", "Comparison (continued)", "Comparison: cost per token",
                                    "Comparison: diagrams"]
    assert "Comparison" in pages[5] and "Recommendation (heuristic)" in pages[5]
    assert "TCO over 5 years" in pages[5] and "RoCE 400GbE" in pages[5]
    assert "Comparison (continued)" in pages[6] and "Cheapest in" in pages[6]
    assert "Verdict in dollars of training" in pages[7] and "Cost per million tokens" in pages[7]
    assert "cheapest in" in pages[7] and "of draws" in pages[7]
    assert "Comparison: the two fabrics" in pages[8] and "Spectrum-4 SN5600" in pages[8]


def test_a_report_against_every_ethernet_fabric_lists_their_costs_and_win_shares(gui):
    from designer.ui.export.report import Report

    design = load_design(EXAMPLES / "dgx-h100-superpod-1su.json")
    from designer.model.decisions.counterpart import ETHERNET_CHOICES, make_counterpart

    made = [make_counterpart(design, t, default_catalog()).design for t in ETHERNET_CHOICES]
    report = Report(design, made[0], extra=tuple(made[1:]))
    pages = _read(report.render()[0])
    cost = next(p for p in pages if "Verdict in dollars of training" in p)
    for i, name in enumerate(report.comparison.names):
        share = report.comparison.confidence.win_share[i]
        assert f"[{i + 1}] {name}: cheapest in {share:.0%} of draws" in cost
    table = next(p for p in pages if "deltas against the first design" in p)
    assert "static ECMP" in table and "enhanced ECMP" in table and "Spectrum-X" in table
    assert "scheduled fabric" in table


def test_saved_slides_become_the_detail_pages(gui):
    from designer.ui.export.report import Report

    design = dataclasses.replace(load_design(SUPERPOD), slides=(Slide("Whole fabric"), Slide("The third SU", "su",
                                                                                             su=3),
                                                                Slide("Spectrum-X", "comparison")))
    pages = _read(Report(design).render()[0])
    assert len(pages) == 6  # the whole fabric is the overview; the comparison slide needs a second design
    assert "The third SU" in pages[1] and "leaf-17" in pages[1] and "leaf-9" not in pages[1]


# --- the report command -------------------------------------------------------------------------


def test_report_command_writes_the_pdf(gui, tmp_path, capsys):
    out = tmp_path / "r.pdf"
    assert main(["report", str(SUPERPOD), "-o", str(out)]) == 0
    assert f"wrote {out}: 6 pages" in capsys.readouterr().out
    assert len(PdfReader(out).pages) == 6
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


def test_report_command_compares_with_a_file_or_a_counterpart(gui, tmp_path, capsys):
    other = tmp_path / "other.json"
    save_design(load_design(EXAMPLES / "roce-512-leaf-spine-sn5600.json"), other)
    out = tmp_path / "r.pdf"
    assert main(["report", str(SUPERPOD), "-o", str(out), "--compare", str(other), "--page", "letter"]) == 0
    reader = PdfReader(out)
    assert len(reader.pages) == 10      # the comparison takes a continuation page
    assert round(float(reader.pages[0].mediabox.width)) == 792  # US letter, landscape
    assert "512-GPU RoCE leaf-spine" in pdf_text(reader.pages[5])
    out2 = tmp_path / "r2.pdf"
    assert main(["report", str(SUPERPOD), "-o", str(out2), "--counterpart", "roce-400g"]) == 0
    assert "RoCE 400GbE" in pdf_text(PdfReader(out2).pages[5])


@pytest.mark.parametrize("args, message", [
    (["-o", "{tmp}/r.svg"], "cannot write .svg files: use .pdf"),
    (["-o", "{tmp}/nowhere/r.pdf"], "does not exist"),
    (["-o", "{tmp}/r.pdf", "--compare", "{tmp}/missing.json"], "no such file"),
])
def test_report_command_refuses_in_one_line_and_leaves_the_old_file(gui, tmp_path, capsys, args, message):
    old = tmp_path / "r.pdf"
    old.write_bytes(b"%PDF old report")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    try:
        code = main(["report", str(SUPERPOD), *args])
    except SystemExit as exc:   # an output that cannot be written is refused as an argument
        code = exc.code
    assert code == (2 if message == "does not exist" else 1)
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert old.read_bytes() == b"%PDF old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf"]


def test_report_command_refuses_a_design_that_cannot_be_sized(gui, tmp_path, capsys):
    design = load_design(SUPERPOD)
    broken = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, switch="no-such-switch"))
    path = tmp_path / "broken.json"
    save_design(broken, path)
    assert main(["report", str(path), "-o", str(tmp_path / "r.pdf")]) == 1
    assert "no-such-switch" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()


def test_the_last_page_answers_what_if_it_fails_grows_and_how_often(superpod_report):
    _, data, _ = superpod_report
    last = _read(data)[-1]
    for word in ("Resilience and growth", "What if it fails", "leaf-1", "32 of 1,024", "93.8%", "How often",
                 "Alibaba HPN", "Llama 3", "no published rate", "What if it grows", "needs recabling",
                 "no recabling", "core"):
        assert word in last, word


def test_the_growth_section_follows_the_plan_stored_in_the_design(gui):
    from designer.model.intent.growth_plan import GrowthPlan
    from designer.ui.export.report import Report

    design = new_design(default_catalog(), "rail-optimized", nodes=64, server="dgx-b200", switch="qm9700")
    design = dataclasses.replace(design, growth=GrowthPlan(8 * 256, (2, 8)))
    data, _ = Report(design, date="2025-03-01").render()
    last = _read(data)[-1]
    assert "What if it grows: to 2,048 GPUs in the design's phases 2,8" in last
    assert "doubling" not in last


def test_the_bom_page_shows_co_packaged_optics_and_liquid_cooling_with_their_source(tmp_path):
    """A 1,152-GPU XDR fabric on Q3450-LD: the BOM page names the CPO switch, counts no
    switch-side modules, cites NVIDIA for the optics power and lists the liquid-cooled racks."""
    import shutil
    import subprocess

    from designer.catalog import default_catalog
    from designer.io.project import save_design
    from designer.model.topology.presets import new_design

    design = new_design(default_catalog(), "rail-optimized", gpus=1152, server="gb300-nvl72-tray", switch="q3450-ld")
    save_design(design, tmp_path / "cpo.json")
    res = cli_run("report", str(tmp_path / "cpo.json"),
                  "-o", str(tmp_path / "cpo.pdf"))
    assert res.returncode == 0, res.stderr
    from designer.model.physical.bom import build_bom
    from tests.helpers import derived

    counts = build_bom(derived(design)).counts   # what the page reads
    assert counts["co_packaged_optics"] == ["Quantum-X Photonics Q3450-LD"]
    assert counts["transceivers"]["switch_side"] == 0 and counts["liquid_cooled"]["server_racks"] == 16
    if shutil.which("pdftotext"):   # and, where poppler is installed, what the page says
        text = subprocess.run(["pdftotext", str(tmp_path / "cpo.pdf"), "-"], capture_output=True, text=True,
                              timeout=120).stdout
        assert "co-packaged: Quantum-X Photonics Q3450-LD" in text and "(0 switch side)" in text
        assert "Scaling AI Factories with Co-Packaged" in text and "16 server racks" in text

def test_the_resilience_pages_sources_are_whole(superpod_report):
    """The Source column read 'Meta, The Llama 3 Herd of Models (2024), table of unexpe…'; it wraps."""
    from designer.model.decisions.interruptions import interruptions

    report, _, inks = superpod_report
    number = [p.section for p in report.pages()].index("Resilience and growth")
    shown = [text for _, text in inks[number].texts]
    assert not [t for t in shown if t.endswith("…")]
    words = " ".join(shown)
    for e in interruptions(report.facts.derived).expected:
        if e.rate.source:
            assert " ".join(e.rate.source.split()) in words or all(w in words for w in e.rate.source.split())


def test_the_resilience_page_names_its_counts_as_the_window_and_the_cli_do(superpod_report):
    """The report's "Of" column read "1,024 gpus" where the window says "1,024 GPUs"."""
    from designer.cli.cmd_whatif import interruptions_text
    from designer.model.decisions.interruptions import interruptions, unit_name

    report, _, inks = superpod_report
    number = [p.section for p in report.pages()].index("Resilience and growth")
    shown = [text for _, text in inks[number].texts]
    expected = interruptions(report.facts.derived)
    cli = interruptions_text(expected)
    gpus = [e for e in expected.expected if e.rate.applies_to == "gpus"]
    assert gpus
    for e in gpus:
        said = f"{e.units:,} {unit_name(e.rate.applies_to)}"
        assert said.endswith(" GPUs") and said in shown and said in cli
    assert not [t for t in shown if t.endswith(" gpus")] and " gpus " not in cli
