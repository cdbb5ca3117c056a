"""The node-name pattern holds in the ibnetdiscover export as in Slurm, NetBox and NDT, so that a
capture of the real fabric (hosts under their real names) can be diffed against it."""

from __future__ import annotations

import re
from pathlib import Path

from designer.catalog import default_catalog
from designer.io.export_source import ExportOptions, ExportSource
from designer.io.exporters import FORMATS
from designer.io.fabric_capture import parse_capture
from designer.io.project import load_design
from designer.model.decisions.audit import audit

CAT = default_catalog()
SU1 = Path(__file__).resolve().parents[1] / "examples" / "dgx-h100-superpod-1su.json"


def test_ibnetdiscover_names_hosts_by_the_pattern_and_audits_clean():
    design = load_design(SU1)
    src = ExportSource(design, CAT, ExportOptions(node_pattern="dgx{n:03d}"))
    text = FORMATS["ibnetdiscover"].render(src)
    hosts = set(re.findall(r'"(\S+) mlx5_\d+"', text))
    assert hosts == {f"dgx{n:03d}" for n in range(1, design.cluster.servers + 1)}
    assert "srv-" not in text
    slurm = FORMATS["slurm-tree"].render(src)
    assert "dgx[001-032]" in slurm or "dgx001" in slurm
    report = audit(parse_capture(text, "capture"), design=design, catalog=CAT)
    assert not report.miswired and not report.missing_links and not report.extra_links
