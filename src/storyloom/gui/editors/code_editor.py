"""A plain-text code editor with line numbers and per-line problems shown on hover.

The gutter paints only the visible blocks (a 5,000-line script scrolls and types without
repainting the others); a line with a problem gets a coloured mark in the gutter, and hovering
the line shows the problems' messages. An edit that adds or removes lines moves the problems of
the lines after it with them (:func:`storyloom.app.views.editor_text.shift_lines`), so what is
shown stays on its line until the owner's next parse replaces it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QToolTip, QWidget

from storyloom.app.views.editor_text import shift_lines, shown_problems_changed
from storyloom.diagnostics import Diagnostic
from storyloom.gui.appearance import use_editor_font


class _Gutter(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(event)


def is_dark(widget: QWidget) -> bool:
    """True when the widget's palette is a dark one (the base colour is dark)."""
    return widget.palette().base().color().lightness() < 128


class CodeEditor(QPlainTextEdit):
    """``problems`` maps a 1-based line number to its diagnostics (set by the owner).
    ``lines_moved(at, delta)``: an edit left lines 1 to ``at`` in place and added ``delta`` lines
    after them (removed if negative)."""

    lines_moved = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeEditor")
        use_editor_font(self)  # the Options' editor font, followed live
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.problems: dict[int, Sequence[Diagnostic]] = {}
        self._gutter = _Gutter(self)
        self._gutter_key: tuple[object, ...] | None = None
        self._gutter_picture: QPixmap | None = None
        # Connected before any highlighter of the document is made, so a highlighter reading
        # ``problems`` while Qt highlights the edited lines reads them already moved.
        self._lines = self.document().blockCount()
        self.document().contentsChange.connect(self._follow_lines)
        self.blockCountChanged.connect(self._update_margins)
        self.updateRequest.connect(self._scroll_gutter)
        self._update_margins()

    def set_problems(self, problems: dict[int, Sequence[Diagnostic]]) -> set[int]:
        """Show ``problems`` (1-based line: its diagnostics); returns the lines whose problems
        show differently than before (a highlighter underlining them highlights those again)."""
        changed = shown_problems_changed(self.problems, problems)
        self.problems = problems
        if changed:
            self._gutter.update()
        return changed

    def _follow_lines(self, position: int, _removed: int, _added: int) -> None:
        lines = self.document().blockCount()
        delta, self._lines = lines - self._lines, lines
        if delta:
            # the last line the edit leaves in place: the one it starts in, or, when it starts at
            # a line's very beginning (a Return there, a whole line removed), the line before
            block = self.document().findBlock(position)
            at = block.blockNumber() + (0 if position == block.position() else 1)
            if self.problems:
                self.problems = shift_lines(self.problems, at, delta)
            self.lines_moved.emit(at, delta)

    def visible_lines(self) -> range:
        """The 1-based numbers of the lines in view."""
        first = self.firstVisibleBlock().blockNumber() + 1
        return range(first, first + self.viewport().height() // max(1, self.fontMetrics().height()) + 2)

    def gutter_width(self) -> int:
        digits = max(3, len(str(max(1, self.blockCount()))))
        return 16 + self.fontMetrics().horizontalAdvance("9") * digits + 8

    def _update_margins(self, *_args: object) -> None:
        # Every new line asks (blockCountChanged); the margins change only with the digits.
        width = self.gutter_width()
        if self.viewportMargins().left() != width:
            self.setViewportMargins(width, 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        rect = self.contentsRect()
        self._gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))

    def _gutter_rows(self) -> list[tuple[int, int, int]]:
        """``(line, top, mark)`` of each visible line the gutter shows: its 1-based number, where
        its block starts, and its problem mark (0 none, 1 warning, 2 error)."""
        rows: list[tuple[int, int, int]] = []
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom_of_view = self._gutter.height()
        problems = self.problems
        while block.isValid() and top <= bottom_of_view:
            height = round(self.blockBoundingRect(block).height())
            if block.isVisible():
                found = problems.get(number + 1) if problems else None
                mark = (2 if any(p.is_error for p in found) else 1) if found else 0
                rows.append((number + 1, top, mark))
            block = block.next()
            top += height
            number += 1
        return rows

    def paint_gutter(self, event: QPaintEvent) -> None:
        """The gutter is drawn once into a picture and copied while it stays the same: typing in
        a line repaints the gutter but changes none of its numbers (drawing 50 numbers each time
        was a fifth of a keystroke's work in a long script)."""
        rows = self._gutter_rows()
        dark = is_dark(self)
        ratio = self._gutter.devicePixelRatioF()
        key = (rows, self.textCursor().blockNumber() + 1, dark, self._gutter.width(), self._gutter.height(), ratio,
               self.fontMetrics().height(), self.palette().base().color().rgba())
        if key != self._gutter_key or self._gutter_picture is None:
            self._gutter_picture = self._draw_gutter(rows, key[1], dark, ratio)
            self._gutter_key = key
        painter = QPainter(self._gutter)
        painter.drawPixmap(0, 0, self._gutter_picture)
        painter.end()

    def _draw_gutter(self, rows: list[tuple[int, int, int]], current: int, dark: bool, ratio: float) -> QPixmap:
        size = QSize(max(1, round(self._gutter.width() * ratio)), max(1, round(self._gutter.height() * ratio)))
        picture = QPixmap(size)
        picture.setDevicePixelRatio(ratio)
        picture.fill(self.palette().base().color())
        painter = QPainter(picture)
        painter.setFont(self.font())
        number_color = QColor("#6b7580") if dark else QColor("#9aa3ad")
        current_color = QColor("#d7dce1") if dark else QColor("#3c4650")
        marks = {1: QColor("#d9a400"), 2: QColor("#e5484d")}
        height = self.fontMetrics().height()
        width = self._gutter.width()
        for line, top, mark in rows:
            if mark:
                painter.fillRect(QRect(2, top + 2, 3, height - 4), marks[mark])
            painter.setPen(current_color if line == current else number_color)
            painter.drawText(0, top, width - 12, height, Qt.AlignmentFlag.AlignRight, str(line))
        painter.end()
        return picture

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new editor font: tabs and the gutter follow it
            self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
            self._update_margins()
            if hasattr(self, "_gutter"):
                self.resizeEvent(QResizeEvent(self.size(), self.size()))

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            position = event.pos()
            position.setX(position.x() - self.viewportMargins().left())
            line = self.cursorForPosition(position).blockNumber() + 1
            problems = self.problems.get(line)
            if problems:
                text = "\n".join(f"{'Error' if p.is_error else 'Warning'}: {p.message}" for p in problems)
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def problem_text(self, line: int) -> str:
        """What hovering ``line`` shows (empty when the line has no problem)."""
        return "\n".join(p.message for p in self.problems.get(line, ()))

    def go_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(max(0, line - 1))
        if block.isValid():
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.centerCursor()
        self.setFocus()
