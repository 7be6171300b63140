"""Where the project index keeps its summaries: an SQLite table, in memory while the project
is open and saved beside the store.

The table (one row per current document: :class:`~storyloom.project.index.DocSummary` in
columns) is saved in its own file, ``<store file>-index`` (mode 0600), so that reopening a
project costs loading that file (a page copy) and reading the changes made since the table's
recorded seq, not reading and decoding every document again. While the project is open the
table lives in memory: a write costs a few statements in memory, no file I/O beside the store's
own. It is saved whole (a copy renamed over the old file:
:class:`storyloom.output_files.AtomicWriter`, whose temporary file SQLite fills) after it is
built, after many changes, and when the index closes (:meth:`ProjectIndex.close`, the
session's close, or when the index is collected or the process exits). It is a cache of the store and nothing else: it
holds the store's instance id and the seq it has caught up to, and when either does not match
the store (a foreign file, a format change, a store replaced under it) it is rebuilt from the
feed; a crash loses the changes since the last save, never the store's data, and the next
catch-up reads them again. Two processes each keep their own copy; each save is a consistent
snapshot at its seq.

Columns that hold what a document stores (``type``, ``collection``, ``parent``, ``sort_key``,
``name``, ``sid``) keep text as text and ``None`` as NULL; any other value (a number, a list: a
malformed document; text SQLite cannot hold) is pickled into ``odd`` with a NULL column, and
compared by value in Python. ``top`` is 1 for a document with no string parent or whose parent
is not current (the top level of the folder tree).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from storyloom.output_files import AtomicWriter

FORMAT = "1"
SUFFIX = "-index"
#: The table's file is as private as the store's.
FILE_MODE = 0o600
#: SQLite's page cache of an on-disk build, in KiB.
SCRATCH_CACHE_KIB = 16 * 1024

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
CREATE INDEX IF NOT EXISTS summary_tree_parents ON summary (collection, parent, is_tree, top)
    WHERE is_tree = 1 AND top = 0;
CREATE INDEX IF NOT EXISTS summary_tree_kinds ON summary (collection, type, is_tree) WHERE is_tree = 1;
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
    """The table of one :class:`~storyloom.project.index.ProjectIndex`: an SQLite database in
    memory, loaded from ``path`` when it opens and written back to it by :meth:`save`. Not
    thread safe: the index serialises its use under its own lock."""

    def __init__(self, path: str, *, on_disk: bool = False) -> None:
        self.path = path
        #: ``on_disk``: a table built from nothing straight into a private scratch file beside
        #: ``path`` (SQLite's page cache in memory, not the table) and renamed over ``path`` by
        #: the first :meth:`save`: a build whose memory does not grow with the project (an
        #: import, restore or clone builds one before it closes the project).
        self._scratch: AtomicWriter | None = None
        self._in_place = False
        if on_disk and path != ":memory:":
            # The one atomic writer's temporary file (private, held while the build runs, so a
            # killed build's is removed by the next writer in the folder); SQLite fills it by name.
            self._scratch = AtomicWriter(path, mode=FILE_MODE)
            try:
                self.conn = sqlite3.connect(self._scratch.temp, isolation_level=None, check_same_thread=False)
                # A scratch file is worth nothing after a crash: no journal, no syncs until the rename.
                self.conn.execute("PRAGMA journal_mode = OFF")
                self.conn.execute("PRAGMA synchronous = OFF")
                self.conn.execute(f"PRAGMA cache_size = -{SCRATCH_CACHE_KIB}")
            except BaseException:
                self._scratch.abort()
                raise
            self.loaded = False
        else:
            self.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self.loaded = self._load()
        indexes = self._index_count()
        self.conn.executescript(SCHEMA)
        #: Changes applied since the table was loaded or saved (the index saves after many).
        self.unsaved = 0
        if self.loaded and self._index_count() != indexes:
            self.unsaved = 1  # an index this version adds, made now: saved with it, not made at each opening

    def _index_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index'").fetchone()[0])

    def _load(self) -> bool:
        """Copy the saved table into memory; False when there is none (or it is not one)."""
        if self.path == ":memory:" or not os.path.exists(self.path):
            return False
        try:
            source = sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True)
            try:
                source.backup(self.conn)
            finally:
                source.close()
            self.conn.execute("SELECT count(*) FROM meta").fetchone()
        except sqlite3.Error:
            # Not a table of ours (torn by a crash, another program's file): start empty.
            self.conn.close()
            self.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            return False
        return True

    def save(self) -> None:
        """Write the table to its file, whole and at once (a copy renamed over the old one, so
        a crash leaves the previous save); nothing for a table in memory."""
        if self.path == ":memory:":
            return
        if self._scratch is not None:
            self._save_scratch()
            return
        if self._in_place:  # the table is its file: each transaction is saved as it commits
            self.unsaved = 0
            return
        try:
            # A private temporary file SQLite copies the table into, renamed over the old file.
            # Not synced: a cache, rebuilt from the store when a crash tears it.
            with AtomicWriter(self.path, mode=FILE_MODE, durable=False) as out:
                target = sqlite3.connect(out.temp)
                try:
                    self.conn.backup(target)
                finally:
                    target.close()
        except OSError:  # a folder gone (the project deleted) or read-only: the store is what counts
            return
        self.unsaved = 0

    def _save_scratch(self) -> None:
        """An on-disk build's save: its file synced and renamed over ``path``, whole. The table
        then stays in that file (a rollback journal from now on), so its memory stays bounded;
        later saves have nothing to do."""
        scratch = self._scratch
        assert scratch is not None
        self._scratch = None
        self.conn.close()
        try:
            scratch.commit()  # synced, renamed over ``path``
            target = self.path
        except OSError:  # a folder gone (the project deleted) or read-only: the store is what counts
            target = ":memory:"  # (the temporary file is removed)
        self.conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        self.conn.execute(f"PRAGMA cache_size = -{SCRATCH_CACHE_KIB}")
        self._in_place = True
        self.unsaved = 0

    def close(self, *, save: bool = True) -> None:
        """Save (when changes were applied since the last save) and let go of the memory."""
        try:
            if save and self.unsaved:
                with contextlib.suppress(sqlite3.Error):
                    self.save()
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            if self._scratch is not None:  # a build never saved: nothing of it is kept
                self._scratch.abort()
                self._scratch = None

    # -- transactions and meta ------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction: a catch-up applies all of its changes or none."""
        self.conn.execute("BEGIN")
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
        """Start afresh for the store ``instance`` (inside a write transaction): the tables made
        again as this version defines them, empty."""
        for name in ("summary", "scenario_refs", "meta"):
            self.conn.execute(f"DROP TABLE IF EXISTS {name}")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                self.conn.execute(statement)
        self.set_meta("format", FORMAT)
        self.set_meta("instance", instance)
        self.set_meta("seq", "0")

    def remove_all(self) -> None:
        """Drop every row (inside a write transaction): a build that stopped half-way."""
        self.conn.execute("DELETE FROM summary")
        self.conn.execute("DELETE FROM scenario_refs")

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

    def put(self, row: Sequence[Any], refs: Iterable[str] | None) -> tuple[str | None, str | None, bool] | None:
        """Insert or replace a summary row; returns the old row's ``(type, sid, has a state)``
        like :meth:`remove`. A replaced document stays current, so its children keep their place."""
        doc_id, parent = row[0], row[4]
        old = self.conn.execute("SELECT type, sid, state IS NOT NULL, refs IS NOT NULL FROM summary WHERE id = ?",
                                (doc_id,)).fetchone()
        if old is None:
            self.add(row, refs)
            return None
        top = parent is None or (parent != doc_id and self.conn.execute(
            "SELECT 1 FROM summary WHERE id = ?", (parent,)).fetchone() is None)
        self.conn.execute(_INSERT.replace("INSERT INTO", "INSERT OR REPLACE INTO", 1), (*row, 1 if top else 0))
        if old[3]:
            self.conn.execute("DELETE FROM scenario_refs WHERE id = ?", (doc_id,))
        if refs:
            self.conn.executemany("INSERT OR IGNORE INTO scenario_refs (ref, id) VALUES (?, ?)",
                                  [(ref, doc_id) for ref in refs])
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
        found: tuple[Any, ...] | None = self.conn.execute(SELECT_ROW + " WHERE id = ?", (doc_id,)).fetchone()
        return found

    def column(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return [r[0] for r in self.conn.execute(sql, params).fetchall()]

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM summary").fetchone()[0])
