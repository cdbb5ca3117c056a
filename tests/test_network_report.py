"""The report of a design with several networks: a page per network and the arrangements page."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from designer.catalog import default_catalog
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec
from designer.model.networks.defaults import ra_networks

CAT = default_catalog()


def _text(data: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture(scope="module")
def network_report(qapp):
    from designer.ui.export.report import Report

    tray = CAT.server("gb200-nvl72-tray")
    design = FabricDesign(cluster=ClusterSpec(server=tray.id, servers=8 * 18),
                          fabric=FabricSpec(template="rail-optimized", nodes_per_su=144),
                          networks=ra_networks(tray))
    report = Report(design, catalog=CAT, date="2025-03-01")
    data, inks = report.render()
    return report, _text(data), inks


def test_the_report_has_a_page_per_network_and_the_arrangements(network_report):
    report, pages, _ = network_report
    sections = [p.section for p in report.pages()]
    assert "Network: Converged / storage (north-south)" in sections
    assert "Network: Out-of-band management" in sections
    assert "Network arrangements" in sections
    assert sections.index("Bill of materials") < sections.index("Network: Out-of-band management")
    oob = pages[sections.index("Network: Out-of-band management")]
    section = next(s for s in report.network_sections() if s.size.role == "oob")
    assert f"{section.size.switch_count:,}" in oob and "sn2201" in oob
    arrangements = pages[sections.index("Network arrangements")]
    for word in ("as designed", "merged", "Capex", "Power"):
        assert word in arrangements


def test_no_two_labels_overlap_on_the_network_pages(network_report):
    from designer.ui.export.ink import overlapping_texts

    report, _, inks = network_report
    sections = [p.section for p in report.pages()]
    for number, (ink, section) in enumerate(zip(inks, sections, strict=True), 1):
        if section.startswith("Network"):
            assert overlapping_texts(ink.texts) == [], f"page {number}"


def test_a_compute_only_design_has_no_network_pages(qapp):
    from designer.ui.export.report import Report

    report = Report(FabricDesign(), catalog=CAT)
    assert not any(p.section.startswith("Network") for p in report.pages())
