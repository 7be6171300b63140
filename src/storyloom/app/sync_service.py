"""``SyncService``: one open project kept in sync with its remote database, in the background.

What it does (docs/sync.md, "The sync service"):

- **Push**: a live push replicator (``storyloom.sync.make_push`` with ``live=True``) follows the
  store's commit notifications and sends each local change as soon as it is committed. A
  debounced one-shot push per change was the alternative; it pays the peers' preparation
  (``GET /db``, the server uuid, the identity check, both checkpoint reads) on every edit, about
  twice the requests of the live replicator, which keeps its peers and checkpoint between
  changes. The live push is what keeps edit-to-server well under a second.
- **Pull**: every ``interval`` seconds a one-shot pull (on the service's own thread: the
  :class:`~storyloom.app.sync_once.SyncRun` ``storyloom sync`` runs, in the pull direction), or,
  with ``live``, a live pull replicator that long-polls the server's ``_changes``.
- **Offline**: a network failure (server down, reset, timeout, 5xx) puts the service ``offline``
  with the cause and the time of the next try; the live replicators retry by themselves, the
  interval pull at its next try, each with the replication engine's backoff capped at
  ``max_backoff`` seconds. When the server answers again the service is ``idle`` again without
  anyone doing anything; nothing is lost (every direction restarts from its checkpoint).
- **Error**: credentials (401), membership (403, or pouchdb-server's 401 for a non-member), a
  database of another project (``ProjectMismatch``), a missing database, a redirect: every
  replication stops, the state carries ``cause`` and ``fix``, and nothing is retried until
  ``sync_now()`` or ``settings_changed()``. A document refused with HTTP 413 even alone puts the
  state in ``error`` with the document, its size and the server setting to raise, while every
  other document keeps syncing; ``sync_now()`` sends it again.
- **After a pull**: ``after_pull(doc_ids)`` runs on the service's thread with the ids the pull
  wrote (the session runs the automatic merge and confirms provisional locks there).

Threads: the service thread (``storyloom-sync-service``), one thread per live replicator
(``storyloom-sync-push``, ``storyloom-sync-pull``) and the replicators' reader threads.
``stop()`` cancels them all and joins every one of them. ``on_state`` runs on whichever of
these threads changed the state, one call at a time, in order: it must return quickly.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from storyloom.app.sync_once import PROJECT_IDENTITY, SyncRun, pull_replicator
from storyloom.app.sync_state import (
    SyncKind,
    SyncProgress,
    SyncState,
    TooLargeDocument,
    Trouble,
    explain,
    too_large_setting,
    too_large_trouble,
)
from storyloom.store import StoreError
from storyloom.sync import (
    ReplicationOptions,
    ReplicationStatus,
    Replicator,
    SyncEvent,
    default_backoff,
    make_push,
)
from storyloom.words import counted

if TYPE_CHECKING:
    from storyloom.store import Database
    from storyloom.sync import RemoteDatabase

log = logging.getLogger(__name__)

#: The service's own notes in the store (never replicated): the push replication id per
#: remote database, so that ``pending`` is right also while offline since the app started.
NOTES_ID = "_local/storyloom-sync"
MIN_INTERVAL = 0.2
DEFAULT_MAX_BACKOFF = 60.0
PENDING_THROTTLE = 0.2  # seconds between two counts of pending changes on local edits alone
JOIN_TIMEOUT = 10.0


class RemoteSource(Protocol):
    """What the service needs of :class:`storyloom.app.remote.RemoteAccess`."""

    @property
    def settings(self) -> Any: ...

    @property
    def username(self) -> str | None: ...

    def open(self, **client_options: Any) -> RemoteDatabase: ...


class ProjectLike(Protocol):
    @property
    def store(self) -> Database: ...

    @property
    def name(self) -> str: ...


@dataclass
class _Direction:
    kind: SyncKind = "connecting"
    cause: str | None = None
    next_retry: float | None = None
    progress: SyncProgress | None = None
    base: int = 0  # docs_written when the direction last caught up
    read: int = 0  # docs_read at the last event
    serial: int = 0  # which replicator of this direction the events must come from


class SyncService:
    """Keeps ``project`` in sync with the database ``remote`` names (see the module text).

    ``on_state(SyncState)`` is called on every change of what the state shows;
    ``after_pull(doc_ids)`` after a pull round that caught up. ``clock`` drives the schedule
    (the interval, the retries); ``wall_clock`` gives the times shown (``last_sync``,
    ``next_retry``). ``client_options`` go to ``remote.open()`` (tests pass timeouts).
    """

    def __init__(
        self,
        project: ProjectLike,
        remote: RemoteSource,
        *,
        on_state: Callable[[SyncState], None],
        after_pull: Callable[[list[str]], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        max_backoff: float = DEFAULT_MAX_BACKOFF,
        client_options: dict[str, Any] | None = None,
    ) -> None:
        self.project = project
        self.db: Database = project.store
        self.remote = remote
        self.on_state = on_state
        self.after_pull = after_pull
        self.clock = clock
        self.wall_clock = wall_clock
        self.max_backoff = max_backoff
        self.client_options = dict(client_options or {})
        self._lock = threading.RLock()  # the service's fields
        self._publish_lock = threading.Lock()  # one on_state call at a time, in order
        self._start_lock = threading.Lock()  # start() and stop() one at a time
        self._cond = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._restart = False
        self._pull_now = False
        self._after_pull_due = False
        self._pending_dirty = False
        self._generation = 0
        self._running = False
        self._live = False
        self._interval = 30.0
        self._db_url: str | None = None
        self._client: RemoteDatabase | None = None
        self._push: Replicator | None = None
        self._live_pull: Replicator | None = None
        self._oneshot_pull: SyncRun | None = None
        self._threads: list[threading.Thread] = []
        self._dirs: dict[str, _Direction] = {}
        self._trouble: Trouble | None = None
        self._too_large: dict[str, TooLargeDocument] = {}
        self._off_detail = "sync is off"
        self._retry_delay: dict[str, float] = {}
        self._pull_delay = 0.0
        self._next_pull = 0.0
        self._pulled_ids: set[str] = set()
        self._pulled_revs: dict[str, str] = {}
        self._after_pull_force = False
        self._kick: set[str] = set()
        self._last_sync: float | None = None
        self._last_count = -1.0
        self._pending = 0
        self._remembered_rep: str | None = None
        self._state = SyncState()
        self._unsubscribe_store: Callable[[], None] | None = None

    # ------------------------------------------------------------------ public
    @property
    def state(self) -> SyncState:
        with self._lock:
            return self._state

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self) -> None:
        """Start in the background (does nothing when running). With no remote, or a disabled
        one, the state stays ``off``."""
        with self._start_lock:
            with self._lock:
                if self.running:
                    return
                self._stopping = False
                self._restart = False
            try:
                self._unsubscribe_store = self.db.subscribe(self._on_local_change)
            except StoreError:
                log.warning("the project store is closed; sync not started")
                return
            # Set up here, so that the state says what happens (connecting, off, error) as soon
            # as start() returns; the service thread takes over from there.
            self._setup()
            with self._lock:
                self._thread = threading.Thread(target=self._run, name="storyloom-sync-service", daemon=True)
                self._thread.start()

    def stop(self, timeout: float = JOIN_TIMEOUT) -> None:
        """Cancel every replication and join every thread of the service; the state is ``off``."""
        with self._start_lock:
            with self._lock:
                self._stopping = True
                thread = self._thread
                if thread is not None and self._running:
                    # What the state says while stopping, so an event of a replication being
                    # cancelled does not show an "off" that the end of the stop then changes.
                    self._off_detail = "sync is stopped"
                self._cancel_all()
                self._cond.notify_all()
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout)
                if thread.is_alive():  # pragma: no cover - a replication that ignored its cancel
                    log.error("the sync service thread did not stop within %.1f s", timeout)
            with self._lock:
                self._thread = None
            self._publish()

    def sync_now(self) -> None:
        """Sync at once: restart the replications (which sends documents refused earlier as too
        large, and ends any backoff wait), clear an error, pull now. Starts a stopped service."""
        if not self._request_restart():
            self.start()

    def settings_changed(self) -> None:
        """The remote settings changed: a running service applies them (enabled or not, another
        database, interval, live) and clears an error."""
        self._request_restart()

    def _request_restart(self) -> bool:
        with self._lock:
            if not self.running or self._stopping:
                return False
            self._restart = True
            self._pull_now = True
            self._cond.notify_all()
            return True

    def wait_for(self, predicate: Callable[[SyncState], bool], timeout: float = 10.0) -> bool:
        """Block until ``predicate(state)`` holds (tests, the CLI); False on timeout."""
        deadline = self.clock() + timeout
        with self._cond:
            while not predicate(self._state):
                left = deadline - self.clock()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
            return True

    # ------------------------------------------------------------------ the service thread
    def _run(self) -> None:
        failed = False
        try:
            while True:
                with self._cond:
                    if not self._has_work():
                        self._cond.wait(self._wait_time())
                    if self._stopping:
                        break
                    restart, self._restart = self._restart, False
                    pull_now, self._pull_now = self._pull_now, False
                    after_pull, self._after_pull_due = self._after_pull_due, False
                    kick, self._kick = self._kick, set()
                if restart:
                    self._teardown()
                    self._setup()
                elif kick:
                    self._retry_now(kick)
                if after_pull:
                    self._run_after_pull()
                if self._pull_is_due(pull_now):
                    self._pull_once()
                if self._pending_dirty and self.clock() - self._last_count >= PENDING_THROTTLE:
                    self._publish(count=True)
        except Exception:  # a bug: say so, and leave the state showing it
            log.exception("the sync service failed")
            failed = True
        finally:
            self._teardown()
            unsubscribe, self._unsubscribe_store = self._unsubscribe_store, None
            if unsubscribe is not None:
                unsubscribe()
            with self._lock:
                self._running = False
                self._off_detail = ("sync stopped after an internal error (see the log); Sync now starts it again"
                                    if failed else "sync is stopped")
            self._publish()

    def _has_work(self) -> bool:
        return (self._stopping or self._restart or self._pull_now or self._after_pull_due or bool(self._kick)
                or (self._pending_dirty and self.clock() - self._last_count >= PENDING_THROTTLE)
                or self._pull_is_due(False))

    def _wait_time(self) -> float:
        waits = [5.0]
        if self._pending_dirty:
            waits.append(max(0.01, PENDING_THROTTLE - (self.clock() - self._last_count)))
        if self._running and not self._live and self._trouble is None:
            waits.append(max(0.01, self._next_pull - self.clock()))
        return min(waits)

    def _pull_is_due(self, now: bool) -> bool:
        with self._lock:
            if not self._running or self._live or self._trouble is not None or self._stopping:
                return False
            return now or self.clock() >= self._next_pull

    # ------------------------------------------------------------------ set-up and tear-down
    def _setup(self) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._trouble = None
            self._too_large = {}
            self._dirs = {}
            self._retry_delay = {}
            self._pull_delay = 0.0
            self._after_pull_force = False
            self._kick = set()
        settings = self._settings()
        if settings is None or not getattr(settings, "enabled", False):
            with self._lock:
                self._running = False
                self._db_url = None
                self._off_detail = ("sync is off: no remote database is set for this project" if settings is None
                                    else "sync is off: remote sync is disabled in this project's settings")
            self._publish(count=True)
            return
        with self._lock:
            self._live = bool(getattr(settings, "live", False))
            self._interval = max(float(getattr(settings, "interval", 30.0) or 30.0), MIN_INTERVAL)
            self._running = True
            self._dirs = {"push": _Direction(), "pull": _Direction()}
        try:
            client = self.remote.open(**self.client_options)
        except Exception as exc:  # noqa: BLE001 - not configured, no password, a bad URL: the error says what to do
            self._fail(exc)
            return
        with self._lock:
            self._client = client
            self._db_url = client.db_url
            self._start_push(generation)
            if self._live:
                self._start_live_pull(generation)
            else:
                self._next_pull = self.clock()
        self._publish(count=True)

    def _start_push(self, generation: int) -> None:
        assert self._client is not None
        serial = self._next_serial("push")
        self._push = make_push(self.db, self._client, self._options(live=True, direction="push"),
                               self._handler("push", generation, serial))
        self._start_thread(self._push, "storyloom-sync-push")

    def _start_live_pull(self, generation: int) -> None:
        assert self._client is not None
        serial = self._next_serial("pull")
        self._live_pull = pull_replicator(self.db, self._client, self._options(live=True, direction="pull"),
                                          on_event=self._handler("pull", generation, serial), on_written=self._pulled)
        self._start_thread(self._live_pull, "storyloom-sync-pull")

    def _next_serial(self, name: str) -> int:
        direction = self._dirs.setdefault(name, _Direction())
        direction.serial += 1
        return direction.serial

    def _start_thread(self, replicator: Replicator, name: str) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]
        thread = threading.Thread(target=replicator.run, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _retry_now(self, names: set[str]) -> None:
        """One direction got through while the other waits to retry: the server is back, so
        retry the other at once instead of at the end of its backoff."""
        with self._lock:
            if not self._running or self._trouble is not None or self._client is None:
                return
            generation = self._generation
            old: list[Replicator] = []
            if "push" in names and self._push is not None:
                old.append(self._push)
                self._start_push(generation)
            if "pull" in names:
                if self._live and self._live_pull is not None:
                    old.append(self._live_pull)
                    self._start_live_pull(generation)
                elif not self._live:
                    self._next_pull = self.clock()
        for replicator in old:
            replicator.cancel()

    def _cancel_all(self) -> None:
        for replicator in (self._push, self._live_pull, self._oneshot_pull):
            if replicator is not None:
                replicator.cancel()

    def _teardown(self) -> None:
        with self._lock:
            self._generation += 1  # late events of the old replications are ignored
            self._cancel_all()
            threads, self._threads = self._threads, []
            client, self._client = self._client, None
            self._push = self._live_pull = self._oneshot_pull = None
        for thread in threads:
            thread.join(JOIN_TIMEOUT)
            if thread.is_alive():  # pragma: no cover
                log.error("sync thread %s did not stop", thread.name)
        if client is not None:
            client.close()

    def _settings(self) -> Any:
        try:
            return self.remote.settings
        except Exception:
            log.exception("reading the remote settings failed")
            return None

    def _options(self, *, live: bool, direction: str) -> ReplicationOptions:
        def backoff(previous: float) -> float:
            delay = min(default_backoff(previous), self.max_backoff)
            with self._lock:
                self._retry_delay[direction] = delay
            return delay

        return ReplicationOptions(live=live, retry=live, max_retries=None, backoff=backoff,
                                  identity=PROJECT_IDENTITY)

    # ------------------------------------------------------------------ pulling on an interval
    def _pull_once(self) -> None:
        """One round of the interval pull: a one-shot :class:`~storyloom.app.sync_once.SyncRun`
        (``storyloom sync``'s, in the pull direction); the after-pull work follows it here, with
        every document pulled since the last time, and the live push sends what that writes."""
        with self._lock:
            if self._client is None:
                return
            generation = self._generation
            serial = self._next_serial("pull")
            options = self._options(live=False, direction="pull")
            run = self._oneshot_pull = SyncRun(self.db, self._client, "pull", options, on_written=self._pulled,
                                               on_event=self._handler("pull", generation, serial))
            self._dirs["pull"].base = self._dirs["pull"].read = 0
        status = run.run().status
        with self._lock:
            if generation != self._generation or self._stopping:
                return
            self._oneshot_pull = None
            direction = self._dirs.setdefault("pull", _Direction())
            if status.state == "complete":
                self._pull_delay = 0.0
                self._next_pull = self.clock() + self._interval
                self._caught_up("pull", direction, status.docs_written)
                self._after_pull_due = False
                caught_up = True
            elif status.state == "error" and status.last_error is not None:
                trouble = self._explain(status.last_error)
                caught_up = False
                if trouble.kind == "offline":
                    self._pull_delay = min(default_backoff(self._pull_delay), self.max_backoff)
                    self._next_pull = self.clock() + self._pull_delay
                    direction.kind, direction.cause = "offline", trouble.cause
                    direction.next_retry = self.wall_clock() + self._pull_delay
                else:
                    self._trouble = trouble
                    self._cancel_all()
            else:
                return
        if caught_up:
            self._publish(count=True, synced=True)
            self._run_after_pull()
        else:
            self._publish()

    def _run_after_pull(self) -> None:
        with self._lock:
            ids, self._pulled_ids = sorted(self._pulled_ids), set()
            force, self._after_pull_force = self._after_pull_force, False
        if self.after_pull is None or not (ids or force):
            return
        try:
            self.after_pull(ids)
        except Exception:  # the merge or the lock check failed: sync itself goes on
            log.exception("after-pull work failed for %s", counted(len(ids), "document"))

    def _pulled(self, written: list[tuple[str, str]]) -> None:
        with self._lock:
            for doc_id, rev in written:
                self._pulled_ids.add(doc_id)
                self._pulled_revs[doc_id] = rev

    # ------------------------------------------------------------------ replication events
    def _handler(self, name: str, generation: int, serial: int) -> Callable[[SyncEvent], None]:
        def on_event(event: SyncEvent) -> None:
            self._on_event(name, generation, serial, event)

        return on_event

    def _caught_up(self, name: str, direction: _Direction, written: int) -> None:
        """``direction`` is up to date. Called with the lock held."""
        if direction.kind in ("connecting", "offline"):
            # Through to the server (again): the after-pull work runs even if nothing came in
            # (provisional locks wait for it), and the other direction need not wait its backoff.
            if name == "pull":
                self._after_pull_force = True
            other = self._dirs.get("pull" if name == "push" else "push")
            if other is not None and other.kind == "offline":
                self._kick.add("pull" if name == "push" else "push")
                self._cond.notify_all()
        direction.kind, direction.cause, direction.next_retry, direction.progress = "idle", None, None, None
        direction.base = written

    def _on_event(self, name: str, generation: int, serial: int, event: SyncEvent) -> None:
        synced = False
        with self._lock:
            direction = self._dirs.get(name)
            if generation != self._generation or self._stopping or direction is None or direction.serial != serial:
                return
            status = event.status
            if event.type == "change":
                moved = status.docs_read != direction.read
                direction.read = status.docs_read
            if event.type == "change" and (moved or event.docs or direction.kind != "idle"):
                # (a batch that moved nothing, such as the push finding pulled documents on the
                # server already, leaves an idle direction idle)
                if name == "pull" and direction.kind in ("connecting", "offline"):
                    # Through to the server (again) by way of a batch: the after-pull work
                    # (provisional locks) still runs when it catches up, as in _caught_up.
                    self._after_pull_force = True
                direction.kind, direction.cause, direction.next_retry = "syncing", None, None
                direction.progress = _round_progress(name, status.docs_written - direction.base, status)
                self._note_too_large(event)
            elif event.type == "paused" and event.error is None:
                synced = direction.kind != "idle"  # the time of the last sync moves on
                direction.read = status.docs_read
                self._caught_up(name, direction, status.docs_written)
                if name == "pull":
                    self._after_pull_due = True
                    self._cond.notify_all()
            elif event.type == "paused" and event.error is not None:
                trouble = self._explain(event.error)
                direction.kind, direction.cause, direction.progress = "offline", trouble.cause, None
                direction.next_retry = self.wall_clock() + self._retry_delay.get(name, 0.0)
            elif event.type == "error" and event.error is not None and status.live:
                # (a one-shot pull's failure is handled where it ran, in _pull_once)
                trouble = self._explain(event.error)
                if trouble.kind == "offline":  # a retryable failure out of retries (not set up so)
                    direction.kind, direction.cause = "offline", trouble.cause
                else:
                    self._trouble = trouble
                    self._cancel_all()
                    self._cond.notify_all()
            elif event.type == "denied":
                log.info("%s: the server refused %s: %s", name, counted(len(event.docs), "document"),
                         ", ".join(str(d.get("id")) for d in event.docs[:5]))
            if name == "push" and status.replication_id:
                self._remember_push(status.replication_id)
        self._publish(count=(name == "push" or synced), synced=synced)

    def _note_too_large(self, event: SyncEvent) -> None:
        for doc in event.docs:
            if doc.get("error") != "too_large":
                continue
            doc_id = str(doc.get("id"))
            self._too_large[doc_id] = TooLargeDocument(
                doc_id=doc_id, rev=doc.get("rev"), size=doc.get("size"),
                setting=too_large_setting(str(doc.get("reason") or "")),
            )

    def _explain(self, error: BaseException) -> Trouble:
        settings = self._settings()
        return explain(error, project=self.project.name, username=getattr(settings, "username", None),
                       database=getattr(settings, "database", None))

    def _fail(self, error: BaseException) -> None:
        with self._lock:
            self._trouble = self._explain(error)
            if self._trouble.kind == "offline":  # cannot happen for open(); be safe anyway
                self._trouble = replace(self._trouble, kind="error")
        self._publish()

    def _on_local_change(self, _change: dict[str, Any]) -> None:
        # The writing thread: only flag it; the service thread counts (at most 5 times a second).
        with self._cond:
            self._pending_dirty = True
            self._cond.notify_all()

    # ------------------------------------------------------------------ pending changes
    def _remember_push(self, rep_id: str) -> None:
        if rep_id == self._remembered_rep or self._db_url is None:
            return
        self._remembered_rep = rep_id
        try:
            try:
                notes = self.db.get_local(NOTES_ID)
            except StoreError:
                notes = {"_id": NOTES_ID}
            pushes = dict(notes.get("push") or {})
            if pushes.get(self._db_url) != rep_id:
                pushes[self._db_url] = rep_id
                notes["push"] = pushes
                self.db.put_local(notes)
        except StoreError:
            log.debug("could not note the push replication id", exc_info=True)

    def _push_seq(self) -> int:
        push = self._push
        status = push.status if push is not None else None
        if status is not None and isinstance(status.last_seq, int):
            return status.last_seq
        rep_id = status.replication_id if status is not None else None
        try:
            if rep_id is None and self._db_url is not None:
                rep_id = (self.db.get_local(NOTES_ID).get("push") or {}).get(self._db_url)
            if rep_id:
                seq = self.db.get_local(rep_id).get("last_seq")
                return seq if isinstance(seq, int) else 0
        except StoreError:
            pass
        return 0

    def _count_pending(self) -> int:
        """Local changes after the push checkpoint, without ``_local`` documents and without the
        revisions the pull just wrote (the push finds them on the server and moves past them)."""
        with self._lock:
            self._pending_dirty = False
            self._last_count = self.clock()
            if self._db_url is None:
                return 0
            pulled = dict(self._pulled_revs)
        try:
            rows = self.db.changes(since=self._push_seq())["results"]
        except StoreError:
            return self._pending
        count = 0
        ids: set[str] = set()
        for row in rows:
            doc_id = row["id"]
            if doc_id.startswith("_local/"):
                continue
            ids.add(doc_id)
            rev = (row.get("changes") or [{}])[0].get("rev")
            if pulled.get(doc_id) != rev:
                count += 1
        with self._lock:
            if len(self._pulled_revs) > 10_000:
                self._pulled_revs = {k: v for k, v in self._pulled_revs.items() if k in ids}
        return count

    # ------------------------------------------------------------------ the state shown
    def _publish(self, *, count: bool = False, synced: bool = False) -> None:
        pending = self._count_pending() if count else None
        with self._publish_lock:
            with self._lock:
                if pending is not None:
                    self._pending = pending
                state = self._compose(synced)
                changed = not state.same_display(self._state)
                self._state = state
                self._cond.notify_all()
            if changed:
                try:
                    self.on_state(state)
                except Exception:
                    log.exception("sync state listener failed")

    def _compose(self, synced: bool) -> SyncState:
        base = SyncState(pending=self._pending, last_sync=self._last_sync, live=self._live, remote=self._db_url)
        if not self._running or self._stopping:
            return replace(base, kind="off", detail=self._off_detail, live=False)
        if self._trouble is not None:
            trouble = self._trouble
            return replace(base, kind="error", detail=f"sync error: {trouble.cause}", cause=trouble.cause,
                           fix=trouble.fix, problem=trouble.problem, too_large=trouble.too_large)
        dirs = list(self._dirs.values())
        offline = [d for d in dirs if d.kind == "offline"]
        if offline:
            retries = [d.next_retry for d in offline if d.next_retry is not None]
            next_retry = min(retries) if retries else None
            when = "" if next_retry is None else f"; retrying in {max(0.0, next_retry - self.wall_clock()):.0f} s"
            return replace(base, kind="offline", detail=f"offline{when}", cause=offline[0].cause,
                           next_retry=next_retry, problem="network")
        if any(d.kind == "connecting" for d in dirs):
            return replace(base, kind="connecting", detail=f"connecting to {self._db_url}")
        if self._too_large:
            trouble = too_large_trouble(tuple(self._too_large.values()), self.project.name)
            return replace(base, kind="error", detail=f"sync error: {trouble.cause}", cause=trouble.cause,
                           fix=trouble.fix, problem=trouble.problem, too_large=trouble.too_large)
        syncing = [d for d in dirs if d.kind == "syncing"]
        if syncing:
            progress = next((d.progress for d in syncing if d.progress is not None), None)
            done = f": {counted(progress.done, 'document')} {'received' if progress.direction == 'pull' else 'sent'}" \
                if progress is not None and progress.done else ""
            return replace(base, kind="syncing", detail=f"syncing{done}", progress=progress)
        if synced or self._last_sync is None:
            self._last_sync = self.wall_clock()
        unsent = f", {counted(self._pending, 'local change')} not sent yet" if self._pending else ""
        return replace(base, kind="idle", detail=f"up to date{unsent}", last_sync=self._last_sync)


def _round_progress(name: str, done: int, status: ReplicationStatus) -> SyncProgress:
    """A direction's progress in this round: what it moved, and what is left when the server
    says (``pending``) or the replication knows its total (a first pull)."""
    left = status.pending
    if left is None and status.total is not None:
        left = max(status.total - status.handled, 0)
    return SyncProgress(name, done, left, None if left is None else done + left)
