"""A pluggable fabric beside its co-packaged-optics twin: the comparison names the source of each
figure CPO changes (transceivers, network power, failures per month) in its text, its JSON and
the report; a comparison without a CPO switch names none."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.io.project import save_design
from designer.model.decisions.comparison import compare
from designer.model.decisions.counterpart import optics_twin
from designer.model.decisions.interruptions import load_rates
from designer.model.topology.presets import new_design
from tests.helpers import examples

CAT = default_catalog()


def _pair(nodes: int = 144):
    plug = new_design(CAT, "rail-optimized", nodes=nodes, server="dgx-b300-xdr", switch="q3400")
    return plug, optics_twin(plug, CAT).design


def test_the_comparison_names_the_source_of_each_figure_cpo_changes():
    plug, cpo = _pair()
    c = compare([plug, cpo], catalog=CAT)
    assert c.row("optics_switch_side").values[1] == 0
    assert c.row("power_kw").values[1] < c.row("power_kw").values[0]
    assert c.row("failures_month").values[1] < c.row("failures_month").values[0]
    topics = [line.split(":")[0] for line in c.sources]
    assert topics[:2] == ["transceivers", "network power"] and "failures / month" in topics
    power = next(line for line in c.sources if line.startswith("network power"))
    assert "Q3450-LD" in power and "9 W" in power and "https://developer.nvidia.com/blog" in power
    rates = {r.id: r for r in load_rates()}
    failures = [line for line in c.sources if line.startswith("failures / month")]
    assert any(rates["transceiver"].source in line for line in failures)
    assert c.to_json()["sources"] == list(c.sources)


@settings(max_examples=examples(10), deadline=None)
@given(nodes=st.integers(8, 200), switch=st.sampled_from(["qm9700", "q3400", "sn5600"]))
def test_pluggable_fabrics_alone_name_no_optics_source(nodes, switch):
    server = {"qm9700": "dgx-h100", "q3400": "dgx-b300-xdr", "sn5600": "dgx-b300-eth"}[switch]
    a = new_design(CAT, "leaf-spine", nodes=nodes, server=server, switch=switch)
    b = new_design(CAT, "leaf-spine", nodes=nodes + 8, server=server, switch=switch)
    assert compare([a, b], catalog=CAT).sources == ()


def test_the_compare_command_prints_the_sources(tmp_path, capsys):
    plug, cpo = _pair(72)
    save_design(plug, tmp_path / "p.json")
    assert main(["compare", str(tmp_path / "p.json"), "--optics-twin"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nsource: ") >= 3 and "source: network power: Quantum-X Photonics Q3450-LD" in out
    assert main(["compare", str(tmp_path / "p.json"), "--optics-twin", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["sources"]) >= 3


@pytest.fixture
def gui(qapp):
    return qapp


def test_the_report_comparison_page_states_the_sources(gui):
    from designer.ui.export.report import Report

    plug, cpo = _pair()
    data, _ = Report(plug, cpo).render()
    pages = [" ".join(p.extract_text().replace("\ufb01", "fi").split()) for p in PdfReader(io.BytesIO(data)).pages]
    page = next(p for p in pages if "Recommendation (heuristic)" in p)
    assert "Source of network power" in page and "Source of transceivers" in page
    assert "Source of failures / month" in page and "Alibaba HPN" in page
