"""The audit's findings as CSV: one row per finding, in the order of the detail (by device,
sorted by SU and port), the same in the window's Audit panel export and `audit --csv`."""

from __future__ import annotations

import os
from typing import Any

from designer.io.atomic import write_atomic
from designer.io.csv_cells import ENCODING, rows_to_csv
from designer.model.decisions.audit import AuditReport
from designer.model.decisions.audit_summary import describe, detail_groups

HEADER = ["kind", "a_device", "a_port", "a_tier", "a_su", "a_rail", "b_device", "b_port", "b_tier",
          "b_su", "b_rail", "detail", "device", "finding"]


def finding_rows(report: AuditReport) -> list[list[Any]]:
    rows: list[list[Any]] = [HEADER]
    for device, entries in detail_groups(report):
        for kind, e in entries:
            a, b = e.get("a", e), e.get("b", {})
            detail = e.get("reason") or e.get("as_built") or e.get("pair_links") or e.get("description") or ""
            rows.append([kind, a.get("device"), a.get("port", "") if a.get("port") is not None else "",
                         a.get("tier") or "", a.get("su") or "", a.get("rail") or "", b.get("device", ""),
                         b.get("port", "") if b.get("port") is not None else "", b.get("tier") or "",
                         b.get("su") or "", b.get("rail") or "", detail, device, describe(kind, e)])
    return rows


def findings_csv(report: AuditReport) -> str:
    return rows_to_csv(finding_rows(report))


def write_findings_csv(report: AuditReport, path: str | os.PathLike[str]) -> None:
    """Write the findings atomically (the old file stays whole until the new one is complete)."""
    write_atomic(path, findings_csv(report), encoding=ENCODING)
