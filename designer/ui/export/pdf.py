"""The diagram as a one-page vector PDF (QPdfWriter), sized to the figure."""

from __future__ import annotations

import os

from PySide6.QtCore import QBuffer, QByteArray, QMarginsF, QSizeF, QUuid
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter

from designer import __version__
from designer.io.atomic import write_atomic
from designer.ui.export.buffer import paint_to_bytes
from designer.ui.export.figure import Figure

PDF_DPI = 1200   # coordinates and text positions are written at this resolution
# RFC 4122's namespace for URLs (Python's uuid.NAMESPACE_URL): Qt makes the name-based id itself,
# so exporting does not load the uuid module.
NAMESPACE_URL = QUuid("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def pdf_writer(buffer: QBuffer, width_in: float, height_in: float, title: str) -> QPdfWriter:
    """A QPdfWriter on `buffer` with one page size, no margins and the document's metadata."""
    writer = QPdfWriter(buffer)
    writer.setResolution(PDF_DPI)
    size = QPageSize(QSizeF(width_in, height_in), QPageSize.Unit.Inch, "",
                     QPageSize.SizeMatchPolicy.ExactMatch)
    writer.setPageLayout(QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    writer.setTitle(title)
    writer.setCreator(f"Fabric Designer {__version__}")
    # Qt would pick a random document id; one derived from the title makes the window's file and
    # the command line's the same bytes (only the creation time, to the second, can differ).
    writer.setDocumentId(document_id(title))
    return writer


def document_id(title: str) -> QUuid:
    """The name-based (version 5) id of a document titled `title`: uuid5(NAMESPACE_URL, ...)."""
    return QUuid.createUuidV5(NAMESPACE_URL, QByteArray(f"fabric-designer:{title}".encode()))


def pdf_bytes(figure: Figure) -> bytes:
    title = figure.design.meta.name or "Fabric diagram"
    return paint_to_bytes(lambda buffer: pdf_writer(buffer, figure.spec.width_in, figure.spec.height_in, title),
                          figure)


def export_pdf(figure: Figure, path: str | os.PathLike) -> None:
    """Write the figure as a one-page PDF, atomically."""
    write_atomic(path, pdf_bytes(figure))
