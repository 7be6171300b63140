"""Checkpoints by time (``checkpoint_interval``) and pages of documents sized by bytes
(``page_bytes``): what is recorded when, and how many rows a page asks for."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from storyloom.store import Database, NotFound
from storyloom.sync import (
    LocalPeer,
    RemoteDatabase,
    RemotePeer,
    ReplicationOptions,
    Replicator,
    make_push,
    replication_id,
)
from storyloom.sync import replicator as replicator_module
from storyloom.sync.checkpoint import Checkpointer
from storyloom.sync.replicator import DEFAULT_BATCH_SIZE
from tests.support.couch import CouchServer
from tests.sync.helpers import admin_client, local_ids, remote_ids, wait_for

StoreFactory = Callable[[str], Database]


def local_checkpoint(db: Database, rep_id: str) -> Any:
    try:
        return db.get_local(rep_id)
    except NotFound:
        return None


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class CountingRemotePeer(RemotePeer):
    """Counts checkpoint writes and records each changes page's (limit, rows)."""

    def __init__(self, remote: RemoteDatabase) -> None:
        super().__init__(remote)
        self.checkpoints: list[Any] = []
        self.pages: list[tuple[int, int]] = []
        self.lock = threading.Lock()

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        with self.lock:
            self.checkpoints.append(doc["last_seq"])
        return super().put_checkpoint(doc)

    def changes(self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False) -> Any:
        page = super().changes(since, limit, doc_ids, include_docs)
        with self.lock:
            self.pages.append((limit, len(page.results)))
        return page


class SinceRecordingLocalPeer(LocalPeer):
    """Records the ``since`` of every changes read."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.reads: list[Any] = []

    def changes(self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False) -> Any:
        self.reads.append(since)
        return super().changes(since, limit, doc_ids, include_docs)


class ServerErrorOnBulkDocs(httpx.HTTPTransport):
    """A real transport whose ``fail_on``-th ``_bulk_docs`` gets a 500 answer from "the server"
    (``on_fail`` runs first); with ``network=True`` it raises ``ConnectError`` instead."""

    def __init__(self, fail_on: int, on_fail: Callable[[], None], *, network: bool = False) -> None:
        super().__init__()
        self.fail_on, self.on_fail, self.network = fail_on, on_fail, network
        self.bulk_docs = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/_bulk_docs"):
            self.bulk_docs += 1
            if self.bulk_docs == self.fail_on:
                self.on_fail()
                if self.network:
                    raise httpx.ConnectError("injected: connection refused", request=request)
                return httpx.Response(500, json={"error": "unknown_error", "reason": "injected"})
        return super().handle_request(request)


# -- the checkpointer on its own -------------------------------------------------------------


def test_offer_writes_once_the_interval_has_passed_and_flush_writes_the_rest(make_store: StoreFactory) -> None:
    a, b = make_store("a"), make_store("b")
    clock = FakeClock()
    checkpointer = Checkpointer(LocalPeer(a), LocalPeer(b), "_local/rep", interval=5.0, clock=clock)
    assert checkpointer.start_seq() == 0
    assert checkpointer.offer(10) is False  # within 5 s of the start: kept
    assert checkpointer.pending == 10 and local_checkpoint(a, "_local/rep") is None
    clock.now += 4.9
    assert checkpointer.offer(20) is False
    clock.now += 0.2
    assert checkpointer.offer(30) is True  # 5.1 s since the start
    assert a.get_local("_local/rep")["last_seq"] == 30 == b.get_local("_local/rep")["last_seq"]
    assert checkpointer.pending is None
    assert checkpointer.offer(40) is False  # the clock starts again at each write
    assert checkpointer.flush() is True
    assert a.get_local("_local/rep")["last_seq"] == 40 == b.get_local("_local/rep")["last_seq"]
    assert checkpointer.flush() is False  # nothing left
    rev = a.get_local("_local/rep")["_rev"]
    assert checkpointer.flush() is False and a.get_local("_local/rep")["_rev"] == rev


def test_after_a_failure_the_first_offer_is_written_at_once(make_store: StoreFactory) -> None:
    a, b = make_store("a"), make_store("b")
    clock = FakeClock()
    checkpointer = Checkpointer(LocalPeer(a), LocalPeer(b), "_local/rep", interval=5.0, first_at_once=True,
                                clock=clock)
    checkpointer.start_seq()
    assert checkpointer.offer(10) is True  # at once
    assert checkpointer.offer(20) is False  # then by the interval again
    clock.now += 5
    assert checkpointer.offer(30) is True


def test_interval_zero_writes_every_offer(make_store: StoreFactory) -> None:
    a, b = make_store("a"), make_store("b")
    checkpointer = Checkpointer(LocalPeer(a), LocalPeer(b), "_local/rep", interval=0, clock=FakeClock())
    checkpointer.start_seq()
    assert [checkpointer.offer(seq) for seq in (1, 2, 2, 3)] == [True, True, False, True]
    assert checkpointer.flush() is False


@pytest.mark.parametrize("value", [-1.0, float("nan")])
def test_a_negative_or_nan_interval_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="checkpoint_interval"):
        ReplicationOptions(checkpoint_interval=value)


# -- in a replication --------------------------------------------------------------------------


def _counted_push(make_store: StoreFactory, couch: CouchServer, count: int,
                  options: ReplicationOptions) -> tuple[Any, CountingRemotePeer, Database]:
    """A one-shot push of ``count`` small documents into a new database, its checkpoints counted."""
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:04d}", "n": i} for i in range(count)])
    target = CountingRemotePeer(remote)
    try:
        status = Replicator(LocalPeer(a), target, options, direction="push").run()
    finally:
        remote.close()
    return status, target, a


def test_a_one_shot_push_checkpoints_once_at_the_end_within_the_interval(
    make_store: StoreFactory, couch: CouchServer
) -> None:
    options = ReplicationOptions(batch_size=100, checkpoint_interval=3600)
    status, target, a = _counted_push(make_store, couch, 1000, options)
    assert status.state == "complete" and status.docs_written == 1000 and status.batches == 10
    assert target.checkpoints == [1000]  # one write, at the end, not one per batch
    assert a.get_local(status.replication_id)["last_seq"] == 1000


def test_the_default_interval_writes_fewer_checkpoints_than_batches(
    make_store: StoreFactory, couch: CouchServer
) -> None:
    status, target, _a = _counted_push(make_store, couch, 600, ReplicationOptions(batch_size=50))
    assert ReplicationOptions().checkpoint_interval > 0
    assert status.state == "complete" and status.batches == 12
    assert target.checkpoints[-1] == 600 and len(target.checkpoints) < 12


def test_live_push_checkpoints_each_time_it_catches_up(make_store: StoreFactory, couch: CouchServer) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:03d}", "n": i} for i in range(300)])
    target = CountingRemotePeer(remote)
    options = ReplicationOptions(batch_size=100, live=True, checkpoint_interval=3600)
    rep = Replicator(LocalPeer(a), target, options, direction="push")
    rep.start()
    try:
        wait_for(lambda: target.checkpoints[-1:] == [300], 20)
        a.put({"_id": "late", "n": 1})
        wait_for(lambda: target.checkpoints[-1:] == [301], 20)
        assert target.checkpoints == [300, 301]  # not one per batch of the first 300
    finally:
        rep.cancel()
        rep.wait(5)
        remote.close()


@pytest.mark.parametrize("network", [False, True], ids=["server-error", "network-error"])
def test_after_a_failure_the_server_answered_the_retry_starts_after_the_written_batches(
    make_store: StoreFactory, couch: CouchServer, network: bool
) -> None:
    """A 500 on the 3rd batch: the two written before it are checkpointed (the server
    answers), so the retry starts at 200. A connection refused: nothing more is asked of the
    server, the retry starts at the last checkpoint (0) and sends those batches again."""
    name = couch.create_db()
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:03d}", "n": i} for i in range(500)])
    rep_id = replication_id(a.info()["instance_uuid"], couch.uuid + name)
    at_failure: dict[str, Any] = {}

    def record() -> None:
        at_failure["checkpoint"] = local_checkpoint(a, rep_id)

    transport = ServerErrorOnBulkDocs(3, record, network=network)
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1], transport=transport)
    options = ReplicationOptions(batch_size=100, retry=True, max_retries=3, backoff=lambda previous: 0.01,
                                 checkpoint_interval=3600)
    source = SinceRecordingLocalPeer(a)
    target = CountingRemotePeer(remote)
    try:
        status = Replicator(source, target, options, direction="push").run()
    finally:
        remote.close()
    assert status.state == "complete" and status.retries == 1, status.to_json()
    assert at_failure["checkpoint"] is None  # nothing recorded while the batches went well
    # The first attempt reads from 0, 100 and 200 (its reader may read ahead); the retry
    # starts at 200 after a server's answer, at 0 (sending nothing twice) after a network error.
    assert source.reads[0] == 0 and source.reads.count(0) == (2 if network else 1), source.reads
    assert source.reads.count(200) == 2, source.reads
    assert transport.bulk_docs == 6  # batches 1 to 3, then 3 to 5 (1 and 2 are on the server)
    # Checkpoints: after the server's error, batches 1 and 2 (200); the retry's first batch at
    # once (so an attempt on a link failing faster than the interval still records progress),
    # then the end.
    assert target.checkpoints == ([100, 500] if network else [200, 300, 500])
    assert a.get_local(rep_id)["last_seq"] == 500 == couch.get_doc(name, rep_id).json()["last_seq"]
    assert len(remote_ids(couch, name)) == 500


# -- pages sized by bytes -------------------------------------------------------------------------


def _fill_remote(couch: CouchServer, name: str, count: int, text: str) -> None:
    for start in range(0, count, 500):
        couch.bulk_docs(name, [{"_id": f"doc-{i:05d}", "text": text} for i in range(start, min(count, start + 500))])


def _counted_pull(remote: RemoteDatabase, path: Path, options: ReplicationOptions
                  ) -> tuple[Any, CountingRemotePeer, list[str]]:
    """A first pull into a new store at ``path``: its status, its source with the pages it
    asked for, and the ids it wrote."""
    db = Database(path)
    source = CountingRemotePeer(remote.clone())
    try:
        status = Replicator(source, LocalPeer(db), options, direction="pull").run()
        return status, source, local_ids(db)
    finally:
        db.close()


def test_pages_of_documents_follow_page_bytes(couch: CouchServer, tmp_path: Any) -> None:
    """A first pull (pages carrying their documents) asks for DEFAULT_BATCH_SIZE rows, then for
    as many rows as fit ``page_bytes`` at the last page's bytes per row."""
    name = couch.create_db()
    _fill_remote(couch, name, 1500, "x" * 1000)
    remote = admin_client(couch, name)
    try:
        status, source, ids = _counted_pull(remote, tmp_path / "pulled.sqlite", ReplicationOptions(page_bytes=50_000))
    finally:
        remote.close()
    assert status.state == "complete" and status.docs_written == 1500
    assert ids == remote_ids(couch, name)
    limits = [limit for limit, _rows in source.pages]
    assert limits[0] == DEFAULT_BATCH_SIZE
    # rows of about 1.1 KB: 50,000 bytes hold 40 to 48 of them
    assert all(40 <= limit <= 48 for limit in limits[1:]), limits
    assert sum(rows for _limit, rows in source.pages) == 1500


def test_the_rows_asked_for_at_most_double_and_a_fixed_batch_size_is_kept(
    couch: CouchServer, tmp_path: Any
) -> None:
    name = couch.create_db()
    _fill_remote(couch, name, 1000, "")
    remote = admin_client(couch, name)
    results = {}
    try:
        for label, options in (("bytes", ReplicationOptions(page_bytes=1_000_000_000)),
                               ("fixed", ReplicationOptions(batch_size=300))):
            status, source, _ids = _counted_pull(remote, tmp_path / f"{label}.sqlite", options)
            assert status.state == "complete" and status.docs_written == 1000
            results[label] = [limit for limit, _rows in source.pages]
    finally:
        remote.close()
    # the rows asked for at most double from one page to the next
    assert results["bytes"] == [DEFAULT_BATCH_SIZE, 2 * DEFAULT_BATCH_SIZE]
    assert set(results["fixed"]) == {300}


def test_page_rows_double_at_most_up_to_max_page_rows(
    couch: CouchServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replicator_module, "MAX_PAGE_ROWS", 1500)
    name = couch.create_db()
    _fill_remote(couch, name, 4000, "")
    remote = admin_client(couch, name)
    try:
        status, source, _ids = _counted_pull(remote, tmp_path / "pulled.sqlite",
                                             ReplicationOptions(page_bytes=1_000_000_000))
    finally:
        remote.close()
    assert status.state == "complete" and status.docs_written == 4000
    assert source.pages == [(500, 500), (1000, 1000), (1500, 1500), (1500, 1000)]


def test_a_push_cancelled_within_the_interval_resumes_from_the_last_written_checkpoint(
    make_store: StoreFactory, couch: CouchServer
) -> None:
    """A cancel aborts the peers at once: what was kept for the next checkpoint is not
    written, so the next run sends it again, and every document arrives exactly once."""
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    for start in range(0, 2000, 500):
        a.bulk_docs([{"_id": f"d{i:05d}", "text": "t" * 200} for i in range(start, start + 500)])
    rep = make_push(a, remote, ReplicationOptions(batch_size=50, checkpoint_interval=3600))
    rep.start()
    try:
        wait_for(lambda: rep.status.docs_written >= 200, 20, interval=0.005)
        rep.cancel()
        assert rep.wait(5).state == "cancelled"
    finally:
        rep.cancel()
        rep.wait(5)
    again = make_push(a, remote).run()
    assert again.state == "complete" and again.start_seq == 0
    assert len(remote_ids(couch, name)) == 2000
    assert all(row["value"]["rev"].startswith("1-") for row in couch.all_docs(name)["rows"])
    remote.close()
