"""The grid domain (storyloom.project.grids), without Qt: cell rules per column type, every change
and its inverse, cell-keyed styles that follow their cells, the clipboard, CSV, sorted views."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storyloom.project import grids as g
from tests.support.fixtures import DRAFFT_PROJECTS


def sample() -> g.Grid:
    columns = [
        {"id": "name", "title": "Name", "type": "text", "name": "name", "width": 160},
        {"id": "gold", "title": "Gold", "type": "number", "name": "gold"},
        {"id": "kind", "title": "Kind", "type": "dropdown", "name": "kind", "source": ["UI", "Item"]},
        {"id": "done", "title": "Done", "type": "checkbox", "name": "done"},
        {"id": "main", "title": "Main", "type": "radio", "name": "main"},
    ]
    data = [["b", "10", "UI", False, True], ["a", "2", "Item", True, False], ["c", "", "UI", False, False]]
    return g.Grid.from_content({"columns": columns, "data": data, "style": {"A1": "bold", "B3": "red"},
                                "meta": {}, "worksheetName": "Sheet1", "cache": {"x": 1}})


def test_content_round_trips_and_keeps_what_the_grid_does_not_edit() -> None:
    grid = sample()
    content = grid.to_content()
    assert content["worksheetName"] == "Sheet1" and content["cache"] == {"x": 1} and content["meta"] == {}
    assert content["data"][0] == ["b", "10", "UI", False, True]
    assert g.Grid.from_content(content).to_content() == content
    short = g.Grid.from_content({"columns": content["columns"], "data": [["only"]]})
    assert short.rows == [["only", "", "", False, False]]  # padded to the columns


def test_column_types_and_aliases() -> None:
    assert [g.column_type({"type": t}) for t in ("numeric", "colour", "date", "html", None)] == \
        ["number", "color", "calendar", "text", "text"]
    assert g.column_name(0) == "A" and g.column_name(25) == "Z" and g.column_name(26) == "AA"
    assert g.parse_cell_name("AB12") == (11, 27) and g.parse_cell_name("a1") is None
    assert g.column_width({"width": "90px"}) == 90 and g.column_width({}) == g.DEFAULT_WIDTH


@pytest.mark.parametrize(("kind", "typed", "stored", "problem"), [
    ("number", " 3.5 ", "3.5", ""),
    ("number", "many", "many", "not a number"),
    ("checkbox", "TRUE", True, ""),
    ("checkbox", "x", True, ""),
    ("checkbox", "perhaps", "perhaps", "not true or false"),
    ("calendar", "2026-06-23 00:00:00", "2026-06-23", ""),
    ("calendar", "23/06/2026", "2026-06-23", ""),
    ("calendar", "soon", "soon", "not a date"),
    ("color", "#ABC", "#aabbcc", ""),
    ("color", "red", "red", "not a colour"),
    ("document", '<div data-doc-id="abc-1" class="x">Scene</div>', "abc-1", ""),
])
def test_typed_values_are_stored_as_the_data_model_says(kind: str, typed: str, stored: Any, problem: str) -> None:
    column = {"type": kind}
    assert g.coerce(column, typed) == stored
    assert problem in g.cell_problem(column, stored) and (problem or not g.cell_problem(column, stored))


def test_links_to_missing_documents_and_unknown_choices_are_problems() -> None:
    assert "no document 'gone'" in g.cell_problem({"type": "document"}, "gone", exists=lambda _id: False)
    assert g.cell_problem({"type": "document"}, "here", exists=lambda _id: True) == ""
    assert "not one of the choices" in g.cell_problem({"type": "dropdown", "source": ["A"]}, "B")


def test_every_change_returns_its_inverse() -> None:
    grid = sample()
    original = grid.to_content()
    changes: list[g.Change] = [
        g.set_value(grid, 0, 0, "renamed"),
        g.insert_rows(grid, 1, 2),
        g.RemoveRows(0, 1),
        g.MoveRows(0, 2, 1),
        g.InsertColumn(1, g.new_column("Notes", existing=grid.columns)),
        g.MoveColumn(0, 3),
        g.RemoveColumn(2),
        g.SetRowHeight(1, 40),
        g.change_column(grid, 0, title="Renamed"),
    ]
    undo: list[g.Change] = []
    for change in changes:
        undo.append(g.apply(grid, change))
    assert grid.to_content() != original
    for inverse in reversed(undo):
        g.apply(grid, inverse)
    assert grid.to_content() == original


def test_a_radio_column_keeps_one_true_cell() -> None:
    grid = sample()
    inverse = g.apply(grid, g.set_value(grid, 2, 4, True))
    assert [grid.value(r, 4) for r in range(3)] == [False, False, True]
    g.apply(grid, inverse)
    assert [grid.value(r, 4) for r in range(3)] == [True, False, False]


def test_styles_and_comments_follow_their_cells() -> None:
    grid = sample()
    grid.comments = {"C2": "check"}
    g.apply(grid, g.InsertColumn(0, g.new_column("First", existing=grid.columns)))
    assert grid.style == {"B1": "bold", "C3": "red"} and grid.comments == {"D2": "check"}
    g.apply(grid, g.RemoveRows(0, 1))  # the bold cell goes with its row
    assert grid.style == {"C2": "red"} and grid.comments == {"D1": "check"}
    g.apply(grid, g.MoveRows(1, 1, 0))
    assert grid.style == {"C1": "red"} and grid.comments == {"D2": "check"}


def test_changing_a_type_converts_the_cells_in_one_undoable_step() -> None:
    grid = sample()
    change = g.change_column(grid, 3, type="text")
    inverse = g.apply(grid, change)
    assert [grid.value(r, 3) for r in range(3)] == ["FALSE", "TRUE", "FALSE"]
    assert grid.columns[3]["type"] == "text"
    g.apply(grid, inverse)
    assert [grid.value(r, 3) for r in range(3)] == [False, True, False]
    g.apply(grid, g.change_column(grid, 0, type="dropdown"))
    assert grid.columns[0]["source"] == []


def test_the_clipboard_is_tab_separated_with_quotes_like_other_spreadsheets() -> None:
    block = [["a", "two\nlines"], ['say "hi"', "tab\there"]]
    text = g.to_tsv(block)
    assert text == 'a\t"two\nlines"\n"say ""hi"""\t"tab\there"'
    assert g.parse_tsv(text + "\r\n") == block
    assert g.parse_tsv("1\t2\r\n3\t4\r\n") == [["1", "2"], ["3", "4"]]
    assert g.parse_tsv("") == []


def test_paste_fills_a_rectangle_and_grows_the_grid() -> None:
    grid = sample()
    inverse = g.apply(grid, g.paste(grid, 2, 3, [["yes", "x", "extra"], ["no", "", "more"]]))
    assert grid.row_count == 4 and grid.column_count == 6
    assert grid.rows[2][3:] == [True, True, "extra"] and grid.rows[3][3:] == [False, False, "more"]
    assert grid.columns[5]["type"] == "text" and grid.columns[5]["title"] == "Column F"
    g.apply(grid, inverse)
    assert grid.to_content() == sample().to_content()
    # A sorted view pastes into the cells it shows, never past them.
    g.apply(grid, g.paste(grid, 0, 0, [["z"], ["y"]], targets=[(2, 0), (0, 0)]))
    assert (grid.value(2, 0), grid.value(0, 0), grid.row_count) == ("z", "y", 3)


def test_removing_scattered_rows_is_one_change() -> None:
    grid = sample()
    inverse = g.apply(grid, g.remove_rows([2, 0]))
    assert [r[0] for r in grid.rows] == ["a"]
    g.apply(grid, inverse)
    assert [r[0] for r in grid.rows] == ["b", "a", "c"]


def test_csv_export_and_import(tmp_path) -> None:
    grid = sample()
    text = g.to_csv(grid)
    assert text.splitlines()[:2] == ["Name,Gold,Kind,Done,Main", "b,10,UI,FALSE,TRUE"]
    other = g.Grid.from_content({"columns": grid.columns, "data": []})
    g.apply(other, g.from_csv(other, text))
    assert other.rows == grid.rows and other.columns == grid.columns
    g.apply(other, g.from_csv(other, "Name,New one\nx,1\n,\n"))
    assert [c["title"] for c in other.columns] == ["Name", "New one"] and other.rows == [["x", "1"]]
    assert other.columns[1]["type"] == "text"
    with pytest.raises(g.GridError, match="header row"):
        g.from_csv(other, "")


def test_views_sort_and_filter_without_reordering_the_data() -> None:
    grid = sample()
    before = copy.deepcopy(grid.rows)
    assert g.view_order(grid, 1) == [1, 0, 2]  # 2 < 10 as numbers; the empty cell last
    assert g.view_order(grid, 1, descending=True) == [0, 1, 2]
    assert g.view_order(grid, 0) == [1, 0, 2]
    assert g.view_order(grid, None, query="ui") == [0, 2]
    assert g.view_order(grid, 0, query="ITEM") == [1]
    assert grid.rows == before


def test_the_drafft_samples_load_and_save_unchanged() -> None:
    for path in (DRAFFT_PROJECTS / "v2" / "tgof.json", DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"):
        rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
        for doc in (r["doc"] for r in rows if r["doc"].get("type") == "Grid"):
            assert g.Grid.from_content(doc["content"]).to_content() == doc["content"]


_OPS = st.sampled_from(["set", "insert", "remove", "move", "addcol", "delcol", "movecol", "height", "type"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_OPS, st.integers(0, 50), st.integers(0, 50), st.integers(0, 50)), max_size=12))
def test_undoing_any_sequence_restores_the_grid(ops: list[tuple[str, int, int, int]]) -> None:
    grid = sample()
    original = grid.to_content()
    undo = []
    for op, a, b, c in ops:
        rows, cols = grid.row_count, grid.column_count
        change: g.Change | None = None
        if op == "set" and rows and cols:
            change = g.set_value(grid, a % rows, b % cols, str(c))
        elif op == "insert":
            change = g.insert_rows(grid, a % (rows + 1), 1 + b % 3)
        elif op == "remove" and rows:
            change = g.remove_rows([a % rows, b % rows])
        elif op == "move" and rows:
            start = a % rows
            count = 1 + b % (rows - start)
            change = g.MoveRows(start, count, c % (rows - count + 1))
        elif op == "addcol":
            change = g.InsertColumn(a % (cols + 1), g.new_column("New", existing=grid.columns))
        elif op == "delcol" and cols > 1:
            change = g.RemoveColumn(a % cols)
        elif op == "movecol" and cols:
            change = g.MoveColumn(a % cols, b % cols)
        elif op == "height" and rows:
            change = g.SetRowHeight(a % rows, 20 + b)
        elif op == "type" and cols:
            change = g.change_column(grid, a % cols, type=g.COLUMN_TYPES[b % len(g.COLUMN_TYPES)])
        if change is not None:
            undo.append(g.apply(grid, change))
            assert all(len(r) >= grid.column_count for r in grid.rows)
    for inverse in reversed(undo):
        g.apply(grid, inverse)
    assert grid.to_content() == original
