"""Taking, releasing, breaking and listing document locks of a team project.

A lock lives in the document (``locked``/``lockedBy``/``lockedAt``; see
:mod:`storyloom.project.locks` and docs/locks-and-conflicts.md). :class:`LockService` takes it:

- **Online** (the remote answers): the document's local revisions the server lacks are pushed
  first (so the lock revision sits on top of our edits), then the lock is a compare-and-swap
  on the server copy: a ``PUT`` with the server's current ``_rev``. A 409 means someone wrote
  first: re-read; locked by another holder refuses (:class:`LockRefused`), free retries. The
  server's new revision then comes into the local store with its history (``new_edits=false``),
  as replication would bring it. Two clients online can never both hold a lock: only one PUT
  on a given revision succeeds. On a CouchDB cluster short of its write quorum both may be
  accepted (``202 Accepted``): such a write is read back and settled by
  :func:`~storyloom.project.lock_contest.contest_winner`, the loser removing its own leaf
  (:mod:`storyloom.app.lock_cluster`).
- **Offline** (the remote cannot be reached): the lock is written locally through the editor
  gate and recorded as provisional in ``_local/storyloom-provisional-locks``.
  :meth:`LockService.confirm_provisional` (the sync service calls it after a pull or push)
  settles each one when the server answers: confirmed when no other holder's lock is on the
  server, lost otherwise (our edits stay in our branch, which gets an unlock revision, and the
  :class:`LockNotice` says who holds the lock).

Without a remote, a lock is a local write (nothing to confirm).
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from storyloom.app.lock_cluster import ACCEPTED, is_cluster, settle_accepted
from storyloom.errors import Fix, StoryloomError
from storyloom.project import (
    SUPERSEDED_BY,
    BrokenLock,
    LockInfo,
    LockRefused,
    LockStateError,
    TeamLocks,
    WriteIntent,
    apply_lock_fields,
    broken_lock,
    free_fields,
    list_conflicts,
    lock_info,
    locked_fields,
    lost_contest,
    now_iso,
    require_lock_to_edit,
    stale_lock_minutes,
)
from storyloom.store import Conflict, NotFound
from storyloom.sync.errors import RemoteConflict, RemoteForbidden, RemoteNotFound, SyncError
from storyloom.sync.peers import LocalPeer, Peer, RemotePeer, clean_doc

if TYPE_CHECKING:
    from storyloom.project import Editor
    from storyloom.store import Database
    from storyloom.sync.remote import RemoteDatabase

log = logging.getLogger(__name__)

PROVISIONAL_ID = "_local/storyloom-provisional-locks"
#: Compare-and-swap attempts before giving up (each failed one means another writer was first).
MAX_ATTEMPTS = 25


class LockError(StoryloomError):
    """A lock operation that could not complete (the document is gone on the server, or
    other writers kept winning the compare-and-swap)."""

    code = "lock_failed"


class LockBreakRefused(LockRefused):
    """The server refused to break another user's lock (its lock rules: the lock is not stale
    yet and the user is not a project owner). ``reason`` is the server's explanation: who holds
    the lock since when, idle since when, when members may break it, and that an owner can break
    it now. The CLI exits 3, as for any lock held by someone else."""

    code = "lock_break_refused"

    def __init__(self, doc_id: str, holder: str, since: str | None, reason: str) -> None:
        self.reason = reason
        super().__init__(doc_id, holder, since, message=(
            f"the server refused to break {holder}'s lock of {doc_id!r}: {reason or 'forbidden'}"))


class RemoteSource(Protocol):
    """What the lock service needs of :class:`storyloom.app.remote.RemoteAccess`."""

    @property
    def configured(self) -> bool: ...

    @property
    def username(self) -> str | None: ...

    def open(self, **client_options: Any) -> RemoteDatabase: ...


class LockedProject(Protocol):
    """What the lock service needs of a :class:`~storyloom.project.manager.Project`."""

    store: Database

    @property
    def editor(self) -> Editor: ...

    def settings(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class LockNotice:
    """What happened to a provisional lock once the server answered.

    ``outcome`` is ``confirmed`` (we hold it), ``lost`` (``holder`` holds it since ``since``;
    our edits are kept in revision ``kept_rev``, a conflict revision to merge) or ``released``
    (the lock went away before it was confirmed: unlocked, broken or merged)."""

    doc_id: str
    outcome: str
    holder: str
    since: str | None
    message: str
    kept_rev: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "outcome": self.outcome, "holder": self.holder, "since": self.since,
                "message": self.message, "keptRev": self.kept_rev}


def is_offline(exc: BaseException) -> bool:
    """Whether a failure means the server cannot be reached now (network, timeout, a 5xx of a
    proxy in front of a stopped server): the lock service then works locally."""
    return isinstance(exc, SyncError) and bool(exc.retryable)


def project_stale_minutes(project: LockedProject) -> int:
    """The project's stale-lock time (``staleLockMinutes``; the default before its settings
    exist): the server's lock rules are generated with it."""
    try:
        settings = project.settings()
    except NotFound:
        settings = {}
    return stale_lock_minutes(settings)


def lock_holder(remote: RemoteSource | None, user: Callable[[], str]) -> Callable[[], str]:
    """The lock holder's name: the remote user name when a remote is configured (the server
    checks locks against it), else the workspace user."""

    def holder() -> str:
        if remote is not None and remote.configured and remote.username:
            return remote.username
        return user()

    return holder


class LockService:
    """Locks of one project. ``remote`` is the project's remote access (None: no remote);
    ``holder`` names the lock holder (see :func:`lock_holder`)."""

    def __init__(self, project: LockedProject, remote: RemoteSource | None, holder: Callable[[], str], *,
                 clock: Callable[[], str] = now_iso) -> None:
        self.project = project
        self.remote = remote
        self.holder = holder
        self.clock = clock
        self._record_lock = threading.RLock()
        self._watchers: list[Callable[[dict[str, Any]], None]] = []

    @property
    def _store(self) -> Database:
        return self.project.store

    @property
    def _editor(self) -> Editor:
        return self.project.editor

    # ------------------------------------------------------------------ the policy
    def team_policy(self, require_lock: Callable[[], bool] | None = None) -> TeamLocks:
        """The :class:`TeamLocks` policy for this project's editor: same holder; auto-locks
        are recorded as provisional. ``require_lock`` defaults to the project's
        ``requireLockToEdit`` (absent: on when a remote is configured)."""

        def required() -> bool:
            try:
                settings = self.project.settings()
            except NotFound:
                settings = {}
            return require_lock_to_edit(settings, self._remote_configured())

        return TeamLocks(self.holder, require_lock or required, clock=self.clock,
                         on_auto_lock=self._auto_locked)

    def _auto_locked(self, doc_id: str, locked_at: str) -> None:
        if self._remote_configured():
            self._record(doc_id, {"rev": None, "at": locked_at})

    # ------------------------------------------------------------------ lock
    def lock(self, doc_id: str) -> LockInfo:
        """Take the lock of ``doc_id`` for the holder. Raises :class:`LockRefused` when another
        holder has it; offline, the returned lock is ``provisional``."""
        self._store.get(doc_id)  # a missing document raises NotFound before anything is sent
        with self._client() as client:
            if client is not None:
                try:
                    info = self._lock_online(client, doc_id)
                except Exception as exc:
                    if not is_offline(exc):
                        raise
                else:
                    self._forget(doc_id)
                    return info
        return self._lock_locally(doc_id, provisional=self._remote_configured())

    def _lock_online(self, client: RemoteDatabase, doc_id: str, since: str | None = None) -> LockInfo:
        me = self.holder()
        record = self._records().get(doc_id)
        if record is not None:  # our provisional lock: settle it rather than stack another on it
            notice = self._confirm(client, doc_id, record)
            if notice is not None and notice.outcome == "confirmed":
                return LockInfo(doc_id, me, notice.since)
            if notice is not None and notice.outcome == "lost":
                raise LockRefused(doc_id, notice.holder, notice.since, message=notice.message)
        server: dict[str, Any] | None = self._first_read(client, doc_id)
        refused: RemoteForbidden | None = None
        for _ in range(MAX_ATTEMPTS):
            if server is None:
                server = self._server_doc(client, doc_id)
            held = lock_info(server)
            if held is not None and held.holder != me:
                raise LockRefused(doc_id, held.holder, held.since)
            if refused is not None:
                raise refused  # refused although free: not a lock matter (membership, rights)
            if held is not None:  # ours already (an earlier lock, or a stale one of ours)
                self._pull(client, doc_id, server["_rev"])
                return LockInfo(doc_id, me, held.since)
            at = since or self.clock()
            wanted = _edit_of(server)
            apply_lock_fields(wanted, locked_fields(me, at))
            try:
                result, status = client.put_status(wanted)
            except RemoteConflict:
                server = None
                continue  # another writer was first: re-read
            except RemoteForbidden as exc:
                refused, server = exc, None  # the server's lock rule: re-read to name the holder
                continue
            if status == ACCEPTED and not settle_accepted(client, doc_id, server["_rev"], result["rev"]):
                server = None
                continue  # another write on the same revision keeps it: re-read to name the holder
            self._adopt(client, wanted, server, result["rev"])
            return LockInfo(doc_id, me, at)
        raise LockError(f"could not lock {doc_id!r}: other writers kept changing it on the server; try again")

    def _lock_locally(self, doc_id: str, *, provisional: bool) -> LockInfo:
        me = self.holder()
        current = self._store.get(doc_id)
        held = lock_info(current)
        if held is not None and held.holder == me:
            return LockInfo(doc_id, me, held.since, provisional=provisional and doc_id in self._records())
        if held is not None:  # also when the editor's policy is not TeamLocks
            raise LockRefused(doc_id, held.holder, held.since)
        at = self.clock()
        doc = copy.deepcopy(current)
        apply_lock_fields(doc, locked_fields(me, at))
        result = self._editor.update(doc, intent=WriteIntent.LOCK)  # the gate refuses another's lock
        if provisional:
            self._record(doc_id, {"rev": result.rev, "at": at})
        return LockInfo(doc_id, me, at, provisional=provisional)

    # ------------------------------------------------------------------ unlock and break
    def unlock(self, doc_id: str, *, break_lock: bool = False) -> BrokenLock | None:
        """Release the holder's lock of ``doc_id`` (on the server too when it answers). With
        ``break_lock``, break another holder's lock instead, recorded in ``lockBroken``, and
        return that record (``None`` when the server copy turned out free: nothing to break)."""
        self._store.get(doc_id)
        with self._client() as client:
            if break_lock:
                return self._break(client, doc_id)
            self._unlock(client, doc_id)
            return None

    def unlock_all_mine(self) -> list[str]:
        """Release every lock the holder holds here; returns the document ids."""
        me = self.holder()
        mine = sorted({info.doc_id for info in self._current_locks() if info.holder == me} | set(self._records()))
        with self._client() as client:
            for doc_id in mine:
                self._unlock(client, doc_id)
        return mine

    def _unlock(self, client: RemoteDatabase | None, doc_id: str) -> None:
        me = self.holder()
        held = lock_info(self._store.get(doc_id))
        if held is not None and held.holder != me:
            raise _not_yours(doc_id, held)
        if client is not None:
            try:
                theirs = self._release_online(client, doc_id, me)
            except Exception as exc:
                if not is_offline(exc):
                    raise
            else:
                if theirs is not None and held is None:
                    raise _not_yours(doc_id, theirs)
        current = self._store.get(doc_id)
        held = lock_info(current)
        if held is not None and held.holder == me:  # offline, or the server copy was not ours
            doc = copy.deepcopy(current)
            apply_lock_fields(doc, free_fields(), broken=current.get("lockBroken"))
            self._editor.update(doc, intent=WriteIntent.UNLOCK)
        self._forget(doc_id)

    def _release_online(self, client: RemoteDatabase, doc_id: str, me: str) -> LockInfo | None:
        """Release our lock on the server copy; returns another holder's lock found there."""
        try:
            server: dict[str, Any] | None = self._first_read(client, doc_id)
        except LockError:
            return None  # gone on the server: nothing to release there
        for _ in range(MAX_ATTEMPTS):
            if server is None:
                try:
                    server = self._server_doc(client, doc_id)
                except LockError:
                    return None
            held = lock_info(server)
            if held is None:
                return None
            if held.holder != me:
                return held  # someone else's (ours, if any, was lost or broken)
            wanted = _edit_of(server)
            apply_lock_fields(wanted, free_fields(), broken=server.get("lockBroken"))
            try:
                result, status = client.put_status(wanted)
            except RemoteConflict:
                server = None
                continue
            if status == ACCEPTED and not settle_accepted(client, doc_id, server["_rev"], result["rev"]):
                server = None
                continue
            self._adopt(client, wanted, server, result["rev"])
            return None
        raise LockError(f"could not unlock {doc_id!r}: other writers kept changing it on the server; try again")

    def _break(self, client: RemoteDatabase | None, doc_id: str) -> BrokenLock | None:
        me = self.holder()
        if client is not None:
            try:
                outcome = self._break_online(client, doc_id, me)
            except Exception as exc:
                if not is_offline(exc):
                    raise
            else:
                if outcome == "broken":
                    return broken_lock(self._store.get(doc_id))
                if outcome == "free":
                    return None  # nothing to break (an earlier break's record is not this one's)
        current = self._store.get(doc_id)
        held = lock_info(current)
        if held is None:
            raise LockStateError(f"document {doc_id!r} is not locked: there is no lock to break")
        if held.holder == me:
            raise LockStateError(f"you hold the lock of {doc_id!r}: unlock it instead of breaking it")
        doc = copy.deepcopy(current)
        apply_lock_fields(doc, free_fields(), broken=self._break_record(me, held))
        self._editor.update(doc, intent=WriteIntent.BREAK_LOCK)
        return broken_lock(doc)

    def _break_online(self, client: RemoteDatabase, doc_id: str, me: str) -> str:
        """Break on the server: ``broken``; ``free`` when the server copy and, once it is
        pulled, the local one are free; ``local`` when only the local copy is locked (it decides).
        Raises :class:`LockBreakRefused` when the server's rules refuse the break (not stale yet)."""
        self._push(client, doc_id)
        for _ in range(MAX_ATTEMPTS):
            server = self._server_doc(client, doc_id)
            held = lock_info(server)
            if held is None:
                self._pull(client, doc_id, server["_rev"])
                return "free" if lock_info(self._store.get(doc_id)) is None else "local"
            if held.holder == me:
                raise LockStateError(f"you hold the lock of {doc_id!r}: unlock it instead of breaking it")
            wanted = _edit_of(server)
            apply_lock_fields(wanted, free_fields(), broken=self._break_record(me, held))
            try:
                result, status = client.put_status(wanted)
            except RemoteConflict:
                continue
            except RemoteForbidden as exc:
                # The server's lock rules decide who may break (an owner, or anyone once the lock
                # is stale); its reason says when a member may, and the server copy stays as is.
                self._pull(client, doc_id, server["_rev"])
                raise LockBreakRefused(doc_id, held.holder, held.since, exc.reason or exc.error) from None
            if status == ACCEPTED and not settle_accepted(client, doc_id, server["_rev"], result["rev"]):
                continue
            self._pull(client, doc_id, result["rev"])
            return "broken"
        raise LockError(f"could not break the lock of {doc_id!r}: other writers kept changing it; try again")

    def _break_record(self, me: str, held: LockInfo) -> dict[str, Any]:
        return {"by": me, "holder": held.holder, "since": held.since, "at": self.clock()}

    # ------------------------------------------------------------------ listing
    def locks(self) -> list[LockInfo]:
        """Every lock held in the local copy of the project (mine and others'), provisional
        ones marked, by holder then id."""
        records = self._records()
        found = [
            LockInfo(info.doc_id, info.holder, info.since,
                     provisional=info.doc_id in records and info.holder == self.holder())
            for info in self._current_locks()
        ]
        return sorted(found, key=lambda info: (info.holder, info.doc_id))

    def broken_locks(self) -> list[BrokenLock]:
        """Every break recorded in a current document (who broke whose lock, when), newest
        first: the holder learns of it here."""
        found = []
        for doc in self._documents():
            record = broken_lock(doc)
            if record is not None:
                found.append(record)
        return sorted(found, key=lambda record: str(record.at or ""), reverse=True)

    def _documents(self) -> Iterator[dict[str, Any]]:
        for row in self._store.all_docs(include_docs=True, skip_damaged=True)["rows"]:
            doc = row.get("doc")
            if doc and not row["id"].startswith("_design/"):
                yield doc

    def _current_locks(self) -> list[LockInfo]:
        return [info for doc in self._documents() if (info := lock_info(doc)) is not None]

    # ------------------------------------------------------------------ provisional locks
    def provisional(self) -> dict[str, dict[str, Any]]:
        """The provisional locks waiting for the server: ``{doc_id: {"rev", "at"}}``."""
        return self._records()

    def confirm_provisional(self) -> list[LockNotice]:
        """Settle every provisional lock the server can be asked about now: confirmed when no
        other holder's lock is on the server copy (after our revisions are pushed), lost
        otherwise. Returns one notice per settled lock; unreachable ones wait for next time."""
        records = self._records()
        if not records or not self._remote_configured():
            return []
        notices: list[LockNotice] = []
        with self._client() as client:
            if client is None:
                return []
            for doc_id, record in sorted(records.items()):
                try:
                    notice = self._confirm(client, doc_id, record)
                except Conflict:
                    continue  # written meanwhile (an edit, a pull): the record waits for the next round
                except Exception as exc:
                    if is_offline(exc):
                        break
                    raise
                if notice is not None:
                    notices.append(notice)
        return notices

    def keep_held_locks(self, doc_ids: Iterable[str] | None = None) -> list[LockNotice]:
        """Take again, on the server, each lock of ours that only a losing leaf still carries.

        A teammate whose provisional lock lost releases it with a revision on top of their
        branch; that branch is then longer than ours and wins, so the document reads as free
        although the server confirmed our lock (when the leaves merge, the merge keeps our
        lock; when they do not, nothing would). The sync service calls this after a pull (the
        session's ``after_pull``, with the pulled ids): a compare-and-swap lock on the server's
        free copy, keeping our ``lockedAt``. Someone who took the free copy meanwhile wins:
        the notice says ``lost``. Returns one notice per such document."""
        if not self._remote_configured():
            return []
        me, records = self.holder(), self._records()
        wanted: list[tuple[str, str | None]] = []
        for conflict in list_conflicts(self._store, doc_ids):
            if conflict.doc_id in records or lock_info(conflict.leaves[0].doc) is not None:
                continue
            ours = [info for leaf in conflict.leaves[1:] if (info := lock_info(leaf.doc)) and info.holder == me]
            if ours:
                wanted.append((conflict.doc_id, ours[0].since))
        notices: list[LockNotice] = []
        if not wanted:
            return notices
        with self._client() as client:
            if client is None:
                return notices
            for doc_id, since in wanted:
                try:
                    info = self._lock_online(client, doc_id, since)
                except LockRefused as exc:
                    when = f" since {exc.since}" if exc.since else ""
                    notices.append(LockNotice(doc_id, "lost", exc.holder, exc.since, (
                        f"your lock of {doc_id!r} was lost: a conflict left the document free and "
                        f"{exc.holder} took it{when}; your edits are listed as a conflict (storyloom conflicts)")))
                    continue
                except Exception as exc:
                    if is_offline(exc):
                        break
                    raise
                notices.append(LockNotice(doc_id, "confirmed", me, info.since, (
                    f"your lock of {doc_id!r} is kept: a conflict left the document free, and the server "
                    "holds your lock again")))
        return notices

    def _confirm(self, client: RemoteDatabase, doc_id: str, record: dict[str, Any]) -> LockNotice | None:
        me = self.holder()
        ours = self._our_leaf(doc_id, record, me)
        if ours is None:
            self._forget(doc_id)
            try:
                winner = self._store.get(doc_id)
            except NotFound:
                return None
            held = lock_info(winner)
            if held is not None and held.holder != me:
                return LockNotice(doc_id, "lost", held.holder, held.since, (
                    f"your provisional lock of {doc_id!r} was lost: {held.holder} holds it"
                    f"{' since ' + held.since if held.since else ''}; your edits were merged or are "
                    "listed as a conflict (storyloom conflicts)"))
            return LockNotice(doc_id, "released", me, None,
                              f"your provisional lock of {doc_id!r} was released before the server saw it")
        history = _history(ours)
        rival = self._rival(client, doc_id, me, history)
        if rival is None:
            self._push(client, doc_id)
            rival = self._rival(client, doc_id, me, history)
        if rival is not None:
            return self._lose(client, doc_id, ours, rival)
        self._forget(doc_id)
        return LockNotice(doc_id, "confirmed", me, ours.get("lockedAt"),
                          f"your lock of {doc_id!r} is confirmed by the server")

    def _our_leaf(self, doc_id: str, record: dict[str, Any], me: str) -> dict[str, Any] | None:
        """The local leaf that carries our provisional lock (the one with its rev in its
        history, else the one locked by us at the recorded time, else any locked by us)."""
        try:
            leaves = [e["ok"] for e in self._store.get(doc_id, open_revs="all", revs=True) if e.get("ok")]
        except NotFound:
            return None
        mine = [leaf for leaf in leaves if not leaf.get("_deleted") and (lock_info(leaf) or _NOBODY).holder == me]
        rev = record.get("rev")
        for test in (lambda leaf: rev is not None and rev in _history(leaf),
                     lambda leaf: leaf.get("lockedAt") == record.get("at"),
                     lambda leaf: True):
            chosen = [leaf for leaf in mine if test(leaf)]
            if chosen:
                return max(chosen, key=lambda leaf: _rev_key(leaf["_rev"]))
        return None

    def _rival(self, client: RemoteDatabase, doc_id: str, me: str, history: set[str]) -> LockInfo | None:
        """Another holder's lock in a live leaf of the server copy (not one of our ancestors)."""
        try:
            winner = client.get(doc_id, conflicts=True)
        except RemoteNotFound:
            return None
        leaves = [winner]
        others = winner.get("_conflicts") or []
        if others:
            leaves += [e["ok"] for e in client.get_open_revs(doc_id, others, revs=False, attachments=False)
                       if isinstance(e.get("ok"), dict)]
        for leaf in leaves:
            held = lock_info(leaf)
            if held is not None and held.holder != me and leaf.get("_rev") not in history:
                return held
        return None

    def _lose(self, client: RemoteDatabase, doc_id: str, ours: dict[str, Any], rival: LockInfo) -> LockNotice:
        """We lost: release the lock on our branch (our edits stay in it, a conflict revision
        to merge), push it, and say who holds the lock."""
        doc = {k: v for k, v in ours.items() if k != "_revisions"}
        apply_lock_fields(doc, free_fields())
        result = self._editor.update(doc, intent=WriteIntent.UNLOCK)
        self._forget(doc_id)
        try:
            self._push(client, doc_id)
        except Exception as exc:
            if not is_offline(exc):
                raise
        since = f" since {rival.since}" if rival.since else ""
        return LockNotice(doc_id, "lost", rival.holder, rival.since, (
            f"your provisional lock of {doc_id!r} was lost: {rival.holder} holds it{since}; your edits "
            f"are kept as a conflict revision ({result.rev}) for merging (storyloom conflicts)"), result.rev)

    def _records(self) -> dict[str, dict[str, Any]]:
        try:
            doc = self._store.get_local(PROVISIONAL_ID)
        except NotFound:
            return {}
        locks = (doc or {}).get("locks")
        return dict(locks) if isinstance(locks, dict) else {}

    def _record(self, doc_id: str, entry: dict[str, Any]) -> None:
        self._change_records(lambda locks: locks.__setitem__(doc_id, entry))

    def _forget(self, doc_id: str) -> None:
        if doc_id in self._records():
            self._change_records(lambda locks: locks.pop(doc_id, None))

    def _change_records(self, change: Callable[[dict[str, Any]], Any]) -> None:
        with self._record_lock:
            for _ in range(MAX_ATTEMPTS):
                try:
                    current = self._store.get_local(PROVISIONAL_ID) or {}
                except NotFound:
                    current = {}
                locks = dict(current.get("locks") or {})
                change(locks)
                doc: dict[str, Any] = {"_id": PROVISIONAL_ID, "locks": locks}
                if current.get("_rev"):
                    doc["_rev"] = current["_rev"]
                try:
                    self._store.put_local(doc)
                    return
                except Conflict:  # another process of this project wrote it: read again
                    continue

    # ------------------------------------------------------------------ the server
    def publish(self, doc_id: str) -> list[dict[str, Any]] | None:
        """Push the revisions of ``doc_id`` the server lacks now (an edit made from the command
        line reaches the team at once). Returns the server's refusals (empty: all went), or
        ``None`` when there is no remote or it cannot be reached (the next sync sends them)."""
        with self._client() as client:
            if client is None:
                return None
            try:
                refused = self._push(client, doc_id)
                self._read_back(client, doc_id)
            except Exception as exc:
                if is_offline(exc):
                    return None
                raise
            return refused

    def _remote_configured(self) -> bool:
        return self.remote is not None and bool(self.remote.configured)

    @contextmanager
    def _client(self) -> Iterator[RemoteDatabase | None]:
        if not self._remote_configured():
            yield None
            return
        assert self.remote is not None
        client = self.remote.open()
        try:
            yield client
        finally:
            client.close()

    def _server_doc(self, client: RemoteDatabase, doc_id: str) -> dict[str, Any]:
        """The server's copy of ``doc_id``, with its revision history (``_revisions``: what
        :meth:`_adopt` builds the lock's revision from)."""
        try:
            doc = client.get(doc_id, revs=True)
        except RemoteNotFound as exc:
            raise LockError(f"document {doc_id!r} is not on the server ({exc.reason or 'missing'}): "
                            "sync the project, then try again") from None
        self._seen({k: v for k, v in doc.items() if k != "_revisions"})
        return doc

    def _first_read(self, client: RemoteDatabase, doc_id: str) -> dict[str, Any] | None:
        """The server's copy when the local store has nothing it lacks (its one leaf is the
        server's revision: the usual case, one round trip); otherwise push what it lacks first
        (as a push would, so a lock goes on top of our edits) and return None: read again."""
        server = self._server_doc(client, doc_id)
        leaves = [e["ok"]["_rev"] for e in self._store.get(doc_id, open_revs="all") if e.get("ok")]
        if leaves == [server["_rev"]]:
            return server
        self._push(client, doc_id)
        return None

    def _adopt(self, client: RemoteDatabase, sent: dict[str, Any], server: dict[str, Any], rev: str) -> None:
        """Store locally the revision ``rev`` the server gave ``sent``, written on top of
        ``server``: it is what was sent, with the server's history one longer, so no round trip
        reads it back. With attachments (sent as stubs) or without the history, it is read back."""
        number, _, digest = rev.partition("-")
        history = server.get("_revisions")
        if (server.get("_attachments") or not isinstance(history, dict) or not number.isdigit()
                or history.get("start") != int(number) - 1 or not isinstance(history.get("ids"), list)):
            self._pull(client, str(sent["_id"]), rev)
            return
        doc = {**sent, "_rev": rev, "_revisions": {"start": int(number), "ids": [digest, *history["ids"]]}}
        LocalPeer(self._store).write([clean_doc(doc)])

    # ------------------------------------------------------------------ server copies seen
    def watch_server_docs(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(doc)`` with each server copy a lock call reads, and the copy
        :meth:`publish` reads back after pushing (the session tells the holder of a break of
        their lock from it: :mod:`storyloom.app.broken_notices`). Returns the unsubscribe."""
        self._watchers.append(callback)
        return lambda: self._watchers.remove(callback) if callback in self._watchers else None

    def _seen(self, doc: dict[str, Any]) -> None:
        for callback in list(self._watchers):
            try:
                callback(doc)
            except Exception:  # telling must not fail the lock call itself
                log.exception("a watcher of the server copy of %s failed", doc.get("_id"))

    def _read_back(self, client: RemoteDatabase, doc_id: str) -> None:
        """Read the server copy of ``doc_id`` for the watchers (none: no request)."""
        if not self._watchers:
            return
        try:
            leaves = client.get_open_revs(doc_id, "all", revs=False, latest=False, attachments=False)
        except RemoteNotFound:
            return
        for entry in leaves:  # every leaf: an edit pushed beside a break may win over it
            if isinstance(entry.get("ok"), dict) and not entry["ok"].get("_deleted"):
                self._seen(entry["ok"])

    def _push(self, client: RemoteDatabase, doc_id: str) -> list[dict[str, Any]]:
        """Send the server every revision of ``doc_id`` it lacks (the document's leaves with
        their history), as a push would, so a lock revision goes on top of our edits. A
        revision the server refuses (another's lock) stays local, like any refused push."""
        leaves = [e["ok"]["_rev"] for e in self._store.get(doc_id, open_revs="all") if e.get("ok")]
        if not leaves:
            return []
        return _copy_revisions(LocalPeer(self._store), RemotePeer(client), doc_id, leaves)

    def _pull(self, client: RemoteDatabase, doc_id: str, rev: str) -> None:
        """Bring the server's revision ``rev`` (with its history) into the local store."""
        _copy_revisions(RemotePeer(client), LocalPeer(self._store), doc_id, [rev])

    def settle_contested_locks(self, doc_ids: Iterable[str] | None = None) -> list[LockNotice]:
        """Give up each lock of ours that lost a contested write, once a pull shows it.

        A writer answered ``201 Created`` does not read back (:func:`~storyloom.app.lock_cluster.settle_accepted`
        runs on 202 only), so when a cluster also accepted a rival lock on the same revision,
        answered 202, and the rival's write is the larger one, both writers were told they hold
        the lock. The pull that brings the rival's leaf shows it (on a database kept in several
        copies only: :func:`~storyloom.app.lock_cluster.is_cluster`): a live leaf locked by us and
        one locked by another, written on the same parent, ours not the winner by
        :func:`~storyloom.project.lock_contest.contest_winner`. Ours goes: a tombstone on our
        leaf (``supersededBy`` the rival's) when it is the lock write itself, else the lock is
        released on our branch, which keeps our edits as a conflict revision to merge. The
        session calls this after a pull, before merging; returns one ``lost`` notice each."""
        if not self._remote_configured():
            return []
        me, records = self.holder(), self._records()
        lost: list[tuple[str, dict[str, Any], dict[str, Any], str]] = []
        for conflict in list_conflicts(self._store, doc_ids):
            if conflict.doc_id in records:
                continue  # a provisional lock: confirm_provisional settles it
            found = lost_contest(self._live_leaves(conflict.doc_id), me)
            if found is not None:
                lost.append((conflict.doc_id, *found))
        notices: list[LockNotice] = []
        if not lost:
            return notices
        with self._client() as client:
            # On a single node a lock write is never accepted beside a rival: two locks forked
            # from one revision there are a provisional (offline) lock meeting an online one,
            # which confirm_provisional settles (the lock already on the server wins).
            if client is None or not is_cluster(client):
                return notices
            for doc_id, ours, rival, child in lost:
                try:
                    notices.append(self._yield_contested(client, doc_id, ours, rival, child))
                except Conflict:
                    continue  # written meanwhile: the next pull looks again
                except Exception as exc:
                    if is_offline(exc):
                        break
                    raise
        return notices

    def _live_leaves(self, doc_id: str) -> list[dict[str, Any]]:
        try:
            entries = self._store.get(doc_id, open_revs="all", revs=True)
        except NotFound:
            return []
        return [e["ok"] for e in entries if isinstance(e.get("ok"), dict) and not e["ok"].get("_deleted")]

    def _yield_contested(self, client: RemoteDatabase, doc_id: str, ours: dict[str, Any],
                         rival: dict[str, Any], child: str) -> LockNotice:
        held = lock_info(rival) or LockInfo(doc_id, "another user", None)
        since = f" since {held.since}" if held.since else ""
        message = (f"your lock of {doc_id!r} was lost: the server accepted {held.holder}'s lock on the same "
                   f"revision at the same time (a cluster short of its write quorum), and {held.holder} holds "
                   f"it{since}")
        if ours["_rev"] != child:  # edits of ours on top of the lock: keep them, release the lock
            notice = self._lose(client, doc_id, ours, held)
            return LockNotice(doc_id, "lost", held.holder, held.since,
                              f"{message}; your edits are kept as a conflict revision ({notice.kept_rev}) for "
                              "merging (storyloom conflicts)", notice.kept_rev)
        try:
            result, _status = client.put_status({"_id": doc_id, "_rev": ours["_rev"], "_deleted": True,
                                                 SUPERSEDED_BY: rival["_rev"]})
        except RemoteConflict:  # the holder's merge superseded it already: bring that
            self._pull(client, doc_id, client.get(doc_id)["_rev"])
        else:
            self._pull(client, doc_id, result["rev"])
        return LockNotice(doc_id, "lost", held.holder, held.since, message)


_NOBODY = LockInfo("", "", None)



def _not_yours(doc_id: str, held: LockInfo) -> LockRefused:
    return LockRefused(doc_id, held.holder, held.since, message=(
        f"document {doc_id!r} is locked by {held.holder}{' since ' + held.since if held.since else ''}, "
        "not by you"), fix=Fix("break_lock", doc_id=doc_id, holder=held.holder))


def _copy_revisions(source: Peer, target: Peer, doc_id: str, revs: list[str]) -> list[dict[str, Any]]:
    """Replicate the revisions ``revs`` of one document from ``source`` to ``target`` (those the
    target lacks, with their history; attachments it already has go as stubs). Returns the
    target's per-document failures."""
    diff = target.revs_diff({doc_id: revs}).get(doc_id) or {}
    missing = list(diff.get("missing") or [])
    if not missing:
        return []
    ancestors = list(diff.get("possible_ancestors") or [])
    fetched = source.fetch({doc_id: missing}, {doc_id: ancestors} if ancestors else None)
    docs = [clean_doc(doc) for doc in fetched.docs]
    return target.write(docs) if docs else []


def _edit_of(server: dict[str, Any]) -> dict[str, Any]:
    """A copy of the server's document to write the next revision of (its history is not sent)."""
    return {k: copy.deepcopy(v) for k, v in server.items() if k != "_revisions"}


def _history(doc: dict[str, Any]) -> set[str]:
    revisions = doc.get("_revisions")
    if not isinstance(revisions, dict) or not isinstance(revisions.get("start"), int):
        return {str(doc.get("_rev", ""))}
    start = revisions["start"]
    return {f"{start - i}-{h}" for i, h in enumerate(revisions.get("ids") or [])}


def _rev_key(rev: str) -> tuple[int, str]:
    number, _, digest = rev.partition("-")
    return (int(number) if number.isdigit() else 0, digest)
