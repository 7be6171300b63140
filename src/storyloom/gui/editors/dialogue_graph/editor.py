"""The Dialogue editor: the node palette, the graph view with its toolbar and minimap, and the
node inspector: a board (:class:`~storyloom.gui.editors.board.BoardEditor`: undo, read-only,
selection). Every edit is a patch planned by
:class:`~storyloom.project.dialogue_graph.DialogueGraph`, one undoable step; the document saves
``content.tree`` through the editor gate like every editor (debounced, Ctrl+S). The linked
scripts are followed as the session changes them (their names in the side panel, the nodes'
first lines and problems), and a script's text written in the side panel saves with the
dialogue (Ctrl+S, closing the tab or the window) besides its own debounced save.

The public methods (:meth:`add_node`, :meth:`link`, :meth:`move_nodes`, :meth:`delete_selection`,
:meth:`copy_selection`, :meth:`paste`, :meth:`set_node_data`, :meth:`edit_port`,
:meth:`auto_layout`, ...) are what the palette, the menus and the view's gestures call, and
what the tests drive."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QMimeData, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QMenu, QSplitter, QVBoxLayout, QWidget

from storyloom.app import DocumentChanged
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.editors.board import BoardEditor, ViewShortcut
from storyloom.gui.editors.dialogue_graph.commands import PatchCommand
from storyloom.gui.editors.dialogue_graph.inspector import NodeInspector
from storyloom.gui.editors.dialogue_graph.items import EdgeItem, NodeItem
from storyloom.gui.editors.dialogue_graph.palette import NodePalette, kind_icon
from storyloom.gui.editors.dialogue_graph.scene import GraphScene
from storyloom.gui.editors.dialogue_graph.script_writer import ScriptWriters
from storyloom.gui.editors.dialogue_graph.view import GraphView
from storyloom.gui.editors.markdown_pane import open_document
from storyloom.gui.host import host_of
from storyloom.project import WriteResult, choice_options
from storyloom.project.dialogue_graph import (
    NODE_KINDS,
    ConnectionRefused,
    Patch,
    is_clipboard,
    kind_of,
    label_of,
    ports,
    script_preview,
)
from storyloom.project.dialogue_layout import READABLE_ZOOM, free_spot, layered_layout, node_geometry

CLIPBOARD_MIME = "application/x-storyloom-dialogue-nodes"
_TREE_PATH = re.compile(r"^content\.tree\.(?P<kind>nodes|edges)(?:\.|\[)(?P<index>\d+)")
PASTE_STEP = 32


class DialogueGraphEditor(BoardEditor):
    """A Dialogue document's graph (``content.tree``)."""

    view: GraphView
    #: A side panel script writer's unsaved state changed (re-emitted as ``state_changed``).
    writer_state_changed = Signal()
    noun = "dialogue"
    object_prefix = "graph"

    def make_view(self) -> GraphView:
        self._previews: dict[str, list[str] | None] = {}
        self._paste_count = 0
        self.scene = GraphScene(self._preview, self._script_exists, self)
        self.node_palette = NodePalette()
        self.inspector = NodeInspector()
        self.inspector.setMinimumWidth(280)
        # Queued: a writer saves as it is put away, which may happen while the scene reloads,
        # and what follows the tab's state (the lock UI) must see the scene whole.
        self.writer_state_changed.connect(self.state_changed, Qt.ConnectionType.QueuedConnection)
        self.inspector.writers = ScriptWriters(self.session, self.inspector, self.writer_state_changed.emit,
                                               self._script_typed)
        self._following = False
        return GraphView(self.scene)

    def build_tools(self) -> None:
        self.add_zoom_tools(fit_text=True)
        self.toolbar.addSeparator()
        self.add_tool("ph.tree-structure", "Auto layout", "Ctrl+L", self.auto_layout)
        self.minimap_action = self.add_tool("ph.map-trifold", "Minimap", "M", self._toggle_minimap)
        self.minimap_action.setCheckable(True)
        self.minimap_action.setChecked(True)

    def view_shortcuts(self) -> Iterable[ViewShortcut]:
        return (("Copy", QKeySequence.StandardKey.Copy, self.copy_selection),
                ("Cut", QKeySequence.StandardKey.Cut, self.cut_selection),
                ("Paste", QKeySequence.StandardKey.Paste, lambda: self.paste()),
                ("Duplicate", "Ctrl+D", self.duplicate_selection),
                ("Select all", QKeySequence.StandardKey.SelectAll, self.select_all))

    def arrange(self, center: QWidget) -> QWidget:
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setObjectName("dialogueGraphSplitter")
        body.setHandleWidth(1)
        body.addWidget(center)
        body.addWidget(self.inspector)
        body.setStretchFactor(0, 1)
        body.setCollapsible(0, False)
        body.setSizes([1000, 300])
        self.palette_panel = self._palette_panel()
        return body

    def _palette_panel(self) -> QFrame:
        """The palette floats over the graph's top-left corner (the graph keeps the width)."""
        panel = QFrame(self.view)
        panel.setObjectName("paletteOverlay")
        panel.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        colors = theme.colors()
        panel.setStyleSheet(f"#paletteOverlay {{ background: {colors.surface}; border: 1px solid {colors.border};"
                            f" border-radius: 8px; }} #nodePalette {{ border: 0; background: transparent; }}"
                            f" #nodePalette::item {{ padding: 2px 4px; border-radius: 4px; }}"
                            f" #nodePalette::item:hover {{ background: {colors.surface_alt}; }}")
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(theme.S, theme.S, theme.S, theme.S)
        layout.setSpacing(theme.XS)
        title = QLabel("Add node")
        title.setObjectName("fieldLabel")
        title.setToolTip("Click a type to add it in the middle of the view, or drag it onto the graph")
        layout.addWidget(title)
        layout.addWidget(self.node_palette)
        self.node_palette.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.node_palette.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        palette = self.node_palette
        rows = sum(palette.sizeHintForRow(i) + 2 * palette.spacing() for i in range(palette.count()))
        palette.setFixedSize(palette.sizeHintForColumn(0) + 24, rows + 4)
        panel.adjustSize()
        panel.move(theme.M, theme.M)
        self.view.overlays.append(panel)
        return panel

    def connect_board(self) -> None:
        self.node_palette.chosen.connect(lambda node_type: self.add_node(node_type))
        self.view.link_requested.connect(self.link)
        self.view.link_to_nothing.connect(self._link_to_nothing)
        self.view.nodes_moved.connect(self.move_nodes)
        self.view.menu_requested.connect(self._context_menu)
        self.view.node_type_dropped.connect(lambda node_type, point: self.add_node(node_type, point.x(), point.y()))
        self.view.edit_requested.connect(self.edit_in_place)
        self.view.open_requested.connect(self.open_node)
        self.scene.problems_changed.connect(self._show_summary)
        self.inspector.data_edited.connect(lambda node_id, fields: self.set_node_data(node_id, **fields))
        self.inspector.port_edited.connect(lambda node_id, handle_id, label, script: self.edit_port(
            node_id, handle_id, label=label, port_script=script))
        self.inspector.port_added.connect(self.add_port)
        self.inspector.port_removed.connect(self.remove_port)
        self.inspector.new_script_requested.connect(self.new_script_for)
        self.inspector.open_requested.connect(lambda doc_id: open_document(self, doc_id))
        self.inspector.problem_chosen.connect(self.reveal_node)

    # ------------------------------------------------------------------ the document
    def apply_document(self, doc: dict[str, Any]) -> None:
        content = doc.get("content") if isinstance(doc.get("content"), dict) else {}
        tree = content.get("tree") if isinstance(content.get("tree"), dict) else {"nodes": [], "edges": []}
        if self.scene.node_items and tree == self.scene.graph.to_tree():
            return
        self._previews.clear()
        self.inspector.scripts = self._scripts(doc)
        selected = self.scene.selected_node_ids()
        self.scene.load(tree)
        self.scene.select_nodes(selected)
        self.undo_stack.clear()  # the patches were plans against the graph shown before
        self._show_summary()
        self.selection_changed()
        self.first_fit_later()

    def opening_fit(self) -> None:
        """On opening: the whole graph if it reads, else its start at a zoom that reads."""
        self.fit()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["tree"] = self.scene.graph.to_tree()
        return {"name": self.name_edit.text(), "content": content}

    def shown(self) -> None:
        self._follow_documents()
        if self._previews:  # a linked script may have changed while another tab was in front
            self._previews.clear()
            self.inspector.scripts = self._scripts(self.base)
            self.scene.refresh_previews()
            self.scene.refresh_problems()

    # ------------------------------------------------------------------ the other documents
    def _follow_documents(self) -> None:
        """Follow the session's changes of other documents (a linked script renamed, written
        in its tab or by a teammate, locked, deleted) once the editor is in its window."""
        host = host_of(self)
        if self._following or host is None:
            return
        self._following = True
        host.bridge.documents_changed.connect(self.documents_changed)

    def documents_changed(self, changes: list[DocumentChanged]) -> None:
        """Scripts changed: the list of scripts (their names), the nodes' first lines and
        problems, and the side panel follow; the panel's script text follows its document as
        the Script tab does (what is typed is kept)."""
        if self.session.closed:
            return
        known = {script_id for script_id, _name in self.inspector.scripts}
        writers = self.inspector.writers
        scripts = {c.id for c in changes if c.id != self.doc_id and (c.id in known or c.id in self._previews
                                                                     or self._is_script(c.id))}
        for change in changes:
            if writers is not None and change.id != self.doc_id:
                writers.external_change(change)
        if not scripts:
            return
        for script_id in scripts:
            self._previews.pop(script_id, None)
        self.inspector.scripts = self._scripts(self.base)
        self.scene.refresh_previews()
        self.scene.refresh_problems()
        self.selection_changed()

    def _script_typed(self, script_id: str, head: str) -> None:
        """Lines written in the side panel: the nodes linking that script show them as typed
        (the session's event for the save shows them as stored)."""
        self.refresh_script_preview(script_id, head)

    def _is_script(self, doc_id: str) -> bool:
        try:
            summary = self.session.index.get(doc_id)
        except Exception:  # noqa: BLE001 - the index is a convenience: without it, no script is followed
            return False
        return summary is not None and summary.type == "Script"

    # ------------------------------------------------------------------ saving the panel's script too
    @property
    def dirty(self) -> bool:
        """Unsaved: the graph, or a script's text typed in the side panel (the window saves
        and asks before closing as for any unsaved edit). While the dialogue's own revisions
        are weighed (a change from elsewhere), only the graph counts."""
        writers = getattr(getattr(self, "inspector", None), "writers", None)
        if getattr(self, "_graph_only", False) or writers is None:
            return self._graph_dirty
        return self._graph_dirty or writers.dirty

    @dirty.setter
    def dirty(self, value: bool) -> None:
        self._graph_dirty = value

    def mark_dirty(self, *_args: Any) -> None:
        """The graph changed (unsaved text in the side panel's script does not make it saved)."""
        if self._loading:
            return
        if not self._graph_dirty:
            self._graph_dirty = True
            self.state_changed.emit()
        self._autosave()

    def external_change(self, change: DocumentChanged) -> None:
        """The dialogue changed elsewhere: only an unsaved graph is kept aside from it (the side
        panel's script text belongs to another document and stays as typed)."""
        self._graph_only = True
        try:
            super().external_change(change)
        finally:
            self._graph_only = False

    def _saved(self, result: WriteResult) -> bool:
        """As any editor, and the graph shown takes the ids the gate gave the choice options (no
        undo step: they are the document's, not an edit)."""
        saved = super()._saved(result)
        content = result.doc.get("content")
        for place, handle in choice_options(content.get("tree") if isinstance(content, dict) else None):
            node_id, _, handle_id = place.partition("/")
            shown = self.scene.graph.handle(node_id, handle_id)
            if shown is not None and "lineId" in handle:
                shown["lineId"] = handle["lineId"]
        return saved

    def save(self) -> bool:
        """Save the graph (when it changed) and the scripts' text typed in the side panel."""
        writers = self.inspector.writers
        scripts_saved = writers.save() if writers is not None else True
        if not self._graph_dirty:
            self._autosave.cancel()
            return scripts_saved
        return super().save() and scripts_saved

    def stop(self) -> None:
        super().stop()
        if self.inspector.writers is not None:
            self.inspector.writers.stop()

    # ------------------------------------------------------------------ scripts
    def refresh_script_preview(self, script_id: str, text: str | None = None) -> None:
        """Show the first lines of script ``script_id`` again on every node linking it: ``text``
        when given (typed, not saved yet: what the side panel calls as its script is edited),
        else the script as stored."""
        if text is None:
            self._previews.pop(script_id, None)
        else:
            self._previews[script_id] = script_preview(text)
        self.scene.refresh_previews(script_id)

    def _scripts(self, doc: dict[str, Any]) -> list[tuple[str, str]]:
        """The project's scripts to link, the dialogue's script folder first, by name."""
        try:
            summaries = [s for s in self.session.index.summaries() if s.type == "Script"]
        except Exception:  # noqa: BLE001 - without the index, no scripts to offer
            return []
        folder = doc.get("dialogueScriptFolderID")
        summaries.sort(key=lambda s: (s.parent != folder, str(s.name or "").casefold()))
        return [(s.id, str(s.name or "Untitled")) for s in summaries]

    def _preview(self, script_id: str) -> list[str] | None:
        if script_id not in self._previews:
            try:
                doc = self.session.db.get(script_id)
            except Exception:  # noqa: BLE001 - a missing or unreadable script has no preview
                doc = None
            if doc is None or doc.get("type") != "Script":
                self._previews[script_id] = None
            else:
                text = (doc.get("content") or {}).get("script")
                self._previews[script_id] = script_preview(text if isinstance(text, str) else "")
        return self._previews[script_id]

    def _script_exists(self, script_id: str) -> bool:
        try:
            summary = self.session.index.get(script_id)
        except Exception:  # noqa: BLE001 - the index is a convenience: without it, ask the store
            return self._preview(script_id) is not None
        return summary is not None and summary.type == "Script"

    def new_script_for(self, node_id: str) -> str | None:
        """Create a Script for a script node (named after it, in the dialogue's script folder
        when it has one) and link it; returns its id, ``None`` when the project refused it."""
        node = self.scene.graph.node(node_id)
        if node is None:
            return None
        folder = self.base.get("dialogueScriptFolderID")
        parent = folder if isinstance(folder, str) and self._is_script_folder(folder) else None
        try:
            result = self.session.editor.create("Script", label_of(node), parent=parent, isDialogueScript=True,
                                                content={"script": ""})
        except StoryloomError as exc:
            self.banner.show_message("error", f"The script was not created: {exc}")
            return None
        self._previews.pop(result.id, None)
        self.inspector.scripts = self._scripts(self.base)
        self.set_node_data(node_id, scriptId=result.id)
        return result.id

    def _is_script_folder(self, folder_id: str) -> bool:
        summary = self.session.index.get(folder_id)
        return summary is not None and summary.type == "Folder" and summary.collection == "Script"

    # ------------------------------------------------------------------ commands
    def push(self, patch: Patch, select: list[str] | None = None) -> bool:
        """Apply ``patch`` as one undoable step; False when it changes nothing."""
        if patch.empty:
            return False
        return self.push_step(PatchCommand(self.scene, patch, lambda _patch, _forward: self.after_step(), select))

    def board_editable(self, editable: bool) -> None:
        """Locked by someone else: the graph can be looked at, searched and played, not changed."""
        self.palette_panel.setEnabled(editable)
        self.inspector.set_graph_editable(editable)  # the linked scripts have locks of their own
        self.scene.set_movable(editable)

    def add_node(self, node_type: str, x: float | None = None, y: float | None = None) -> str:
        """Add a node (when no point is given: at a free place in view, beside the selected node
        when there is room); returns its id (empty when the dialogue is read-only)."""
        if x is None or y is None:
            x, y = self.free_place(node_type)
        patch = self.scene.graph.add_node(node_type, x, y)
        node_id = self.scene.graph.added_node_id(patch) or ""
        if not self.push(patch, select=[node_id]):
            return ""
        item = self.scene.node_items.get(node_id)
        if item is not None:
            self.view.reveal(item.mapRectToScene(QRectF(0, 0, item.geometry.width, item.geometry.height)))
        self.view.setFocus()
        return node_id

    def free_place(self, node_type: str) -> tuple[int, int]:
        """Where a node of ``node_type`` added from the palette goes: never on another node, in
        the part of the view the palette and the minimap leave free."""
        planned = self.scene.graph.add_node(node_type, 0, 0).changes[0].after or {}
        geometry = node_geometry(planned)
        boxes = {node_id: (item.pos().x(), item.pos().y(), float(item.geometry.width), float(item.geometry.height))
                 for node_id, item in self.scene.node_items.items()}
        selected = self.scene.selected_node_ids()
        area = self.view.free_rect()
        return free_spot((geometry.width, geometry.height), list(boxes.values()),
                         (area.x(), area.y(), area.width(), area.height()),
                         boxes.get(selected[0]) if len(selected) == 1 else None)

    def link(self, source: str, source_handle: str, target: str, target_handle: str) -> bool:
        """Link an output to an input; False (and the reason shown) when the graph refuses it."""
        try:
            patch = self.scene.graph.connect(source, source_handle, target, target_handle)
        except ConnectionRefused as exc:
            self.hint_label.setText(f"Not linked: {exc}.")
            return False
        return self.push(patch)

    def _link_to_nothing(self, node_id: str, handle_id: str, from_output: bool, point: QPointF) -> None:
        """A link dropped on empty space: offer to add a node there, already linked."""
        if not from_output:
            return
        menu = QMenu(self)
        menu.setObjectName("addLinkedNode")
        for kind in NODE_KINDS.values():
            if kind.ins:
                action = menu.addAction(kind_icon(kind.type), f"Add {kind.title} here")
                action.setData(kind.type)
        chosen = menu.exec(self.view.mapToGlobal(self.view.mapFromScene(point)))
        if chosen is not None:
            self.add_linked_node(node_id, handle_id, str(chosen.data()), point)

    def add_linked_node(self, node_id: str, handle_id: str, node_type: str, point: QPointF) -> str:
        """Add a node at ``point`` and link output ``handle_id`` of ``node_id`` to it, in one step."""
        graph = self.scene.graph
        add = graph.add_node(node_type, point.x(), point.y() - 44)
        new_id = graph.added_node_id(add) or ""
        graph.apply(add)
        try:
            link = graph.connect(node_id, handle_id, new_id, ports(graph.node(new_id) or {}, "target")[0]["id"])
        finally:
            graph.revert(add)
        self.push(Patch(f"Add linked {NODE_KINDS[node_type].title} node", (*add.changes, *link.changes)), [new_id])
        return new_id

    def move_nodes(self, positions: dict[str, tuple[float, float]]) -> bool:
        return self.push(self.scene.graph.move(positions))

    def delete_selection(self) -> bool:
        return self.push(self.scene.graph.remove(self.scene.selected_node_ids(), self.scene.selected_edge_ids()))

    def set_node_data(self, node_id: str, **fields: Any) -> bool:
        return self.push(self.scene.graph.set_data(node_id, **fields))

    def edit_port(self, node_id: str, handle_id: str, *, label: str | None = None,
                  port_script: str | None = None) -> bool:
        return self.push(self.scene.graph.set_port(node_id, handle_id, label=label, port_script=port_script))

    def add_port(self, node_id: str) -> bool:
        return self.push(self.scene.graph.add_port(node_id))

    def remove_port(self, node_id: str, handle_id: str) -> bool:
        """Delete an output (and its link): one undoable step, announced in the footer."""
        node = self.scene.graph.node(node_id)
        handle = self.scene.graph.handle(node_id, handle_id)
        if node is None or handle is None or not self.push(self.scene.graph.remove_port(node_id, handle_id)):
            return False
        what = {"choice": "Option", "switch": "Case"}.get(kind_of(node).type, "Output")
        self.hint_label.setText(f"{what} “{handle.get('label', '')}” deleted — Ctrl+Z to undo.")
        return True

    def select_all(self) -> None:
        self.scene.select_nodes(list(self.scene.node_items))

    def auto_layout(self) -> bool:
        """Lay the whole graph out left to right (one undoable step), then show it all."""
        items = self.scene.node_items
        if not items:
            return False
        bounds = self.scene.graph_bounds()
        geometries = {node_id: item.geometry for node_id, item in items.items()}
        positions = layered_layout(self.scene.graph, geometries, (round(bounds.x() + 8), round(bounds.y() + 10)))
        done = self.push(self.scene.graph.move(positions, text="Auto layout"))
        self.fit()
        return done

    def fit(self) -> None:
        """The whole graph at a zoom that reads (never under :data:`READABLE_ZOOM`: a bigger graph
        shows from its start and scrolls), clear of the palette and the minimap."""
        self.view.fit(min_zoom=READABLE_ZOOM, anchor=self._start_point())
        self.show_zoom()

    def _start_point(self) -> QPointF | None:
        starts = [item for item in self.scene.node_items.values() if kind_of(item.node).type == "start"]
        if not starts and self.scene.node_items:
            starts = [min(self.scene.node_items.values(), key=lambda item: item.pos().x())]
        return starts[0].sceneBoundingRect().center() if starts else None

    def _toggle_minimap(self) -> None:
        self.view.minimap.setVisible(self.minimap_action.isChecked())

    # ------------------------------------------------------------------ clipboard
    def copy_selection(self) -> dict[str, Any] | None:
        """Put the selected nodes (and the links between them) on the clipboard."""
        selected = self.scene.selected_node_ids()
        if not selected:
            return None
        payload = self.scene.graph.copy(selected)
        data = QMimeData()
        text = json.dumps(payload)
        data.setData(CLIPBOARD_MIME, text.encode("utf-8"))
        data.setText(text)
        QApplication.clipboard().setMimeData(data)
        self._paste_count = 0
        return payload

    def cut_selection(self) -> bool:
        if self.copy_selection() is None:
            return False
        return self.push(self.scene.graph.remove(self.scene.selected_node_ids(), text="Cut"))

    def paste(self, payload: dict[str, Any] | None = None) -> list[str]:
        """Paste nodes from the clipboard (or ``payload``), offset a little more each time;
        returns the new nodes' ids (selected)."""
        if payload is None:
            data = QApplication.clipboard().mimeData()
            raw = bytes(data.data(CLIPBOARD_MIME).data()).decode("utf-8") if data.hasFormat(CLIPBOARD_MIME) \
                else data.text()
            try:
                payload = json.loads(raw)
            except ValueError:
                return []
        if not is_clipboard(payload):
            return []
        self._paste_count += 1
        step = PASTE_STEP * self._paste_count
        patch, new_ids = self.scene.graph.paste(payload, (step, step))
        self.push(patch, select=new_ids)
        return new_ids

    def duplicate_selection(self) -> list[str]:
        payload = self.scene.graph.copy(self.scene.selected_node_ids())
        if not payload["nodes"]:
            return []
        patch, new_ids = self.scene.graph.paste(payload, (PASTE_STEP, PASTE_STEP))
        patch = Patch(f"Duplicate {len(new_ids)} node{'s' if len(new_ids) != 1 else ''}", patch.changes)
        self.push(patch, select=new_ids)
        return new_ids

    # ------------------------------------------------------------------ menus and in-place edits
    def _context_menu(self, point: QPointF, item: Any, global_point: QPoint) -> None:
        self.context_menu(point, item).exec(global_point)

    def context_menu(self, point: QPointF, item: Any) -> QMenu:
        """The right-click menu at scene ``point`` over ``item`` (a node, a link or nothing)."""
        menu = QMenu(self)
        menu.setObjectName("graphMenu")
        if isinstance(item, NodeItem):
            node = item.node
            kind = kind_of(node)
            if kind.type == "script" and node.get("data", {}).get("scriptId"):
                menu.addAction(qta.icon("ph.arrow-square-out"), "Open script", lambda: self.open_node(item.node_id))
            if kind.type == "jump" and node.get("data", {}).get("jumpTo"):
                menu.addAction("Go to target", lambda: self.open_node(item.node_id))
            if kind.ports_editable:
                menu.addAction(qta.icon("ph.plus"), "Add output", lambda: self.add_port(item.node_id))
            menu.addAction("Rename", lambda: self.edit_in_place(item.node_id, "label"))
            menu.addSeparator()
            menu.addAction("Copy", self.copy_selection)
            menu.addAction("Duplicate", self.duplicate_selection)
            menu.addAction(qta.icon("ph.trash"), "Delete", self.delete_selection)
            return menu
        if isinstance(item, EdgeItem):
            menu.addAction(qta.icon("ph.trash"), "Delete link", self.delete_selection)
            return menu
        add = menu.addMenu(qta.icon("ph.plus"), "Add node")
        for kind in NODE_KINDS.values():
            add.addAction(kind_icon(kind.type), kind.title,
                          lambda t=kind.type: self.add_node(t, point.x(), point.y()))
        paste = menu.addAction("Paste", lambda: self.paste())
        paste.setEnabled(bool(QApplication.clipboard().text()))
        menu.addSeparator()
        menu.addAction("Select all", self.select_all)
        menu.addAction("Fit", self.fit)
        menu.addAction(qta.icon("ph.tree-structure"), "Auto layout", self.auto_layout)
        return menu

    def edit_in_place(self, node_id: str, what: str) -> Any:
        """Edit a node's title (``what`` ``"label"``) or an output's port script (``what`` its
        handle id) over the graph; returns the line edit."""
        item = self.scene.node_items.get(node_id)
        if item is None:
            return None
        if what == "label":
            editor = self.view.edit_in_place(item.label_rect(), label_of(item.node), "Label")
            editor.committed.connect(lambda text: self.set_node_data(node_id, label=text))
            return editor
        handle = self.scene.graph.handle(node_id, what)
        if handle is None:
            return None
        point = item.port_point(what)
        rect = item.mapRectToScene(item.boundingRect())
        rect.setTop(point.y() - 12)
        rect.setHeight(24)
        editor = self.view.edit_in_place(rect, str(handle.get("portScript") or ""),
                                         f"Port script of “{handle.get('label', '')}”: @set v.path = value",
                                         monospace=True)
        editor.committed.connect(lambda text: self.edit_port(node_id, what, port_script=text))
        return editor

    def open_node(self, node_id: str) -> None:
        """A script node opens its script; a jump shows its target."""
        node = self.scene.graph.node(node_id)
        if node is None:
            return
        data = node.get("data") if isinstance(node.get("data"), dict) else {}
        if kind_of(node).type == "script" and data.get("scriptId"):
            open_document(self, str(data["scriptId"]))
        elif kind_of(node).type == "jump" and data.get("jumpTo"):
            self.reveal_node(str(data["jumpTo"]))

    def reveal_node(self, node_id: str) -> None:
        item = self.scene.node_items.get(node_id)
        if item is not None:
            self.scene.clear_chosen_edges()
            self.scene.select_nodes([node_id])
            self.view.centerOn(item)

    def focus_match(self, field: str, line: int, column: int = 1, length: int = 0) -> None:
        """A search hit or a problem in ``content.tree.nodes.N…`` (or ``[N]``) selects and shows
        that node; in ``content.tree.edges.N…`` that link."""
        match = _TREE_PATH.match(field or "")
        if match is None:
            super().focus_match(field, line, column, length)
            return
        items = self.scene.graph.nodes if match["kind"] == "nodes" else self.scene.graph.edges
        index = int(match["index"])
        if index >= len(items) or not isinstance(items[index].get("id"), str):
            return
        if match["kind"] == "nodes":
            self.reveal_node(items[index]["id"])
            return
        edge = self.scene.edge_items.get(items[index]["id"])
        if edge is not None:
            self.scene.choose_edge(edge.edge_id)
            self.view.centerOn(edge.path().pointAtPercent(0.5))

    # ------------------------------------------------------------------ what the panels show
    def selection_changed(self) -> None:
        selected = self.scene.selected_node_ids()
        if len(selected) == 1 and (node := self.scene.graph.node(selected[0])) is not None:
            problems = [p for p in self.scene.problems if p.node_id == selected[0]]
            data = node.get("data") if isinstance(node.get("data"), dict) else {}
            preview = self._preview(str(data["scriptId"])) if data.get("scriptId") else None
            self.inspector.show_node(node, self.scene.graph, problems, preview)
            return
        labels = {i: label_of(item.node) for i, item in self.scene.node_items.items()}
        self.inspector.show_graph(self.scene.problems, len(self.scene.node_items), labels, len(selected))

    def _show_summary(self) -> None:
        nodes, links = len(self.scene.node_items), len(self.scene.edge_items)
        problems = len(self.scene.problems)
        text = f"{nodes} node{'s' if nodes != 1 else ''} · {links} link{'s' if links != 1 else ''}"
        self.summary_label.setText(text + (f" · {problems} problem{'s' if problems != 1 else ''}" if problems else
                                           " · no problems"))
