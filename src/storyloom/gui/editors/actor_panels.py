"""The actor editor's own sections, under its biography: the Expressions strip (each expression's
image with its name and how many lines use it) and All lines (every line the actor speaks, each a
jump to its script at that line, or to a dialogue node that plays it).

The rules are :mod:`storyloom.app.views.actor_view`'s and the query
:func:`storyloom.project.actor_lines`; the lines are counted on a worker thread (the first count
of a 10,000-document project reads its scripts once), and again when a Script, a Dialogue or an
Actor changes (the session's changes, a moment after they stop)."""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.attachments import AttachmentImages
from storyloom.app.views.actor_view import (
    ExpressionTile,
    LineRow,
    line_rows,
    lines_heading,
    node_jump_label,
)
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.host import host_of
from storyloom.gui.tasks import Task
from storyloom.project import ActorLines, actor_lines

TILE = 88  # the side of an expression's image, in logical pixels
_ROW_DATA = Qt.ItemDataRole.UserRole


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


class ExpressionStrip(QWidget):
    """The actor's expressions as image tiles, in one scrolling row."""

    def __init__(self, images: AttachmentImages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images = images
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.title = _heading("Expressions")
        layout.addWidget(self.title)
        self.list = QListWidget()
        self.list.setObjectName("actorExpressions")
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setFlow(QListView.Flow.LeftToRight)
        self.list.setWrapping(False)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setIconSize(QSize(TILE, TILE))
        self.list.setGridSize(QSize(TILE + 36, TILE + 34))
        self.list.setFixedHeight(TILE + 46)  # the tiles and a horizontal scroll bar
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        layout.addWidget(self.list)
        self.empty = QLabel("No expression images yet: add one to the actor's expressions "
                            "(an image from the Attachments).")
        self.empty.setObjectName("actorExpressionsEmpty")
        self.empty.setWordWrap(True)
        layout.addWidget(self.empty)
        self.tiles: list[ExpressionTile] = []

    def show_tiles(self, tiles: list[ExpressionTile]) -> None:
        self.tiles = tiles
        self.list.clear()
        for tile in tiles:
            icon, reason = self._icon(tile)
            item = QListWidgetItem(icon, tile.caption)
            item.setToolTip(tile.tooltip + (f"\n{reason}" if reason else ""))
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.list.addItem(item)
        listed = sum(1 for tile in tiles if tile.listed)
        self.title.setText(f"Expressions ({listed})" if listed else "Expressions")
        self.list.setVisible(bool(tiles))
        self.empty.setVisible(not tiles)

    def _icon(self, tile: ExpressionTile) -> tuple[QIcon, str]:
        """The tile's image, or an icon and the reason it has none."""
        colours = theme.colors()
        if not tile.listed:
            return qta.icon("ph.image-square", color=colours.warning), ""
        try:
            found = self.images.load(tile.source) if tile.source else None
        except StoryloomError as exc:  # a store closing or damaged under the editor: the image is not shown
            return qta.icon("ph.selection-slash", color=colours.disabled), f"Image not shown: {exc}"
        image = QImage.fromData(found.data) if found is not None and found.data else QImage()
        if image.isNull():
            reason = found.placeholder if found is not None and found.kind != "attachment" else (
                "Image not shown: no image source" if found is None else "Image not shown: not a picture Qt reads")
            return qta.icon("ph.selection-slash", color=colours.disabled), reason
        ratio = self.devicePixelRatioF() or 1.0
        side = round(TILE * ratio)
        scaled = image.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio,
                              Qt.TransformationMode.SmoothTransformation)
        pixmap = QPixmap.fromImage(scaled)
        pixmap.setDevicePixelRatio(ratio)
        return QIcon(pixmap), ""


class ActorLinesView(QWidget):
    """All lines: a table of Document, Line, Expression, Text; double-click (or Enter) opens the
    script at the line, the context menu also shows each dialogue node that plays it.
    ``counted(found)`` after each count."""

    counted = Signal(object)

    def __init__(self, session: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.name = ""
        self.found: ActorLines | None = None
        self.rows: list[LineRow] = []
        self._task: Task | None = None
        self._again = False
        self._stopped = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.title = _heading(lines_heading(None))
        layout.addWidget(self.title)
        self.table = QTreeWidget()
        self.table.setObjectName("actorLines")
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setHeaderLabels(["Document", "Line", "Expression", "Text"])
        header = self.table.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 160)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(2, 90)
        self.table.itemActivated.connect(lambda item, _column: self.open_row(self.table.indexOfTopLevelItem(item)))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        layout.addWidget(self.table, 1)

    # ------------------------------------------------------------------ counting
    def count(self, name: str) -> None:
        """Count the lines of the actor ``name`` on a worker thread (again after one in progress)."""
        self.name = name
        if self._stopped or getattr(self.session, "closed", False):
            return
        if self._task is not None:
            self._again = True
            return
        db, index = self.session.db, self.session.index
        self._task = Task(lambda: actor_lines(db, index, name), "Counting the actor's lines", self)
        self._task.succeeded.connect(self._counted)
        self._task.failed.connect(self._failed)
        self._task.start()

    def wait(self) -> None:
        """Block until the count in progress is shown (tests, screenshots)."""
        from PySide6.QtCore import QCoreApplication

        while self._task is not None:
            self._task.wait()
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents()

    def stop(self) -> None:
        """Before the session closes: wait for a count in progress, show nothing more."""
        self._stopped = True
        if self._task is not None:
            self._task.wait()

    def _release_task(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.release()

    @property
    def stopped(self) -> bool:
        return self._stopped or bool(getattr(self.session, "closed", False))

    def _counted(self, found: ActorLines) -> None:
        self._release_task()
        if self.stopped:  # the window closed while counting: its store is gone
            return
        if self._again:
            self._again = False
            self.count(self.name)
            return
        self.show_lines(found)
        self.counted.emit(found)

    def _failed(self, error: object) -> None:
        self._release_task()
        if self.stopped:
            return
        self.title.setText(f"All lines (could not count them: {error})")

    def show_lines(self, found: ActorLines) -> None:
        self.found = found
        self.rows = line_rows(found)
        self.title.setText(lines_heading(found))
        self.table.clear()
        items = []
        for row in self.rows:
            item = QTreeWidgetItem([row.document, row.number, row.expression, row.text])
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for column in range(4):
                item.setToolTip(column, row.tooltip)
            items.append(item)
        self.table.addTopLevelItems(items)

    # ------------------------------------------------------------------ jumps
    def open_row(self, index: int) -> bool:
        """Open the script of row ``index`` at its line."""
        if not 0 <= index < len(self.rows):
            return False
        host = host_of(self)
        if host is None:
            return False
        row = self.rows[index]
        return host.open_at(row.doc_id, row.line)

    def open_node(self, index: int, node_index: int = 0) -> bool:
        """Open the dialogue of row ``index``'s ``node_index``-th node with that node shown."""
        if not 0 <= index < len(self.rows) or not 0 <= node_index < len(self.rows[index].nodes):
            return False
        host = host_of(self)
        if host is None:
            return False
        node = self.rows[index].nodes[node_index]
        if not host.open_document(node.dialogue_id):
            return False
        editor = host.tabs.editor(node.dialogue_id)
        reveal = getattr(editor, "reveal_node", None)
        if callable(reveal):
            reveal(node.node_id)
        return True

    def row_actions(self, index: int) -> list[tuple[str, Any]]:
        """The context menu of row ``index``: (text, what it does)."""
        row = self.rows[index]
        actions: list[tuple[str, Any]] = [(f"Open “{row.document}” at line {row.line}", lambda: self.open_row(index))]
        for n, node in enumerate(row.nodes):
            actions.append((node_jump_label(node), lambda n=n: self.open_node(index, n)))
        return actions

    def _menu(self, pos: QPoint) -> None:
        item = self.table.itemAt(pos)
        if item is None:
            return
        index = self.table.indexOfTopLevelItem(item)
        menu = QMenu(self)
        for text, slot in self.row_actions(index):
            menu.addAction(text).triggered.connect(lambda _checked=False, slot=slot: slot())
        menu.exec(self.table.viewport().mapToGlobal(pos))
