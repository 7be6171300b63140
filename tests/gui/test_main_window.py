"""The main window on a real project (the Drafft garden sample): tree, tabs, saving through the
gate, the banner, changes from elsewhere, the options dialog, /navigate, a clean close."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import httpx
import pytest

from tests.gui.support import first_document
from tests.support.couch import free_port

ROOT = Path(__file__).resolve().parents[2]








def _rows(model, parent=None) -> list[str]:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QModelIndex

    parent = parent or QModelIndex()
    names = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        names.append(index.data())
        names.extend(_rows(model, index))
    return names


def test_the_window_opens_with_the_tree_filled(window) -> None:  # type: ignore[no-untyped-def]
    assert window.sidebar.current() == "Script"
    model = window.explorer.model
    scripts = {s.name for s in window.session.index.summaries() if s.type == "Script"}
    assert scripts and scripts <= set(_rows(model))
    assert window.explorer.stack.currentWidget() is window.explorer.view
    window.sidebar.select("Actor")
    actors = {s.name for s in window.session.index.summaries() if s.type == "Actor"}
    assert actors <= set(_rows(window.explorer.model))
    assert window.status.project.label.text() == "Garden"
    assert window.status.api.label.text() == "API off"


def test_opening_a_script_typing_and_saving_writes_through_the_gate(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    from storyloom.gui.editors import ScriptEditor

    doc_id = first_document(window, "Script")
    assert window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor) and editor.doc_id == doc_id
    assert editor.text.toPlainText() == window.session.db.get(doc_id)["content"]["script"]
    editor.text.moveCursor(editor.text.textCursor().MoveOperation.End)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)
    qtbot.keyClicks(editor.text, "::Woman:: Typed in the test.")
    assert editor.dirty and window.tabs.tabText(window.tabs.currentIndex()).endswith("•")
    qtbot.keyClick(editor.text, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not editor.dirty
    stored = window.session.db.get(doc_id)
    assert stored["content"]["script"].endswith("::Woman:: Typed in the test.")
    assert stored["modifiedBy"] == "tester"
    assert not window.tabs.tabText(window.tabs.currentIndex()).endswith("•")


@pytest.mark.slow
def test_autosave_after_a_pause(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    editor = window.tabs.open(doc_id)
    editor.text.appendPlainText("// autosaved")
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    assert window.session.db.get(doc_id)["content"]["script"].endswith("// autosaved")


def test_script_problems_are_underlined_and_shown_on_hover(window) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(first_document(window, "Script"))
    editor.text.setPlainText("::Woman:: Hello\n@if v.player.\n")
    problems = editor.check_problems()
    assert problems and problems[0].line == 2
    assert "error" in editor.problems_button.text()
    assert editor.text.problem_text(2)
    block = editor.text.document().findBlockByNumber(1)
    wavy = block.layout().formats()
    underlined = [r for r in wavy if r.format.underlineStyle() != r.format.UnderlineStyle.NoUnderline]
    assert underlined


def test_an_invalid_edit_shows_the_banner_and_keeps_the_text(window) -> None:  # type: ignore[no-untyped-def]
    variables = sorted((s for s in window.session.index.summaries() if s.type == "Variable"), key=lambda s: s.id)
    first, second = variables[:2]
    doc_id = first.id
    before = window.session.db.get(doc_id)
    editor = window.tabs.open(doc_id)
    broken = f"_sid: {second.sid}\nsame: as another"  # two Variable documents may not share a _sid
    editor.source.setPlainText(broken)
    assert editor.save() is False
    assert editor.invalid and editor.banner.isVisibleTo(editor) and editor.banner.kind == "error"
    assert "Not saved" in editor.banner.label.text()
    assert editor.source.toPlainText() == broken
    assert window.session.db.get(doc_id)["_rev"] == before["_rev"]
    assert window.tabs.tabToolTip(window.tabs.indexOf(editor)).count("Not saved") == 1
    editor.source.setPlainText(before["content"]["variables"])  # fixed: saves, banner gone
    assert editor.save() and not editor.invalid and not editor.banner.isVisibleTo(editor)


def test_an_edit_from_another_thread_refreshes_the_tree_and_the_open_editor(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    editor = window.tabs.open(doc_id)
    done = threading.Event()

    def elsewhere() -> None:
        window.session.editor.create("Script", "Written by a thread")
        window.session.editor.patch(doc_id, {"content": {"script": "::Narrator:: Changed elsewhere."}})
        done.set()

    threading.Thread(target=elsewhere).start()
    assert done.wait(10)
    qtbot.waitUntil(lambda: "Written by a thread" in _rows(window.explorer.model), timeout=10000)
    qtbot.waitUntil(lambda: editor.text.toPlainText() == "::Narrator:: Changed elsewhere.", timeout=10000)


def test_a_change_elsewhere_while_typing_keeps_the_text(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    editor = window.tabs.open(doc_id)
    editor.text.setPlainText("::Woman:: my unsaved words")
    assert editor.dirty
    window.session.editor.patch(doc_id, {"content": {"script": "theirs"}})
    qtbot.waitUntil(lambda: editor.banner.kind == "warning", timeout=10000)
    assert "changed elsewhere" in editor.banner.label.text()
    assert editor.text.toPlainText() == "::Woman:: my unsaved words"
    editor.keep_mine()
    assert window.session.db.get(doc_id)["content"]["script"] == "::Woman:: my unsaved words"


@pytest.mark.integration
def test_a_write_from_a_second_process_refreshes_the_tree(window, qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    path = workspace.manager.find("Garden")
    code = textwrap.dedent(f"""
        from storyloom.project.manager import ProjectManager
        manager = ProjectManager({str(workspace.manager.root)!r}, username="other")
        project = manager.open({path.id!r})
        project.editor.create("Script", "From another process")
        project.close()
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    qtbot.waitUntil(lambda: "From another process" in _rows(window.explorer.model), timeout=10000)


def test_tree_commands_create_duplicate_rename_delete_and_move(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    explorer = window.explorer
    explorer.view.setCurrentIndex(explorer.model.index(0, 0))  # the Dialogues folder
    explorer.new_document()
    created = window.tabs.current_editor().doc_id
    assert window.session.db.get(created)["name"] == "New Script"
    folder = explorer.model.node(explorer.model.index(0, 0)).id
    assert window.session.db.get(created)["parent"] == folder
    explorer.reveal(created)
    assert explorer.selected_ids() == [created]
    explorer.duplicate_selected()
    assert not explorer.message.isVisibleTo(explorer), explorer.message.text()
    assert "New Script copy" in _rows(explorer.model)
    index = explorer.model.index_of(created)
    assert explorer.model.setData(index, "Renamed in tree")
    assert window.session.db.get(created)["name"] == "Renamed in tree"
    # drag and drop: the mime data of the row dropped at the top level, first row
    data = explorer.model.mimeData([explorer.model.index_of(created)])
    assert explorer.model.dropMimeData(data, data and 2, 0, 0, explorer.model.index(-1, -1))
    assert window.session.db.get(created)["parent"] is None
    qtbot.waitUntil(lambda: explorer.model.index_of(created).parent().isValid() is False, timeout=5000)
    explorer.view.clearSelection()
    explorer.view.selectionModel().select(explorer.model.index_of(created),
                                          explorer.view.selectionModel().SelectionFlag.Select)
    explorer.delete_selected(confirm=False)
    assert window.session.index.get(created) is None


def test_quick_open_finds_by_name_and_enter_opens(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    target = next(s for s in window.session.index.summaries() if s.type == "Actor")
    dialog = window.quick_open()
    qtbot.keyClicks(dialog.query, target.name[:4])
    assert dialog.model.matches and dialog.model.matches[0].name.lower().startswith(target.name[:4].lower())
    while dialog.model.matches[dialog.list.currentIndex().row()].id != target.id:
        qtbot.keyClick(dialog.query, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert window.tabs.current_editor().doc_id == target.id
    assert window.sidebar.current() == "Actor"


def test_tabs_are_restored_on_reopen(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    first = open_project_window(workspace, garden)
    ids = [s.id for s in first.session.index.summaries() if s.type in ("Script", "Actor")][:3]
    for doc_id in ids:
        first.open_document(doc_id)
    first.close()
    second = open_project_window(workspace, garden)
    qtbot.addWidget(second)
    assert [e.doc_id for e in second.tabs.editors()] == ids
    assert second.tabs.current_editor().doc_id == ids[-1]
    second.close()


@pytest.mark.integration
def test_options_start_the_api_and_navigate_opens_the_tab(window, qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_options()
    dialog.api_enabled.setChecked(True)
    dialog.api_port.setValue(free_port())
    dialog.generate_key()
    assert dialog.save()
    status = window.session.api.status
    assert status.running, status.error
    qtbot.waitUntil(lambda: window.status.api.label.text().startswith("API serving on port"), timeout=5000)
    doc_id = first_document(window, "Actor")
    result: dict = {}

    def call() -> None:
        result["response"] = httpx.get(f"{status.url}/navigate", params={"id": doc_id},
                                       headers={"x-api-key": workspace.options.api_key}, timeout=10)

    thread = threading.Thread(target=call)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=15000)
    response = result["response"]
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "id": doc_id, "collection": "Actor", "route": f"/actor/{doc_id}"}
    qtbot.waitUntil(lambda: window.tabs.current_editor() is not None
                    and window.tabs.current_editor().doc_id == doc_id, timeout=5000)


def test_a_bad_option_is_shown_under_its_field(window) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_options()
    dialog.username.setText("   ")
    assert not dialog.save()
    assert dialog.errors["username"].isVisibleTo(dialog) and "username" in dialog.errors["username"].text()
    assert window.workspace.options.username == "tester"


@pytest.mark.integration
def test_a_short_api_key_is_refused_under_its_field_and_nothing_is_saved(window, workspace) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app import AppOptions

    saved = AppOptions.load().api_key
    dialog = window.show_options()
    dialog.api_enabled.setChecked(True)
    dialog.api_port.setValue(free_port())
    dialog.api_key.setText("too-short")
    assert not dialog.save()
    assert dialog.isVisible() and dialog.result() == 0  # the dialog stays open
    error = dialog.errors["api_key"]
    assert error.isVisibleTo(dialog)
    assert error.text().startswith("the API key is too short (9 characters): an API key needs at least 16")
    assert "`storyloom options set api.key new`" in error.text() and "too-short" not in error.text()
    assert not workspace.options.api_enabled and workspace.options.api_key != "too-short"
    assert AppOptions.load().api_key == saved and not window.session.api.status.running
    dialog.generate_key()  # the fix the message names
    assert dialog.save() and not dialog.isVisible()
    assert window.session.api.status.running and len(workspace.options.api_key) >= 43


@pytest.mark.integration
def test_the_answer_cache_option_is_shown_saved_and_served(window, workspace) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app import AppOptions

    workspace.options.api_answer_cache_mb = 96
    dialog = window.show_options()
    spin = dialog.answer_cache
    assert spin.value() == 96 and spin.text() == "96 MiB" and spin.isVisibleTo(dialog)
    assert "/game-export" in spin.toolTip() and "0 keeps none" in spin.toolTip()
    dialog.api_enabled.setChecked(True)
    dialog.api_port.setValue(free_port())
    dialog.generate_key()
    spin.setValue(32)
    assert dialog.save()
    assert workspace.options.api_answer_cache_mb == 32 and AppOptions.load().api_answer_cache_mb == 32
    cache = window.session.api.server.answer_cache
    assert window.session.api.status.running and cache is not None and cache.max_bytes == 32 * 2**20
    dialog = window.show_options()
    assert dialog.answer_cache.value() == 32
    dialog.answer_cache.setValue(0)
    assert dialog.answer_cache.text() == "Off"
    assert dialog.save()
    assert AppOptions.load().api_answer_cache_mb == 0
    cache = window.session.api.server.answer_cache
    assert cache is not None and cache.max_bytes == 0


def test_closing_the_window_closes_the_session(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    win = open_project_window(workspace, garden)
    editor = win.tabs.open(first_document(win, "Script"))
    editor.text.appendPlainText("// pending at close")
    with qtbot.waitSignal(win.closed, timeout=10000):
        win.close()
    assert win.session.closed and workspace.sessions == []
    assert not [t for t in threading.enumerate() if t.name.startswith("storyloom-session")]
    with workspace.open_session(garden) as session:
        assert session.db.get(editor.doc_id)["content"]["script"].endswith("// pending at close")


def test_the_panels_are_built_from_the_list_against_the_host(window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QDockWidget

    from storyloom.gui.host import WindowHost, host_of
    from storyloom.gui.panels import PANELS

    assert isinstance(window, WindowHost) and host_of(window.tabs) is window
    assert [spec.name for spec in PANELS] == list(window._parts)
    for spec in PANELS:
        part = window.part(spec.name)
        assert getattr(window, spec.name) is part
        if spec.title:  # a dock, hidden until its menu entry (with its shortcut) shows it
            dock = spec.dock(part) if spec.dock is not None else part
            assert isinstance(dock, QDockWidget) and not dock.isVisible()
            entry = next(a for a in window.menu(spec.menu).actions() if a.shortcut().toString() == spec.shortcut)
            entry.trigger()
            assert dock.isVisible()
    # Tabbed with the Problems dock; the entry of a dock comes before what its part adds itself.
    assert set(window.tabifiedDockWidgets(window.problems_panel)) == {window.search_panel, window.localization_view}
    team = [a.text() for a in window.menu("&Team").actions() if a.text()]
    assert team == ["Remote Replication…", "Lock / Unlock Document", "My Locks…", "Sync Panel", "Sync Now"]
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "&Go", "&Play", "&View", "&Team", "&Help"]


def _press_ctrl_n(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    focused = QApplication.focusWidget()
    assert focused is not None and window.isAncestorOf(focused)
    qtbot.keyClick(focused, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)


@pytest.mark.parametrize("focus", ["editor", "search"])
def test_ctrl_n_anywhere_creates_beside_the_open_document(window, qtbot, focus: str) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+N with an editor or the search field focused (and another collection on the left):
    a new document of the open document's collection, in its folder, opened; File has it too."""
    from PySide6.QtWidgets import QApplication

    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    script = next(s for s in window.session.index.summaries() if s.type == "Script" and s.parent is not None)
    editor = window.tabs.open(script.id)
    window.sidebar.select("Actor")
    assert window.explorer.collection == "Actor"
    if focus == "editor":
        editor.text.setFocus()
    else:
        window.search_panel.show()
        window.search_panel.query.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None and window.isAncestorOf(QApplication.focusWidget()))
    _press_ctrl_n(qtbot, window)
    created = window.tabs.current_editor().doc_id
    assert created != script.id
    doc = window.session.db.get(created)
    assert doc["type"] == "Script" and doc["name"] == "New Script" and doc["parent"] == script.parent
    assert window.sidebar.current() == "Script" and window.explorer.selected_ids() == [created]
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert any(a.shortcut().toString() == "Ctrl+N" for a in file_menu.actions())


def test_ctrl_n_in_the_tree_creates_in_the_selected_folder(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """In the tree, Ctrl+N still follows the tree's selection (not the open document)."""
    from PySide6.QtWidgets import QApplication

    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    script = next(s for s in window.session.index.summaries() if s.type == "Script" and s.parent is not None)
    window.tabs.open(script.id)
    explorer = window.explorer
    explorer.view.setCurrentIndex(explorer.model.index(0, 0))  # the Dialogues folder
    folder = explorer.model.node(explorer.model.index(0, 0)).id
    assert folder != script.parent
    explorer.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is explorer.view)
    _press_ctrl_n(qtbot, window)
    created = window.tabs.current_editor().doc_id
    assert window.session.db.get(created)["parent"] == folder
