"""The Map editor: the sample island drawn with its doors and markers; a new map made by hand
— a type added, cells painted with one drag (one step), edges clicked on, a bucket fill, a
marker placed and dragged, the bounds changed — every step undone and redone, saved, reopened,
and the saved document equal to what the game export reads."""

from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import Qt

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.map_editor import MapEditor
from storyloom.project import maps as mp
from storyloom.project.content import validate_map
from storyloom.project.content.maps import MAP_CONTENT_KEYS
from tests.gui.canvas_support import click, drag

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys: a second or more a test


def _open(window, qtbot, doc_id: str) -> MapEditor:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, MapEditor)
    qtbot.waitUntil(lambda: editor._fitted, timeout=3000)
    return editor


def _at(editor: MapEditor, x: float, y: float):  # type: ignore[no-untyped-def]
    """The scene point of map position (x, y) in cells."""
    return editor.view.scene_point(x, y)


def test_the_sample_map_is_drawn(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = next(s.id for s in sample_window.session.index.summaries() if s.type == "Map")
    editor = _open(sample_window, qtbot, doc_id)
    assert editor.summary_label.text() == "14 × 9 · 56 cells · 4 edges · 5 markers"
    cells = editor.tile_palette.lists["cells"]
    types = [cells.item(i).data(Qt.ItemDataRole.UserRole) for i in range(cells.count())]
    assert types[:3] == ["cove", "grass", "jetty"]
    door = next(key for key, edge in editor.content["edges"].items() if edge.get("locked"))
    editor.select_edge(door)
    assert editor.inspector.type_box.currentText() == "door"
    assert '"keepers_key"' in editor.inspector.props.toPlainText()
    assert editor.inspector.markers.count() == 5
    editor.focus_match(f"content.edges.{door}.key", 1)  # a search hit
    assert editor.selection == ("edge", mp.parse_edge_key(door))
    editor.focus_match("content.markers.lighthouse", 1)
    assert editor.selection == ("marker", "lighthouse")
    # The select tool: a click on the spawn marker selects it, the panel shows it.
    spawn = editor.content["markers"]["spawn"]
    editor.set_tool("select")
    click(editor.view, _at(editor, spawn["x"] + 0.5, spawn["y"] + 0.5))
    assert editor.selection == ("marker", "spawn") and editor.inspector.marker_name.text() == "spawn"


def test_make_a_map_by_hand_undo_redo_save_reopen_and_export(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    sample_window.show_collection("Map")
    sample_window.explorer.new_document()
    editor = sample_window.tabs.current_editor()
    assert isinstance(editor, MapEditor)
    qtbot.waitUntil(lambda: editor._fitted, timeout=3000)
    doc_id = editor.doc_id
    original = copy.deepcopy(editor.content)
    view = editor.view
    # A cell type and an edge type, typed into the palette.
    for kind, name in (("cells", "floor"), ("edges", "wall"), ("cells", "grass")):
        adder = editor.tile_palette.adders[kind]
        qtbot.keyClicks(adder, name)
        qtbot.keyClick(adder, Qt.Key.Key_Return)
    assert [e["type"] for e in mp.palette(editor.content, "cells")] == ["floor", "grass"]
    assert editor.cell_type == "grass" and editor.edge_type == "wall"
    editor.tile_palette.lists["cells"].setCurrentRow(0)
    assert editor.cell_type == "floor" and editor.tool == "cell"
    # One drag paints a row of cells: one step.
    steps = editor.undo_stack.count()
    drag(view, _at(editor, 1.5, 1.5), _at(editor, 5.5, 1.5), steps=8)
    assert [k for k, v in editor.content["cells"].items() if v == {"type": "floor"}] == [f"{x},1" for x in range(1, 6)]
    assert editor.undo_stack.count() == steps + 1
    # Edges: a click near a side paints it; the same side from the other cell keeps one key.
    editor.set_tool("edge")
    click(view, _at(editor, 2.5, 1.95))
    assert editor.content["edges"] == {"2,1:S": {"type": "wall"}}
    click(view, _at(editor, 2.5, 2.05))  # 2,2:N is the same edge
    assert editor.content["edges"] == {"2,1:S": {"type": "wall"}}
    click(view, _at(editor, 3.97, 1.5))
    assert set(editor.content["edges"]) == {"2,1:S", "3,1:E"}
    # A bucket fill of the empty area with grass; a right-click erases a cell.
    editor.set_tool("fill")
    editor.tile_palette.lists["cells"].setCurrentRow(1)
    editor.set_tool("fill")
    click(view, _at(editor, 10.5, 10.5))
    assert editor.content["cells"]["0,0"] == {"type": "grass"} and editor.content["cells"]["1,1"] == {"type": "floor"}
    assert len(editor.content["cells"]) == 16 * 16
    editor.set_tool("cell")
    click(view, _at(editor, 0.5, 0.5), Qt.MouseButton.RightButton)
    assert "0,0" not in editor.content["cells"]
    # A marker placed by a click, then dragged somewhere else.
    editor.set_tool("marker")
    click(view, _at(editor, 3.5, 3.5))
    assert editor.content["markers"] == {"marker_1": {"x": 3, "y": 3}}
    drag(view, _at(editor, 3.5, 3.5), _at(editor, 7.5, 4.5))
    assert editor.content["markers"] == {"marker_1": {"x": 7, "y": 4}}
    editor.inspector.marker_name.setText("spawn")
    editor.inspector.marker_name.editingFinished.emit()
    assert set(editor.content["markers"]) == {"spawn"}
    # The bounds: smaller drops what falls outside.
    editor.inspector.width_box.setValue(6)
    editor.inspector.height_box.setValue(5)
    editor.inspector.apply_size.click()
    assert (editor.content["width"], editor.content["height"]) == (6, 5) and editor.content["markers"] == {}
    assert "removed" in editor.hint_label.text()
    edited = copy.deepcopy(editor.content)
    assert validate_map({"content": edited}) == []
    steps = editor.undo_stack.count()
    assert steps == 12
    for _ in range(steps):
        editor.undo_action.trigger()
    assert editor.content == original
    for _ in range(steps):
        editor.redo_action.trigger()
    assert editor.content == edited
    assert editor.save() and not editor.dirty
    stored = sample_window.session.db.get(doc_id)
    assert stored["content"] == edited
    sample_window.tabs.close_current()
    again = _open(sample_window, qtbot, doc_id)
    assert again.content == edited and again.summary_label.text().startswith("6 × 5")
    export = build_game_export(sample_window.session, ["Maps"])
    exported = next(d for d in export["maps"] if d["_id"] == doc_id)
    assert exported["content"] == {k: stored["content"].get(k, {}) for k in MAP_CONTENT_KEYS}
    assert not [w for w in export["_meta"]["warnings"] if w.get("id") == doc_id]


def test_inspector_edits_and_refusals(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = next(s.id for s in sample_window.session.index.summaries() if s.type == "Map")
    editor = _open(sample_window, qtbot, doc_id)
    editor.select_cell(0, 0)  # an empty (water) cell
    editor.inspector.type_box.setCurrentText("rock")
    editor.inspector.props.setPlainText('{"height": 3}')
    editor.inspector._commit_selection()
    assert editor.content["cells"]["0,0"] == {"type": "rock", "height": 3}
    editor.inspector.props.setPlainText("{not json")
    editor.inspector._commit_selection()
    assert "not JSON" in editor.hint_label.text() and editor.content["cells"]["0,0"]["height"] == 3
    assert not editor.add_marker(99, 99)
    assert "outside" in editor.hint_label.text()
    editor.view.setFocus()
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)  # the selected cell goes
    assert "0,0" not in editor.content["cells"]
    level = editor.view.zoom()
    editor.view.zoom_in()
    assert editor.view.zoom() == pytest.approx(level * 1.25)
    qtbot.keyClick(editor.view, Qt.Key.Key_E)
    assert editor.tool == "edge" and editor.tile_palette.tool_buttons["edge"].isChecked()


def test_read_only_while_another_writer_holds_the_lock(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = next(s.id for s in sample_window.session.index.summaries() if s.type == "Map")
    editor = _open(sample_window, qtbot, doc_id)
    before = copy.deepcopy(editor.content)
    editor.set_read_only(True)
    assert editor.tool == "select" and not editor.tile_palette.isEnabled()
    assert not editor.paint_cells([(0, 0)], "rock") and not editor.fill(0, 0, "rock")
    click(editor.view, _at(editor, 0.5, 0.5))  # still inspects
    assert editor.selection == ("cell", (0, 0)) and editor.content == before and not editor.dirty
    editor.set_read_only(False)
    assert editor.paint_cells([(0, 0)], "rock") and editor.content["cells"]["0,0"]["type"] == "rock"
