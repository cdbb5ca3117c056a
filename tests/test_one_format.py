"""One number, one format: the same figure reads the same in the Compare window, the report, the
command line and the CSV (which keeps full precision and rounds to the same text)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from designer.catalog import default_catalog
from designer.cli.cmd_compare import render_text
from designer.io.compare_csv import compare_to_csv
from designer.io.project import load_design
from designer.model.common.units import bandwidth_label, figure_text, rate_label
from designer.model.decisions.audit import impact_lines
from designer.model.decisions.comparison import CompareSettings, compare
from designer.model.decisions.counterpart import make_counterpart

ROOT = Path(__file__).resolve().parents[1]
CAT = default_catalog()


def _comparison():
    design = load_design(ROOT / "examples" / "dgx-h100-superpod-4su.json")
    other = make_counterpart(design, "roce-400g", CAT).design
    return compare([design, other], CompareSettings(), CAT)


def test_bisection_reads_the_same_in_the_window_the_report_the_cli_and_the_csv(qapp):
    from designer.ui.compare.compare_table import row_format
    from designer.ui.export.comparison_pages import _value

    c = _comparison()
    row = next(r for r in c.rows if r.key == "bisection_tbps")
    first = row.values[0]
    text = figure_text(first, "Tb/s")
    assert text == "204.8"                                         # 1,024 GPUs x 200 Gb/s each way
    assert bandwidth_label(first * 1000) == f"{text} Tb/s"         # the main window and `metrics`
    assert row_format(row)(first) == f"{text} Tb/s"                # the Compare window
    assert _value(first, row.unit) == text                         # the report's comparison page
    cli = next(line for line in render_text(c).splitlines() if line.startswith("Bisection "))
    assert re.search(rf"\b{re.escape(text)}\b", cli), cli           # `compare`
    cells = next(r for r in csv.reader(io.StringIO(compare_to_csv(c).lstrip("\ufeff"))) if r[1] == "Bisection")
    assert figure_text(float(cells[3]), "Tb/s") == text           # the CSV, full precision


def test_every_comparison_row_reads_the_same_in_the_window_report_and_cli(qapp):
    from designer.ui.compare.compare_table import row_format
    from designer.ui.export.comparison_pages import _value

    c = _comparison()
    cli = render_text(c)
    for row in c.rows:
        fmt = row_format(row)
        for value in row.values:
            if value is None or row.unit in ("USD", "us", "ms"):
                continue   # money and times are scaled to their own units on screen
            text = figure_text(value, row.unit)
            assert fmt(value).startswith(text), (row.key, fmt(value), text)
            assert _value(value, row.unit) == text, row.key
            assert text in cli, (row.key, text)


def test_rates_are_never_written_in_scientific_notation():
    assert rate_label(1.9e-5) == "19 per million"      # 1.9e-5 per link-day
    assert rate_label(0.65) == "0.65"
    assert rate_label(None) == "no published rate"
    assert "e-" not in rate_label(3.3e-9)


def test_the_audit_impact_is_written_as_the_metrics_are():
    impact = {"designed": {"bisection_gbps": 108_800.0, "oversubscription_leaf": 1.0, "links": 2048,
                           "allreduce_1GiB_us": 5_300.0},
              "as_built": {"bisection_gbps": 92_800.0, "oversubscription_leaf": 1.1428, "links": 2000,
                           "allreduce_1GiB_us": 6_100.0}}
    lines = impact_lines(impact)
    assert lines[0] == "Bisection: 108.8 Tb/s -> 92.8 Tb/s"
    assert lines[1].startswith("Leaf oversubscription: 1:1 -> 1.14:1")
    assert lines[2] == "Links: 2,048 -> 2,000"
    assert lines[3] == "All-reduce of 1 GiB: 5.30 ms -> 6.10 ms"
    assert not any(re.search(r"\de[+-]\d", line) or "_gbps" in line for line in lines)
