"""Which of several writes on the same revision keeps a lock: the rule every client reaches alike.

A CouchDB cluster that cannot reach its write quorum in time answers a write ``202 Accepted``:
the revision is stored on some nodes only, and another client's write on the same parent
revision may have been stored on other nodes. Both then exist, as two leaves of the document,
once the nodes catch up. A lock write answered 202 is therefore *contested* until its writer
reads the document back (with every replica answering) and settles it by this rule:

- the candidates are the children of the parent revision (the revision both writes replaced)
  on the document's live branches, plus the writer's own revision;
- the winner is the one CouchDB itself would show as the document's current revision among
  them: the higher generation (all are one above the parent), then the larger revision id.

Every client that reads the same leaves reaches the same winner, and the winner is the one
readers of the document see; the losers delete their own leaf, so the conflict goes away on
every replica (docs/locks-and-conflicts.md, "Locks on a CouchDB cluster"). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def rev_key(rev: str) -> tuple[int, str]:
    """A revision id as CouchDB orders revisions: generation, then the id after the dash."""
    number, _, digest = rev.partition("-")
    return (int(number) if number.isdigit() else 0, digest)


def child_of(parent_rev: str, leaf: dict[str, Any]) -> str | None:
    """The revision of ``leaf``'s branch written on ``parent_rev`` (its child there), or None when
    the branch does not pass through ``parent_rev``. ``leaf`` carries its history
    (``_revisions``, as ``GET ?open_revs=all&revs=true`` returns it)."""
    generation, digest = rev_key(parent_rev)
    revisions = leaf.get("_revisions")
    if not isinstance(revisions, dict) or not isinstance(revisions.get("start"), int):
        return None
    ids = revisions.get("ids") or []
    index = revisions["start"] - generation  # where the parent sits in the branch's history
    if 1 <= index < len(ids) and ids[index] == digest:
        return f"{generation + 1}-{ids[index - 1]}"
    return None


def contest_winner(parent_rev: str, ours: str, leaves: Iterable[dict[str, Any]]) -> str:
    """The revision that keeps the lock among the writes on ``parent_rev``: ``ours`` (our own
    write, whatever the replicas show yet) and each child of ``parent_rev`` on a live branch of
    ``leaves`` (``{"_rev", "_revisions", "_deleted"?}`` each). A deleted branch is out: a loser
    that already removed its write."""
    candidates = {ours}
    for leaf in leaves:
        if leaf.get("_deleted"):
            continue
        child = child_of(parent_rev, leaf)
        if child is not None:
            candidates.add(child)
    return max(candidates, key=rev_key)


def winning_leaf(parent_rev: str, winner: str, leaves: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The live leaf whose branch holds ``winner`` (the document as the winner's writer left it
    or wrote on since), or None when the replicas do not show it yet."""
    for leaf in leaves:
        if not leaf.get("_deleted") and (leaf.get("_rev") == winner or child_of(parent_rev, leaf) == winner):
            return leaf
    return None
