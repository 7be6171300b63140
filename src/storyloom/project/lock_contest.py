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

from storyloom.project.locks import lock_info


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


def branch_revs(leaf: dict[str, Any]) -> list[str]:
    """A leaf's revisions, itself first (from ``_revisions``; itself only without them)."""
    revisions = leaf.get("_revisions")
    if not isinstance(revisions, dict) or not isinstance(revisions.get("start"), int):
        return [str(leaf.get("_rev", ""))]
    start = revisions["start"]
    return [f"{start - i}-{h}" for i, h in enumerate(revisions.get("ids") or [])]


def lost_contest(leaves: Iterable[dict[str, Any]], me: str) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """``(our leaf, the rival's leaf, our write on the shared parent)`` when, among the live
    ``leaves`` (with ``_revisions``), one locked by ``me`` and one locked by another forked from
    the same revision and ours is not :func:`contest_winner` there; else None. What a writer
    told ``201 Created`` (who never read back) finds after a pull when a rival accepted with
    ``202`` on the same revision won."""
    leaves = [leaf for leaf in leaves if not leaf.get("_deleted")]
    mine = [leaf for leaf in leaves if (info := lock_info(leaf)) is not None and info.holder == me]
    theirs = [leaf for leaf in leaves if (info := lock_info(leaf)) is not None and info.holder != me]
    for ours in mine:
        branch = branch_revs(ours)
        for rival in theirs:
            other = set(branch_revs(rival))
            fork = next((i for i, rev in enumerate(branch) if rev in other), None)
            if not fork:  # no shared revision, or ours is on the rival's branch
                continue
            child = branch[fork - 1]
            if contest_winner(branch[fork], child, [ours, rival]) != child:
                return ours, rival, child
    return None
