"""Where the project index keeps its summaries: an SQLite table beside the store, kept on disk.

The table (one row per current document: :class:`~storyloom.project.index.DocSummary` in
columns) lives in its own file, ``<store file>-index`` (mode 0600), so that reopening a project
costs reading the changes made since the table's recorded seq, not reading and decoding every
document again. It is a cache of the store and nothing else: it holds the store's instance id
and the seq it has caught up to, and when either does not match the store (a lost or foreign
file, a format change, a store replaced under it) it is emptied and rebuilt from the feed. It
is written without fsync (``synchronous=OFF``): a crash may lose its last updates or the whole
file, never the store's data, and the next catch-up puts it right. A store in memory gets a
table in memory.

Columns that hold what a document stores (``type``, ``collection``, ``name``) keep a string as
text and ``None`` as NULL; any other value (a number, a list: a malformed document) is pickled
into ``odd`` with a NULL column, and compared by value in Python. ``top`` is 1 for a document
with no string parent or whose parent is not current (the top level of the folder tree).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

FORMAT = "1"
SUFFIX = "-index"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS summary (
    id TEXT PRIMARY KEY,
    rev TEXT NOT NULL,
    type TEXT,
    collection TEXT,
    parent TEXT,
    sort_key TEXT,
    name TEXT,
    odd BLOB,
    is_tree INTEGER NOT NULL,
    top INTEGER NOT NULL,
    ord TEXT NOT NULL,
    sid TEXT,
    state BLOB,
    refs BLOB
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS summary_by_parent ON summary (parent, ord, id) WHERE parent IS NOT NULL;
CREATE INDEX IF NOT EXISTS summary_top ON summary (collection, ord, id) WHERE top = 1 AND is_tree = 1;
CREATE INDEX IF NOT EXISTS summary_by_type ON summary (type, id);
CREATE INDEX IF NOT EXISTS summary_by_sid ON summary (sid, id) WHERE sid IS NOT NULL;
CREATE TABLE IF NOT EXISTS scenario_refs (ref TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (ref, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS scenario_refs_by_id ON scenario_refs (id);
"""

#: The columns of a summary row, in table order (what ``row_of`` returns and ``SELECT_ROW`` reads).
COLUMNS = ("id", "rev", "type", "collection", "parent", "sort_key", "name", "odd", "is_tree", "ord", "sid",
           "state", "refs")
SELECT_ROW = "SELECT " + ", ".join(COLUMNS) + " FROM summary"
_INSERT = ("INSERT INTO summary (" + ", ".join(COLUMNS) + ", top) VALUES (" + ", ".join("?" * len(COLUMNS))
           + ", ?)")
#: Fields that leave their column NULL and go to ``odd`` when they are not text SQLite can hold.
ODD_FIELDS = ("type", "collection", "parent", "sort_key", "name", "sid")


def table_path(db: Any) -> str:
    """The file of ``db``'s index table (``":memory:"`` for a store in memory or without a file)."""
    path = getattr(db, "path", None)
    if not isinstance(path, str) or not path or path == ":memory:" or getattr(db, "_memory", False):
        return ":memory:"
    return path + SUFFIX


def split_odd(values: dict[str, Any]) -> tuple[dict[str, str | None], bytes | None]:
    """The ``ODD_FIELDS`` as columns (text or NULL) and the pickled values no column holds."""
    columns: dict[str, str | None] = {}
    odd: dict[str, Any] = {}
    for key in ODD_FIELDS:
        value = values[key]
        if value is None or (isinstance(value, str) and storable(value)):
            columns[key] = value
        else:
            columns[key] = None
            odd[key] = value
    return columns, (dumps(odd) if odd else None)


def odd_values(blob: bytes | None) -> dict[str, Any]:
    return {} if blob is None else pickle.loads(blob)


def storable(text: str) -> bool:
    """Whether SQLite can hold ``text`` (UTF-8: no lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def dumps(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def loads(blob: bytes | None) -> Any:
    return None if blob is None else pickle.loads(blob)


class IndexTable:
    """The SQLite connection of one :class:`~storyloom.project.index.ProjectIndex`. Not thread
    safe: the index serialises its use under its own lock."""

    def __init__(self, path: str) -> None:
        self.path = path
        if path != ":memory:" and not os.path.exists(path):
            with contextlib.suppress(FileExistsError):  # private, like the store beside it
                os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        self.conn = self._connect(path)

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        try:
            if path != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            conn.executescript(SCHEMA)
        except sqlite3.DatabaseError:
            conn.close()
            if path == ":memory:":
                raise
            # Not a database (a torn write after a crash, another program's file): start again.
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path + suffix)
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            conn.executescript(SCHEMA)
        return conn

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    # -- transactions and meta ------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One write transaction (taken at once, so a concurrent catch-up waits for this one)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def clear(self, instance: str) -> None:
        """Empty the table for the store ``instance`` (inside a write transaction)."""
        self.conn.execute("DELETE FROM summary")
        self.conn.execute("DELETE FROM scenario_refs")
        self.conn.execute("DELETE FROM meta")
        self.set_meta("format", FORMAT)
        self.set_meta("instance", instance)
        self.set_meta("seq", "0")

    def is_empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM summary LIMIT 1").fetchone() is None

    # -- writing rows (inside a write transaction) ----------------------------------------------

    def remove(self, doc_id: str) -> tuple[str | None, str | None, bool] | None:
        """Drop ``doc_id``'s row; returns its old ``(type, sid, has a state)``, or ``None`` when
        there was none. Its children now name a parent that is not there: they are top level."""
        old = self.conn.execute("SELECT type, sid, state IS NOT NULL, refs IS NOT NULL FROM summary WHERE id = ?",
                                (doc_id,)).fetchone()
        if old is None:
            return None
        self.conn.execute("DELETE FROM summary WHERE id = ?", (doc_id,))
        if old[3]:
            self.conn.execute("DELETE FROM scenario_refs WHERE id = ?", (doc_id,))
        self.conn.execute("UPDATE summary SET top = 1 WHERE parent = ? AND top = 0", (doc_id,))
        return old[0], old[1], bool(old[2])

    def add(self, row: Sequence[Any], refs: Iterable[str] | None) -> None:
        """Insert a summary row (no row for its id exists); its children are no longer top level."""
        doc_id, parent = row[0], row[4]
        top = parent is None or self.conn.execute(
            "SELECT 1 FROM summary WHERE id = ?", (parent,)).fetchone() is None
        self.conn.execute(_INSERT, (*row, 1 if top else 0))
        self.conn.execute("UPDATE summary SET top = 0 WHERE parent = ? AND top = 1", (doc_id,))
        if refs:
            self.conn.executemany("INSERT OR IGNORE INTO scenario_refs (ref, id) VALUES (?, ?)",
                                  [(ref, doc_id) for ref in refs])

    def add_many(self, rows: Sequence[tuple[Sequence[Any], Iterable[str] | None]]) -> None:
        """Insert rows into an empty table at once (the first build), ``top`` settled afterwards."""
        self.conn.executemany(_INSERT, [(*row, 0) for row, _ in rows])
        self.conn.executemany("INSERT OR IGNORE INTO scenario_refs (ref, id) VALUES (?, ?)",
                              [(ref, row[0]) for row, refs in rows if refs for ref in refs])

    def settle_top(self) -> None:
        self.conn.execute(
            "UPDATE summary SET top = CASE WHEN parent IS NULL OR NOT EXISTS "
            "(SELECT 1 FROM summary AS p WHERE p.id = summary.parent) THEN 1 ELSE 0 END"
        )

    # -- reading ----------------------------------------------------------------------------------

    def rows(self, where: str = "", params: Sequence[Any] = (), order: str = "") -> list[tuple[Any, ...]]:
        sql = SELECT_ROW + (f" WHERE {where}" if where else "") + (f" ORDER BY {order}" if order else "")
        return self.conn.execute(sql, params).fetchall()

    def row(self, doc_id: str) -> tuple[Any, ...] | None:
        return self.conn.execute(SELECT_ROW + " WHERE id = ?", (doc_id,)).fetchone()

    def column(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return [r[0] for r in self.conn.execute(sql, params).fetchall()]

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM summary").fetchone()[0])
