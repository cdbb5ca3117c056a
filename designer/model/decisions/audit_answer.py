"""One answer from a capture: the inferred design, the user's corrections and the audit.

File > Import Fabric Capture, Tools > Audit Against, `fabric-designer import` and
`fabric-designer audit` all call `capture_answer`, so they give the same inferred design and the
same findings on the same capture (tests hold the four equal).

- Without a design to audit against, the capture is read against the inferred design, corrected
  first by the user's figures (`import --set nodes_per_su=32`, the window's Inferred design dialog).
- Against a design that is this capture's own import (the inferred design plus the capture's
  differences as edits), the capture is audited against the design it was inferred as: auditing
  the fabric as built against itself would hide every fault it was imported with.
- Against any other design, the capture is audited against that design.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from designer.catalog import Catalog, default_catalog
from designer.model.decisions.audit import AuditReport, audit
from designer.model.intent.design import MAX_EDITS, FabricDesign
from designer.model.topology.asbuilt import AsBuilt
from designer.model.topology.inference import Inference, infer_design
from designer.model.topology.inference_corrections import apply_corrections


@dataclass
class CaptureAnswer:
    """What every path shows of one capture."""

    fabric: AsBuilt
    inference: Inference
    report: AuditReport
    against: FabricDesign | None          # the design the capture was audited against
    basis: str                            # "inferred", "inferred, corrected", "its own import", "design", "none"
    corrections: dict[str, str] = field(default_factory=dict)

    def as_built(self) -> FabricDesign | None:
        """The design audited against plus the capture's differences as edits: the fabric as
        built, as `import` writes it; None when no design fits or it would take too many edits."""
        base = self.against
        if base is None or len(base.edits) + len(self.report.edits) > MAX_EDITS:
            return None
        return dataclasses.replace(base, edits=base.edits + self.report.edits)

    def matches_rule(self) -> bool:
        """The capture is wired as the design's rule says: no finding at all."""
        return not self.report.rows()


def _same_but_edits(a: FabricDesign, b: FabricDesign) -> bool:
    return dataclasses.replace(a, meta=b.meta, edits=()) == dataclasses.replace(b, edits=())


def capture_answer(fabric: AsBuilt, against: FabricDesign | None = None, corrections: dict[str, str] | None = None,
                   catalog: Catalog | None = None, name: str = "As built") -> CaptureAnswer:
    """The inference and the audit of `fabric`, the same wherever they are asked.

    Raises ValueError (one line) when a correction names an unknown figure or a value no design
    can take.
    """
    catalog = catalog or default_catalog()
    inference = infer_design(fabric, catalog, name=name)
    corrections = dict(corrections or {})
    if corrections:
        apply_corrections(inference, corrections, catalog)
    if against is None:
        report = audit(fabric, inference=inference, catalog=catalog)
        basis = ("inferred, corrected" if corrections else "inferred") if inference.design is not None else "none"
        return CaptureAnswer(fabric, inference, report, inference.design, basis, corrections)
    own = inference.design
    if own is not None and _same_but_edits(against, own):
        # The open design may be this capture's import: its edits are then the audit's own (none
        # when the capture matches its inferred design's rule).
        report = audit(fabric, inference=inference, catalog=catalog)
        if own.edits + report.edits == against.edits:
            return CaptureAnswer(fabric, inference, report, own, "its own import", corrections)
    report = audit(fabric, design=against, inference=inference, catalog=catalog)
    return CaptureAnswer(fabric, inference, report, against, "design", corrections)
