"""The store's SQLite schema (docs/store.md, "Storage layout") and the check that an existing
file is a Storyloom store before it is opened for writing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storyloom.store.errors import NotAStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id TEXT PRIMARY KEY,
    rev_tree TEXT NOT NULL,
    winning_rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    seq INTEGER NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS revs (
    doc_id TEXT NOT NULL,
    rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (doc_id, rev)
);
CREATE TABLE IF NOT EXISTS attachments (
    digest TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    length INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS att_refs (
    digest TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    rev TEXT NOT NULL,
    PRIMARY KEY (digest, doc_id, rev)
);
CREATE INDEX IF NOT EXISTS att_refs_by_doc ON att_refs (doc_id, rev);
CREATE TABLE IF NOT EXISTS local_docs (
    id TEXT PRIMARY KEY,
    rev INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


_SQLITE_HEADER = b"SQLite format 3\x00"


def check_is_store(path: str) -> None:
    """Refuse an existing file that is not a Storyloom store, reading it only (read-only
    connection, so not even the journal mode of another program's database changes)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise NotAStore(f"cannot read {path}: {exc.strerror or exc}") from None
    if header != _SQLITE_HEADER:
        raise NotAStore(f"{path} is not a Storyloom store (not an SQLite database)")
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'instance_uuid'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise NotAStore(f"{path} is not a Storyloom store ({exc})") from None
    if row is None:
        raise NotAStore(f"{path} is not a Storyloom store (it has no instance id)")
