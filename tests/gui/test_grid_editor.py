"""The Grid editor on the built-in sample: typing in cells by keyboard, rows and columns added,
moved, resized and removed, copy and paste of ranges, CSV, sorting and filtering that leave the
data's order alone, undo and redo of every step, and the saved document equal to what the game
export reads after the tab is closed and opened again."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QApplication

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.grid_editor import GridEditor
from storyloom.project import grids as g
from storyloom.project.sample import create_sample_project


@pytest.fixture
def sample_window(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    project = create_sample_project(workspace.manager)
    name = project.name
    project.close()
    win = open_project_window(workspace, name)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    if not win.session.closed:
        win.close()


def _grid_id(window) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == "Grid")


def _open(window, doc_id: str) -> GridEditor:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, GridEditor)
    return editor


def _column(editor: GridEditor, title: str) -> int:
    return next(i for i, c in enumerate(editor.model.grid.columns) if c.get("title") == title)


def _type_into(qtbot, editor: GridEditor, row: int, col: int, text: str) -> None:  # type: ignore[no-untyped-def]
    editor.select_cell(row, col)
    editor.view.setFocus()
    qtbot.keyClick(editor.view, text[0])  # any key starts editing, like a spreadsheet
    cell = QApplication.focusWidget()
    assert cell is not editor.view
    qtbot.keyClicks(cell, text[1:])
    qtbot.keyClick(cell, Qt.Key.Key_Return)  # the view commits the cell on its next turn
    qtbot.waitUntil(lambda: editor.view.state() != QAbstractItemView.State.EditingState, timeout=2000)


def _exported(window, doc_id: str) -> dict:  # type: ignore[no-untyped-def]
    export = build_game_export(window.session, ["Grids"])
    return next(d for d in export["grids"] if d["_id"] == doc_id)


@pytest.mark.slow
def test_the_sample_grid_shows_each_column_type(sample_window) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _grid_id(sample_window))
    model = editor.model
    script = _column(editor, "Script")
    assert model.index(0, script).data() == "The logbook"  # a document cell shows the document's name
    assert model.index(0, _column(editor, "Solved")).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    pin = model.index(0, _column(editor, "Pin")).data(Qt.ItemDataRole.DecorationRole)
    assert pin.name() == "#c2410c"
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Clue"
    assert editor.view.itemDelegateForColumn(_column(editor, "Key clue")) is editor.radio_delegate
    assert editor.count_label.text() == "3 rows"


@pytest.mark.slow
def test_edit_undo_redo_save_reopen_and_export(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _grid_id(sample_window)
    editor = _open(sample_window, doc_id)
    points = _column(editor, "Points")
    _type_into(qtbot, editor, 1, points, "3")
    assert editor.model.grid.value(1, points) == "3"
    editor.add_row()  # below the cursor (row 2)
    _type_into(qtbot, editor, 2, 0, "The oilcan")
    key = _column(editor, "Key clue")
    editor.model.setData(editor.model.index(2, key), True)  # a radio: the wick's mark goes
    assert [editor.model.grid.value(r, key) for r in range(4)] == [False, False, True, False]
    notes = editor.add_column("number", "Weight", at=1)
    assert editor.model.grid.columns[notes]["type"] == "number"
    editor.move_column(notes, 3)
    assert [c["title"] for c in editor.model.grid.columns][:4] == ["Clue", "Found", "Points", "Weight"]
    steps = editor.undo_stack.count()
    for _ in range(steps):
        qtbot.keyClick(editor.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.model.grid.to_content() == g.Grid.from_content(editor.base["content"]).to_content()
    for _ in range(steps):
        qtbot.keyClick(editor.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier)
    edited = editor.model.grid.to_content()
    assert edited["data"][2][0] == "The oilcan" and edited["data"][1][2] == "3"
    assert editor.save() and not editor.dirty
    stored = sample_window.session.db.get(doc_id)
    assert stored["content"]["data"] == edited["data"] and stored["content"]["columns"] == edited["columns"]
    sample_window.tabs.close_current()
    assert sample_window.tabs.editor(doc_id) is None
    again = _open(sample_window, doc_id)
    assert again.model.grid.to_content() == edited
    exported = _exported(sample_window, doc_id)
    assert exported["content"]["data"] == stored["content"]["data"]
    assert exported["content"]["columns"] == stored["content"]["columns"]


def test_copy_and_paste_ranges_as_tab_separated_text(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _grid_id(sample_window))
    view = editor.view
    view.setCurrentIndex(editor.shown_model().index(0, 0))
    view.selectionModel().select(QItemSelection(editor.shown_model().index(0, 0), editor.shown_model().index(1, 2)),
                                 QItemSelectionModel.SelectionFlag.ClearAndSelect)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert g.parse_tsv(copied) == [["The logbook", "Lamp room desk, last page cut out", "1"],
                                  ["The wick", "The lamp itself, trimmed to a stub", "1"]]
    editor.select_cell(2, 0)
    rows_before = editor.model.grid.row_count
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert editor.model.grid.row_count == rows_before + 1  # the block went past the last row
    assert editor.model.grid.value(3, 0) == "The wick" and editor.model.grid.value(2, 2) == "1"
    # From another spreadsheet: quoted cells with a newline, and a TRUE for a checkbox.
    confirmed = _column(editor, "Solved")
    editor.select_cell(0, confirmed - 1)
    editor.paste('Place\tFALSE\n"two\nlines"\tTRUE\n')
    assert editor.model.grid.value(0, confirmed) is False and editor.model.grid.value(1, confirmed) is True
    assert editor.model.grid.value(1, confirmed - 1) == "two\nlines"
    assert "not one of the choices" in editor.model.index(1, confirmed - 1).data(Qt.ItemDataRole.ToolTipRole)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.model.grid.value(0, confirmed) is True
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # clears the cell under the cursor
    assert editor.model.grid.value(0, confirmed - 1) == ""


def test_sorting_and_filtering_leave_the_data_in_its_order(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _grid_id(sample_window))
    before = [r[0] for r in editor.model.grid.rows]
    pin = _column(editor, "Kind")
    editor.sort_by(pin, Qt.SortOrder.DescendingOrder)
    shown = [editor.shown_model().index(r, 0).data() for r in range(editor.shown_model().rowCount())]
    assert shown == ["The cove lantern", "The logbook", "The wick"]
    assert [r[0] for r in editor.model.grid.rows] == before
    editor.set_filter("wick")
    assert editor.shown_model().rowCount() == 1 and editor.count_label.text() == "1 of 3 rows"
    # A paste in a filtered view lands in the row it shows.
    editor.view.setCurrentIndex(editor.shown_model().index(0, 1))
    editor.paste("In the lamp\textra")
    assert editor.model.grid.value(1, 1) == "In the lamp" and editor.model.grid.row_count == 3
    assert editor.model.grid.value(1, 2) == "extra"  # a number column keeps the text, marked
    assert editor.model.index(1, 2).data(Qt.ItemDataRole.ForegroundRole) is not None
    editor.set_filter("")
    editor.clear_sort()
    assert [editor.shown_model().index(r, 0).data() for r in range(3)] == before
    assert not editor.undo_stack.isClean()


def test_rows_move_resize_and_go(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _grid_id(sample_window))
    editor.select_cell(2, 0)
    qtbot.keyClick(editor.view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert [r[0] for r in editor.model.grid.rows] == ["The logbook", "The cove lantern", "The wick"]
    assert editor.current_cell() == (1, 0)
    editor.view.verticalHeader().resizeSection(0, 60)
    editor.view.verticalHeader().resizeSection(0, 64)  # one drag: one step
    assert editor.model.grid.heights == {"0": 64}
    editor.view.horizontalHeader().resizeSection(0, 300)
    assert editor.model.grid.columns[0]["width"] == 300
    editor.select_cell(0, 0)
    editor.remove_rows()
    assert editor.model.grid.row_count == 2 and editor.model.grid.heights == {}
    editor.undo_stack.undo()
    assert editor.model.grid.heights == {"0": 64}
    assert editor.view.verticalHeader().sectionSize(0) == 64
    editor.undo_stack.undo()
    editor.undo_stack.undo()
    assert editor.model.grid.heights == {} and editor.model.grid.columns[0]["width"] == 130
    # Dragging a header moves the data; the header itself stays in data order.
    header = editor.view.horizontalHeader()
    header.moveSection(0, 2)
    assert [c["title"] for c in editor.model.grid.columns][:3] == ["Found", "Points", "Clue"]
    assert header.logicalIndex(0) == 0
    editor.view.verticalHeader().moveSection(2, 0)
    assert editor.model.grid.rows[0][2] == "The wick"
    editor.undo()
    editor.undo()
    assert [c["title"] for c in editor.model.grid.columns][:3] == ["Clue", "Found", "Points"]
    editor.remove_column(_column(editor, "Pin"))
    assert "Pin" not in [c["title"] for c in editor.model.grid.columns]
    editor.set_column(_column(editor, "Kind"), type="hidden")
    assert editor.view.isColumnHidden(_column(editor, "Kind"))
    editor.show_hidden.setChecked(True)
    assert not editor.view.isColumnHidden(_column(editor, "Kind"))


def test_csv_export_and_import(sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _grid_id(sample_window))
    out = tmp_path / "clues.csv"
    assert editor.export_csv(out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("Clue,Found,Points,Script,Kind,Solved")
    assert len(lines) == 4
    source = tmp_path / "new.csv"
    source.write_text("Clue,Points,Seen by\nThe map,2,Maud\n", encoding="utf-8")
    assert editor.import_csv(source)
    assert [c["title"] for c in editor.model.grid.columns] == ["Clue", "Points", "Seen by"]
    assert editor.model.grid.columns[1]["type"] == "number" and editor.model.grid.rows == [["The map", "2", "Maud"]]
    editor.undo_stack.undo()
    assert editor.model.grid.row_count == 3 and len(editor.model.grid.columns) == 9
    assert not editor.import_csv(tmp_path / "missing.csv")
    assert editor.banner.kind == "error"
    # Written atomically: an existing file replaced whole, no temporary file left, never a folder.
    out.write_text("old", encoding="utf-8")
    assert editor.export_csv(out) and out.read_text(encoding="utf-8").startswith("Clue,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clues.csv", "new.csv"]
    (tmp_path / "folder.csv").mkdir()
    assert not editor.export_csv(tmp_path / "folder.csv")
    assert editor.banner.kind == "error"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clues.csv", "folder.csv", "new.csv"]


@pytest.mark.slow
def test_a_new_grid_is_built_from_nothing(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    result = sample_window.session.editor.create("Grid", "Stats")
    editor = _open(sample_window, result.id)
    assert editor.count_label.text() == "0 rows"
    editor.paste("Name\tCourage\nWren\t3\n")
    assert [c["title"] for c in editor.model.grid.columns] == ["Column A", "Column B"]
    editor.set_column(1, title="Courage", type="number")
    editor.set_column(0, title="Name")
    assert editor.model.grid.rows == [["Name", "Courage"], ["Wren", "3"]]
    editor.select_cell(0, 0)
    editor.remove_rows()
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)  # autosave
    stored = sample_window.session.db.get(result.id)["content"]
    assert stored["data"] == [["Wren", "3"]] and stored["columns"][1]["type"] == "number"
    assert _exported(sample_window, result.id)["content"]["data"] == [["Wren", "3"]]


@pytest.mark.slow
def test_a_grid_locked_by_someone_else_changes_nothing(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.locks_ui import set_read_only

    editor = _open(sample_window, _grid_id(sample_window))
    editor.add_row()
    before = editor.model.grid.to_content()
    set_read_only(editor, True)
    editor.paste("changed")
    editor.select_cell(0, 0)
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    editor.remove_rows()
    qtbot.keyClick(editor.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.model.grid.to_content() == before
    assert editor.view.editTriggers() == QAbstractItemView.EditTrigger.NoEditTriggers
    editor.sort_by(0)  # reading still works
    assert [editor.shown_model().index(r, 0).data() for r in (0, 3)] == ["The cove lantern", ""]  # empty last
    set_read_only(editor, False)
    editor.undo()
    assert editor.model.grid.row_count == 3
