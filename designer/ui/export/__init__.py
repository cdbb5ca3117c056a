"""Exporting designs: the diagram as SVG, PDF or PNG, and the multi-page PDF report.

Drawn with QPainter, so it lives in the window's package; the files are written through
designer.io. Works without a display (headless).
May import: canvas, services and the ui foundation modules.
"""

from __future__ import annotations

FORMATS = ("svg", "pdf", "png")
