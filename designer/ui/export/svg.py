"""The diagram as SVG: vector shapes and real text, with a title and description."""

from __future__ import annotations

import os
import re

from PySide6.QtCore import QRectF, QSize
from PySide6.QtSvg import QSvgGenerator

from designer.io.atomic import write_atomic
from designer.limits import printable
from designer.ui.export.buffer import paint_to_bytes
from designer.ui.export.figure import Figure

_XML_ILLEGAL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]"
                          rb"|&#(?:x0*[0-8bcefBCEF]|x0*1[0-9a-fA-F]|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]));")
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
        generator.setTitle(printable(figure.design.meta.name) or "Fabric diagram")
        generator.setDescription(printable(figure.describe()))
        return generator

    # XML 1.0 allows no control characters but tab and line ends, even escaped: whatever a name
    # held, none reaches the file.
    return _XML_ILLEGAL.sub(b"", paint_to_bytes(generator_on, figure))


def export_svg(figure: Figure, path: str | os.PathLike) -> None:
    """Write the figure as SVG, atomically."""
    write_atomic(path, svg_bytes(figure))
