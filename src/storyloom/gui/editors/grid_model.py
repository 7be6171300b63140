"""The Grid editor's Qt model, sorted/filtered view and cell delegates.

:class:`GridTableModel` shows a :class:`storyloom.project.grids.Grid` (one Python object per
row, nothing per cell: only the visible cells are asked for) and performs the domain's changes
with the model signals a view needs to keep its selection and scroll position. It never pushes
an edit itself: ``commit(change, label)`` (set by the editor) puts it on the undo stack.
:class:`GridProxy` sorts and filters the view without reordering the data; :class:`GridDelegate`
picks the editor of each column type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import (
    QAbstractTableModel,
    QDate,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QRegularExpression,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPixmap, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QCompleter,
    QDateEdit,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QWidget,
)

from storyloom.project import grids as g

_Index = QModelIndex | QPersistentModelIndex
_ALIGN = {"left": Qt.AlignmentFlag.AlignLeft, "center": Qt.AlignmentFlag.AlignHCenter,
          "right": Qt.AlignmentFlag.AlignRight}
_TYPE_ICONS = {"text": "ph.text-t", "number": "ph.hash", "dropdown": "ph.caret-circle-down",
               "checkbox": "ph.check-square", "radio": "ph.circle", "calendar": "ph.calendar-blank",
               "color": "ph.palette", "image": "ph.image", "document": "ph.file-text", "hidden": "ph.eye-slash"}
PROBLEM_COLOUR = QColor("#e5484d")
# Roles as plain ints: data() runs for every painted cell, several times.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_EDIT = int(Qt.ItemDataRole.EditRole)
_CHECK = int(Qt.ItemDataRole.CheckStateRole)
_DECORATION = int(Qt.ItemDataRole.DecorationRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_CHECKED, _UNCHECKED = Qt.CheckState.Checked, Qt.CheckState.Unchecked
# Types whose cells can be wrong (a text cell never is).
_CHECKED_TYPES = frozenset({"number", "dropdown", "checkbox", "radio", "calendar", "color", "image", "document"})


_ICONS: dict[tuple[str, str], QIcon] = {}


def type_icon(kind: str, colour: str = "#8a94a0") -> QIcon:
    """The icon of a column type (made once: headers ask for it on every paint)."""
    icon = _ICONS.get((kind, colour))
    if icon is None:
        icon = _ICONS[(kind, colour)] = qta.icon(_TYPE_ICONS.get(kind, "ph.text-t"), color=colour)
    return icon


def _css(style: Any) -> dict[str, str]:
    """``"text-align: center; font-weight: bold"`` -> ``{"text-align": "center", ...}``."""
    if not isinstance(style, str):
        return {}
    found = {}
    for part in style.split(";"):
        key, _, value = part.partition(":")
        if value.strip():
            found[key.strip().lower()] = value.strip().lower()
    return found


class GridTableModel(QAbstractTableModel):
    """``structure_changed`` after rows or columns were added, removed or moved, a column's
    settings changed or the grid was replaced (the editor lays the view out again)."""

    structure_changed = Signal()

    def __init__(self, grid: g.Grid | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.grid = grid or g.Grid()
        self.commit: Callable[[g.Change, str], None] = lambda change, label: None
        self.name_of: Callable[[str], str | None] = lambda _id: None
        self.exists: Callable[[str], bool] | None = None
        self.thumbnail: Callable[[str], QIcon | None] = lambda _id: None
        self._names: dict[str, str | None] = {}
        self._styles: dict[tuple[int, int], dict[str, str]] | None = None
        self._kinds: list[str] = []
        self._flags: list[Qt.ItemFlag] = []
        self._rows = 0
        self._cols = 0
        self._radio_icons: tuple[QIcon, QIcon] | None = None
        self._bold = QFont()
        self._bold.setBold(True)
        self._refresh()

    # ------------------------------------------------------------------ grid
    def _refresh(self) -> None:
        """Recompute what painting reads for every cell: counts, column types, flags, styles."""
        grid = self.grid
        self._rows, self._cols = grid.row_count, grid.column_count
        self._kinds = [g.column_type(c) for c in grid.columns]
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        self._flags = [base | Qt.ItemFlag.ItemIsUserCheckable if k == "checkbox" else
                       base if k == "radio" else base | Qt.ItemFlag.ItemIsEditable for k in self._kinds]
        self._styles = None

    def set_grid(self, grid: g.Grid) -> None:
        self.beginResetModel()
        self.grid = grid
        self._names.clear()
        self._refresh()
        self.endResetModel()
        self.structure_changed.emit()

    def forget_names(self) -> None:
        """Document names are cached while painting; forget them (a document may be renamed)."""
        self._names.clear()

    def apply(self, change: g.Change) -> g.Change:
        """Perform ``change`` with the signals the views need; returns its inverse."""
        grid = self.grid
        root = QModelIndex()
        if isinstance(change, g.Batch):
            return g.Batch(tuple(self.apply(c) for c in change.changes)[::-1])
        if isinstance(change, g.SetCells):
            inverse = g.apply(grid, change)
            if change.cells:
                rows = [r for r, _c, _v in change.cells]
                cols = [c for _r, c, _v in change.cells]
                self.dataChanged.emit(self.index(min(rows), min(cols)), self.index(max(rows), max(cols)))
            return inverse
        if isinstance(change, g.InsertRows):
            self.beginInsertRows(root, change.at, change.at + len(change.rows) - 1)
            inverse = self._do(change)
            self.endInsertRows()
        elif isinstance(change, g.RemoveRows):
            if change.count == 0:
                return self._do(change)
            self.beginRemoveRows(root, change.at, change.at + change.count - 1)
            inverse = self._do(change)
            self.endRemoveRows()
        elif isinstance(change, g.MoveRows):
            dest = change.to + change.count if change.to > change.start else change.to
            moving = change.to != change.start and self.beginMoveRows(
                root, change.start, change.start + change.count - 1, root, dest)
            inverse = self._do(change)
            if moving:
                self.endMoveRows()
        elif isinstance(change, g.InsertColumn):
            self.beginInsertColumns(root, change.at, change.at)
            inverse = self._do(change)
            self.endInsertColumns()
        elif isinstance(change, g.RemoveColumn):
            self.beginRemoveColumns(root, change.at, change.at)
            inverse = self._do(change)
            self.endRemoveColumns()
        elif isinstance(change, g.MoveColumn):
            dest = change.to + 1 if change.to > change.source else change.to
            moving = change.to != change.source and self.beginMoveColumns(root, change.source, change.source, root,
                                                                           dest)
            inverse = self._do(change)
            if moving:
                self.endMoveColumns()
        elif isinstance(change, g.Replace):
            self.beginResetModel()
            inverse = self._do(change)
            self.endResetModel()
        else:  # SetColumn, SetRowHeight, SetKeyed: nothing moves
            inverse = self._do(change)
            if isinstance(change, g.SetColumn):
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, change.at, change.at)
                if grid.row_count:
                    self.dataChanged.emit(self.index(0, change.at), self.index(grid.row_count - 1, change.at))
            elif isinstance(change, g.SetKeyed) and grid.row_count and grid.column_count:
                self.dataChanged.emit(self.index(0, 0), self.index(grid.row_count - 1, grid.column_count - 1))
        self.structure_changed.emit()
        return inverse

    def _do(self, change: g.Change) -> g.Change:
        inverse = g.apply(self.grid, change)
        self._refresh()
        return inverse

    # ------------------------------------------------------------------ Qt model
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._cols

    def kind(self, col: int) -> str:
        return self._kinds[col]

    def display_text(self, row: int, col: int) -> str:
        """What a cell shows (a document cell: its document's name)."""
        value = self.grid.rows[row][col]
        kind = self._kinds[col]
        if kind in ("text", "number", "dropdown", "calendar", "color", "hidden"):
            return value if type(value) is str else g.cell_text(self.grid.columns[col], value)
        if kind in g.BOOLEAN_TYPES:
            return "" if isinstance(value, bool) else g.cell_text(self.grid.columns[col], value)
        target = g.document_target(value)
        if not target:
            return ""
        name = self._names.get(target, False)
        if name is False:
            name = self._names[target] = self.name_of(target)
        return name if name else target

    def _style(self, row: int, col: int) -> dict[str, str] | None:
        styles = self._styles
        if styles is None:
            styles = self._styles = {}
            for key, css in self.grid.style.items():
                where = g.parse_cell_name(key)
                parsed = _css(css)
                if where is not None and parsed:
                    styles[where] = parsed
        return styles.get((row, col)) if styles else None

    def radio_icons(self) -> tuple[QIcon, QIcon]:
        """(off, on) pictures of a radio button, drawn once by the style."""
        if self._radio_icons is None:
            icons = []
            for on in (False, True):
                pixmap = QPixmap(16, 16)
                pixmap.fill(Qt.GlobalColor.transparent)
                painter = QPainter(pixmap)
                option = QStyleOptionButton()
                option.rect = QRect(0, 0, 16, 16)
                option.state = QStyle.StateFlag.State_Enabled | (QStyle.StateFlag.State_On if on
                                                                 else QStyle.StateFlag.State_Off)
                QApplication.style().drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorRadioButton, option, painter)
                painter.end()
                icons.append(QIcon(pixmap))
            self._radio_icons = (icons[0], icons[1])
        return self._radio_icons

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        row, col = index.row(), index.column()
        if role == _DISPLAY:
            return self.display_text(row, col)
        kind = self._kinds[col]
        if role == _ALIGNMENT:
            style = self._style(row, col) if self.grid.style else None
            align = _ALIGN.get(style.get("text-align", "")) if style else None
            if align is None:
                return _RIGHT if kind == "number" else _LEFT
            return int(align | Qt.AlignmentFlag.AlignVCenter)
        if role == _FOREGROUND:
            if kind in _CHECKED_TYPES and self._problem(row, col):
                return QBrush(PROBLEM_COLOUR)
            style = self._style(row, col) if self.grid.style else None
            colour = style.get("color") if style else None
            return QBrush(QColor(colour)) if colour and QColor(colour).isValid() else None
        if role == _DECORATION:
            if kind == "color":
                value = self.grid.rows[row][col]
                if isinstance(value, str) and value.startswith("#"):
                    colour = QColor(value)
                    return colour if colour.isValid() else None
            elif kind == "radio":
                off, on = self.radio_icons()
                return on if self.grid.rows[row][col] is True else off
            elif kind == "image":
                value = self.grid.rows[row][col]
                return self.thumbnail(g.document_target(value)) if value else None
            return None
        if role == _CHECK:
            if kind == "checkbox":
                return _CHECKED if self.grid.rows[row][col] is True else _UNCHECKED
            return None
        if role in (_FONT, _BACKGROUND):
            style = self._style(row, col) if self.grid.style else None
            if not style:
                return None
            if role == _FONT:
                return self._bold if style.get("font-weight") in ("bold", "600", "700") else None
            colour = style.get("background-color")
            return QBrush(QColor(colour)) if colour and QColor(colour).isValid() else None
        if role == _EDIT:
            return self.grid.rows[row][col]
        if role == _TOOLTIP:
            problem = self._problem(row, col) if kind in _CHECKED_TYPES else ""
            if problem:
                return problem
            if kind in ("document", "image"):
                return f"{self.display_text(row, col)} ({g.document_target(self.grid.rows[row][col])})"
            return None
        return None

    def _problem(self, row: int, col: int) -> str:
        value = self.grid.rows[row][col]
        if value == "" or value is None or value is True or value is False:
            return ""
        return g.cell_problem(self.grid.columns[col], value, self._exists)

    def _exists(self, doc_id: str) -> bool:
        name = self._names.get(doc_id, False)
        if name is False:
            name = self._names[doc_id] = self.name_of(doc_id)
        return name is not None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return self._flags[index.column()]

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.CheckStateRole:
            value = Qt.CheckState(value) == Qt.CheckState.Checked
        elif role != Qt.ItemDataRole.EditRole:
            return False
        if value == self.grid.value(row, col):
            return False
        title = str(self.grid.columns[col].get("title") or g.column_name(col))
        self.commit(g.set_value(self.grid, row, col, value), f"Edit {title}{row + 1}")
        return True

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:
            if role == Qt.ItemDataRole.DisplayRole:
                return str(section + 1)
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return None
        if not 0 <= section < self.grid.column_count:
            return None
        column = self.grid.columns[section]
        kind = g.column_type(column)
        if role == Qt.ItemDataRole.DisplayRole:
            return str(column.get("title") or column.get("name") or g.column_name(section))
        if role == Qt.ItemDataRole.DecorationRole:
            return type_icon(kind)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{g.TYPE_LABELS[kind]} column “{column.get('title', '')}” (name: {column.get('name', '')})"
        return None


class GridProxy(QSortFilterProxyModel):
    """Sorts (numbers as numbers, dates as dates, empty cells last) and filters by text; the
    order lasts until the next sort, so an edited row does not jump away under the cursor."""

    def __init__(self, source: GridTableModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.grid_model = source
        self.query = ""
        self.sort_column = -1
        self.descending = False
        self._keys: list[tuple[int, Any]] | None = None
        self.setDynamicSortFilter(False)  # the editor sets the grid as source while it sorts or filters

    @property
    def active(self) -> bool:
        """Whether the view is sorted or filtered (rows are then not in the data's order)."""
        return self.sort_column >= 0 or bool(self.query.strip())

    def set_query(self, text: str) -> None:
        if not hasattr(self, "beginFilterChange"):  # Qt < 6.9
            self.query = text
            self.invalidateRowsFilter()
            return
        self.beginFilterChange()
        self.query = text
        self.grid_model.forget_names()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        if not self.query:
            return True
        model = self.grid_model
        return g.row_matches(model.grid, source_row, self.query, model.display_text)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column = column
        self.descending = order == Qt.SortOrder.DescendingOrder
        grid = self.grid_model.grid
        if 0 <= column < grid.column_count:
            spec = grid.columns[column]
            self._keys = [g.sort_key(spec, grid.value(r, column)) for r in range(grid.row_count)]
        try:
            super().sort(column, order)
        finally:
            self._keys = None

    def lessThan(self, left: _Index, right: _Index) -> bool:
        keys = self._keys
        if keys is None:
            grid = self.grid_model.grid
            spec = grid.columns[left.column()]
            a, b = g.sort_key(spec, grid.value(left.row(), left.column())), \
                g.sort_key(spec, grid.value(right.row(), right.column()))
        else:
            a, b = keys[left.row()], keys[right.row()]
        if (a[0] == 2) != (b[0] == 2):  # empty cells last in both directions
            return (b[0] == 2) != self.descending
        return a < b


class GridDelegate(QStyledItemDelegate):
    """The editor of each column type: a number field, a list of choices, a date picker, a
    colour field, a list of the project's images or documents; text otherwise."""

    def __init__(self, model: GridTableModel, choices: Callable[[str], list[tuple[str, str]]],
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.grid_model = model
        self.choices = choices  # "document" or "image" -> [(label, id)]

    def _kind(self, index: _Index) -> str:
        return self.grid_model.kind(index.column())

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        kind = self._kind(index)
        column = self.grid_model.grid.columns[index.column()]
        if kind == "number":
            edit = QLineEdit(parent)
            edit.setAlignment(Qt.AlignmentFlag.AlignRight)
            edit.setValidator(QRegularExpressionValidator(QRegularExpression(r"^[+-]?\d*([.,]\d*)?([eE][+-]?\d*)?$"),
                                                          edit))
            return edit
        if kind == "dropdown":
            combo = QComboBox(parent)
            options = g.column_options(column)
            combo.setEditable(not options)
            combo.addItem("", "")
            for option_text in options:
                combo.addItem(option_text, option_text)
            return combo
        if kind == "calendar":
            date_edit = QDateEdit(parent)
            date_edit.setCalendarPopup(True)
            date_edit.setDisplayFormat("yyyy-MM-dd")
            return date_edit
        if kind == "color":
            edit = QLineEdit(parent)
            edit.setPlaceholderText("#rrggbb")
            edit.setValidator(QRegularExpressionValidator(QRegularExpression(r"^#?[0-9a-fA-F]{0,6}$"), edit))
            return edit
        if kind in ("document", "image"):
            combo = QComboBox(parent)
            combo.setEditable(True)
            combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
            combo.addItem("(none)", "")
            for label, doc_id in self.choices(kind):
                combo.addItem(label, doc_id)
            completer = combo.completer()
            if completer is not None:
                completer.setFilterMode(Qt.MatchFlag.MatchContains)
                completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
            return combo
        return super().createEditor(parent, option, index)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        value = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, QDateEdit):
            day = g.parse_date(value)
            editor.setDate(QDate(day.year, day.month, day.day) if day else QDate.currentDate())
        elif isinstance(editor, QComboBox):
            target = g.document_target(value) if self._kind(index) in ("document", "image") else str(value or "")
            found = editor.findData(target)
            if found < 0 and target:
                editor.addItem(target, target)
                found = editor.count() - 1
            editor.setCurrentIndex(max(0, found))
        elif isinstance(editor, QLineEdit):
            editor.setText(g.cell_text(self.grid_model.grid.columns[index.column()], value))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: _Index) -> None:
        if isinstance(editor, QDateEdit):
            value: Any = editor.date().toString("yyyy-MM-dd")
        elif isinstance(editor, QComboBox):
            typed = editor.currentText()
            value = editor.currentData() if editor.findText(typed) == editor.currentIndex() else typed
            if value is None:
                value = typed
        elif isinstance(editor, QLineEdit):
            value = editor.text()
        else:
            super().setModelData(editor, model, index)
            return
        model.setData(index, value, Qt.ItemDataRole.EditRole)


class RadioDelegate(GridDelegate):
    """A radio column: the model draws a round button per cell (a picture, no Python painting);
    clicking one selects it and clears the others."""

    def editorEvent(self, event: Any, model: Any, option: QStyleOptionViewItem, index: _Index) -> bool:
        if event.type() == QEvent.Type.MouseButtonRelease and index.data(Qt.ItemDataRole.EditRole) is not True:
            model.setData(index, True, Qt.ItemDataRole.EditRole)
            return True
        return False


def swatch(colour: str, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)
