"""A fabric small enough for one switch per plane (64 GPUs and below) is built as one tier; its
capture must read back as the same design, whichever way the switch's ports are laid out: by
rail (a rail-optimized plane: each server's HCAs spread over the switch) or by server (a
leaf-spine plane: its HCAs side by side)."""
from __future__ import annotations

import pytest

from designer.catalog import default_catalog
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.io.lldp import export_lldp_json, parse_lldp_json
from designer.model.decisions.audit import audit
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from designer.model.topology.presets import new_design

CAT = default_catalog()


@pytest.mark.parametrize("template", ["rail-optimized", "leaf-spine"])
@pytest.mark.parametrize("nodes", [2, 4, 8])
@pytest.mark.parametrize("switch", ["qm9700", "sn5600"])
def test_a_one_tier_capture_reads_back_as_its_design(template, nodes, switch):
    design = new_design(CAT, template, nodes=nodes, server="dgx-h100", switch=switch)
    derived = derive(design, CAT)
    assert derived.metrics.tiers == 1 and derived.metrics.switches_total == derived.resolved.planes
    if derived.resolved.family == "infiniband":
        fabric = parse_ibnetdiscover(export_ibnetdiscover(derived))
    else:
        fabric = parse_lldp_json(export_lldp_json(derived))
    inference = infer_design(fabric, CAT)
    assert inference.design is not None, inference.problems
    assert inference.exact
    report = audit(fabric, inference.design, inference)
    assert not (report.miswired or report.missing_links or report.extra_links or report.swapped)
    # The inferred design wires the servers' ports where the capture has them.
    against_own = audit(fabric, design)
    assert not (against_own.miswired or against_own.missing_links or against_own.extra_links)
