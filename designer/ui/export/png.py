"""The diagram as PNG at a chosen DPI: pixel size = page size in inches x DPI."""

from __future__ import annotations

import os

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage, QPainter

from designer.io.atomic import write_atomic
from designer.ui.export.figure import Figure

MIN_DPI, MAX_DPI = 36, 1200
MAX_PIXELS = 400_000_000     # 20,000 x 20,000: beyond this an image takes gigabytes of memory
INCHES_PER_METER = 39.37007874


def png_size(figure: Figure, dpi: int) -> tuple[int, int]:
    return round(figure.spec.width_in * dpi), round(figure.spec.height_in * dpi)


def png_image(figure: Figure, dpi: int = 200) -> QImage:
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(f"DPI must be {MIN_DPI} to {MAX_DPI}, got {dpi}")
    width, height = png_size(figure, dpi)
    if width * height > MAX_PIXELS:
        raise ValueError(f"a {width:,} x {height:,} pixel image is too large; lower the DPI or the size")
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    # The resolution is stored in the PNG, and fonts are sized in points against it.
    dpm = round(dpi * INCHES_PER_METER)
    image.setDotsPerMeterX(dpm)
    image.setDotsPerMeterY(dpm)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        figure.paint(painter)
    finally:
        painter.end()
    return image


def png_bytes(figure: Figure, dpi: int = 200) -> bytes:
    image = png_image(figure, dpi)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # PySide6's stub types the format as bytes, but the binding refuses bytes and takes str.
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise OSError("the PNG encoder failed")
    buffer.close()
    return bytes(data.data())


def export_png(figure: Figure, path: str | os.PathLike, dpi: int = 200) -> None:
    """Write the figure as PNG at `dpi`, atomically."""
    write_atomic(path, png_bytes(figure, dpi))
