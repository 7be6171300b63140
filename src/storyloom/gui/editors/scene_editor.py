"""The Scene editor: an ordered playlist of scripts and dialogues, played through the player.

Add a script or a dialogue (type its name in the box, Enter), drag items to reorder them (or
Alt+Up / Alt+Down), remove one (Delete), choose where each starts (a script's line, a
dialogue's node), open an item's document, and play the scene, or the scene from the selected
item. Every step is an undoable command (Ctrl+Z, Ctrl+Shift+Z); the items are saved through
the editor gate as ``content.items`` like every other edit. The rules are
:mod:`storyloom.play.scenes`'.
"""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QIcon,
    QKeySequence,
    QPainter,
    QPen,
    QShortcut,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from storyloom.gui import icons, theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.host import host_of
from storyloom.gui.theme import scaled_font
from storyloom.gui.widgets import set_role
from storyloom.play.play_session import read_doc
from storyloom.play.scenes import (
    SceneItemError,
    describe_items,
    insert_item,
    line_choices,
    move_item,
    new_item,
    node_choices,
    remove_item,
    scene_items,
    scene_program,
    set_start,
)
from storyloom.words import counted


class _ItemsCommand(QUndoCommand):
    """One edit of the playlist: the items before and after (and the row to select after)."""

    def __init__(self, editor: SceneEditor, text: str, before: list[dict[str, Any]], after: list[dict[str, Any]],
                 row: int) -> None:
        super().__init__(text)
        self.editor, self.before, self.after, self.row = editor, before, after, row

    def redo(self) -> None:
        self.editor.set_items(self.after, self.row)

    def undo(self) -> None:
        self.editor.set_items(self.before, self.row)


class _Playlist(QListWidget):
    """The items, reordered by dragging; Edit > Undo and Redo reach the editor's stack here."""

    def __init__(self, editor: SceneEditor) -> None:
        super().__init__()
        self.editor = editor

    def undo(self) -> None:
        self.editor.undo_stack.undo()

    def redo(self) -> None:
        self.editor.undo_stack.redo()


_TITLE_ROLE = Qt.ItemDataRole.UserRole + 1
_SUBTITLE_ROLE = Qt.ItemDataRole.UserRole + 2
_PROBLEM_ROLE = Qt.ItemDataRole.UserRole + 3


class _ItemDelegate(QStyledItemDelegate):
    """An item as a card: the type's icon, the number and name, where it starts (muted), and
    its problem (in the danger colour)."""

    HEIGHT = 56

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(120, self.HEIGHT)  # the list gives every row its full width

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        c = theme.colors()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = option.rect.adjusted(2, 2, -2, -2)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        fill = QColor(c.accent)
        fill.setAlphaF(0.16 if c.dark else 0.12)
        painter.setPen(QPen(QColor(c.accent if selected else c.border), 1))
        painter.setBrush(fill if selected else QColor(c.surface_alt if hovered else c.surface))
        painter.drawRoundedRect(rect, 6, 6)
        icon = index.data(Qt.ItemDataRole.DecorationRole)
        size = 22
        if isinstance(icon, QIcon):
            icon.paint(painter, QRect(rect.left() + theme.M, rect.center().y() - size // 2, size, size))
        left = rect.left() + theme.M + size + theme.M
        width = rect.right() - left - theme.M
        title_font = scaled_font(option.font, 0, bold=True)
        painter.setFont(title_font)
        painter.setPen(QColor(c.text))
        title_rect = QRect(left, rect.top() + 8, width, rect.height() // 2 - 6)
        metrics = QFontMetrics(title_font)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(str(index.data(_TITLE_ROLE) or ""), Qt.TextElideMode.ElideRight, width))
        problem = str(index.data(_PROBLEM_ROLE) or "")
        painter.setFont(option.font)
        painter.setPen(QColor(c.danger if problem else c.muted))
        sub_rect = QRect(left, rect.top() + rect.height() // 2, width, rect.height() // 2 - 8)
        text = problem or str(index.data(_SUBTITLE_ROLE) or "")
        painter.drawText(sub_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         QFontMetrics(option.font).elidedText(text, Qt.TextElideMode.ElideRight, width))
        painter.restore()


class SceneEditor(DocumentEditor):
    def build_body(self) -> QWidget:
        self.items: list[dict[str, Any]] = []
        self.undo_stack = QUndoStack(self)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(theme.XL, 0, theme.XL, theme.L)
        layout.setSpacing(theme.M)
        layout.addLayout(self._toolbar())
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._playlist_column())
        splitter.addWidget(self._detail_panel())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)
        for keys, slot in ((QKeySequence.StandardKey.Undo, self.undo_stack.undo),
                           (QKeySequence.StandardKey.Redo, self.undo_stack.redo),
                           ("Ctrl+Shift+Z", self.undo_stack.redo)):
            shortcut = QShortcut(QKeySequence(keys), body)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        return body

    # ------------------------------------------------------------------ building
    def _toolbar(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        self.add_box = QComboBox()
        self.add_box.setObjectName("sceneAddBox")
        self.add_box.setEditable(True)
        self.add_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.add_box.lineEdit().setPlaceholderText("Add a script or a dialogue: type its name…")
        self.add_box.setMinimumWidth(340)
        completer = QCompleter(self.add_box.model(), self.add_box)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.add_box.setCompleter(completer)
        self.add_box.lineEdit().returnPressed.connect(self.add_chosen)
        row.addWidget(self.add_box, 1)
        self.add_button = QPushButton(icons.icon("new"), "Add")
        self.add_button.setToolTip("Add the chosen script or dialogue after the selected item (Enter)")
        self.add_button.clicked.connect(lambda _c=False: self.add_chosen())
        row.addWidget(self.add_button)
        row.addSpacing(theme.L)
        self.play_button = QPushButton(qta.icon("ph.play", color=theme.colors().accent_text), "Play scene")
        self.play_button.setProperty("primary", True)
        self.play_button.setToolTip("Play the scene from its first item (F5)")
        self.play_button.clicked.connect(lambda _c=False: self.play())
        row.addWidget(self.play_button)
        self.play_here_button = QPushButton(qta.icon("ph.fast-forward"), "Play from here")
        self.play_here_button.setToolTip("Play the scene from the selected item")
        self.play_here_button.clicked.connect(lambda _c=False: self.play(self.current_row()))
        row.addWidget(self.play_here_button)
        return row

    def _playlist_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, theme.M, 0)
        layout.setSpacing(theme.S)
        self.playlist = _Playlist(self)
        self.playlist.setObjectName("scenePlaylist")
        self.playlist.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.playlist.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.playlist.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.playlist.setItemDelegate(_ItemDelegate(self.playlist))
        self.playlist.setMouseTracking(True)
        self.playlist.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.playlist.model().rowsMoved.connect(self._dragged)
        self.playlist.currentRowChanged.connect(lambda _row: self._show_detail())
        self.playlist.itemDoubleClicked.connect(lambda _item: self.open_item())
        layout.addWidget(self.playlist, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        self.up_button = QPushButton(qta.icon("ph.caret-up"), "Up")
        self.up_button.setToolTip("Move the item up (Alt+Up)")
        self.up_button.clicked.connect(lambda _c=False: self.move_selected(-1))
        self.down_button = QPushButton(qta.icon("ph.caret-down"), "Down")
        self.down_button.setToolTip("Move the item down (Alt+Down)")
        self.down_button.clicked.connect(lambda _c=False: self.move_selected(1))
        self.remove_button = QPushButton(icons.icon("delete"), "Remove")
        self.remove_button.setToolTip("Remove the item from the scene (Delete); the document stays")
        self.remove_button.clicked.connect(lambda _c=False: self.remove_selected())
        for button in (self.up_button, self.down_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.count_label = set_role(QLabel(), "caption")
        buttons.addWidget(self.count_label)
        layout.addLayout(buttons)
        for keys, slot in (("Alt+Up", lambda: self.move_selected(-1)), ("Alt+Down", lambda: self.move_selected(1)),
                           ("Delete", self.remove_selected), ("Return", self.open_item)):
            shortcut = QShortcut(QKeySequence(keys), self.playlist)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(slot)
        return column

    def _detail_panel(self) -> QWidget:
        panel = QWidget()
        panel.setObjectName("sceneItemDetail")
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(theme.M, 0, 0, 0)
        layout.setSpacing(theme.S)
        self.detail_title = set_role(QLabel("No item selected"), "heading")
        self.detail_title.setWordWrap(True)
        layout.addWidget(self.detail_title)
        form = QFormLayout()
        form.setContentsMargins(0, theme.XS, 0, 0)
        form.setHorizontalSpacing(theme.M)
        form.setVerticalSpacing(theme.S)
        self.detail_type = QLabel("—")
        form.addRow(set_role(QLabel("Type"), "caption"), self.detail_type)
        self.start_box = QComboBox()
        self.start_box.setObjectName("sceneItemStart")
        self.start_box.setMinimumWidth(240)
        self.start_box.activated.connect(lambda _i: self._start_chosen())
        form.addRow(set_role(QLabel("Starts at"), "caption"), self.start_box)
        layout.addLayout(form)
        self.detail_problem = set_role(QLabel(), "error")
        self.detail_problem.setWordWrap(True)
        layout.addWidget(self.detail_problem)
        self.open_button = QPushButton(icons.icon("external"), "Open document")
        self.open_button.setToolTip("Open the item's script or dialogue (Enter), at its start")
        self.open_button.clicked.connect(lambda _c=False: self.open_item())
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addStretch(1)
        layout.addLayout(row)
        hint = set_role(QLabel("Drag items to change the order they play in. Scripts and dialogues play one after "
                               "the other, the variables carried from each to the next."), "caption")
        hint.setWordWrap(True)
        layout.addSpacing(theme.M)
        layout.addWidget(hint)
        layout.addStretch(1)
        return panel

    # ------------------------------------------------------------------ the document
    def apply_document(self, doc: dict[str, Any]) -> None:
        items = scene_items(doc)
        if items != self.items or not self.playlist.count():
            self.undo_stack.clear()  # its steps were made on other items
            self.set_items(items, self.current_row(), mark=False)
        self._fill_add_box()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["items"] = [dict(item) for item in self.items]
        return {"name": self.name_edit.text(), "content": content}

    def _lookup(self, doc_id: str) -> dict[str, Any] | None:
        return read_doc(self.session, doc_id)

    def _fill_add_box(self) -> None:
        self.add_box.clear()
        try:
            summaries = self.session.index.summaries()
        except Exception:  # noqa: BLE001 - without the index, nothing to offer
            summaries = []
        playable = sorted((s for s in summaries if s.type in ("Script", "Dialogue")),
                          key=lambda s: (s.type != "Dialogue", (s.name or "").lower()))
        for summary in playable:
            self.add_box.addItem(icons.collection_icon(summary.type), summary.name or "Untitled", summary.id)
        self.add_box.setCurrentIndex(-1)
        self.add_box.setEditText("")

    # ------------------------------------------------------------------ edits (each one undoable)
    def _push(self, text: str, after: list[dict[str, Any]], row: int) -> None:
        self.undo_stack.push(_ItemsCommand(self, text, [dict(i) for i in self.items], after, row))

    def set_items(self, items: list[dict[str, Any]], row: int = -1, *, mark: bool = True) -> None:
        """Show ``items`` (selecting ``row``) and, unless loading, save them soon."""
        self.items = [dict(item) for item in items]
        self._render(row)
        if mark:
            self.mark_dirty()

    def add_document(self, doc_id: str) -> bool:
        """Add ``doc_id`` after the selected item (at the end when none is selected)."""
        doc = self._lookup(doc_id)
        if doc is None:
            return False
        try:
            item = new_item(doc)
        except SceneItemError as exc:
            self.banner.show_message("error", str(exc))
            return False
        row = self.current_row()
        at = row + 1 if row >= 0 else len(self.items)
        self._push(f"Add {doc.get('name') or 'item'}", insert_item(self.items, at, item), at)
        return True

    def add_chosen(self) -> None:
        text = self.add_box.currentText().strip()
        index = self.add_box.findText(text, Qt.MatchFlag.MatchFixedString)
        if index < 0:
            index = self.add_box.findText(text, Qt.MatchFlag.MatchContains)
        if index >= 0 and text and self.add_document(str(self.add_box.itemData(index))):
            self.add_box.setCurrentIndex(-1)
            self.add_box.setEditText("")

    def move(self, source: int, target: int) -> None:
        if source == target or not (0 <= source < len(self.items)) or not (0 <= target < len(self.items)):
            return
        self._push("Move item", move_item(self.items, source, target), target)

    def move_selected(self, step: int) -> None:
        row = self.current_row()
        if row >= 0:
            self.move(row, row + step)

    def remove_selected(self) -> None:
        row = self.current_row()
        if 0 <= row < len(self.items):
            self._push("Remove item", remove_item(self.items, row), min(row, len(self.items) - 2))

    def set_item_start(self, row: int, start: int | str | None) -> None:
        if 0 <= row < len(self.items):
            self._push("Change start", set_start(self.items, row, start), row)

    def _dragged(self, _parent: QModelIndex, start: int, _end: int, _dest: QModelIndex, row: int) -> None:
        target = row if row < start else row - 1
        # The list moved its row already; the command is pushed once the view is done with the drop.
        QTimer.singleShot(0, lambda: self.move(start, target))

    def _start_chosen(self) -> None:
        self.set_item_start(self.current_row(), self.start_box.currentData())

    # ------------------------------------------------------------------ showing
    def current_row(self) -> int:
        return self.playlist.currentRow()

    def _render(self, row: int = -1) -> None:
        views = describe_items(self.items, self._lookup)
        self.playlist.blockSignals(True)
        self.playlist.clear()
        for view in views:
            text = f"{view.index + 1}.  {view.name}"
            item = QListWidgetItem(icons.icon("warning") if view.problem else
                                   icons.collection_icon(view.doc_type if view.doc_type in ("Script", "Dialogue")
                                                         else "Script"), text)
            item.setData(_TITLE_ROLE, text)
            item.setData(_SUBTITLE_ROLE, f"{view.doc_type} · {view.start}")
            item.setData(_PROBLEM_ROLE, view.problem)
            item.setToolTip(view.problem or f"{view.doc_type}: {view.name}, {view.start}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsDragEnabled)
            self.playlist.addItem(item)
        self.playlist.blockSignals(False)
        if views:
            self.playlist.setCurrentRow(max(0, min(row, len(views) - 1)))
        count = len(views)
        self.count_label.setText(counted(count, "item"))
        self._show_detail()

    def _show_detail(self) -> None:
        row = self.current_row()
        has = 0 <= row < len(self.items)
        for widget in (self.up_button, self.down_button, self.remove_button, self.open_button, self.start_box,
                       self.play_here_button):
            widget.setEnabled(has)
        self.up_button.setEnabled(has and row > 0)
        self.down_button.setEnabled(has and row < len(self.items) - 1)
        self.play_button.setEnabled(bool(self.items))
        self.start_box.clear()
        if not has:
            self.detail_title.setText("No item selected" if self.items else "This scene is empty")
            self.detail_type.setText("—")
            self.detail_problem.setText("" if self.items else "Add a script or a dialogue above to start.")
            return
        item = self.items[row]
        view = describe_items([item], self._lookup)[0]
        self.detail_title.setText(f"{row + 1}. {view.name}")
        self.detail_type.setText(view.doc_type)
        self.detail_problem.setText(view.problem)
        doc = self._lookup(view.doc_id)
        if view.doc_type == "Script":
            self.start_box.addItem("The first line", None)
            for line, preview in line_choices(doc or {}):
                self.start_box.addItem(f"Line {line}: {preview}", line)
            current = item.get("startLine")
        else:
            self.start_box.addItem("The Start node", None)
            for node_id, label in node_choices(doc or {}):
                self.start_box.addItem(label, node_id)
            current = item.get("startNode")
        found = self.start_box.findData(current) if current is not None else 0
        if found < 0:  # a line between the choices (a comment, a blank line) or a node gone
            self.start_box.addItem(f"Line {current}" if view.doc_type == "Script" else "A missing node", current)
            found = self.start_box.count() - 1
        self.start_box.setCurrentIndex(found)

    # ------------------------------------------------------------------ opening and playing
    def open_item(self) -> None:
        row = self.current_row()
        if not 0 <= row < len(self.items):
            return
        item = self.items[row]
        host = host_of(self)
        if host is not None:
            from storyloom.gui.player import open_in_window

            line = item.get("startLine") if item.get("docType") == "Script" else None
            open_in_window(host, str(item.get("docId")), line if isinstance(line, int) and line > 0 else None,
                           item.get("startNode") if item.get("docType") == "Dialogue" else None)

    def play(self, row: int | None = None) -> QWidget | None:
        """Play the scene (from item ``row`` when given) in the player window."""
        from storyloom.gui.player import open_in_window
        from storyloom.gui.player.window import PlayerWindow

        program = scene_program(self.items[row or 0:])
        if not program:
            self.banner.show_message("info", "Add a script or a dialogue to the scene to play it.")
            return None
        host = host_of(self)
        opener = (lambda d, ln, n: open_in_window(host, d, ln, n)) if host is not None else None
        player = PlayerWindow(self.session, program, self.name_edit.text() or "Scene", "Scene", opener, self)
        player.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        player.show()
        return player
