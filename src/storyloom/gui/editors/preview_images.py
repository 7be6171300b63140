"""Images in the markdown (and rich-text) previews: attachments drawn inline, placeholders for
the rest.

:class:`PreviewBrowser` is the preview's :class:`QTextBrowser`; the document asks it for each
image (``loadResource``), and it answers from the project's attachments through
:class:`storyloom.app.attachments.AttachmentImages` (permalinks such as
``storyloom://image/<id>`` and Drafft's ``drafft://image/<id>``, an attachment's id or name,
``data:`` URLs). An image is scaled down to the preview's width (crisp at any device pixel
ratio); one that cannot be shown becomes a readable placeholder saying why, never a broken icon.
Decoded images are cached by attachment and revision, so a redraw while typing decodes nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QRect, QRectF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPen, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from storyloom.app.attachments import AttachmentImages, ImageSource
from storyloom.errors import StoryloomError
from storyloom.gui import theme

CACHE_SIZE = 32
MIN_WIDTH = 160
PLACEHOLDER_HEIGHT = 44


def decode_image(data: bytes) -> QImage:
    """``data`` decoded (a null image when Qt cannot read it)."""
    image = QImage()
    image.loadFromData(data)
    return image


def fit_width(image: QImage, width: int, ratio: float) -> QImage:
    """``image`` scaled down (never up) to ``width`` logical pixels, drawn at ``ratio``."""
    limit = max(int(width * ratio), 1)
    scaled = image
    if image.width() > limit:
        scaled = image.scaledToWidth(limit, Qt.TransformationMode.SmoothTransformation)
    scaled = QImage(scaled)
    scaled.setDevicePixelRatio(ratio if image.width() > limit else 1.0)
    return scaled


def placeholder_image(text: str, width: int, ratio: float) -> QImage:
    """A calm framed box with an image icon and ``text`` (wrapped to fit), ``width`` wide."""
    colours = theme.colors()
    width = max(min(width, 560), MIN_WIDTH)
    left = theme.M + 20 + theme.S
    probe = QImage(1, 1, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(probe)
    metrics = QFontMetrics(painter.font())
    painter.end()
    flags = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
    text_width = width - left - theme.M
    height = max(PLACEHOLDER_HEIGHT, metrics.boundingRect(QRect(0, 0, text_width, 1000), flags, text).height()
                 + 2 * theme.M)
    image = QImage(QSize(int(width * ratio), int(height * ratio)), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(colours.surface_alt))
    pen = QPen(QColor(colours.border))
    pen.setStyle(Qt.PenStyle.DashLine)
    painter.setPen(pen)
    painter.drawRoundedRect(QRectF(0.5, 0.5, width - 1, height - 1), 6, 6)
    icon = qta.icon("ph.image", color=colours.muted).pixmap(QSize(20, 20), ratio)
    painter.drawPixmap(theme.M, (height - 20) // 2, icon)
    painter.setPen(QColor(colours.muted))
    painter.drawText(QRect(left, 0, text_width, height), flags, text)
    painter.end()
    return image


class PreviewBrowser(QTextBrowser):
    """A :class:`QTextBrowser` that draws the project's attachments where the text shows an
    image. ``images`` is set by the editor (``None``: no project, every image a placeholder)."""

    refit = Signal()  # the width changed: the images want drawing again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: AttachmentImages | None = None
        self._decoded: OrderedDict[tuple[str, str], QImage] = OrderedDict()
        self.shown: dict[str, str] = {}  # source -> what was drawn ("image" or the placeholder text)

    def available_width(self) -> int:
        """The width an image may take: the text's, less a scroll bar that may still appear."""
        margin = int(self.document().documentMargin())
        bar = self.verticalScrollBar()
        scroll = 0 if bar.isVisible() else bar.sizeHint().width()
        return max(self.viewport().width() - 2 * margin - scroll - 4, MIN_WIDTH)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if "image" in self.shown.values() and abs(event.size().width() - event.oldSize().width()) > 16:
            self.refit.emit()  # images were fitted to the old width

    def loadResource(self, kind: int, name: QUrl) -> Any:
        if getattr(kind, "value", kind) != QTextDocument.ResourceType.ImageResource.value:
            return super().loadResource(kind, name)
        source = name.toString()
        try:
            image, text = self._image_for(source)
        except StoryloomError:  # a late re-render after the project closed: nothing to read
            image, text = None, f"“{source}” cannot be read: the project is closed"
        ratio = self.devicePixelRatioF() or 1.0
        if image is None:
            self.shown[source] = text
            return placeholder_image(text, self.available_width(), ratio)
        self.shown[source] = "image"
        return fit_width(image, self.available_width(), ratio)

    def _image_for(self, source: str) -> tuple[QImage | None, str]:
        """The decoded image of ``source``, or ``None`` and the placeholder's text."""
        if self.images is None:
            found = ImageSource("missing", source, reason=f"no project to read “{source}” from")
        else:
            found = self.images.resolve(source)
        if found.kind == "attachment" and found.doc_id is not None and self.images is not None:
            key = (found.doc_id, self.images.revision(found.doc_id) or "")
            cached = self._decoded.get(key)
            if cached is not None:
                self._decoded.move_to_end(key)
                return cached, ""
            found = self.images.load(source)
            if found.data is None:
                return None, found.placeholder
            image = decode_image(found.data)
            if image.isNull():
                return None, f"“{source}” is an attachment Qt cannot draw as a picture"
            self._decoded[key] = image
            while len(self._decoded) > CACHE_SIZE:
                self._decoded.popitem(last=False)
            return image, ""
        if found.kind == "data" and found.data is not None:
            image = decode_image(found.data)
            if not image.isNull():
                return image, ""
            return None, "an inline image (data: URL) that is not a picture Qt can draw"
        return None, found.placeholder
