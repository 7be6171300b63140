"""The graph view: zoom and pan from :class:`~storyloom.gui.editors.surface_view.SurfaceView`, rubber-band
selection, moving nodes, and dragging links from port to port with the graph's own rule
deciding, as the pointer moves, whether the port under it takes the link. A minimap in the
corner shows the whole graph and where the view is; click or drag in it to go there.

The view sends intents (signals) and the editor turns them into commands: it never changes
the graph itself."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QGraphicsView, QLineEdit, QWidget

from storyloom.gui import theme
from storyloom.gui.editors.dialogue_graph.items import (
    LOD_SIMPLE,
    DragLinkItem,
    EdgeItem,
    NodeItem,
    band_of,
    kind_color,
)
from storyloom.gui.editors.dialogue_graph.scene import GraphScene
from storyloom.gui.editors.dot_grid import dot_pen, draw_dot_grid
from storyloom.gui.editors.surface_view import SurfaceView
from storyloom.project.dialogue_graph import kind_of
from storyloom.project.dialogue_layout import fit_view, free_areas

NODE_MIME = "application/x-storyloom-dialogue-node-type"
MIN_ZOOM, MAX_ZOOM = 0.08, 3.0
#: Seconds between the wheel's zoom steps that make them one gesture: drawn quickly until it
#: ends, then once more as at rest.
ZOOM_GESTURE = 0.15


class GraphView(SurfaceView):
    link_requested = Signal(str, str, str, str)  # source, source handle, target, target handle
    link_to_nothing = Signal(str, str, bool, QPointF)  # node, handle, from an output, scene point
    nodes_moved = Signal(dict)
    menu_requested = Signal(QPointF, object, QPoint)  # scene point, item under it (or None), global point
    node_type_dropped = Signal(str, QPointF)
    edit_requested = Signal(str, str)  # node id, "label" or a handle id
    open_requested = Signal(str)

    def __init__(self, scene: GraphScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, MIN_ZOOM, MAX_ZOOM, parent)
        self.graph_scene = scene
        self.setObjectName("dialogueGraphView")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        # One rectangle around what changed: a zoom across LOD_SIMPLE changes every node, and
        # the minimal region of 500 scattered rectangles cost more than painting them.
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        # The background (the whole graph) covers every pixel: no fill of the viewport first.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAcceptDrops(True)
        self._link: tuple[str, str, bool] | None = None  # node, handle, from an output
        self._link_item: DragLinkItem | None = None
        self._link_target: tuple[NodeItem, str] | None = None
        self._press_positions: dict[str, QPointF] | None = None
        self.overlays: list[QWidget] = []  # panels floating over the graph (the palette)
        self.minimap = Minimap(self)
        self._last_zoom = 0.0
        self._gesture_end = QTimer(self)
        self._gesture_end.setSingleShot(True)
        self._gesture_end.setInterval(round(ZOOM_GESTURE * 1000))
        self._gesture_end.timeout.connect(self.settle)

    # ------------------------------------------------------------------ the dot grid
    def apply_theme(self) -> None:
        colors = theme.colors()
        self._paper = QColor(colors.window)
        self._dot_pen = dot_pen(colors.border)
        self.setBackgroundBrush(self._paper)
        self.resetCachedContent()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """The dot grid (:func:`~storyloom.gui.editors.dot_grid.draw_dot_grid`: scene units at
        whole pixels, so any exposed strip draws the same dots a fresh paint would); then the
        graph over it (:meth:`GraphScene.draw_links`,
        :meth:`GraphScene.draw_nodes`). The view caches this background: a pan scrolls it and
        draws only the strip uncovered."""
        rect = QRectF(rect)
        draw_dot_grid(painter, rect, self._paper, self._dot_pen)
        self.graph_scene.draw_links(painter)
        self.graph_scene.draw_nodes(painter, rect)

    # ------------------------------------------------------------------ zoom, and the minimap following it
    def set_zoom(self, level: float, under_mouse: bool = False) -> None:
        """Zoom to ``level``. A wheel's step (``under_mouse``) that follows another within
        :data:`ZOOM_GESTURE` (the wheel turning) draws the graph quickly (links and pictures
        without smoothing: a scattered graph's 600 links cost twice as much smoothed); the
        gesture's end draws it once more as at rest (:meth:`settle`). Any other zoom (a key,
        Fit, a single notch) is drawn at rest."""
        now = time.monotonic()
        if under_mouse and now - self._last_zoom < ZOOM_GESTURE:
            self.graph_scene.quick = True
            self._gesture_end.start()
        else:
            self.settle()
        self._last_zoom = now if under_mouse else 0.0
        super().set_zoom(level, under_mouse)
        blocks = self.zoom() < LOD_SIMPLE
        self.graph_scene.set_band(band_of(self.zoom()), self.devicePixelRatioF())
        # Zoomed out, nothing the view draws needs smoothing (nodes smooth their own cached
        # pictures; the links choose for themselves).
        self.setRenderHint(QPainter.RenderHint.Antialiasing, not blocks)
        self.minimap.update()

    def settle(self) -> None:
        """A zoom gesture ended: draw the graph as at rest (smoothed)."""
        self._gesture_end.stop()
        if self.graph_scene.quick:
            self.graph_scene.quick = False
            self.resetCachedContent()
            self.viewport().update()

    @property
    def zooming(self) -> bool:
        """Whether a zoom gesture is being drawn quickly (see :meth:`set_zoom`)."""
        return self.graph_scene.quick

    def covers(self) -> list[tuple[float, float, float, float]]:
        """Where the floating panels (the palette, the minimap) hide the graph, in viewport pixels."""
        viewport = self.viewport()
        boxes = []
        for widget in [*self.overlays, self.minimap]:
            if widget.isVisible():
                corner = widget.mapTo(self, QPoint(0, 0)) - viewport.pos()  # they float on the view
                boxes.append((float(corner.x()), float(corner.y()), float(widget.width()), float(widget.height())))
        return boxes

    def free_rect(self) -> QRectF:
        """The largest part of the viewport no floating panel hides, in scene coordinates
        (where a node added from the palette goes)."""
        areas = free_areas((self.viewport().width(), self.viewport().height()), self.covers())
        left, top, width, height = max(areas, key=lambda a: a[2] * a[3])
        return self.mapToScene(QRect(round(left), round(top), round(width), round(height))).boundingRect()

    def reveal(self, rect: QRectF, margin: float = 24) -> None:
        """Scroll as little as it takes to show ``rect`` (scene) clear of the floating panels."""
        free = self.free_rect().adjusted(margin, margin, -margin, -margin)
        dx = rect.left() - free.left() if rect.left() < free.left() or rect.width() > free.width() \
            else max(0.0, rect.right() - free.right())
        dy = rect.top() - free.top() if rect.top() < free.top() or rect.height() > free.height() \
            else max(0.0, rect.bottom() - free.bottom())
        if dx or dy:
            self.pan_by(-dx * self.zoom(), -dy * self.zoom())

    def fit(self, rect: QRectF | None = None, margin: float = 32, max_zoom: float = 1.0,
            min_zoom: float = MIN_ZOOM, anchor: QPointF | None = None) -> None:
        """Show the whole graph (or ``rect``; never larger than ``max_zoom``) in the part of the
        view the palette and the minimap leave free; with ``min_zoom`` a graph too big to read at
        that zoom is shown from its left end (around ``anchor``'s height), at ``min_zoom``."""
        bounds = rect if rect is not None else self.graph_scene.graph_bounds()
        if bounds.isEmpty():
            self.set_zoom(1.0)
            self.centerOn(0, 0)
            return
        level, (x, y) = fit_view((bounds.x(), bounds.y(), bounds.width(), bounds.height()),
                                 (self.viewport().width(), self.viewport().height()), self.covers(), margin,
                                 min_zoom, max_zoom, None if anchor is None else (anchor.x(), anchor.y()))
        self.set_zoom(level)
        self.centerOn(x, y)
        self.minimap.update()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.minimap.update()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.minimap.place()

    # ------------------------------------------------------------------ pointer
    def _node_at(self, pos: QPoint) -> NodeItem | None:
        for item in self.items(QRectF(pos.x() - 8, pos.y() - 8, 16, 16).toRect()):
            if isinstance(item, NodeItem):
                return item
        return None

    def _edge_at(self, pos: QPoint) -> EdgeItem | None:
        return self.graph_scene.edge_at(self.mapToScene(pos))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.start_pan(event):
            return
        if event.button() == Qt.MouseButton.LeftButton:
            scene_point = self.mapToScene(event.position().toPoint())
            node = self._node_at(event.position().toPoint())
            handle = node.port_at(scene_point) if node is not None else None
            if node is not None and handle is not None:
                self._start_link(node, handle, scene_point)
                event.accept()
                return
            adding = bool(event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
            edge = self._edge_at(event.position().toPoint()) if node is None else None
            if edge is not None:
                self.graph_scene.choose_edge(edge.edge_id, add=adding)
                event.accept()
                return
            if not adding:
                self.graph_scene.clear_chosen_edges()
        self.graph_scene.moving = event.button() == Qt.MouseButton.LeftButton
        super().mousePressEvent(event)
        self._press_positions = {i.node_id: i.pos() for i in self.graph_scene.node_items.values() if i.isSelected()}

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.panning(event):
            return
        if self._link is not None:
            self._drag_link(event.position().toPoint())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.end_pan(event):
            return
        if self._link is not None and event.button() == Qt.MouseButton.LeftButton:
            self._finish_link(event.position().toPoint())
            event.accept()
            return
        super().mouseReleaseEvent(event)
        self.graph_scene.moving = False
        if self._press_positions is not None:
            moved = self.graph_scene.moved_positions()
            self._press_positions = None
            if moved:
                self.nodes_moved.emit(moved)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        scene_point = self.mapToScene(event.position().toPoint())
        node = self._node_at(event.position().toPoint())
        if node is None:
            super().mouseDoubleClickEvent(event)
            return
        row = node.output_row_at(scene_point)
        if row is not None:
            self.edit_requested.emit(node.node_id, row["id"])
        elif node.label_rect().contains(scene_point):
            self.edit_requested.emit(node.node_id, "label")
        else:
            self.open_requested.emit(node.node_id)
        event.accept()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        scene_point = self.mapToScene(event.pos())
        item: Any = self._node_at(event.pos())
        if item is None:
            item = self._edge_at(event.pos())
            if item is not None and item.edge_id not in self.graph_scene.chosen_edges:
                self.graph_scene.choose_edge(item.edge_id)
        elif not item.isSelected():
            self.graph_scene.clearSelection()
            self.graph_scene.clear_chosen_edges()
            item.setSelected(True)
        self.menu_requested.emit(scene_point, item, event.globalPos())
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self._link is not None:
            self._cancel_link()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ dragging a link
    def _start_link(self, node: NodeItem, handle: dict[str, Any], scene_point: QPointF) -> None:
        from_output = handle.get("type") == "source"
        self._link = (node.node_id, handle["id"], from_output)
        self._link_item = DragLinkItem(node.port_point(handle["id"]), from_output)
        self.graph_scene.addItem(self._link_item)
        self.hint.emit("Drop on an input to link, or on empty space to add a node there. Esc cancels."
                       if from_output else "Drop on an output to link it here. Esc cancels.")

    def link_verdict(self, node: NodeItem | None, scene_point: QPointF) -> tuple[dict[str, Any] | None, str | None]:
        """The port under ``scene_point`` that the dragged link would end on, and why it
        would be refused (``None``: it would be taken)."""
        if self._link is None or node is None:
            return None, None
        source_node, source_handle, from_output = self._link
        handle = node.port_at(scene_point, "target" if from_output else "source")
        if handle is None:
            handle = node.port_at(scene_point)
            if handle is None:
                return None, None
        graph = self.graph_scene.graph
        if from_output:
            problem = graph.connection_problem(source_node, source_handle, node.node_id, handle["id"])
        else:
            problem = graph.connection_problem(node.node_id, handle["id"], source_node, source_handle)
        return handle, problem

    def _drag_link(self, pos: QPoint) -> None:
        scene_point = self.mapToScene(pos)
        node = self._node_at(pos)
        handle, problem = self.link_verdict(node, scene_point)
        if self._link_target is not None and (node is None or handle is None
                                              or self._link_target != (node, handle["id"])):
            self._link_target[0].set_highlight(None)
            self._link_target = None
        assert self._link_item is not None
        if node is not None and handle is not None:
            self._link_target = (node, handle["id"])
            node.set_highlight((handle["id"], problem is None))
            self._link_item.set_end(node.port_point(handle["id"]), problem is None)
            self.hint.emit(f"Can't link here: {problem}." if problem else "Release to link.")
        else:
            self._link_item.set_end(scene_point, None)

    def _finish_link(self, pos: QPoint) -> None:
        assert self._link is not None
        scene_point = self.mapToScene(pos)
        node = self._node_at(pos)
        handle, problem = self.link_verdict(node, scene_point)
        source_node, source_handle, from_output = self._link
        self._cancel_link()
        if node is not None and handle is not None:
            if problem is None:
                if from_output:
                    self.link_requested.emit(source_node, source_handle, node.node_id, handle["id"])
                else:
                    self.link_requested.emit(node.node_id, handle["id"], source_node, source_handle)
            else:
                self.hint.emit(f"Not linked: {problem}.")
        elif node is None:
            self.link_to_nothing.emit(source_node, source_handle, from_output, scene_point)

    def _cancel_link(self) -> None:
        if self._link_item is not None:
            self.graph_scene.removeItem(self._link_item)
        if self._link_target is not None:
            self._link_target[0].set_highlight(None)
        self._link = self._link_item = self._link_target = None
        self.hint.emit("")

    # ------------------------------------------------------------------ dropping from the palette
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(NODE_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(NODE_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        if event.mimeData().hasFormat(NODE_MIME):
            node_type = bytes(event.mimeData().data(NODE_MIME).data()).decode("utf-8")
            self.node_type_dropped.emit(node_type, self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
        else:
            super().dropEvent(event)

    # ------------------------------------------------------------------ editing in place
    def edit_in_place(self, scene_rect: QRectF, text: str, placeholder: str, monospace: bool = False) -> InlineEdit:
        """A line edit over ``scene_rect`` (wide enough to read at any zoom), focused, all selected."""
        editor = InlineEdit(self.viewport())
        editor.setText(text)
        editor.setPlaceholderText(placeholder)
        if monospace:
            font = editor.font()
            font.setFamily("monospace")
            font.setStyleHint(font.StyleHint.Monospace)
            editor.setFont(font)
        rect = self.mapFromScene(scene_rect).boundingRect()
        width = max(rect.width(), 280)
        editor.setGeometry(rect.x(), rect.y() + (rect.height() - 30) // 2, width, 30)
        editor.show()
        editor.selectAll()
        editor.setFocus()
        return editor


class InlineEdit(QLineEdit):
    """Editing over the graph: Enter or leaving it commits (``committed(text)``, once), Esc
    cancels; either way it goes away."""

    committed = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("inlineEditor")
        self._done = False
        self.returnPressed.connect(self._commit)

    def _commit(self) -> None:
        if not self._done:
            self._done = True
            self.committed.emit(self.text())
            self.hide()
            self.deleteLater()

    def cancel(self) -> None:
        if not self._done:
            self._done = True
            self.hide()
            self.deleteLater()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event: Any) -> None:
        super().focusOutEvent(event)
        self._commit()


class Minimap(QWidget):
    """The whole graph in small, with the visible part framed. Its picture (the panel and the
    graph's blocks) is redrawn shortly after the graph changes, never while panning: a frame
    draws the picture and the visible part's frame (the panel's translucent rounded box cost
    2 ms a frame, the view repainting under it)."""

    SIZE = QSize(220, 150)

    def __init__(self, view: GraphView) -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("dialogueMinimap")
        self.setFixedSize(self.SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("The whole dialogue: click or drag to move the view")
        self._picture: QPixmap | None = None
        self._look: tuple[str, str] = ("", "")  # the theme colours the picture has
        self._bounds = QRectF()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.render_picture)
        view.graph_scene.changed.connect(lambda _rects: self._timer.start())
        self.place()

    def place(self) -> None:
        viewport = self.view.viewport().geometry()
        self.move(viewport.right() - self.width() - 12, viewport.bottom() - self.height() - 12)

    def render_picture(self) -> None:
        colors = theme.colors()
        self._look = (colors.surface, colors.border)
        ratio = self.devicePixelRatioF()
        picture = QPixmap(self.size() * ratio)
        picture.setDevicePixelRatio(ratio)
        picture.fill(Qt.GlobalColor.transparent)
        painter = QPainter(picture)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        background = QColor(colors.surface)
        background.setAlpha(235)
        painter.setPen(QPen(QColor(colors.border), 1))
        painter.setBrush(background)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
        self._picture = picture
        scene = self.view.graph_scene
        bounds = scene.graph_bounds()
        if bounds.isEmpty():
            self._bounds = QRectF()
            painter.end()
            self.update()
            return
        bounds = bounds.adjusted(-40, -40, 40, 40)
        scale = min(self.width() / bounds.width(), self.height() / bounds.height())
        self._bounds = QRectF(bounds.center().x() - self.width() / scale / 2,
                              bounds.center().y() - self.height() / scale / 2,
                              self.width() / scale, self.height() / scale)
        painter.setPen(Qt.PenStyle.NoPen)
        for item in scene.node_items.values():  # blocks in the type's colour: links are noise at this size
            rect = item.sceneBoundingRect()
            painter.setBrush(kind_color(kind_of(item.node).type))
            painter.drawRoundedRect(QRectF((rect.x() - self._bounds.x()) * scale, (rect.y() - self._bounds.y()) * scale,
                                           max(2.0, rect.width() * scale), max(2.0, rect.height() * scale)), 2, 2)
        painter.end()
        self.update()

    def _to_scene(self, point: QPointF) -> QPointF:
        return QPointF(self._bounds.x() + point.x() / self.width() * self._bounds.width(),
                       self._bounds.y() + point.y() / self.height() * self._bounds.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        colors = theme.colors()
        if self._picture is None or self._look != (colors.surface, colors.border):
            self.render_picture()
        assert self._picture is not None
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._picture)
        if self._bounds.isEmpty():
            return
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        sx = self.width() / self._bounds.width()
        frame = QRectF((visible.x() - self._bounds.x()) * sx, (visible.y() - self._bounds.y()) * sx,
                       visible.width() * sx, visible.height() * sx)
        frame = frame.intersected(QRectF(self.rect()).adjusted(1, 1, -1, -1))
        accent = QColor(colors.accent)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(accent, 1.5))
        accent.setAlpha(40)
        painter.setBrush(accent)
        painter.drawRect(frame)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self._bounds.isEmpty():
            self.view.centerOn(self._to_scene(event.position()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and not self._bounds.isEmpty():
            self.view.centerOn(self._to_scene(event.position()))
