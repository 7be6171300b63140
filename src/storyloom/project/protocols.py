"""What the layers above need of an open project, as one protocol.

:class:`storyloom.project.manager.Project` is the implementation; the export, the API and the
session accept anything that has these (tests pass small stand-ins).
"""

from __future__ import annotations

from typing import Any, Protocol

from storyloom.store import Database, StoreError
from storyloom.store.read_view import ReadView


class ProjectLike(Protocol):
    """An open project: its store (for reads), id, name and ProjectSettings document."""

    @property
    def db(self) -> Any: ...

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    def settings(self) -> dict[str, Any]: ...


def collection_of_revision(
    db: Database | ReadView, doc_id: str, rev: str | None, deleted: bool, doc: dict[str, Any] | None = None
) -> str | None:
    """The app collection name of a document at revision ``rev`` (what a changes-feed entry
    names); for a deletion, read from the revision before it (a tombstone keeps no fields).
    ``doc`` is the revision's body when the caller has it already."""
    if doc_id.startswith("_design/"):
        return None
    try:
        if doc is None or deleted:
            doc = db.get(doc_id, rev=rev, revs=deleted)
        collection = doc.get("collection") or doc.get("type")
        if not collection and deleted:
            revisions = doc.get("_revisions") or {}
            ids = revisions.get("ids") or []
            start = revisions.get("start")
            if isinstance(start, int) and len(ids) > 1:
                parent = db.get(doc_id, rev=f"{start - 1}-{ids[1]}")
                collection = parent.get("collection") or parent.get("type")
    except StoreError:
        return None
    return collection if isinstance(collection, str) else None
