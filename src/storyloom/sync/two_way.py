"""The entry points a caller (CLI, GUI sync service) uses: ``push``, ``pull`` and ``Sync``.

``Sync(db, remote)`` runs a push and then a pull (``run()``), or both directions at once and
forever with ``live=True`` (``start()`` … ``cancel()``). Each direction gets its own HTTP
client, so cancelling one never disturbs the caller's :class:`RemoteDatabase`.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from storyloom.progress import ProgressCallback
from storyloom.sync.errors import AccessDenied, SyncError, WritesDropped
from storyloom.sync.peers import LocalPeer, RemotePeer
from storyloom.sync.remote import AuthMode, RemoteDatabase
from storyloom.sync.replication_state import EventCallback, ReplicationOptions, ReplicationStatus
from storyloom.sync.replicator import Replicator

if TYPE_CHECKING:
    from storyloom.store import Database


def open_remote(
    url: str,
    *,
    username: str | None = None,
    password: str | None = None,
    auth: AuthMode = "basic",
    **client_options: Any,
) -> RemoteDatabase:
    """Validate ``url`` (raises InvalidRemote with a clear message) and make a client."""
    return RemoteDatabase(url, username=username, password=password, auth=auth, **client_options)


def _options(options: ReplicationOptions | None, overrides: dict[str, Any]) -> ReplicationOptions:
    base = options or ReplicationOptions()
    return dataclasses.replace(base, **overrides) if overrides else base


def _remote_peer(remote: RemoteDatabase, options: ReplicationOptions) -> RemotePeer:
    return RemotePeer(
        remote.clone(),
        max_request_bytes=options.max_request_bytes,
        heartbeat_ms=options.heartbeat_ms,
        owns_client=True,
    )


def make_push(
    db: Database,
    remote: RemoteDatabase,
    options: ReplicationOptions | None = None,
    on_event: EventCallback | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> Replicator:
    """A replicator from the local store to the remote database (not started); ``progress``
    hears of the documents handled (phase ``"push"``)."""
    opts = options or ReplicationOptions()
    return Replicator(LocalPeer(db), _remote_peer(remote, opts), opts, direction="push", on_event=on_event,
                      progress=progress)


def make_pull(
    remote: RemoteDatabase,
    db: Database,
    options: ReplicationOptions | None = None,
    on_event: EventCallback | None = None,
    *,
    progress: ProgressCallback | None = None,
    target: LocalPeer | None = None,
) -> Replicator:
    """A replicator from the remote database to the local store (not started); ``progress``
    hears of the documents handled (phase ``"pull"``, with the total the server gives).
    ``target`` is the local store's peer when the caller needs its own (one that notes what the
    pull wrote); by default a plain :class:`LocalPeer` of ``db``."""
    opts = options or ReplicationOptions()
    return Replicator(_remote_peer(remote, opts), target if target is not None else LocalPeer(db), opts,
                      direction="pull", on_event=on_event, progress=progress)


def push(
    db: Database,
    remote: RemoteDatabase,
    options: ReplicationOptions | None = None,
    *,
    on_event: EventCallback | None = None,
    progress: ProgressCallback | None = None,
    **overrides: Any,
) -> ReplicationStatus:
    """Replicate the local store into the remote database once; return the final status."""
    return make_push(db, remote, _options(options, overrides), on_event, progress=progress).run()


def pull(
    remote: RemoteDatabase,
    db: Database,
    options: ReplicationOptions | None = None,
    *,
    on_event: EventCallback | None = None,
    progress: ProgressCallback | None = None,
    **overrides: Any,
) -> ReplicationStatus:
    """Replicate the remote database into the local store once; return the final status."""
    return make_pull(remote, db, _options(options, overrides), on_event, progress=progress).run()


@dataclass
class SyncStatus:
    """Both directions of a sync. ``state`` sums them up for a status bar."""

    push: ReplicationStatus
    pull: ReplicationStatus

    @property
    def state(self) -> str:
        states = {self.push.state, self.pull.state}
        for state in ("error", "cancelled", "active", "paused"):
            if state in states:
                return state
        if states == {"complete"}:
            return "complete"
        return "idle" if "idle" in states else next(iter(states))

    @property
    def ok(self) -> bool:
        return self.push.ok and self.pull.ok

    @property
    def last_error(self) -> SyncError | None:
        return self.pull.last_error or self.push.last_error

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "state": self.state,
            "push": self.push.to_json(),
            "pull": self.pull.to_json(),
        }


class Sync:
    """Two-way sync of a local store with a remote database.

    One-shot (``live=False``): ``run()`` pushes, then pulls. Live: both directions run at
    once and keep following changes until ``cancel()``; network errors are retried with
    backoff (``retry=None``, the default, means: retry in live mode only). ``start()`` runs either mode in the
    background; ``status`` and ``on_event`` report progress. ``pull_target``: the local store's
    peer for the pull (see :func:`make_pull`).
    """

    def __init__(
        self,
        db: Database,
        remote: RemoteDatabase,
        options: ReplicationOptions | None = None,
        *,
        on_event: EventCallback | None = None,
        progress: ProgressCallback | None = None,
        pull_target: LocalPeer | None = None,
        **overrides: Any,
    ) -> None:
        opts = _options(options, overrides)
        self.options = opts
        self.db = db
        self.remote = remote
        self.on_event = on_event
        self.push_replicator = make_push(db, remote, opts, on_event, progress=progress)
        self.pull_replicator = make_pull(remote, db, opts, on_event, progress=progress, target=pull_target)
        self._thread: threading.Thread | None = None
        self._cancelled = threading.Event()
        self._done = threading.Event()

    @property
    def status(self) -> SyncStatus:
        return SyncStatus(push=self.push_replicator.status, pull=self.pull_replicator.status)

    def run(self) -> SyncStatus:
        """Blocking: one-shot push then pull, or live until cancelled."""
        try:
            if self.options.live:
                self.push_replicator.start()
                self.pull_replicator.start()
                self.push_replicator.wait()
                self.pull_replicator.wait()
            else:
                pushed = self.push_replicator.run()
                if self._cancelled.is_set():
                    self.pull_replicator.cancel()
                elif pushed.state == "error" and not _pull_still_useful(pushed.last_error):
                    pass  # the same failure would stop the pull: report it once
                else:
                    self.pull_replicator.run()
        finally:
            self.push_replicator.close()
            self.pull_replicator.close()
            self._done.set()
        return self.status

    def start(self) -> threading.Thread:
        if self._thread is not None:
            raise RuntimeError("this sync was already started")
        self._thread = threading.Thread(target=self.run, name="storyloom-sync", daemon=True)
        self._thread.start()
        return self._thread

    def cancel(self) -> None:
        self._cancelled.set()
        self.push_replicator.cancel()
        self.pull_replicator.cancel()

    def wait(self, timeout: float | None = None) -> SyncStatus:
        self._done.wait(timeout)
        return self.status

    @property
    def done(self) -> bool:
        return self._done.is_set()


def _pull_still_useful(error: SyncError | None) -> bool:
    """After a failed push, a pull can still work when only writing was refused, or when the
    server dropped what was pushed (it still serves what it holds)."""
    return isinstance(error, WritesDropped) or (isinstance(error, AccessDenied) and error.action in ("write", "create"))
