"""The store's SQLite schema (docs/store.md, "Storage layout") and the check that an existing
file is a Storyloom store before it is opened for writing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storyloom.store.errors import Damaged, NotAStore
from storyloom.store.integrity import docs_crc, local_crc, revs_crc, translate

SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id TEXT PRIMARY KEY,
    rev_tree TEXT NOT NULL,
    winning_rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    seq INTEGER NOT NULL UNIQUE,
    crc INTEGER
);
CREATE TABLE IF NOT EXISTS revs (
    doc_id TEXT NOT NULL,
    rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    body TEXT NOT NULL,
    crc INTEGER,
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
    body TEXT NOT NULL,
    crc INTEGER
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
        # A full or failing disk is said as such. A file that SQLite cannot read is not a store
        # as far as this file alone shows; a project's own store says "damaged" (the project
        # manager knows it was one).
        named = translate(exc, path, writing=False)
        if named is not None and not isinstance(named, Damaged):
            raise named from None
        raise NotAStore(f"{path} is not a Storyloom store ({exc})") from None
    if row is None:
        raise NotAStore(f"{path} is not a Storyloom store (it has no instance id)")


def upgrade(cur: sqlite3.Cursor) -> None:
    """Bring a store written by an earlier Storyloom up to this schema, inside the caller's
    transaction: the checksum columns (storyloom.store.integrity), filled in for every row, so
    from now on damage to any row is found. Runs once; a store of this version costs one
    ``PRAGMA table_info`` per open."""
    columns = {row[1] for row in cur.execute("PRAGMA table_info(docs)")}
    if "crc" in columns:
        return
    for table in ("docs", "revs", "local_docs"):
        cur.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")
    rows = cur.execute("SELECT id, rev_tree, winning_rev, deleted, seq FROM docs").fetchall()
    cur.executemany("UPDATE docs SET crc = ? WHERE id = ?", [(docs_crc(*row), row[0]) for row in rows])
    del rows
    last = -1
    while True:  # in rowid slices, so a big store's bodies are never all in memory
        chunk = cur.execute("SELECT rowid, doc_id, rev, deleted, body FROM revs WHERE rowid > ? ORDER BY rowid "
                            "LIMIT 2000", (last,)).fetchall()
        if not chunk:
            break
        cur.executemany("UPDATE revs SET crc = ? WHERE rowid = ?",
                        [(revs_crc(doc_id, rev, deleted, body), rowid) for rowid, doc_id, rev, deleted, body in chunk])
        last = chunk[-1][0]
    rows = cur.execute("SELECT id, rev, body FROM local_docs").fetchall()
    cur.executemany("UPDATE local_docs SET crc = ? WHERE id = ?", [(local_crc(*row), row[0]) for row in rows])
