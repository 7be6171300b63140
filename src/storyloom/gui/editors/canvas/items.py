"""What the canvas draws: notes (markdown), images, document cards, group frames and labelled
edges. Items show the board's dicts; they never change the board: a move or resize ends in a
request to the scene, which the editor turns into an undoable step."""

from __future__ import annotations

import math
from typing import Any, Protocol

import qtawesome
from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt, SignalInstance
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneHoverEvent,
    QGraphicsSceneMouseEvent,
    QStyleOptionGraphicsItem,
)

from storyloom.gui import icons, theme
from storyloom.project import canvas as cv


class BoardScene(Protocol):
    """What a node asks of the scene it is in (:class:`~storyloom.gui.editors.canvas.scene.CanvasScene`)."""

    @property
    def resize_requested(self) -> SignalInstance: ...

    def document_name(self, doc_id: str) -> str | None: ...

    def image(self, doc_id: str) -> QPixmap | None: ...

    def collection_label(self, kind: str) -> str: ...

    def node_moved(self, item: NodeItem) -> None: ...

    def open_link(self, node_id: str) -> None: ...

PAD = 12
RADIUS = 8
GRIP = 14
KNOB = 7
NOTE_COLORS = {"yellow": "#f5d76e", "pink": "#f19cbb", "blue": "#8ec5f0", "green": "#9ad4a0", "purple": "#c4a7f0"}


def _alpha(color: str, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c


class NodeItem(QGraphicsItem):
    """A node of the board: its rectangle, selection, a resize grip and a link knob."""

    def __init__(self, node: dict[str, Any]) -> None:
        super().__init__()
        self.node_id: str = node["id"]
        self.node = node
        self.kind = cv.node_type(node)
        self._w, self._h = cv.size_of(node)
        self._resizing: tuple[QPointF, float, float] | None = None
        self._hover = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    # ------------------------------------------------------------------ state from the board
    def canvas_scene(self) -> BoardScene:
        return self.scene()  # type: ignore[return-value]

    def show_node(self, node: dict[str, Any]) -> None:
        self.node = node
        w, h = cv.size_of(node)
        if (w, h) != (self._w, self._h):
            self.prepareGeometryChange()
            self._w, self._h = w, h
        self.refresh()

    def refresh(self) -> None:
        self.update()

    def rect(self) -> QRectF:
        return QRectF(0, 0, self._w, self._h)

    def boundingRect(self) -> QRectF:
        return self.rect().adjusted(-KNOB - 2, -2, KNOB + 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self.rect(), RADIUS, RADIUS)
        path.addEllipse(self.knob_center(), KNOB + 2, KNOB + 2)
        return path

    def scene_rect(self) -> QRectF:
        return self.mapRectToScene(self.rect())

    def grip_rect(self) -> QRectF:
        return QRectF(self._w - GRIP, self._h - GRIP, GRIP, GRIP)

    def knob_center(self) -> QPointF:
        return QPointF(self._w, self._h / 2)

    def on_knob(self, scene_point: QPointF) -> bool:
        """Whether ``scene_point`` is on the link knob (drag from it to link to another node)."""
        point = self.mapFromScene(scene_point)
        return (point - self.knob_center()).manhattanLength() <= KNOB + 4

    def chip_rect(self) -> QRectF | None:
        """Where the linked document's chip is (click it to open the document), if any."""
        return None

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: Any = None) -> None:
        colors = theme.colors()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.paint_body(painter, colors)
        if self.isSelected():
            painter.setPen(QPen(QColor(colors.accent), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(self.rect().adjusted(-1, -1, 1, 1), RADIUS + 1, RADIUS + 1)
            painter.setPen(QPen(QColor(colors.accent), 1.5))
            grip = self.grip_rect()
            for step in (4, 8):
                painter.drawLine(QPointF(grip.right() - step, grip.bottom() - 2),
                                 QPointF(grip.right() - 2, grip.bottom() - step))
        if self.isSelected() or self._hover:
            painter.setPen(QPen(QColor(colors.surface), 2))
            painter.setBrush(QColor(colors.accent))
            painter.drawEllipse(self.knob_center(), KNOB - 1, KNOB - 1)

    def paint_body(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        painter.setPen(QPen(QColor(colors.border), 1))
        painter.setBrush(QColor(colors.surface))
        painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)

    def paint_chip(self, painter: QPainter, colors: theme.ThemeColors, text: str, missing: bool) -> None:
        rect = self.chip_rect()
        if rect is None:
            return
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_alpha(colors.danger if missing else colors.accent, 30))
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        icon = icons.icon("warning" if missing else "external", colors.danger if missing else colors.accent)
        side = rect.height() - 8
        icon.paint(painter, QRectF(rect.left() + 7, rect.top() + 4, side, side).toRect())
        painter.setPen(QColor(colors.danger if missing else colors.accent))
        font = QFont(painter.font())
        font.setPointSizeF(font.pointSizeF() * 0.9)
        painter.setFont(font)
        label = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, rect.width() - 30)
        painter.drawText(rect.adjusted(24, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)

    # ------------------------------------------------------------------ gestures
    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and self.scene() is not None:
            self.canvas_scene().node_moved(self)
        return super().itemChange(change, value)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self._hover = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        on_grip = self.isSelected() and self.grip_rect().contains(event.pos())
        chip = self.chip_rect()
        if on_grip:
            self.setCursor(Qt.CursorShape.SizeFDiagCursor)
        elif (point := event.pos()) and (point - self.knob_center()).manhattanLength() <= KNOB + 4:
            self.setCursor(Qt.CursorShape.CrossCursor)
        elif chip is not None and chip.contains(event.pos()):
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.unsetCursor()
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self._hover = False
        self.unsetCursor()
        self.update()
        super().hoverLeaveEvent(event)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        movable = bool(self.flags() & QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        if event.button() == Qt.MouseButton.LeftButton and movable and self.isSelected() \
                and self.grip_rect().contains(event.pos()):
            self._resizing = (event.scenePos(), self._w, self._h)
            event.accept()
            return
        chip = self.chip_rect()
        if event.button() == Qt.MouseButton.LeftButton and chip is not None and chip.contains(event.pos()):
            self.canvas_scene().open_link(self.node_id)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._resizing is not None:
            start, w, h = self._resizing
            delta = event.scenePos() - start
            min_w, min_h = cv.MIN_SIZE[self.kind]
            self.prepareGeometryChange()
            self._w, self._h = max(min_w, round(w + delta.x())), max(min_h, round(h + delta.y()))
            self.refresh()
            self.canvas_scene().node_moved(self)
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._resizing is not None:
            self._resizing = None
            self.canvas_scene().resize_requested.emit(self.node_id, float(self._w), float(self._h))
            event.accept()
            return
        super().mouseReleaseEvent(event)


class NoteItem(NodeItem):
    """A note: its markdown drawn as rich text, the linked document as a chip at the bottom."""

    def __init__(self, node: dict[str, Any]) -> None:
        self.document = QTextDocument()
        self.document.setDocumentMargin(0)
        super().__init__(node)
        self.refresh()

    def refresh(self) -> None:
        self.document.setMarkdown(cv.note_text(self.node) or "*Empty note*")
        self.document.setTextWidth(self._w - 2 * PAD)
        self.update()

    def chip_rect(self) -> QRectF | None:
        if cv.linked_document(self.node) is None:
            return None
        return QRectF(PAD - 4, self._h - 30, min(self._w - 2 * PAD + 8, 220), 22)

    def paint_body(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        tint = NOTE_COLORS.get(str(cv.node_data(self.node).get("color") or ""))
        painter.setPen(QPen(QColor(colors.border), 1))
        painter.setBrush(QColor(colors.surface))
        painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)
        if tint:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_alpha(tint, 70 if colors.dark else 110))
            painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)
        chip = self.chip_rect()
        text_height = (chip.top() - 6 if chip else self._h - PAD) - PAD
        painter.save()
        painter.translate(PAD, PAD)
        painter.setClipRect(QRectF(0, 0, self._w - 2 * PAD, text_height))
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, QColor(colors.muted if not cv.note_text(self.node)
                                                                 else colors.text))
        self.document.documentLayout().draw(painter, context)
        painter.restore()
        doc_id = cv.linked_document(self.node)
        if doc_id is not None:
            name = self.canvas_scene().document_name(doc_id) if self.scene() is not None else None
            self.paint_chip(painter, colors, name or "Missing document", name is None)


class ImageItem(NodeItem):
    """A picture from an Attachment, kept in proportion, with its caption under it."""

    def chip_rect(self) -> QRectF | None:
        return None

    def paint_body(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        painter.setPen(QPen(QColor(colors.border), 1))
        painter.setBrush(QColor(colors.surface))
        painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)
        caption = str(cv.node_data(self.node).get("caption") or "")
        area = self.rect().adjusted(4, 4, -4, -(26 if caption else 4))
        doc_id = cv.linked_document(self.node)
        pixmap = self.canvas_scene().image(doc_id) if doc_id and self.scene() is not None else None
        if pixmap is not None and not pixmap.isNull():
            size = pixmap.size().scaled(area.size().toSize(), Qt.AspectRatioMode.KeepAspectRatio)
            target = QRectF(QPointF(0, 0), QSizeF(size))
            target.moveCenter(area.center())
            clip = QPainterPath()
            clip.addRoundedRect(target, RADIUS - 3, RADIUS - 3)
            painter.save()
            painter.setClipPath(clip)
            painter.drawPixmap(target, pixmap, QRectF(pixmap.rect()))
            painter.restore()
        else:
            painter.setPen(QColor(colors.muted))
            icon = icons.icon("warning", colors.muted)
            icon.paint(painter, QRectF(area.center().x() - 12, area.center().y() - 26, 24, 24).toRect())
            painter.drawText(area.adjusted(8, 16, -8, 0), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             "No picture: choose an image attachment")
        if caption:
            painter.setPen(QColor(colors.muted))
            label = QFontMetricsF(painter.font()).elidedText(caption, Qt.TextElideMode.ElideRight, self._w - 16)
            painter.drawText(QRectF(8, self._h - 24, self._w - 16, 20), Qt.AlignmentFlag.AlignCenter, label)


class DocumentItem(NodeItem):
    """A card for another document: its collection's icon, its name and its collection."""

    def chip_rect(self) -> QRectF | None:
        return None

    def paint_body(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        data = cv.node_data(self.node)
        doc_id = cv.linked_document(self.node)
        name = self.canvas_scene().document_name(doc_id) if doc_id and self.scene() is not None else None
        kind = str(data.get("docType") or "")
        try:
            icon_name, color = icons.COLLECTIONS[kind]
        except KeyError:
            icon_name, color = "ph.file", colors.muted
        painter.setPen(QPen(QColor(colors.border), 1))
        painter.setBrush(QColor(colors.surface))
        painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(color))
        band = QPainterPath()
        band.addRoundedRect(QRectF(0, 0, 6, self._h), 3, 3)
        painter.drawPath(band)
        qtawesome.icon(icon_name, color=color).paint(painter, QRectF(PAD + 2, self._h / 2 - 11, 22, 22).toRect())
        font = QFont(painter.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor(colors.text if name else colors.danger))
        text_rect = QRectF(PAD + 32, 6, self._w - PAD - 40, self._h / 2 - 2)
        title = QFontMetricsF(font).elidedText(name or "Missing document", Qt.TextElideMode.ElideRight,
                                               text_rect.width())
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft, title)
        font.setBold(False)
        painter.setFont(font)
        painter.setPen(QColor(colors.muted))
        painter.drawText(QRectF(PAD + 32, self._h / 2 + 2, self._w - PAD - 40, self._h / 2 - 6),
                         Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft,
                         f"{self.canvas_scene().collection_label(kind) if self.scene() else kind} · open ↗")


class GroupItem(NodeItem):
    """A frame holding notes (its child items, placed relative to it), its label on top."""

    def __init__(self, node: dict[str, Any]) -> None:
        super().__init__(node)
        self.setZValue(-10)
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)

    def shape(self) -> QPainterPath:
        """Only the frame's header and border take clicks, so the notes in it stay easy to reach."""
        path = QPainterPath()
        outer = QPainterPath()
        outer.addRoundedRect(self.rect(), RADIUS, RADIUS)
        inner = QPainterPath()
        inner.addRect(self.rect().adjusted(8, cv.GROUP_HEADER, -8, -8))
        path = outer.subtracted(inner)
        path.addEllipse(self.knob_center(), KNOB + 2, KNOB + 2)
        return path

    def paint_body(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        painter.setPen(QPen(_alpha(colors.accent, 120), 1.2, Qt.PenStyle.DashLine))
        painter.setBrush(_alpha(colors.accent, 18))
        painter.drawRoundedRect(self.rect(), RADIUS, RADIUS)
        font = QFont(painter.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor(colors.accent))
        label = str(cv.node_data(self.node).get("label") or "Group")
        text = QFontMetricsF(font).elidedText(label, Qt.TextElideMode.ElideRight, self._w - 2 * PAD)
        painter.drawText(QRectF(PAD, 4, self._w - 2 * PAD, cv.GROUP_HEADER - 6),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)


ITEM_CLASSES: dict[str, type[NodeItem]] = {"note": NoteItem, "image": ImageItem, "document": DocumentItem,
                                           "group": GroupItem}


def _clip(rect: QRectF, inside: QPointF, outside: QPointF) -> QPointF:
    """Where the line from ``inside`` (the rectangle's middle) to ``outside`` leaves ``rect``."""
    dx, dy = outside.x() - inside.x(), outside.y() - inside.y()
    if dx == 0 and dy == 0:
        return inside
    scale = min(rect.width() / 2 / abs(dx) if dx else math.inf, rect.height() / 2 / abs(dy) if dy else math.inf)
    scale = min(scale, 1.0)
    return QPointF(inside.x() + dx * scale, inside.y() + dy * scale)


class EdgeItem(QGraphicsItem):
    """An arrow from one node to another with its label in a pill at the middle."""

    def __init__(self, edge: dict[str, Any]) -> None:
        super().__init__()
        self.edge_id: str = edge["id"]
        self.edge = edge
        self._line: tuple[QPointF, QPointF] = (QPointF(), QPointF())
        self._label_rect = QRectF()
        self._path = QPainterPath()
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setZValue(-5)

    @property
    def label(self) -> str:
        label = self.edge.get("label")
        return label if isinstance(label, str) else ""

    def show_edge(self, edge: dict[str, Any]) -> None:
        self.edge = edge
        self.update_path(None, None)

    def update_path(self, source: QRectF | None, target: QRectF | None) -> None:
        """Redraw between the two nodes' rectangles (``None``: keep the last ones)."""
        self.prepareGeometryChange()
        if source is not None and target is not None:
            start = _clip(source, source.center(), target.center())
            end = _clip(target, target.center(), source.center())
            self._line = (start, end)
        start, end = self._line
        self._path = QPainterPath(start)
        self._path.lineTo(end)
        if self.label:
            metrics = QFontMetricsF(QFont())
            width = min(metrics.horizontalAdvance(self.label) + 16, 240)
            middle = (start + end) / 2
            self._label_rect = QRectF(middle.x() - width / 2, middle.y() - 11, width, 22)
        else:
            self._label_rect = QRectF()
        self.update()

    def label_rect(self) -> QRectF:
        return self._label_rect

    def boundingRect(self) -> QRectF:
        return self._path.boundingRect().adjusted(-12, -12, 12, 12).united(self._label_rect.adjusted(-2, -2, 2, 2))

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(12)
        shape = stroker.createStroke(self._path)
        if not self._label_rect.isEmpty():
            shape.addRect(self._label_rect)
        return shape

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: Any = None) -> None:
        colors = theme.colors()
        color = QColor(colors.accent if self.isSelected() else colors.muted)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(color, 2 if self.isSelected() else 1.5))
        start, end = self._line
        painter.drawLine(start, end)
        angle = math.atan2(end.y() - start.y(), end.x() - start.x())
        head = QPolygonF([end, end - QPointF(math.cos(angle - 0.45) * 11, math.sin(angle - 0.45) * 11),
                          end - QPointF(math.cos(angle + 0.45) * 11, math.sin(angle + 0.45) * 11)])
        painter.setBrush(QBrush(color))
        painter.drawPolygon(head)
        if self.label:
            painter.setPen(QPen(color, 1))
            painter.setBrush(QColor(colors.surface))
            rect = self._label_rect
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.setPen(QColor(colors.text))
            text = QFontMetricsF(painter.font()).elidedText(self.label, Qt.TextElideMode.ElideRight, rect.width() - 12)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


class DragLinkItem(QGraphicsItem):
    """The line drawn while a link is dragged from a node's knob."""

    def __init__(self, start: QPointF) -> None:
        super().__init__()
        self.start = start
        self.end = start
        self.ok = False
        self.setZValue(100)

    def move_to(self, end: QPointF, ok: bool) -> None:
        self.prepareGeometryChange()
        self.end, self.ok = end, ok

    def boundingRect(self) -> QRectF:
        return QRectF(self.start, self.end).normalized().adjusted(-4, -4, 4, 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: Any = None) -> None:
        colors = theme.colors()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(colors.accent if self.ok else colors.muted), 2, Qt.PenStyle.DashLine))
        painter.drawLine(self.start, self.end)


def pixmap_from(data: bytes | None) -> QPixmap | None:
    if not data:
        return None
    pixmap = QPixmap()
    return pixmap if pixmap.loadFromData(data) else None
