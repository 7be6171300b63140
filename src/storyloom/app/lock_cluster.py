"""The part of :class:`~storyloom.app.locks.LockService` that settles lock writes a CouchDB
cluster accepted without its write quorum (``202 Accepted``; docs/sync.md, "A cluster as the
server", and docs/locks-and-conflicts.md, "Who wins").

A write answered 202 is read back with every replica answering and settled by
:func:`~storyloom.project.lock_contest.contest_winner` (:func:`settle_accepted`,
called by the lock, unlock and break compare-and-swaps); a lock answered 201 that a pull later
shows lost to such a rival is given up by
:meth:`~storyloom.app.locks.LockService.settle_contested_locks`, with :func:`is_cluster`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from storyloom.project import SUPERSEDED_BY, contest_winner
from storyloom.sync.errors import RemoteConflict, SyncError

if TYPE_CHECKING:
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


def settle_accepted(client: RemoteDatabase, doc_id: str, parent_rev: str, ours: str) -> bool:
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
    leaves = [e["ok"] for e in client.get_open_revs(doc_id, "all", attachments=False, replicas=replicas(client))
              if isinstance(e.get("ok"), dict)]
    winner = contest_winner(parent_rev, ours, leaves)
    if winner == ours:
        return True
    try:
        client.put_status({"_id": doc_id, "_rev": ours, "_deleted": True, SUPERSEDED_BY: winner})
    except RemoteConflict:
        pass  # no longer a leaf: a later write of ours already went on it
    return False
