"""Exporting designs: the diagram as SVG, PDF or PNG, and the multi-page PDF report."""

from __future__ import annotations

FORMATS = ("svg", "pdf", "png")
