"""LockService against pouchdb-server with the lock rules installed: the compare-and-swap race,
provisional locks taken offline and confirmed or lost, breaks, listing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from storyloom.app.locks import PROVISIONAL_ID, LockBreakRefused, LockService, lock_holder
from storyloom.cli.explain import say as cli_say
from storyloom.project.conflicts import auto_merge, list_conflicts, list_refused, resolve
from storyloom.project.editor import Editor
from storyloom.project.locks import LockInfo, LockRefused, LockStateError, lock_info
from tests.support.couch import CouchServer
from tests.team.lock_clients import LockClient, TeamCouch, make_stale, race_lock, seed, team_database

ROUNDS = 100

Factory = Callable[..., LockClient]


@pytest.fixture(scope="module")
def couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    """One server for the module's online tests (lock rules honoured for replicated writes)."""
    with TeamCouch(tmp_path_factory.mktemp("team-couch")) as server:
        yield server


@pytest.fixture
def fresh_couch(tmp_path: Path) -> Iterator[CouchServer]:
    """A persistent server of the test's own, stopped and restarted on the same port."""
    with TeamCouch(tmp_path / "couch", persistent=True) as server:
        yield server


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Callable[[CouchServer, str, str], LockClient]]:
    made: list[LockClient] = []

    def make(server: CouchServer, db_name: str, user: str, **options: object) -> LockClient:
        directory = tmp_path / user
        directory.mkdir(exist_ok=True)
        client = LockClient(server, db_name, user, directory, **options)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def _server_doc(server: CouchServer, db: str, doc_id: str) -> dict:
    response = server.get_doc(db, doc_id, conflicts=True)
    assert response.status_code == 200, response.text
    return response.json()


def test_lock_race_exactly_one_holder_each_round(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    barrier = threading.Barrier(2)
    wins = {"alice": 0, "bob": 0}
    for round_no in range(ROUNDS):
        outcome = race_lock([alice, bob], doc_id, barrier)
        holders = [user for user, result in outcome.items() if not isinstance(result, Exception)]
        refused = [result for result in outcome.values() if isinstance(result, LockRefused)]
        assert len(holders) == 1 and len(refused) == 1, f"round {round_no}: {outcome}"
        winner = holders[0]
        assert refused[0].holder == winner
        assert not outcome[winner].provisional  # type: ignore[union-attr]
        server = _server_doc(couch, db, doc_id)
        assert lock_info(server).holder == winner and "_conflicts" not in server
        wins[winner] += 1
        (alice if winner == "alice" else bob).locks.unlock(doc_id)
        assert lock_info(_server_doc(couch, db, doc_id)) is None
    assert wins["alice"] + wins["bob"] == ROUNDS


def test_online_lock_is_on_the_server_and_enforced_by_it(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.editor.patch(doc_id, {"alias": "alice's unpushed edit"})
    info = alice.locks.lock(doc_id)
    assert info.holder == "alice" and not info.provisional
    server = _server_doc(couch, db, doc_id)
    assert lock_info(server).holder == "alice"
    assert server["alias"] == "alice's unpushed edit"  # pushed first, the lock on top of it
    assert alice.store.get(doc_id)["_rev"] == server["_rev"]  # the server's revision came back
    with pytest.raises(LockRefused, match="alice"):
        bob.locks.lock(doc_id)
    assert [i.holder for i in alice.locks.locks()] == ["alice"]
    # once bob sees the lock, his gate refuses; a write that skips the gate is refused by the server
    bob.pull()
    with pytest.raises(LockRefused, match="alice since"):
        bob.editor.patch(doc_id, {"alias": "bob's"})
    Editor(bob.store, username="bob").patch(doc_id, {"alias": "bob's, past the gate"})
    [refusal] = bob.locks.publish(doc_id)
    assert refusal["error"] == "forbidden" and "locked by alice" in refusal["reason"]
    assert _server_doc(couch, db, doc_id)["alias"] == "alice's unpushed edit"


def test_locking_an_up_to_date_document_reads_once_and_writes_once(
        couch: CouchServer, clients: Factory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual lock: the local copy is the server's, so nothing is pushed first, and the lock's
    revision is stored from what was sent (with the server's history) instead of read back. The
    requests are counted on the real HTTP transport; the copies must end up identical."""
    import httpx

    db = team_database(couch, ["alice"])
    alice = clients(couch, db, "alice")
    doc_id = seed(alice, [])
    sent: list[str] = []
    real = httpx.HTTPTransport.handle_request

    def counted(transport: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        sent.append(f"{request.method} {request.url.path.rsplit('/', 1)[-1]}")
        return real(transport, request)

    # A context of its own: monkeypatch.undo() would also undo the suite's STORYLOOM_HOME and
    # password store (the same monkeypatch).
    with monkeypatch.context() as patch:
        patch.setattr(httpx.HTTPTransport, "handle_request", counted)
        alice.locks.lock(doc_id)
        assert sent == [f"GET {doc_id}", f"PUT {doc_id}"]
        local, server = alice.store.get(doc_id, revs=True), couch.get_doc(db, doc_id, revs=True).json()
        assert local == server  # the same revision, body and history as the server's
        sent.clear()
        alice.locks.unlock(doc_id)
        assert sent == [f"GET {doc_id}", f"PUT {doc_id}"]
        assert alice.store.get(doc_id, revs=True) == couch.get_doc(db, doc_id, revs=True).json()
    assert alice.push().docs_written == 0  # nothing local the server lacks


def test_an_edit_on_a_free_parent_goes_through_as_a_conflict(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.locks.lock(doc_id)
    bob.editor.patch(doc_id, {"alias": "bob, not yet aware of the lock"})
    assert bob.locks.publish(doc_id) == []  # its parent was free: kept, as a conflict revision
    leaves = [e["ok"] for e in couch.get_doc(db, doc_id, open_revs="all").json()]
    assert sorted(str((lock_info(leaf) or LockInfo("", "free", None)).holder) for leaf in leaves) == ["alice", "free"]
    assert any(leaf["alias"] == "bob, not yet aware of the lock" for leaf in leaves)


def test_offline_lock_is_provisional_then_confirmed(fresh_couch: CouchServer, clients: Factory) -> None:
    db = team_database(fresh_couch, ["alice", "bob"])
    alice, bob = clients(fresh_couch, db, "alice"), clients(fresh_couch, db, "bob")
    doc_id = seed(alice, [bob])
    fresh_couch.stop()
    info = alice.locks.lock(doc_id)
    assert info.provisional and info.holder == "alice"
    assert alice.locks.locks()[0].provisional
    assert doc_id in alice.store.get_local(PROVISIONAL_ID)["locks"]
    alice.editor.patch(doc_id, {"alias": "offline edit"})
    assert alice.locks.confirm_provisional() == []  # still offline: nothing settled
    fresh_couch.start(port=fresh_couch.port)
    notices = alice.locks.confirm_provisional()
    assert [(n.doc_id, n.outcome) for n in notices] == [(doc_id, "confirmed")]
    server = _server_doc(fresh_couch, db, doc_id)
    assert lock_info(server).holder == "alice" and server["alias"] == "offline edit"
    assert alice.locks.provisional() == {} and not alice.locks.locks()[0].provisional
    with pytest.raises(LockRefused):
        bob.locks.lock(doc_id)


def test_provisional_lock_lost_to_an_online_lock(fresh_couch: CouchServer, clients: Factory) -> None:
    db = team_database(fresh_couch, ["alice", "bob"])
    alice, bob = clients(fresh_couch, db, "alice"), clients(fresh_couch, db, "bob")
    doc_id = seed(alice, [bob])
    fresh_couch.stop()
    assert alice.locks.lock(doc_id).provisional
    alice.editor.patch(doc_id, {"alias": "alice offline"})
    fresh_couch.start(port=fresh_couch.port)
    assert not bob.locks.lock(doc_id).provisional
    alice.push()  # the sync service pushes alice's branch before her locks are confirmed
    notices = alice.locks.confirm_provisional()
    assert len(notices) == 1
    notice = notices[0]
    assert (notice.outcome, notice.holder) == ("lost", "bob")
    assert "bob" in notice.message and "edits are kept" in notice.message and notice.kept_rev
    kept = alice.store.get(doc_id, rev=notice.kept_rev)
    assert kept["alias"] == "alice offline" and lock_info(kept) is None
    assert alice.locks.provisional() == {}
    # the server keeps bob's lock and alice's edits (a conflict revision to merge)
    leaves = fresh_couch.get_doc(db, doc_id, open_revs="all").json()
    docs = [leaf["ok"] for leaf in leaves if "ok" in leaf]
    assert {lock_info(d).holder for d in docs if lock_info(d)} == {"bob"}
    assert any(d.get("alias") == "alice offline" and lock_info(d) is None for d in docs)


def test_two_provisional_locks_one_holder(fresh_couch: CouchServer, clients: Factory) -> None:
    db = team_database(fresh_couch, ["alice", "bob"])
    alice, bob = clients(fresh_couch, db, "alice"), clients(fresh_couch, db, "bob")
    doc_id = seed(alice, [bob])
    fresh_couch.stop()
    assert alice.locks.lock(doc_id).provisional and bob.locks.lock(doc_id).provisional
    fresh_couch.start(port=fresh_couch.port)
    first = alice.locks.confirm_provisional()
    second = bob.locks.confirm_provisional()
    assert [(n.outcome, n.holder) for n in first] == [("confirmed", "alice")]
    assert [(n.outcome, n.holder) for n in second] == [("lost", "alice")]


def _after_pull(client: LockClient, ids: list[str]) -> None:
    """What the session does after a pull (ProjectSession.after_pull), for a lock client."""
    client.locks.confirm_provisional()
    report = auto_merge(client.editor, ids)
    client.locks.keep_held_locks(report.conflicts)


def _sync(client: LockClient) -> None:
    """A sync round as the service makes it: push, pull, then what follows a pull, pushed."""
    assert client.push().ok
    before = client.store.update_seq
    assert client.pull().ok
    ids = sorted({row["id"] for row in client.store.changes(since=before)["results"]} - {PROVISIONAL_ID})
    _after_pull(client, ids)
    assert client.push().ok


def test_colliding_provisional_auto_locks_end_with_one_holder_everywhere(
    fresh_couch: CouchServer, clients: Factory
) -> None:
    """Lock required to edit (on once a remote is set): two offline edits of one document each
    take a provisional lock. The loser's released branch is the longer one and wins, yet every
    machine ends with the confirmed holder's lock: merged in when the edits merge, taken
    again on the server when they conflict."""
    db = team_database(fresh_couch, ["alice", "bob"])
    alice = clients(fresh_couch, db, "alice", require_lock=True)
    bob = clients(fresh_couch, db, "bob", require_lock=True)
    x = seed(alice, [bob])
    y = alice.editor.create("Item", "Lamp", content={"item": "oil\n"}).id
    assert alice.push().ok and bob.pull().ok
    fresh_couch.stop()
    alice.editor.patch(x, {"name": "Intro (alice)"})
    bob.editor.patch(x, {"alias": "bob's alias"})
    alice.editor.patch(y, {"name": "Lamp A"})
    bob.editor.patch(y, {"name": "Lamp B"})
    assert set(alice.locks.provisional()) == set(bob.locks.provisional()) == {x, y}
    fresh_couch.start(port=fresh_couch.port)

    _sync(alice)  # first: alice's locks are confirmed
    _sync(bob)  # bob's are lost, released on his (longer) branches
    _sync(alice)
    _sync(bob)
    for client in (alice, bob):
        for doc_id in (x, y):
            held = lock_info(client.store.get(doc_id))
            assert held is not None and held.holder == "alice", (client.user, doc_id)
        merged = client.store.get(x)
        assert (merged["name"], merged["alias"]) == ("Intro (alice)", "bob's alias")
        assert [c.doc_id for c in list_conflicts(client.store)] == [y]
    assert alice.store.get(y)["_rev"] == bob.store.get(y)["_rev"] == _server_doc(fresh_couch, db, y)["_rev"]
    assert lock_info(_server_doc(fresh_couch, db, y)).holder == "alice"
    # the holder resolves; bob cannot (the server would refuse it too)
    [conflict] = list_conflicts(bob.store)
    with pytest.raises(LockRefused):
        resolve(bob.editor, y, take=conflict.leaves[1].rev)
    resolve(alice.editor, y, take=next(leaf.rev for leaf in conflict.leaves if leaf.doc["name"] == "Lamp B"))
    _sync(alice)
    _sync(bob)
    for client in (alice, bob):
        assert list_conflicts(client.store) == []
        assert client.store.get(y)["name"] == "Lamp B" and lock_info(client.store.get(y)).holder == "alice"


def test_break_is_recorded_and_shown_to_the_holder(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"], owners=["bob"])  # an owner breaks a fresh lock
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.locks.lock(doc_id)
    with pytest.raises(LockStateError, match="unlock it instead"):
        alice.locks.unlock(doc_id, break_lock=True)
    with pytest.raises(LockRefused) as refused:
        bob.locks.unlock(doc_id)  # bob's copy is stale: the server tells him it is alice's
    assert "--break" in cli_say(refused.value)  # the fix, as the command line says it
    bob.pull()
    with pytest.raises(LockRefused) as refused:
        bob.locks.unlock(doc_id)
    assert "--break" in cli_say(refused.value)
    bob.locks.unlock(doc_id, break_lock=True)
    server = _server_doc(couch, db, doc_id)
    assert lock_info(server) is None
    assert server["lockBroken"]["by"] == "bob" and server["lockBroken"]["holder"] == "alice"
    alice.pull()
    [record] = alice.locks.broken_locks()
    assert (record.doc_id, record.by, record.holder) == (doc_id, "bob", "alice")
    assert "broken by bob" in record.describe()
    # the next lock clears the record
    bob.locks.lock(doc_id)
    assert "lockBroken" not in _server_doc(couch, db, doc_id)


def test_breaking_a_free_document_again_reports_nothing_broken(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"], owners=["bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.locks.lock(doc_id)
    record = bob.locks.unlock(doc_id, break_lock=True)
    assert record is not None and record.holder == "alice"
    rev = _server_doc(couch, db, doc_id)["_rev"]
    # the document is free now but keeps the earlier break's record: that is not a new break
    assert bob.locks.unlock(doc_id, break_lock=True) is None
    assert alice.locks.unlock(doc_id, break_lock=True) is None  # alice's stale copy: still free on the server
    assert _server_doc(couch, db, doc_id)["_rev"] == rev


def test_a_member_breaks_only_a_stale_lock(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.locks.lock(doc_id)
    rev = _server_doc(couch, db, doc_id)["_rev"]
    with pytest.raises(LockBreakRefused) as refused:
        bob.locks.unlock(doc_id, break_lock=True)
    message = str(refused.value)
    assert refused.value.holder == "alice" and "refused to break alice's lock" in message
    assert "idle since" in message and "a member may break it from" in message
    assert "a project owner can break it now" in message
    assert _server_doc(couch, db, doc_id)["_rev"] == rev  # nothing changed on the server
    assert lock_info(bob.store.get(doc_id)).holder == "alice"  # bob's copy shows the lock

    # Idle for longer than the stale time (dated long ago by the holder): a member may break it.
    make_stale(couch, db, doc_id, "alice")
    record = bob.locks.unlock(doc_id, break_lock=True)
    assert record is not None and (record.by, record.holder) == ("bob", "alice")
    assert lock_info(_server_doc(couch, db, doc_id)) is None


def test_an_offline_break_refused_when_pushed_is_kept_and_listed(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.locks.lock(doc_id)
    bob.pull()
    bob.remote.configured = False  # offline: the break is local, the server decides when it is pushed
    bob.locks.unlock(doc_id, break_lock=True)
    broken_rev = bob.store.get(doc_id)["_rev"]
    bob.remote.configured = True
    bob.push()
    refused = list_refused(bob.store)
    assert [r.doc_id for r in refused] == [doc_id] and "not stale" in refused[0].reason
    assert bob.store.get(doc_id, rev=broken_rev)["lockBroken"]["by"] == "bob"  # kept, not lost
    assert lock_info(_server_doc(couch, db, doc_id)).holder == "alice"


def test_unlock_all_mine_and_listing(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    second = alice.editor.create("Script", "Second").id
    alice.push()
    alice.locks.lock(doc_id)
    alice.locks.lock(second)
    bob.pull()
    assert sorted(i.doc_id for i in bob.locks.locks()) == sorted([doc_id, second])
    assert sorted(alice.locks.unlock_all_mine()) == sorted([doc_id, second])
    assert alice.locks.locks() == []
    assert lock_info(_server_doc(couch, db, second)) is None


def test_auto_lock_is_provisional_until_confirmed(couch: CouchServer, clients: Factory) -> None:
    db = team_database(couch, ["alice", "bob"])
    alice = clients(couch, db, "alice", require_lock=True)
    bob = clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    alice.editor.patch(doc_id, {"alias": "auto"})
    assert lock_info(alice.store.get(doc_id)).holder == "alice"
    assert doc_id in alice.locks.provisional()
    notices = alice.locks.confirm_provisional()
    assert [(n.outcome, n.holder) for n in notices] == [("confirmed", "alice")]
    assert lock_info(_server_doc(couch, db, doc_id)).holder == "alice"


def test_without_a_remote_locks_are_local(tmp_path: Path) -> None:
    from storyloom.project.manager import ProjectManager

    manager = ProjectManager(tmp_path / "projects", username="carol")
    project = manager.create("Solo")
    try:
        doc_id = project.editor.create("Script", "Solo").id
        service = LockService(project, None, lock_holder(None, lambda: "carol"))
        project.editor.lock_policy = service.team_policy()
        info = service.lock(doc_id)
        assert (info.holder, info.provisional) == ("carol", False)
        assert service.confirm_provisional() == []
        service.unlock(doc_id)
        assert service.locks() == []
    finally:
        project.close()


def test_locking_again_online_settles_a_provisional_lock(fresh_couch: CouchServer, clients: Factory) -> None:
    db = team_database(fresh_couch, ["alice", "bob"])
    alice, bob = clients(fresh_couch, db, "alice"), clients(fresh_couch, db, "bob")
    doc_id = seed(alice, [bob])
    other = alice.editor.create("Script", "Other").id
    alice.push()
    bob.pull()
    fresh_couch.stop()
    assert bob.locks.lock(doc_id).provisional and bob.locks.lock(other).provisional
    fresh_couch.start(port=fresh_couch.port)
    alice.locks.lock(doc_id)
    with pytest.raises(LockRefused, match="was lost: alice holds it"):
        bob.locks.lock(doc_id)
    info = bob.locks.lock(other)
    assert (info.holder, info.provisional) == ("bob", False)
    assert bob.locks.provisional() == {}
    assert lock_info(_server_doc(fresh_couch, db, other)).holder == "bob"
