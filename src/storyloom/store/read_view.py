"""``ReadView``: a database as the layers above the editor see it, with the reads and none of
the writes. A project hands this out as ``Project.db``, so a document can only be written
through the editor's gate (and, by replication, through the store itself)."""

from __future__ import annotations

from typing import Any

from storyloom.store.database import Database

#: The read side of :class:`Database`, and nothing else.
READ_METHODS = frozenset({
    "info", "update_seq", "get", "all_docs", "all_docs_stream", "changes", "revs_diff", "bulk_get",
    "get_local", "local_docs", "get_attachment", "subscribe", "wait_for_change", "snapshot", "name", "path",
    "revs_limit", "kept_bodies",
})


class ReadView:
    """The reads of ``db``; a write method raises ``AttributeError`` naming the way to write."""

    __slots__ = ("__weakref__", "_db")

    def __init__(self, db: Database) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        if name in READ_METHODS:
            return getattr(self._db, name)
        if hasattr(self._db, name):
            raise AttributeError(
                f"{name!r} is not offered on a project's read view: documents are written through "
                "the project's editor (project.editor), which checks locks and validation"
            )
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"ReadView({self._db!r})"
