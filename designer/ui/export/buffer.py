"""Painting a figure into memory: exporters then write the bytes atomically."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QPagedPaintDevice, QPaintDevice, QPainter


def paint_to_bytes(make_device: Callable[[QBuffer], QPaintDevice | QPagedPaintDevice], figure) -> bytes:
    """Paint `figure` on the device `make_device(buffer)` builds over an in-memory buffer."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    device = make_device(buffer)
    painter = QPainter(device)
    try:
        figure.paint(painter)
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())
