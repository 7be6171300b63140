"""Completion in the script editor: a :class:`QCompleter` popup over :class:`ScriptText`.

What is offered is decided by :mod:`storyloom.script.completion` (actors after ``::``, directives
after ``@``, commands after ``<``, variable paths after ``@if``/``@set`` and in ``${}``). The
list opens with Ctrl+Space, and by itself after a character that starts a completion; typing
narrows it, Enter or Tab takes the choice when it changes what is typed or the writer moved in
the list (otherwise the key does what it does in the text: ``@else`` then Enter is a new line),
Escape closes it. A space typed right after a choice that ended with one is not doubled. The
source (the project's actors, states and commands) is asked for when the list opens, never on
an ordinary keystroke."""

from __future__ import annotations

from collections.abc import Callable

import qtawesome as qta
from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QPainter, QStandardItem, QStandardItemModel, QTextCursor
from PySide6.QtWidgets import (
    QCompleter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from storyloom.gui import theme
from storyloom.gui.editors.code_editor import CodeEditor
from storyloom.script.completion import (
    ACTOR,
    COMMAND,
    DIRECTIVE,
    Candidate,
    CompletionContext,
    CompletionSource,
    auto_trigger,
    complete,
    opens_completion,
    takes_choice,
    types_through,
)

FILTER_ROLE = Qt.ItemDataRole.UserRole + 1
INSERT_ROLE = Qt.ItemDataRole.UserRole + 2
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 3
_ICONS = {ACTOR: "ph.user", DIRECTIVE: "ph.at", COMMAND: "ph.terminal", "path": "ph.brackets-curly"}
_ACCEPT_KEYS = (Qt.Key.Key_Enter, Qt.Key.Key_Return, Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Escape)
_TAKE_KEYS = (Qt.Key.Key_Enter, Qt.Key.Key_Return, Qt.Key.Key_Tab)
_MOVE_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home, Qt.Key.Key_End)
_Index = QModelIndex | QPersistentModelIndex


class _CandidateDelegate(QStyledItemDelegate):
    """A choice's name, and what it is (type and default, ...) in a quieter colour on the right."""

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        size = super().sizeHint(option, index)
        detail = str(index.data(DETAIL_ROLE) or "")
        extra = QFontMetrics(option.font).horizontalAdvance(detail) + theme.XL if detail else 0  # type: ignore[attr-defined]
        return QSize(size.width() + extra, max(size.height(), 24))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        super().paint(painter, option, index)
        detail = str(index.data(DETAIL_ROLE) or "")
        if not detail:
            return
        colours = theme.colors()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        painter.save()
        painter.setPen(QColor(colours.accent_text if selected else colours.muted))
        rect: QRect = option.rect.adjusted(0, 0, -theme.S, 0)  # type: ignore[attr-defined]
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), detail)
        painter.restore()


class ScriptText(CodeEditor):
    """The script's code editor with completion. ``source`` gives what to offer (called when
    the list opens); ``completer`` is the :class:`QCompleter`; ``context`` what it completes."""

    def __init__(self, source: Callable[[], CompletionSource], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = source
        self.context: CompletionContext | None = None
        self._source: CompletionSource | None = None
        self.model = QStandardItemModel(self)
        self.completer = QCompleter(self.model, self)
        self.completer.setWidget(self)
        self.completer.setCompletionRole(FILTER_ROLE)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.setMaxVisibleItems(10)
        self.completer.setWrapAround(False)
        popup = self.completer.popup()
        popup.setObjectName("completionPopup")
        popup.setItemDelegate(_CandidateDelegate(popup))
        popup.setUniformItemSizes(True)
        self.completer.activated[QModelIndex].connect(self.insert_completion)  # type: ignore[attr-defined]
        # Installed after the completer's own filter, so it sees the popup's keys first.
        popup.installEventFilter(self)
        self._moved = False  # the writer moved in the list since it opened
        self._typed_through: tuple[int, str] | None = None  # (position, inserted) after a choice

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.completer.popup() and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent)):
            key = event.key()
            if key in _MOVE_KEYS:
                self._moved = True
            elif key in _TAKE_KEYS and not takes_choice(self.completer.completionPrefix(), self._selected(),
                                                         moved=self._moved):
                # The choice would change nothing: the key is the text's (a new line, an indent).
                self.completer.popup().hide()
                self.context = None
                CodeEditor.keyPressEvent(self, event)
                return True
        return super().eventFilter(watched, event)

    def _selected(self) -> Candidate | None:
        index = self.completer.popup().currentIndex()
        if not index.isValid() or self.context is None:
            return None
        insert = index.data(INSERT_ROLE)
        return next((c for c in self.context.candidates if c.insert == insert), None)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        popup = self.completer.popup()
        if popup.isVisible() and event.key() in _ACCEPT_KEYS:
            event.ignore()  # the completer takes these (choose, close)
            return
        if event.key() == Qt.Key.Key_Space and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.show_completions()
            return
        through, self._typed_through = self._typed_through, None
        if (through is not None and through[0] == self.textCursor().position()
                and types_through(through[1], event.text())):
            return  # the choice already put this space there
        super().keyPressEvent(event)
        if not event.text() or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            if popup.isVisible() and event.key() not in (Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_Meta):
                self.follow_typing()
            return
        if popup.isVisible():
            self.follow_typing()
        else:
            self._auto_open()

    def _line(self) -> tuple[str, int]:
        cursor = self.textCursor()
        return cursor.block().text(), cursor.positionInBlock()

    def _auto_open(self) -> None:
        line, column = self._line()
        if not opens_completion(line, column):
            return  # the common keystroke (a space or a full stop in speech too): nothing to ask the project
        self._source = None
        context = auto_trigger(line, column, self._current_source())
        if context is not None:
            self._open(context)

    def _current_source(self) -> CompletionSource:
        if self._source is None:
            self._source = self.source()
        return self._source

    # ------------------------------------------------------------------ the list
    def show_completions(self) -> CompletionContext | None:
        """Open the list for the cursor's place (Ctrl+Space); ``None`` when nothing fits."""
        self._source = None
        line, column = self._line()
        context = complete(line, column, self._current_source())
        if context is None or not context.matching():
            self.completer.popup().hide()
            self.context = None
            return None
        self._open(context)
        return context

    def follow_typing(self) -> None:
        """The list is open and a key was typed: narrow it, or close it when nothing fits."""
        line, column = self._line()
        context = complete(line, column, self._current_source())
        if context is None or not context.matching():
            self.completer.popup().hide()
            self.context = None
            return
        if context.kind != (self.context.kind if self.context else None) or context.candidates != (
                self.context.candidates if self.context else None):
            self._open(context)
            return
        self.context = context
        self.completer.setCompletionPrefix(context.prefix)
        self._place()

    def _open(self, context: CompletionContext) -> None:
        self.context = context
        self.model.clear()
        icon = qta.icon(_ICONS.get(context.kind, "ph.dot"), color=theme.colors().muted,
                        color_active=theme.colors().accent_text)
        for candidate in context.candidates:
            item = QStandardItem(icon, f"@{candidate.text}" if context.kind == DIRECTIVE else candidate.text)
            item.setData(candidate.text, FILTER_ROLE)
            item.setData(candidate.insert, INSERT_ROLE)
            item.setData(candidate.detail, DETAIL_ROLE)
            item.setToolTip(candidate.detail)
            item.setEditable(False)
            self.model.appendRow(item)
        self.completer.setCompletionPrefix(context.prefix)
        self._place()

    def _place(self) -> None:
        popup = self.completer.popup()
        if self.completer.completionCount() == 0:
            popup.hide()
            return
        popup.setCurrentIndex(self.completer.completionModel().index(0, 0))
        self._moved = False
        rect = self.cursorRect()
        rect.translate(self.viewport().pos())
        width = popup.sizeHintForColumn(0) + popup.verticalScrollBar().sizeHint().width() + theme.M
        rect.setWidth(max(280, min(width, 560)))
        self.completer.complete(rect)

    def insert_completion(self, index: QModelIndex) -> None:
        """Replace what was typed of the choice (the prefix) with the choice's text."""
        insert = index.data(INSERT_ROLE)
        if not isinstance(insert, str):
            return
        prefix = self.completer.completionPrefix()
        cursor = self.textCursor()
        cursor.beginEditBlock()
        cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, len(prefix))
        cursor.insertText(insert)
        cursor.endEditBlock()
        self.setTextCursor(cursor)
        self.context = None
        self._typed_through = (cursor.position(), insert)
        if insert.endswith(".") or insert.endswith(" "):  # a root, a state, "@if ": the next level
            line, column = self._line()
            following = complete(line, column, self._current_source())
            if following is not None and following.matching():
                self._open(following)
