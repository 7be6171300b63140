"""Completion in the script editor on the garden sample: the list opens by itself after ``::``
with the project's actors, narrows as the writer types, Enter inserts; Ctrl+Space offers the
variables' states and properties after ``@if``; directives after ``@``; Escape closes it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor


@pytest.fixture
def script(window, qtbot):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    doc_id = window.session.editor.create("Script", "Completion", content={"script": ""}).id
    window.show()
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor)
    editor.text.setFocus()
    qtbot.waitUntil(editor.text.hasFocus)
    return editor


def _listed(text) -> list[str]:  # type: ignore[no-untyped-def]
    model = text.completer.completionModel()
    return [model.index(row, 0).data() for row in range(model.rowCount())]


def _end_of_text(text) -> None:  # type: ignore[no-untyped-def]
    cursor = text.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    text.setTextCursor(cursor)


@pytest.mark.slow
def test_actors_open_by_themselves_after_the_speech_marker(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "::")
    qtbot.waitUntil(popup.isVisible)
    assert {"Woman", "Narrator", "Player"} <= set(_listed(text))
    qtbot.keyClicks(text, "Wo")
    assert _listed(text) == ["Woman"]
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert not popup.isVisible()
    assert text.toPlainText() == "::Woman:: "
    qtbot.keyClicks(text, "Hello.")
    assert not popup.isVisible()  # speech text is never completed
    assert script.dirty


def test_ctrl_space_offers_states_then_properties_with_their_defaults(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "@if ")
    qtbot.waitUntil(popup.isVisible)  # after "@if ": the roots
    assert _listed(text) == ["v", "variables", "defaults"]
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    assert not popup.isVisible()
    qtbot.keyClicks(text, "v.pl")
    qtbot.keyClick(text, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert popup.isVisible() and _listed(text) == ["player"]
    qtbot.keyClick(popup, Qt.Key.Key_Tab)
    assert text.toPlainText() == "@if v.player"
    qtbot.keyClicks(text, ".co")
    qtbot.waitUntil(popup.isVisible)
    assert _listed(text) == ["courage"]
    index = text.completer.completionModel().index(0, 0)
    from storyloom.gui.editors.script_completer import DETAIL_ROLE

    assert index.data(DETAIL_ROLE) == "number = 5"
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert text.toPlainText() == "@if v.player.courage"


def test_directives_and_interpolations(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "@")
    qtbot.waitUntil(popup.isVisible)
    assert _listed(text) == ["@if", "@else", "@endif", "@set"]
    qtbot.keyClicks(text, "s")
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert text.toPlainText() == "@set "
    qtbot.waitUntil(popup.isVisible)  # "@set " goes on to the paths
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    text.setPlainText("::Narrator:: It is ${v.world.")
    _end_of_text(text)
    assert text.show_completions() is not None
    assert "season" in _listed(text) and "time_of_day" in _listed(text)


def test_nothing_is_offered_in_plain_text(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    qtbot.keyClicks(text, "Just a line. With: colons <and> @signs.")
    assert not text.completer.popup().isVisible()
    assert text.show_completions() is None


def test_enter_after_a_directive_typed_in_full_is_a_new_line(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    # The trap a writer fell into: "@else" + Enter took the open list's "else" and glued the
    # next line on ("@else::Mara:: ...").
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "@")
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClicks(text, "else")
    assert popup.isVisible() and _listed(text) == ["@else"]
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert not popup.isVisible()
    qtbot.keyClicks(text, "::")
    assert text.toPlainText() == "@else\n::"
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    text.setPlainText("")
    qtbot.keyClicks(text, "@endif")
    qtbot.keyClick(popup if popup.isVisible() else text, Qt.Key.Key_Return)
    assert text.toPlainText() == "@endif\n"


def test_enter_takes_a_choice_that_changes_the_text_or_one_moved_to(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "@end")
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Return)  # "endif" is more than what is typed: taken
    assert text.toPlainText() == "@endif"
    text.setPlainText("")
    qtbot.keyClicks(text, "@")
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClicks(text, "if")
    assert _listed(text) == ["@if"]
    qtbot.keyClick(popup, Qt.Key.Key_Tab)  # "if " (with its space) changes the text: taken
    assert text.toPlainText() == "@if "
    qtbot.waitUntil(popup.isVisible)  # the paths
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    text.setPlainText("")
    qtbot.keyClicks(text, "@")
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClicks(text, "else")
    qtbot.keyClick(popup, Qt.Key.Key_Up)  # moved in the list (to the same choice): Enter takes it
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert text.toPlainText() == "@else"
    assert not popup.isVisible()


def test_a_space_after_a_chosen_speaker_is_not_doubled(script, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = script.text
    popup = text.completer.popup()
    qtbot.keyClicks(text, "::")
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClicks(text, "Wo")
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert text.toPlainText() == "::Woman:: "
    qtbot.keyClicks(text, " Hello.  Yes")  # the writer's own space is already there; later ones count
    assert text.toPlainText() == "::Woman:: Hello.  Yes"
