"""Where an import or a restore keeps its documents between reading the backup and writing them.

A Drafft import's passes over the whole backup (folders, expression images, Hotkeys) need only a
small summary of each document, and a restore must check the whole backup before writing any of
it; the documents themselves wait in a spool, in the backup's order, until they are written (and
validation reads the ones it asks about from there). :class:`MemorySpool` is a dict (a few
rows, the tests, ``convert_rows``); :class:`FileSpool` keeps them in an anonymous temporary
file (pickled, so every value comes back exactly as it went in, ``NaN`` included) and only their
offsets in memory, so a 100,000-document import holds one document at a time.
"""

from __future__ import annotations

import pickle
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


_SIZE_BITS = 40  # a document of up to 1 TiB
_SIZE_MASK = (1 << _SIZE_BITS) - 1


class FileSpool:
    """A :class:`Spool` in an anonymous temporary file (removed by the system when closed, even
    after a crash); a document's newer version is appended and its offset moves to it."""

    def __init__(self) -> None:
        # Open as long as the spool is (closed by close()), so no with-block.
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="storyloom-import-")  # noqa: SIM115
        # Each document's offset and size packed in one int (one small object per document).
        self._where: dict[str, int] = {}
        self._end = 0

    def put(self, doc: dict[str, Any]) -> None:
        data = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(self._end)
        self._file.write(data)
        self._where[doc["_id"]] = self._end << _SIZE_BITS | len(data)
        self._end += len(data)

    def get(self, doc_id: str) -> dict[str, Any]:
        where = self._where[doc_id]
        offset, size = where >> _SIZE_BITS, where & _SIZE_MASK
        self._file.seek(offset)
        doc: dict[str, Any] = pickle.loads(self._file.read(size))
        return doc

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._where

    def __len__(self) -> int:
        return len(self._where)

    def values(self) -> Iterator[dict[str, Any]]:
        for doc_id in list(self._where):
            yield self.get(doc_id)

    def close(self) -> None:
        self._file.close()
        self._where.clear()
