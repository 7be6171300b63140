"""The project session: one ordered, typed event stream whoever writes; the API and the lock
policy plugged in; a clean close."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest

from storyloom.app import (
    ApiStateChanged,
    AppOptions,
    DocumentChanged,
    Origin,
    SessionClosed,
    Workspace,
)
from storyloom.project.documents import new_document
from storyloom.project.editor import WriteIntent
from storyloom.project.locks import LockRefused
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull, push
from tests.support.couch import CouchServer, couch, couch_server, free_port, unique_db_name  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    """Collects the events of a session, with the thread each arrived on."""

    def __init__(self) -> None:
        self.events: list[object] = []
        self.threads: set[str] = set()
        self._cond = threading.Condition()

    def __call__(self, event: object) -> None:
        with self._cond:
            self.events.append(event)
            self.threads.add(threading.current_thread().name)
            self._cond.notify_all()

    def changes(self) -> list[DocumentChanged]:
        return [e for e in self.events if isinstance(e, DocumentChanged)]

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self), timeout)


@pytest.fixture
def workspace() -> Workspace:
    ws = Workspace(options=AppOptions(username="ana"))
    yield ws
    ws.close()


@pytest.fixture
def session(workspace: Workspace):  # type: ignore[no-untyped-def]
    workspace.manager.create("Garden").close()
    session = workspace.open_session("Garden", poll_interval=0.05)
    yield session
    session.close()


def test_local_edits_arrive_in_seq_order_with_collection_and_origin(session) -> None:  # type: ignore[no-untyped-def]
    recorder = Recorder()
    session.subscribe(recorder)
    # The feed lists a document once, at its latest change (as CouchDB's does): two edits of one
    # document made before the event thread reads the feed are one event. Each edit is waited
    # for, so each is an event of its own (a loaded machine let the thread fall behind).
    script = session.editor.create("Script", "Intro", content={"script": "::A:: hi"})
    assert session.wait_for_events()
    session.editor.rename(script.id, "Opening")
    assert session.wait_for_events()
    item = session.editor.create("Item", "Sword")
    assert session.wait_for_events()
    session.editor.delete(item.id)
    assert session.wait_for_events()
    changes = recorder.changes()
    assert [(c.id, c.collection, c.deleted, c.origin) for c in changes] == [
        (script.id, "Script", False, Origin.LOCAL),
        (script.id, "Script", False, Origin.LOCAL),
        (item.id, "Item", False, Origin.LOCAL),
        (item.id, "Item", True, Origin.LOCAL),
    ]
    seqs = [c.seq for c in changes]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    tombstone = session.db.get(item.id, open_revs="all")[0]["ok"]
    assert tombstone["_deleted"] and changes[-1].rev == tombstone["_rev"]
    assert recorder.threads == {session._follower._thread.name}


def test_import_writes_are_labelled_import(session) -> None:  # type: ignore[no-untyped-def]
    recorder = Recorder()
    session.subscribe(recorder)
    docs = [new_document("Item", f"Item {n}", doc_id=f"imp-{n}", sortKey=f"a{n + 1}") for n in range(3)]
    written, refused = session.editor.write_many(docs, WriteIntent.IMPORT)
    assert refused == [] and len(written) == 3
    assert session.wait_for_events()
    assert [(c.id, c.origin) for c in recorder.changes()] == [(f"imp-{n}", Origin.IMPORT) for n in range(3)]


@pytest.mark.integration
def test_a_write_from_another_process_is_an_event_with_origin_remote(session) -> None:  # type: ignore[no-untyped-def]
    recorder = Recorder()
    session.subscribe(recorder)
    store = session.project.path / "store.sqlite3"
    code = textwrap.dedent(f"""
        from storyloom.store import Database
        db = Database({str(store)!r})
        from storyloom.project.documents import new_document
        db.put(new_document("Item", "Outside", doc_id="from-outside"))
        db.close()
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
    assert recorder.wait_for(lambda r: any(c.id == "from-outside" for c in r.changes()))
    (change,) = [c for c in recorder.changes() if c.id == "from-outside"]
    assert change.origin is Origin.REMOTE and change.collection == "Item"


def test_a_pull_and_edits_at_once_give_one_gap_free_stream_in_seq_order(
    session, couch: CouchServer, tmp_path: Path  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    name = unique_db_name()
    couch.create_db(name)
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    source = Database(tmp_path / "teammate.sqlite")
    try:
        source.bulk_docs([new_document("Item", f"R{n}", doc_id=f"remote-{n:03d}", sortKey=f"r{n + 1}")
                          for n in range(300)])
        assert push(source, remote).ok
        recorder = Recorder()
        start_seq = session.project.store.update_seq
        session.subscribe(recorder)
        local_ids: list[str] = []

        def edit() -> None:
            for n in range(60):
                local_ids.append(session.editor.create("Item", f"Local {n}").id)

        editor_thread = threading.Thread(target=edit)
        editor_thread.start()
        status = pull(remote, session.project.store, batch_size=20)
        editor_thread.join()
        assert status.ok
        assert session.wait_for_events()
    finally:
        remote.close()
        source.close()
    changes = recorder.changes()
    seqs = [c.seq for c in changes]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)), "events out of seq order"
    # Gap-free: every change of the feed after the start is one of the events, at the same seq.
    feed = session.project.store.changes(since=start_seq)["results"]
    by_seq = {c.seq: c for c in changes}
    for row in feed:
        assert row["seq"] in by_seq, f"the stream skipped seq {row['seq']} ({row['id']})"
        assert by_seq[row["seq"]].id == row["id"]
    origins = {c.id: c.origin for c in changes}
    assert {origins[i] for i in local_ids} == {Origin.LOCAL}
    # What the pull wrote is remote; the editor may also rewrite pulled siblings (sort keys), as local.
    pulled = [c for c in changes if c.rev.startswith("1-") and c.id.startswith("remote-")]
    assert pulled and all(c.origin is Origin.REMOTE for c in pulled)
    assert {c.id for c in changes if c.id.startswith("remote-")} == {f"remote-{n:03d}" for n in range(300)}
    rewritten = [c for c in changes if c.id.startswith("remote-") and not c.rev.startswith("1-")]
    assert all(c.origin is Origin.LOCAL for c in rewritten)


def test_a_failing_subscriber_does_not_starve_the_others(session) -> None:  # type: ignore[no-untyped-def]
    def broken(event: object) -> None:
        raise RuntimeError("subscriber bug")

    recorder = Recorder()
    session.subscribe(broken)
    unsubscribe = session.subscribe(recorder)
    session.editor.create("Item", "One")
    assert session.wait_for_events()
    assert len(recorder.changes()) == 1
    unsubscribe()
    session.editor.create("Item", "Two")
    assert session.wait_for_events()
    assert len(recorder.changes()) == 1


@pytest.mark.integration
def test_the_api_runs_on_the_session_and_its_state_is_an_event(workspace: Workspace) -> None:
    workspace.options.api_enabled = True
    workspace.options.api_key = "k" * 32
    workspace.options.api_port = free_port()
    workspace.manager.create("Served").close()
    session = workspace.open_session("Served")
    recorder = Recorder()
    session.subscribe(recorder)
    status = session.start_api()
    assert status.running, status.error
    info = httpx.get(f"{status.url}/info", headers={"x-api-key": "k" * 32}, timeout=10)
    assert info.status_code == 200 and info.json()["project"]["name"] == "Served"
    session.close()
    assert recorder.wait_for(lambda r: any(isinstance(e, SessionClosed) for e in r.events))
    states = [e for e in recorder.events if isinstance(e, ApiStateChanged)]
    assert [s.running for s in states] == [True, False]
    assert isinstance(recorder.events[-1], SessionClosed)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{status.url}/info", headers={"x-api-key": "k" * 32}, timeout=2)
    assert workspace.sessions == []


@pytest.mark.integration
def test_a_port_in_use_is_an_api_failure_event_not_an_exception(workspace: Workspace) -> None:
    import socket

    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    try:
        workspace.options.api_enabled = True
        workspace.options.api_key = "k" * 32
        workspace.options.api_port = blocker.getsockname()[1]
        workspace.manager.create("Busy").close()
        with workspace.open_session("Busy") as session:
            recorder = Recorder()
            session.subscribe(recorder)
            status = session.start_api()
            assert not status.running and status.error
            assert recorder.wait_for(lambda r: any(isinstance(e, ApiStateChanged) for e in r.events))
            (state,) = [e for e in recorder.events if isinstance(e, ApiStateChanged)]
            assert state.error == status.error
            session.editor.create("Item", "Still editable")
    finally:
        blocker.close()


def test_the_injected_lock_policy_refuses_a_write(workspace: Workspace) -> None:
    class OnlyMine:
        def check_write(self, doc, intent, previous, username):  # type: ignore[no-untyped-def]
            holder = (previous or {}).get("lockedBy")
            if holder and holder != username:
                raise LockRefused(doc["_id"], holder)

    workspace.manager.create("Locked").close()
    with workspace.open_session("Locked", lock_policy=OnlyMine()) as session:
        doc = session.editor.create("Item", "Sword", lockedBy="bruno", locked=True).doc
        with pytest.raises(LockRefused, match="locked by bruno"):
            session.editor.rename(doc["_id"], "Axe")
        assert session.project.store.get(doc["_id"])["name"] == "Sword"


def test_close_releases_everything(workspace: Workspace) -> None:
    workspace.manager.create("Closing").close()
    session = workspace.open_session("Closing")
    session.subscribe(Recorder())
    follower = session._follower
    assert follower is not None and follower.running
    session.close()
    session.close()  # twice is fine
    assert not follower.running
    assert session.closed
    deadline = time.monotonic() + 5
    while any(t.name.startswith("storyloom-session") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("storyloom-session")]


class Gate:
    """A subscriber that holds the session's event thread until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, event: object) -> None:
        if isinstance(event, DocumentChanged) and not self.entered.is_set():
            self.entered.set()
            self.release.wait(10)


def test_a_replicated_conflict_under_a_local_winner_is_remote(session) -> None:  # type: ignore[no-untyped-def]
    """The origin belongs to the seq, not to the winning revision a later write leaves in place."""
    recorder = Recorder()
    gate = Gate()
    session.subscribe(gate)
    session.subscribe(recorder)
    doc = session.editor.create("Item", "Sword").doc
    assert gate.entered.wait(5)  # the event thread is busy; what follows is read later, coalesced
    renamed = session.editor.rename(doc["_id"], "Axe")
    losing = dict(renamed.doc, _rev="2-" + "0" * 32, name="Theirs")
    losing["_revisions"] = {"start": 2, "ids": ["0" * 32, doc["_rev"].split("-")[1]]}
    assert session.project.store.bulk_docs([losing], new_edits=False) == []
    assert session.db.get(doc["_id"])["_rev"] == renamed.rev  # the local edit still wins
    gate.release.set()
    assert session.wait_for_events()
    last = [c for c in recorder.changes() if c.id == doc["_id"]][-1]
    assert (last.rev, last.origin) == (renamed.rev, Origin.REMOTE)
    assert last.seq == session.db.info()["update_seq"]
    assert session._origins == {}  # the coalesced local write left nothing behind


def test_a_revisions_origin_is_known_before_its_event_is_published(session) -> None:  # type: ignore[no-untyped-def]
    """Issue 27: an editor whose save a newer revision refused asks where that revision came
    from before the session's event for it arrives; the answer must not depend on that timing."""
    recorder = Recorder()
    gate = Gate()
    session.subscribe(gate)
    session.subscribe(recorder)
    doc = session.editor.create("Item", "Sword").doc
    assert gate.entered.wait(5)  # the event thread is held: nothing below is published yet
    renamed = session.editor.rename(doc["_id"], "Axe")
    written, _ = session.editor.write_many(
        [new_document("Item", "Shield", doc_id="imported", sortKey="s1")], WriteIntent.IMPORT)
    replicated = dict(renamed.doc, _rev="3-" + "b" * 32, name="Theirs", modifiedBy="bob")
    replicated["_revisions"] = {"start": 3, "ids": ["b" * 32, *(r.split("-")[1] for r in (renamed.rev, doc["_rev"]))]}
    assert session.project.store.bulk_docs([replicated], new_edits=False) == []
    assert session.db.get(doc["_id"])["_rev"] == replicated["_rev"]  # what an editor reads now
    expected = {(doc["_id"], doc["_rev"]): Origin.LOCAL, (doc["_id"], renamed.rev): Origin.LOCAL,
                ("imported", written[0].rev): Origin.IMPORT, (doc["_id"], replicated["_rev"]): Origin.REMOTE}
    assert [c.rev for c in recorder.changes()] == []
    assert {key: session.origin_of(*key) for key in expected} == expected  # before the events
    gate.release.set()
    assert session.wait_for_events()
    assert {key: session.origin_of(*key) for key in expected} == expected  # and after them
    last = [c for c in recorder.changes() if c.id == doc["_id"]][-1]
    assert (last.rev, last.origin) == (replicated["_rev"], Origin.REMOTE)


def test_origin_of_waits_for_the_editor_write_in_flight(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    with editor._in_flight_lock:
        editor._in_flight["in-flight"] += 1  # as between an editor's commit and its notification
    rev = session.project.store.put(new_document("Item", "Meanwhile", doc_id="in-flight", sortKey="m1"))["rev"]
    started = time.monotonic()
    assert session.origin_of("in-flight", rev, timeout=0.3) is Origin.REMOTE  # never notified: not ours
    assert time.monotonic() - started >= 0.3
    with editor._in_flight_lock:
        del editor._in_flight["in-flight"]
    started = time.monotonic()
    assert session.origin_of("in-flight", rev) is Origin.REMOTE and time.monotonic() - started < 0.5


def test_a_change_waits_for_the_editor_write_in_flight_then_is_published(session) -> None:  # type: ignore[no-untyped-def]
    recorder = Recorder()
    session.subscribe(recorder)
    editor = session.editor
    with editor._in_flight_lock:
        editor._in_flight["in-flight"] += 1  # as between an editor's commit and its notification
    session.project.store.put(new_document("Item", "Meanwhile", doc_id="in-flight", sortKey="m1"))
    assert not session.wait_for_events(timeout=0.5)  # held back: it may be the editor's own
    assert [c.id for c in recorder.changes()] == []
    with editor._in_flight_lock:
        del editor._in_flight["in-flight"]
    assert session.wait_for_events(timeout=5)  # catch_up keeps checking until the feed is read
    assert [(c.id, c.origin) for c in recorder.changes()] == [("in-flight", Origin.REMOTE)]


@pytest.mark.integration
def test_the_sessions_api_keeps_the_answer_cache_the_options_ask_for(workspace: Workspace) -> None:
    workspace.options.api_enabled = True
    workspace.options.api_key = "k" * 32
    workspace.options.api_port = free_port()
    workspace.options.api_answer_cache_mb = 2
    workspace.manager.create("Cached").close()
    with workspace.open_session("Cached") as session:
        assert session.start_api().running
        cache = session.api.server.answer_cache
        assert cache is not None and cache.max_bytes == 2 * 2**20
        workspace.options.set_answer_cache_mb(0)
        workspace.save_options()  # what the Options dialog's Save does
        assert session.api.status.running
        cache = session.api.server.answer_cache
        assert cache is not None and cache.max_bytes == 0


@pytest.mark.integration
def test_a_closed_session_keeps_its_api_stopped(workspace: Workspace) -> None:
    workspace.options.api_enabled = True
    workspace.options.api_key = "k" * 32
    workspace.options.api_port = free_port()
    workspace.manager.create("Closed").close()
    session = workspace.open_session("Closed")
    assert session.start_api().running
    session.close()
    assert not session.options_changed().running
    assert not session.api.server.running


def test_a_project_is_open_once_per_workspace(workspace: Workspace) -> None:
    from storyloom.app.workspace import ProjectAlreadyOpen

    workspace.manager.create("Once").close()
    with workspace.open_session("Once"), pytest.raises(ProjectAlreadyOpen, match="already open"):
        workspace.open_session("once")
    workspace.open_session("Once").close()  # closed: it opens again


def test_close_publishes_what_was_committed_before_session_closed(session) -> None:  # type: ignore[no-untyped-def]
    recorder = Recorder()
    session.subscribe(recorder)
    ids = [session.editor.create("Item", f"Last {n}").id for n in range(20)]
    session.close()
    assert isinstance(recorder.events[-1], SessionClosed)
    assert {c.id for c in recorder.changes()} >= set(ids)


def test_the_index_loads_on_a_thread_of_its_own(workspace: Workspace) -> None:
    """The app asks for the index to be loaded ahead (load_index_soon) and builds its window
    meanwhile: the load runs on another thread, which reads the saved table (and the changes
    since), and the first question after it finds it loaded."""
    import threading

    workspace.manager.create("Loaded").close()
    with workspace.open_session("Loaded") as first:
        first.editor.create("Script", "Kept")
    session = workspace.open_session("Loaded")
    try:
        assert not session.index.loaded
        seen: list[str] = []
        refresh = session.index.refresh

        def recorded() -> int:
            seen.append(threading.current_thread().name)
            return refresh()

        session.index.refresh = recorded  # type: ignore[method-assign]
        thread = session.load_index_soon()
        thread.join(30)
        assert seen == ["storyloom-index-load"]
        assert session.index.loaded
        assert [s.name for s in session.index.summaries() if s.type == "Script"] == ["Kept"]
    finally:
        session.close()
