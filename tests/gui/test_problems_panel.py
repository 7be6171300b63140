"""The Problems dock on the garden sample: a broken script's problem is listed, activating it
opens the script's tab at the problem's line; the shortcut toggles the dock."""

from __future__ import annotations


def test_a_broken_script_is_listed_and_activating_it_opens_the_tab_at_the_line(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    panel = window.problems_panel
    assert panel.isHidden()
    window.problems_panel.toggleViewAction().trigger()
    assert panel.isVisible()
    before = len(panel.model.rows)
    text = "::Ana:: One\n::Ana:: Two\n@if v.player.brave\n::Ana:: never closed\n"
    doc_id = window.session.editor.create("Script", "Broken on purpose", content={"script": text}).id
    qtbot.waitUntil(lambda: any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    row = next(i for i, p in enumerate(panel.model.rows) if p.doc_id == doc_id and p.diagnostic.code == "unclosed-if")
    assert panel.model.index(row, 1).data() == "Broken on purpose"
    assert panel.model.index(row, 2).data() == "3"
    assert len(panel.model.rows) > before
    from PySide6.QtWidgets import QWidget

    assert "error" in window.findChild(QWidget, "problemsCount").label.text()
    panel.activate_row(row)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor) and editor.doc_id == doc_id
    assert editor.text.textCursor().blockNumber() + 1 == 3


def test_fixing_the_script_removes_its_problem(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = window.problems_panel
    editor = window.session.editor
    doc_id = editor.create("Script", "Soon fixed", content={"script": "@if v.player.brave\n"}).id
    qtbot.waitUntil(lambda: any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    editor.patch(doc_id, {"content": {"script": "::Woman:: fine\n"}})  # Woman is an actor of the garden
    qtbot.waitUntil(lambda: not any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)


def test_a_speaker_who_is_not_an_actor_offers_create_actor_which_clears_it(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    panel = window.problems_panel
    panel.toggleViewAction().trigger()
    doc_id = window.session.editor.create("Script", "Stranger", content={"script": "::Nobody:: Hello\n"}).id
    qtbot.waitUntil(lambda: any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    row = next(i for i, p in enumerate(panel.model.rows) if p.doc_id == doc_id)
    assert "Nobody" in panel.model.index(row, 0).data()
    fix = panel.findChild(QPushButton, "problemsQuickFix")
    assert fix is not None and not fix.isEnabled()  # nothing selected yet
    panel.view.selectRow(row)
    assert fix.isEnabled() and fix.text() == "Create actor “Nobody”"
    assert panel.row_actions(row)[0].text() == "Create actor “Nobody”"
    qtbot.mouseClick(fix, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    actors = [s for s in window.session.index.summaries() if s.type == "Actor" and s.name == "Nobody"]
    assert len(actors) == 1


def test_a_saved_documents_check_runs_off_the_gui_thread(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    import threading

    panel = window.problems_panel
    panel.wait_until_checked()
    threads: list[threading.Thread] = []
    check = panel.problems.apply

    def recorded(changes):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return check(changes)

    panel.problems.apply = recorded  # the real check, told which thread runs it
    editor = window.session.editor
    doc_id = editor.create("Script", "Checked aside", content={"script": "@if v.player.brave\n"}).id
    qtbot.waitUntil(lambda: any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    editor.patch(doc_id, {"content": {"script": "// fine\n"}})  # no problem left
    qtbot.waitUntil(lambda: not any(p.doc_id == doc_id for p in panel.model.rows), timeout=5000)
    assert threads and threading.main_thread() not in threads
