"""Conflicts made the way replication makes them, without a server: a second store gets the
document's history (``bulk_docs(new_edits=False)``, as a pull writes it), another user edits it
there through an editor, and that leaf comes back into the first store the same way."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from storyloom.project.editor import Editor
from storyloom.store import Database


def copy_revision(source: Any, target: Any, doc_id: str, rev: str | None = None) -> None:
    """Write ``rev`` (the winner by default) of ``doc_id`` from ``source`` into ``target`` with its
    history, as replication does."""
    doc = source.get(doc_id, rev=rev, revs=True, attachments=True) if rev else source.get(
        doc_id, revs=True, attachments=True)
    failures = target.bulk_docs([doc], new_edits=False)
    assert not failures, failures


def edit_elsewhere(db: Any, doc_id: str, user: str, folder: Path, from_rev: str | None = None,
                   **changes: Any) -> str:
    """Another machine's edit of ``doc_id``: revision ``from_rev`` (the current one by default)
    copied to a store of ``user``'s, changed there (``content_<key>=`` sets a key of
    ``content``), and the new leaf written back into ``db``. Returns the leaf's rev; with a
    ``from_rev`` older than the current revision, ``db`` then holds a conflict."""
    folder.mkdir(parents=True, exist_ok=True)
    other = Database(str(folder / f"{user}-{doc_id.replace('/', '_')}.sqlite"))
    try:
        copy_revision(db, other, doc_id, from_rev or str(db.get(doc_id)["_rev"]))
        doc = copy.deepcopy(other.get(doc_id))
        for key, value in changes.items():
            if key.startswith("content_"):
                doc.setdefault("content", {})[key.removeprefix("content_")] = value
            else:
                doc[key] = value
        rev = Editor(other, username=user).update(doc).rev
        copy_revision(other, db, doc_id, rev)
        return rev
    finally:
        other.close()
