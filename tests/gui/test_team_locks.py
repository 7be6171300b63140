"""Locks in the app, two teammates against pouchdb-server (each in a STORYLOOM_HOME of their own):
a document locked in one window is read-only with a banner in the other, F2 toggles the lock,
the first edit takes it, the tree and the tab show who holds it, "Unlock all" in the dashboard,
and "Break lock…" with its confirmation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QPlainTextEdit, QWidget

from storyloom.app.views.lock_view import person_color
from storyloom.gui.locks_dashboard import LocksDashboard
from storyloom.gui.main_window import MainWindow
from storyloom.gui.tree_model import ID_ROLE
from storyloom.project.locks import broken_lock, lock_info
from tests.gui.team_windows import TeamWindows
from tests.support.couch import CouchServer
from tests.team.lock_clients import TeamCouch

pytestmark = pytest.mark.integration  # pouchdb-server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("gui-team-couch")) as couch:
        yield couch


@pytest.fixture
def team(qtbot, tmp_path: Path, server: CouchServer) -> Iterator[TeamWindows]:  # type: ignore[no-untyped-def]
    windows = TeamWindows(qtbot, tmp_path, server)
    yield windows
    windows.close()


def when_modal(qtbot, handle: Callable[[QWidget], None]) -> list[QWidget]:  # type: ignore[no-untyped-def]
    """Run ``handle`` on the next modal dialog once it shows (its exec() blocks until then)."""
    seen: list[QWidget] = []

    def poll() -> None:
        modal = QApplication.activeModalWidget()
        if modal is None or not modal.isVisible():
            QTimer.singleShot(20, poll)
            return
        seen.append(modal)
        handle(modal)

    QTimer.singleShot(0, poll)
    return seen


def click(text: str) -> Callable[[QWidget], None]:
    def handle(box: QWidget) -> None:
        assert isinstance(box, QMessageBox)
        for button in box.buttons():
            if button.text().replace("&", "") == text:
                button.click()
                return
        raise AssertionError(f"no button {text!r}")

    return handle


def server_doc(team: TeamWindows, doc_id: str) -> dict:
    response = team.team.server.get_doc(team.team.db, doc_id)
    assert response.status_code == 200, response.text
    return response.json()


def text_of(window: MainWindow, doc_id: str) -> QPlainTextEdit:
    editor = window.tabs.editor(doc_id)
    assert editor is not None
    widget = editor.field_editor("content.script")
    assert isinstance(widget, QPlainTextEdit)
    return widget


def lock_button(window: MainWindow, doc_id: str):  # type: ignore[no-untyped-def]
    editor = window.tabs.editor(doc_id)
    assert editor is not None
    parts = window.lock_ui.parts(editor)
    assert parts is not None
    return parts


def press_f2(qtbot, window: MainWindow, doc_id: str) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    widget = text_of(window, doc_id)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=2000)
    qtbot.keyClick(widget, Qt.Key.Key_F2)


def test_locked_in_one_window_read_only_with_a_banner_in_the_other(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    bob = team.open("bob")
    intro = team.doc_id("Intro")
    assert bob.open_document(intro) and ana.open_document(intro)
    button, banner = lock_button(bob, intro)
    assert button.text() == "Lock" and not banner.isVisible() and not text_of(bob, intro).isReadOnly()

    press_f2(qtbot, ana, intro)  # F2 in the editor locks the open document
    ana_button, _ = lock_button(ana, intro)
    qtbot.waitUntil(lambda: ana_button.text() == "Locked by you", timeout=10_000)
    assert lock_info(server_doc(team, intro)).holder == "ana"  # type: ignore[union-attr]

    # Bob's open editor turns read-only once the lock arrives, with a banner naming the holder.
    qtbot.waitUntil(lambda: text_of(bob, intro).isReadOnly(), timeout=15_000)
    assert banner.isVisible() and "ana is editing this document" in banner.label.text()
    assert [b.text() for b in banner.buttons if b.isVisible()] == ["Break lock…"]
    assert button.text() == "ana"
    editor = bob.tabs.editor(intro)
    assert editor is not None and editor.name_edit.isReadOnly()
    before = text_of(bob, intro).toPlainText()
    qtbot.keyClicks(text_of(bob, intro), "typed while locked")
    assert text_of(bob, intro).toPlainText() == before and not editor.dirty
    # The tab and the tree say who holds it, in ana's colour.
    index = bob.tabs.indexOf(editor)
    assert "Locked by ana since" in bob.tabs.tabToolTip(index)
    bob.explorer.reveal(intro)
    model = bob.explorer.model
    assert model is not None
    row = model.index_of(intro)
    assert "Locked by ana since" in row.data(Qt.ItemDataRole.ToolTipRole)
    badge = bob.lock_ui.delegate.badge_of(row)
    assert badge is not None and (badge.label, badge.color) == ("ana", person_color("ana"))
    assert row.data(ID_ROLE) == intro

    # A document opened after the lock arrived opens read-only too.
    bob.tabs.close_tab(index)
    assert bob.open_document(intro)
    assert text_of(bob, intro).isReadOnly()

    # F2 again unlocks: bob may edit again, the banner goes.
    press_f2(qtbot, ana, intro)
    qtbot.waitUntil(lambda: ana_button.text() == "Lock", timeout=10_000)
    assert lock_info(server_doc(team, intro)) is None
    qtbot.waitUntil(lambda: not text_of(bob, intro).isReadOnly(), timeout=15_000)
    _button, bob_banner = lock_button(bob, intro)
    assert not bob_banner.isVisible()


def test_the_first_edit_takes_the_lock_and_the_editor_shows_it(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    bob = team.open("bob")
    gate = team.doc_id("Gate")
    assert ana.open_document(gate)
    button, _banner = lock_button(ana, gate)
    assert "your first edit takes it" in button.toolTip()
    text = text_of(ana, gate)
    text.moveCursor(text.textCursor().MoveOperation.End)
    qtbot.keyClicks(text, "It creaks.")
    editor = ana.tabs.editor(gate)
    assert editor is not None and editor.save()
    assert button.text() == "Locked by you" and "provisional" in button.toolTip()
    assert ana.lock_ui.table.get(gate) is not None
    assert "Locked by you since" in ana.tabs.tabToolTip(ana.tabs.indexOf(editor))
    # The live push takes the locked revision to the server; bob's pull brings it.
    qtbot.waitUntil(lambda: lock_info(server_doc(team, gate)) is not None, timeout=10_000)
    qtbot.waitUntil(lambda: bob.lock_ui.table.get(gate) is not None, timeout=15_000)
    assert bob.lock_ui.table.get(gate).holder == "ana"  # type: ignore[union-attr]
    assert "It creaks." in server_doc(team, gate)["content"]["script"]


def test_my_locks_dashboard_unlocks_all(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    intro, gate = team.doc_id("Intro"), team.doc_id("Gate")
    for doc_id in (intro, gate):
        assert ana.open_document(doc_id)
        ana.lock_ui.lock_action.trigger()
        qtbot.waitUntil(lambda d=doc_id: lock_button(ana, d)[0].text() == "Locked by you", timeout=10_000)
    assert ana.lock_ui.dashboard_action.shortcut().toString() == "Ctrl+Shift+L"
    ana.lock_ui.dashboard_action.trigger()
    dashboard = ana.findChild(LocksDashboard)
    assert dashboard is not None and dashboard.isVisible()
    names = sorted(dashboard.mine.topLevelItem(i).text(0) for i in range(dashboard.mine.topLevelItemCount()))
    assert names == ["Gate", "Intro"]
    assert dashboard.mine_title.text() == "Locked by you (2)"
    assert dashboard.others_empty.isVisible() and not dashboard.others.isVisible()
    dashboard.unlock_all_button.click()
    qtbot.waitUntil(lambda: dashboard.mine.topLevelItemCount() == 0 and not ana.lock_ui.busy(), timeout=15_000)
    assert dashboard.mine_empty.isVisible()
    assert lock_info(server_doc(team, intro)) is None and lock_info(server_doc(team, gate)) is None
    assert lock_button(ana, intro)[0].text() == "Lock"


def test_break_lock_asks_first_and_is_recorded(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    # bob is an owner (the database's admins): the server lets owners break a fresh lock (version 2).
    team.team.server.set_security(team.team.db, members=["ana", "bob"], admins=["bob"])
    ana = team.open("ana")
    bob = team.open("bob")
    intro = team.doc_id("Intro")
    assert ana.open_document(intro)
    ana.lock_ui.lock_action.trigger()
    qtbot.waitUntil(lambda: bob.lock_ui.table.get(intro) is not None, timeout=15_000)

    bob.lock_ui.dashboard_action.trigger()
    dashboard = bob.findChild(LocksDashboard)
    assert dashboard is not None
    assert dashboard.others.topLevelItemCount() == 1
    row = dashboard.others.topLevelItem(0)
    assert (row.text(0), row.text(1)) == ("Intro", "ana")
    row.setSelected(True)
    assert dashboard.break_button.isEnabled()

    seen = when_modal(qtbot, click("Cancel"))
    dashboard.break_button.click()
    assert seen and seen[0].objectName() == "confirm-break"
    assert "Break ana's lock on “Intro”" in seen[0].text()
    assert "recorded" in seen[0].informativeText()
    assert lock_info(server_doc(team, intro)).holder == "ana"  # type: ignore[union-attr]

    when_modal(qtbot, click("Break lock"))
    dashboard.others.topLevelItem(0).setSelected(True)
    dashboard.break_button.click()
    qtbot.waitUntil(lambda: dashboard.others.topLevelItemCount() == 0 and not bob.lock_ui.busy(), timeout=15_000)
    doc = server_doc(team, intro)
    assert lock_info(doc) is None and broken_lock(doc).by == "bob"  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: "You broke ana's lock on “Intro”" in dashboard.breaks.text(), timeout=10_000)
    # Ana learns it in her editor once the break reaches her.
    _button, banner = lock_button(ana, intro)
    qtbot.waitUntil(lambda: banner.isVisible() and "Your lock was broken by bob" in banner.label.text(),
                    timeout=15_000)
