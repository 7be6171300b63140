"""Live mode: longpoll pull with heartbeats and push on the store's notification (T35), retry
across a server outage (T36), cancel() within a second, and no longpoll left behind by a
retry. Every live sync is cancelled in a ``finally``, so a failing assertion never leaves
threads long-polling."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from storyloom.store import Database, NotFound
from storyloom.sync import (
    LocalPeer,
    NetworkError,
    RemoteDatabase,
    RemotePeer,
    ReplicationOptions,
    Replicator,
    Sync,
    capped_backoff,
)
from storyloom.sync.replicator import SyncEvent
from tests.support.couch import CouchServer
from tests.sync.helpers import admin_client, local_ids, remote_ids, wait_for

StoreFactory = Callable[..., Database]


def has_local(db: Database, doc_id: str) -> bool:
    try:
        db.get(doc_id)
        return True
    except NotFound:
        return False


class EventLog:
    def __init__(self) -> None:
        self.events: list[SyncEvent] = []
        self.lock = threading.Lock()

    def __call__(self, event: SyncEvent) -> None:
        with self.lock:
            self.events.append(event)

    def kinds(self, direction: str | None = None) -> list[str]:
        with self.lock:
            return [e.type for e in self.events if direction is None or e.direction == direction]


def test_t35_live_pull_and_push_then_cancel_within_a_second(make_store: StoreFactory, couch: CouchServer) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.put({"_id": "before"})
    log = EventLog()
    options = ReplicationOptions(live=True, retry=True)
    sync = Sync(a, remote, options, on_event=log)
    sync.start()
    try:
        wait_for(lambda: sync.status.push.state == "paused" and sync.status.pull.state == "paused", 10)
        assert remote_ids(couch, name) == ["before"]
        # Remote writes arrive by longpoll; one gap is longer than pouchdb-server's 6 s
        # heartbeat. Bound of docs/protocol.md T35: each change arrives within heartbeat + 1 s
        # (the longpoll returns at once, so it is typically a few milliseconds).
        bound = options.heartbeat_ms / 1000 + 1
        gaps = [0.3, 0.3, 7.0, 0.3, 0.0]
        latencies = []
        for i, gap in enumerate(gaps):
            couch.put_doc(name, {"_id": f"remote-{i}"})
            latencies.append(wait_for(lambda i=i: has_local(a, f"remote-{i}"), bound))
            a.put({"_id": f"local-{i}"})
            latencies.append(wait_for(lambda i=i: couch.get_doc(name, f"local-{i}").status_code == 200, bound))
            time.sleep(gap)  # the scenario's gap between writes, not a synchronisation
        print(f"\nlive latencies: max {max(latencies):.3f}s")
        wait_for(lambda: sync.status.pull.state == "paused", 5)
        assert "change" in log.kinds("pull") and "change" in log.kinds("push")
        assert log.kinds("pull").count("active") >= 2  # active again after each paused
        # cancel() while the pull is blocked in a longpoll between heartbeats
        started = time.monotonic()
        sync.cancel()
        status = sync.wait(5)
        assert time.monotonic() - started < 1.0
    finally:
        sync.cancel()
        sync.wait(5)
        remote.close()
    assert sync.done and status.push.state == "cancelled" and status.pull.state == "cancelled"
    assert log.kinds("push")[-1] == "complete" and log.kinds("pull")[-1] == "complete"
    assert sorted(local_ids(a)) == sorted(remote_ids(couch, name))


OUTAGE_SECONDS = 5.0


def test_t36_live_sync_survives_a_server_outage(make_store: StoreFactory, fresh_couch: CouchServer) -> None:
    couch = fresh_couch
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.put({"_id": "first"})
    log = EventLog()
    options = ReplicationOptions(live=True, retry=True, backoff=capped_backoff(0.5))
    sync = Sync(a, remote, options, on_event=log)
    sync.start()
    try:
        wait_for(lambda: sync.status.pull.state == "paused" and sync.status.push.state == "paused", 10)
        couch.stop()
        stopped = time.monotonic()
        a.put({"_id": "written-while-down"})
        wait_for(lambda: sync.status.push.retries > 0 and sync.status.pull.retries > 0, 10)
        paused_with_error = [e for e in log.events if e.type == "paused" and e.error is not None]
        assert paused_with_error and all(e.error.retryable for e in paused_with_error)  # type: ignore[union-attr]
        # docs/protocol.md T36: the server stays down 5 s (the scenario, not a synchronisation).
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
        couch.restart()
        couch.put_doc(name, {"_id": "written-after-restart"})
        wait_for(lambda: has_local(a, "written-after-restart"), 15)
        wait_for(lambda: couch.get_doc(name, "written-while-down").status_code == 200, 15)
        kinds = log.kinds("pull")
        last_error_pause = max(i for i, e in enumerate(log.events) if e.type == "paused" and e.error is not None)
        assert "active" in [e.type for e in log.events[last_error_pause:]]
        assert "error" not in kinds
        started = time.monotonic()
        sync.cancel()
        sync.wait(5)
        assert time.monotonic() - started < 1.0
        assert sorted(local_ids(a)) == sorted(remote_ids(couch, name))
    finally:
        sync.cancel()
        sync.wait(5)
        remote.close()


def test_cancel_during_backoff_and_during_a_one_shot_push(make_store: StoreFactory, couch: CouchServer) -> None:
    from storyloom.sync import RemoteDatabase, make_push

    down = RemoteDatabase("http://127.0.0.1:1/nowhere", timeout=2)
    rep = make_push(make_store("x"), down, ReplicationOptions(retry=True, backoff=lambda d: 30.0))
    rep.start()
    try:
        wait_for(lambda: rep.status.retries == 1, 5)
        started = time.monotonic()
        rep.cancel()
        assert rep.wait(5).state == "cancelled"
        assert time.monotonic() - started < 1.0
    finally:
        rep.cancel()
        rep.wait(5)
        down.close()

    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    for start in range(0, 3000, 500):
        a.bulk_docs([{"_id": f"d{i:05d}", "text": "t" * 200} for i in range(start, start + 500)])
    # A checkpoint after every batch: a cancel leaves the last one (the remote is aborted at once,
    # so a checkpoint kept for later could not be written then).
    rep = make_push(a, remote, ReplicationOptions(batch_size=50, checkpoint_interval=0))
    rep.start()
    try:
        wait_for(lambda: rep.status.docs_written >= 200, 20, interval=0.005)
        started = time.monotonic()
        rep.cancel()
        status = rep.wait(5)
        assert time.monotonic() - started < 1.0 and status.state == "cancelled"
        assert status.docs_written < 3000
    finally:
        rep.cancel()
        rep.wait(5)
    # The next run resumes from the checkpoint and completes.
    again = make_push(a, remote).run()
    assert again.state == "complete" and again.start_seq == status.last_seq and again.start_seq > 0
    assert len(remote_ids(couch, name)) == 3000
    remote.close()


class CheckpointWriteFailsOnce(RemotePeer):
    """A pull source whose checkpoint write fails once (a dropped connection) when armed, but
    only once the reader is back in a longpoll; records the thread of every live wait."""

    def __init__(self, remote: RemoteDatabase) -> None:
        super().__init__(remote)
        self.armed = threading.Event()
        self.waits: list[threading.Thread] = []
        self.waits_changed = threading.Condition()

    def wait_changes(self, *args: Any, **kwargs: Any) -> Any:
        with self.waits_changed:
            self.waits.append(threading.current_thread())
            self.waits_changed.notify_all()
        return super().wait_changes(*args, **kwargs)

    def wait_for_waits(self, count: int, timeout: float = 10) -> bool:
        with self.waits_changed:
            return self.waits_changed.wait_for(lambda: len(self.waits) >= count, timeout)

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        if self.armed.is_set():
            self.armed.clear()
            # The reader took the change and went back to waiting (its 2nd longpoll).
            assert self.wait_for_waits(2)
            raise NetworkError("injected: connection reset by peer", method="PUT", url=self.remote.db_url)
        return super().put_checkpoint(doc)


def test_live_pull_retry_aborts_the_abandoned_longpoll(make_store: StoreFactory, couch: CouchServer) -> None:
    """A retry in live pull aborts the previous attempt's longpoll: the old reader ends at
    once instead of holding a connection until the next remote change."""
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    source = CheckpointWriteFailsOnce(remote)
    options = ReplicationOptions(live=True, retry=True, backoff=lambda previous: 0.05)
    rep = Replicator(source, LocalPeer(a), options, direction="pull")
    rep.start()
    try:
        assert source.wait_for_waits(1)  # caught up, long-polling
        source.armed.set()
        couch.put_doc(name, {"_id": "r1"})
        # r1 is written, its checkpoint write fails: retry. The new attempt's reader reaches
        # its own longpoll (the 3rd wait) ...
        assert source.wait_for_waits(3)
        assert rep.status.retries == 1
        first_reader, retry_reader = source.waits[0], source.waits[2]
        assert source.waits[1] is first_reader and retry_reader is not first_reader
        # ... and the first attempt's reader is gone, without any new remote change (its
        # longpoll would otherwise block until the next change or the 30 s read timeout).
        first_reader.join(3)
        assert not first_reader.is_alive()
        assert retry_reader.is_alive()
        # The retried pull still follows the server.
        assert has_local(a, "r1")
        couch.put_doc(name, {"_id": "r2"})
        wait_for(lambda: has_local(a, "r2"), options.heartbeat_ms / 1000 + 1)
    finally:
        rep.cancel()
        rep.wait(5)
        remote.close()
    assert rep.status.state == "cancelled"
