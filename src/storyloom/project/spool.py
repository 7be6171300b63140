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
from collections.abc import Iterator
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
