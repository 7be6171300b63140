"""The Kanban editor's board: columns of cards, dragged with the mouse.

:class:`BoardView` lays out one :class:`ColumnWidget` per column (its cards as
:class:`CardWidget`). A card dragged onto a column lands before the card under the pointer (or
at the end); a column dragged by its header lands where it is dropped. Nothing here changes the
board: the view emits what the user asked (``card_dropped(card, column, before)``,
``column_dropped(column, index)``) and the editor makes it an undoable step with the rules of
:mod:`storyloom.project.kanban`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QByteArray, QMimeData, QPoint, Qt, Signal
from PySide6.QtGui import QColor, QDrag, QDragEnterEvent, QDragMoveEvent, QDropEvent, QFontMetrics, QMouseEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.gui import theme
from storyloom.project import kanban as k
from storyloom.words import counted

CARD_MIME = "application/x-storyloom-kanban-card"
COLUMN_MIME = "application/x-storyloom-kanban-column"
COLUMN_WIDTH = 256
_DUE = {"overdue": ("Overdue", "danger"), "today": ("Due today", "warning"), "soon": ("Due soon", "warning")}


def _chip(text: str, icon: str = "", colour: str = "", kind: str = "") -> QLabel:
    """A small rounded label: a tag, the due date, the assignee, the checklist's progress."""
    label = QLabel(text)
    label.setObjectName("kanbanChip")
    if kind:
        label.setProperty("kind", kind)
    if colour:
        fill = QColor(colour)
        fill.setAlphaF(0.22)
        label.setStyleSheet(f"background: {fill.name(QColor.NameFormat.HexArgb)}; border-color: {colour};")
    if icon:
        label.setText(text)
        label.setToolTip(text)
    return label


def _icon_chip(icon: str, text: str, tip: str, kind: str = "") -> QWidget:
    chip = QWidget()
    chip.setObjectName("kanbanMeta")
    if kind:
        chip.setProperty("kind", kind)
    layout = QHBoxLayout(chip)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(theme.XS)
    colours = theme.colors()
    colour = {"danger": colours.danger, "warning": colours.warning, "success": colours.success}.get(kind, colours.muted)
    picture = QLabel()
    picture.setPixmap(qta.icon(icon, color=colour).pixmap(14, 14))
    layout.addWidget(picture)
    words = QLabel(text)
    words.setStyleSheet(f"color: {colour};")
    layout.addWidget(words)
    chip.setToolTip(tip)
    return chip



def _dragged_far_enough(press: QPoint | None, event: QMouseEvent) -> bool:
    """Whether the left button, pressed at ``press``, has moved far enough to start a drag."""
    return press is not None and \
        (event.position().toPoint() - press).manhattanLength() >= QApplication.startDragDistance()


def _drag(source: QWidget, event: QMouseEvent, mime: str, item_id: str, picture: QWidget) -> None:
    """Drag ``item_id`` as ``mime`` from ``source``, showing ``picture`` under the pointer."""
    drag = QDrag(source)
    data = QMimeData()
    data.setData(mime, QByteArray(item_id.encode()))
    drag.setMimeData(data)
    drag.setPixmap(picture.grab())
    drag.setHotSpot(event.position().toPoint())
    drag.exec(Qt.DropAction.MoveAction)

class CardWidget(QFrame):
    """One card: title, the description's first line, tags, due date, assignee, checklist
    progress and how many documents it links. Click selects; drag moves it."""

    clicked = Signal(str)

    def __init__(self, card: Mapping[str, Any], colours: Mapping[str, str], selected: bool = False,
                 today: date | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card_id = str(card.get("id"))
        self.setObjectName("kanbanCard")
        self.setProperty("selected", selected)
        self.setProperty("completed", card.get("completed") is True)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.M, theme.S + 2, theme.M, theme.S + 2)
        layout.setSpacing(6)
        title = QLabel(str(card.get("title") or "").strip() or "Untitled card")
        title.setObjectName("kanbanCardTitle")
        title.setWordWrap(True)
        font = title.font()
        font.setWeight(font.Weight.DemiBold)
        font.setStrikeOut(card.get("completed") is True)
        title.setFont(font)
        layout.addWidget(title)
        description = str(card.get("description") or "").strip()
        if description:
            first = next((line.strip(" #*-") for line in description.splitlines() if line.strip()), "")
            text = QLabel(QFontMetrics(self.font()).elidedText(first, Qt.TextElideMode.ElideRight, COLUMN_WIDTH - 48))
            text.setObjectName("kanbanCardText")
            layout.addWidget(text)
        tags = k.tags_of(card)
        if tags:
            row = QHBoxLayout()
            row.setSpacing(theme.XS)
            for tag in tags[:4]:
                row.addWidget(_chip(tag, colour=colours.get(tag, "")))
            if len(tags) > 4:
                row.addWidget(_chip(f"+{len(tags) - 4}"))
            row.addStretch(1)
            layout.addLayout(row)
        meta = QHBoxLayout()
        meta.setSpacing(theme.M)
        due = str(card.get("dueDate") or "")
        if due:
            state = k.due_state(card, today)
            label, kind = _DUE.get(state, ("Due", ""))
            meta.addWidget(_icon_chip("ph.calendar-blank", due[:10], f"{label} {due[:10]}", kind))
        done, total = k.checklist_progress(card)
        if total:
            meta.addWidget(_icon_chip("ph.check-square", f"{done}/{total}", f"Checklist: {done} of {total} done",
                                      "success" if done == total else ""))
        related = [r for r in card.get("related") or [] if isinstance(r, str)]
        if related:
            meta.addWidget(_icon_chip("ph.link", str(len(related)), counted(len(related), "related document")))
        assigned = str(card.get("assigned") or "")
        meta.addStretch(1)
        if assigned:
            meta.addWidget(_icon_chip("ph.user-circle", assigned, f"Assigned to {assigned}"))
        if meta.count() > 1:
            layout.addLayout(meta)
        self._press: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if _dragged_far_enough(self._press, event):
            self._press = None
            _drag(self, event, CARD_MIME, self.card_id, self)
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._press is not None:
            self.clicked.emit(self.card_id)
        self._press = None
        super().mouseReleaseEvent(event)


class ColumnHeader(QWidget):
    """A column's title and card count; dragging it moves the column."""

    def __init__(self, column_id: str, title: str, count: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.column_id = column_id
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(theme.XS, 0, 0, 0)
        layout.setSpacing(theme.S)
        self.title = QLabel(title or "Untitled column")
        self.title.setObjectName("kanbanColumnTitle")
        layout.addWidget(self.title)
        self.count = QLabel(count)
        self.count.setObjectName("kanbanColumnCount")
        layout.addWidget(self.count)
        layout.addStretch(1)
        self.menu_button = QToolButton()
        self.menu_button.setIcon(qta.icon("ph.dots-three"))
        self.menu_button.setAutoRaise(True)
        self.menu_button.setToolTip("Column actions")
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        layout.addWidget(self.menu_button)
        self._press: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if _dragged_far_enough(self._press, event):
            self._press = None
            _drag(self, event, COLUMN_MIME, self.column_id, self.parentWidget() or self)
            return
        super().mouseMoveEvent(event)


class ColumnWidget(QFrame):
    """One column: its header, its (visible) cards and an "Add card" button. A card dropped here
    lands before the card under the pointer."""

    def __init__(self, board: BoardView, column: Mapping[str, Any], cards: list[dict[str, Any]], total: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.board = board
        self.column_id = str(column.get("id"))
        self.setObjectName("kanbanColumn")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAcceptDrops(True)
        self.setFixedWidth(COLUMN_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.S, theme.S, theme.S, theme.S)
        layout.setSpacing(theme.S)
        count = str(total) if len(cards) == total else f"{len(cards)} of {total}"
        self.header = ColumnHeader(self.column_id, str(column.get("title") or ""), count)
        layout.addWidget(self.header)
        self.cards: list[CardWidget] = []
        for card in cards:
            widget = CardWidget(card, board.tag_colours, card.get("id") == board.selected, board.today)
            widget.clicked.connect(board.card_clicked)
            layout.addWidget(widget)
            self.cards.append(widget)
        self.add_button = QToolButton()
        self.add_button.setObjectName("kanbanAddCard")
        self.add_button.setText("Add card")
        self.add_button.setIcon(qta.icon("ph.plus", color=theme.colors().muted))
        self.add_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.add_button.setAutoRaise(True)
        self.add_button.clicked.connect(lambda _c=False: board.add_card_requested.emit(self.column_id))
        layout.addWidget(self.add_button)
        layout.addStretch(1)

    def before_at(self, y: float) -> str | None:
        """The card a drop at height ``y`` goes before (``None``: the end of the column)."""
        for card in self.cards:
            if y < card.geometry().center().y():
                return card.card_id
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(CARD_MIME):
            self.setProperty("dropTarget", True)
            self.style().polish(self)
            event.acceptProposedAction()
        elif event.mimeData().hasFormat(COLUMN_MIME):
            event.ignore()  # the board takes columns

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(CARD_MIME):
            event.acceptProposedAction()

    def dragLeaveEvent(self, event: Any) -> None:
        self.setProperty("dropTarget", False)
        self.style().polish(self)

    def dropEvent(self, event: QDropEvent) -> None:
        self.setProperty("dropTarget", False)
        data = event.mimeData()
        if not data.hasFormat(CARD_MIME):
            event.ignore()
            return
        card_id = bytes(data.data(CARD_MIME).data()).decode()
        event.acceptProposedAction()
        self.board.card_dropped.emit(card_id, self.column_id, self.before_at(event.position().y()) or "")


class BoardView(QScrollArea):
    """The columns side by side, scrolled sideways. Signals carry what the user asked for."""

    card_clicked = Signal(str)
    card_dropped = Signal(str, str, str)  # card, column, before ("" for the end)
    column_dropped = Signal(str, int)  # column, the index (before the move) it goes before
    add_card_requested = Signal(str)
    column_menu_requested = Signal(str, QToolButton)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kanbanBoard")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.tag_colours: dict[str, str] = {}
        self.selected = ""
        self.today: date | None = None
        self.columns: list[ColumnWidget] = []
        self._inner = QWidget()
        self._inner.setObjectName("kanbanBoardInner")
        self._row = QHBoxLayout(self._inner)
        self._row.setContentsMargins(0, 0, theme.L, theme.L)
        self._row.setSpacing(theme.M)
        self._row.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setWidget(self._inner)
        self.empty = QLabel("This board has no columns yet. Add one, or lay it out from a template.")
        self.empty.setObjectName("emptyState")

    def show_board(self, content: Mapping[str, Any], filter_: k.CardFilter) -> None:
        """Draw the board (the cards the filter lets through)."""
        scroll = self.horizontalScrollBar().value()
        while self._row.count():
            item = self._row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.empty:
                widget.deleteLater()
        self.columns = []
        for column in content.get("columns") or []:
            if not isinstance(column, dict):
                continue
            cards = k.visible_cards(column, filter_)
            total = len([c for c in column.get("cards") or [] if isinstance(c, dict)])
            widget = ColumnWidget(self, column, cards, total)
            widget.header.menu_button.clicked.connect(
                lambda _c=False, c=widget: self.column_menu_requested.emit(c.column_id, c.header.menu_button))
            self._row.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)
            self.columns.append(widget)
        self.empty.setVisible(not self.columns)
        if not self.columns:
            self._row.addWidget(self.empty)
        self.horizontalScrollBar().setValue(scroll)

    def column(self, column_id: str) -> ColumnWidget | None:
        return next((c for c in self.columns if c.column_id == column_id), None)

    def card(self, card_id: str) -> CardWidget | None:
        return next((w for c in self.columns for w in c.cards if w.card_id == card_id), None)

    def index_at(self, x: float) -> int:
        """Which column a column dropped at ``x`` (the board's coordinates) goes before, as an
        index of the board before the move (the number of columns: at the end)."""
        inner_x = x + self.horizontalScrollBar().value()
        for index, column in enumerate(self.columns):
            if inner_x < column.geometry().center().x():
                return index
        return len(self.columns)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(COLUMN_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(COLUMN_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        data = event.mimeData()
        if not data.hasFormat(COLUMN_MIME):
            super().dropEvent(event)
            return
        column_id = bytes(data.data(COLUMN_MIME).data()).decode()
        event.acceptProposedAction()
        self.column_dropped.emit(column_id, self.index_at(event.position().x()))
