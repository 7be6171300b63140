"""The part of :class:`~storyloom.app.locks.LockService` that settles lock writes a CouchDB
cluster accepted without its write quorum (``202 Accepted``; docs/sync.md, "A cluster as the
server", and docs/locks-and-conflicts.md, "Who wins").

A write answered 202 is read back with every replica answering and settled by
:func:`~storyloom.project.lock_contest.contest_winner` (:meth:`ClusterLockWrites._settle_accepted`,
called by the lock, unlock and break compare-and-swaps); a lock answered 201 that a pull later
shows lost to such a rival is given up (:meth:`ClusterLockWrites.settle_contested_locks`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from storyloom.project import SUPERSEDED_BY, LockInfo, contest_winner, list_conflicts, lock_info, lost_contest
from storyloom.store import Conflict, NotFound
from storyloom.sync.errors import RemoteConflict, SyncError

if TYPE_CHECKING:
    from storyloom.app.locks import LockNotice, LockService
    from storyloom.sync.remote import RemoteDatabase

#: The status of a write a CouchDB cluster stored on fewer nodes than its write quorum.
ACCEPTED = 202
#: Replicas asked on a read-back when the server does not say how many it keeps (CouchDB's default n).
DEFAULT_REPLICAS = 3


def copies(client: RemoteDatabase) -> int | None:
    """How many copies the database keeps (``cluster.n`` of ``GET /db``, as CouchDB 2+ says), or
    None when the server does not say (pouchdb-server) or cannot be asked."""
    try:
        n = (client.info().get("cluster") or {}).get("n")
    except SyncError:
        return None
    return n if isinstance(n, int) and n > 0 else None


def replicas(client: RemoteDatabase) -> int:
    """How many replicas a read-back waits for: every copy the database keeps, or
    :data:`DEFAULT_REPLICAS` when the server does not say."""
    return copies(client) or DEFAULT_REPLICAS


def is_cluster(client: RemoteDatabase) -> bool:
    """Whether the database is kept in more than one copy: only then can a write be answered 202
    while a rival on the same revision is accepted too. A single node, or a server that does not
    say, is not."""
    return (copies(client) or 1) > 1


def _offline(exc: BaseException) -> bool:
    return isinstance(exc, SyncError) and bool(exc.retryable)  # as storyloom.app.locks.is_offline


class ClusterLockWrites:
    """Mixed into :class:`~storyloom.app.locks.LockService` (its store, holder, client and
    provisional records)."""

    def _settle_accepted(self: LockService, client: RemoteDatabase, doc_id: str, parent_rev: str, ours: str) -> bool:
        """A lock write (lock, unlock, break) on ``parent_rev`` that the server answered 202
        Accepted: a cluster stored it without its write quorum, so another write on the same
        revision may have been stored too. Read every leaf back with every replica answering
        and settle by :func:`~storyloom.project.lock_contest.contest_winner`, the rule each
        writer reaches alike: True when ours keeps it; False when another does, after our
        revision is deleted (a tombstone on our own leaf, so the conflict goes away on every
        replica and the other write is the document's only live leaf).

        The tombstone names the winner in ``supersededBy``, as a conflict resolution's do: the
        lock rules let it through whichever leaf a server compares it with (CouchDB checks it
        against our own leaf, pouchdb-server against the current winner, locked by another)."""
        leaves = [e["ok"] for e in client.get(doc_id, open_revs="all", revs=True, latest=True,
                                              r=replicas(client))
                  if isinstance(e.get("ok"), dict)]
        winner = contest_winner(parent_rev, ours, leaves)
        if winner == ours:
            return True
        try:
            client.put_status({"_id": doc_id, "_rev": ours, "_deleted": True, SUPERSEDED_BY: winner})
        except RemoteConflict:
            pass  # no longer a leaf: a later write of ours already went on it
        return False

    def settle_contested_locks(self: LockService, doc_ids: Iterable[str] | None = None) -> list[LockNotice]:
        """Give up each lock of ours that lost a contested write, once a pull shows it.

        A writer answered ``201 Created`` does not read back (:meth:`_settle_accepted` runs on
        202 only), so when a cluster also accepted a rival lock on the same revision, answered
        202, and the rival's write is the larger one, both writers were told they hold the lock.
        The pull that brings the rival's leaf shows it (on a database kept in several copies only:
        :func:`is_cluster`): a live leaf locked by us and one locked by another, written on the
        same parent, ours not the winner by
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
                    if _offline(exc):
                        break
                    raise
        return notices

    def _live_leaves(self: LockService, doc_id: str) -> list[dict[str, Any]]:
        try:
            entries = self._store.get(doc_id, open_revs="all", revs=True)
        except NotFound:
            return []
        return [e["ok"] for e in entries if isinstance(e.get("ok"), dict) and not e["ok"].get("_deleted")]

    def _yield_contested(self: LockService, client: RemoteDatabase, doc_id: str, ours: dict[str, Any],
                         rival: dict[str, Any], child: str) -> LockNotice:
        from storyloom.app.locks import LockNotice  # the module that mixes this class in

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
