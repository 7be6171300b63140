"""One sync of a store with a remote database: the one workflow under ``storyloom sync`` and the
sync service's interval round.

- :class:`SyncRequest`: what is asked (the direction, page and request sizes, retries, live, the
  way credentials are sent) and the replication options that follow from it.
- :class:`SyncRun`: one replication (a push, then a pull; or one direction; with ``live``, both
  at once until cancelled). In a project (``after_pull`` given: the session's
  :meth:`~storyloom.app.session.ProjectSession.after_pull`) a pull that caught up is followed by
  the after-pull work with the documents the pull wrote (provisional locks settled, clean
  conflicts merged, breaks of our locks told) and, syncing both ways, by a push of whatever that
  work wrote, so the server has it at once. :meth:`SyncRun.run` returns a :class:`SyncOutcome`:
  each direction's status, the after-pull report, and what went wrong after the sync itself
  went through (``warnings``).
- :meth:`ProjectSession.sync_once <storyloom.app.session.ProjectSession.sync_once>` runs one with
  the project's stored remote; :func:`sync_store` with a database URL (``storyloom sync
  --remote``: no after-pull work); :class:`~storyloom.app.sync_service.SyncService` runs its
  interval pull as a ``SyncRun`` (direction ``pull``; its after-pull work follows its own
  schedule, and its live push sends what that work writes).

A run given a ``cancel`` event replicates on a thread of its own and stops within a tenth of a
second of the event being set (a front end sets it on Ctrl-C).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from storyloom.errors import StoryloomError
from storyloom.progress import ProgressCallback
from storyloom.project import SETTINGS_ID
from storyloom.store import Database
from storyloom.sync import (
    IdentityDoc,
    LocalPeer,
    ReplicationOptions,
    Sync,
    capped_backoff,
    make_pull,
    make_push,
    push,
)
from storyloom.sync.peers import DEFAULT_MAX_REQUEST_BYTES
from storyloom.sync.remote import RemoteDatabase

if TYPE_CHECKING:
    from storyloom.sync import ReplicationStatus, Replicator, SyncEvent
    from storyloom.sync.remote import AuthMode

#: Where a project keeps its identity: a remote database of another project is refused.
PROJECT_IDENTITY = IdentityDoc(doc_id=SETTINGS_ID, id_field="projectId", name_field="projectName")
DIRECTIONS = ("both", "push", "pull")

T = TypeVar("T")


@dataclass(frozen=True)
class SyncRequest:
    """What one sync is asked to do. ``batch_size`` None: pages sized by bytes; ``retries``:
    retries after network errors, with backoff (unlimited when ``live``)."""

    direction: str = "both"
    batch_size: int | None = None
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    retries: int = 3
    live: bool = False
    auth: AuthMode = "basic"

    def options(self) -> ReplicationOptions:
        """The replication options: a remote database of another project is refused."""
        return ReplicationOptions(
            batch_size=self.batch_size,
            max_request_bytes=self.max_request_bytes,
            live=self.live,
            retry=self.live or self.retries > 0,
            max_retries=None if self.live else self.retries,
            backoff=capped_backoff(60.0 if self.live else 10.0),
            identity=PROJECT_IDENTITY,
        )


class PullTarget(LocalPeer):
    """The local store as a pull's target, telling ``on_written`` which revisions it wrote."""

    def __init__(self, db: Database, on_written: Callable[[list[tuple[str, str]]], None]) -> None:
        super().__init__(db)
        self._on_written = on_written

    def write(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        failures = super().write(docs)
        failed = {f.get("id") for f in failures}
        written = [(str(d["_id"]), str(d.get("_rev"))) for d in docs if d.get("_id") not in failed]
        if written:
            self._on_written(written)
        return failures


def pull_replicator(store: Database, remote: RemoteDatabase, options: ReplicationOptions, *,
                    on_event: Callable[[SyncEvent], None] | None = None,
                    on_written: Callable[[list[tuple[str, str]]], None]) -> Replicator:
    """A pull (not started) that tells ``on_written`` what it wrote (the sync service's live pull)."""
    return make_pull(remote, store, options, on_event, target=PullTarget(store, on_written))


@dataclass
class SyncOutcome:
    """What a :class:`SyncRun` did. ``status`` is the two directions' ``SyncStatus`` for
    ``both``, else the one direction's ``ReplicationStatus``; ``remote`` the database's URL;
    ``after_pull`` the session's after-pull report (``None`` when none ran); ``warnings`` what
    failed after the sync itself went through."""

    direction: str
    status: Any
    remote: str
    after_pull: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def parts(self) -> list[tuple[str, ReplicationStatus]]:
        """``(direction, status)`` of each direction asked for, push first."""
        if self.direction == "both":
            return [("push", self.status.push), ("pull", self.status.pull)]
        return [(self.direction, self.status)]

    @property
    def pulled(self) -> ReplicationStatus | None:
        return dict(self.parts).get("pull")

    @property
    def errors(self) -> list[tuple[str, ReplicationStatus]]:
        """The directions that stopped on an error."""
        return [(name, st) for name, st in self.parts if st.state == "error"]

    @property
    def live(self) -> bool:
        return any(st.live for _, st in self.parts)

    @property
    def cancelled(self) -> bool:
        return any(st.state == "cancelled" for _, st in self.parts)

    @property
    def failed(self) -> bool:
        """A direction failed, or a one-shot sync was cancelled (a live one ends that way)."""
        return bool(self.errors) or (self.cancelled and not self.live)

    @property
    def partial(self) -> bool:
        """Some documents were refused or too large (listed in each direction's failures)."""
        return any(st.doc_write_failures for _, st in self.parts)


def run_until(run: Callable[[], T], stop: Callable[[], None], cancel: threading.Event | None) -> T:
    """``run()``; with ``cancel``, on a thread of its own, and ``stop()`` once ``cancel`` is set."""
    if cancel is None:
        return run()
    done: list[T] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            done.append(run())
        except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=target, name="storyloom-sync-once", daemon=True)
    thread.start()
    stopped = False
    while thread.is_alive():
        thread.join(0.1)
        if not stopped and cancel.is_set():
            stop()
            stopped = True
    if failed:
        raise failed[0]
    return done[0]


class SyncRun:
    """One sync of ``store`` with ``remote`` (see the module): ``direction`` ``both``, ``push`` or
    ``pull``; ``on_event`` hears every replication event, ``progress`` the documents handled;
    ``after_pull(doc_ids)`` follows a pull that caught up; ``on_written`` hears the revisions
    the pull writes, as it writes them."""

    def __init__(
        self,
        store: Database,
        remote: RemoteDatabase,
        direction: str = "both",
        options: ReplicationOptions | None = None,
        *,
        on_event: Callable[[SyncEvent], None] | None = None,
        progress: ProgressCallback | None = None,
        after_pull: Callable[[list[str]], dict[str, Any]] | None = None,
        on_written: Callable[[list[tuple[str, str]]], None] | None = None,
    ) -> None:
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        self.store = store
        self.remote = remote
        self.direction = direction
        self.options = options or ReplicationOptions(identity=PROJECT_IDENTITY)
        self.after_pull = after_pull
        self._on_written = on_written
        self._pulled: set[str] = set()
        self._lock = threading.Lock()
        target = PullTarget(store, self._written)
        self._runner: Sync | Replicator
        if direction == "both":
            self._runner = Sync(store, remote, self.options, on_event=on_event, progress=progress, pull_target=target)
        elif direction == "push":
            self._runner = make_push(store, remote, self.options, on_event, progress=progress)
        else:
            self._runner = make_pull(remote, store, self.options, on_event, progress=progress, target=target)

    def _written(self, written: list[tuple[str, str]]) -> None:
        with self._lock:
            self._pulled.update(doc_id for doc_id, _rev in written if not doc_id.startswith("_local/"))
        if self._on_written is not None:
            self._on_written(written)

    def run(self, cancel: threading.Event | None = None) -> SyncOutcome:
        """Replicate (stopping when ``cancel`` is set), then the after-pull work."""
        status = run_until(self._runner.run, self._runner.cancel, cancel)
        outcome = SyncOutcome(self.direction, status, self.remote.db_url)
        pulled = outcome.pulled
        if self.after_pull is not None and pulled is not None and pulled.state == "complete":
            self._follow_pull(outcome)
        return outcome

    def cancel(self) -> None:
        """Stop the replication (from any thread); ``run`` returns with the directions cancelled."""
        self._runner.cancel()

    def _follow_pull(self, outcome: SyncOutcome) -> None:
        assert self.after_pull is not None
        with self._lock:
            ids = sorted(self._pulled)
        seq = self.store.update_seq
        try:
            outcome.after_pull = self.after_pull(ids)
        except StoryloomError as exc:  # the sync itself went through: say what did not
            outcome.warnings.append(f"after the pull: {exc}")
            return
        if self.direction == "both" and self.store.update_seq != seq:
            status = push(self.store, self.remote, self.options)
            if status.state != "complete":
                outcome.warnings.append(f"pushing the merge results failed: {status.last_error_message}")


class LiveRemote:
    """A project's remote, followed continuously whatever its interval says (``storyloom sync
    PROJECT --live``): what :class:`~storyloom.app.sync_service.SyncService` needs of it."""

    def __init__(self, remote: Any) -> None:
        self._remote = remote

    @property
    def settings(self) -> Any:
        settings = self._remote.settings
        return None if settings is None else dataclasses.replace(settings, live=True)

    @property
    def username(self) -> str | None:
        name: str | None = self._remote.username
        return name

    def open(self, **client_options: Any) -> RemoteDatabase:
        client: RemoteDatabase = self._remote.open(**client_options)
        return client


def open_store_file(path: str | Path) -> Database:
    """An existing Storyloom store file, for a sync by path (``storyloom sync FILE --remote``);
    raises :class:`~storyloom.store.StoreError` (``NotAStore``) for a missing file or another
    program's, which it leaves untouched."""
    return Database(str(path), create=False)


def sync_store(store: Database, url: Any, request: SyncRequest, *, username: str | None = None,
               password: str | None = None, on_event: Callable[[SyncEvent], None] | None = None,
               progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> SyncOutcome:
    """Sync ``store`` with the database at ``url`` (a URL or a parsed ``RemoteURL``), as
    ``request`` asks, with no after-pull work (``storyloom sync --remote``: a store file, or a
    project synced with a database other than its own)."""
    with RemoteDatabase(url, username=username, password=password, auth=request.auth) as remote:
        return SyncRun(store, remote, request.direction, request.options(), on_event=on_event,
                       progress=progress).run(cancel)
