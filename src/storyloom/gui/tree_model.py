"""One collection's folder tree as a Qt model, read from the session's index a level at a time.

The rows come from :func:`storyloom.app.views.outline.read_top` and
:func:`~storyloom.app.views.outline.read_children` (folders first, each group in the user's
order): the top level when the tree is built, a folder's children when the view first asks for
them (it is opened, or a row inside it is revealed), so opening a 100,000-document project
reads a few thousand rows, not every summary. What is not read yet is there all the same:
``rowCount`` of a folder reads it first, so the view and Qt's bookkeeping never see a folder
change its row count without being told; a change inside a folder not read yet shows nothing
(the folder reads the index as it is then). Renaming (inline editing) and drag and drop send their intent to the
session's editor (``rename``, ``move``), and the change comes back as an event. The session's
changes are followed row by row (:meth:`CollectionTreeModel.apply`): a save that changes nothing
the tree shows (the autosave of a script being typed) costs a dictionary look-up, not a rebuild
of a 10,000-document tree; a rename repaints its row, a move, a creation or a deletion moves,
inserts or removes rows, so the view keeps its open folders and selection. What is not simple
that way (a parent cycle, an orphan finding its parent, a folder turned document) is left to a
rebuild. Attachments, which have no tree, are listed flat by name.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QIcon

from storyloom.app import DocumentChanged, ProjectSession
from storyloom.app.views.outline import (
    OutlineNode,
    can_move_into,
    display_name,
    drop_placement,
    read_children,
    read_top,
)
from storyloom.errors import StoryloomError
from storyloom.gui import icons, theme
from storyloom.gui.sidebar import ATTACHMENTS, collection_icon
from storyloom.project import ATTACHMENT_TYPE, FOLDER_TYPE, DocSummary
from storyloom.words import counted

MIME_TYPE = "application/x-storyloom-ids"
ID_ROLE = Qt.ItemDataRole.UserRole
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex
#: What a document is marked with in the tree and its tab (in conflict, locked...): an icon
#: that replaces the collection's, and a sentence added to the tooltip; ``None`` when nothing.
MarkProvider = Callable[[str], tuple[QIcon, str] | None]


def document_mark(marks: list[MarkProvider], doc_id: str) -> tuple[QIcon | None, list[str]]:
    """The first provider's icon for ``doc_id`` and every provider's sentence."""
    icon: QIcon | None = None
    texts: list[str] = []
    for provider in marks:
        mark = provider(doc_id)
        if mark is not None:
            icon = icon or mark[0]
            texts.append(mark[1])
    return icon, texts


class CollectionTreeModel(QAbstractItemModel):
    """The tree of ``collection`` (an app name, or :data:`ATTACHMENTS`).

    ``failed(str)`` carries what went wrong with a rename or a move, for the panel to show."""

    failed = Signal(str)

    def __init__(self, session: ProjectSession, collection: str, parent: Any = None,
                 marks: list[MarkProvider] | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.collection = collection
        self.marks: list[MarkProvider] = marks if marks is not None else []
        self._roots: list[OutlineNode] = []
        self._parents: dict[str, OutlineNode | None] = {}
        self._by_id: dict[str, OutlineNode] = {}
        self._cut: set[str] = set()  # where parent cycles are cut (shown at the top)
        self._folder_icon = icons.icon("folder", theme.colors().muted)
        self._doc_icon = collection_icon(collection)
        self.rebuild()

    # ------------------------------------------------------------------ building
    def rebuild(self) -> None:
        """Read the tree again from the index, its top level at once and each folder when it is
        asked for (the view keeps its expanded folders: see the panel)."""
        index = self.session.index
        self.beginResetModel()
        if self.collection == ATTACHMENTS:
            attachments = [s for s in map(index.get, index.ids_of_type(ATTACHMENT_TYPE)) if s is not None]
            self._roots = sorted(
                (OutlineNode(s.id, display_name(s.name), False, None, s.order) for s in attachments),
                key=lambda n: (n.name.lower(), n.id),
            )
            self._cut = set()
        else:
            self._roots, self._cut = read_top(index, self.collection)
        self._parents = {node.id: None for node in self._roots}
        self._by_id = {node.id: node for node in self._roots}
        self.endResetModel()

    def _read(self, node: OutlineNode) -> list[OutlineNode]:
        """``node``'s children, read from the index the first time they are asked for."""
        if not node.loaded:
            node.loaded = True
            if node.is_folder or node.has_children:
                # A row read already stays where it is until its change comes (it is moving here).
                node.children = [child for child in read_children(self.session.index, self.collection, node.id,
                                                                  self._cut) if child.id not in self._by_id]
                for child in node.children:
                    self._parents[child.id] = node
                    self._by_id[child.id] = child
        return node.children

    # ------------------------------------------------------------------ following changes
    def apply(self, changes: Iterable[DocumentChanged]) -> bool:
        """Follow the session's ``changes`` row by row (rows repainted, moved, inserted, removed);
        False when one of them needs a :meth:`rebuild` (the rows may be half updated by then:
        the caller rebuilds)."""
        return all(self._apply_one(doc_id) for doc_id in dict.fromkeys(change.id for change in changes))

    def _row_of(self, summary: DocSummary | None) -> tuple[str, bool, str | None, tuple[str, str]] | None:
        """What this tree shows of a document (name, is folder, stored parent, order), ``None``
        when it is not in it."""
        if summary is None:
            return None
        if self.collection == ATTACHMENTS:
            if summary.type != ATTACHMENT_TYPE:
                return None
            return display_name(summary.name), False, None, summary.order
        if not summary.is_tree or summary.collection != self.collection:
            return None
        return display_name(summary.name), summary.type == FOLDER_TYPE, summary.parent, summary.order

    def _apply_one(self, doc_id: str) -> bool:
        wanted = self._row_of(self.session.index.get(doc_id))
        node = self._by_id.get(doc_id)
        if wanted is None:
            return node is None or self._remove(node)
        name, is_folder, parent, order = wanted
        shown, parent_node = self._place(doc_id, parent)
        if node is None:
            if not shown:
                return True  # inside a folder not read yet: read as it is when it is
            return self._insert(OutlineNode(doc_id, name, is_folder, parent, order, loaded=False), parent_node)
        if is_folder != node.is_folder:
            return False
        if name != node.name:
            node.name = name
            index = self.index_of(doc_id)
            self.dataChanged.emit(index, index)
            if self.collection == ATTACHMENTS:  # listed by name: the row may go elsewhere
                return self._move(node, None, None, order)
        if (parent, order) != (node.parent, node.order):
            if not shown:
                if doc_id in self.session.index.ancestors(doc_id, catch_up=False):
                    return False  # a parent cycle (replicated concurrent moves): cut where a rebuild cuts it
                return self._drop(node)  # into a folder not read yet
            return self._move(node, parent_node, parent, order)
        return True

    def _key(self, node: OutlineNode) -> tuple[Any, ...]:
        """Where a row goes among its siblings (as :meth:`rebuild` orders them)."""
        if self.collection == ATTACHMENTS:
            return (node.name.lower(), node.id)
        return (not node.is_folder, node.order)

    def _place(self, doc_id: str, parent: str | None) -> tuple[bool, OutlineNode | None]:
        """Where a document whose stored parent is ``parent`` shows: ``(False, ...)`` inside a
        folder not read yet; else ``(True, the row it goes under)`` (``None``: the top; a parent
        not in this tree shows its children at the top, as :func:`build_outline` does)."""
        if parent is None or parent == doc_id or self.collection == ATTACHMENTS or doc_id in self._cut:
            return True, None
        node = self._by_id.get(parent)
        if node is not None:
            return node.loaded, node
        if self._row_of(self.session.index.get(parent, catch_up=False)) is not None:
            return False, None  # in this tree, inside a folder not read yet
        return True, None

    def _position(self, siblings: list[OutlineNode], node: OutlineNode) -> int:
        return bisect_left(siblings, self._key(node), key=self._key)

    def _insert(self, node: OutlineNode, parent: OutlineNode | None) -> bool:
        if any(root.parent == node.id for root in self._roots):
            return False  # an orphan finds its parent: it moves under it (a rebuild)
        siblings = parent.children if parent is not None else self._roots
        row = self._position(siblings, node)
        self.beginInsertRows(self._index_of_node(parent), row, row)
        siblings.insert(row, node)
        self._parents[node.id] = parent
        self._by_id[node.id] = node
        self.endInsertRows()
        return True

    def _remove(self, node: OutlineNode) -> bool:
        below = self._descendants(node)
        if any(self._row_of(self.session.index.get(child.id)) is not None for child in below):
            return False  # what stays of the folder's content goes to the top (a rebuild)
        if (not node.loaded and (node.is_folder or node.has_children)
                and self.session.index.tree_children(node.id, self.collection, catch_up=False)):
            return False  # so does what stays inside a folder not read yet
        return self._drop(node)

    def _drop(self, node: OutlineNode) -> bool:
        """Take ``node``'s row away, with what is read below it."""
        below = self._descendants(node)
        siblings = self._siblings_of(node)
        row = siblings.index(node)
        self.beginRemoveRows(self._index_of_node(self._parents.get(node.id)), row, row)
        del siblings[row]
        for gone in (node, *below):
            self._by_id.pop(gone.id, None)
            self._parents.pop(gone.id, None)
        self.endRemoveRows()
        return True

    def _move(self, node: OutlineNode, parent: OutlineNode | None, parent_id: str | None,
              order: tuple[str, str]) -> bool:
        if parent is node or (parent is not None and parent in self._descendants(node)):
            return False  # a parent cycle (replicated concurrent moves): cut where a rebuild cuts it
        old_parent = self._parents.get(node.id)
        old_siblings = self._siblings_of(node)
        old_row = old_siblings.index(node)
        new_siblings = self._read(parent) if parent is not None else self._roots
        # Where it goes, counted without it (as the lists are once it has left its place).
        others = [n for n in new_siblings if n is not node]
        moved = OutlineNode(node.id, node.name, node.is_folder, parent_id, order)
        row = self._position(others, moved)
        node.parent, node.order = parent_id, order
        if old_parent is parent and row == old_row:
            return True  # the same place: nothing to show
        # Qt counts the destination row before the move: past the old row when moving down.
        destination = row + 1 if old_parent is parent and row > old_row else row
        if not self.beginMoveRows(self._index_of_node(old_parent), old_row, old_row,
                                  self._index_of_node(parent), destination):
            return False
        del old_siblings[old_row]
        new_siblings.insert(row, node)
        self._parents[node.id] = parent
        self.endMoveRows()
        return True

    def _descendants(self, node: OutlineNode) -> list[OutlineNode]:
        found: list[OutlineNode] = []
        stack = list(node.children)
        while stack:
            current = stack.pop()
            found.append(current)
            stack.extend(current.children)
        return found

    def _index_of_node(self, node: OutlineNode | None) -> QModelIndex:
        return QModelIndex() if node is None else self.index_of(node.id)

    def shows(self, doc_id: str) -> bool:
        """Whether ``doc_id`` has a row read in this tree (what is not read yet follows no change)."""
        return doc_id in self._by_id

    def node(self, index: Index) -> OutlineNode | None:
        return index.internalPointer() if index.isValid() else None

    def index_of(self, doc_id: str) -> QModelIndex:
        """The index of ``doc_id``'s row (invalid when it is not in this tree), the folders above
        it read when they are not yet."""
        node = self._by_id.get(doc_id) or self._read_down_to(doc_id)
        if node is None:
            return QModelIndex()
        return self.createIndex(self._siblings_of(node).index(node), 0, node)

    def _read_down_to(self, doc_id: str) -> OutlineNode | None:
        """Read the folders from the top down to ``doc_id``'s; its node (``None``: not in this tree)."""
        if self._row_of(self.session.index.get(doc_id)) is None:
            return None
        for ancestor in reversed(self.session.index.ancestors(doc_id, catch_up=False)):
            node = self._by_id.get(ancestor)
            if node is not None:
                self._read(node)
        return self._by_id.get(doc_id)

    def _siblings_of(self, node: OutlineNode) -> list[OutlineNode]:
        parent = self._parents.get(node.id)
        return parent.children if parent is not None else self._roots

    # ------------------------------------------------------------------ the model interface
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        children = self._children(parent)
        if column != 0 or not 0 <= row < len(children):
            return QModelIndex()
        return self.createIndex(row, 0, children[row])

    def _children(self, parent: Index) -> list[OutlineNode]:
        node = self.node(parent)
        return self._read(node) if node is not None else self._roots

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        node = self.node(index)
        if node is None:
            return QModelIndex()
        parent = self._parents.get(node.id)
        if parent is None:
            return QModelIndex()
        return self.createIndex(self._siblings_of(parent).index(parent), 0, parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.column() > 0:
            return 0
        return len(self._children(parent))

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        node = self.node(parent)
        if node is None:
            return bool(self._roots)
        return node.is_folder or (bool(node.children) if node.loaded else node.has_children)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self.node(index)
        if node is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return node.name
        if role == Qt.ItemDataRole.DecorationRole:
            if node.is_folder:
                return self._folder_icon
            return (document_mark(self.marks, node.id)[0] if self.marks else None) or self._doc_icon
        if role == Qt.ItemDataRole.ToolTipRole:
            if node.is_folder:
                return f"{node.name} (folder, {counted(len(self._read(node)), 'item')})"
            return "\n".join([node.name, *document_mark(self.marks, node.id)[1]])
        if role == ID_ROLE:
            return node.id
        if role == FOLDER_ROLE:
            return node.is_folder
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        tree = self.collection != ATTACHMENTS
        node = self.node(index)
        if node is None:
            return Qt.ItemFlag.ItemIsDropEnabled if tree else Qt.ItemFlag.NoItemFlags
        flags = base | Qt.ItemFlag.ItemIsEditable
        if tree:
            flags |= Qt.ItemFlag.ItemIsDragEnabled
            if node.is_folder:
                flags |= Qt.ItemFlag.ItemIsDropEnabled
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        node = self.node(index)
        if node is None or role != Qt.ItemDataRole.EditRole:
            return False
        name = str(value).strip()
        if not name or name == node.name:
            return False
        try:
            self.session.editor.rename(node.id, name)
        except StoryloomError as exc:
            self.failed.emit(f"Could not rename {node.name!r}: {exc}")
            return False
        node.name = name  # shown at once; the change event then finds the row as it is
        self.dataChanged.emit(index, index)
        return True

    # ------------------------------------------------------------------ drag and drop
    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:
        ids = list(dict.fromkeys(n.id for n in (self.node(i) for i in indexes) if n is not None))
        data = QMimeData()
        data.setData(MIME_TYPE, json.dumps(ids).encode("utf-8"))
        return data

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: Index) -> bool:
        if not data.hasFormat(MIME_TYPE) or self.collection == ATTACHMENTS:
            return False
        target = self.node(parent)
        if target is not None and not target.is_folder:
            return False
        parent_id = target.id if target is not None else None
        return all(can_move_into(self.session.editor, doc_id, parent_id) for doc_id in _ids(data))

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: Index) -> bool:
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        target = self.node(parent)
        siblings = [n.id for n in self._children(parent)]
        ids = _ids(data)
        return self.move(ids, target.id if target is not None else None, drop_placement(
            target.id if target is not None else None, siblings, row, ids).before)

    def move(self, ids: list[str], parent: str | None, before: str | None) -> bool:
        """Move ``ids`` under ``parent`` before ``before`` (``None``: at the end), in their order."""
        try:
            for doc_id in ids:
                if not can_move_into(self.session.editor, doc_id, parent):
                    raise StoryloomError("a folder cannot go inside itself")
                self.session.editor.move(doc_id, parent, before=before)
        except StoryloomError as exc:
            self.failed.emit(f"Could not move: {exc}")
            return False
        # The rows move when the changes come back as events (queued: after the view has
        # finished the drop, which a change of rows inside it would confuse).
        return True


def _ids(data: QMimeData) -> list[str]:
    try:
        ids = json.loads(bytes(data.data(MIME_TYPE).data()).decode("utf-8"))
    except ValueError:
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
