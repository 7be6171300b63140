"""What the sync service shows: :class:`SyncState`, and how a replication error becomes one.

The state is what a status bar, ``storyloom sync`` and the API's ``/events`` stream display:

- ``off``: no remote is configured, it is disabled, or the service is stopped;
- ``connecting``: started, not yet through to the server;
- ``syncing``: documents are moving (``progress``);
- ``idle``: up to date (``last_sync``);
- ``offline``: the server cannot be reached (``cause``); retried by itself at ``next_retry``;
- ``error``: something only a person can fix (``cause`` and ``fix``): credentials, membership,
  a database of another project, a missing database, a server that drops what is pushed
  (``dropped_writes``), a document too large for the server
  (``too_large`` names each document, its size and the setting to raise). Not retried until
  the settings change or the user asks for a sync.

``problem`` names the kind of trouble for programs (``network``, ``credentials``,
``membership``, ``identity``, ``database``, ``too_large``, ``dropped_writes``, ``redirect``, ``config``,
``internal``); ``cause`` and ``fix`` are sentences for people.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Literal

from storyloom.errors import StoryloomError
from storyloom.store import Damaged, DiskFull
from storyloom.sync import (
    AccessDenied,
    DatabaseMissing,
    InvalidRemote,
    ProjectMismatch,
    Redirected,
    SyncError,
    WritesDropped,
)
from storyloom.sync.errors import DROPPED_WRITES_FIX
from storyloom.sync.peers import LocalStoreError

SyncKind = Literal["off", "connecting", "syncing", "idle", "offline", "error"]
KINDS: tuple[str, ...] = ("off", "connecting", "syncing", "idle", "offline", "error")

PROXY_SETTING = "the reverse proxy's request body limit (nginx: client_max_body_size)"
COUCHDB_SETTING = "CouchDB's [couchdb] max_document_size and [chttpd] max_http_request_size"


@dataclass(frozen=True, slots=True)
class SyncProgress:
    """Documents moved in the current round of one direction (``left`` and ``total`` when the
    server says: the counts a progress bar shows, as ``storyloom.progress`` events carry them)."""

    direction: str
    done: int
    left: int | None = None
    total: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"direction": self.direction, "done": self.done, "left": self.left, "total": self.total}


@dataclass(frozen=True, slots=True)
class TooLargeDocument:
    """A document the server (or its proxy) refused with HTTP 413, even alone."""

    doc_id: str
    rev: str | None
    size: int | None
    #: The limit to raise: the proxy's (nginx ``client_max_body_size``) or CouchDB's.
    setting: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "rev": self.rev, "size": self.size, "setting": self.setting}


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return _dt.datetime.fromtimestamp(epoch, _dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class SyncState:
    """One snapshot of the sync service, for display. Times are epoch seconds (wall clock)."""

    kind: SyncKind = "off"
    #: One line for a status bar.
    detail: str = ""
    cause: str | None = None
    fix: str | None = None
    #: Local changes not yet pushed (from the push checkpoint to the store's update seq).
    pending: int = 0
    last_sync: float | None = None
    next_retry: float | None = None
    progress: SyncProgress | None = None
    problem: str | None = None
    too_large: tuple[TooLargeDocument, ...] = ()
    live: bool = False
    #: The remote database URL (no credentials), None when no remote is configured.
    remote: str | None = None

    def same_display(self, other: SyncState | None) -> bool:
        """Whether ``other`` shows the same thing."""
        return other is not None and self == other

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.kind,
            "detail": self.detail,
            "cause": self.cause,
            "fix": self.fix,
            "problem": self.problem,
            "pending": self.pending,
            "last_sync": _iso(self.last_sync),
            "next_retry": _iso(self.next_retry),
            "progress": None if self.progress is None else self.progress.to_json(),
            "too_large": [doc.to_json() for doc in self.too_large],
            "live": self.live,
            "remote": self.remote,
        }


@dataclass(frozen=True, slots=True)
class Trouble:
    """How one failure is shown: ``kind`` is ``offline`` (retried by itself) or ``error``."""

    kind: SyncKind
    problem: str
    cause: str
    fix: str | None = None
    too_large: tuple[TooLargeDocument, ...] = field(default=())


def too_large_setting(reason: str | None) -> str:
    """Which limit refused a document: a proxy's HTML 413 page (its title is the reason) or
    CouchDB's own JSON answer."""
    text = (reason or "").lower()
    if "request entity too large" in text or "content too large" in text or "payload too large" in text:
        return PROXY_SETTING
    return COUCHDB_SETTING


def too_large_trouble(docs: tuple[TooLargeDocument, ...], project: str) -> Trouble:
    first = docs[0]
    size = f"{first.size} bytes" if first.size is not None else "size unknown"
    more = f" (and {len(docs) - 1} more)" if len(docs) > 1 else ""
    cause = f"document {first.doc_id!r} ({size}) is too large for the server{more}; everything else syncs"
    fix = (
        f"raise {first.setting} above {first.size or 'its size'} bytes on the server, or make the "
        f"document smaller; then sync again (Sync now, or `storyloom sync {project}`)"
    )
    return Trouble("error", "too_large", cause, fix, docs)


def explain(error: BaseException, *, project: str, username: str | None, database: str | None) -> Trouble:
    """The state a failure puts the service in, with its cause and the fix for a person."""
    message = getattr(error, "message", None) or str(error)
    db = repr(database) if database else "the database"
    if isinstance(error, ProjectMismatch):
        return Trouble(
            "error", "identity", message,
            f"use another database for this project (`storyloom remote set {project} --database NAME`), "
            f"or, to work on {error.remote_name or 'the other project'!r}, join it with `storyloom clone`",
        )
    if isinstance(error, AccessDenied):
        if error.action == "credentials":
            who = f"user {username!r}" if username else "a user"
            return Trouble(
                "error", "credentials", message,
                f"check the user name and password: `storyloom remote set {project} --username USER` asks "
                f"for the password again (or set STORYLOOM_REMOTE_PASSWORD); {who} must exist on the server",
            )
        if error.action == "create":
            return Trouble(
                "error", "database", message,
                f"ask a server admin to create {db} (`storyloom remote setup {project}` with admin credentials)",
            )
        return Trouble(
            "error", "membership", message,
            f"ask an admin of the server to add {username or 'your user'!r} to the members of {db} "
            f"(`storyloom remote invite {project} {username or 'USER'}` in easy mode)",
        )
    if isinstance(error, DatabaseMissing):
        return Trouble(
            "error", "database", message,
            f"ask a server admin to create {db} and add you to its members (`storyloom remote setup "
            f"{project}` with admin credentials does it), or check the database name",
        )
    if isinstance(error, Redirected):
        fix = f"set the remote to {error.suggested_url}" if error.suggested_url else "check the server URL"
        return Trouble("error", "redirect", message, f"{fix}: `storyloom remote set {project} --server URL`")
    if isinstance(error, WritesDropped):
        return Trouble(
            "error", "dropped_writes", message,
            f"{DROPPED_WRITES_FIX}; then sync again (Sync now, or `storyloom sync {project}`): the "
            f"{error.count} revision(s) are still on this machine",
        )
    if isinstance(error, LocalStoreError) and isinstance(error.store_error, Damaged | DiskFull):
        error = error.store_error
    if isinstance(error, Damaged):
        return Trouble(
            "error", "damaged", message,
            f"this machine's copy is damaged, not the server's: `storyloom check {project}` names every "
            f"damaged document; `storyloom salvage {project} NEWNAME` or joining the project again from the "
            "server gets the work back",
        )
    if isinstance(error, DiskFull):
        return Trouble("error", "disk_full", message, "free space on this disk; Sync now tries again")
    if isinstance(error, InvalidRemote):
        return Trouble("error", "config", message, f"fix the remote settings: `storyloom remote set {project} ...`")
    if isinstance(error, SyncError):
        if error.retryable:
            return Trouble("offline", "network", message)
        return Trouble("error", "internal", message, "see the log; Sync now tries again")
    if isinstance(error, StoryloomError):
        # Not configured, no password: the error says what to run.
        return Trouble("error", "config", message, message)
    return Trouble("error", "internal", f"internal error: {error!r}", "see the log; Sync now tries again")
