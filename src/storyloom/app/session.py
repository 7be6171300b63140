"""``ProjectSession``: one open project, as the desktop app, the local API and sync drive it.

A session owns the project (its store, the editor gate, the index), one ordered stream of
typed events, the local API controller (whose project provider is this session), and, for a
team project, the remote (``remote``), the locks (``locks``; the editor's lock policy is
:class:`~storyloom.project.locks.TeamLocks` when a remote is configured) and the sync service
(``sync``, created on first use, started by :meth:`ProjectSession.start_sync`).

Events (see :mod:`storyloom.app.events` for the threading rule):

- :class:`DocumentChanged` for every entry of the store's changes feed after the first
  subscriber, in seq order, whoever wrote it. ``origin`` is ``local`` or ``import`` when this
  session's editor made the write at that seq (the editor tells the store's subscribers, on the
  writing thread, why it writes; the session keys that by seq), ``remote`` otherwise
  (replication, another process). :meth:`ProjectSession.origin_of` answers the same question
  for a revision at once, whether or not its event was published yet (an editor whose save was
  refused by a newer revision names where that revision came from before its event arrives).
- :class:`ApiStateChanged` when the local API starts, stops or fails to start.
- :class:`SyncStateChanged` when what the sync service shows changes (also sent to the API's
  ``/events`` streams as ``event: sync``).
- :class:`LockSettled` for each provisional lock settled after a pull (confirmed, lost, released).
- :class:`LockBroken` for each break of this machine's lock seen for the first time (after a
  pull, or in a server copy a lock call read); also handed to :meth:`ProjectSession.on_lock_broken`
  listeners (the CLI prints it).
- :class:`SessionClosed` last.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from storyloom.app.broken_notices import BreakNotices
from storyloom.app.events import (
    ApiStateChanged,
    DocumentChanged,
    EventBus,
    LockBroken,
    LockSettled,
    Origin,
    SessionClosed,
    SessionEvent,
    SyncStateChanged,
)
from storyloom.app.follower import ChangeFollower
from storyloom.app.options import AppOptions

# The API, the remote, the locks and the sync service are imported where they are first made:
# they bring the web server, the HTTP client and the replicator, which a CLI verb that reads
# (``storyloom doc get``) never uses; so are the editor gate's names (its index, checks and
# merge), which a session that writes nothing never needs.
if TYPE_CHECKING:
    from storyloom.api.controller import ApiController, ApiStatus
    from storyloom.api.navigation import NavigationPort
    from storyloom.app.locks import LockService
    from storyloom.app.remote import RemoteAccess
    from storyloom.app.secrets import PasswordStore
    from storyloom.app.sync_once import SyncOutcome, SyncRequest
    from storyloom.app.sync_service import SyncService
    from storyloom.app.sync_state import SyncState
    from storyloom.progress import ProgressCallback
    from storyloom.project import BrokenLock, Editor, LockPolicy, Project, ProjectIndex
    from storyloom.store.read_view import ReadView
    from storyloom.sync import SyncEvent

log = logging.getLogger(__name__)


def _remote_settings(project: Project) -> Any:
    from storyloom.project import load_remote_settings

    return load_remote_settings(project.store)

# The revisions of each document this session's editor wrote, newest last, kept for origin_of:
# the revision asked about is the one just read, so the last few per document are plenty.
_WRITTEN_PER_DOCUMENT = 16


class SessionHost(Protocol):
    """What a session needs of the workspace that opened it (:class:`~storyloom.app.Workspace`)."""

    options: AppOptions

    @property
    def user(self) -> str: ...

    def session_closed(self, session: ProjectSession) -> None: ...


class ProjectSession:
    """One open project. Create it with :meth:`Workspace.open_session`; ``close()`` when done."""

    def __init__(
        self,
        workspace: SessionHost,
        project: Project,
        *,
        navigation: NavigationPort | None = None,
        lock_policy: LockPolicy | None = None,
        poll_interval: float = 0.25,
        api_server_options: dict[str, Any] | None = None,
        passwords: PasswordStore | None = None,
        sync_options: dict[str, Any] | None = None,
        remote_options: dict[str, Any] | None = None,
    ) -> None:
        self.workspace = workspace
        self.project = project
        self.events = EventBus()
        # The remote, the locks and the sync service are made on first use: opening the
        # password store can take a moment (the OS keyring), and a project without a remote, or
        # a CLI verb that only reads, never needs them.
        self._passwords = passwords
        self._sync_options = dict(sync_options or {})
        self._remote_options = dict(remote_options or {})
        self._remote: RemoteAccess | None = None
        self._locks: LockService | None = None
        self._sync: SyncService | None = None
        self._team_lock = threading.RLock()
        self._breaks = BreakNotices(lambda: self.project.store, lambda: self.locks.holder())
        self._break_listeners: list[Callable[[BrokenLock], None]] = []
        self._own_lock_policy = lock_policy is not None
        if lock_policy is not None:
            project.editor.lock_policy = lock_policy
        elif getattr(_remote_settings(project), "enabled", False):
            project.editor.lock_policy = self.locks.team_policy()
        self._origins: dict[int, Origin] = {}  # seq -> origin, for this editor's writes not yet published
        # doc id -> {rev: origin}: the last revisions this editor wrote, published or not (origin_of)
        self._written: dict[str, dict[str, Origin]] = {}
        self._origins_lock = threading.Lock()
        self._closed = False
        self._close_lock = threading.Lock()
        self._poll_interval = poll_interval
        # The follower starts with the first subscriber: a session nobody listens to (a CLI
        # verb) reads no feed.
        self._follower: ChangeFollower | None = None
        self._follower_lock = threading.Lock()
        self._unsubscribe_store = project.db.subscribe(self._on_store_change)
        self._navigation = navigation
        self._api_server_options = dict(api_server_options or {})
        self._api: ApiController | None = None
        # the API is off until start_api(): a headless caller may set options first
        self._api_started = False

    # ------------------------------------------------------------------ what the project offers
    @property
    def id(self) -> str:
        return self.project.id

    @property
    def name(self) -> str:
        return self.project.name

    @property
    def db(self) -> ReadView:
        """The project's store, for reads (every write of a document goes through ``editor``)."""
        return self.project.db

    def settings(self) -> dict[str, Any]:
        return self.project.settings()

    @property
    def editor(self) -> Editor:
        return self.project.editor

    @property
    def index(self) -> ProjectIndex:
        return self.project.editor.index

    def load_index_soon(self) -> threading.Thread:
        """Load the project index (its saved table and the changes since; built from every
        document when there is none) on a thread of its own and return it: the desktop app builds
        its window meanwhile, and the first question it asks of the index waits only for what is
        left of the load (the index answers under its lock). A failure is left for that question
        to meet again (and report)."""
        def load() -> None:
            try:
                self.index.refresh()
            except Exception:  # the first question asked on the GUI thread meets it again, and reports it
                log.debug("loading the index ahead failed", exc_info=True)

        thread = threading.Thread(target=load, name="storyloom-index-load", daemon=True)
        thread.start()
        return thread

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def api(self) -> ApiController:
        """The local API's controller (made on first use; serving starts with :meth:`start_api`)."""
        with self._team_lock:
            if self._api is None:
                from storyloom.api.controller import ApiController

                self._api = ApiController(self.workspace.options, self._navigation, on_status=self._on_api_status,
                                          **self._api_server_options)
            return self._api

    # ------------------------------------------------------------------ team: remote, locks, sync
    @property
    def remote(self) -> RemoteAccess:
        """The project's remote on this machine (settings, password, a client)."""
        with self._team_lock:
            if self._remote is None:
                from storyloom.app.remote import RemoteAccess

                self._remote = RemoteAccess(self.project, self._passwords, client_options=self._remote_options)
            return self._remote

    @property
    def locks(self) -> LockService:
        """Document locks; held under the remote user name when a remote is configured (the
        server checks that name), else under the workspace user."""
        with self._team_lock:
            if self._locks is None:
                from storyloom.app.locks import LockService, lock_holder

                workspace = self.workspace
                self._locks = LockService(self.project, self.remote, lock_holder(self.remote, lambda: workspace.user))
                self._locks.watch_server_docs(lambda doc: self._tell_breaks(self._breaks.take([doc])))
            return self._locks

    def on_lock_broken(self, callback: Callable[[BrokenLock], None]) -> Callable[[], None]:
        """Call ``callback(record)`` (on the thread that saw it) for each break of this
        machine's lock seen for the first time; returns the unsubscribe. The event stream gets
        :class:`LockBroken` as well."""
        self._break_listeners.append(callback)
        return lambda: self._break_listeners.remove(callback) if callback in self._break_listeners else None

    def _tell_breaks(self, records: list[BrokenLock]) -> None:
        for record in records:
            log.info("lock of %s broken by %s at %s", record.doc_id, record.by, record.at)
            self._post(LockBroken(record))
            for callback in list(self._break_listeners):
                try:
                    callback(record)
                except Exception:  # one listener must not keep the others from hearing it
                    log.exception("lock-broken listener %r failed", callback)

    @property
    def sync(self) -> SyncService:
        """The sync service (created here, not started: see :meth:`start_sync`)."""
        with self._team_lock:
            if self._sync is None:
                from storyloom.app.sync_service import SyncService

                self._sync = SyncService(self.project, self.remote, on_state=self._on_sync_state,
                                         after_pull=self.after_pull, **self._sync_options)
            return self._sync

    def start_sync(self) -> SyncState:
        """Start syncing in the background when a remote is configured and enabled (the app
        calls it when it opens the project; CLI verbs that only read do not). Returns the state."""
        from storyloom.app.sync_state import SyncState

        if self._closed or not self.remote.configured:
            return self._sync.state if self._sync is not None else SyncState()
        self.sync.start()
        return self.sync.state

    def sync_once(self, request: SyncRequest | None = None, *, on_event: Callable[[SyncEvent], None] | None = None,
                  progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> SyncOutcome:
        """One sync with the project's stored remote (``storyloom sync PROJECT``): a push and a
        pull as ``request`` says (:class:`~storyloom.app.sync_once.SyncRun`), then what follows
        a pull (:meth:`after_pull`) and a push of what that wrote. ``progress`` hears of the
        documents handled; setting ``cancel`` stops the replication. Raises
        :class:`~storyloom.app.remote.RemoteNotConfigured` without a remote or its password; a
        direction that failed is in the outcome, not raised."""
        from storyloom.app.sync_once import SyncRequest, SyncRun

        request = request or SyncRequest()
        with self.remote.open(auth=request.auth) as remote:
            run = SyncRun(self.project.store, remote, request.direction, request.options(), on_event=on_event,
                          progress=progress, after_pull=self.after_pull)
            return run.run(cancel)

    def sync_live(self, on_state: Callable[[SyncState], None], stop: threading.Event) -> SyncState | None:
        """Sync with the stored remote both ways, following it continuously whatever its interval
        says, until ``stop`` is set (``storyloom sync PROJECT --live``): a sync service of its
        own, whose every state goes to ``on_state``. Returns the last state before stopping.
        Raises :class:`~storyloom.app.remote.RemoteNotConfigured` without a remote."""
        from storyloom.app.sync_once import LiveRemote
        from storyloom.app.sync_service import SyncService

        if not self.remote.configured:
            self.remote.open()  # raises RemoteNotConfigured, which says what to run
        service = SyncService(self.project, LiveRemote(self.remote), on_state=on_state, after_pull=self.after_pull)
        final = None
        try:
            service.start()
            while not stop.wait(0.2):
                pass
            final = service.state
        finally:
            service.stop()
        return final

    def remote_settings_changed(self) -> None:
        """The remote settings were edited in this process: follow them (the lock policy, and a
        running sync service restarts with them)."""
        from storyloom.project import NoLocks

        with self._team_lock:
            if not self._own_lock_policy:
                self.project.editor.lock_policy = self.locks.team_policy() if self.remote.configured else NoLocks()
            sync = self._sync
        if sync is not None:
            sync.settings_changed()

    def after_pull(self, doc_ids: list[str]) -> dict[str, Any]:
        """What follows a pull (the sync service calls it on its thread; ``storyloom sync`` too):
        settle the provisional locks with the server, then merge the conflicts the pulled
        documents made when their leaves merge cleanly (through the editor: the same merged
        revision on every machine). Returns what happened, as JSON.

        Locks first: a pulled teammate's lock taken online beside our provisional one is a
        conflict whose merge would keep the winner's lock (ours, when our branch is longer); the
        server's lock must decide instead, so our lock is found lost (and released on our
        branch) before anything is merged. After the merge, a conflict that stays and whose
        winner is free (a teammate's released lost lock on a longer branch) while a losing leaf
        carries our lock gets our lock again on the server (``LockService.keep_held_locks``)."""
        notices = self.locks.confirm_provisional()
        if doc_ids:  # a lock that lost a write contested on a cluster, shown by this pull
            notices += self.locks.settle_contested_locks(doc_ids)
        for notice in notices:
            log.info("lock of %s: %s", notice.doc_id, notice.message)
            self._post(LockSettled(notice))
        broken = self._breaks.take_stored(doc_ids) if doc_ids else []
        self._tell_breaks(broken)
        from storyloom.project import auto_merge

        report = auto_merge(self.editor, doc_ids) if doc_ids else None
        if report is not None:
            for doc_id, rev in report.merged:
                log.info("merged the conflict of %s into %s", doc_id, rev)
            # What stays in conflict may have left our confirmed lock on a losing leaf only.
            kept = self.locks.keep_held_locks(report.conflicts)
            for notice in kept:
                log.info("lock of %s: %s", notice.doc_id, notice.message)
                self._post(LockSettled(notice))
            notices = [*notices, *kept]
        return {"merge": None if report is None else report.to_json(),
                "locks": [notice.to_json() for notice in notices],
                "broken": [record.to_json() for record in broken]}

    def _post(self, event: SessionEvent) -> None:
        """Publish ``event`` on the event thread, in order with the document changes (nobody
        listens when no follower runs: a CLI verb)."""
        follower = self._follower
        if follower is not None:
            follower.post(lambda: self.events.publish(event))

    def _on_sync_state(self, state: SyncState) -> None:
        # The sync service's threads, one call at a time: hand the state to the event thread
        # (in order with the document changes) and to the API's /events streams.
        event = SyncStateChanged(state)
        follower = self._follower
        if follower is not None:
            follower.post(lambda: self.events.publish(event))
        self.api.publish_status("sync", state.to_json())

    # ------------------------------------------------------------------ events
    def subscribe(self, callback: Callable[[SessionEvent], None]) -> Callable[[], None]:
        """``callback(event)`` on the session's event thread for every later event. Events are
        not replayed: a subscriber reads the current state first (``api.status``, the documents
        through ``db``), then follows the events."""
        unsubscribe = self.events.subscribe(callback)
        self._ensure_follower()
        return unsubscribe

    def wait_for_events(self, timeout: float = 5.0) -> bool:
        """Block until every change committed so far was published; False on timeout."""
        follower = self._follower
        return True if follower is None else follower.catch_up(timeout)

    def _ensure_follower(self) -> ChangeFollower:
        with self._follower_lock:
            if self._follower is None:
                self._follower = ChangeFollower(
                    self.project.db, self._deliver, poll_interval=self._poll_interval, include_docs=True,
                    name=f"storyloom-session-{self.project.id[:8]}",
                )
                self._follower.start()
            return self._follower

    def origin_of(self, doc_id: str, rev: str, timeout: float = 1.0) -> Origin:
        """Where revision ``rev`` of ``doc_id`` came from: ``local`` or ``import`` when this
        session's editor wrote it, ``remote`` otherwise (replication, another process).

        Unlike :class:`DocumentChanged`, this does not wait for the changes feed: a revision read
        from the store before its event was published gets the same answer as after. A write of
        ``doc_id`` by this editor still in flight on another thread (committed, its notification
        not run yet) is waited for, up to ``timeout`` seconds, as the event thread waits for it."""
        editor = self.project.editor
        deadline = time.monotonic() + timeout
        while True:
            with self._origins_lock:
                origin = self._written.get(doc_id, {}).get(rev)
            if origin is not None:
                return origin
            # (a thread asking in the middle of its own write would only wait for itself)
            if (not editor.is_writing(doc_id) or editor.writing_intent() is not None
                    or time.monotonic() >= deadline):
                return Origin.REMOTE
            time.sleep(0.005)

    def _on_store_change(self, change: dict[str, Any]) -> None:
        # Runs on the writing thread: the editor's intent, if any, belongs to this very write.
        from storyloom.project import WriteIntent

        intent = self.project.editor.writing_intent()
        imported = intent in (WriteIntent.IMPORT, WriteIntent.RESTORE)
        origin = None if intent is None else Origin.IMPORT if imported else Origin.LOCAL
        follower = self._follower
        if origin is not None:
            with self._origins_lock:
                written = self._written.setdefault(str(change["id"]), {})
                written[str(change["rev"])] = origin
                if len(written) > _WRITTEN_PER_DOCUMENT:
                    del written[next(iter(written))]
                if follower is not None:
                    self._origins[int(change["seq"])] = origin
        if follower is not None:
            follower.wake()

    def _deliver(self, rows: list[dict[str, Any]]) -> int:
        from storyloom.project import collection_of_revision

        db = self.project.db
        editor = self.project.editor
        taken = 0
        for row in rows:
            doc_id, seq = row["id"], int(row["seq"])
            if not doc_id.startswith("_local/"):
                rev = (row.get("changes") or [{}])[0].get("rev", "")
                deleted = bool(row.get("deleted"))
                with self._origins_lock:
                    origin = self._origins.get(seq)
                if origin is None:
                    if editor.is_writing(doc_id):
                        # Committed, but the editor's notification has not run yet: wait for it
                        # (it wakes the follower), so the change gets its true origin.
                        break
                    origin = Origin.REMOTE
                collection = collection_of_revision(db, doc_id, rev, deleted, row.get("doc"))
                self.events.publish(DocumentChanged(doc_id, rev, seq, collection, deleted, origin))
            taken += 1
        if taken:
            self._forget_origins_through(int(rows[taken - 1]["seq"]))
        return taken

    def _forget_origins_through(self, seq: int) -> None:
        """Drop the origins of seqs already published (a write the feed coalesced into a later
        one is never listed, so its entry goes here too)."""
        with self._origins_lock:
            for key in [key for key in self._origins if key <= seq]:
                del self._origins[key]

    # ------------------------------------------------------------------ the local API
    def start_api(self) -> ApiStatus:
        """Serve the local API for this project if the options enable it (a failure is reported
        as an :class:`ApiStateChanged` event and in the returned status, never raised)."""
        self._api_started = True
        return self.api.project_opened(self.project)

    def options_changed(self) -> ApiStatus:
        """The workspace's options were edited: start, stop or restart the API to match (a
        closed session keeps its API stopped)."""
        with self._close_lock:
            if self._closed:
                return self.api.status
            self.api.options_changed(self.workspace.options)
        return self.api.project_opened(self.project) if self._api_started else self.api.status

    def _on_api_status(self, status: ApiStatus) -> None:
        event = ApiStateChanged(status.running, status.url, status.error)
        follower = self._follower
        if follower is not None:
            follower.post(lambda: self.events.publish(event))

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Stop the API, publish the changes not yet published and :class:`SessionClosed`, close
        the store. Safe to call twice, from any thread."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        sync = self._sync
        if sync is not None:
            sync.stop()  # first: it writes to the store and reports to the API
        with self._close_lock:
            if self._api is not None:
                self._api.shutdown()
        self._unsubscribe_store()
        follower = self._follower
        if follower is not None:
            follower.catch_up(timeout=5.0)
            follower.post(lambda: self.events.publish(SessionClosed(self.project.id)))
            follower.stop()
        self.project.close()  # the index first (when used), so the next opening reads only what changed
        self.workspace.session_closed(self)

    def __enter__(self) -> ProjectSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProjectSession({self.project!r})"
