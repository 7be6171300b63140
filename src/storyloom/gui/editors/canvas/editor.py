"""The Canvas editor: a board of notes, pictures, document cards and groups joined by labelled
edges, on an infinite surface with its toolbar and a side panel: a board
(:class:`~storyloom.gui.editors.board.ContentBoardEditor`: undo, read-only, selection). Every edit
is a step of :mod:`storyloom.project.canvas` (a new content); the document saves ``content``
through the editor gate like every editor (debounced, Ctrl+S).

The public methods (:meth:`add_note`, :meth:`add_image`, :meth:`add_document_card`,
:meth:`move_nodes`, :meth:`resize_node`, :meth:`connect`, :meth:`set_note_text`,
:meth:`set_node_data`, :meth:`set_edge_label`, :meth:`group_selection`, :meth:`ungroup`,
:meth:`delete_selection`, :meth:`open_link`) are what the toolbar, the menus, the panel and the
view's gestures call, and what the tests drive."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeySequence, QPixmap
from PySide6.QtWidgets import QMenu, QSplitter, QWidget

from storyloom.app.attachments import AttachmentImages
from storyloom.gui.editors.board import ContentBoardEditor, ViewShortcut
from storyloom.gui.editors.canvas.inspector import CanvasInspector
from storyloom.gui.editors.canvas.items import EdgeItem, NodeItem, pixmap_from
from storyloom.gui.editors.canvas.scene import CanvasScene, CanvasView
from storyloom.gui.editors.markdown_pane import open_document
from storyloom.gui.sidebar import collection_label
from storyloom.project import ATTACHMENT_TYPE, NOT_LINKABLE_TYPES
from storyloom.project import canvas as cv
from storyloom.words import counted

STAGGER = 28
OPENING_ZOOM = 0.8


class CanvasEditor(ContentBoardEditor):
    """A Canvas document (``content.nodes``, ``content.edges``)."""

    view: CanvasView
    noun = "canvas"
    object_prefix = "canvas"

    def make_view(self) -> CanvasView:
        self.content = {"nodes": [], "edges": []}
        self._pixmaps: dict[str, QPixmap | None] = {}
        self._added = 0
        self.scene = CanvasScene(self._document_label, self._image, collection_label, self)
        self.inspector = CanvasInspector()
        self.inspector.setMinimumWidth(280)
        return CanvasView(self.scene)

    def build_tools(self) -> None:
        self.edit_actions = [
            self.add_tool("ph.note", "Note", "N", lambda: self.add_note()),
            self.add_tool("ph.image", "Image", "I", lambda: self.add_image()),
            self.add_tool("ph.file-text", "Document", "D", self._choose_document)]
        self.toolbar.addSeparator()
        self.group_action = self.add_tool("ph.selection-plus", "Group", "Ctrl+G", lambda: self.group_selection(),
                                      icon_only=True)
        self.edit_actions += [self.group_action, self.add_tool("ph.selection-slash", "Ungroup", "Ctrl+Shift+G",
                                                           self._ungroup_selection, icon_only=True)]
        self.toolbar.addSeparator()
        self.add_zoom_tools()

    def view_shortcuts(self) -> Iterable[ViewShortcut]:
        return (("Select all", QKeySequence.StandardKey.SelectAll, self.select_all),)

    def arrange(self, center: QWidget) -> QWidget:
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setObjectName("canvasSplitter")
        body.setHandleWidth(1)
        body.addWidget(center)
        body.addWidget(self.inspector)
        body.setStretchFactor(0, 1)
        body.setCollapsible(0, False)
        body.setSizes([1000, 290])
        return body

    def connect_board(self) -> None:
        self.view.nodes_moved.connect(self.move_nodes)
        self.view.link_requested.connect(lambda source, target: self.connect(source, target))
        self.view.menu_requested.connect(self._context_menu)
        self.view.edit_requested.connect(self._edit_node)
        self.view.edge_edit_requested.connect(self._edit_edge)
        self.view.add_requested.connect(lambda point: self.add_note(point.x() - 110, point.y() - 45))
        self.scene.resize_requested.connect(self.resize_node)
        self.scene.link_opened.connect(self.open_link)
        self.inspector.text_edited.connect(self.set_note_text)
        self.inspector.data_edited.connect(lambda node_id, fields: self.set_node_data(node_id, **fields))
        self.inspector.edge_label_edited.connect(self.set_edge_label)
        self.inspector.edge_reversed.connect(self.reverse_edge)
        self.inspector.open_requested.connect(lambda doc_id: open_document(self, doc_id))
        self.inspector.group_requested.connect(lambda: self.group_selection())
        self.inspector.ungroup_requested.connect(self.ungroup)
        self.inspector.delete_requested.connect(self.delete_selection)

    # ------------------------------------------------------------------ the document
    def content_loaded(self) -> None:
        self._pixmaps.clear()
        self._load_documents()
        super().content_loaded()

    def show_content(self) -> None:
        self.scene.load(self.content)
        self._show_summary()

    def shown(self) -> None:
        if self._fitted:  # a linked document may have been renamed while another tab was in front
            self._load_documents()
            self.scene.refresh()

    def opening_fit(self) -> None:
        self.fit(OPENING_ZOOM)

    def fit(self, min_zoom: float = 0.1) -> None:
        """Show the whole board (at ``min_zoom`` at least: a large board opens on its middle)."""
        self.view.fit(self.scene.board_rect(), min_zoom=min_zoom)
        self.show_zoom()

    def _load_documents(self) -> None:
        try:
            summaries = [s for s in self.session.index.summaries()
                         if (s.type not in NOT_LINKABLE_TYPES or s.type == ATTACHMENT_TYPE)
                         and s.id != self.doc_id and isinstance(s.type, str)]
        except Exception:  # noqa: BLE001 - without the index, the inspector offers no documents
            summaries = []
        documents = sorted(((s.id, str(s.name or "Untitled"), str(s.type), collection_label(str(s.type)))
                            for s in summaries if s.type != "Attachment"), key=lambda d: (d[3], d[1].casefold()))
        images = []
        for s in sorted((s for s in summaries if s.type == "Attachment"), key=lambda s: str(s.name or "")):
            try:
                mime = str(self.session.db.get(s.id).get("mimeType") or "")
            except Exception:  # noqa: BLE001 - a missing or unreadable attachment is not offered as an image
                continue
            if mime.startswith("image/"):
                images.append((s.id, str(s.name or "Untitled")))
        self.inspector.set_documents(documents, images)

    def _document_label(self, doc_id: str) -> str | None:
        return self.document_name(doc_id)

    def _image(self, doc_id: str) -> QPixmap | None:
        if doc_id not in self._pixmaps:
            found = AttachmentImages(self.session.db, self.session.index).load(doc_id)
            self._pixmaps[doc_id] = pixmap_from(found.data) if found.kind == "attachment" else None
        return self._pixmaps[doc_id]

    # ------------------------------------------------------------------ steps
    def step(self, text: str, after: dict[str, Any], merge_key: str | None = None,
             select: list[str] | None = None) -> bool:
        """Show ``after`` as one undoable step, then select ``select`` (node ids) when given."""
        done = super().step(text, after, merge_key)
        if done and select is not None:
            self.scene.select(select)
        return done

    def board_editable(self, editable: bool) -> None:
        self.inspector.setEnabled(editable)
        self.scene.set_editable(editable)
        for action in self.edit_actions:
            action.setEnabled(editable)

    def _spot(self, x: float | None, y: float | None, size: tuple[int, int]) -> tuple[float, float]:
        if x is not None and y is not None:
            return x, y
        center = self.view.mapToScene(self.view.viewport().rect().center())
        self._added = (self._added + 1) % 6
        return center.x() - size[0] / 2 + STAGGER * self._added, center.y() - size[1] / 2 + STAGGER * self._added

    def add_note(self, x: float | None = None, y: float | None = None, text: str = "") -> str:
        """Add a note (in the middle of the view when no point is given); returns its id."""
        x, y = self._spot(x, y, cv.DEFAULT_SIZE["note"])
        node = cv.new_note(x, y, text)
        self.step("Add note", cv.add_node(self.content, node), select=[node["id"]])
        self.inspector.focus_text()
        return node["id"]

    def add_image(self, attachment_id: str | None = None, x: float | None = None, y: float | None = None) -> str:
        """Add a picture (the first image attachment when none is named: choose another in the panel)."""
        if attachment_id is None:
            attachment_id = self.inspector.images[0][0] if self.inspector.images else ""
        pixmap = self._image(attachment_id) if attachment_id else None
        size = cv.image_size(pixmap.width(), pixmap.height()) if pixmap is not None else cv.DEFAULT_SIZE["image"]
        x, y = self._spot(x, y, size)
        node = cv.new_image(x, y, attachment_id, size=size)
        self.step("Add image", cv.add_node(self.content, node), select=[node["id"]])
        return node["id"]

    def add_document_card(self, doc_id: str, x: float | None = None, y: float | None = None) -> str:
        summary = self.session.index.get(doc_id)
        x, y = self._spot(x, y, cv.DEFAULT_SIZE["document"])
        node = cv.new_document_card(x, y, doc_id, str(summary.type) if summary is not None else "")
        self.step("Add document card", cv.add_node(self.content, node), select=[node["id"]])
        return node["id"]

    def _choose_document(self, point: QPointF | None = None) -> None:
        menu = QMenu(self)
        menu.setObjectName("documentMenu")
        for doc_id, name, kind in self.inspector.documents[:400]:
            menu.addAction(f"{name} — {kind}", lambda d=doc_id: self.add_document_card(
                d, *((point.x(), point.y()) if point is not None else (None, None))))
        menu.exec(self.view.mapToGlobal(self.view.viewport().rect().center()))

    def move_nodes(self, positions: dict[str, tuple[float, float]]) -> bool:
        count = len(positions)
        moved = self.step(f"Move {counted(count, 'node')}", cv.move_nodes(self.content, positions))
        if not moved:
            self.scene.load(self.content)  # a drag that ended where it began: put the items back exactly
        return moved

    def resize_node(self, node_id: str, width: float, height: float) -> bool:
        try:
            after = cv.resize_node(self.content, node_id, width, height)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        return self.step("Resize", after)

    def connect(self, source: str, target: str, label: str = "") -> bool:
        """Link ``source`` to ``target``; False (and why, under the board) when refused."""
        try:
            after, edge_id = cv.connect(self.content, source, target, label)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        self.hint_label.setText("")
        return self.step("Link", after, select=[]) and self._select_edge(edge_id)

    def _select_edge(self, edge_id: str) -> bool:
        self.scene.select([], [edge_id])
        return True

    def set_note_text(self, node_id: str, text: str) -> bool:
        try:
            after = cv.set_data(self.content, node_id, text=text)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        return self.step("Edit note", after, merge_key=f"text:{node_id}")

    def set_node_data(self, node_id: str, **fields: Any) -> bool:
        try:
            after = cv.set_data(self.content, node_id, **fields)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        return self.step("Link document" if "docId" in fields else "Edit", after)

    def set_edge_label(self, edge_id: str, label: str) -> bool:
        try:
            after = cv.set_edge_label(self.content, edge_id, label)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        return self.step("Label edge", after)

    def reverse_edge(self, edge_id: str) -> bool:
        try:
            return self.step("Reverse edge", cv.reverse_edge(self.content, edge_id))
        except cv.CanvasRefused as exc:
            return self.not_done(exc)

    def group_selection(self, label: str = "Group") -> str | None:
        """Frame the selected notes in a new group; returns its id (``None`` when refused)."""
        try:
            after, group_id = cv.group(self.content, self.scene.selected_node_ids(), label)
        except cv.CanvasRefused as exc:
            self.not_done(exc)
            return None
        self.step("Group", after, select=[group_id])
        return group_id

    def ungroup(self, group_id: str) -> bool:
        try:
            after = cv.ungroup(self.content, group_id)
        except cv.CanvasRefused as exc:
            return self.not_done(exc)
        return self.step("Ungroup", after, select=cv.members(self.content, group_id))

    def _ungroup_selection(self) -> None:
        for node_id in self.scene.selected_node_ids():
            if cv.node_type(cv.find_node(self.content, node_id) or {}) == "group":
                self.ungroup(node_id)

    def delete_selection(self) -> bool:
        nodes, edges = self.scene.selected_node_ids(), self.scene.selected_edge_ids()
        text = f"Delete {counted(len(nodes) + len(edges), 'item')}"
        return self.step(text, cv.remove(self.content, nodes, edges), select=[])

    def select_all(self) -> None:
        self.scene.select(list(self.scene.node_items))

    def open_link(self, node_id: str) -> bool:
        """Open the document a node links to (a note's link, a card's document, an image's attachment)."""
        node = cv.find_node(self.content, node_id)
        doc_id = cv.linked_document(node) if node is not None else None
        if doc_id is None:
            return False
        if not self.document_exists(doc_id):
            self.hint_label.setText("That document is not in the project any more.")
            return False
        return open_document(self, doc_id)

    def focus_match(self, field: str, line: int, column: int = 1, length: int = 0) -> None:
        """A search hit in a node (``content.nodes.3.data.text``) or an edge selects it and shows it."""
        parts = field.split(".")
        if len(parts) >= 3 and parts[0] == "content" and parts[1] in ("nodes", "edges") and parts[2].isdigit():
            items = cv.nodes_of(self.content) if parts[1] == "nodes" else cv.edges_of(self.content)
            index = int(parts[2])
            if index < len(items):
                if parts[1] == "nodes":
                    self.scene.select([items[index]["id"]])
                    self.view.centerOn(self.scene.node_items[items[index]["id"]])
                else:
                    self.scene.select([], [items[index]["id"]])
                return
        super().focus_match(field, line, column, length)

    # ------------------------------------------------------------------ menus and the panel
    def _edit_node(self, node_id: str) -> None:
        node = cv.find_node(self.content, node_id) or {}
        if cv.node_type(node) == "document":
            self.open_link(node_id)
            return
        self.scene.select([node_id])
        self.inspector.focus_text()

    def _edit_edge(self, edge_id: str) -> None:
        self.scene.select([], [edge_id])
        self.inspector.focus_text()

    def _context_menu(self, point: QPointF, item: Any, global_point: QPoint) -> None:
        self.context_menu(point, item).exec(global_point)

    def context_menu(self, point: QPointF, item: Any) -> QMenu:
        """The right-click menu at board ``point`` over ``item`` (a node, an edge or nothing)."""
        menu = QMenu(self)
        menu.setObjectName("canvasMenu")
        if isinstance(item, NodeItem):
            node = item.node
            if cv.linked_document(node) and cv.node_type(node) != "image":
                menu.addAction(qta.icon("ph.arrow-square-out"), "Open linked document",
                               lambda: self.open_link(item.node_id))
            if cv.node_type(node) == "group":
                menu.addAction(qta.icon("ph.selection-slash"), "Ungroup", lambda: self.ungroup(item.node_id))
            elif len(self.scene.selected_node_ids()) > 0:
                menu.addAction(qta.icon("ph.selection-plus"), "Group", lambda: self.group_selection())
            menu.addSeparator()
            menu.addAction(qta.icon("ph.trash"), "Delete", self.delete_selection)
            return menu
        if isinstance(item, EdgeItem):
            menu.addAction("Edit label", lambda: self._edit_edge(item.edge_id))
            menu.addAction(qta.icon("ph.arrows-left-right"), "Reverse", lambda: self.reverse_edge(item.edge_id))
            menu.addAction(qta.icon("ph.trash"), "Delete", self.delete_selection)
            return menu
        menu.addAction(qta.icon("ph.note"), "Add note here", lambda: self.add_note(point.x(), point.y()))
        menu.addAction(qta.icon("ph.image"), "Add image here", lambda: self.add_image(None, point.x(), point.y()))
        menu.addAction(qta.icon("ph.file-text"), "Add document card here…", lambda: self._choose_document(point))
        menu.addSeparator()
        menu.addAction("Select all", self.select_all)
        menu.addAction(qta.icon("ph.corners-out"), "Fit", self.fit)
        return menu

    def selection_changed(self) -> None:
        nodes, edges = self.scene.selected_node_ids(), self.scene.selected_edge_ids()
        if len(nodes) == 1 and not edges and (node := cv.find_node(self.content, nodes[0])) is not None:
            self.inspector.show_node(node)
        elif len(edges) == 1 and not nodes and (edge := cv.find_edge(self.content, edges[0])) is not None:
            self.inspector.show_edge(edge, self._node_title(edge.get("source")), self._node_title(edge.get("target")))
        else:
            self.inspector.show_board(len(self.scene.node_items), len(self.scene.edge_items), len(nodes) + len(edges))
        self.group_action.setEnabled(bool(nodes))

    def _node_title(self, node_id: Any) -> str:
        node = cv.find_node(self.content, str(node_id)) or {}
        kind = cv.node_type(node)
        if kind == "note":
            first = next((line.strip("#*-_ ") for line in cv.note_text(node).splitlines() if line.strip()), "")
            return (first[:40] + "…") if len(first) > 40 else first or "Note"
        if kind == "group":
            return str(cv.node_data(node).get("label") or "Group")
        doc_id = cv.linked_document(node)
        return (self.document_name(doc_id) if doc_id else None) or kind.capitalize()

    def _show_summary(self) -> None:
        nodes, edges = len(self.scene.node_items), len(self.scene.edge_items)
        self.summary_label.setText(f"{counted(nodes, 'node')} · {counted(edges, 'edge')}")
