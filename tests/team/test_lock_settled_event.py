"""A provisional lock settled after reconnecting is announced on the session's event stream
(``LockSettled``), in order with the document changes: lost to a teammate's lock (who holds it,
and the revision that keeps our edits), or confirmed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.app import DocumentChanged, LockSettled
from storyloom.project.locks import lock_info
from tests.support.couch import CouchServer
from tests.team.lock_clients import TeamCouch, team_database
from tests.team.team_sessions import Team, wait_until


@pytest.fixture
def server(tmp_path: Path) -> Iterator[CouchServer]:
    """A persistent server of the test's own (stopped and started again on the same port)."""
    with TeamCouch(tmp_path / "couch", persistent=True) as couch:
        yield couch


class Events:
    def __init__(self) -> None:
        self.items: list[Any] = []
        self.lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        with self.lock:
            self.items.append(event)

    def settled(self) -> list[LockSettled]:
        with self.lock:
            return [e for e in self.items if isinstance(e, LockSettled)]


def synced_pair(tmp_path: Path, server: CouchServer) -> tuple[Team, Any, Any, str]:
    db = team_database(server, ["ana", "bob"])
    team = Team(tmp_path, server, db)
    ana = team.open("ana")
    ana.start_sync()
    assert ana.sync.wait_for(lambda s: s.kind == "idle" and s.pending == 0, timeout=15)
    bob = team.open("bob")
    bob.start_sync()
    assert bob.sync.wait_for(lambda s: s.kind == "idle", timeout=15)
    doc_id = next(s.id for s in ana.index.summaries() if s.name == "Intro")
    return team, ana, bob, doc_id


def test_a_provisional_lock_lost_after_reconnecting_is_announced(tmp_path: Path, server: CouchServer) -> None:
    team, ana, bob, doc_id = synced_pair(tmp_path, server)
    try:
        events = Events()
        ana.subscribe(events)
        ana.sync.stop()  # ana works offline from here
        port = server.port
        server.stop()
        info = ana.locks.lock(doc_id)
        assert info.provisional
        ana.editor.patch(doc_id, {"content": {"script": "::Woman:: Offline words.\n"}})
        server.start(port=port)
        assert bob.sync.wait_for(lambda s: s.kind == "idle", timeout=20)  # bob is back online
        assert not bob.locks.lock(doc_id).provisional  # online: bob's lock is on the server first

        ana.start_sync()  # reconnecting: the pull's after-work settles the provisional lock
        [settled] = wait_until(events.settled, timeout=20)
        notice = settled.notice
        assert (notice.doc_id, notice.outcome, notice.holder) == (doc_id, "lost", "bob")
        assert notice.kept_rev is not None
        # Our edits are kept in the revision named, released there.
        kept = ana.db.get(doc_id, rev=notice.kept_rev)
        assert kept["content"]["script"] == "::Woman:: Offline words.\n"
        assert lock_info(kept) is None
        # The unlock revision that keeps the edits came through the feed before the notice.
        assert ana.wait_for_events(5)
        with events.lock:
            order = [e for e in events.items if isinstance(e, DocumentChanged | LockSettled)]
        position = order.index(settled)
        assert any(isinstance(e, DocumentChanged) and e.id == doc_id for e in order[:position])
    finally:
        team.close()


def test_a_provisional_lock_confirmed_after_reconnecting_is_announced(tmp_path: Path, server: CouchServer) -> None:
    team, ana, bob, doc_id = synced_pair(tmp_path, server)
    try:
        events = Events()
        ana.subscribe(events)
        ana.sync.stop()
        port = server.port
        server.stop()
        assert ana.locks.lock(doc_id).provisional
        server.start(port=port)
        ana.start_sync()
        [settled] = wait_until(events.settled, timeout=20)
        assert (settled.notice.outcome, settled.notice.holder) == ("confirmed", "ana")
        assert ana.locks.provisional() == {}
        held = wait_until(lambda: lock_info(bob.db.get(doc_id)), timeout=15)  # bob's pull brings it
        assert held.holder == "ana"
    finally:
        team.close()
