"""Which documents the tree and the tabs flag: in conflict (several versions to merge), or
holding an edit the server refused. Qt-free; kept current from the session's changes.

A conflict only appears when replication brings a version (``origin`` remote) and only goes
when a resolution or a newer merge is written, so :meth:`ConflictFlags.apply` rechecks the
documents a remote change touched and those flagged now; an import (thousands of documents)
costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from storyloom.app.events import DocumentChanged, Origin
from storyloom.project import Conflict, RefusedEdit, list_conflicts, list_refused


@dataclass(frozen=True)
class DocFlag:
    """What a document is flagged for: ``kind`` ``conflict`` or ``refused``, and the sentence a
    tooltip or a banner shows."""

    kind: str
    text: str


def conflict_text(conflict: Conflict) -> str:
    authors = [leaf.author or ("a deletion" if leaf.deleted else "someone") for leaf in conflict.leaves]
    names = ", ".join(dict.fromkeys(authors))
    return (f"In conflict: {len(conflict.leaves)} versions ({names}) were edited at the same time. "
            "Open the merge view to choose what to keep.")


def refused_text(edit: RefusedEdit) -> str:
    return (f"The server refused an edit made here: {edit.reason}. It is kept on this machine and listed "
            "until a merge settles it.")


class ConflictFlags:
    """The flagged documents of a project's store."""

    def __init__(self, db: object) -> None:
        self.db = db
        self.conflicts: dict[str, Conflict] = {}
        self.refused: dict[str, RefusedEdit] = {}

    def read(self) -> tuple[dict[str, Conflict], dict[str, RefusedEdit]]:
        """Every conflict and refused edit, read without changing the flags: safe on a worker
        thread while the flags are shown (a window's first read runs there)."""
        return {c.doc_id: c for c in list_conflicts(self.db)}, {r.doc_id: r for r in list_refused(self.db)}

    def rebuild(self) -> None:
        """Read every conflict and refused edit again."""
        self.conflicts, self.refused = self.read()

    def apply(self, changes: Iterable[DocumentChanged]) -> set[str]:
        """Follow a batch of changes; returns the ids whose flag changed."""
        touched = {c.id for c in changes if c.origin == Origin.REMOTE or c.id in self.conflicts or c.id in self.refused}
        if not touched:
            return set()
        before = {i: self.flag(i) for i in touched}
        for doc_id in touched:
            self.conflicts.pop(doc_id, None)
        self.conflicts.update({c.doc_id: c for c in list_conflicts(self.db, touched)})
        self.refused = {r.doc_id: r for r in list_refused(self.db)}
        return {i for i in touched if self.flag(i) != before[i]}

    def refresh_refused(self) -> set[str]:
        """Read the refused edits again (a push records or clears them without changing a
        document); returns the ids whose flag changed."""
        fresh = {r.doc_id: r for r in list_refused(self.db)}
        before = {i: self.flag(i) for i in set(self.refused) | set(fresh)}
        self.refused = fresh
        return {i for i, flag in before.items() if self.flag(i) != flag}

    def flag(self, doc_id: str) -> DocFlag | None:
        conflict = self.conflicts.get(doc_id)
        if conflict is not None:
            return DocFlag("conflict", conflict_text(conflict))
        edit = self.refused.get(doc_id)
        if edit is not None:
            return DocFlag("refused", refused_text(edit))
        return None

    def flagged(self) -> list[str]:
        return sorted(set(self.conflicts) | set(self.refused))
