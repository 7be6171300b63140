"""The scene of one dialogue graph: an item per node, a :class:`EdgeItem` per link, kept in
step with a :class:`~storyloom.project.dialogue_graph.DialogueGraph` patch by patch.

:meth:`GraphScene.apply` applies a patch to the graph and touches only the items it names
(and the links of moved or changed nodes), then redraws the problems that changed, so an edit
of a 500-node graph costs what the edit touches.

The graph is drawn in the view's background, which the view caches: a pan scrolls it and
draws only the strip it uncovers. Links are not scene items: :meth:`GraphScene.draw_links`
strokes them all as one path (600 path items cost Qt 8 ms a frame on a scattered graph,
whose links cross the whole view); then :meth:`GraphScene.draw_nodes` draws the nodes'
pictures (their items, which the pointer meets, have no contents of their own). A node or a
link that changes redraws its part of that background."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPainterPath
from PySide6.QtWidgets import QGraphicsScene

from storyloom.gui.editors.dialogue_graph.items import LOD_SIMPLE, EdgeItem, NodeItem, link_pen
from storyloom.project.dialogue_graph import DialogueGraph, GraphProblem, Patch, graph_problems, kind_of, label_of

_BOUNDING_RECT = Qt.ItemSelectionMode.IntersectsItemBoundingRect
_ASCENDING = Qt.SortOrder.AscendingOrder

MARGIN = 2000
#: Scene units around a link's path or a node's box that its drawing may cover: a chosen
#: link's three pixels and round caps, a node picture's smoothed edge, at the smallest zoom (0.08).
LINK_REACH = 40.0


class GraphScene(QGraphicsScene):
    """``graph_changed(patch)`` after every applied patch; ``problems_changed`` when the list
    of problems changes."""

    graph_changed = Signal(object)
    problems_changed = Signal()

    def __init__(self, previews: Callable[[str], list[str] | None], script_exists: Callable[[str], bool],
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.previews = previews
        self.script_exists = script_exists
        self.graph = DialogueGraph()
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: dict[str, EdgeItem] = {}
        self.edges_by_node: dict[str, set[str]] = {}
        self.problems: list[GraphProblem] = []
        self.chosen_edges: set[str] = set()  # links picked by a click (nodes use Qt's selection)
        self.moving = False
        self.movable = True
        self.band = "detail"  # the zoom band the view shows the nodes in (items.band_of)
        self.pixel_ratio = 1.0  # the view's device pixels per pixel
        self.quick = False  # drawn quickly, without smoothing (while the view's zoom gesture lasts)
        self._links_path: QPainterPath | None = None  # every link not chosen, as one path
        self._quick_path: QPainterPath | None = None  # the same in straight pieces
        self._dirty: QRectF | None = None  # while a patch is synced: where nodes and links changed

    # ------------------------------------------------------------------ building
    def load(self, tree: dict[str, Any] | None) -> None:
        """Show ``tree`` from scratch."""
        self.clear()
        self.chosen_edges.clear()
        self.node_items.clear()
        self.edge_items.clear()
        self.edges_by_node.clear()
        self._dirty = QRectF()
        self.graph = DialogueGraph(tree)
        for node in self.graph.nodes:
            if isinstance(node.get("id"), str):
                self._add_node(node)
        for edge in self.graph.edges:
            self._add_edge(edge)
        self._refresh_jumps()
        self.refresh_problems()
        self.grow()
        self._dirty = None
        self._links_path = self._quick_path = None
        self.invalidate(QRectF(), QGraphicsScene.SceneLayer.BackgroundLayer)  # all of it

    def _preview(self, node: dict[str, Any]) -> list[str] | None:
        data = node.get("data") if isinstance(node.get("data"), dict) else {}
        if kind_of(node).type != "script" or not data.get("scriptId"):
            return []
        return self.previews(str(data["scriptId"]))

    def _add_node(self, node: dict[str, Any]) -> NodeItem:
        item = NodeItem(node, self._preview(node))
        item.set_band(self.band, self.pixel_ratio)
        item.moved_callback = self._node_moved
        item.setFlag(NodeItem.GraphicsItemFlag.ItemIsMovable, self.movable)
        self.addItem(item)
        self.node_items[item.node_id] = item
        self.node_changed(item)
        return item

    def _add_edge(self, edge: dict[str, Any]) -> EdgeItem | None:
        source = self.node_items.get(str(edge.get("source")))
        target = self.node_items.get(str(edge.get("target")))
        if source is None or target is None or not isinstance(edge.get("id"), str):
            return None  # a dangling link: its problem shows on the node that remains
        item = EdgeItem(edge, source, target)
        if item.edge_id in self.chosen_edges:
            item.set_chosen(True)
        self.edge_items[item.edge_id] = item
        for end in (source.node_id, target.node_id):
            self.edges_by_node.setdefault(end, set()).add(item.edge_id)
        self._links_changed(item.bounds)
        return item

    def _remove_edge(self, edge_id: str) -> None:
        self.chosen_edges.discard(edge_id)
        item = self.edge_items.pop(edge_id, None)
        if item is None:
            return
        for end in (item.source_item.node_id, item.target_item.node_id):
            self.edges_by_node.get(end, set()).discard(edge_id)
        self._links_changed(item.bounds)

    # ------------------------------------------------------------------ patches
    def apply(self, patch: Patch) -> None:
        """Apply ``patch`` to the graph and bring the touched items up to date."""
        self.graph.apply(patch)
        self._sync(patch)
        self.graph_changed.emit(patch)

    def _sync(self, patch: Patch) -> None:
        self._dirty = QRectF()  # one invalidation for all the nodes and links the patch changes
        try:
            self._sync_items(patch)
        finally:
            dirty, self._dirty = self._dirty, None
            self._redraw(dirty)

    def _sync_items(self, patch: Patch) -> None:
        touched_nodes = patch.touched("node")
        touched_edges = patch.touched("edge")
        for node_id in touched_nodes:
            node = self.graph.node(node_id)
            item = self.node_items.get(node_id)
            if node is None:
                if item is not None:
                    for edge_id in list(self.edges_by_node.pop(node_id, set())):
                        self._remove_edge(edge_id)
                    self._redraw(item.drawn)
                    self.removeItem(item)
                    del self.node_items[node_id]
            elif item is None:
                self._add_node(node)
            else:
                item.set_node(node, self._preview(node))
        for edge_id in touched_edges:
            self._remove_edge(edge_id)
            edge = self.graph.edge(edge_id)
            if edge is not None:
                self._add_edge(edge)
        for node_id in touched_nodes:
            for edge_id in self.edges_by_node.get(node_id, set()):
                self._refresh_edge(self.edge_items[edge_id])
        if touched_nodes:  # a jump shows its target's label
            self._refresh_jumps()
        self.refresh_problems()
        self.grow()

    def set_band(self, band: str, pixel_ratio: float = 1.0) -> None:
        """Show the nodes in zoom band ``band`` (see :class:`NodeItem`)."""
        if (band, pixel_ratio) != (self.band, self.pixel_ratio):
            self.band, self.pixel_ratio = band, pixel_ratio
            for item in self.node_items.values():
                item.set_band(band, pixel_ratio)

    def set_movable(self, movable: bool) -> None:
        self.movable = movable
        for item in self.node_items.values():
            item.setFlag(NodeItem.GraphicsItemFlag.ItemIsMovable, movable)

    def _node_moved(self, item: NodeItem) -> None:
        self.node_changed(item)
        for edge_id in self.edges_by_node.get(item.node_id, ()):
            self._refresh_edge(self.edge_items[edge_id])

    def node_changed(self, item: NodeItem) -> None:
        """``item`` looks different or stands elsewhere: redraw where it was and where it is."""
        rect = item.sceneBoundingRect()
        self._redraw(item.drawn.united(rect))
        item.drawn = rect

    # ------------------------------------------------------------------ links
    def _refresh_edge(self, item: EdgeItem) -> None:
        was = item.bounds
        item.refresh()
        self._links_changed(was.united(item.bounds))

    def _links_changed(self, rect: QRectF) -> None:
        """The links drawn in ``rect`` (scene) changed."""
        if not rect.isNull():
            self._links_path = self._quick_path = None
            self._redraw(rect)

    def _redraw(self, rect: QRectF) -> None:
        """Draw that part of the background again (``rect`` in scene coordinates)."""
        if rect.isNull():
            return
        if self._dirty is not None:  # a patch is being synced: once, at its end
            self._dirty = self._dirty.united(rect)
            return
        self.invalidate(rect.adjusted(-LINK_REACH, -LINK_REACH, LINK_REACH, LINK_REACH),
                        QGraphicsScene.SceneLayer.BackgroundLayer)

    def draw_links(self, painter: QPainter) -> None:
        """Every link, with ``painter`` in scene coordinates (the view's background, after the
        dots): the links not chosen as one path (Qt's cosmetic stroker skips the curves outside
        the clip), then the chosen ones over them. Smoothed from :data:`LOD_SIMPLE` up, but
        while :attr:`quick`, which zoomed out draws them in straight pieces
        (:meth:`EdgeItem.polyline`)."""
        if not self.edge_items:
            return
        zoomed_out = painter.worldTransform().m11() < LOD_SIMPLE
        if self.quick and zoomed_out:
            if self._quick_path is None:
                self._quick_path = self._links_of(EdgeItem.polyline)
            links = self._quick_path
        else:
            if self._links_path is None:
                self._links_path = self._links_of(EdgeItem.path)
            links = self._links_path
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, not zoomed_out and not self.quick)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(link_pen())
        painter.drawPath(links)
        for edge_id in self.chosen_edges:
            item = self.edge_items.get(edge_id)
            if item is not None:
                painter.setPen(item.pen())
                painter.drawPath(item.path())
        painter.restore()

    def _links_of(self, shape: Callable[[EdgeItem], QPainterPath]) -> QPainterPath:
        """The links not chosen as one path, each drawn as ``shape`` gives it."""
        path = QPainterPath()
        for item in self.edge_items.values():
            if not item.chosen:
                path.addPath(shape(item))
        return path

    def draw_nodes(self, painter: QPainter, rect: QRectF) -> None:
        """The nodes in ``rect`` (scene), ``painter`` in scene coordinates, in Qt's stacking
        order: their pictures, scaled smoothly but for the blocks (zoomed out, every node is
        in view, and a block's colour needs no smoothing: it costs a zoom step 2 to 4 ms) and
        while :attr:`quick`."""
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # as in the view's cache, whose painter has none
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, self.band != "block" and not self.quick)
        for item in self.items(rect, _BOUNDING_RECT, _ASCENDING):
            if type(item) is NodeItem:
                item.draw(painter)
        painter.restore()

    def edge_at(self, point: QPointF) -> EdgeItem | None:
        """The link a click at ``point`` (scene) picks: the topmost whose :meth:`EdgeItem.shape`
        holds it (chosen links are drawn over the others, later links over earlier ones)."""
        for item in sorted(reversed(self.edge_items.values()), key=lambda i: not i.chosen):
            if item.bounds.adjusted(-6, -6, 6, 6).contains(point) and item.shape().contains(point):
                return item
        return None

    def _refresh_jumps(self) -> None:
        for item in self.node_items.values():
            data = item.node.get("data") if isinstance(item.node.get("data"), dict) else {}
            if kind_of(item.node).type != "jump":
                continue
            target = self.graph.node(str(data.get("jumpTo"))) if data.get("jumpTo") else None
            label = label_of(target) if target is not None else ""
            if item.jump_label != label:
                item.jump_label = label
                item.update()

    def refresh_previews(self, script_id: str | None = None) -> None:
        """Read the linked scripts' first lines again (a script may have changed): of every
        script node, or of those linking ``script_id``."""
        for item in self.node_items.values():
            data = item.node.get("data") if isinstance(item.node.get("data"), dict) else {}
            if kind_of(item.node).type == "script" and (script_id is None or data.get("scriptId") == script_id):
                preview = self._preview(item.node)
                if preview != item.preview:
                    item.set_node(item.node, preview)
                    self._node_moved(item)

    def refresh_problems(self) -> None:
        problems = graph_problems(self.graph, self.script_exists)
        by_node: dict[str, list[GraphProblem]] = {}
        for problem in problems:
            if problem.node_id:
                by_node.setdefault(problem.node_id, []).append(problem)
        for node_id, item in self.node_items.items():
            item.set_problems(by_node.get(node_id, []))
        if problems != self.problems:
            self.problems = problems
            self.problems_changed.emit()

    def grow(self) -> None:
        """Keep room around the graph to pan into."""
        bounds = self.itemsBoundingRect() if self.node_items else QRectF(0, 0, 800, 600)
        self.setSceneRect(bounds.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))

    # ------------------------------------------------------------------ reading
    def graph_bounds(self) -> QRectF:
        rect = QRectF()
        for item in self.node_items.values():
            rect = rect.united(item.sceneBoundingRect())
        return rect

    def selected_node_ids(self) -> list[str]:
        return [item.node_id for item in self.selectedItems() if isinstance(item, NodeItem)]

    def selected_edge_ids(self) -> list[str]:
        return sorted(self.chosen_edges)

    def choose_edge(self, edge_id: str, add: bool = False) -> None:
        """Pick a link (with ``add``, one more); nodes are unselected unless ``add``."""
        if not add:
            self.clear_chosen_edges()
            self.clearSelection()
        item = self.edge_items.get(edge_id)
        if item is not None:
            item.set_chosen(True)
            self.chosen_edges.add(edge_id)
            self._links_changed(item.bounds)

    def clear_chosen_edges(self) -> None:
        for edge_id in self.chosen_edges:
            item = self.edge_items.get(edge_id)
            if item is not None:
                item.set_chosen(False)
                self._links_changed(item.bounds)
        self.chosen_edges.clear()

    def select_nodes(self, node_ids: list[str]) -> None:
        self.clearSelection()
        for node_id in node_ids:
            item = self.node_items.get(node_id)
            if item is not None:
                item.setSelected(True)

    def moved_positions(self) -> dict[str, tuple[float, float]]:
        """Nodes whose item stands somewhere else than the graph says (after a drag)."""
        moved = {}
        for node_id, item in self.node_items.items():
            position = item.node.get("position") if isinstance(item.node.get("position"), dict) else {}
            if (position.get("x"), position.get("y")) != (round(item.pos().x()), round(item.pos().y())):
                moved[node_id] = (item.pos().x(), item.pos().y())
        return moved
