"""Small builders shared by the model tests."""

from __future__ import annotations

from designer.catalog import default_catalog
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design


def superpod(sus: int = 1, **kw):
    """DGX H100 SuperPOD compute fabric with 32 nodes per SU on QM9700."""
    return new_design(default_catalog(), "rail-optimized", nodes=32 * sus, server="dgx-h100",
                      switch="qm9700", **kw)


def derived(design):
    return derive(design, default_catalog())
