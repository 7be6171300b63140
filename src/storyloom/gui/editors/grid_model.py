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
    QAbstractProxyModel,
    QAbstractTableModel,
    QDate,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QRegularExpression,
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
# Check states as ints (what multiData hands Qt); data() gives Python callers the enum.
_CHECKED, _UNCHECKED = int(Qt.CheckState.Checked.value), int(Qt.CheckState.Unchecked.value)
_CHECK_STATES = {_CHECKED: Qt.CheckState.Checked, _UNCHECKED: Qt.CheckState.Unchecked}
# Types whose cell shows its value as it is stored, and types with a picture.
_PLAIN_TYPES = frozenset({"text", "number", "dropdown", "calendar", "color", "hidden"})
_DECORATED_TYPES = frozenset({"color", "radio", "image"})
_BOLD = ("bold", "600", "700")
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
        # What is wrong with each painted cell (a date or number parsed once, not per paint);
        # forgotten on every change and with the names.
        self._problems: dict[tuple[int, int], str] = {}
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
        self._problems.clear()

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
        self._problems.clear()

    def apply(self, change: g.Change) -> g.Change:
        """Perform ``change`` with the signals the views need; returns its inverse."""
        grid = self.grid
        root = QModelIndex()
        if isinstance(change, g.Batch):
            return g.Batch(tuple(self.apply(c) for c in change.changes)[::-1])
        self._problems.clear()
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
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        """One call from Qt per cell (the base class asks rowCount and columnCount: two)."""
        if 0 <= row < self._rows and 0 <= column < self._cols and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

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
        value = self.cell_data(index.row(), index.column(), role)
        return _CHECK_STATES[value] if role == _CHECK and value is not None else value

    def multiData(self, index: _Index, roleDataSpan: Any) -> None:
        """Every role a painted cell asks for, in one call from Qt (its delegate asks for seven)."""
        self.fill_roles(index.row(), index.column(), roleDataSpan)

    def fill_roles(self, row: int, col: int, span: Any) -> None:
        """Set the roles of ``span`` for a data cell: the seven a painted cell asks for from one
        look at the cell (its type, value and style read once), any other from :meth:`cell_data`."""
        kind = self._kinds[col]
        value = self.grid.rows[row][col]
        style = self._style(row, col) if self.grid.style else None
        for role_data in span:
            role = role_data.role()
            if role == _DISPLAY:
                shown: Any = value if type(value) is str and kind in _PLAIN_TYPES else self.display_text(row, col)
            elif role == _FONT:
                shown = self._bold if style and style.get("font-weight") in _BOLD else None
            elif role == _ALIGNMENT:
                align = _ALIGN.get(style.get("text-align", "")) if style else None
                shown = (_RIGHT if kind == "number" else _LEFT) if align is None else \
                    int(align | Qt.AlignmentFlag.AlignVCenter)
            elif role == _CHECK:
                shown = (_CHECKED if value is True else _UNCHECKED) if kind == "checkbox" else None
            elif role == _DECORATION:
                shown = self.cell_data(row, col, role) if kind in _DECORATED_TYPES else None
            elif role == _FOREGROUND:
                shown = self.cell_data(row, col, role) if style or kind in _CHECKED_TYPES else None
            elif role == _BACKGROUND:
                shown = self.cell_data(row, col, role) if style else None
            else:
                shown = self.cell_data(row, col, role)
            if shown is None:
                role_data.clearData()
            else:
                role_data.setData(shown)

    def cell_data(self, row: int, col: int, role: int) -> Any:
        """The value of ``role`` for a data cell (the check state as an int: Qt reads either)."""
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
                return self._bold if style.get("font-weight") in _BOLD else None
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
        problem = self._problems.get((row, col))
        if problem is None:
            problem = self._problems[(row, col)] = g.cell_problem(self.grid.columns[col], value, self._exists)
        return problem

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


class GridProxy(QAbstractProxyModel):
    """Sorts (numbers as numbers, dates as dates, empty cells last) and filters by text; the
    order lasts until the next sort, so an edited row does not jump away under the cursor.

    The order is a list of data rows (:func:`storyloom.project.grids.sort_rows`, one key per
    distinct value): sorting 10,000 rows is one Python sort, not Python called from Qt for each
    of some 140,000 comparisons. A painted cell reads the grid's model directly (one call, as
    unsorted)."""

    def __init__(self, source: GridTableModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.grid_model = source
        self.query = ""
        self.sort_column = -1
        self.descending = False
        self._rows: list[int] = []  # view row -> data row
        self._where: list[int] = []  # data row -> view row (-1: filtered out)
        self._links: list[tuple[Any, Any]] = []

    @property
    def active(self) -> bool:
        """Whether the view is sorted or filtered (rows are then not in the data's order)."""
        return self.sort_column >= 0 or bool(self.query.strip())

    # ------------------------------------------------------------------ the order
    def _matching(self) -> list[int]:
        """The data rows the filter keeps, in the data's order."""
        return g.matching_rows(self.grid_model.grid, self.query, self.grid_model.display_text)

    def _sorted(self, rows: list[int]) -> list[int]:
        grid = self.grid_model.grid
        if 0 <= self.sort_column < grid.column_count:
            return g.sort_rows(grid, rows, self.sort_column, self.descending)
        return sorted(rows, reverse=self.descending)

    def _set_rows(self, rows: list[int]) -> None:
        self._rows = rows
        where = [-1] * self.grid_model.grid.row_count
        for view_row, row in enumerate(rows):
            where[row] = view_row
        self._where = where

    def _relayout(self, rows: list[int]) -> None:
        """Show ``rows``; the selection and the cursor follow their data rows."""
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        old = self._rows
        self._set_rows(rows)
        after = []
        for index in before:
            view_row = self._where[old[index.row()]] if 0 <= index.row() < len(old) else -1
            after.append(self.createIndex(view_row, index.column()) if view_row >= 0 else QModelIndex())
        self.changePersistentIndexList(before, after)
        self.layoutChanged.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Order the rows shown by ``column`` (-1: the data's order); equal cells keep the order
        they had."""
        self.sort_column = column
        self.descending = order == Qt.SortOrder.DescendingOrder
        self._relayout(self._sorted(self._rows))

    def set_query(self, text: str) -> None:
        """Show the rows with a cell containing ``text`` (sorted as the view is)."""
        self.query = text
        self.grid_model.forget_names()
        self._relayout(self._sorted(self._matching()))

    # ------------------------------------------------------------------ the source's changes
    def setSourceModel(self, source: Any) -> None:
        """The grid's model (the rows in the data's order, filtered), or None."""
        old = self.sourceModel()
        if old is not None:
            for signal, slot in self._links:
                signal.disconnect(slot)
            self._links = []
        self.beginResetModel()
        super().setSourceModel(source)
        if source is not None:
            self._links = [
                (source.dataChanged, self._data_changed),
                (source.headerDataChanged, self._header_changed),
                (source.rowsInserted, self._rows_inserted),
                (source.rowsAboutToBeRemoved, self._rows_removing),
                (source.rowsRemoved, self._rows_removed),
                (source.rowsMoved, self._rows_moved),
                (source.columnsAboutToBeInserted, self._columns_inserting),
                (source.columnsInserted, self.endInsertColumns),
                (source.columnsAboutToBeRemoved, self._columns_removing),
                (source.columnsRemoved, self.endRemoveColumns),
                (source.columnsAboutToBeMoved, self._columns_moving),
                (source.columnsMoved, self.endMoveColumns),
                (source.modelAboutToBeReset, self.beginResetModel),
                (source.modelReset, self._reset),
            ]
            for signal, slot in self._links:
                signal.connect(slot)
            self._set_rows(self._matching())
        else:
            self._set_rows([])
        self.endResetModel()

    def _reset(self) -> None:
        self._set_rows(self._sorted(self._matching()))
        self.endResetModel()

    def _data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any = ()) -> None:
        where = self._where
        shown = [where[r] for r in range(top_left.row(), bottom_right.row() + 1) if r < len(where) and where[r] >= 0]
        if shown:
            self.dataChanged.emit(self.index(min(shown), top_left.column()),
                                  self.index(max(shown), bottom_right.column()))

    def _header_changed(self, orientation: Qt.Orientation, first: int, last: int) -> None:
        if orientation == Qt.Orientation.Horizontal:
            self.headerDataChanged.emit(orientation, first, last)

    def _rows_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        """New data rows the filter keeps appear where their data-row number would sort among
        the rows shown (as Qt's sort-and-filter model places rows it does not sort again)."""
        count = last - first + 1
        rows = [r + count if r >= first else r for r in self._rows]
        model = self.grid_model
        query = self.query
        new = [r for r in range(first, last + 1)
               if not query.strip() or g.row_matches(model.grid, r, query, model.display_text)]
        low, high = 0, len(rows) - 1
        while low <= high:
            middle = (low + high) // 2
            if first < rows[middle]:
                high = middle - 1
            else:
                low = middle + 1
        if new:
            self.beginInsertRows(QModelIndex(), low, low + len(new) - 1)
        self._set_rows(rows[:low] + new + rows[low:])
        if new:
            self.endInsertRows()

    def _rows_removing(self, _parent: QModelIndex, first: int, last: int) -> None:
        where = self._where
        gone = sorted(where[r] for r in range(first, last + 1) if r < len(where) and where[r] >= 0)
        while gone:  # contiguous runs of view rows, the last first
            end = gone.pop()
            start = end
            while gone and gone[-1] == start - 1:
                start = gone.pop()
            self.beginRemoveRows(QModelIndex(), start, end)
            del self._rows[start:end + 1]
            self.endRemoveRows()

    def _rows_removed(self, _parent: QModelIndex, first: int, last: int) -> None:
        count = last - first + 1
        self._set_rows([r - count if r > last else r for r in self._rows if not first <= r <= last])

    def _rows_moved(self, _parent: QModelIndex, start: int, end: int, _destination: QModelIndex, to: int) -> None:
        """The same rows shown in the same places: only their data-row numbers change."""
        count = end - start + 1
        order = list(range(self.grid_model.grid.row_count))
        block = order[start:end + 1]
        rest = order[:start] + order[end + 1:]
        at = to if to <= start else to - count
        moved = rest[:at] + block + rest[at:]  # new data row -> old data row
        renumber = [0] * len(moved)
        for new_row, old_row in enumerate(moved):
            renumber[old_row] = new_row
        self.layoutAboutToBeChanged.emit()
        self._set_rows([renumber[r] for r in self._rows])
        self.layoutChanged.emit()

    def _columns_inserting(self, _parent: QModelIndex, first: int, last: int) -> None:
        self.beginInsertColumns(QModelIndex(), first, last)

    def _columns_removing(self, _parent: QModelIndex, first: int, last: int) -> None:
        self.beginRemoveColumns(QModelIndex(), first, last)

    def _columns_moving(self, _parent: QModelIndex, start: int, end: int, _destination: QModelIndex,
                        to: int) -> None:
        self.beginMoveColumns(QModelIndex(), start, end, QModelIndex(), to)

    # ------------------------------------------------------------------ Qt model
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if 0 <= row < len(self._rows) and 0 <= column < self.grid_model._cols and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def parent(self, child: Any = None) -> Any:  # type: ignore[override]
        if child is None:  # QObject.parent()
            return super().parent()
        return QModelIndex()

    def sibling(self, row: int, column: int, _index: _Index) -> QModelIndex:
        return self.index(row, column)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self.grid_model._cols

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:
        return not parent.isValid() and bool(self._rows) and self.grid_model._cols > 0

    def mapToSource(self, proxyIndex: _Index) -> QModelIndex:
        if not proxyIndex.isValid() or not 0 <= proxyIndex.row() < len(self._rows):
            return QModelIndex()
        return self.grid_model.index(self._rows[proxyIndex.row()], proxyIndex.column())

    def mapFromSource(self, sourceIndex: _Index) -> QModelIndex:
        if not sourceIndex.isValid() or not 0 <= sourceIndex.row() < len(self._where):
            return QModelIndex()
        view_row = self._where[sourceIndex.row()]
        return self.createIndex(view_row, sourceIndex.column()) if view_row >= 0 else QModelIndex()

    def data(self, index: _Index, role: int = _DISPLAY) -> Any:
        return self.grid_model.data(self.mapToSource(index), role)

    def multiData(self, index: _Index, roleDataSpan: Any) -> None:
        self.grid_model.fill_roles(self._rows[index.row()], index.column(), roleDataSpan)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return self.grid_model.flags(index) if index.isValid() else Qt.ItemFlag.NoItemFlags

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        return self.grid_model.setData(self.mapToSource(index), value, role)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:  # the data row's number
            if not 0 <= section < len(self._rows):
                return None
            section = self._rows[section]
        return self.grid_model.headerData(section, orientation, role)


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
