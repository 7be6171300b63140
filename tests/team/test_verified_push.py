"""Pushes the server really kept (issue 22, item 4), against pouchdb-server over real HTTP.

pouchdb-server 4.2 as released (without the suite's validation fix) answers ``201 []`` to a
replicated write and keeps nothing once the database has a validate function: the push must
notice (``_revs_diff`` after each batch), keep the revisions pending and say why; ``remote
check`` and ``remote setup`` must refuse such a server. The corrected server of the rest of the
suite keeps them, and the verification says nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.explain import fix_words
from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, WritesDropped, push
from storyloom.sync.server_setup import LOCK_DESIGN_DOC, easy_setup
from storyloom.sync.server_terms import SetupError
from storyloom.sync.write_probe import PROBE_PREFIX, RECORD_ID, probe_replicated_writes
from tests.support.couch import CouchServer, unique_db_name


@pytest.fixture
def uncorrected(tmp_path: Path) -> Iterator[CouchServer]:
    """pouchdb-server 4.2 as released (persistent, so that it can be restarted corrected)."""
    server = CouchServer(tmp_path / "uncorrected", persistent=True, validation_fix=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def edit_items(project_name: str, count: int, value: int) -> list[str]:
    """Change ``count`` documents of the project (one new revision each); their ids."""
    with ProjectManager().open(project_name) as project:
        editor = project.editor
        ids = [doc["_id"] for doc in editor.documents() if doc.get("type") == "Item"][:count]
        for n, doc_id in enumerate(ids):
            editor.rename(doc_id, f"Thing {n}, version {value}")
        return ids


def server_revs(server: CouchServer, db: str, ids: list[str]) -> dict[str, str]:
    return {doc_id: server.get_doc(db, doc_id).json()["_rev"] for doc_id in ids}


def local_revs(project_name: str, ids: list[str]) -> dict[str, str]:
    with ProjectManager().open(project_name) as project:
        return {doc_id: project.store.get(doc_id)["_rev"] for doc_id in ids}


def test_dropped_writes_fail_the_sync_stay_pending_and_the_checks_refuse_the_server(
    uncorrected: CouchServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = uncorrected
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", server.admin[1])
    db = unique_db_name("dropping")
    with ProjectManager().create("Saga") as project:
        for i in range(4):
            project.editor.create("Item", f"Thing {i}")
    assert run(capsys, "remote", "set", "Saga", "--server", server.url, "--database", db,
               "--username", server.admin[0], "--mode", "easy")[0] == 0

    # Set-up installs the database and the lock rules, then refuses the server by name.
    code, out, err = run(capsys, "remote", "setup", "Saga")
    assert code != 0
    assert "replicated writes" in err and "pouchdb-server 4.2" in err and "upgrade or fix the server" in err
    assert server.get_doc(db, LOCK_DESIGN_DOC["_id"]).status_code == 200
    assert server.request("GET", f"/{db}/{RECORD_ID}").status_code == 404  # no kept probe recorded

    # remote check: the "replicated writes" line fails, with the fix.
    code, out, _ = run(capsys, "remote", "check", "Saga", "--json")
    lines = {line["name"]: line for line in json.loads(out)["lines"]}
    assert lines["replicated writes"]["status"] == "fail"
    assert "did not keep 1 of its 2 revisions" in lines["replicated writes"]["detail"]
    assert "Upgrade or fix the server" in lines["replicated writes"]["fix"]
    assert code == 1

    # The first push of new documents goes through (a first revision has no parent to trip on).
    code, out, err = run(capsys, "sync", "Saga")
    assert code == 0, err

    # Edits: the server answers 201 and keeps nothing; the sync says so and fails.
    ids = edit_items("Saga", 3, 1)
    before = server_revs(server, db, ids)
    code, out, err = run(capsys, "sync", "Saga")
    assert code == 1
    assert f"the server {server.url}/{db} acknowledged 3 replicated revision(s) but did not keep them" in err
    assert "pouchdb-server 4.2's validation plug-in" in err
    assert "The 3 revision(s) stay on this machine and are sent again by the next sync" in err
    assert server_revs(server, db, ids) == before  # nothing kept
    code, out, err = run(capsys, "sync", "Saga", "--json")
    result = json.loads(out)
    assert code == 1 and result["push"]["last_error"]["type"] == "WritesDropped"
    assert result["push"]["last_error"]["count"] == 3
    assert result["pull"]["state"] == "complete"  # the pull still brings what the server holds
    # Nothing hides them: no refused documents are listed, and they stay pending.
    code, out, _ = run(capsys, "conflicts", "Saga")
    assert code == 0 and "refused" not in out

    # The corrected server (same data): the next sync sends them, the checks pass.
    server.stop()
    server.validation_fix = True
    server.start(port=server.port)
    code, out, err = run(capsys, "sync", "Saga")
    assert code == 0, err
    assert server_revs(server, db, ids) == local_revs("Saga", ids)
    code, out, err = run(capsys, "remote", "setup", "Saga")
    assert code == 0, err
    assert "replicated writes: the server keeps replicated writes" in out
    code, out, _ = run(capsys, "remote", "check", "Saga", "--json")
    lines = {line["name"]: line for line in json.loads(out)["lines"]}
    assert lines["replicated writes"]["status"] == "ok"


def test_the_store_level_push_keeps_dropped_revisions_pending(uncorrected: CouchServer, tmp_path: Path) -> None:
    server = uncorrected
    db = server.create_db(unique_db_name("dropping"))
    server.put_doc(db, dict(LOCK_DESIGN_DOC))
    store = Database(tmp_path / "local.sqlite")
    remote = RemoteDatabase(server.db_url(db), username=server.admin[0], password=server.admin[1])
    try:
        for i in range(5):
            store.put({"_id": f"doc-{i}", "n": 0})
        assert push(store, remote).state == "complete"
        first = push(store, remote)
        assert first.state == "complete" and first.docs_written == 0
        for i in range(2):
            doc = store.get(f"doc-{i}")
            store.put({**doc, "n": 1})
        status = push(store, remote)
        assert status.state == "error" and isinstance(status.last_error, WritesDropped)
        assert status.last_error.count == 2 and not status.last_error.retryable
        assert set(status.last_error.dropped) == {"doc-0", "doc-1"}
        assert status.docs_written == 0 and status.retries == 0
        # The checkpoint did not pass them: the next push sends the same two again.
        again = push(store, remote)
        assert again.state == "error" and again.last_error.count == 2  # type: ignore[union-attr]
        assert "failed-docs" not in json.dumps(store.all_docs()["rows"])
    finally:
        remote.close()
        store.close()


def test_on_a_corrected_server_verification_is_silent_and_costs_one_revs_diff_per_batch(
    couch: CouchServer, tmp_path: Path
) -> None:
    db = couch.create_db(unique_db_name("kept"))
    store = Database(tmp_path / "local.sqlite")
    requests: list[tuple[str, str]] = []

    class Counting(RemoteDatabase):
        def request(self, method: str, path: str = "", **kwargs: Any) -> Any:
            requests.append((method, path))
            return super().request(method, path, **kwargs)

        def clone(self) -> RemoteDatabase:
            return Counting(self.url, username=self.username, password=couch.admin[1])

    remote = Counting(couch.db_url(db), username=couch.admin[0], password=couch.admin[1])
    try:
        for i in range(30):
            store.put({"_id": f"doc-{i}", "n": 0})
        status = push(store, remote, batch_size=10)
        assert status.state == "complete" and status.docs_written == 30 and not status.warnings
        assert status.last_error is None
        # A first push into an empty database asks nothing before writing: one _revs_diff per
        # batch, after its _bulk_docs (while the next batch is written).
        calls = [path for _, path in requests if path in ("_bulk_docs", "_revs_diff")]
        assert calls[0] == "_bulk_docs" and calls[-1] == "_revs_diff"
        assert calls.count("_bulk_docs") == 3 and calls.count("_revs_diff") == 3
        # With the lock rules (a validate function), edits are kept and verified as well.
        couch.put_doc(db, dict(LOCK_DESIGN_DOC))
        for i in range(30):
            doc = store.get(f"doc-{i}")
            store.put({**doc, "n": 1})
        requests.clear()
        status = push(store, remote, batch_size=10)
        assert status.state == "complete" and status.docs_written == 30 and status.last_error is None
        calls = [path for _, path in requests if path in ("_bulk_docs", "_revs_diff")]
        # (the reader diffs the next batch while one is written: the order interleaves)
        assert calls.count("_bulk_docs") == 3 and calls.count("_revs_diff") == 6 and calls[-1] == "_revs_diff"
        assert all(couch.get_doc(db, f"doc-{i}").json()["n"] == 1 for i in range(30))
    finally:
        remote.close()
        store.close()


def test_the_probe_on_a_corrected_server_leaves_only_a_tombstone_and_set_up_records_it(
    couch: CouchServer,
) -> None:
    db = unique_db_name("probe")
    remote = RemoteDatabase(couch.db_url(db), username=couch.admin[0], password=couch.admin[1])
    try:
        report = easy_setup(remote)
        assert report.steps[-1].what == "replicated writes" and not report.steps[-1].changed
        probes = [row for row in couch.request("GET", f"/{db}/_changes").json()["results"]
                  if row["id"].startswith(PROBE_PREFIX)]
        assert len(probes) == 1 and probes[0]["deleted"] is True
        assert remote.get_local(RECORD_ID)["kept"] is True  # type: ignore[index]
        seq = couch.db_info(db)["update_seq"]
        again = easy_setup(remote)
        assert "tested" in again.steps[-1].detail
        assert couch.db_info(db)["update_seq"] == seq  # the second set-up wrote no probe
        result = probe_replicated_writes(remote)
        assert result.kept and result.cleanup == "deleted" and result.doc_id.startswith(PROBE_PREFIX)
    finally:
        remote.close()


def test_easy_setup_refuses_a_server_that_drops_replicated_writes(uncorrected: CouchServer) -> None:
    db = unique_db_name("probe")
    remote = RemoteDatabase(uncorrected.db_url(db), username=uncorrected.admin[0], password=uncorrected.admin[1])
    try:
        with pytest.raises(SetupError, match=r"^replicated writes: .*did not keep 1 of its 2 revisions"):
            easy_setup(remote)
        assert remote.get_local(RECORD_ID) is None
        with pytest.raises(SetupError, match="replicated writes"):
            easy_setup(remote)  # no record of a kept probe: it probes (and refuses) again
    finally:
        remote.close()


def test_the_sync_service_shows_dropped_writes_as_an_error_with_the_cause_and_fix(
    uncorrected: CouchServer, tmp_path: Path
) -> None:
    from tests.team.test_sync_service import Clients, idle, team_database, wait_until

    server = uncorrected
    db = team_database(server)
    server.put_doc(db, dict(LOCK_DESIGN_DOC))
    clients = Clients(tmp_path)
    try:
        ana = clients.open("ana", server.url, db)
        ana.start_sync()
        assert ana.sync.wait_for(idle, timeout=15), ana.sync.state  # new documents go through
        item = ana.editor.create("Item", "Lamp").doc
        wait_until(lambda: server.get_doc(db, item["_id"]).status_code == 200)
        # An edit written as an import (an edit in the editor first takes the lock with a direct
        # write to the server, which the server keeps): the push sends it, the server drops it.
        ana.editor.write_many([{**ana.db.get(item["_id"]), "name": "Brass lamp"}])
        assert ana.sync.wait_for(lambda s: s.kind == "error", timeout=15), ana.sync.state
        state = ana.sync.state
        assert state.problem == "dropped_writes"
        assert "acknowledged 1 replicated revision(s) but did not keep them" in state.cause
        assert "pouchdb-server 4.2's validation plug-in" in state.cause
        assert "upgrade or fix the server" in fix_words(state.fix) and "storyloom sync Garden" in fix_words(state.fix)
        assert state.pending >= 1  # still to be pushed
        assert server.get_doc(db, item["_id"]).json()["name"] == "Lamp"
    finally:
        clients.close()
