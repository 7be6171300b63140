"""The map drawn (one item paints the visible cells, edges and markers of the map) and its view:
zoom and pan from :class:`SurfaceView`, and the pointer turned into map positions (in cell
units) for the editor's tools. The view never changes the map."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem, QWidget

from storyloom.gui import theme
from storyloom.gui.editors.surface_view import SurfaceView
from storyloom.project import maps as mp

CELL = 32
"""A cell's size in scene units."""


class MapItem(QGraphicsItem):
    """The whole map: cells in their type's colour, the grid, edges along the cell sides,
    markers as pins with their names, and the selection and the pointer's cell on top."""

    def __init__(self) -> None:
        super().__init__()
        self.content: dict[str, Any] = {"width": 1, "height": 1}
        self.colors: dict[str, dict[str, QColor]] = {"cells": {}, "edges": {}}
        self.selection: tuple[str, Any] | None = None  # ("cell", (x, y)) | ("edge", (x, y, side)) | ("marker", name)
        self.hover: tuple[str, Any] | None = None
        self.show_grid = True
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def show_map(self, content: dict[str, Any]) -> None:
        width, height = mp.size_of(content)
        if (width, height) != mp.size_of(self.content):
            self.prepareGeometryChange()
        self.content = content
        self.colors = {kind: {e["type"]: QColor(e["color"]) for e in mp.palette(content, kind)}
                       for kind in ("cells", "edges")}
        self.update()

    def boundingRect(self) -> QRectF:
        width, height = mp.size_of(self.content)
        return QRectF(-CELL, -CELL, (width + 2) * CELL, (height + 2) * CELL)

    def map_rect(self) -> QRectF:
        width, height = mp.size_of(self.content)
        return QRectF(0, 0, width * CELL, height * CELL)

    def set_marks(self, selection: tuple[str, Any] | None = None, hover: tuple[str, Any] | None = None) -> None:
        if (selection, hover) != (self.selection, self.hover):
            self.selection, self.hover = selection, hover
            self.update()

    def _color(self, kind: str, type_name: str | None) -> QColor:
        if not type_name:
            return QColor(theme.colors().muted)
        return self.colors[kind].get(type_name) or QColor(mp.type_color(type_name))

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: Any = None) -> None:
        colors = theme.colors()
        width, height = mp.size_of(self.content)
        exposed = option.exposedRect.intersected(self.map_rect())  # type: ignore[attr-defined]
        x0, y0 = max(0, math.floor(exposed.left() / CELL)), max(0, math.floor(exposed.top() / CELL))
        x1, y1 = min(width, math.ceil(exposed.right() / CELL)), min(height, math.ceil(exposed.bottom() / CELL))
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(self.map_rect(), QColor(colors.surface))
        default = (self.content.get("properties") or {}).get("default") \
            if isinstance(self.content.get("properties"), dict) else None
        if isinstance(default, str) and default:
            empty = self._color("cells", default)
            empty.setAlpha(70 if colors.dark else 60)
            painter.fillRect(self.map_rect(), empty)
        cells = mp.cells_of(self.content)
        visible = (x1 - x0) * (y1 - y0)
        if len(cells) <= visible:
            entries = ((mp.parse_cell_key(k), v) for k, v in cells.items())
        else:
            entries = (((x, y), cells.get(mp.cell_key(x, y))) for y in range(y0, y1) for x in range(x0, x1))
        for place, value in entries:
            if place is None or value is None:
                continue
            x, y = place
            if x0 <= x < x1 and y0 <= y < y1:
                painter.fillRect(QRectF(x * CELL, y * CELL, CELL, CELL), self._color("cells", mp.type_of(value)))
        if self.show_grid and lod * CELL >= 8:
            grid = QColor(colors.text)
            grid.setAlpha(28)
            painter.setPen(QPen(grid, 0))
            for x in range(x0, x1 + 1):
                painter.drawLine(QPointF(x * CELL, y0 * CELL), QPointF(x * CELL, y1 * CELL))
            for y in range(y0, y1 + 1):
                painter.drawLine(QPointF(x0 * CELL, y * CELL), QPointF(x1 * CELL, y * CELL))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(colors.border), 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.map_rect())
        self._paint_edges(painter, x0 - 1, y0 - 1, x1 + 1, y1 + 1)
        self._paint_marks(painter, colors)
        self._paint_markers(painter, colors, lod)

    def _paint_edges(self, painter: QPainter, x0: int, y0: int, x1: int, y1: int) -> None:
        for key, value in mp.edges_of(self.content).items():
            parsed = mp.parse_edge_key(key)
            if parsed is None or not (x0 <= parsed[0] <= x1 and y0 <= parsed[1] <= y1):
                continue
            (ax, ay), (bx, by) = mp.edge_ends(*parsed)
            color = self._color("edges", mp.type_of(value))
            start, end = QPointF(ax * CELL, ay * CELL), QPointF(bx * CELL, by * CELL)
            pen = QPen(color, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.drawLine(start, end)
            if isinstance(value, dict) and value.get("locked"):
                painter.setPen(QPen(QColor("#ffffff"), 2, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
                middle = (start + end) / 2
                painter.drawPoint(middle)

    def _paint_marks(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        for mark, strong in ((self.hover, False), (self.selection, True)):
            if mark is None:
                continue
            kind, where = mark
            accent = QColor(colors.accent)
            if not strong:
                accent.setAlpha(150)
            if kind == "cell":
                x, y = where
                painter.setPen(QPen(accent, 2.5 if strong else 1.5))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(x * CELL, y * CELL, CELL, CELL).adjusted(1, 1, -1, -1))
            elif kind == "edge":
                (ax, ay), (bx, by) = mp.edge_ends(*where)
                halo = QColor(accent)
                halo.setAlpha(150 if strong else 70)
                painter.setPen(QPen(halo, 14, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
                painter.drawLine(QPointF(ax * CELL, ay * CELL), QPointF(bx * CELL, by * CELL))
            elif kind == "marker":
                marker = mp.markers_of(self.content).get(where)
                if isinstance(marker, dict) and isinstance(marker.get("x"), int) and isinstance(marker.get("y"), int):
                    painter.setPen(QPen(accent, 2.5))
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawEllipse(QPointF((marker["x"] + 0.5) * CELL, (marker["y"] + 0.5) * CELL),
                                        CELL * 0.42, CELL * 0.42)

    def _paint_markers(self, painter: QPainter, colors: theme.ThemeColors, lod: float) -> None:
        font = QFont()
        font.setPointSizeF(8.5)
        font.setBold(True)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        for name, marker in mp.markers_of(self.content).items():
            if not (isinstance(marker, dict) and isinstance(marker.get("x"), int) and isinstance(marker.get("y"), int)):
                continue
            center = QPointF((marker["x"] + 0.5) * CELL, (marker["y"] + 0.5) * CELL)
            painter.setPen(QPen(QColor("#ffffff"), 2))
            painter.setBrush(QColor("#d6336c"))
            painter.drawEllipse(center, CELL * 0.22, CELL * 0.22)
            if lod * CELL < 14:
                continue
            width = metrics.horizontalAdvance(name) + 10
            label = QRectF(center.x() - width / 2, center.y() + CELL * 0.5 + 4, width, metrics.height() + 4)
            painter.setPen(Qt.PenStyle.NoPen)
            background = QColor(colors.surface)
            background.setAlpha(225)
            painter.setBrush(background)
            painter.drawRoundedRect(label, 4, 4)
            painter.setPen(QColor(colors.text))
            painter.drawText(label, Qt.AlignmentFlag.AlignCenter, name)


class MapView(SurfaceView):
    """Sends the pointer as map positions in cell units: ``pressed(x, y, button)``,
    ``dragged(x, y)``, ``released(x, y)``, ``hovered(x, y)``."""

    pressed = Signal(float, float, int)
    dragged = Signal(float, float)
    released = Signal(float, float)
    hovered = Signal(float, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        self.map_scene = QGraphicsScene()
        super().__init__(self.map_scene, 0.05, 6.0, parent)
        self.setObjectName("mapView")
        self.item = MapItem()
        self.map_scene.addItem(self.item)
        self.setMouseTracking(True)
        self.cursor_shape = Qt.CursorShape.CrossCursor
        self.viewport().setCursor(self.cursor_shape)
        self._pressing = False

    def tool_cursor(self) -> Qt.CursorShape:
        return self.cursor_shape

    def set_cursor_shape(self, shape: Qt.CursorShape) -> None:
        self.cursor_shape = shape
        self.viewport().setCursor(shape)

    def cell_point(self, event: QMouseEvent) -> tuple[float, float]:
        point = self.mapToScene(event.position().toPoint())
        return point.x() / CELL, point.y() / CELL

    def scene_point(self, x: float, y: float) -> QPointF:
        """The scene point of map position (``x``, ``y``) in cell units."""
        return QPointF(x * CELL, y * CELL)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.start_pan(event):
            return
        if event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            self._pressing = True
            self.pressed.emit(*self.cell_point(event), event.button().value)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.panning(event):
            return
        if self._pressing:
            self.dragged.emit(*self.cell_point(event))
        else:
            self.hovered.emit(*self.cell_point(event))
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.end_pan(event):
            return
        if self._pressing:
            self._pressing = False
            self.released.emit(*self.cell_point(event))
        event.accept()

    def leaveEvent(self, event: Any) -> None:
        self.item.set_marks(self.item.selection, None)
        super().leaveEvent(event)
