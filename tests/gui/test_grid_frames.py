"""What makes the Grid editor's frames cheap, held to the behaviour of the plain ways: a painted
cell's roles in one call equal what data() says for each, an edit shows at once (nothing stale
from the caches), the sorted view's order (numbers, text, empty cells, ties), its rows following
the data through inserts, removals, moves and undo, and a wheel step painting only the rows it
scrolls in."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QModelRoleData, QModelRoleDataSpan, QObject, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QIcon
from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from storyloom.gui.editors.grid_editor import GridEditor
from storyloom.gui.editors.grid_model import PROBLEM_COLOUR, GridProxy, GridTableModel
from storyloom.gui.editors.grid_parts import GridView
from storyloom.project import grids as g

ROLES = [int(r) for r in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.FontRole,
                          Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ForegroundRole,
                          Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.DecorationRole,
                          Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ToolTipRole)]


def every_type() -> g.Grid:
    """A grid with a column of every painted type, styled cells and cells that are wrong."""
    columns = [
        {"id": "key", "title": "Key", "type": "text", "name": "key"},
        {"id": "gold", "title": "Gold", "type": "number", "name": "gold"},
        {"id": "kind", "title": "Kind", "type": "dropdown", "name": "kind", "source": ["UI", "Item"]},
        {"id": "done", "title": "Done", "type": "checkbox", "name": "done"},
        {"id": "main", "title": "Main", "type": "radio", "name": "main"},
        {"id": "due", "title": "Due", "type": "calendar", "name": "due"},
        {"id": "pin", "title": "Pin", "type": "color", "name": "pin"},
        {"id": "doc", "title": "Doc", "type": "document", "name": "doc"},
        {"id": "secret", "title": "Secret", "type": "hidden", "name": "secret"},
    ]
    data = [
        ["a", "10", "UI", True, True, "2026-01-02", "#ff0000", "doc-1", "x"],
        ["b", "ten", "Quest", False, False, "soon", "red", "doc-gone", ""],
        ["c", "", "", "maybe", False, "", "", "", "y"],
        ["d", "2.5", "Item", False, False, "2025-12-31", "#00ff00", '<div data-doc-id="doc-1">x</div>', ""],
    ]
    style = {"A1": "font-weight: bold; text-align: center", "B2": "color: #0000ff", "C3": "background-color: #eeeeee",
             "D4": "font-weight: 700; color: nonsense"}
    return g.Grid.from_content({"columns": columns, "data": data, "style": style})


def model_of(grid: g.Grid) -> GridTableModel:
    model = GridTableModel(grid)
    model.name_of = lambda doc_id: {"doc-1": "The logbook"}.get(doc_id)
    return model


def one_call(fill: Any, row: int, col: int, role: int) -> Any:
    """What the one-call path (multiData) hands Qt for ``role``."""
    role_data = QModelRoleData(role)
    fill(row, col, QModelRoleDataSpan(role_data))
    return role_data.data()


def same(a: Any, b: Any) -> bool:
    if isinstance(b, Qt.CheckState):
        return a == b.value
    if isinstance(b, QIcon):
        return isinstance(a, QIcon) and a.cacheKey() == b.cacheKey()
    if isinstance(b, (QBrush, QColor, QFont)):
        return type(a) is type(b) and a == b
    return a == b


def test_a_painted_cell_is_what_data_says_for_every_role(qapp) -> None:  # type: ignore[no-untyped-def]
    model = model_of(every_type())
    grid = model.grid
    for row in range(grid.row_count):
        for col in range(grid.column_count):
            for role in ROLES:
                expected = model.index(row, col).data(role)
                got = one_call(model.fill_roles, row, col, role)
                assert same(got, expected), (row, col, role, got, expected)
    # The view asks through multiData: the text and the check box it paints are the model's.
    view = QTableView()
    view.setModel(model)
    option = QStyleOptionViewItem()
    view.itemDelegate().initStyleOption(option, model.index(0, 0))
    assert option.text == "a" and option.font.bold()
    view.itemDelegate().initStyleOption(option, model.index(0, 3))
    assert option.checkState == Qt.CheckState.Checked


def test_an_edit_shows_at_once(qapp) -> None:  # type: ignore[no-untyped-def]
    model = model_of(every_type())
    model.commit = lambda change, _label: model.apply(change)
    foreground = int(Qt.ItemDataRole.ForegroundRole)
    assert one_call(model.fill_roles, 1, 1, foreground) == QBrush(PROBLEM_COLOUR)  # "ten" is not a number
    assert model.index(1, 1).data(Qt.ItemDataRole.ToolTipRole) == "'ten' is not a number"
    model.setData(model.index(1, 1), "10")
    assert one_call(model.fill_roles, 1, 1, foreground) == QBrush(QColor("#0000ff"))  # the cell's own colour
    assert model.index(1, 1).data(Qt.ItemDataRole.ToolTipRole) is None
    assert one_call(model.fill_roles, 1, 1, int(Qt.ItemDataRole.DisplayRole)) == "10"
    model.setData(model.index(1, 1), "eleven")
    assert model.index(1, 1).data(Qt.ItemDataRole.ForegroundRole) == QBrush(PROBLEM_COLOUR)
    model.setData(model.index(3, 5), "")  # a wrong date cleared: no longer painted as wrong
    assert model.index(3, 5).data(Qt.ItemDataRole.ForegroundRole) is None
    # A document that comes into being is no longer a problem once the names are read again.
    names = {"doc-1": "The logbook"}
    model.name_of = names.get
    assert model.index(1, 7).data(Qt.ItemDataRole.ForegroundRole) is not None
    names["doc-gone"] = "Found again"
    model.forget_names()
    assert model.index(1, 7).data(Qt.ItemDataRole.ForegroundRole) is None
    assert model.index(1, 7).data() == "Found again"


def test_sorting_numbers_text_and_empty_cells() -> None:
    grid = g.Grid.from_content({
        "columns": [{"id": "n", "title": "N", "type": "number", "name": "n"},
                    {"id": "t", "title": "T", "type": "text", "name": "t"},
                    {"id": "b", "title": "B", "type": "checkbox", "name": "b"}],
        "data": [["10", "b", True], ["", "A", False], ["2", "", "yes?"], ["x", "a", True], ["2.0", "c", 1],
                 ["-1", "B", False], ["", "a", True]],
    })
    rows = list(range(grid.row_count))
    # Numbers by value, then text that is not a number, empty cells last; equal cells keep their order.
    assert g.sort_rows(grid, rows, 0) == [5, 2, 4, 0, 3, 1, 6]
    assert g.sort_rows(grid, rows, 0, descending=True) == [3, 0, 2, 4, 5, 1, 6]
    assert g.sort_rows(grid, rows, 1) == [1, 3, 6, 0, 5, 4, 2]  # without case; empty last
    assert g.sort_rows(grid, [6, 3, 1], 1) == [6, 3, 1]  # ties keep the order given
    # True and 1 are equal as dict keys but sort apart (True first; 1 and "yes?" are not true).
    assert g.sort_rows(grid, rows, 2) == [0, 3, 6, 1, 2, 4, 5]
    assert g.view_order(grid, 0, query="a") == [5, 3, 1, 6]  # row 5 by its FALSE
    assert g.matching_rows(grid, "X") == [3] and g.matching_rows(grid, " ") == list(range(7))


def _proxy_view(grid: g.Grid) -> tuple[GridTableModel, GridProxy, QTableView]:
    model = model_of(grid)
    proxy = GridProxy(model)
    proxy.setSourceModel(model)
    view = QTableView()
    view.setModel(proxy)
    return model, proxy, view


def _shown(proxy: GridProxy) -> list[str]:
    return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]


def test_the_sorted_view_follows_the_data(qapp) -> None:  # type: ignore[no-untyped-def]
    grid = every_type()
    model, proxy, view = _proxy_view(grid)
    proxy.sort(1, Qt.SortOrder.AscendingOrder)  # Gold: 2.5, 10, "ten", empty
    assert _shown(proxy) == ["d", "a", "b", "c"]
    assert proxy.index(0, 1).data() == "2.5" and proxy.headerData(0, Qt.Orientation.Vertical) == "4"
    view.setCurrentIndex(proxy.index(2, 0))  # "b"
    proxy.sort(0, Qt.SortOrder.DescendingOrder)
    assert _shown(proxy) == ["d", "c", "b", "a"]
    assert view.currentIndex().data() == "b"  # the cursor follows its row
    model.apply(g.InsertRows(1, [["e", "", "", False, False, "", "", "", ""]]))
    assert sorted(_shown(proxy)) == ["a", "b", "c", "d", "e"]
    for view_row in range(proxy.rowCount()):
        source = proxy.mapToSource(proxy.index(view_row, 0))
        assert proxy.mapFromSource(source).row() == view_row
        assert grid.rows[source.row()][0] == proxy.index(view_row, 0).data()
    assert view.currentIndex().data() == "b"
    undo = model.apply(g.RemoveRows(0, 2))  # "a" and "e" go
    assert sorted(_shown(proxy)) == ["b", "c", "d"] and view.currentIndex().data() == "b"
    model.apply(undo)
    moved = model.apply(g.MoveRows(0, 1, 3))
    assert sorted(_shown(proxy)) == ["a", "b", "c", "d", "e"]
    assert [grid.rows[proxy.mapToSource(proxy.index(r, 0)).row()][0] for r in range(5)] == _shown(proxy)
    model.apply(moved)
    model.setData(model.index(0, 0), "z")  # an edit shows in place; the row does not jump
    model.commit = lambda change, _label: model.apply(change)
    model.setData(model.index(0, 0), "z")
    assert "z" in _shown(proxy) and len(_shown(proxy)) == 5
    proxy.set_query("2025")
    assert _shown(proxy) == ["d"]
    proxy.set_query("")
    proxy.sort(-1)
    assert _shown(proxy) == [r[0] for r in grid.rows]


class _Painted(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.heights: list[int] = []

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.heights.append(event.region().boundingRect().height())
        return False


@pytest.fixture
def grid_window(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    project = workspace.manager.create("frames")
    rows = [[f"line {i}", str(i % 7), i % 2 == 0] for i in range(400)]
    content = {"columns": [{"id": "a", "title": "A", "type": "text", "name": "a", "width": 200},
                           {"id": "n", "title": "N", "type": "number", "name": "n"},
                           {"id": "b", "title": "B", "type": "checkbox", "name": "b"}], "data": rows}
    grid_id = project.editor.create("Grid", "Lines", content=content).id
    project.close()
    window = open_project_window(workspace, "frames")
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    yield window, grid_id
    if not window.session.closed:
        window.close()


def test_a_wheel_step_paints_only_the_rows_it_scrolls_in(grid_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window, grid_id = grid_window
    editor = window.tabs.open(grid_id)
    assert isinstance(editor, GridEditor) and isinstance(editor.view, GridView)
    view = editor.view
    qtbot.waitUntil(lambda: view.viewport().isVisible())
    view.viewport().repaint()  # what opening asked for, done
    qtbot.wait(20)
    painted = _Painted()
    view.viewport().installEventFilter(painted)
    bar = view.verticalScrollBar()
    step = 3 * view.verticalHeader().defaultSectionSize()
    for frame in range(1, 5):
        painted.heights.clear()
        bar.setValue(frame * step)
        qtbot.wait(1)
        if frame > 1:  # the first scroll after opening paints the whole viewport once
            assert painted.heights and max(painted.heights) <= step, painted.heights
    view.viewport().removeEventFilter(painted)
    assert view.rowAt(0) == 12 and view.model().index(12, 0).data() == "line 12"
    # What the screen shows (pixels moved and rows painted in) is what a whole repaint draws.
    viewport = view.viewport()
    corner = viewport.mapTo(window, viewport.rect().topLeft())
    on_screen = window.screen().grabWindow(window.winId(), corner.x(), corner.y(), viewport.width(),
                                           viewport.height()).toImage()
    assert on_screen.size() == viewport.size()
    whole = viewport.grab().toImage().convertToFormat(on_screen.format())
    assert on_screen == whole


def test_the_grid_paints_with_fusion_itself_only_in_the_light_theme(grid_window, qapp) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui import theme

    window, grid_id = grid_window
    editor = window.tabs.open(grid_id)
    assert isinstance(editor, GridEditor)
    view = editor.view
    was_dark = theme.colors().dark
    try:
        theme.apply_theme(qapp, dark=False)
        qapp.processEvents()
        assert view.testAttribute(Qt.WidgetAttribute.WA_SetStyle)  # Fusion, no Python proxy per cell
        theme.apply_theme(qapp, dark=True)  # the dark indicators are the app's style's
        qapp.processEvents()
        assert not view.testAttribute(Qt.WidgetAttribute.WA_SetStyle)
    finally:
        theme.apply_theme(qapp, dark=was_dark)
        qapp.processEvents()
    assert view.testAttribute(Qt.WidgetAttribute.WA_SetStyle) != was_dark


def test_a_grid_that_fits_keeps_the_frames_rounded_corner(grid_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window, grid_id = grid_window
    editor = window.tabs.open(grid_id)
    assert isinstance(editor, GridEditor)
    view = editor.view
    opaque = Qt.WidgetAttribute.WA_OpaquePaintEvent
    qtbot.waitUntil(lambda: view.verticalScrollBar().isVisible())
    assert view.viewport().testAttribute(opaque)  # it scrolls: pixels move, rows paint in
    editor.commit(g.RemoveRows(3, 397), "Delete rows")
    qtbot.waitUntil(lambda: not view.verticalScrollBar().isVisible() and not view.horizontalScrollBar().isVisible())
    assert not view.viewport().testAttribute(opaque)  # nothing to scroll: the frame shows through
    editor.undo()
    qtbot.waitUntil(lambda: view.viewport().testAttribute(opaque))
