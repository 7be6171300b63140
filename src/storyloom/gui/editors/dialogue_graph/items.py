"""The dialogue graph's scene items: a node drawn in the box :func:`node_geometry` gives it,
a link as a curve from an output to an input (drawn by the scene, not an item), and the line
that follows a link being dragged.

Nodes keep a picture per zoom band (:data:`BANDS`), each drawn once at its band's resolution
(all of them within :data:`PICTURE_BUDGET`): a pan or a zoom step only scales pixels (a device
cache drew every visible node again at every zoom step: 84 ms a frame on a scattered 500-node
graph).
Zoomed out (under :data:`LOD_SIMPLE`) a node is a coloured block with its title; then its
details at 0.7x, 1x and, zoomed in, 2x. Crossing a band changes nothing in the scene (flags
on 500 items made Qt process 1,000 changed items in that frame): the view says which band
it paints (``GraphScene.set_band``) and the next paint takes that band's picture."""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPixmap,
    QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from storyloom.gui import theme
from storyloom.project.dialogue_graph import GraphProblem, kind_of, label_of, ports
from storyloom.project.dialogue_layout import (
    HEADER,
    LINE,
    PORT_ROW,
    SCRIPT_LINE,
    NodeGeometry,
    has_port_script,
    node_geometry,
)

#: The colour of each node type's header band (readable on light and dark).
KIND_COLORS: dict[str, str] = {
    "start": "#2f9e62", "script": "#4a78d0", "choice": "#8a5cd0", "condition": "#c98a1a", "switch": "#d2692a",
    "event": "#1f9a9a", "jump": "#66758f", "note": "#c9a227", "end": "#c94444", "return": "#b0487a",
}
PORT_RADIUS = 5.0
PORT_HIT = 11.0  # how near a port the pointer must be to grab it
SNAP = 8
LOD_SIMPLE = 0.45  # below this zoom a node is a coloured block
#: The zoom bands: (name, from which zoom, the picture's resolution in pixels per scene unit,
#: drawn as a block). Each picture is sharp at its resolution and scaled down (never far up) in
#: its band: text scaled down by more than about a third reads poorly.
BANDS = (("block", 0.0, LOD_SIMPLE, True), ("far", LOD_SIMPLE, 0.7, False), ("detail", 0.85, 1.0, False),
         ("close", 1.15, 2.0, False))


#: Scene units of a straight piece of a link drawn quickly (:meth:`EdgeItem.polyline`).
CHORD = 120.0
PICTURE_BUDGET = 160 * 2**20  # bytes: every node of a 500-node graph in two bands, and more
BAND_SCALES = {name: (scale, block) for name, _start, scale, block in BANDS}


def band_of(zoom: float) -> str:
    """The zoom band a node is shown in at ``zoom``."""
    return next(name for name, start, _scale, _block in reversed(BANDS) if zoom >= start)
BLOCK_TITLE_POINTS = 20.0


_POSITION_CHANGE = QGraphicsItem.GraphicsItemChange.ItemPositionChange
_POSITION_CHANGED = QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged
_SELECTED_CHANGED = QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged


def kind_color(node_type: str) -> QColor:
    return QColor(KIND_COLORS.get(node_type, KIND_COLORS["note"]))


class NodeItem(QGraphicsItem):
    """One node. The scene keeps ``node`` (the stored dict) current; the view asks
    :meth:`port_at` where a drag starts or ends.

    The item is what the pointer meets (selection, moving, ports, tooltips); Qt never paints it
    (``ItemHasNoContents``): the scene draws every node's picture in the view's cached
    background (:meth:`draw`), so a pan scrolls the nodes with the links and the dots, and
    a zoom step draws them in one loop instead of 500 items' paints. A change of the node
    (:meth:`update`) or a move redraws that part of the background."""

    def __init__(self, node: dict[str, Any], preview: list[str] | None = None) -> None:
        super().__init__()
        self.node = node
        self.preview: list[str] | None = preview
        self.problems: list[GraphProblem] = []
        self.highlight: tuple[str, bool] | None = None  # (handle id, valid) while a link is dragged
        self.jump_label = ""
        self.geometry: NodeGeometry = node_geometry(node, None if preview is None else len(preview))
        self.bounds = QRectF()
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
                      | QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        self.drawn = QRectF()  # where the scene last drew (or is to draw) it, in scene coordinates
        self.setAcceptHoverEvents(False)
        self.moved_callback: Any = None
        self.band = "detail"
        self.pixel_ratio = 1.0  # the screen's device pixels per pixel
        self._pictures: dict[str, QPixmap] = {}  # by band; _PICTURES bounds their memory
        self._measure()
        self._set_position()

    @property
    def blocks(self) -> bool:
        """Whether the node shows as a block (zoomed out)."""
        return self.band == "block"

    def set_band(self, band: str, pixel_ratio: float = 1.0) -> None:
        """Paint the picture of zoom band ``band`` from now on (see :func:`band_of`)."""
        self.band = band
        if pixel_ratio != self.pixel_ratio:
            self.pixel_ratio = pixel_ratio
            self._pictures.clear()

    def update(self, *args: Any) -> None:  # type: ignore[override]
        """Draw the pictures again (the node changed), and the node where the scene shows it."""
        self._pictures.clear()
        changed = getattr(self.scene(), "node_changed", None)
        if changed is not None:
            changed(self)

    @property
    def node_id(self) -> str:
        return str(self.node["id"])

    def _set_position(self) -> None:
        position = self.node.get("position") if isinstance(self.node.get("position"), dict) else {}
        x, y = position.get("x", 0), position.get("y", 0)
        point = QPointF(float(x) if isinstance(x, int | float) else 0.0,
                        float(y) if isinstance(y, int | float) else 0.0)
        if self.pos() != point:
            self.setPos(point)

    def set_node(self, node: dict[str, Any], preview: list[str] | None = None) -> None:
        """Show a new version of the node (after an edit, undo or redo). A move (Auto layout
        moves every node) only moves it: its pictures stay."""
        geometry = node_geometry(node, None if preview is None else len(preview))
        same_look = preview == self.preview and _look(node) == _look(self.node)
        if geometry != self.geometry:
            self.prepareGeometryChange()
            self.geometry = geometry
            self._measure()
            same_look = False
        self.node = node
        self.preview = preview
        self._set_position()
        if not same_look:
            self.update()

    def set_problems(self, problems: list[GraphProblem]) -> None:
        if problems != self.problems:
            self.problems = problems
            self.setToolTip("\n".join(p.message for p in problems))
            self.update()

    def set_highlight(self, highlight: tuple[str, bool] | None) -> None:
        if highlight != self.highlight:
            self.highlight = highlight
            self.update()

    # ------------------------------------------------------------------ geometry
    def boundingRect(self) -> QRectF:
        return self.bounds  # asked for every item at every frame: kept, not built

    def _measure(self) -> None:
        g = self.geometry
        self.bounds = QRectF(-PORT_RADIUS - 3, -13, g.width + PORT_RADIUS + 18, g.height + 17)  # ports, badge
        self._corner = self.bounds.topLeft()

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(QRectF(-PORT_HIT, 0, self.geometry.width + 2 * PORT_HIT, self.geometry.height))
        return path

    def port_point(self, handle_id: str | None) -> QPointF:
        """The scene point of a port (the node's middle of the edge when the port is gone)."""
        x, y = self.geometry.ports.get(str(handle_id), (0, self.geometry.height // 2))
        return self.mapToScene(QPointF(x, y))

    def port_at(self, scene_point: QPointF, kind: str | None = None) -> dict[str, Any] | None:
        """The handle whose port is under ``scene_point`` (``kind`` ``source``/``target`` to
        look only at outputs or inputs)."""
        local = self.mapFromScene(scene_point)
        best, best_distance = None, PORT_HIT
        for handle in ports(self.node, kind) if kind else [*ports(self.node, "target"), *ports(self.node, "source")]:
            x, y = self.geometry.ports.get(handle["id"], (-1000, -1000))
            distance = max(abs(local.x() - x), abs(local.y() - y))
            if distance <= best_distance:
                best, best_distance = handle, distance
        return best

    def output_row_at(self, scene_point: QPointF) -> dict[str, Any] | None:
        """The output whose row (label and port script) is under ``scene_point``."""
        local = self.mapFromScene(scene_point)
        if not 0 <= local.x() <= self.geometry.width + PORT_HIT:
            return None
        for handle in ports(self.node, "source"):
            _x, y = self.geometry.ports.get(handle["id"], (0, -1000))
            extra = SCRIPT_LINE if has_port_script(handle) else 0
            if y - PORT_ROW / 2 <= local.y() <= y + PORT_ROW / 2 + extra:
                return handle
        return None

    def label_rect(self) -> QRectF:
        """The title's box, in scene coordinates (where the label is edited in place)."""
        return self.mapRectToScene(QRectF(8, 4, self.geometry.width - 16, HEADER - 8))

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        # Called for every change of every node (a zoom across LOD_SIMPLE changes 500 nodes'
        # flags): the constants are looked up once, the common case returns at once.
        if change == _POSITION_CHANGE:
            if isinstance(value, QPointF) and getattr(self.scene(), "moving", False):
                return QPointF(round(value.x() / SNAP) * SNAP, round(value.y() / SNAP) * SNAP)  # a drag snaps
        elif change == _POSITION_CHANGED:
            if self.moved_callback is not None:
                self.moved_callback(self)
        elif change == _SELECTED_CHANGED:
            self.update()  # the pictures show the selection
        return super().itemChange(change, value)

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        """Nothing: the scene draws the node (:meth:`draw`; Qt does not call this)."""

    def draw(self, painter: QPainter) -> None:
        """The band's picture where the node stands, ``painter`` in scene coordinates (drawn
        first when it is not kept): as little Python as a frame of 500 nodes allows."""
        picture = self._pictures.get(self.band)
        if picture is None:
            scale, block = BAND_SCALES[self.band]
            picture = self.picture(scale * self.pixel_ratio, block)
            picture.setDevicePixelRatio(scale * self.pixel_ratio)  # drawn at the node's size
            self._pictures[self.band] = picture
            _PICTURES.keep(self, self.band, picture)
        painter.drawPixmap(self.pos() + self._corner, picture)

    def picture(self, scale: float, block: bool = False) -> QPixmap:
        """The node drawn at ``scale`` pixels per scene unit, as a block or in detail."""
        b = self.bounds
        picture = QPixmap(max(1, math.ceil(b.width() * scale)), max(1, math.ceil(b.height() * scale)))
        picture.fill(Qt.GlobalColor.transparent)
        painter = QPainter(picture)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.scale(scale, scale)
        painter.translate(-b.x(), -b.y())
        if block:
            self.paint_block(painter)
        else:
            self.paint_detail(painter)
        painter.end()
        return picture

    def paint_detail(self, painter: QPainter) -> None:
        """The node in detail: header, body lines, ports and their labels, problems."""
        colors = theme.colors()
        kind = kind_of(self.node)
        g = self.geometry
        accent = kind_color(kind.type)
        selected = self.isSelected()
        box = QRectF(0, 0, g.width, g.height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        surface = QColor(colors.surface)
        if kind.type == "note":
            surface = QColor(accent)
            surface.setAlpha(60 if colors.dark else 45)
            surface = _over(surface, QColor(colors.surface))
        border = QColor(colors.accent) if selected else self._problem_color(colors) or QColor(colors.border)
        painter.setPen(QPen(border, 2.0 if selected or self.problems else 1.0))
        painter.setBrush(surface)
        painter.drawRoundedRect(box, 8, 8)
        # The header: a band in the type's colour, the label, the type's name.
        header = QPainterPath()
        header.setFillRule(Qt.FillRule.WindingFill)
        header.addRoundedRect(QRectF(1, 1, g.width - 2, HEADER - 1), 7, 7)
        header.addRect(QRectF(1, HEADER / 2, g.width - 2, HEADER / 2))
        tint = QColor(accent)
        tint.setAlpha(255 if kind.type != "note" else 120)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint)
        painter.drawPath(header)
        base_font = QFont(painter.font())
        base_font.setPointSizeF(9.5)
        title_font = QFont(base_font)
        title_font.setBold(True)
        small = QFont(base_font)
        small.setPointSizeF(8)
        kind_width = 0
        if label_of(self.node).casefold() != kind.title.casefold():  # "Start" needs no "Start" beside it
            painter.setFont(small)
            kind_width = QFontMetrics(small).horizontalAdvance(kind.title) + 12
            painter.setPen(QColor(255, 255, 255, 200))
            painter.drawText(QRectF(g.width - kind_width - 8, 0, kind_width, HEADER),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, kind.title)
        painter.setFont(title_font)
        painter.setPen(QColor("#ffffff"))
        title_box = QRectF(10, 0, g.width - kind_width - 22, HEADER)
        painter.drawText(title_box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         QFontMetrics(title_font).elidedText(label_of(self.node), Qt.TextElideMode.ElideRight,
                                                             int(title_box.width())))
        self._paint_body(painter, kind.type, base_font, colors)
        self._paint_ports(painter, base_font, colors)
        self._paint_problem_badge(painter, colors)

    def _paint_body(self, painter: QPainter, node_type: str, font: QFont, colors: theme.ThemeColors) -> None:
        g = self.geometry
        lines = self.body_text()
        if not lines:
            return
        muted = node_type == "script" and not (self.preview or [])
        body_font = QFont(font)
        if node_type in ("condition", "switch", "event"):
            body_font = QFont("monospace")
            body_font.setStyleHint(QFont.StyleHint.Monospace)
            body_font.setPointSizeF(9)
        if muted:
            body_font.setItalic(True)
        painter.setFont(body_font)
        metrics = QFontMetrics(body_font)
        painter.setPen(QColor(colors.muted if muted else colors.text))
        for index, text in enumerate(lines[: g.body_lines]):
            rect = QRectF(10, g.body_top + index * LINE, g.width - 20, LINE)
            painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(rect.width())))

    def body_text(self) -> list[str]:
        """The lines the body shows (also what the tests read)."""
        kind = kind_of(self.node)
        data = self.node.get("data") if isinstance(self.node.get("data"), dict) else {}
        if kind.type == "script":
            if not data.get("scriptId"):
                return ["No script linked"]
            if self.preview is None:
                return ["Script not found"]
            return self.preview or ["(empty script)"]
        if kind.type in ("condition", "switch", "event"):
            value = data.get(kind.field or "")
            prefix = {"condition": "if ", "switch": "switch ", "event": "⚑ "}[kind.type]
            return [prefix + value if isinstance(value, str) and value.strip() else f"{kind.field_label}: (empty)"]
        if kind.type == "jump":
            return [f"→ {self.jump_label}" if self.jump_label else "→ (pick a target)"]
        if kind.type == "note":
            notes = data.get("notes")
            return notes.splitlines() if isinstance(notes, str) and notes.strip() else ["(empty note)"]
        return []

    def _paint_ports(self, painter: QPainter, font: QFont, colors: theme.ThemeColors) -> None:
        g = self.geometry
        metrics = QFontMetrics(font)
        code = QFont("monospace")
        code.setStyleHint(QFont.StyleHint.Monospace)
        code.setPointSizeF(8)
        code_metrics = QFontMetrics(code)
        for handle in [*ports(self.node, "target"), *ports(self.node, "source")]:
            point = g.ports.get(handle["id"])
            if point is None:
                continue
            x, y = point
            output = handle.get("type") == "source"
            label = str(handle.get("label") or "")
            painter.setFont(font)
            painter.setPen(QColor(colors.text))
            if label and label not in ("In", "Out"):
                width = g.width / 2 - 14 if not output else g.width - 28
                rect = QRectF(x + 12, y - PORT_ROW / 2, width, PORT_ROW) if not output \
                    else QRectF(x - 12 - width, y - PORT_ROW / 2, width, PORT_ROW)
                align = Qt.AlignmentFlag.AlignLeft if not output else Qt.AlignmentFlag.AlignRight
                painter.drawText(rect, align | Qt.AlignmentFlag.AlignVCenter,
                                 metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(rect.width())))
            if output and has_port_script(handle):
                painter.setFont(code)
                painter.setPen(QColor(colors.muted))
                rect = QRectF(12, y + PORT_ROW / 2 - 5, g.width - 24, SCRIPT_LINE)
                painter.drawText(rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                                 code_metrics.elidedText(str(handle["portScript"]).replace("\n", " ⏎ "),
                                                         Qt.TextElideMode.ElideLeft, int(rect.width())))
            fill = kind_color(kind_of(self.node).type)
            pen = QPen(QColor(colors.surface), 2)
            radius = PORT_RADIUS
            if self.highlight and self.highlight[0] == handle["id"]:
                fill = QColor(colors.success if self.highlight[1] else colors.danger)
                radius += 2
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawEllipse(QPointF(x, y), radius, radius)

    def paint_block(self, painter: QPainter) -> None:
        """The zoomed-out picture: a block in the type's colour with the title."""
        colors = theme.colors()
        g = self.geometry
        box = QRectF(0, 0, g.width, g.height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(QColor(colors.accent), 4) if self.isSelected() else Qt.PenStyle.NoPen)
        painter.setBrush(kind_color(kind_of(self.node).type))
        painter.drawRoundedRect(box, 8, 8)
        font = QFont(painter.font())
        font.setPointSizeF(BLOCK_TITLE_POINTS)  # 9 pt on screen at 45 %, 6 pt at 30 %
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(box.adjusted(8, 6, -8, -6), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
                         | Qt.TextFlag.TextWordWrap, label_of(self.node))
        self._paint_problem_badge(painter, colors)

    def _problem_color(self, colors: theme.ThemeColors) -> QColor | None:
        if not self.problems:
            return None
        return QColor(colors.danger if any(p.severity == "error" for p in self.problems) else colors.warning)

    def _paint_problem_badge(self, painter: QPainter, colors: theme.ThemeColors) -> None:
        color = self._problem_color(colors)
        if color is None:
            return
        center = QPointF(self.geometry.width + 2, -2)
        painter.setPen(QPen(QColor(colors.surface), 2))
        painter.setBrush(color)
        painter.drawEllipse(center, 9, 9)
        font = QFont(painter.font())
        font.setPointSizeF(9)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(QRectF(center.x() - 9, center.y() - 9, 18, 18), Qt.AlignmentFlag.AlignCenter,
                         str(len(self.problems)) if len(self.problems) > 1 else "!")


class _PictureBudget:
    """The memory the nodes' pictures may take (all dialogue graphs together): past it, the
    oldest pictures go (their nodes draw them again when they are next painted)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.kept: OrderedDict[tuple[int, str], tuple[weakref.ref[NodeItem], int]] = OrderedDict()

    def keep(self, node: NodeItem, band: str, picture: QPixmap) -> None:
        size = picture.width() * picture.height() * 4
        key = (id(node), band)
        old = self.kept.pop(key, None)
        if old is not None:
            self.used -= old[1]
        self.kept[key] = (weakref.ref(node), size)
        self.used += size
        while self.used > self.limit and len(self.kept) > 1:
            (_node_id, old_band), (ref, old_size) = self.kept.popitem(last=False)
            self.used -= old_size
            owner = ref()
            if owner is not None:
                owner._pictures.pop(old_band, None)


_PICTURES = _PictureBudget(PICTURE_BUDGET)


def _look(node: dict[str, Any]) -> dict[str, Any]:
    """What a node's pictures show: all of it but where it stands."""
    return {key: value for key, value in node.items() if key != "position"}


def _over(top: QColor, bottom: QColor) -> QColor:
    alpha = top.alphaF()
    return QColor.fromRgbF(top.redF() * alpha + bottom.redF() * (1 - alpha),
                           top.greenF() * alpha + bottom.greenF() * (1 - alpha),
                           top.blueF() * alpha + bottom.blueF() * (1 - alpha))


def link_path(start: QPointF, end: QPointF) -> QPainterPath:
    """A link's curve: out of the output to the right, into the input from the left (a loop
    around when the input is behind the output), with an arrow head."""
    path = QPainterPath(start)
    dx = end.x() - start.x()
    reach = max(48.0, abs(dx) / 2) if dx >= 0 else max(120.0, min(320.0, abs(dx) / 2))
    path.cubicTo(QPointF(start.x() + reach, start.y()), QPointF(end.x() - reach, end.y()), end)
    return path


def link_pen(chosen: bool = False) -> QPen:
    """How a link is stroked: cosmetic (pixels, whatever the zoom), one pixel, three and in the
    accent when chosen. A one-pixel cosmetic pen takes the raster engine's fast path, which
    clips a curve to what is exposed; a wider one is stroked whole (links crossing a scattered
    graph made every frame of a pan stroke them all: 84 ms)."""
    colors = theme.colors()
    pen = QPen(QColor(colors.accent if chosen else colors.muted), 3.0 if chosen else 1.0)
    pen.setCosmetic(True)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return pen


class EdgeItem:
    """A link between two node items: its curve and arrow head (:meth:`path`), its pen and the
    wider stroke a click lands in (:meth:`shape`). Not a scene item: the scene draws all the
    links in the view's cached background, in one stroke (:meth:`GraphScene.draw_links`), so a
    pan scrolls them with the dots instead of drawing 600 items at every frame. Links are
    chosen by the view (:meth:`set_chosen`), not by Qt's item selection."""

    def __init__(self, edge: dict[str, Any], source: NodeItem, target: NodeItem) -> None:
        self.edge = edge
        self.source_item = source
        self.target_item = target
        self.chosen = False
        self._pen = link_pen()
        self._path = QPainterPath()
        self._curve = QPainterPath()  # the curve without its arrow head
        self._shape: QPainterPath | None = None
        self.bounds = QRectF()  # the path's, in scene coordinates
        self.refresh()

    @property
    def edge_id(self) -> str:
        return str(self.edge["id"])

    def pen(self) -> QPen:
        return self._pen

    def path(self) -> QPainterPath:
        return self._path

    def set_chosen(self, chosen: bool) -> None:
        self.chosen = chosen
        self._pen = link_pen(chosen)

    def refresh(self) -> None:
        """Follow the two nodes' ports (after a move or an edit)."""
        start = self.source_item.port_point(self.edge.get("sourceHandle"))
        end = self.target_item.port_point(self.edge.get("targetHandle"))
        path = link_path(start, end)
        self._curve = QPainterPath(path)
        path.moveTo(end + QPointF(-9, -5))
        path.lineTo(end + QPointF(-1, 0))
        path.lineTo(end + QPointF(-9, 5))
        self._path = path
        self._shape = None
        self.bounds = path.boundingRect()

    def polyline(self) -> QPainterPath:
        """The link as straight pieces of about :data:`CHORD` scene units (at most 16) and its
        arrow head: what a wheel gesture draws zoomed out (a piece is 54 pixels at most there,
        and the scattered graph's 600 links cost a fifth less than as curves). The pieces'
        ends are on the curve, evenly in its parameter (``pointAtPercent`` measured the
        curve's length at every point: half a second for 600 links)."""
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = ((e.x, e.y) for e in map(self._curve.elementAt, range(4)))
        reach = (math.dist((x0, y0), (x1, y1)) + math.dist((x1, y1), (x2, y2)) + math.dist((x2, y2), (x3, y3))
                 + math.dist((x0, y0), (x3, y3))) / 2  # about the curve's length
        pieces = max(3, min(16, round(reach / CHORD)))
        points = []
        for n in range(pieces + 1):
            t = n / pieces
            u = 1 - t
            a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
            points.append(QPointF(a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
        path = QPainterPath()
        path.addPolygon(QPolygonF(points))
        end = QPointF(x3, y3)
        path.addPolygon(QPolygonF([end + QPointF(-9, -5), end + QPointF(-1, 0), end + QPointF(-9, 5)]))
        return path

    def shape(self) -> QPainterPath:
        """Where a click picks the link: 6 units either side of the curve."""
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(12)
            self._shape = stroker.createStroke(self._path)
        return self._shape


class DragLinkItem(QGraphicsPathItem):
    """The curve that follows the pointer while a link is dragged: accent when the port under
    the pointer would take it, red when it would refuse it."""

    def __init__(self, anchor: QPointF, from_output: bool) -> None:
        super().__init__()
        self.anchor = anchor
        self.from_output = from_output
        self.setZValue(10)
        self.set_end(anchor, None)

    def set_end(self, point: QPointF, valid: bool | None) -> None:
        colors = theme.colors()
        color = QColor(colors.accent if valid is None else colors.success if valid else colors.danger)
        pen = QPen(color, 2.2, Qt.PenStyle.DashLine if valid is None else Qt.PenStyle.SolidLine)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.setPath(link_path(self.anchor, point) if self.from_output else link_path(point, self.anchor))
