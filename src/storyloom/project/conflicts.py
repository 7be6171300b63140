"""Conflicted documents: listing, the automatic three-way merge, and resolution
(docs/locks-and-conflicts.md, "Conflicts").

A document is in conflict when its winner is live and another leaf is live too, or is a
deletion that no resolution superseded (an edit against a delete). A resolution writes the
resolved body on the winner and, in the same store transaction, a tombstone carrying
``"supersededBy": <the resolution's rev>`` on every other leaf; such tombstones end a conflict
and are never listed again (the server's lock rules accept them from anyone).

The automatic merge is deterministic: the merged body, its stamps (from the leaves, never the
clock) and the revision ids are functions of the leaves alone, so every machine that merges
the same leaves writes the same revisions and replication brings no new conflict.

Edits the server refused (403, lock enforcement) are kept by the replicator in its
"failed documents" ``_local`` lists; :func:`list_refused` reads them.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from storyloom.errors import StoryloomError
from storyloom.project.checking import ValidationError
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.dates import now_iso
from storyloom.project.documents import normalise_foreign_dates
from storyloom.project.locks import LOCK_FIELDS, LockRefused, lock_info
from storyloom.project.merge import merge_documents
from storyloom.store import Conflict as StoreConflict
from storyloom.store import NotFound, revtree

if TYPE_CHECKING:
    from storyloom.project.editor import Editor
    from storyloom.store import Database
    from storyloom.store.read_view import ReadView

#: The ``_local`` id prefix of the replicator's failed-documents lists
#: (``storyloom.sync.replicator.FAILED_DOCS_PREFIX``; the project layer does not import sync,
#: tests/team/test_conflicts.py checks the two agree).
REFUSED_PREFIX = "_local/storyloom-failed-"
SUPERSEDED_BY = "supersededBy"


class ConflictError(StoryloomError):
    """A resolution that cannot be made; ``exit_code`` is the CLI's (1 failed, 2 bad input)."""

    code = "conflict_unresolved"

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Leaf:
    """One leaf revision of a conflicted document: who wrote it (``modifiedBy``) and when
    (``modified``), ``None`` for a deletion, and the whole revision."""

    rev: str
    deleted: bool
    author: str | None
    time: str | None
    doc: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"rev": self.rev, "deleted": self.deleted, "author": self.author, "time": self.time, "doc": self.doc}


@dataclass(frozen=True)
class Conflict:
    """A conflicted document: its winner first in ``leaves``, then the other leaves, winner order."""

    doc_id: str
    name: str | None
    collection: str | None
    winner_rev: str
    leaves: list[Leaf]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "name": self.name, "collection": self.collection, "winner": self.winner_rev,
                "leaves": [leaf.to_json() for leaf in self.leaves]}


@dataclass(frozen=True)
class RefusedEdit:
    """A local revision the server refused (``reason`` is its message), still a leaf here."""

    doc_id: str
    revs: list[str]
    reason: str
    failed_at: float | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.doc_id, "revs": self.revs, "reason": self.reason, "failed_at": self.failed_at}


@dataclass
class AutoMergeReport:
    """``merged``: ``(doc_id, new rev)``; ``conflicts``: ids still in conflict (fields both
    sides changed, or no common ancestor kept); ``locked``: ``(doc_id, holder)`` skipped
    because another user holds the winner's lock; ``raced``: ids whose leaves changed while
    merging (left for the next run)."""

    merged: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    locked: list[tuple[str, str]] = field(default_factory=list)
    raced: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"merged": [{"id": i, "rev": r} for i, r in self.merged], "conflicts": self.conflicts,
                "locked": [{"id": i, "holder": h} for i, h in self.locked], "raced": self.raced}


# -- listing ---------------------------------------------------------------------------------


def _pending(leaf: dict[str, Any]) -> bool:
    """A leaf other than the winner that still needs a decision: live, or a deletion that no
    resolution superseded."""
    return not leaf.get("_deleted") or not leaf.get(SUPERSEDED_BY)


def list_conflicts(db: Any, doc_ids: Iterable[str] | None = None) -> list[Conflict]:
    """Every conflicted document (of ``doc_ids``, else all), by id.

    Reads the changes feed with every leaf (``style="all_docs"``: revision trees, no bodies),
    then the leaves of the documents with more than one; with ``doc_ids``, only their leaves.
    ``db`` is a ``Database`` or a ``ReadView`` (typed Any while storyloom.app.conflict_flags
    hands it over as a bare ``object``).
    """
    if doc_ids is not None:
        candidates = sorted({i for i in doc_ids if not i.startswith(("_design/", "_local/"))})
    else:
        rows = db.changes(style="all_docs")["results"]
        candidates = sorted(row["id"] for row in rows if len(row["changes"]) > 1 and not row.get("deleted")
                            and not row["id"].startswith("_design/"))
    found = [_conflict(db, doc_id) for doc_id in candidates]
    return [conflict for conflict in found if conflict is not None]


def _conflict(db: Database | ReadView, doc_id: str) -> Conflict | None:
    docs = [entry["ok"] for entry in db.get(doc_id, open_revs="all") if "ok" in entry]
    docs.sort(key=lambda d: revtree.leaf_sort_key(revtree.Leaf(*revtree.parse_rev(d["_rev"]),
                                                                bool(d.get("_deleted")))), reverse=True)
    if not docs or docs[0].get("_deleted"):
        return None
    winner, others = docs[0], [d for d in docs[1:] if _pending(d)]
    if not others:
        return None
    leaves = [_leaf(doc) for doc in (winner, *others)]
    name = winner.get("name") if isinstance(winner.get("name"), str) else None
    collection = winner.get("collection") if isinstance(winner.get("collection"), str) else None
    return Conflict(doc_id, name, collection, winner["_rev"], leaves)


def _leaf(doc: dict[str, Any]) -> Leaf:
    author, time = doc.get("modifiedBy"), doc.get("modified")
    return Leaf(doc["_rev"], bool(doc.get("_deleted")), author if isinstance(author, str) else None,
                time if isinstance(time, str) else None, doc)


def list_refused(store: Any) -> list[RefusedEdit]:
    """The local edits the server refused (403 ``forbidden``), as the replicator recorded them,
    that are still leaves here (a resolution or a newer edit supersedes them)."""
    rows = store.local_docs(startkey=REFUSED_PREFIX, endkey=REFUSED_PREFIX + "\uffff", include_docs=True)["rows"]
    by_id: dict[str, RefusedEdit] = {}
    for row in rows:
        entries = row["doc"].get("docs")
        for doc_id, entry in sorted((entries or {}).items()) if isinstance(entries, dict) else ():
            if not isinstance(entry, dict) or entry.get("error") != "forbidden":
                continue
            revs = [r for r in entry.get("revs") or [] if isinstance(r, str)]
            leaves = _leaf_revs(store, doc_id)
            revs = [r for r in revs if r in leaves]
            if not revs:
                continue
            known = by_id.get(doc_id)
            failed_at = entry.get("failed_at") if isinstance(entry.get("failed_at"), int | float) else None
            if known is not None:
                revs = sorted(set(known.revs) | set(revs))
            by_id[doc_id] = RefusedEdit(doc_id, revs, str(entry.get("reason") or "forbidden"), failed_at)
    return [by_id[i] for i in sorted(by_id)]


def _leaf_revs(db: Database | ReadView, doc_id: str) -> set[str]:
    return {entry["ok"]["_rev"] for entry in db.get(doc_id, open_revs="all") if "ok" in entry}


# -- the common ancestor ---------------------------------------------------------------------


def _path(db: Database | ReadView, doc_id: str, rev: str) -> list[str]:
    """``rev`` and its ancestors, newest first (``revs=True``)."""
    revisions = db.get(doc_id, rev=rev, revs=True).get("_revisions") or {"start": 0, "ids": []}
    return [f"{revisions['start'] - i}-{h}" for i, h in enumerate(revisions["ids"])]


def common_ancestor(db: Database | ReadView, doc_id: str, rev_a: str, rev_b: str) -> dict[str, Any] | None:
    """The nearest common ancestor of two revisions whose body is kept, or ``None``."""
    theirs = set(_path(db, doc_id, rev_b))
    for rev in _path(db, doc_id, rev_a)[1:]:
        if rev in theirs:
            try:
                return db.get(doc_id, rev=rev)
            except NotFound:
                continue  # its body is no longer kept: an older common ancestor may be
    return None


# -- writing a resolution --------------------------------------------------------------------


def _canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _child(doc_id: str, parent_rev: str, body: dict[str, Any], deleted: bool) -> dict[str, Any]:
    """A revision on ``parent_rev`` whose id is derived from the parent and the body (the same
    on every machine), with the ``_revisions`` that places it in the tree."""
    pos, parent_hash = revtree.parse_rev(parent_rev)
    digest = hashlib.sha1(f"{parent_rev}\n{int(deleted)}\n".encode() + _canonical(body)).hexdigest()[:32]
    doc: dict[str, Any] = {"_id": doc_id, "_rev": f"{pos + 1}-{digest}", **body}
    if deleted:
        doc["_deleted"] = True
    doc["_revisions"] = {"start": pos + 1, "ids": [digest, parent_hash]}
    return doc


def _write(editor: Editor, conflict: Conflict, body: dict[str, Any] | None) -> str:
    """Write ``body`` (``None``: a deletion) on the winner, tombstones on the other leaves.
    Raises ``LockRefused`` when, in a team project, another leaf carries another user's lock:
    the server's lock rules refuse a tombstone of a revision someone else holds (only the holder
    resolves it away, or releases it first), so it is not written here either."""
    holder = getattr(editor.lock_policy, "holder", None)
    if callable(holder):
        me = str(holder())
        for leaf in conflict.leaves[1:]:
            held = lock_info(leaf.doc)
            if held is not None and held.holder != me:
                when = f" since {held.since}" if held.since else ""
                raise LockRefused(conflict.doc_id, held.holder, held.since, message=(
                    f"document {conflict.doc_id!r} has a conflict revision ({leaf.rev}) locked by "
                    f"{held.holder}{when}: only {held.holder} may resolve it away; ask them to unlock it "
                    "or to resolve the conflict"))
    resolution = _child(conflict.doc_id, conflict.winner_rev, body or {}, body is None)
    tombstones = [_child(conflict.doc_id, leaf.rev, {SUPERSEDED_BY: resolution["_rev"]}, True)
                  for leaf in conflict.leaves[1:]]
    all_leaves = _leaf_revs(editor.db, conflict.doc_id)
    # Resolved tombstones (supersededBy) are leaves too; the resolution must see them unchanged.
    if not {leaf.rev for leaf in conflict.leaves} <= all_leaves:
        raise StoreConflict()
    editor.write_resolution(resolution, tombstones, all_leaves)
    return str(resolution["_rev"])


def _lock_holder(editor: Any) -> str:
    """Whose locks this editor's writes may pass: the lock policy's holder, else the user."""
    holder = getattr(editor.lock_policy, "holder", None)
    return str(holder()) if callable(holder) else str(editor.username)


def _merged_body(db: Database | ReadView, conflict: Conflict) -> dict[str, Any] | Literal[False] | None:
    """The merge of every leaf into the winner (a body, ``None`` for a deletion), or ``False``
    when some field conflicts or a leaf has no kept common ancestor with the winner."""
    winner = conflict.leaves[0]
    current: dict[str, Any] | None = winner.doc
    for leaf in conflict.leaves[1:]:
        base = common_ancestor(db, conflict.doc_id, winner.rev, leaf.rev)
        if base is None:
            return False
        outcome = merge_documents(base, current, leaf.doc)
        if not outcome.clean:
            return False
        current = None if outcome.deleted else outcome.merged
    if current is None:
        return None if conflict.doc_id != SETTINGS_ID else False  # settings are never deleted
    body = {k: v for k, v in current.items() if not k.startswith("_") or k == "_attachments"}
    # A Drafft teammate's stamps, as the project writes them (the same on every machine that merges).
    normalise_foreign_dates(body)
    return body


def auto_merge(editor: Any, doc_ids: Iterable[str] | None = None) -> AutoMergeReport:
    """Merge every conflicted document (of ``doc_ids``) whose leaves merge cleanly, through the
    editor's gate; documents of which another user holds the lock of the winner or of another
    leaf are left alone (their holder's machine merges them, or a lost lock is released first)."""
    report = AutoMergeReport()
    me = _lock_holder(editor)
    for conflict in list_conflicts(editor.db, doc_ids):
        held = lock_info(conflict.leaves[0].doc)
        if held is not None and held.holder != me:
            report.locked.append((conflict.doc_id, held.holder))
            continue
        body = _merged_body(editor.db, conflict)
        if body is False:
            report.conflicts.append(conflict.doc_id)
            continue
        # A merge that carries another user's lock (taken on the losing branch) is theirs to
        # write: the server refuses a lock written in someone else's name.
        merged_lock = lock_info(body) if body else None
        if merged_lock is not None and merged_lock.holder != me:
            report.locked.append((conflict.doc_id, merged_lock.holder))
            continue
        try:
            rev = _write(editor, conflict, body)
        except StoreConflict:
            report.raced.append(conflict.doc_id)
            continue
        except LockRefused as exc:  # the gate knows better than the winner's fields (a policy)
            report.locked.append((conflict.doc_id, exc.holder))
            continue
        except ValidationError:  # the merged document is not valid: a person decides
            report.conflicts.append(conflict.doc_id)
            continue
        report.merged.append((conflict.doc_id, rev))
    return report


def resolve(editor: Any, doc_id: str, *, take: str | None = None, merged: dict[str, Any] | None = None) -> str:
    """Resolve a conflict by taking the leaf ``take`` or by writing ``merged`` (a document);
    returns the resolution's rev. The winner's lock fields stay as they are (locks change
    only by locking); taking a leaf keeps its stamps, a merged document is stamped now by the
    editor's user. Raises ``ConflictError`` (not in conflict, unknown leaf, bad document),
    ``LockRefused`` (another user holds the lock), ``ValidationError`` (invalid document)."""
    if (take is None) == (merged is None):
        raise ConflictError("resolve needs exactly one of take (a leaf rev) or merged (a document)", 2)
    found = list_conflicts(editor.db, [doc_id])
    if not found:
        raise ConflictError(f"document {doc_id!r} is not in conflict: nothing to resolve")
    conflict = found[0]
    winner = conflict.leaves[0].doc
    if take is not None:
        leaf = next((leaf for leaf in conflict.leaves if leaf.rev == take), None)
        if leaf is None:
            revs = ", ".join(leaf.rev for leaf in conflict.leaves)
            raise ConflictError(f"{take!r} is not a leaf of {doc_id!r} in conflict; its leaves: {revs}", 2)
        body = None if leaf.deleted else _own_fields(leaf.doc)
        if body is not None:
            normalise_foreign_dates(body)  # a Drafft teammate's leaf: its stamps as the project writes them
    else:
        assert merged is not None
        if merged.get("_id", doc_id) != doc_id:
            raise ConflictError(f"the merged document is {merged.get('_id')!r}, not {doc_id!r}", 2)
        body = None if merged.get("_deleted") else _own_fields(merged)
        if body is not None:
            if "_attachments" not in merged and "_attachments" in winner:
                body["_attachments"] = copy.deepcopy(winner["_attachments"])
            body["modified"] = now_iso()
            body["modifiedBy"] = editor.username
    if body is None and doc_id == SETTINGS_ID:
        raise ConflictError("the settings document cannot be deleted: take a live revision", 2)
    if body is not None:
        for key in LOCK_FIELDS:
            body.pop(key, None)
            if key in winner:
                body[key] = copy.deepcopy(winner[key])
    return _write(editor, conflict, body)


def _own_fields(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in doc.items() if not k.startswith("_") or k == "_attachments"}
