"""The explorer panel: the chosen collection's tree, with its commands and an empty state.

Create, rename, duplicate, delete and new folder are in the context menu and on shortcuts
(Ctrl+N, Ctrl+Shift+N, F2, Ctrl+D, Delete); drag and drop moves and reorders. Failures show in
a line over the tree, saying what happened, never as a dialog with a traceback."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import qtawesome as qta
from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import DocumentChanged, ProjectSession
from storyloom.app.views.outline import create_in, duplicate
from storyloom.errors import StoryloomError
from storyloom.gui.attachment_files import AttachmentFiles
from storyloom.gui.sidebar import ATTACHMENTS, SETTINGS, collection_label
from storyloom.gui.tree_model import ID_ROLE, CollectionTreeModel, MarkProvider
from storyloom.project import ATTACHMENT_TYPE


class ExplorerPanel(QWidget):
    """``open_requested(doc_id)`` when the user opens a document (double click or Enter)."""

    open_requested = Signal(str)
    #: Star or unstar the selected documents (their ids): the context menu's favourite entry.
    favourite_requested = Signal(list)

    def __init__(self, session: ProjectSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("explorer")
        self.session = session
        self.collection = ""
        self.model: CollectionTreeModel | None = None
        #: What documents are marked with (conflicts, locks): every tree model shown uses these.
        self.marks: list[MarkProvider] = []
        #: Whether a document is starred (set by the window's favourites), for the menu's wording.
        self.is_favourite: Callable[[str], bool] = lambda _doc_id: False
        #: The keys of the window's favourite command, shown beside the menu entry.
        self.favourite_keys = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 0)
        layout.setSpacing(8)
        header = QHBoxLayout()
        header.setContentsMargins(16, 0, 8, 0)
        header.setSpacing(4)
        self.title = QLabel()
        self.title.setObjectName("explorerTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        header.addWidget(self.title, 1)
        self.new_button = self._tool("ph.plus", "New document (Ctrl+N)", self.new_document)
        self.new_button.setObjectName("newDocument")
        self.folder_button = self._tool("ph.folder-plus", "New folder (Ctrl+Shift+N)", self.new_folder)
        header.addWidget(self.new_button)
        header.addWidget(self.folder_button)
        layout.addLayout(header)
        self.message = QLabel()
        self.message.setObjectName("explorerMessage")
        self.message.setWordWrap(True)
        self.message.setContentsMargins(16, 6, 16, 6)
        self.message.hide()
        layout.addWidget(self.message)
        self.stack = QStackedWidget()
        self.view = QTreeView()
        self.view.setObjectName("collectionTree")
        self.view.setHeaderHidden(True)
        self.view.setFrameShape(QTreeView.Shape.NoFrame)
        self.view.setUniformRowHeights(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.activated.connect(self._activated)
        self.empty = QLabel()
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty.setWordWrap(True)
        self.empty.setContentsMargins(24, 24, 24, 24)
        self.stack.addWidget(self.view)
        self.stack.addWidget(self.empty)
        layout.addWidget(self.stack, 1)
        self._expanded: set[str] = set()
        self.view.expanded.connect(lambda i: self._expanded.add(i.data(ID_ROLE)))
        self.view.collapsed.connect(lambda i: self._expanded.discard(i.data(ID_ROLE)))
        self.actions_by_name = self._make_actions()
        # Attachments: "+" and Ctrl+N add files; files dropped from the desktop are added too.
        self.attachment_files = AttachmentFiles(session, lambda: self.collection == ATTACHMENTS, self)
        self.attachment_files.accept_drops_on(self.view.viewport(), self.empty)
        self.attachment_files.failed.connect(self.show_message)
        self.attachment_files.added.connect(self._attachments_added)

    def _tool(self, icon: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setIcon(qta.icon(icon, color="#8a94a0"))
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _make_actions(self) -> dict[str, QAction]:
        specs = [
            ("new", "New Document", "Ctrl+N", self.new_document),
            ("folder", "New Folder", "Ctrl+Shift+N", self.new_folder),
            ("rename", "Rename", "F2", self.rename_selected),
            ("duplicate", "Duplicate", "Ctrl+D", self.duplicate_selected),
            ("delete", "Delete", QKeySequence(QKeySequence.StandardKey.Delete), self.delete_selected),
        ]
        actions = {}
        for name, text, keys, slot in specs:
            action = QAction(text, self)
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            actions[name] = action
        return actions

    # ------------------------------------------------------------------ the collection shown
    def set_collection(self, key: str) -> None:
        self.collection = key
        self.title.setText(collection_label(key).upper())
        self.message.hide()
        self._expanded.clear()
        tree = key not in (ATTACHMENTS, SETTINGS)
        self.new_button.setVisible(tree or key == ATTACHMENTS)
        self.new_button.setToolTip("Add files… (Ctrl+N), or drop files here" if key == ATTACHMENTS
                                   else "New document (Ctrl+N)")
        self.folder_button.setVisible(tree)
        if key == SETTINGS:
            self.model = None
            self.view.setModel(None)
            self._show_empty("Project settings open in a tab.\nChoose Project Settings again to bring it forward.")
            return
        self.model = CollectionTreeModel(self.session, key, self.view, marks=self.marks)
        self.model.failed.connect(self.show_message)
        self.view.setModel(self.model)
        self._update_empty()

    def _show_empty(self, text: str) -> None:
        self.empty.setText(text)
        self.stack.setCurrentWidget(self.empty)

    def _update_empty(self) -> None:
        if self.model is None:
            return
        if self.model.rowCount() == 0:
            label = collection_label(self.collection).lower()
            if self.collection == ATTACHMENTS:
                self._show_empty("No attachments yet.\nAdd images and files with + (Ctrl+N), or drop them here.")
            else:
                self._show_empty(f"No {label} yet.\nCreate one (Ctrl+N) or import a Drafft project.")
        else:
            self.stack.setCurrentWidget(self.view)

    def refresh(self, changes: Iterable[DocumentChanged]) -> None:
        """Follow the changes that touch the collection shown, row by row (the view keeps its
        open folders and selection); rebuild the tree when the rows cannot follow them."""
        if self.model is None:
            return
        wanted = {self.collection, ATTACHMENT_TYPE} if self.collection == ATTACHMENTS else {self.collection}
        shows = self.model.shows
        touching = [change for change in changes
                    if change.collection in wanted or change.collection is None or shows(change.id)]
        if not touching:
            return
        if self.model.apply(touching):
            self._expanded = {i for i in self._expanded if shows(i)}  # removed rows tell no collapse
            self._update_empty()
        else:
            self.rebuild()

    def rebuild(self) -> None:
        if self.model is None:
            return
        selected = self.selected_ids()
        current = self.view.currentIndex().data(ID_ROLE)
        expanded = set(self._expanded)
        self.model.rebuild()
        for doc_id in expanded:
            index = self.model.index_of(doc_id)
            if index.isValid():
                self.view.expand(index)
        self._expanded = {i for i in expanded if self.model.index_of(i).isValid()}
        for doc_id in selected:
            index = self.model.index_of(doc_id)
            if index.isValid():
                self.view.selectionModel().select(index, self.view.selectionModel().SelectionFlag.Select)
        if current:
            index = self.model.index_of(current)
            if index.isValid():
                self.view.selectionModel().setCurrentIndex(index, self.view.selectionModel().SelectionFlag.NoUpdate)
        self._update_empty()

    def reveal(self, doc_id: str) -> None:
        """Select ``doc_id`` in the tree, opening the folders above it."""
        if self.model is None:
            return
        index = self.model.index_of(doc_id)
        if not index.isValid():
            return
        parent = index.parent()
        while parent.isValid():
            self.view.expand(parent)
            parent = parent.parent()
        selection = self.view.selectionModel()
        selection.setCurrentIndex(index, selection.SelectionFlag.ClearAndSelect)
        self.view.scrollTo(index)

    # ------------------------------------------------------------------ commands
    def selected_ids(self) -> list[str]:
        if self.model is None:
            return []
        return [i.data(ID_ROLE) for i in self.view.selectionModel().selectedRows()]

    def _target_parent(self) -> str | None:
        """Where a new document goes: into the selected folder, or beside the selected document."""
        index = self.view.currentIndex()
        if self.model is None or not index.isValid():
            return None
        node = self.model.node(index)
        if node is not None and node.is_folder:
            return node.id
        parent = index.parent()
        return parent.data(ID_ROLE) if parent.isValid() else None

    def _tree_collection(self) -> bool:
        return self.model is not None and self.collection not in (ATTACHMENTS, SETTINGS)

    def new_document(self) -> None:
        if self.collection == ATTACHMENTS and self.model is not None:
            self.attachment_files.choose(self)
        elif self._tree_collection():
            self._create(folder=False)

    def new_folder(self) -> None:
        if self._tree_collection():
            self._create(folder=True)

    def _create(self, *, folder: bool) -> None:
        try:
            result = create_in(self.session.editor, self.collection, self._target_parent(), folder=folder)
        except StoryloomError as exc:
            self.show_message(f"Could not create: {exc}")
            return
        self.rebuild()
        self.reveal(result.id)
        if not folder:
            self.open_requested.emit(result.id)
        if self.model is not None:
            self.view.edit(self.model.index_of(result.id))

    def rename_selected(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.view.edit(index)

    def duplicate_selected(self) -> None:
        for doc_id in self.selected_ids():
            try:
                result = duplicate(self.session.editor, doc_id)
            except (StoryloomError, ValueError) as exc:
                self.show_message(f"Could not duplicate: {exc}")
                return
            self.rebuild()
            self.reveal(result.id)

    def delete_selected(self, *, confirm: bool = True) -> None:
        ids = self.selected_ids()
        if not ids or self.model is None:
            return
        nodes = [node for node in (self.model.node(self.model.index_of(i)) for i in ids) if node is not None]
        folders = [node for node in nodes if node.is_folder]
        names = [node.name for node in nodes]
        if confirm:
            what = f"“{names[0]}”" if len(names) == 1 else f"{len(names)} items"
            detail = " Folders are deleted with everything inside them." if folders else ""
            answer = QMessageBox.question(
                self, "Delete", f"Delete {what}?{detail}",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        for doc_id in ids:
            try:
                if self.session.index.get(doc_id) is not None:
                    self.session.editor.delete(doc_id, recursive=True)
            except StoryloomError as exc:
                self.show_message(f"Could not delete: {exc}")
                break
        self.rebuild()

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def _activated(self, index: QModelIndex) -> None:
        if self.model is None:
            return
        node = self.model.node(index)
        if node is not None and not node.is_folder:
            self.open_requested.emit(node.id)

    def _attachments_added(self, ids: list[str]) -> None:
        self.rebuild()
        self.reveal(ids[0])
        self.open_requested.emit(ids[0])

    def _context_menu(self, point: QPoint) -> None:
        if self.collection == ATTACHMENTS and self.model is not None:
            self._attachments_menu(point)
            return
        if not self._tree_collection():
            return
        menu = QMenu(self)
        selected = bool(self.selected_ids())
        for name in ("new", "folder"):
            menu.addAction(self.actions_by_name[name])
        menu.addSeparator()
        for name in ("rename", "duplicate", "delete"):
            action = self.actions_by_name[name]
            action.setEnabled(selected)
            menu.addAction(action)
        self._favourite_entry(menu)
        menu.exec(self.view.viewport().mapToGlobal(point))
        for name in ("rename", "duplicate", "delete"):
            self.actions_by_name[name].setEnabled(True)

    def _favourite_entry(self, menu: QMenu) -> None:
        """"Add to Favourites" (or "Remove from…" when every selected document is starred)."""
        ids = [i for i in self.selected_ids()
               if (node := self.model.node(self.model.index_of(i)) if self.model else None) is not None
               and not node.is_folder]
        if not ids:
            return
        starred = all(self.is_favourite(i) for i in ids)
        text = "Remove from Favourites" if starred else "Add to Favourites"
        menu.addSeparator()
        action = menu.addAction(qta.icon("ph.star-fill" if starred else "ph.star", color="#d9a400"),
                                f"{text}\t{self.favourite_keys}" if self.favourite_keys else text)
        action.setObjectName("favouriteEntry")
        action.triggered.connect(lambda _checked=False: self.favourite_requested.emit(ids))

    def _attachments_menu(self, point: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction(qta.icon("ph.plus", color="#8a94a0"), "Add Files…", lambda: self.attachment_files.choose(self))
        if self.selected_ids():
            menu.addSeparator()
            for name in ("rename", "delete"):
                menu.addAction(self.actions_by_name[name])
        menu.exec(self.view.viewport().mapToGlobal(point))
