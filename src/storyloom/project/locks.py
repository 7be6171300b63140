"""Locks: the policy the editor's gate asks before every write, and how a lock reads in a document.

The gate does not know how locks are kept or taken: it asks a :class:`LockPolicy`, which the
session injects. :class:`NoLocks` allows every write (a project used alone, imports, tests);
:class:`TeamLocks` enforces the team rules locally, the same rules the server's
``validate_doc_update`` enforces (see docs/locks-and-conflicts.md).

A lock lives in the document itself, as Drafft keeps it: ``locked`` (bool), ``lockedBy`` (the
holder, ``"nobody"`` when free), ``lockedAt`` (ISO-8601 UTC or null) and, after someone broke
it, ``lockBroken`` (``{"by", "holder", "since", "at"}``, cleared by the next lock). The server
can check only fields of the document it is asked to write, which is why the lock is not a
document of its own. Taking a lock on the server (compare-and-swap) is
:class:`storyloom.app.locks.LockService`'s job; this module is the pure rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from storyloom.errors import Fix, StoryloomError
from storyloom.project.checking import ValidationError
from storyloom.project.collections import FOLDER_TYPE, SETTINGS_ID
from storyloom.project.dates import now_iso
from storyloom.project.documents import UNLOCKED_BY

#: The fields that hold a document's lock; only the lock intents change them.
LOCK_FIELDS: tuple[str, ...] = ("locked", "lockedBy", "lockedAt", "lockBroken")

# The editor's WriteIntent values, by value: the editor imports this module, not the reverse.
_LOCK = "lock"
_UNLOCK = "unlock"
_BREAK = "break-lock"
_LOCK_INTENTS = (_LOCK, _UNLOCK, _BREAK)
# Writes that bring documents in as they are (an import, a restore): nothing is held yet.
_BULK_INTENTS = ("import", "restore")
# Edits that take the lock of a free document when a lock is required to edit. A move or a
# delete does not (a move of one document can rewrite its siblings' sort keys); a conflict
# resolution carries the lock the merge decided.
_AUTO_LOCK_INTENTS = ("update", "rename")
_RESOLVE = "resolve"


class LockRefused(StoryloomError):
    """A write to a document that someone else holds the lock of (the CLI exits 3)."""

    code = "document_locked"
    fixes = ("break_lock",)

    def __init__(self, doc_id: str, holder: str, since: str | None = None, *, message: str | None = None,
                 fix: Fix | None = None) -> None:
        self.doc_id = doc_id
        self.holder = holder
        self.since = since
        when = f" since {since}" if since else ""
        super().__init__(
            message
            or f"document {doc_id!r} is locked by {holder}{when}: ask them to unlock it, or wait until they do",
            fix=fix,
        )


class LockStateError(StoryloomError):
    """A lock operation that does not fit the document's lock (breaking your own lock,
    unlocking a lock you do not hold without breaking it)."""

    code = "bad_lock_state"


@dataclass(frozen=True)
class BrokenLock:
    """The record a break leaves in the document: ``by`` broke ``holder``'s lock (held since
    ``since``) at ``at``."""

    doc_id: str
    by: str
    holder: str
    since: str | None
    at: str | None

    def describe(self) -> str:
        since = f" (held since {self.since})" if self.since else ""
        return f"{self.holder}'s lock{since} broken by {self.by} at {self.at}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "by": self.by, "holder": self.holder, "since": self.since, "at": self.at}


@dataclass(frozen=True)
class LockInfo:
    """Who holds a document's lock and since when; ``provisional`` while a lock taken offline
    is not yet confirmed by the server."""

    doc_id: str
    holder: str
    since: str | None
    provisional: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "holder": self.holder, "since": self.since, "provisional": self.provisional}


def lock_info(doc: dict[str, Any] | None) -> LockInfo | None:
    """The lock a document revision carries, or ``None`` when it is free (or deleted)."""
    if not doc or doc.get("_deleted") or doc.get("locked") is not True:
        return None
    holder = doc.get("lockedBy")
    if not isinstance(holder, str) or not holder or holder == UNLOCKED_BY:
        return None
    since = doc.get("lockedAt")
    return LockInfo(str(doc.get("_id", "")), holder, since if isinstance(since, str) else None)


def broken_lock(doc: dict[str, Any] | None) -> BrokenLock | None:
    """The break record of a document revision, or ``None``."""
    record = (doc or {}).get("lockBroken")
    if not isinstance(record, dict) or not isinstance(record.get("by"), str):
        return None
    return BrokenLock(str(doc.get("_id", "")) if doc else "", record["by"], str(record.get("holder") or ""),
                      record.get("since"), record.get("at"))


def locked_fields(holder: str, at: str) -> dict[str, Any]:
    """The lock fields of a document locked by ``holder`` at ``at``."""
    return {"locked": True, "lockedBy": holder, "lockedAt": at}


def free_fields() -> dict[str, Any]:
    """The lock fields of a free document."""
    return {"locked": False, "lockedBy": UNLOCKED_BY, "lockedAt": None}


def apply_lock_fields(doc: dict[str, Any], fields: dict[str, Any], *, broken: dict[str, Any] | None = None) -> None:
    """Set ``doc``'s lock fields in place; ``lockBroken`` becomes ``broken`` (dropped when None)."""
    doc.update(fields)
    if broken is None:
        doc.pop("lockBroken", None)
    else:
        doc["lockBroken"] = broken


def _lock_state(doc: dict[str, Any] | None) -> dict[str, Any]:
    """The lock fields as compared between revisions (a missing field equals its free value)."""
    doc = doc or {}
    info = lock_info(doc)
    return {
        "holder": info.holder if info else None,
        "since": info.since if info else None,
        "broken": doc.get("lockBroken"),
    }


def _same_except_lock(doc: dict[str, Any], previous: dict[str, Any]) -> bool:
    def rest(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if k not in LOCK_FIELDS and k not in ("_rev", "_revisions")}

    return rest(doc) == rest(previous)


class LockPolicy(Protocol):
    def check_write(self, doc: dict[str, Any], intent: str, previous: dict[str, Any] | None, username: str) -> None:
        """Return to allow the write of ``doc`` (``previous`` is the current revision or None);
        raise :class:`LockRefused` to refuse it. A policy may complete ``doc`` in place (a lock
        taken by the write itself)."""
        ...


class NoLocks:
    """Every write is allowed."""

    def check_write(self, doc: dict[str, Any], intent: str, previous: dict[str, Any] | None, username: str) -> None:
        return None


class TeamLocks:
    """The team rules, asked by the editor's gate before every write.

    - A document whose current revision is locked by another holder refuses every write
      (edit, rename, move, delete, resolve, settings) except a break by the breaker
      (:data:`BREAK_LOCK` with nothing but the lock fields changed): :class:`LockRefused`
      names the holder and since when. A lock held by ``holder()`` itself, however old,
      allows every write.
    - Only the lock intents change the lock fields (a conflict resolution carries the lock
      the merge decided); another write that changes them is a :class:`ValidationError`.
    - With ``require_lock()``, an edit (update, rename) of a free document takes the lock for
      ``holder()`` in the same revision; ``on_auto_lock(doc_id, locked_at)`` is told (the lock
      service records it as provisional until the server confirms it). ProjectSettings and
      folders are not locked automatically.

    ``holder`` names the lock holder: the remote user name when a remote is configured (the
    server checks it), else the workspace user.
    """

    def __init__(
        self,
        holder: Callable[[], str],
        require_lock: Callable[[], bool],
        *,
        clock: Callable[[], str] = now_iso,
        on_auto_lock: Callable[[str, str], None] | None = None,
    ) -> None:
        self.holder = holder
        self.require_lock = require_lock
        self.clock = clock
        self.on_auto_lock = on_auto_lock

    def check_write(self, doc: dict[str, Any], intent: str, previous: dict[str, Any] | None, username: str) -> None:
        doc_id = doc.get("_id")
        if not isinstance(doc_id, str) or doc_id.startswith("_local/") or str(intent) in _BULK_INTENTS:
            return
        intent = str(intent)
        me = self.holder()
        held = lock_info(previous)
        if held is not None and held.holder != me:
            if intent == _BREAK:
                assert previous is not None  # lock_info found the lock in it
                self._check_break(doc, previous, me)
                return
            raise LockRefused(doc_id, held.holder, held.since)
        if intent == _BREAK:
            if held is None:
                raise LockStateError(f"document {doc_id!r} is not locked: there is no lock to break")
            raise LockStateError(f"you hold the lock of {doc_id!r}: unlock it instead of breaking it")
        if doc.get("_deleted"):
            return
        wanted = lock_info(doc)
        if intent == _LOCK:
            if wanted is None or wanted.holder != me:
                raise LockStateError(f"a lock of {doc_id!r} must be taken by {me} (the lock holder here)")
            return
        if intent == _UNLOCK:
            if wanted is not None:
                raise LockStateError(f"an unlock of {doc_id!r} must leave it free")
            return
        if intent == _RESOLVE:
            return
        if previous is None or previous.get("_deleted"):
            # A new document starts free, or held by its writer (never in another's name).
            if wanted is not None and wanted.holder != me:
                raise ValidationError.single(doc_id, "lockedBy", f"{UNLOCKED_BY} or {me} on a new document",
                                             wanted.holder, "lock-field")
            return
        if _lock_state(doc) != _lock_state(previous):
            changed = next(k for k in LOCK_FIELDS if doc.get(k) != previous.get(k))
            raise ValidationError.single(
                doc_id, changed, "the lock unchanged (a lock is taken or released on its own, not with an edit)",
                doc.get(changed), "lock-field")
        if held is None and intent in _AUTO_LOCK_INTENTS and self._auto_lockable(previous) and self.require_lock():
            at = self.clock()
            apply_lock_fields(doc, locked_fields(me, at))
            if self.on_auto_lock is not None:
                self.on_auto_lock(doc_id, at)

    @staticmethod
    def _auto_lockable(previous: dict[str, Any]) -> bool:
        return previous.get("_id") != SETTINGS_ID and previous.get("type") != FOLDER_TYPE

    @staticmethod
    def _check_break(doc: dict[str, Any], previous: dict[str, Any], me: str) -> None:
        doc_id = str(doc.get("_id"))
        record = doc.get("lockBroken")
        if lock_info(doc) is not None or not isinstance(record, dict) or record.get("by") != me:
            raise LockStateError(f"a break of {doc_id!r} must leave it free with a lockBroken record by {me}")
        if not _same_except_lock(doc, previous):
            held = lock_info(previous)
            assert held is not None
            raise LockRefused(doc_id, held.holder, held.since, message=(
                f"document {doc_id!r} is locked by {held.holder}"
                f"{' since ' + held.since if held.since else ''}: a break changes nothing but the lock"))
