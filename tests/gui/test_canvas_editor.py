"""The Canvas editor on the built-in sample: the board drawn (notes with links, a group with a
picture, labelled edges), then a board edited by hand — a note added by double-click and typed
in, linked by dragging from its knob, moved, resized, grouped — every step undone and redone,
saved, reopened, and the saved document equal to what the game export reads."""

from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.canvas import CanvasEditor
from storyloom.gui.editors.canvas.items import GroupItem, ImageItem, NoteItem
from storyloom.project import canvas as cv
from tests.gui.canvas_support import double_click, drag

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys: a second or more a test


def _canvas_id(window) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == "Canvas")


def _open(window, qtbot, doc_id: str) -> CanvasEditor:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, CanvasEditor)
    qtbot.waitUntil(lambda: editor._fitted, timeout=3000)
    return editor


def _center(editor: CanvasEditor, node_id: str) -> QPointF:
    return editor.scene.node_items[node_id].scene_rect().center()


def _exported(window, doc_id: str) -> dict:  # type: ignore[no-untyped-def]
    export = build_game_export(window.session, ["Canvas"])
    return next(d for d in export["canvas"] if d["_id"] == doc_id)


def test_the_sample_board_is_drawn(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, qtbot, _canvas_id(sample_window))
    items = editor.scene.node_items
    assert isinstance(items["lamp"], NoteItem) and isinstance(items["island"], GroupItem)
    assert isinstance(items["art"], ImageItem) and items["art"].parentItem() is items["island"]
    assert editor._image(cv.linked_document(items["art"].node) or "") is not None  # the attachment's picture
    assert items["tobias"].chip_rect() is not None  # a note linked to the actor
    assert editor.scene.edge_items["e1"].label == "had the keys" and editor.scene.edge_items["e1"].isVisible()
    assert editor.summary_label.text() == "7 nodes · 4 edges"
    # A search hit in a note or an edge selects it.
    editor.focus_match("content.nodes.2.data.text", 1)
    assert editor.scene.selected_node_ids() == [cv.nodes_of(editor.content)[2]["id"]]
    editor.focus_match("content.edges.0.label", 1)
    assert editor.scene.selected_edge_ids() == ["e1"]
    # The card's document and the note's link open their documents.
    assert editor.open_link("overview")
    assert sample_window.tabs.current_editor().doc_id == cv.linked_document(items["overview"].node)
    qtbot.wait(400)  # the page's preview renders (a render after the project closed would fail)


def test_edit_by_hand_undo_redo_save_reopen_and_export(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _canvas_id(sample_window)
    editor = _open(sample_window, qtbot, doc_id)
    original = copy.deepcopy(editor.content)
    view = editor.view
    # A note by double-clicking an empty spot, typed into in the panel.
    empty = editor.scene.board_rect().bottomLeft() + QPointF(0, 200)
    double_click(view, empty)
    added = [n["id"] for n in cv.nodes_of(editor.content) if n["id"] not in {m["id"] for m in original["nodes"]}]
    assert len(added) == 1
    note_id = added[0]
    text_box = editor.inspector.fields["text"]
    text_box.setFocus()
    qtbot.keyClicks(text_box, "**Oil** on the stairs")
    qtbot.waitUntil(lambda: cv.note_text(cv.find_node(editor.content, note_id) or {}) == "**Oil** on the stairs")
    assert editor.undo_stack.count() == 2  # add, then the typing as one step
    # Linked by dragging from its knob to the lamp note (at 100%, so a pixel is a board unit).
    item = editor.scene.node_items[note_id]
    view.set_zoom(1.0)
    view.centerOn(QPointF(item.scene_rect().center().x(), _center(editor, "lamp").y() + 200))
    drag(view, item.mapToScene(item.knob_center()), _center(editor, "lamp"))
    edge = next(e for e in cv.edges_of(editor.content) if e["source"] == note_id)
    assert edge["target"] == "lamp"
    editor.inspector.fields["label"].setText("spilled")
    editor.inspector.fields["label"].editingFinished.emit()
    assert cv.find_edge(editor.content, edge["id"])["label"] == "spilled"
    # Moved by dragging, then resized by its grip.
    before = cv.absolute_position(editor.content, note_id)
    editor.scene.select([note_id])
    drag(view, _center(editor, note_id), _center(editor, note_id) + QPointF(120, 40))
    x, y = cv.absolute_position(editor.content, note_id)
    assert (round(x - before[0]), round(y - before[1])) == (120, 40)
    grip = item.mapToScene(item.grip_rect().center())
    drag(view, grip, grip + QPointF(80, 60))
    assert cv.size_of(cv.find_node(editor.content, note_id)) == (300, 150)
    # Grouped with the lamp note, and linked to a document.
    editor.scene.select([note_id, "lamp"])
    group_id = editor.group_selection("The lamp")
    assert group_id and cv.members(editor.content, group_id) == ["lamp", note_id]
    editor.set_node_data(note_id, docId=cv.linked_document(cv.find_node(original, "overview")))
    edited = copy.deepcopy(editor.content)
    assert cv.canvas_problems(edited) == []
    steps = editor.undo_stack.count()
    assert steps == 8
    for _ in range(steps):
        editor.undo_action.trigger()
    assert editor.content == original
    assert note_id not in editor.scene.node_items and len(editor.scene.edge_items) == 4
    for _ in range(steps):
        editor.redo_action.trigger()
    assert editor.content == edited
    assert editor.scene.node_items[note_id].parentItem() is editor.scene.node_items[group_id]
    assert editor.save() and not editor.dirty
    stored = sample_window.session.db.get(doc_id)
    assert stored["content"] == edited
    sample_window.tabs.close_current()
    assert sample_window.tabs.editor(doc_id) is None
    again = _open(sample_window, qtbot, doc_id)
    assert again.content == edited and again.scene.node_items[note_id].chip_rect() is not None
    assert _exported(sample_window, doc_id)["content"] == stored["content"]


def test_refusals_deleting_and_ungrouping(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, qtbot, _canvas_id(sample_window))
    assert not editor.connect("lamp", "tobias")  # linked that way already
    assert "already" in editor.hint_label.text()
    editor.scene.select(["island"])
    assert editor.inspector.fields["label"].text() == "The island"
    editor.inspector.fields["ungroup"].click()
    assert cv.find_node(editor.content, "island") is None and "parentId" not in cv.find_node(editor.content, "art")
    assert editor.scene.node_items["art"].parentItem() is None
    editor.scene.select(["tobias"])
    editor.view.setFocus()
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    assert cv.find_node(editor.content, "tobias") is None
    assert {e["id"] for e in cv.edges_of(editor.content)} == {"e2", "e4"}  # its edges went with it
    editor.undo_stack.undo()
    editor.undo_stack.undo()
    assert cv.find_node(editor.content, "island") is not None and len(cv.edges_of(editor.content)) == 4
    # Zoom and pan.
    level = editor.view.zoom()
    editor.view.zoom_in()
    assert editor.view.zoom() == pytest.approx(level * 1.25)
    assert editor.zoom_label.text() == f"{round(level * 125)}%"
    center = editor.view.mapToScene(editor.view.viewport().rect().center())
    editor.view.pan_by(100, 0)  # dragging the board right shows what is on its left
    assert editor.view.mapToScene(editor.view.viewport().rect().center()).x() < center.x()
    QApplication.processEvents()


def test_read_only_while_another_writer_holds_the_lock(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, qtbot, _canvas_id(sample_window))
    before = copy.deepcopy(editor.content)
    editor.set_read_only(True)
    assert not editor.inspector.isEnabled() and not editor.group_action.isEnabled()
    editor.add_note(0, 0, "nope")
    editor.scene.select(["lamp"])
    drag(editor.view, _center(editor, "lamp"), _center(editor, "lamp") + QPointF(80, 0))
    assert editor.content == before and not editor.dirty
    assert editor.open_link("tobias")  # links still open
    editor.set_read_only(False)
    assert editor.add_note(0, 0, "yes")
