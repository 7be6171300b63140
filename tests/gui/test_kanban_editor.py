"""The Kanban editor on the built-in sample: cards dropped between and within columns, columns
dragged, every field of a card edited in its panel, filters by tag and assignee, board and card
templates from the project settings, undo and redo of each step, and the saved board equal to
what the game export reads after the tab is closed and opened again."""

from __future__ import annotations

import copy
import json

import pytest
from PySide6.QtCore import QByteArray, QMimeData, QPointF, Qt
from PySide6.QtGui import QDropEvent

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.kanban_board import CARD_MIME, COLUMN_MIME
from storyloom.gui.editors.kanban_editor import KanbanEditor
from storyloom.project import kanban as k
from tests.support.fixtures import DRAFFT_PROJECTS

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys: a second or more a test


def _board_id(window) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == "Kanban")


def _open(window, doc_id: str) -> KanbanEditor:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, KanbanEditor)
    return editor


def _titles(editor: KanbanEditor) -> list[list[str]]:
    return [[c["title"] for c in column["cards"]] for column in editor.content["columns"]]


def _card_id(editor: KanbanEditor, title: str) -> str:
    return next(c["id"] for col in editor.content["columns"] for c in col["cards"] if c["title"] == title)


def _drop(widget, mime: str, payload: str, y: float = 0.0, x: float = 0.0) -> None:  # type: ignore[no-untyped-def]
    """What Qt delivers when a drag ends over ``widget`` at (x, y)."""
    data = QMimeData()
    data.setData(mime, QByteArray(payload.encode()))
    event = QDropEvent(QPointF(x, y), Qt.DropAction.MoveAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    widget.dropEvent(event)


def _shown(editor: KanbanEditor) -> list[list[str]]:
    return [[card.card_id for card in column.cards] for column in editor.board.columns]


def test_the_sample_board_is_drawn(sample_window) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _board_id(sample_window))
    assert [c.header.title.text() for c in editor.board.columns] == ["To do", "Writing", "Done"]
    assert _titles(editor)[0] == ["Record Maud's lines", "Paint final portraits"]
    card = editor.board.card(_card_id(editor, "Polish The Dark Tide"))
    assert card is not None
    card.clicked.emit(card.card_id)
    assert editor.panel.title.text() == "Polish The Dark Tide"
    assert editor.panel.assigned.currentData() == "wren"
    assert [editor.panel.checklist.item(i).text() for i in range(3)] == [
        "Read it aloud", "Cut the last sentence in half", "Check it against The Solution"]
    assert editor.panel.related.item(0).text() == "Ending: The Dark Tide"


def test_drag_cards_and_columns_undo_redo_save_reopen_export(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _board_id(sample_window)
    editor = _open(sample_window, doc_id)
    original = copy.deepcopy(editor.content)
    paint, record = _card_id(editor, "Paint final portraits"), _card_id(editor, "Record Maud's lines")
    # Within a column: Paint dropped above Record.
    todo = editor.board.column("todo")
    assert todo is not None
    _drop(todo, CARD_MIME, paint, y=todo.cards[0].geometry().top() + 2)
    assert _titles(editor)[0] == ["Paint final portraits", "Record Maud's lines"]
    # Between columns: Record dropped at the end of "Done" (below its last card).
    done = editor.board.column("done")
    assert done is not None
    _drop(done, CARD_MIME, record, y=done.height() - 2)
    assert _titles(editor)[2] == ["Interview graph", "Record Maud's lines"]
    assert _shown(editor)[2][-1] == record  # the board is drawn again
    # A column dragged by its header: "Done" dropped before "To do".
    _drop(editor.board, COLUMN_MIME, "done", x=editor.board.columns[0].geometry().left() + 2)
    assert [c["id"] for c in editor.content["columns"]] == ["done", "todo", "doing"]
    # ... and "Done" dropped past the last column goes to the end.
    _drop(editor.board, COLUMN_MIME, "done", x=editor.board.columns[-1].geometry().right() + 20)
    assert [c["id"] for c in editor.content["columns"]] == ["todo", "doing", "done"]
    steps = editor.undo_stack.count()
    assert steps == 4
    editor.board.setFocus()
    for _ in range(steps):
        qtbot.keyClick(editor.board, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.content == original
    for _ in range(steps):
        qtbot.keyClick(editor.board, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier)
    edited = copy.deepcopy(editor.content)
    assert _titles(editor)[2] == ["Interview graph", "Record Maud's lines"]
    assert editor.save() and not editor.dirty
    stored = sample_window.session.db.get(doc_id)["content"]
    assert stored == edited
    sample_window.tabs.close_current()
    again = _open(sample_window, doc_id)
    assert again.content == edited
    exported = next(d for d in build_game_export(sample_window.session, ["Kanban"])["kanban"] if d["_id"] == doc_id)
    assert exported["content"] == stored


def test_every_field_of_a_card_is_edited_in_its_panel(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _board_id(sample_window))
    card_id = editor.add_card("doing", "Draft")
    panel = editor.panel
    assert (panel.card_id == card_id and panel.title.hasFocus()) or panel.title.selectedText() == "Draft"
    panel.title.setText("Write the epilogue")
    panel.title.editingFinished.emit()
    panel.tags.setText("Writing, Dialogue, Writing")
    panel.tags.editingFinished.emit()
    panel.description.setPlainText("# Epilogue\n\nMaud keeps the lamp.")
    panel.commit_description()
    panel.has_due.setChecked(True)
    panel.due.setDate(panel.due.date().fromString("2027-01-15", "yyyy-MM-dd"))
    panel.assigned.setCurrentIndex(panel.assigned.findData("tester"))
    panel.assigned.activated.emit(panel.assigned.currentIndex())
    panel.new_item.setText("Outline")
    panel.new_item.returnPressed.emit()
    panel.new_item.setText("First draft")
    panel.new_item.returnPressed.emit()
    panel.checklist.item(0).setCheckState(Qt.CheckState.Checked)
    overview = next(s.id for s in sample_window.session.index.summaries() if s.name == "Overview")
    panel.link_choice.setCurrentIndex(panel.link_choice.findData(overview))
    panel._link_document()
    panel.completed.setChecked(True)
    card = editor.card(card_id)
    assert card["title"] == "Write the epilogue" and card["tags"] == ["Writing", "Dialogue"]
    assert card["description"] == "# Epilogue\n\nMaud keeps the lamp." and card["dueDate"] == "2027-01-15"
    assert card["assigned"] == "tester" and card["related"] == [overview] and card["completed"] is True
    assert [(i["text"], i["done"]) for i in card["checklist"]] == [("Outline", True), ("First draft", False)]
    assert panel.related.item(0).text() == "Overview"
    shown = editor.board.card(card_id)
    assert shown is not None and shown.property("completed") is True
    # Each edit was one step; undoing them all leaves the new card as it was made.
    while editor.undo_stack.index() > 1:
        editor.undo()
    assert editor.card(card_id)["title"] == "Draft" and editor.card(card_id)["checklist"] == []
    editor.undo()
    with pytest.raises(k.KanbanError):
        editor.card(card_id)
    assert panel.card_id == ""


def test_filters_by_tag_and_assignee(sample_window) -> None:  # type: ignore[no-untyped-def]
    editor = _open(sample_window, _board_id(sample_window))
    editor.tag_filter.setCurrentIndex(editor.tag_filter.findData("Art"))
    editor.tag_filter.activated.emit(editor.tag_filter.currentIndex())
    assert [len(c) for c in _shown(editor)] == [1, 0, 0]
    assert editor.board.columns[0].header.count.text() == "1 of 2"
    editor.set_filter(tag="", assignee="wren")
    assert [len(c) for c in _shown(editor)] == [0, 1, 0]
    editor.set_filter(assignee="-")
    assert [len(c) for c in _shown(editor)] == [2, 0, 1]
    # A card dropped before a hidden card still lands where it was dropped among the shown ones.
    assert not editor.undo_stack.count()  # filters change the view, not the board
    editor.set_filter(assignee="", text="portraits")
    todo = editor.board.column("todo")
    assert todo is not None and len(todo.cards) == 1
    _drop(todo, CARD_MIME, _card_id(editor, "Interview graph"), y=todo.cards[0].geometry().top() + 2)
    assert _titles(editor)[0] == ["Record Maud's lines", "Interview graph", "Paint final portraits"]
    editor.set_filter(text="")
    assert len(editor.board.columns[0].cards) == 3


def test_templates_from_the_project_settings(sample_window) -> None:  # type: ignore[no-untyped-def]
    rows = json.loads((DRAFFT_PROJECTS / "v2" / "tgof.json").read_text(encoding="utf-8"))["rows"]
    kanban_settings = next(r["doc"] for r in rows if r["id"] == "ProjectSettings")["kanban"]
    sample_window.session.editor.update_settings({"kanban": kanban_settings})
    editor = _open(sample_window, _board_id(sample_window))
    editor._fill_template_menu()
    assert [a.text() for a in editor.template_menu.actions()] == ["Bug Tracker", "Art Pipeline", "Sprint Board",
                                                                  "Simple Todo"]
    editor.apply_template("bug-tracker")
    assert [c["title"] for c in editor.content["columns"]] == ["Triage", "In Progress", "Review", "Done"]
    assert _titles(editor)[3] == ["Interview graph"] and len(_titles(editor)[0]) == 3
    card_id = editor.add_card("triage", "Lamp flickers")  # the board's default card template: a bug report
    card = editor.card(card_id)
    assert card["template"] == "bug-card" and card["severity"] == "Low" and card["reproducible"] is False
    labels = [editor.panel.extra_form.itemAt(i, editor.panel.extra_form.ItemRole.LabelRole).widget().text()
              for i in range(editor.panel.extra_form.rowCount())]
    assert labels == ["Severity", "Reproducible"]
    editor.undo()
    editor.undo()
    assert [c["title"] for c in editor.content["columns"]] == ["To do", "Writing", "Done"]


def test_a_board_locked_by_someone_else_changes_nothing(sample_window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.locks_ui import set_read_only

    editor = _open(sample_window, _board_id(sample_window))
    before = copy.deepcopy(editor.content)
    set_read_only(editor, True)
    todo = editor.board.column("todo")
    assert todo is not None and not todo.add_button.isEnabled() and not editor.panel.form.isEnabled()
    _drop(todo, CARD_MIME, _card_id(editor, "Interview graph"))
    editor.add_column("Blocked")
    assert editor.content == before and not editor.undo_stack.count()
    editor.set_filter(tag="Art")  # filters still work
    assert [len(c) for c in _shown(editor)] == [1, 0, 0]
    set_read_only(editor, False)
    editor.add_column("Free")
    assert editor.content["columns"][-1]["title"] == "Free"


def test_a_description_being_typed_is_saved_with_the_board(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _board_id(sample_window)
    editor = _open(sample_window, doc_id)
    card_id = _card_id(editor, "Paint final portraits")
    editor.select_card(card_id)
    editor.panel.show_description(0)  # a card with a description opens on its preview
    editor.panel.description.setFocus()
    editor.panel.description.moveCursor(editor.panel.description.textCursor().MoveOperation.End)
    qtbot.keyClicks(editor.panel.description, " Oils.")
    assert editor.save()  # before the pause that commits it
    stored = sample_window.session.db.get(doc_id)["content"]
    assert k.card(stored, card_id)["description"].endswith("placeholder squares. Oils.")
