"""A push from a damaged store, to a real CouchDB-compatible server: it stops with the damage
named (never "internal"), sends nothing it could not read, and the sync state says what to do."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from storyloom.app.sync_state import explain
from storyloom.cli.explain import fix_words
from storyloom.store import Damaged, Database
from storyloom.sync import RemoteDatabase, push
from storyloom.sync.peers import LocalStoreError
from tests.support.couch import CouchServer
from tests.sync.helpers import remote_ids

SECRET = "the-lighthouse-keeper-lies"


def test_a_push_meets_a_damaged_document_and_says_so(make_store: Callable[..., Database], couch: CouchServer,
                                                     tmp_path: Path) -> None:
    store = make_store("a")
    path = Path(store.path)
    store.bulk_docs([{"_id": f"line-{i}", "text": f"{SECRET} {i}"} for i in range(5)])
    store.close()
    data = path.read_bytes()
    assert data.count(f"{SECRET} 3".encode()) == 1
    path.write_bytes(data.replace(f"{SECRET} 3".encode(), f"{SECRET} 3".replace("keeper", "keepet").encode()))
    store = Database(path)
    name = "damaged-" + str(time.time_ns())
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    try:
        status = push(store, remote)
        assert not status.ok and status.state == "error"
        error = status.last_error
        assert isinstance(error, LocalStoreError) and not error.retryable
        assert isinstance(error.store_error, Damaged) and error.store_error.doc_id == "line-3"
        assert "damaged" in error.message and SECRET not in error.message
        assert "line-3" not in remote_ids(couch, name)
        trouble = explain(error, project="harbour", username="u", database=name)
        assert trouble.kind == "error" and trouble.fix is not None
        assert "storyloom check harbour" in fix_words(trouble.fix)
        assert "internal" not in trouble.problem
    finally:
        remote.close()
        store.close()
