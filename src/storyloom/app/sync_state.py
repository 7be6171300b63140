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
``damaged``, ``disk_full``, ``internal``); ``cause`` is a sentence for people, ``fix`` the way out
as a value (:class:`storyloom.errors.Fix`) that each front end says in its words.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Literal

from storyloom.errors import Fix, StoryloomError
from storyloom.store import Damaged, DiskFull
from storyloom.sync import AccessDenied, SyncError, WritesDropped
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
    #: The way out (a front end says it in its words: ``to_json`` in neutral ones).
    fix: Fix | None = None
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
            "fix": None if self.fix is None else self.fix.words(),
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
    fix: Fix | None = None
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
    fix = Fix("raise_limit", setting=first.setting, size=first.size, then=Fix("sync_again", project=project))
    return Trouble("error", "too_large", cause, fix, docs)


#: The kind of trouble (``problem``) of an error, by its code (a class's or a parent's).
PROBLEMS: dict[str, str] = {
    "project_mismatch": "identity",
    "database_missing": "database",
    "redirected": "redirect",
    "writes_dropped": "dropped_writes",
    "damaged": "damaged",
    "disk_full": "disk_full",
    "invalid_remote": "config",
    "remote_not_configured": "config",
}
#: An access refused, by what was refused (``AccessDenied.action``).
ACCESS_PROBLEMS: dict[str, str] = {"credentials": "credentials", "create": "database"}


def _problem(error: StoryloomError) -> str | None:
    for cls in type(error).__mro__:
        problem = PROBLEMS.get(getattr(cls, "code", ""))
        if problem is not None:
            return problem
    return None


def explain(error: BaseException, *, project: str, username: str | None, database: str | None) -> Trouble:
    """The state a failure puts the service in: ``offline`` (retried by itself) or ``error``, the
    kind of trouble, the error's cause and its fix (with the project, the user and the database
    filled in where the error did not know them). No words: the front ends say the fix."""
    known = {"project": project, "username": username, "database": database}
    if isinstance(error, LocalStoreError) and isinstance(error.store_error, Damaged | DiskFull):
        error = error.store_error
    if not isinstance(error, StoryloomError):
        return Trouble("error", "internal", f"internal error: {error!r}", Fix("see_log", project=project))
    cause = error.cause
    if isinstance(error, AccessDenied):
        fix = error.fix.filled(**known) if error.fix is not None else None
        return Trouble("error", ACCESS_PROBLEMS.get(error.action, "membership"), cause, fix)
    if isinstance(error, WritesDropped):
        return Trouble("error", "dropped_writes", cause, Fix("upgrade_server", then=Fix("sync_again", project=project)))
    if isinstance(error, Damaged):
        return Trouble("error", "damaged", cause, Fix("recover_damaged", project=project, synced=True))
    problem = _problem(error)
    if problem is None and isinstance(error, SyncError):
        if error.retryable:
            return Trouble("offline", "network", cause)
        return Trouble("error", "internal", cause, Fix("see_log", project=project))
    fix = error.fix if error.fix is not None else Fix("fix_remote") if problem == "config" else None
    return Trouble("error", problem or "config", cause, fix.filled(**known) if fix is not None else None)
