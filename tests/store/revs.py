"""Revision helpers shared by the store rule tests."""

from __future__ import annotations

from typing import Any

from storyloom.store import Database


def h(char: str) -> str:
    """A 32-hex revision hash made of one repeated character."""
    return char * 32


def r(pos: int, char: str) -> str:
    return f"{pos}-{h(char)}"


def replicate(db: Database, doc_id: str, start: int, chars: str, deleted: bool = False, **body: Any) -> None:
    """Write one path ``start-chars[0], start-1-chars[1], …`` with ``new_edits=False``; must succeed."""
    ids = [h(c) for c in chars]
    doc: dict[str, Any] = {"_id": doc_id, "_rev": f"{start}-{ids[0]}", "_revisions": {"start": start, "ids": ids}}
    doc.update(body)
    if deleted:
        doc["_deleted"] = True
    assert db.bulk_docs([doc], new_edits=False) == []


def leaf_revs(db: Database, doc_id: str) -> set[str]:
    return {entry["ok"]["_rev"] for entry in db.get(doc_id, open_revs="all")}


def sql(db: Database, query: str, params: tuple = ()) -> list[tuple]:
    """Look at the store's own tables (the layout of section 2.1)."""
    with db._write_lock:
        return db._writer.execute(query, params).fetchall()
