"""The Grid editor's parts: its undo steps, its table view (the clipboard and undo keys) and the
column settings dialog. :mod:`storyloom.gui.editors.grid_editor` puts them together."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QEvent, QPoint, QRect, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QPainter, QPaintEvent, QResizeEvent, QUndoCommand
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QStyle,
    QStyleFactory,
    QTableView,
    QWidget,
)

from storyloom.gui import theme
from storyloom.gui.editors.grid_model import GridTableModel, type_icon
from storyloom.project import grids as g

FRAME_RADIUS = 6  # the item views' frame in the theme's style sheet (border-radius)


class GridOwner(Protocol):
    """What the parts ask of the Grid editor (:class:`~storyloom.gui.editors.grid_editor.GridEditor`)."""

    model: GridTableModel

    def changed(self) -> None: ...

    def undo(self) -> None: ...

    def redo(self) -> None: ...

    def copy(self) -> None: ...

    def cut(self) -> None: ...

    def paste(self) -> None: ...

    def clear_selection(self) -> None: ...


class GridCommand(QUndoCommand):
    """One step of the grid: redo performs the change, undo its inverse."""

    def __init__(self, editor: GridOwner, change: g.Change, label: str) -> None:
        super().__init__(label)
        self.editor = editor
        self.change = change
        self.inverse: g.Change | None = None

    def redo(self) -> None:
        self.inverse = self.editor.model.apply(self.change)
        self.editor.changed()

    def undo(self) -> None:
        if self.inverse is not None:
            self.change = self.editor.model.apply(self.inverse)
            self.editor.changed()


class ResizeCommand(QUndoCommand):
    """A column width or row height dragged: one step however many pixels the drag moved."""

    def __init__(self, editor: GridOwner, kind: str, index: int, old: Any, new: Any) -> None:
        super().__init__("Resize column" if kind == "column" else "Resize row")
        self.editor, self.kind, self.index, self.old, self.new = editor, kind, index, old, new

    def id(self) -> int:
        return 7101 if self.kind == "column" else 7102

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, ResizeCommand) or other.kind != self.kind or other.index != self.index:
            return False
        self.new = other.new
        return True

    def _set(self, value: Any) -> None:
        model = self.editor.model
        if self.kind == "column":
            model.apply(g.SetColumn(self.index, {**model.grid.columns[self.index], "width": value}))
        else:
            model.apply(g.SetRowHeight(self.index, value))
        self.editor.changed()

    def redo(self) -> None:
        self._set(self.new)

    def undo(self) -> None:
        self._set(self.old)


class GridView(QTableView):
    """The table: copy, cut, paste, delete and undo keys go to the editor (the main window's Edit
    menu calls :meth:`undo` and :meth:`redo` on the focused widget)."""

    def __init__(self, editor: GridOwner) -> None:
        super().__init__()
        self.editor = editor
        # The style sheet's rounded frame leaves the viewport see-through, and Qt repaints a
        # see-through widget whole when it scrolls: a wheel step painted every visible cell. While
        # the grid can scroll, the view paints its own background (paintEvent) and its viewport is
        # opaque, so a scroll moves the pixels already drawn and paints only the rows scrolled in.
        self._opaque = False
        self._fusion: QStyle | None = None
        self._pick_style()

    def _pick_style(self) -> None:
        """The app's style is Fusion behind a Python proxy (:class:`storyloom.gui.theme.ThemeStyle`)
        that Qt calls for every cell's background, row and check box; in the light theme the
        proxy draws exactly what Fusion draws, so the grid paints with Fusion itself (no Python
        per primitive). In the dark theme the proxy's indicator colours are needed: the app's."""
        if theme.colors().dark:
            if self.testAttribute(Qt.WidgetAttribute.WA_SetStyle):
                self.setStyle(None)  # type: ignore[arg-type]  # back to the application's
            return
        if self._fusion is None:
            self._fusion = QStyleFactory.create("Fusion")
            self._fusion.setParent(self)
        if not self.testAttribute(Qt.WidgetAttribute.WA_SetStyle):
            self.setStyle(self._fusion)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the theme changed
            self._pick_style()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._opaque:
            painter = QPainter(self.viewport())
            painter.fillRect(event.rect(), self.palette().base())
            painter.end()
        super().paintEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # the view's, and its viewport's (a scroll bar shown or hidden)
        self._update_opaque()

    def _update_opaque(self) -> None:
        """Opaque unless the viewport reaches a rounded corner of the frame (no scroll bar nor
        header between them: a grid that fits, with nothing to scroll), where the frame's corner
        shows through as before."""
        viewport = self.viewport()
        area = QRect(viewport.mapTo(self, QPoint(0, 0)), viewport.size())
        frame, side = self.rect(), FRAME_RADIUS
        left, top = frame.left(), frame.top()
        right, bottom = frame.right() - side + 1, frame.bottom() - side + 1
        corners = [QRect(x, y, side, side) for x in (left, right) for y in (top, bottom)]
        opaque = not any(area.intersects(corner) for corner in corners)
        if opaque != self._opaque:
            self._opaque = opaque
            viewport.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, opaque)
            viewport.update()

    def undo(self) -> None:
        self.editor.undo()

    def redo(self) -> None:
        self.editor.redo()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.state() != QAbstractItemView.State.EditingState:
            editor = self.editor
            for keys, action in ((QKeySequence.StandardKey.Copy, editor.copy),
                                 (QKeySequence.StandardKey.Cut, editor.cut),
                                 (QKeySequence.StandardKey.Paste, editor.paste),
                                 (QKeySequence.StandardKey.Undo, self.undo),
                                 (QKeySequence.StandardKey.Redo, self.redo)):
                if event.matches(keys):
                    action()
                    event.accept()
                    return
            if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and not event.modifiers():
                editor.clear_selection()
                event.accept()
                return
        super().keyPressEvent(event)


class ColumnDialog(QDialog):
    """A column's title, type and (for a dropdown) its choices, one per line."""

    def __init__(self, column: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Column")
        self.setObjectName("columnDialog")
        self.setMinimumWidth(380)
        form = QFormLayout(self)
        form.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.L)
        form.setSpacing(theme.M)
        self.title = QLineEdit(str(column.get("title") or ""))
        form.addRow("Title", self.title)
        self.kind = QComboBox()
        for kind in g.COLUMN_TYPES:
            self.kind.addItem(type_icon(kind), g.TYPE_LABELS[kind], kind)
        self.kind.setCurrentIndex(max(0, self.kind.findData(g.column_type(column))))
        form.addRow("Type", self.kind)
        self.options = QPlainTextEdit("\n".join(g.column_options(column)))
        self.options.setPlaceholderText("One choice per line")
        self.options.setFixedHeight(110)
        self.options_label = QLabel("Choices")
        form.addRow(self.options_label, self.options)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()

    def _kind_changed(self) -> None:
        dropdown = self.kind.currentData() == "dropdown"
        self.options.setVisible(dropdown)
        self.options_label.setVisible(dropdown)

    def fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"title": self.title.text().strip(), "type": self.kind.currentData()}
        if fields["type"] == "dropdown":
            fields["source"] = [line.strip() for line in self.options.toPlainText().splitlines() if line.strip()]
        return fields
