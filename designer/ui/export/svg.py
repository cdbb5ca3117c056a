"""The diagram as SVG: vector shapes and real text, with a title and description."""

from __future__ import annotations

import os

from PySide6.QtCore import QRectF, QSize
from PySide6.QtSvg import QSvgGenerator

from designer.io.atomic import write_atomic
from designer.ui.export.buffer import paint_to_bytes
from designer.ui.export.figure import Figure

SVG_DPI = 96   # the CSS pixel: SVG user units are read as 1/96 inch


def svg_bytes(figure: Figure) -> bytes:
    spec = figure.spec
    width, height = round(spec.width_in * SVG_DPI), round(spec.height_in * SVG_DPI)

    def generator_on(buffer) -> QSvgGenerator:
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setResolution(SVG_DPI)
        generator.setSize(QSize(width, height))
        generator.setViewBox(QRectF(0, 0, width, height))
        generator.setTitle(figure.design.meta.name or "Fabric diagram")
        generator.setDescription(figure.describe())
        return generator

    return paint_to_bytes(generator_on, figure)


def export_svg(figure: Figure, path: str | os.PathLike) -> None:
    """Write the figure as SVG, atomically."""
    write_atomic(path, svg_bytes(figure))
