"""Where an import or a restore keeps its documents between reading the backup and writing them.

A Drafft import's passes over the whole backup (folders, expression images, Hotkeys) need only a
small summary of each document, and a restore must check the whole backup before writing any of
it; the documents themselves wait in a spool, in the backup's order, until they are written (and
validation reads the ones it asks about from there). :class:`MemorySpool` is a dict (a few
rows, the tests, ``convert_rows``); :class:`FileSpool` keeps them in an anonymous temporary
file (pickled, so every value comes back exactly as it went in, ``NaN`` included) and only their
places in a temporary SQLite database, so an import holds one document at a time, whatever its size.
"""

from __future__ import annotations

import pickle
import sqlite3
import tempfile
from collections.abc import Iterator, MutableMapping
from typing import IO, Any, Protocol


class Spool(Protocol):
    def put(self, doc: dict[str, Any]) -> None:
        """Keep ``doc`` under its ``_id`` (a document already there keeps its place)."""

    def get(self, doc_id: str) -> dict[str, Any]:
        """The document kept under ``doc_id`` (``KeyError`` when there is none)."""

    def __contains__(self, doc_id: object) -> bool: ...

    def __len__(self) -> int: ...

    def values(self) -> Iterator[dict[str, Any]]:
        """Every document, in the order they were first put."""

    def close(self) -> None: ...


class MemorySpool:
    """A :class:`Spool` in a dict."""

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, Any]] = {}

    def put(self, doc: dict[str, Any]) -> None:
        self._docs[doc["_id"]] = doc

    def get(self, doc_id: str) -> dict[str, Any]:
        return self._docs[doc_id]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def values(self) -> Iterator[dict[str, Any]]:
        return iter(list(self._docs.values()))

    def close(self) -> None:
        self._docs.clear()


#: Places read from the index at a time while :meth:`FileSpool.values` walks it.
_PAGE = 1000


class FileSpool:
    """A :class:`Spool` in an anonymous temporary file (removed by the system when closed, even
    after a crash); a document's newer version is appended and its offset moves to it.

    Where each document is (its offset and size, in the order first put) is kept in a private
    temporary SQLite database, not in a dict: in a dict, an id and its place held 17 MB of a
    40,000-document restore (0.4 KB a document with the id strings the backup's parser made),
    200 MB at 500,000; SQLite keeps its pages on disk beyond a small cache (issue 28: memory
    flat at any size)."""

    def __init__(self) -> None:
        # Open as long as the spool is (closed by close()), so no with-block.
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="storyloom-import-")  # noqa: SIM115
        # "": a private temporary database on disk, deleted when closed (SQLite's own).
        self._index = sqlite3.connect("", check_same_thread=False)
        self._index.execute("PRAGMA cache_size = -4096")  # KiB: a bounded cache
        self._index.execute("CREATE TABLE place (id TEXT PRIMARY KEY, offset INTEGER NOT NULL, size INTEGER NOT NULL)")
        self._count = 0
        self._end = 0

    def put(self, doc: dict[str, Any]) -> None:
        data = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(self._end)
        self._file.write(data)
        # A newer version of a document moves its offset and keeps its place (its rowid).
        place = (doc["_id"], self._end, len(data))
        if self._index.execute("INSERT OR IGNORE INTO place (id, offset, size) VALUES (?, ?, ?)", place).rowcount:
            self._count += 1
        else:
            self._index.execute("UPDATE place SET offset = ?, size = ? WHERE id = ?", (place[1], place[2], place[0]))
        self._end += len(data)

    def get(self, doc_id: str) -> dict[str, Any]:
        found = self._index.execute("SELECT offset, size FROM place WHERE id = ?", (doc_id,)).fetchone()
        if found is None:
            raise KeyError(doc_id)
        return self._read(*found)

    def _read(self, offset: int, size: int) -> dict[str, Any]:
        self._file.seek(offset)
        doc: dict[str, Any] = pickle.loads(self._file.read(size))
        return doc

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, str):
            return False
        return self._index.execute("SELECT 1 FROM place WHERE id = ?", (doc_id,)).fetchone() is not None

    def __len__(self) -> int:
        return self._count

    def values(self) -> Iterator[dict[str, Any]]:
        """Every document kept when the walk starts, in the order first put (a page of places at
        a time: a document put meanwhile is not met, a newer version of one is)."""
        after, last = 0, self._index.execute("SELECT max(rowid) FROM place").fetchone()[0] or 0
        while True:
            page = self._index.execute(
                "SELECT rowid, offset, size FROM place WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
                (after, last, _PAGE),
            ).fetchall()
            if not page:
                return
            for rowid, offset, size in page:
                after = rowid
                yield self._read(offset, size)

    def close(self) -> None:
        self._file.close()
        self._index.close()


class DiskMapping(MutableMapping[str, Any]):
    """A dict from document ids to small values (pickled) in a private temporary SQLite database:
    what an import keeps per document (summaries, labels, digests) without holding it in memory
    (issue 28: memory flat at any size). Ids keep the order they were first set in (a value set
    again keeps its place); a value read is a fresh copy, so a changed one is set again to keep it.

    Mappings made with ``like=`` share that one's database (one file, one bounded page cache).
    Iterating walks a page of rows at a time, so setting values meanwhile is safe (an id set
    meanwhile may or may not be met)."""

    def __init__(self, like: DiskMapping | None = None) -> None:
        if like is None:
            # "": a private temporary database on disk, deleted when closed (SQLite's own).
            self._db = sqlite3.connect("", check_same_thread=False)
            self._db.execute("PRAGMA cache_size = -4096")  # KiB: a bounded cache
            self._tables = [0]
        else:
            self._db, self._tables = like._db, like._tables
            self._tables[0] += 1
        self._table = f"mapping{self._tables[0]}"
        self._db.execute(f"CREATE TABLE {self._table} (id TEXT PRIMARY KEY, value BLOB NOT NULL)")

    def __getitem__(self, doc_id: str) -> Any:
        found = self._db.execute(f"SELECT value FROM {self._table} WHERE id = ?", (doc_id,)).fetchone()
        if found is None:
            raise KeyError(doc_id)
        return pickle.loads(found[0])

    def __setitem__(self, doc_id: str, value: Any) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        # An upsert keeps the row (its rowid: its place in the order).
        self._db.execute(f"INSERT INTO {self._table} (id, value) VALUES (?, ?) "
                         "ON CONFLICT (id) DO UPDATE SET value = excluded.value", (doc_id, data))

    def __delitem__(self, doc_id: str) -> None:
        if not self._db.execute(f"DELETE FROM {self._table} WHERE id = ?", (doc_id,)).rowcount:
            raise KeyError(doc_id)

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, str):
            return False
        return self._db.execute(f"SELECT 1 FROM {self._table} WHERE id = ?", (doc_id,)).fetchone() is not None

    def __len__(self) -> int:
        return int(self._db.execute(f"SELECT count(*) FROM {self._table}").fetchone()[0])

    def _rows(self) -> Iterator[tuple[str, bytes]]:
        after = 0
        while True:
            page = self._db.execute(
                f"SELECT rowid, id, value FROM {self._table} WHERE rowid > ? ORDER BY rowid LIMIT ?", (after, _PAGE)
            ).fetchall()
            if not page:
                return
            after = page[-1][0]
            for _, doc_id, data in page:
                yield doc_id, data

    def __iter__(self) -> Iterator[str]:
        return (doc_id for doc_id, _ in self._rows())

    def items(self) -> Iterator[tuple[str, Any]]:  # type: ignore[override]  # streamed, not a view
        return ((doc_id, pickle.loads(data)) for doc_id, data in self._rows())

    def values(self) -> Iterator[Any]:  # type: ignore[override]  # streamed, not a view
        return (pickle.loads(data) for _, data in self._rows())

    def clear(self) -> None:
        self._db.execute(f"DELETE FROM {self._table}")

    def close(self) -> None:
        """Close the database (every mapping sharing it too)."""
        self._db.close()
