"""What the three board editors (Canvas, Dialogue, Map) share, written once in
``storyloom.gui.editors.board``: the undo stack reached from the toolbar and from the main
window's Edit menu (through the view), read-only while another writer holds the lock, and an edit
tried meanwhile refused with the reason under the board."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence

from storyloom.gui.editors.board import BoardEditor


def _edit(editor: BoardEditor, n: int) -> bool:
    """An edit of each board (the ``n``th: each one changes something); whether it became a step."""
    steps = editor.undo_stack.count()
    kind = type(editor).__name__
    if kind == "CanvasEditor":
        editor.add_note(40 * n, 0, f"Note {n}")  # type: ignore[attr-defined]
    elif kind == "MapEditor":
        editor.paint_cells([(n, 0)], "rock" if n % 2 else "water")  # type: ignore[attr-defined]
    else:
        editor.add_node("note", 40 * n, 0)  # type: ignore[attr-defined]
    return editor.undo_stack.count() == steps + 1


@pytest.mark.parametrize(("doc_type", "noun"), [("Canvas", "canvas"), ("Map", "map"), ("Dialogue", "dialogue")])
def test_undo_and_read_only_work_alike_on_every_board(sample_window, qtbot, doc_type: str, noun: str) -> None:  # type: ignore[no-untyped-def]
    doc_id = next(s.id for s in sample_window.session.index.summaries() if s.type == doc_type)
    editor = sample_window.tabs.open(doc_id)
    assert isinstance(editor, BoardEditor) and editor.noun == noun
    qtbot.waitUntil(lambda: editor._fitted, timeout=5000)
    assert not editor.undo_action.isEnabled() and not editor.redo_action.isEnabled()
    assert QKeySequence("Ctrl+Y") in editor.redo_action.shortcuts()
    assert _edit(editor, 1) and editor.dirty and editor.undo_action.isEnabled()
    steps = editor.undo_stack.count()
    editor.view.undo()  # what Edit > Undo calls on the focused widget
    assert editor.undo_stack.index() == steps - 1 and editor.redo_action.isEnabled()
    editor.view.redo()
    assert editor.undo_stack.index() == steps

    editor.set_read_only(True)
    assert editor.hint_label.text() == f"Read-only: another writer holds this {noun}'s lock."
    assert editor.name_edit.isReadOnly() and not editor.undo_action.isEnabled()
    assert not _edit(editor, 2) and editor.undo_stack.count() == steps
    assert editor.hint_label.text() == f"Not changed: this {noun} is read-only while another writer holds its lock."
    editor.undo()
    assert editor.undo_stack.index() == steps
    editor.set_read_only(False)
    assert not editor.name_edit.isReadOnly() and editor.undo_action.isEnabled() and editor.hint_label.text() == ""
