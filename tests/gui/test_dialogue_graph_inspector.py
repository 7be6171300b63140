"""The dialogue graph's side panel, offscreen on the real session and store: the keyboard walk
through a choice's options (Tab never lands on a delete button; a deleted option comes back
with Ctrl+Z, and the panel says so), the linked script's name following a rename, and a
Script node's lines written in the panel (the script editor's highlighting, completion and
problems; saved to the Script through the gate; read-only under someone else's lock; typed
text kept when the script changes elsewhere)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QPushButton, QToolButton, QWidget

from storyloom.gui.editors.dialogue_graph import DialogueGraphEditor
from storyloom.gui.editors.script_completer import ScriptText
from storyloom.gui.editors.script_highlighter import ScriptHighlighter
from storyloom.project import locked_fields
from storyloom.project.dialogue_graph import ports
from tests.support.two_stores import edit_elsewhere

pytestmark = pytest.mark.slow  # a shown window driven by keys: a second or more a test

INTERVIEW = "The Interview"
TOBIAS = "Tobias opens"


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _new_dialogue(window, qtbot) -> DialogueGraphEditor:  # type: ignore[no-untyped-def]
    folder = _named(window, "Folder", "Interview lines")
    result = window.session.editor.create("Dialogue", "Harbour talk", dialogueScriptFolderID=folder,
                                          content={"tree": {"nodes": [], "edges": []}})
    editor = window.tabs.open(result.id)
    assert isinstance(editor, DialogueGraphEditor)
    qtbot.waitUntil(lambda: editor.view.viewport().width() > 200)
    return editor


def _interview(window, qtbot) -> tuple[DialogueGraphEditor, str, str]:  # type: ignore[no-untyped-def]
    """The sample's interview with its first script node selected: the editor, the node, its script."""
    editor = window.tabs.open(_named(window, "Dialogue", INTERVIEW))
    assert isinstance(editor, DialogueGraphEditor)
    qtbot.waitUntil(lambda: editor.view.viewport().width() > 200)
    node = next(i for i, item in editor.scene.node_items.items() if item.node["data"]["label"] == TOBIAS)
    editor.scene.select_nodes([node])
    return editor, node, editor.scene.graph.node(node)["data"]["scriptId"]


def _options(editor: DialogueGraphEditor, node_id: str) -> list[str]:
    return [h["label"] for h in ports(editor.scene.graph.node(node_id), "source")]


def _script_text(window, script_id: str) -> str:  # type: ignore[no-untyped-def]
    return window.session.db.get(script_id)["content"]["script"]


def _writer(editor: DialogueGraphEditor) -> ScriptText:
    text = editor.inspector.fields.get("scriptText")
    assert isinstance(text, ScriptText), "the script node's panel has no text to write in"
    return text


# ---------------------------------------------------------------------------- the choice panel
def test_tab_walks_a_choice_from_each_option_to_its_port_script_and_never_to_a_delete(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _new_dialogue(sample_window, qtbot)
    choice = editor.add_node("choice", 200, 100)
    editor.add_port(choice)
    handles = [h["id"] for h in ports(editor.scene.graph.node(choice), "source")]
    assert len(handles) == 3
    rows = [editor.inspector.fields[f"port:{h}"] for h in handles]
    # Option text, then its @set field, then the next option's text.
    first_label, first_script = rows[0]
    qtbot.waitUntil(first_label.isVisible)  # the panel's new fields show once the event loop runs
    first_label.setFocus()
    qtbot.waitUntil(first_label.hasFocus)
    expected = [first_script, rows[1][0], rows[1][1], rows[2][0], rows[2][1]]
    for widget in expected:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is widget
    # Tab, then Space, on everything Tab reaches in the panel: no option is lost.
    editor.inspector.fields["label"].setFocus()
    seen: list[QWidget] = []
    for _ in range(30):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        widget = QApplication.focusWidget()
        if widget is None or not editor.inspector.isAncestorOf(widget):
            break
        seen.append(widget)
        assert not (isinstance(widget, QToolButton) and widget.objectName() == "removePort")
        if not isinstance(widget, QLineEdit | QPlainTextEdit):
            qtbot.keyClick(widget, Qt.Key.Key_Space)
        assert len(_options(editor, choice)) >= 3
    assert first_script in seen and rows[2][1] in seen
    # The delete buttons are still there for the mouse, out of the keyboard's way.
    removes = [b for b in editor.inspector.findChildren(QToolButton) if b.objectName() == "removePort"]
    assert len(removes) == len(_options(editor, choice))
    assert all(b.focusPolicy() in (Qt.FocusPolicy.NoFocus, Qt.FocusPolicy.ClickFocus) for b in removes)


def test_deleting_an_option_says_so_and_ctrl_z_brings_it_back(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _new_dialogue(sample_window, qtbot)
    choice = editor.add_node("choice", 200, 100)
    second = ports(editor.scene.graph.node(choice), "source")[1]["id"]
    editor.edit_port(choice, second, port_script="@set v.player.brave = true")
    editor.scene.select_nodes([choice])
    label, _script = editor.inspector.fields[f"port:{second}"]
    qtbot.waitUntil(label.isVisible)
    label.setFocus()
    remove = next(b for b in editor.inspector.findChildren(QToolButton)
                  if b.objectName() == "removePort" and b.property("handle") == second)
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    assert _options(editor, choice) == ["Option 1"]
    assert "Option 2" in editor.hint_label.text() and "Ctrl+Z" in editor.hint_label.text()
    # Ctrl+Z from wherever the focus went in the panel brings the option back, port script and all.
    focus = QApplication.focusWidget()
    assert focus is not None and editor.isAncestorOf(focus)
    qtbot.keyClick(focus, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _options(editor, choice) == ["Option 1", "Option 2"]
    assert ports(editor.scene.graph.node(choice), "source")[1]["portScript"] == "@set v.player.brave = true"


# ---------------------------------------------------------------------------- following the script
def test_the_panel_follows_a_linked_script_renamed_elsewhere(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, _node, script_id = _interview(window, qtbot)
    combo = editor.inspector.fields["scriptId"]
    assert combo.currentData() == script_id
    window.session.editor.patch(script_id, {"name": "Tobias, at the door"})
    qtbot.waitUntil(lambda: combo.currentText() == "Tobias, at the door", timeout=3000)
    assert combo.currentData() == script_id
    assert combo.itemText(combo.findData(script_id)) == "Tobias, at the door"


# ---------------------------------------------------------------------------- writing in the graph
def test_a_script_nodes_lines_are_written_in_the_panel_and_saved_to_its_script(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, node, script_id = _interview(window, qtbot)
    text = _writer(editor)
    # The script editor's own widgets: its text, highlighting and the script's lines.
    assert text.toPlainText() == _script_text(window, script_id)
    assert isinstance(editor.inspector.script_writer.highlighter, ScriptHighlighter)
    assert editor.inspector.script_writer.highlighter.document() is text.document()
    text.setFocus()
    text.moveCursor(text.textCursor().MoveOperation.End)
    qtbot.keyClick(text, Qt.Key.Key_Return)
    qtbot.keyClicks(text, "::Wren Hale:: And the logbook?")
    # Saved through the gate to the Script (after the pause in typing, as the script editor saves).
    qtbot.waitUntil(lambda: _script_text(window, script_id).endswith("::Wren Hale:: And the logbook?"),
                    timeout=4000)
    assert window.session.db.get(script_id)["name"] == "Tobias opens"
    assert editor.inspector.script_writer.dirty is False
    # Ctrl+Z in the text undoes typing there; the graph's steps are not touched.
    steps = editor.undo_stack.index()
    qtbot.keyClicks(text, " Now.")
    assert editor.dirty  # the dialogue's tab says something is unsaved while the script's text is
    qtbot.keyClick(text, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not text.toPlainText().endswith(" Now.")
    qtbot.keyClick(text, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert text.toPlainText().endswith("::Wren Hale:: And the logbook? Now.")
    assert editor.undo_stack.index() == steps
    # Problems as the script editor finds them: an @if without @endif.
    qtbot.keyClick(text, Qt.Key.Key_Return)
    qtbot.keyClicks(text, "@if v.player.clues >= 2")
    problems = editor.inspector.script_writer.check_problems()
    assert any(p.is_error for p in problems)
    assert "error" in editor.inspector.script_writer.problems_button.text()
    # Completion: the project's actors after "::".
    qtbot.keyClick(text, Qt.Key.Key_Return)
    qtbot.keyClicks(text, "::")
    context = text.show_completions()
    assert context is not None and "Wren Hale" in [c.text for c in context.candidates]
    text.completer.popup().hide()
    # Leaving the node saves what was typed at once (no pause needed), and the graph is not touched.
    graph_before = editor.scene.graph.to_tree()
    qtbot.keyClicks(text, "Tobias Marsh:: Enough.")
    other = next(i for i in editor.scene.node_items if i != node)
    editor.scene.select_nodes([other])
    assert _script_text(window, script_id).endswith("::Tobias Marsh:: Enough.")
    assert editor.scene.graph.to_tree() == graph_before
    # The node's first lines follow the script (the preview the node draws).
    qtbot.waitUntil(lambda: editor._preview(script_id) is not None and editor.scene.node_items[node].preview
                    == editor._preview(script_id), timeout=3000)


def test_a_script_tab_and_the_panel_show_the_same_text(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, _node, script_id = _interview(window, qtbot)
    tab = window.tabs.open(script_id)
    tab.text.moveCursor(tab.text.textCursor().MoveOperation.Start)
    qtbot.keyClicks(tab.text, "// from the tab")
    qtbot.keyClick(tab.text, Qt.Key.Key_Return)
    assert tab.save()
    window.tabs.open(editor.doc_id)
    qtbot.waitUntil(lambda: _writer(editor).toPlainText() == _script_text(window, script_id), timeout=3000)
    assert _writer(editor).toPlainText().startswith("// from the tab")


def test_the_panels_script_is_read_only_under_someone_elses_lock(sample_window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, node, script_id = _interview(window, qtbot)
    assert not _writer(editor).isReadOnly()
    # Ana locks the script on her machine; her revision arrives by replication.
    edit_elsewhere(window.session.project.store, script_id, "ana", tmp_path,
                   **locked_fields("ana", "2026-11-28T04:00:00Z"))
    qtbot.waitUntil(lambda: _writer(editor).isReadOnly(), timeout=3000)
    assert "ana" in editor.inspector.script_writer.lock_label.text()
    # A node shown again under the lock is read-only from the start.
    editor.scene.clearSelection()
    editor.scene.select_nodes([node])
    assert _writer(editor).isReadOnly()


def test_text_typed_in_the_panel_is_kept_when_the_script_changes_remotely(sample_window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, _node, script_id = _interview(window, qtbot)
    text = _writer(editor)
    text.setFocus()
    text.moveCursor(text.textCursor().MoveOperation.End)
    qtbot.keyClick(text, Qt.Key.Key_Return)
    qtbot.keyClicks(text, "::Wren Hale:: Mine.")
    theirs = _script_text(window, script_id) + "\n// theirs"
    edit_elsewhere(window.session.project.store, script_id, "bob", tmp_path, content_script=theirs)
    writer = editor.inspector.script_writer
    qtbot.waitUntil(lambda: writer.banner.isVisible() and "changed remotely" in writer.banner.label.text(),
                    timeout=4000)
    assert text.toPlainText().endswith("::Wren Hale:: Mine.")
    assert _script_text(window, script_id) == theirs
    writer.keep_mine()
    assert _script_text(window, script_id).endswith("::Wren Hale:: Mine.")


def test_a_script_made_from_a_node_is_named_after_it_and_opens_for_writing(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = _new_dialogue(window, qtbot)
    node = editor.add_node("script", 200, 100)
    editor.scene.select_nodes([node])
    label = editor.inspector.fields["label"]
    label.setFocus()
    label.selectAll()
    qtbot.keyClicks(label, "Maud at the quay")
    create = next(b for b in editor.inspector.findChildren(QPushButton) if b.objectName() == "newScript")
    qtbot.mouseClick(create, Qt.MouseButton.LeftButton)
    script_id = editor.scene.graph.node(node)["data"]["scriptId"]
    assert script_id and window.session.db.get(script_id)["name"] == "Maud at the quay"
    text = _writer(editor)
    assert text.hasFocus()
    qtbot.keyClicks(text, "::Maud:: The tide turns at six.")
    assert editor.dirty  # the tab shows unsaved text, and closing it saves (no dialog: the save goes through)
    assert window.tabs.close_tab(window.tabs.indexOf(editor))
    assert _script_text(window, script_id) == "::Maud:: The tide turns at six."


def test_a_dialogue_locked_by_someone_else_still_lets_its_free_scripts_be_written(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.locks_ui import set_read_only

    window = sample_window
    editor, node, script_id = _interview(window, qtbot)
    set_read_only(editor, True)  # what the lock UI calls when another writer holds the dialogue's lock
    editor.scene.clearSelection()
    editor.scene.select_nodes([node])
    # The graph's fields are not editable; the script is another document, free to write.
    assert not editor.inspector.fields["label"].isEnabled()
    assert not editor.inspector.fields["newScript"].isEnabled()
    text = _writer(editor)
    assert text.isEnabled() and not text.isReadOnly()
    text.setFocus()
    text.moveCursor(text.textCursor().MoveOperation.End)
    qtbot.keyClicks(text, "// written while the dialogue is locked")
    assert editor.save()
    assert _script_text(window, script_id).endswith("// written while the dialogue is locked")
    set_read_only(editor, False)
    assert editor.inspector.fields["label"].isEnabled()


def test_going_back_to_a_script_node_finds_its_text_as_left(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, node, _script_id = _interview(window, qtbot)
    text = _writer(editor)
    cursor = text.textCursor()
    cursor.setPosition(12)
    text.setTextCursor(cursor)
    others = [i for i, item in editor.scene.node_items.items()
              if item.node["data"].get("scriptId") and i != node]
    for other in others[:3]:
        editor.scene.select_nodes([other])
        assert _writer(editor) is not text
    editor.scene.select_nodes([node])
    assert _writer(editor) is text and text.textCursor().position() == 12


def test_the_graph_and_the_panels_script_text_save_each_on_its_own(sample_window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, node, script_id = _interview(window, qtbot)
    text = _writer(editor)
    text.setFocus()
    text.moveCursor(text.textCursor().MoveOperation.End)
    qtbot.keyClicks(text, "// typed")
    # A graph edit while the script's text is unsaved is saved too.
    editor.move_nodes({node: (12, 34)})
    assert editor.save()
    assert _script_text(window, script_id).endswith("// typed")
    saved = window.session.db.get(editor.doc_id)["content"]["tree"]
    assert next(n for n in saved["nodes"] if n["id"] == node)["position"] == {"x": 12, "y": 34}
    # The dialogue changed remotely while only the script's text is unsaved: nothing of the
    # graph is in the way, so the dialogue shows the new revision (no "changed" banner).
    qtbot.keyClicks(text, " more")
    assert editor.dirty
    tree = window.session.db.get(editor.doc_id)["content"]["tree"]
    moved = {**tree, "nodes": [{**n, "position": {"x": 50, "y": 60}} if n["id"] == node else n
                                for n in tree["nodes"]]}
    edit_elsewhere(window.session.project.store, editor.doc_id, "bob", tmp_path, content_tree=moved)
    qtbot.waitUntil(lambda: editor.scene.graph.node(node)["position"] == {"x": 50, "y": 60}, timeout=4000)
    assert not editor.banner.isVisible()
    assert editor.inspector.script_writer is not None and text.toPlainText().endswith("// typed more")


def test_the_node_shows_the_lines_as_they_are_written_in_the_panel(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor, node, script_id = _interview(window, qtbot)
    text = _writer(editor)
    text.setFocus()
    text.moveCursor(text.textCursor().MoveOperation.Start)
    qtbot.keyClicks(text, "::Wren Hale:: First words.")
    qtbot.keyClick(text, Qt.Key.Key_Return)
    writer = editor.inspector.script_writer
    writer.stop()  # no save for now: the node shows the text as typed
    item = editor.scene.node_items[node]
    qtbot.waitUntil(lambda: (item.preview or [""])[0] == "Wren Hale: First words.", timeout=3000)
    assert writer.dirty and "First words" not in _script_text(window, script_id)
