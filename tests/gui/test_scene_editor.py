"""The Scene editor on the built-in sample: create a scene, add items by name, reorder them
(buttons, Alt+Down, a drag), choose where an item starts, remove one; undo and redo every
step; save through the gate, reopen, and the saved items are what the export reads; play the
scene through the player."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.scene_editor import SceneEditor
from storyloom.gui.player.window import PlayerWindow
from storyloom.project.sample import SAMPLE_NAME, create_sample_project

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys: a second or more a test


@pytest.fixture
def sample(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    create_sample_project(workspace.manager).close()
    win = open_project_window(workspace, SAMPLE_NAME)
    qtbot.addWidget(win)
    yield win
    if not win.session.closed:
        win.close()


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _names(editor: SceneEditor) -> list[str]:
    return [editor.document_name(item["docId"]) or "" for item in editor.items]


def _add(qtbot, editor: SceneEditor, typed: str) -> None:  # type: ignore[no-untyped-def]
    editor.add_box.setFocus()
    editor.add_box.lineEdit().setText(typed)
    qtbot.keyClick(editor.add_box.lineEdit(), Qt.Key.Key_Return)


def _focus(qtbot, widget) -> None:  # type: ignore[no-untyped-def]
    widget.window().activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)


def _exported_items(window, doc_id: str) -> list[dict]:  # type: ignore[no-untyped-def]
    exported = build_game_export(window.session.project)
    return next(d for section in exported.values() if isinstance(section, list)
                for d in section if isinstance(d, dict) and d.get("_id") == doc_id)["content"]["items"]


def test_build_a_scene_undo_redo_save_reopen_export(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    created = sample.session.editor.create("Scene", "Night two", content={"items": []})
    sample.navigate_to("", created.id)
    editor = sample.tabs.current_editor()
    assert isinstance(editor, SceneEditor) and editor.items == []
    assert editor.detail_title.text() == "This scene is empty" and not editor.play_button.isEnabled()
    offered = [editor.add_box.itemText(i) for i in range(editor.add_box.count())]
    assert offered[0] == "The Interview" and "01 Arrival" in offered and "Gullrock" not in offered
    _add(qtbot, editor, "01 arrival")  # the name, case ignored
    _add(qtbot, editor, "The Interview")
    _add(qtbot, editor, "wick")  # part of a name
    assert _names(editor) == ["01 Arrival", "The Interview", "The wick"]
    assert editor.items[1] == {"docId": _named(sample, "Dialogue", "The Interview"), "docType": "Dialogue",
                               "startLine": None, "startNode": None}
    # Reorder: Up button, Alt+Down, and a drag (the list's own move, as a drop makes it).
    editor.playlist.setCurrentRow(2)
    qtbot.mouseClick(editor.up_button, Qt.MouseButton.LeftButton)
    assert _names(editor) == ["01 Arrival", "The wick", "The Interview"] and editor.current_row() == 1
    _focus(qtbot, editor.playlist)
    qtbot.keyClick(editor.playlist, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert _names(editor) == ["01 Arrival", "The Interview", "The wick"]
    editor.playlist.model().moveRow(QModelIndex(), 0, QModelIndex(), 3)
    qtbot.waitUntil(lambda: _names(editor) == ["The Interview", "The wick", "01 Arrival"])
    assert [editor.playlist.item(i).text() for i in range(3)] == ["1.  The Interview", "2.  The wick",
                                                                   "3.  01 Arrival"]
    # Where an item starts: a node of the dialogue, a line of the script.
    editor.playlist.setCurrentRow(0)
    node_labels = [editor.start_box.itemText(i) for i in range(editor.start_box.count())]
    assert node_labels[:2] == ["The Start node", "Start"] and "Where does Wren press? (choice)" in node_labels
    editor.start_box.setCurrentIndex(node_labels.index("Where does Wren press? (choice)"))
    editor.start_box.activated.emit(editor.start_box.currentIndex())
    choice_id = editor.start_box.currentData()
    assert editor.items[0]["startNode"] == choice_id
    editor.playlist.setCurrentRow(2)
    lines = [editor.start_box.itemText(i) for i in range(editor.start_box.count())]
    assert lines[0] == "The first line" and lines[1] == 'Line 2: <CutTo("gullrock_jetty")>'
    editor.start_box.setCurrentIndex(lines.index(next(t for t in lines if t.startswith("Line 5:"))))
    editor.start_box.activated.emit(editor.start_box.currentIndex())
    assert editor.items[2]["startLine"] == 5
    assert editor.playlist.item(2).data(Qt.ItemDataRole.UserRole + 2).startswith("Script · from line 5: ")
    _focus(qtbot, editor.playlist)
    qtbot.keyClick(editor.playlist, Qt.Key.Key_Delete)
    assert _names(editor) == ["The Interview", "The wick"]
    # Undo every step back to the empty scene, then redo them all.
    done = [[dict(i) for i in editor.items]]
    steps = editor.undo_stack.count()
    assert steps == 9
    for _ in range(steps):
        editor.undo_stack.undo()
    assert editor.items == []
    for _ in range(steps):
        editor.undo_stack.redo()
    assert editor.items == done[0]
    _focus(qtbot, editor.playlist)
    qtbot.keyClick(editor.playlist, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Z in the editor
    assert _names(editor) == ["The Interview", "The wick", "01 Arrival"]
    qtbot.keyClick(editor.playlist, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert editor.items == done[0]
    # Save, close, reopen: the same items, and the export reads exactly them.
    assert editor.dirty and editor.save() and not editor.dirty and editor.banner.isHidden()
    saved = sample.session.db.get(created.id)["content"]["items"]
    assert saved == done[0] == [
        {"docId": _named(sample, "Dialogue", "The Interview"), "docType": "Dialogue", "startLine": None,
         "startNode": choice_id},
        {"docId": _named(sample, "Script", "The wick"), "docType": "Script", "startLine": None, "startNode": None},
    ]
    sample.tabs.close_current()
    sample.navigate_to("", created.id)
    reopened = sample.tabs.current_editor()
    assert reopened is not editor and reopened.items == saved
    assert _exported_items(sample, created.id) == saved


def test_play_the_scene_and_from_an_item(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    sample.navigate_to("", _named(sample, "Scene", "Night one"))
    editor = sample.tabs.current_editor()
    assert isinstance(editor, SceneEditor) and _names(editor) == ["01 Arrival", "02 The Lamp Room", "The Interview"]
    player = editor.play()
    assert isinstance(player, PlayerWindow) and player.subtitle.text().startswith("Scene · from Defaults")
    player.advance()
    text = player.transcript.toPlainText()
    assert "01 ARRIVAL" in text and "The lamp of Gullrock has been dark" in text
    player.play_on()
    text = player.transcript.toPlainText()
    assert "02 THE LAMP ROOM" in text and "THE INTERVIEW" in text and player.choice_buttons
    assert "It is 21 o'clock" in text  # the first script's @set carried into the second
    player.close()
    editor.playlist.setCurrentRow(2)
    qtbot.mouseClick(editor.play_here_button, Qt.MouseButton.LeftButton)
    player = next(w for w in editor.findChildren(PlayerWindow) if w.isVisible())
    player.advance()
    assert "Ask what you like" in player.transcript.toPlainText()
    assert "ARRIVAL" not in player.transcript.toPlainText()
    player.close()
    # F5 on the scene's tab plays the scene too.
    from storyloom.gui.player import play_current

    played = play_current(sample)
    assert played is not None and played.play.program[0].doc_id == _named(sample, "Script", "01 Arrival")
    played.close()


def test_an_item_whose_document_is_gone(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    wick = _named(sample, "Script", "The wick")
    created = sample.session.editor.create("Scene", "Broken", content={"items": [
        {"docId": wick, "docType": "Script", "startLine": None, "startNode": None}]})
    sample.session.editor.delete(wick)
    sample.navigate_to("", created.id)
    editor = sample.tabs.current_editor()
    assert editor.playlist.item(0).data(Qt.ItemDataRole.UserRole + 3) == "this document does not exist any more"
    assert editor.detail_problem.text() == "this document does not exist any more"
    player = editor.play()
    player.play_on()
    assert "does not exist" in player.transcript.toPlainText()
    player.close()
