"""PDF from the print HTML, drawn by Qt's text document (``QTextDocument`` on a ``QPdfWriter``).

Qt is already how the app draws its rich text, so its PDF needs no new library, and it lays
out the very HTML ``storyloom print`` writes to .html (with images as document resources).
Only the GUI layer imports Qt (``tests/test_architecture.py``): the app's print function
takes :func:`html_to_pdf` as an argument. It runs in a worker thread as well as on the GUI
thread (a text document and a PDF writer are not widgets); it needs a ``QGuiApplication``,
which :func:`ensure_application` creates offscreen for the command line."""

from __future__ import annotations

import os
from collections.abc import Mapping

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import QGuiApplication, QImage, QPageLayout, QPageSize, QPdfWriter, QTextDocument

#: Resolution of the PDF's layout (points are 1/72 inch; 300 dpi keeps images sharp).
RESOLUTION = 300
MARGIN_MM = 20.0


def ensure_application() -> QGuiApplication:
    """The running Qt application, or a new offscreen one (the command line has no window)."""
    app = QGuiApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QGuiApplication(["storyloom"])
    assert isinstance(app, QGuiApplication)
    return app


def html_to_pdf(html: str, images: Mapping[str, bytes]) -> bytes:
    """The PDF (A4, 20 mm margins) of ``html``; ``images`` are the resources its ``src``s name."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
                                     QPageLayout.Unit.Millimeter))
    document = QTextDocument()
    for name, blob in images.items():
        image = QImage()
        if image.loadFromData(blob):
            document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    document.setHtml(html)
    writer.setTitle(document.metaInformation(QTextDocument.MetaInformation.DocumentTitle))
    writer.setCreator("Storyloom")
    # The page's text area in the writer's device units: the document lays itself out to it.
    area = writer.pageLayout().paintRectPixels(RESOLUTION)
    document.setPageSize(QSizeF(area.width(), area.height()))
    document.print_(writer)
    del writer  # the PDF's last bytes are written when the writer goes
    buffer.close()
    return bytes(data.data())
