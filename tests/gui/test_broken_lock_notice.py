"""A teammate breaks my lock: the app tells me once, in the open editor's banner and in the
sync panel's activity (two windows against pouchdb-server, offscreen)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.app.broken_notices import ANNOUNCED_ID
from storyloom.project.locks import lock_info
from tests.gui.team_windows import TeamWindows
from tests.support.couch import CouchServer
from tests.team.lock_clients import TeamCouch

pytestmark = pytest.mark.integration  # pouchdb-server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("gui-broken-couch")) as couch:
        yield couch


@pytest.fixture
def team(qtbot, tmp_path: Path, server: CouchServer) -> Iterator[TeamWindows]:  # type: ignore[no-untyped-def]
    windows = TeamWindows(qtbot, tmp_path, server)
    yield windows
    windows.close()


def test_the_open_editor_and_the_activity_say_my_lock_was_broken(qtbot, team: TeamWindows) -> None:  # type: ignore[no-untyped-def]
    ana = team.open("ana")
    bob = team.open("bob")
    intro = team.doc_id("Intro")
    assert ana.open_document(intro)
    ana.session.locks.lock(intro)
    qtbot.waitUntil(lambda: lock_info(bob.session.db.get(intro)) is not None, timeout=15_000)

    # bob is an owner (the database's admins): owners may break a fresh lock (lock rules version 2).
    team.team.server.set_security(team.team.db, members=["ana", "bob"], admins=["bob"])
    broken = bob.session.locks.unlock(intro, break_lock=True)
    assert broken is not None and broken.holder == "ana"

    editor = ana.tabs.editor(intro)
    assert editor is not None
    _button, banner = ana.lock_ui.parts(editor)
    qtbot.waitUntil(lambda: banner.isVisible() and "Your lock was broken by bob at" in banner.label.text()
                    and "held since" in banner.label.text(), timeout=20_000)
    assert banner.kind == "warning"
    entries = ana.sync_status.activity.entries()
    assert any(e.text.startswith("Your lock on “Intro”") and "broken by bob" in e.text for e in entries)
    told = ana.session.project.store.get_local(ANNOUNCED_ID)["breaks"]  # told once: recorded on this machine
    assert len(told) == 1 and told[0].startswith(intro)
    # Dismissed, the notice stays gone (the editor's own line for a recorded break remains).
    ana.lock_ui.dismiss(intro)
    assert "held since" not in banner.label.text()
