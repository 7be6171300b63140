"""The canvas scene (items kept in step with the board) and its view (select, move, resize,
link by dragging from a node's knob, zoom and pan). The view sends intents; the editor turns
them into undoable steps of :mod:`storyloom.project.canvas`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QMouseEvent, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView, QWidget

from storyloom.gui.editors.canvas.items import ITEM_CLASSES, DragLinkItem, EdgeItem, GroupItem, NodeItem
from storyloom.gui.editors.surface_view import SurfaceView
from storyloom.project import canvas as cv


class CanvasScene(QGraphicsScene):
    resize_requested = Signal(str, float, float)
    link_opened = Signal(str)

    def __init__(self, document_name: Callable[[str], str | None], image: Callable[[str], QPixmap | None],
                 collection_label: Callable[[str], str], parent: Any = None) -> None:
        super().__init__(parent)
        self.document_name = document_name
        self.image = image
        self.collection_label = collection_label
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: dict[str, EdgeItem] = {}
        self.content: dict[str, Any] = {"nodes": [], "edges": []}
        self._loading = False
        self.editable = True

    def set_editable(self, editable: bool) -> None:
        """Whether nodes can be moved, resized and linked (not when another writer holds the lock)."""
        self.editable = editable
        for item in self.node_items.values():
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, editable)

    def load(self, content: dict[str, Any]) -> None:
        """Show ``content``: items of nodes and edges that stay are updated in place (and stay
        selected), the others are added or removed."""
        self._loading = True
        try:
            self.content = content
            nodes = cv.nodes_of(content)
            by_id = {n["id"]: n for n in nodes}
            for item in self.node_items.values():
                if item.parentItem() is not None:
                    item.setParentItem(None)
            for node_id, item in list(self.node_items.items()):
                node = by_id.get(node_id)
                if node is None or cv.node_type(node) != item.kind:
                    self.removeItem(item)
                    del self.node_items[node_id]
            for index, node in enumerate(nodes):
                item = self.node_items.get(node["id"])
                if item is None:
                    item = ITEM_CLASSES[cv.node_type(node)](node)
                    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsMovable, self.editable)
                    self.addItem(item)
                    self.node_items[node["id"]] = item
                item.show_node(node)
                parent = cv.parent_of(content, node)
                group = self.node_items.get(parent["id"]) if parent is not None else None
                if group is not None and group is not item:
                    item.setParentItem(group)
                x, y = cv.relative_position(node)
                item.setPos(x, y)
                if not isinstance(item, GroupItem):
                    item.setZValue(index)
            edges = cv.edges_of(content)
            wanted = {e["id"] for e in edges}
            for edge_id in [i for i in self.edge_items if i not in wanted]:
                self.removeItem(self.edge_items.pop(edge_id))
            for edge in edges:
                edge_item = self.edge_items.get(edge["id"])
                if edge_item is None:
                    edge_item = EdgeItem(edge)
                    self.addItem(edge_item)
                    self.edge_items[edge["id"]] = edge_item
                edge_item.edge = edge
            self.refresh_edges()
        finally:
            self._loading = False

    def refresh(self) -> None:
        """Redraw every node (a linked document was renamed, a picture changed)."""
        for item in self.node_items.values():
            item.refresh()

    def refresh_edges(self, node_ids: set[str] | None = None) -> None:
        for edge_item in self.edge_items.values():
            edge = edge_item.edge
            if node_ids is not None and edge.get("source") not in node_ids and edge.get("target") not in node_ids:
                continue
            source = self.node_items.get(str(edge.get("source")))
            target = self.node_items.get(str(edge.get("target")))
            edge_item.setVisible(source is not None and target is not None)
            if source is not None and target is not None:
                edge_item.update_path(source.scene_rect(), target.scene_rect())

    def node_moved(self, item: NodeItem) -> None:
        """A node is being dragged or resized: its edges (and its members' edges) follow."""
        if self._loading:
            return
        moved = {item.node_id}
        if isinstance(item, GroupItem):
            moved |= {child.node_id for child in item.childItems() if isinstance(child, NodeItem)}
        self.refresh_edges(moved)

    def open_link(self, node_id: str) -> None:
        self.link_opened.emit(node_id)

    # ------------------------------------------------------------------ selection
    def selected_node_ids(self) -> list[str]:
        order = {n["id"]: i for i, n in enumerate(cv.nodes_of(self.content))}
        ids = [i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)]
        return sorted(ids, key=lambda i: order.get(i, 0))

    def selected_edge_ids(self) -> list[str]:
        return [i.edge_id for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def select(self, node_ids: list[str] = (), edge_ids: list[str] = ()) -> None:  # type: ignore[assignment]
        self.blockSignals(True)
        self.clearSelection()
        for node_id in node_ids:
            if node_id in self.node_items:
                self.node_items[node_id].setSelected(True)
        for edge_id in edge_ids:
            if edge_id in self.edge_items:
                self.edge_items[edge_id].setSelected(True)
        self.blockSignals(False)
        self.selectionChanged.emit()

    def board_rect(self) -> QRectF:
        found = cv.bounds(self.content)
        return QRectF(*found) if found else QRectF()


class CanvasView(SurfaceView):
    nodes_moved = Signal(dict)  # {node id: (x, y) on the board}
    link_requested = Signal(str, str)
    menu_requested = Signal(QPointF, object, QPoint)  # scene point, item under it (or None), global point
    edit_requested = Signal(str)  # a node double-clicked
    edge_edit_requested = Signal(str)
    add_requested = Signal(QPointF)  # empty board double-clicked

    def __init__(self, scene: CanvasScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, 0.1, 3.0, parent)
        self.canvas_scene = scene
        self.setObjectName("canvasView")
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self._link_from: str | None = None
        self._link_item: DragLinkItem | None = None
        self._press: dict[str, QPointF] | None = None

    def node_at(self, pos: QPoint, exclude: str | None = None) -> NodeItem | None:
        """The topmost node under view point ``pos`` (a group only when no note is there)."""
        found: NodeItem | None = None
        for item in self.items(pos):
            if isinstance(item, NodeItem) and item.node_id != exclude:
                if not isinstance(item, GroupItem):
                    return item
                found = found or item
        return found

    def _item_at(self, pos: QPoint) -> QGraphicsItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem | EdgeItem):
                return item
        return None

    # ------------------------------------------------------------------ pointer
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.start_pan(event):
            return
        if event.button() == Qt.MouseButton.LeftButton:
            point = self.mapToScene(event.position().toPoint())
            for item in self.items(event.position().toPoint()):
                if isinstance(item, NodeItem) and self.canvas_scene.editable and item.on_knob(point):
                    self._start_link(item, point)
                    event.accept()
                    return
        super().mousePressEvent(event)
        self._press = {i.node_id: i.scenePos() for i in self.canvas_scene.node_items.values()}

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self.panning(event):
            return
        if self._link_item is not None:
            target = self.node_at(event.position().toPoint(), exclude=self._link_from)
            problem = cv.connection_problem(self.canvas_scene.content, self._link_from or "",
                                            target.node_id) if target is not None else None
            self._link_item.move_to(self.mapToScene(event.position().toPoint()), target is not None and not problem)
            self.hint.emit(f"Not linked: {problem}." if problem else
                           "Release on a node to link it." if target is None else "Release to link.")
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self.end_pan(event):
            return
        if self._link_item is not None and event.button() == Qt.MouseButton.LeftButton:
            source = self._link_from or ""
            target = self.node_at(event.position().toPoint(), exclude=source)
            self.scene().removeItem(self._link_item)
            self._link_item, self._link_from = None, None
            self.hint.emit("")
            if target is not None:
                self.link_requested.emit(source, target.node_id)
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if self._press is not None and event.button() == Qt.MouseButton.LeftButton:
            moved = {node_id: (item.scenePos().x(), item.scenePos().y())
                     for node_id, item in self.canvas_scene.node_items.items()
                     if node_id in self._press and item.scenePos() != self._press[node_id]}
            self._press = None
            if moved:
                self.nodes_moved.emit(moved)

    def _start_link(self, item: NodeItem, point: QPointF) -> None:
        self._link_from = item.node_id
        self._link_item = DragLinkItem(item.mapToScene(item.knob_center()))
        self.scene().addItem(self._link_item)
        self._link_item.move_to(point, False)
        self.hint.emit("Release on a node to link it.")

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self._item_at(event.position().toPoint())
        if isinstance(item, EdgeItem):
            self.edge_edit_requested.emit(item.edge_id)
        elif isinstance(item, NodeItem):
            self.edit_requested.emit(item.node_id)
        elif event.button() == Qt.MouseButton.LeftButton and self.canvas_scene.editable:
            self.add_requested.emit(self.mapToScene(event.position().toPoint()))
        event.accept()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        item = self._item_at(event.pos())
        if item is not None and not item.isSelected():
            self.canvas_scene.clearSelection()
            item.setSelected(True)
        self.menu_requested.emit(self.mapToScene(event.pos()), item, event.globalPos())
        event.accept()
