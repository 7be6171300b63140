"""The Grid editor: a spreadsheet on a :class:`QTableView` over a model (10,000 rows scroll as
smoothly as ten: nothing is made per cell).

Columns have types (text, numeric, dropdown, checkbox, radio, date, colour, image, document,
hidden), each with its own cell editor. Rows and columns are added, removed, moved (drag a
header, or Alt+arrows) and resized; ranges copy and paste as tab-separated text, so they go to
and from other spreadsheets; CSV files import and export; sorting (click a header) and the
filter field change the view, never the data's order. Every step is undoable (Ctrl+Z,
Ctrl+Shift+Z). The rules are in :mod:`storyloom.project.grids`; the editor saves through the
gate like every editor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QPixmap,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QColorDialog,
    QDialog,
    QFileDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qdebounced

from storyloom.app.attachments import read_blob
from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.grid_model import GridDelegate, GridProxy, GridTableModel, RadioDelegate
from storyloom.gui.editors.grid_parts import ColumnDialog, GridCommand, GridView, ResizeCommand
from storyloom.gui.editors.markdown_pane import open_document
from storyloom.gui.editors.preview_images import decode_image
from storyloom.gui.widgets import add_stretch, tool_strip
from storyloom.output_files import OutputError, write_chunks
from storyloom.project import NOT_LINKABLE_TYPES
from storyloom.project import grids as g
from storyloom.words import counted

ROW_HEIGHT = 28
FILTER_MS = 200
_ATTACHMENT = "Attachment"


def _tool(icon: str, tip: str, slot: Any, text: str = "") -> QToolButton:
    button = QToolButton()
    button.setIcon(qta.icon(icon))
    button.setToolTip(tip)
    button.setAutoRaise(True)
    if text:
        button.setText(text)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.clicked.connect(lambda _checked=False: slot())
    return button


class GridEditor(DocumentEditor):
    """A Grid document. ``edited`` fires after every step (done, undone or redone)."""

    edited = Signal()

    # ------------------------------------------------------------------ body
    def build_body(self) -> QWidget:
        self.undo_stack = QUndoStack(self)
        self.model = GridTableModel()
        self.model.commit = self.commit
        self.model.name_of = self._link_name
        self.model.thumbnail = self._thumbnail
        self.proxy = GridProxy(self.model, self)
        self._thumbs: dict[str, QIcon | None] = {}
        self._laying_out = False
        self._custom_heights: set[int] = set()
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(theme.XL, 0, theme.XL, theme.L)
        layout.setSpacing(theme.S)
        layout.addWidget(self._toolbar())
        self.view = GridView(self)
        self.view.setObjectName("gridView")
        self.view.setModel(self.model)  # the proxy comes in only to sort or filter (it costs per cell)
        self.delegate = GridDelegate(self.model, self._choices, self.view)
        self.radio_delegate = RadioDelegate(self.model, self._choices, self.view)
        self.view.setItemDelegate(self.delegate)
        self.view.setSortingEnabled(False)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self._triggers = (QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                          | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.view.setEditTriggers(self._triggers)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.view.horizontalHeader()
        header.setSectionsMovable(True)
        header.setSectionsClickable(True)
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.sectionResized.connect(self._column_resized)
        header.sectionMoved.connect(self._column_dragged)
        header.sectionClicked.connect(self._header_clicked)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        rows = self.view.verticalHeader()
        rows.setDefaultSectionSize(ROW_HEIGHT)
        rows.setMinimumSectionSize(18)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        rows.setSectionsMovable(True)
        rows.sectionResized.connect(self._row_resized)
        rows.sectionMoved.connect(self._row_dragged)
        rows.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        rows.customContextMenuRequested.connect(self._row_menu)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._cell_menu)
        self.view.doubleClicked.connect(self._double_clicked)
        layout.addWidget(self.view, 1)
        self.model.structure_changed.connect(self.lay_out)
        self._filter_later = qdebounced(self._apply_filter, timeout=FILTER_MS, parent=self)
        self.undo_stack.canUndoChanged.connect(self.undo_button.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        self.setFocusProxy(self.view)
        return body

    def _toolbar(self) -> QToolBar:
        bar = tool_strip("gridToolbar")  # what does not fit goes into its » menu
        self.undo_button = _tool("ph.arrow-counter-clockwise", "Undo (Ctrl+Z)", self.undo)
        self.redo_button = _tool("ph.arrow-clockwise", "Redo (Ctrl+Shift+Z)", self.redo)
        self.edit_buttons = [
            _tool("ph.rows", "Add a row below the current one", self.add_row, "Row"),
            _tool("ph.columns", "Add a column right of the current one", self.add_column, "Column"),
            _tool("ph.sliders-horizontal", "The current column's title, type and choices", self.edit_column,
                  "Column settings"),
            _tool("ph.file-arrow-down", "Replace the cells with a CSV file's", self.import_csv_dialog, "Import CSV"),
        ]
        export = _tool("ph.file-arrow-up", "Save the grid as a CSV file", self.export_csv_dialog, "Export CSV")
        for button in (self.undo_button, self.redo_button, *self.edit_buttons, export):
            bar.addWidget(button)
        add_stretch(bar)
        self.count_label = QLabel()
        self.count_label.setObjectName("fieldHint")
        bar.addWidget(self.count_label)
        self.sort_button = _tool("ph.x", "Show the rows in the data's order", self.clear_sort, "Clear sort")
        self._sort_action = bar.addWidget(self.sort_button)  # shown through its action (a toolbar's rule)
        self._sort_action.setVisible(False)
        self.show_hidden = QCheckBox("Hidden columns")
        self.show_hidden.setToolTip("Show the columns of type Hidden")
        self.show_hidden.toggled.connect(lambda _on: self.lay_out())
        bar.addWidget(self.show_hidden)
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("gridFilter")
        self.filter_edit.setPlaceholderText("Filter rows")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.addAction(qta.icon("ph.magnifying-glass", color=theme.colors().muted),
                                   QLineEdit.ActionPosition.LeadingPosition)
        self.filter_edit.setFixedWidth(220)
        self.filter_edit.textChanged.connect(lambda _t: self._filter_later())
        bar.addWidget(self.filter_edit)
        return bar

    # ------------------------------------------------------------------ document
    def apply_document(self, doc: dict[str, Any]) -> None:
        self.model.set_grid(g.Grid.from_content(doc.get("content")))
        self.undo_stack.clear()
        self._resort()

    def changes(self) -> dict[str, Any]:
        return {"content": self.model.grid.to_content()}

    def commit(self, change: g.Change, label: str) -> None:
        """Do ``change`` as one undoable step (nothing while the document is read-only)."""
        if getattr(self, "read_only", False):
            return
        self.undo_stack.push(GridCommand(self, change, label))

    def undo(self) -> None:
        if not getattr(self, "read_only", False):
            self.undo_stack.undo()

    def redo(self) -> None:
        if not getattr(self, "read_only", False):
            self.undo_stack.redo()

    def set_read_only(self, read_only: bool) -> None:
        """Locked by someone else: the grid shows, sorts and filters, and changes nothing."""
        self.read_only = read_only
        self.name_edit.setReadOnly(read_only)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers if read_only else self._triggers)
        for button in self.edit_buttons:
            button.setEnabled(not read_only)
        self.undo_button.setEnabled(not read_only and self.undo_stack.canUndo())
        self.redo_button.setEnabled(not read_only and self.undo_stack.canRedo())
        self.view.horizontalHeader().setSectionsMovable(not read_only)
        self.view.verticalHeader().setSectionsMovable(not read_only and not self.proxy.active)

    def changed(self) -> None:
        self.mark_dirty()
        self._update_count()
        self.edited.emit()

    # ------------------------------------------------------------------ layout of the view
    def lay_out(self) -> None:
        """Widths, hidden columns, per-column delegates and row heights from the grid."""
        self._laying_out = True
        try:
            grid = self.model.grid
            header = self.view.horizontalHeader()
            show_hidden = self.show_hidden.isChecked()
            for col, column in enumerate(grid.columns):
                kind = g.column_type(column)
                self.view.setColumnHidden(col, kind == "hidden" and not show_hidden)
                if header.sectionSize(col) != g.column_width(column):
                    header.resizeSection(col, g.column_width(column))
                self.view.setItemDelegateForColumn(col, self.radio_delegate if kind == "radio" else None)
            rows = self.view.verticalHeader()
            for view_row in self._custom_heights:
                if view_row < self.shown_model().rowCount():
                    rows.resizeSection(view_row, ROW_HEIGHT)
            self._custom_heights.clear()
            for key, height in grid.heights.items():
                if key.isdigit() and int(key) < grid.row_count:
                    view_row = self._view_index(int(key), 0).row()
                    if view_row >= 0:
                        rows.resizeSection(view_row, height)
                        self._custom_heights.add(view_row)
            rows.setSectionsMovable(not self.proxy.active)
        finally:
            self._laying_out = False
        self._update_count()

    def _update_count(self) -> None:
        total, shown = self.model.grid.row_count, self.shown_model().rowCount()
        self.count_label.setText(f"{shown:,} of {counted(total, 'row')}" if shown != total else counted(total, "row"))

    # ------------------------------------------------------------------ sort and filter
    def _header_clicked(self, col: int) -> None:
        if self.proxy.sort_column == col:
            order = Qt.SortOrder.AscendingOrder if self.proxy.descending else Qt.SortOrder.DescendingOrder
        else:
            order = Qt.SortOrder.AscendingOrder
        self.sort_by(col, order)

    def sort_by(self, col: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the view (the data keeps its order)."""
        self._show_proxy(True)
        self.proxy.sort(col, order)
        header = self.view.horizontalHeader()
        header.setSortIndicatorShown(True)
        header.setSortIndicator(col, order)
        self._sort_action.setVisible(True)
        self.lay_out()

    def clear_sort(self) -> None:
        if self.view.model() is self.proxy:
            self.proxy.sort(-1)
        self.proxy.sort_column = -1
        self._show_proxy(self.proxy.active)
        self.view.horizontalHeader().setSortIndicatorShown(False)
        self._sort_action.setVisible(False)
        self.lay_out()

    def _resort(self) -> None:
        if self.proxy.sort_column >= 0 and self.view.model() is self.proxy:
            order = Qt.SortOrder.DescendingOrder if self.proxy.descending else Qt.SortOrder.AscendingOrder
            self.proxy.sort(self.proxy.sort_column, order)
        self.lay_out()

    def set_filter(self, text: str) -> None:
        self.filter_edit.setText(text)
        self._apply_filter()

    def _apply_filter(self) -> None:
        self._filter_later.cancel()
        text = self.filter_edit.text()
        if text.strip() or self.proxy.sort_column >= 0:
            self._show_proxy(True)
            self.proxy.set_query(text)
        else:
            self.proxy.query = ""
            self._show_proxy(False)
        self.lay_out()

    def shown_model(self) -> Any:
        """The model the view shows: the grid's own, or the sorted and filtered proxy."""
        return self.view.model()

    def _show_proxy(self, on: bool) -> None:
        if on == (self.view.model() is self.proxy):
            return
        current = self.current_cell()
        if on:
            self.proxy.setSourceModel(self.model)
            self.view.setModel(self.proxy)
        else:
            self.view.setModel(self.model)
            self.proxy.setSourceModel(None)
        self.lay_out()
        if current[0] >= 0:
            self.select_cell(*current)

    def _view_index(self, row: int, col: int) -> QModelIndex:
        index = self.model.index(row, col)
        return self.proxy.mapFromSource(index) if self.view.model() is self.proxy else index

    # ------------------------------------------------------------------ where the user is
    def _source(self, view_index: QModelIndex) -> QModelIndex:
        return self.proxy.mapToSource(view_index) if view_index.model() is self.proxy else view_index

    def current_cell(self) -> tuple[int, int]:
        """(row, column) of the data under the cursor; (-1, -1) when none."""
        index = self._source(self.view.currentIndex())
        return (index.row(), index.column()) if index.isValid() else (-1, -1)

    def select_cell(self, row: int, col: int) -> None:
        """Put the cursor on a data cell (showing it)."""
        index = self._view_index(row, col)
        if index.isValid():
            self.view.setCurrentIndex(index)
            self.view.scrollTo(index)

    def _selected_view_cells(self) -> list[QModelIndex]:
        indexes = self.view.selectionModel().selectedIndexes()
        if not indexes and self.view.currentIndex().isValid():
            indexes = [self.view.currentIndex()]
        return [i for i in indexes if not self.view.isColumnHidden(i.column())]

    def selected_rows(self) -> list[int]:
        """Data rows of the selection (or of the cursor)."""
        return sorted({self._source(i).row() for i in self._selected_view_cells()})

    def _visible_columns(self) -> list[int]:
        return [c for c in range(self.model.grid.column_count) if not self.view.isColumnHidden(c)]

    # ------------------------------------------------------------------ rows and columns
    def add_row(self, below: bool = True) -> None:
        row, _col = self.current_cell()
        at = self.model.grid.row_count if row < 0 else row + (1 if below else 0)
        self.commit(g.insert_rows(self.model.grid, at), "Add row")
        self.select_cell(at, max(0, _col))

    def remove_rows(self) -> None:
        rows = self.selected_rows()
        if rows:
            self.commit(g.remove_rows(rows), "Delete row" if len(rows) == 1 else f"Delete {len(rows)} rows")

    def move_rows(self, step: int) -> None:
        """Move the selected rows (a block) one up (``-1``) or down (``1``); not in a sorted view."""
        rows = self.selected_rows()
        if not rows or self.proxy.active:
            return
        start, count = rows[0], rows[-1] - rows[0] + 1
        to = start + step
        if to < 0 or to + count > self.model.grid.row_count:
            return
        col = self.current_cell()[1]
        self.commit(g.MoveRows(start, count, to), "Move rows")
        self.view.clearSelection()
        self.select_cell(to, max(0, col))

    def add_column(self, kind: str = "text", title: str = "", at: int | None = None) -> int:
        grid = self.model.grid
        if at is None:
            col = self.current_cell()[1]
            at = grid.column_count if col < 0 else col + 1
        column = g.new_column(title or f"Column {g.column_name(at)}", kind, grid.columns)
        self.commit(g.InsertColumn(at, column), "Add column")
        return at

    def remove_column(self, col: int | None = None) -> None:
        col = self.current_cell()[1] if col is None else col
        if 0 <= col < self.model.grid.column_count:
            self.commit(g.RemoveColumn(col), "Delete column")

    def move_column(self, col: int, to: int) -> None:
        grid = self.model.grid
        if 0 <= col < grid.column_count and 0 <= to < grid.column_count and col != to:
            self.commit(g.MoveColumn(col, to), "Move column")

    def set_column(self, col: int, **fields: Any) -> None:
        """Change a column's title, type or choices (a new type converts its cells)."""
        self.commit(g.change_column(self.model.grid, col, **fields), "Column settings")

    def edit_column(self, col: int | None = None) -> None:
        col = self.current_cell()[1] if col is None else col
        if not 0 <= col < self.model.grid.column_count:
            return
        dialog = ColumnDialog(self.model.grid.columns[col], self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_column(col, **dialog.fields())

    def _column_resized(self, col: int, old: int, new: int) -> None:
        if self._laying_out or not 0 <= col < self.model.grid.column_count:
            return
        before = self.model.grid.columns[col].get("width")
        if before == new:
            return
        self.undo_stack.push(ResizeCommand(self, "column", col, before, new))

    def _row_resized(self, view_row: int, old: int, new: int) -> None:
        if self._laying_out:
            return
        row = self._source(self.shown_model().index(view_row, 0)).row()
        if row < 0:
            return
        self._custom_heights.add(view_row)
        self.undo_stack.push(ResizeCommand(self, "row", row, self.model.grid.heights.get(str(row)), new))

    def _column_dragged(self, _logical: int, old: int, new: int) -> None:
        header = self.view.horizontalHeader()
        header.blockSignals(True)
        header.moveSection(new, old)  # the header stays in data order; the data moves
        header.blockSignals(False)
        self.move_column(old, new)

    def _row_dragged(self, _logical: int, old: int, new: int) -> None:
        rows = self.view.verticalHeader()
        rows.blockSignals(True)
        rows.moveSection(new, old)
        rows.blockSignals(False)
        if not self.proxy.active:
            self.commit(g.MoveRows(old, 1, new), "Move row")

    # ------------------------------------------------------------------ clipboard
    def copy_text(self) -> str:
        """The selection's bounding rectangle (visible columns, view order) as TSV."""
        cells = self._selected_view_cells()
        if not cells:
            return ""
        view_rows = sorted({i.row() for i in cells})
        columns = [c for c in self._visible_columns() if min(i.column() for i in cells) <= c
                   <= max(i.column() for i in cells)]
        rows = range(view_rows[0], view_rows[-1] + 1)
        shown = self.shown_model()
        block = [[self.model.grid.text(self._source(shown.index(r, c)).row(), c) for c in columns] for r in rows]
        return g.to_tsv(block)

    def copy(self) -> None:
        text = self.copy_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    def cut(self) -> None:
        self.copy()
        self.clear_selection()

    def clear_selection(self) -> None:
        cells = [(s.row(), s.column()) for s in (self._source(i) for i in self._selected_view_cells())]
        if cells:
            self.commit(g.clear_cells(self.model.grid, cells), "Clear cells")

    def paste(self, text: str | None = None) -> None:
        """Paste TSV text (the clipboard's when ``text`` is None) at the cursor: one value fills
        every selected cell; a block fills from the cursor down and right, growing the grid past
        its last row or column (in a sorted or filtered view, only the cells shown)."""
        text = QGuiApplication.clipboard().text() if text is None else text
        block = g.parse_tsv(text)
        if not block:
            return
        grid = self.model.grid
        current = self.view.currentIndex()
        if grid.column_count == 0:
            self.commit(g.paste(grid, 0, 0, block), "Paste")
            return
        if not current.isValid():
            current = self.shown_model().index(0, 0) if self.shown_model().rowCount() else QModelIndex()
        selected = self._selected_view_cells()
        if len(block) == 1 and len(block[0]) == 1 and len(selected) > 1:
            targets = [(s.row(), s.column()) for s in (self._source(i) for i in selected)]
            self.commit(g.paste(grid, 0, 0, [[block[0][0]] for _ in targets], targets), "Paste")
            return
        start_row = current.row() if current.isValid() else 0
        start_col = current.column() if current.isValid() else 0
        if not self.proxy.active:
            self.commit(g.paste(grid, self._source(current).row() if current.isValid() else grid.row_count,
                                start_col, block), "Paste")
            return
        columns = [c for c in self._visible_columns() if c >= start_col]
        targets = []
        fitting = []
        for r, line in enumerate(block):
            view_row = start_row + r
            if view_row >= self.shown_model().rowCount():
                break
            fitting.append(line[:len(columns)])
            source_row = self._source(self.shown_model().index(view_row, 0)).row()
            targets.extend((source_row, columns[c]) for c in range(min(len(columns), max(len(x) for x in block))))
        self.commit(g.paste(grid, 0, 0, [line + [""] * (min(len(columns), max(len(x) for x in block)) - len(line))
                                         for line in fitting], targets), "Paste")

    # ------------------------------------------------------------------ CSV
    def import_csv(self, path: str | Path) -> bool:
        """Replace the cells with a CSV file's (undoable); False with a banner when it cannot."""
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
            change = g.from_csv(self.model.grid, text)
        except (OSError, UnicodeDecodeError, g.GridError) as exc:
            self.banner.show_message("error", f"Could not import {Path(path).name}: {exc}")
            return False
        self.commit(change, "Import CSV")
        self._resort()
        return True

    def export_csv(self, path: str | Path) -> bool:
        """Write the grid as CSV to ``path``, replacing it (the save dialog asked), atomically."""
        try:
            write_chunks(path, [g.to_csv(self.model.grid)])
        except OutputError as exc:
            self.banner.show_message("error", f"{str(exc)[:1].upper()}{str(exc)[1:]}.")  # it is a folder
            return False
        except OSError as exc:  # the system's words, not the temporary file's name
            self.banner.show_message("error", f"Could not write {Path(path).name}: {exc.strerror or exc}")
            return False
        self.banner.show_message("info", f"Exported {counted(self.model.grid.row_count, 'row')} to {Path(path).name}.")
        return True

    def import_csv_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import CSV", "", "CSV files (*.csv);;All files (*)")
        if path:
            self.import_csv(path)

    def export_csv_dialog(self) -> None:
        name = (self.name_edit.text() or "grid").strip() + ".csv"
        path, _ = QFileDialog.getSaveFileName(self, "Export CSV", name, "CSV files (*.csv)")
        if path:
            self.export_csv(path)

    # ------------------------------------------------------------------ menus
    def _column_menu(self, pos: QPoint) -> None:
        col = self.view.horizontalHeader().logicalIndexAt(pos)
        if col < 0:
            return
        menu = QMenu(self)
        menu.addAction("Column settings…", lambda: self.edit_column(col))
        menu.addSeparator()
        menu.addAction("Sort ascending", lambda: self.sort_by(col, Qt.SortOrder.AscendingOrder))
        menu.addAction("Sort descending", lambda: self.sort_by(col, Qt.SortOrder.DescendingOrder))
        menu.addSeparator()
        menu.addAction("Insert column left", lambda: self.add_column(at=col))
        menu.addAction("Insert column right", lambda: self.add_column(at=col + 1))
        menu.addAction("Move left", lambda: self.move_column(col, col - 1)).setEnabled(col > 0)
        menu.addAction("Move right", lambda: self.move_column(col, col + 1)).setEnabled(
            col < self.model.grid.column_count - 1)
        menu.addSeparator()
        menu.addAction(qta.icon("ph.trash"), "Delete column", lambda: self.remove_column(col))
        menu.exec(self.view.horizontalHeader().mapToGlobal(pos))

    def _row_menu(self, pos: QPoint) -> None:
        view_row = self.view.verticalHeader().logicalIndexAt(pos)
        if view_row < 0:
            return
        if not self.view.selectionModel().isRowSelected(view_row, QModelIndex()):
            self.view.selectRow(view_row)
        self._rows_menu().exec(self.view.verticalHeader().mapToGlobal(pos))

    def _rows_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction("Insert row above", lambda: self.add_row(below=False))
        menu.addAction("Insert row below", lambda: self.add_row(below=True))
        up = menu.addAction("Move up\tAlt+Up", lambda: self.move_rows(-1))
        down = menu.addAction("Move down\tAlt+Down", lambda: self.move_rows(1))
        for action in (up, down):
            action.setEnabled(not self.proxy.active)
            if self.proxy.active:
                action.setToolTip("Clear the sort and filter to move rows")
        menu.addSeparator()
        menu.addAction(qta.icon("ph.trash"), "Delete rows", self.remove_rows)
        return menu

    def _cell_menu(self, pos: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction("Cut\tCtrl+X", self.cut)
        menu.addAction("Copy\tCtrl+C", self.copy)
        menu.addAction("Paste\tCtrl+V", self.paste)
        menu.addAction("Clear\tDel", self.clear_selection)
        row, col = self.current_cell()
        if col >= 0:
            kind = self.model.kind(col)
            target = g.document_target(self.model.grid.value(row, col)) if row >= 0 else ""
            if kind == "document" and target:
                menu.addAction(qta.icon("ph.arrow-square-out"), "Open document", lambda: open_document(self, target))
            if kind == "color":
                menu.addAction(qta.icon("ph.palette"), "Pick colour…", self.pick_colour)
        menu.addSeparator()
        for action in self._rows_menu().actions():
            menu.addAction(action)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def _double_clicked(self, index: QModelIndex) -> None:
        source = self._source(index)
        if source.isValid() and self.model.kind(source.column()) == "color":
            self.pick_colour()

    def pick_colour(self) -> None:
        row, col = self.current_cell()
        if row < 0:
            return
        value = self.model.grid.value(row, col)
        chosen = QColorDialog.getColor(QColor(value) if isinstance(value, str) and value else QColor("#ffffff"), self)
        if chosen.isValid():
            self.model.setData(self.model.index(row, col), chosen.name())

    def _install_keys(self) -> None:
        for keys, slot in (("Alt+Up", lambda: self.move_rows(-1)), ("Alt+Down", lambda: self.move_rows(1)),
                           ("Ctrl+Y", self.redo),
                           ("Ctrl+Return", self.add_row), ("Ctrl+Shift+Delete", self.remove_rows)):
            action = QAction(self)
            action.setShortcut(QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _c=False, s=slot: s())
            self.view.addAction(action)

    def showEvent(self, event: Any) -> None:
        if not getattr(self, "_keys_installed", False):
            self._install_keys()
            self._keys_installed = True
        self.model.forget_names()
        super().showEvent(event)

    # ------------------------------------------------------------------ links
    def _link_name(self, doc_id: str) -> str | None:
        return self.document_name(doc_id)

    def _choices(self, kind: str) -> list[tuple[str, str]]:
        """The documents (or, for an image column, the attachments) a cell can link to."""
        found = []
        for summary in self.session.index.summaries():
            if kind == "image" and summary.type != _ATTACHMENT:
                continue
            if kind == "document" and (summary.type in NOT_LINKABLE_TYPES or summary.type is None):
                continue
            label = str(summary.name or summary.id)
            found.append((label if kind == "image" else f"{label}  ·  {summary.type}", summary.id))
        return sorted(found, key=lambda item: item[0].casefold())

    def _thumbnail(self, doc_id: str) -> QIcon | None:
        if doc_id not in self._thumbs:
            icon = None
            try:
                data = read_blob(self.session.db, doc_id)
                image = decode_image(data) if data else None
                if image is not None and not image.isNull():
                    icon = QIcon(QPixmap.fromImage(image).scaled(
                        20, 20, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))
            except Exception:  # noqa: BLE001 - a missing or broken attachment shows its name alone
                icon = None
            self._thumbs[doc_id] = icon
        return self._thumbs[doc_id]

    def focus_line(self, line: int) -> None:
        """Search hits and problems name a row (1-based): put the cursor on it."""
        if 0 < line <= self.model.grid.row_count:
            self.select_cell(line - 1, max(0, self.current_cell()[1]))
            self.view.selectionModel().select(self.view.currentIndex(),
                                              QItemSelectionModel.SelectionFlag.ClearAndSelect)
