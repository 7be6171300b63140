"""Sync in the status bar and the sync panel: up to date, offline with the next retry and the
unsent changes when the server stops, back to up to date when it starts again on the same port
(a persistent pouchdb-server); the panel from a click, "Sync now", a 413's document, size and
setting; a project without a remote; a lost provisional lock announced in its editor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from storyloom.app.locks import LockNotice
from storyloom.app.sync_state import PROXY_SETTING, SyncState, TooLargeDocument
from storyloom.errors import Fix
from tests.gui.support import first_document
from tests.gui.team_windows import TeamWindows
from tests.support.couch import CouchServer
from tests.team.lock_clients import TeamCouch


@pytest.fixture
def server(tmp_path: Path) -> Iterator[CouchServer]:
    """A persistent server of the test's own: stopped and started again on the same port."""
    with TeamCouch(tmp_path / "couch", persistent=True) as couch:
        yield couch


@pytest.fixture
def team(qtbot, tmp_path: Path, server: CouchServer) -> Iterator[TeamWindows]:  # type: ignore[no-untyped-def]
    windows = TeamWindows(qtbot, tmp_path, server)
    yield windows
    windows.close()


@pytest.mark.integration
def test_the_status_bar_goes_offline_and_back_to_up_to_date(qtbot, team: TeamWindows, server: CouchServer) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    item = ana.status.sync
    assert item.label.text().startswith("Up to date · ")
    assert "Server: " in item.toolTip() and team.team.db in item.toolTip()

    qtbot.mouseClick(item, Qt.MouseButton.LeftButton)  # the panel opens from the status bar
    panel = ana.sync_status.panel
    assert panel.isVisible() and panel.headline.text() == "Up to date"
    assert not panel.problem.isVisible()

    port = server.port
    server.stop()
    intro = team.doc_id("Intro")
    ana.session.editor.patch(intro, {"content": {"script": "::Woman:: Said while offline.\n"}})
    qtbot.waitUntil(lambda: item.label.text().startswith("Offline · retry in ") and "unsent" in item.label.text(),
                    timeout=20_000)
    assert panel.headline.text() == "Offline"
    assert panel.problem.isVisible() and panel.cause.text()
    assert "Next try in" in panel.lines.text() and "not sent yet" in panel.lines.text()

    server.start(port=port)
    qtbot.waitUntil(lambda: item.label.text().startswith("Up to date") and "unsent" not in item.label.text(),
                    timeout=30_000)
    assert panel.headline.text() == "Up to date" and not panel.problem.isVisible()
    activity = [panel.activity.item(i).text() for i in range(panel.activity.count())]
    assert any("Back online: up to date" in line for line in activity)
    assert any("Offline" in line for line in activity)
    assert server.get_doc(team.team.db, intro).json()["content"]["script"] == "::Woman:: Said while offline.\n"


@pytest.mark.integration
def test_sync_now_and_teammates_edits_in_the_activity(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    bob = team.open("bob")
    ana.sync_status.toggle_panel()
    panel = ana.sync_status.panel
    assert panel.sync_now.isVisible()
    panel.sync_now.click()
    assert panel.activity.item(0).text().endswith("Sync now")
    gate = team.doc_id("Gate")
    bob.session.editor.patch(gate, {"content": {"script": "Bob was here.\n"}})
    qtbot.waitUntil(lambda: any("Received “Gate”" in panel.activity.item(i).text()
                                for i in range(panel.activity.count())), timeout=15_000)
    ana.sync_status.toggle_panel()
    assert not panel.isVisible()


def test_a_document_too_large_names_its_name_size_and_setting(window) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    name = window.session.index.get(doc_id).name
    state = SyncState(kind="error", cause=f"document {doc_id!r} (3250000 bytes) is too large for the server",
                      fix=Fix("raise_limit", setting=PROXY_SETTING, size=3_250_000), problem="too_large",
                      too_large=(TooLargeDocument(doc_id, "1-a", 3_250_000, PROXY_SETTING),),
                      remote="http://127.0.0.1:5984/garden")
    window.sync_status.apply(state)
    assert window.status.sync.label.text() == "Sync error"
    window.sync_status.toggle_panel()
    panel = window.sync_status.panel
    assert panel.headline.text() == "Sync needs you"
    assert panel.cause.text() == f"“{name}” (3.1 MB) is too large for the server; everything else syncs."
    assert "client_max_body_size" in panel.fix.text()
    assert panel.too_large.count() == 1
    assert panel.too_large.item(0).text() == f"{name} — 3.1 MB\nRaise {PROXY_SETTING}"
    panel.too_large.itemActivated.emit(panel.too_large.item(0))
    assert window.tabs.current_editor().doc_id == doc_id


def test_a_project_without_a_remote_says_sync_is_off(window) -> None:  # type: ignore[no-untyped-def]
    assert window.status.sync.label.text() == "Sync off"
    assert "no remote database" in window.status.sync.toolTip()
    window.sync_status.toggle_panel()
    assert window.sync_status.panel.headline.text() == "Sync is off"
    assert not window.sync_status.panel.sync_now.isVisible()
    team_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Team")
    texts = [a.text() for a in team_menu.actions() if a.text()]
    assert {"Lock / Unlock Document", "My Locks…", "Sync Panel", "Sync Now"} <= set(texts)


def test_f2_locks_and_unlocks_without_a_remote(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    assert window.open_document(doc_id)
    editor = window.tabs.editor(doc_id)
    button, _banner = window.lock_ui.parts(editor)
    assert window.lock_ui.lock_action.shortcut().toString() == "F2"
    window.lock_ui.lock_action.trigger()
    qtbot.waitUntil(lambda: button.text() == "Locked by you", timeout=5000)
    assert window.session.db.get(doc_id)["lockedBy"] == "tester"
    window.lock_ui.lock_action.trigger()
    qtbot.waitUntil(lambda: button.text() == "Lock", timeout=5000)
    assert window.session.db.get(doc_id)["locked"] is False


def test_a_lost_provisional_lock_is_announced_with_its_edits(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    name = window.session.index.get(doc_id).name
    assert window.open_document(doc_id)
    _button, banner = window.lock_ui.parts(window.tabs.editor(doc_id))
    notice = LockNotice(doc_id, "lost", "bob", "2025-11-25T14:02:00Z", "…", kept_rev="5-abc")
    window.bridge.lock_settled.emit(notice)
    assert banner.isVisible() and banner.kind == "error"
    assert f"Your lock on “{name}”, taken while offline, was lost: bob holds it" in banner.label.text()
    assert "kept as a conflict revision" in banner.label.text()
    assert "was lost" in window.statusBar().currentMessage()
    window.sync_status.toggle_panel()
    assert "was lost" in window.sync_status.panel.activity.item(0).text()
    [dismiss] = [b for b in banner.buttons if b.isVisible()]
    dismiss.click()
    assert not banner.isVisible()
