"""The exporters' per-revision memo kept on disk, beside the project's store.

Rendering scripts and parsing property text is most of a cold export's cost, and a document's
content never changes at a given ``_rev``: ``storyloom export`` of a project exported before (by
the CLI, the app or the API, on this machine) reads the results from ``export-cache.sqlite3`` in
the project's folder instead of computing them again. It is a cache and nothing else: never
replicated or backed up, rebuilt from nothing when it is missing, unreadable, or was written by
another version of the code that computes the results (a fingerprint of those source files, of
Python and of the ``marshal`` format); any error on it turns it off for the rest of the process,
never failing an export.

One row per document and kind of result (``export:<collection>``, ``variables``,
``scenario-parses``, ``map-size``): a new revision or a new context (the export mappings, the
variables' states) replaces the row, so the file stays about the size of one export's results.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import marshal
import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Generator, Hashable, Iterator
from functools import cache
from json.encoder import encode_basestring as _quoted  # how the key text's encoder writes strings
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FILE_NAME = "export-cache.sqlite3"
PENDING_BYTES = 8 << 20
"""New results are committed whenever this many bytes of them wait (and at the end of an export)."""

# The code whose results are kept: a change to any of these files makes the kept results stale.
_SOURCES = ("script", "project/content", "export/game_export.py", "export/schema_export.py",
            "export/attachments.py", "export/stream.py", "project/collections.py", "project/settings.py",
            "project/line_ids.py", "store/all_docs.py")


@cache
def code_fingerprint() -> str:
    """A digest of the sources that compute the kept results, of Python's version and of the
    ``marshal`` format the results are stored in. Where the package has no source files (a
    frozen build, a zip), the compiled code of the same modules, read from their loader."""
    import storyloom

    root = Path(storyloom.__file__).resolve().parent
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{sys.version}|{marshal.version}|{storyloom.__version__}".encode())
    for name in _SOURCES:
        path = root / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
        if not files:
            _digest_compiled(digest, "storyloom." + name.removesuffix(".py").replace("/", "."))
        for file in files:
            with contextlib.suppress(OSError):
                digest.update(str(file.relative_to(root)).encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


def _digest_compiled(digest: Any, module: str) -> None:
    """Add the compiled code of ``module`` and, for a package, of every module in it."""
    import importlib.util
    import pkgutil

    spec = importlib.util.find_spec(module)
    if spec is None or spec.loader is None:
        digest.update(f"missing:{module}".encode())
        return
    names = [module]
    if spec.submodule_search_locations is not None:
        names += sorted(info.name for info in pkgutil.walk_packages(spec.submodule_search_locations, module + "."))
    for name in names:
        found = importlib.util.find_spec(name)
        get_code = getattr(found.loader, "get_code", None) if found is not None else None
        code = get_code(name) if callable(get_code) else None
        digest.update(name.encode())
        digest.update(marshal.dumps(code) if code is not None else b"no code")


def slot(key: Hashable) -> tuple[str, str] | None:
    """``(document id, kind)`` of a memo key, or ``None`` for keys not kept on disk:
    ``("export", collection, id, rev, context)``, ``("json", collection, id, rev, deps)`` and
    ``(kind, id, rev)``."""
    if not isinstance(key, tuple) or not key or not isinstance(key[0], str):
        return None
    if key[0] in ("export", "json") and len(key) == 5 and isinstance(key[2], str):
        return key[2], f"{key[0]}:{key[1]}"
    if len(key) == 3 and isinstance(key[1], str):
        return key[1], key[0]
    return None


def _make_key_text() -> Callable[[Hashable], str]:
    """``json.dumps(key, ensure_ascii=False, separators=(",", ":"), default=str)`` with the stdlib's
    C encoder built once: built per call (as ``json.dumps`` does) it is most of a lookup's cost,
    one per exported document. The plain call when the C encoder is missing."""
    def plain(key: Hashable) -> str:
        return json.dumps(key, ensure_ascii=False, separators=(",", ":"), default=str)

    # Private to the stdlib (typeshed does not list it), hence looked up by name.
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    encode_basestring = json.encoder.encode_basestring
    if c_make_encoder is None:  # pragma: no cover
        return plain
    # No markers (no check for cycles, which keys never hold): a dict shared by threads would
    # see another thread's key as a cycle.
    encode = c_make_encoder(None, str, encode_basestring, None, ":", ",", False, False, True)

    def fast(key: Hashable) -> str:
        return "".join(encode(key, 0))

    return fast


_key_text = _make_key_text()


def revision_key_text(kind: str, doc_id: str, rev: str) -> str:
    """``_key_text((kind, doc_id, rev))``, the key text of a per-revision result, written directly
    (a scan compares one per document)."""
    return f"[{_quoted(kind)},{_quoted(doc_id)},{_quoted(rev)}]"


class DiskMemo:
    """The rows of ``export-cache.sqlite3``: :meth:`get` and :meth:`put` the ``marshal`` bytes of a
    result; writes are gathered and committed by :meth:`flush` (the end of an export)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str, str, bytes]] = []
        self._pending_bytes = 0
        self._conn: sqlite3.Connection | None = None
        self._empty = False  # nothing kept yet (a first export): lookups are skipped
        self.broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self.broken:
            return self._conn
        try:
            # Private as the store is (it holds the project's content); SQLite gives its -wal and
            # -shm files the same mode. (Not the one atomic writer of storyloom.output_files: the
            # cache is a live database changed in place by SQLite's transactions, never written
            # whole and renamed; a torn write is a miss.)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            conn = sqlite3.connect(self.path, timeout=0.5, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")  # a cache: a torn write is a miss, never an error
            conn.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            conn.execute("CREATE TABLE IF NOT EXISTS results (doc_id TEXT, kind TEXT, key TEXT, value BLOB, "
                         "PRIMARY KEY (doc_id, kind))")
            fingerprint = code_fingerprint()
            row = conn.execute("SELECT value FROM meta WHERE name = 'code'").fetchone()
            if row is None or row[0] != fingerprint:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("DELETE FROM results")
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)", (fingerprint,))
                conn.execute("COMMIT")
            self._empty = conn.execute("SELECT 1 FROM results LIMIT 1").fetchone() is None
        except (sqlite3.Error, OSError) as exc:
            self._fail(exc)
            return None
        self._conn = conn
        return conn

    def _fail(self, exc: Exception) -> None:
        log.warning("the export cache %s is off for this session: %s", self.path, exc)
        self.broken = True
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None

    def get(self, key: Hashable) -> bytes | None:
        where = slot(key)
        if where is None:
            return None
        with self._lock:
            conn = self._connect()
            if conn is None or self._empty:
                return None
            try:
                row = conn.execute("SELECT key, value FROM results WHERE doc_id = ? AND kind = ?", where).fetchone()
            except sqlite3.Error as exc:
                self._fail(exc)
                return None
        if row is None or row[0] != _key_text(key):
            return None
        return bytes(row[1])

    def put(self, key: Hashable, data: bytes) -> None:
        where = slot(key)
        if where is None or self.broken:
            return
        with self._lock:
            self._pending.append((*where, _key_text(key), data))
            self._pending_bytes += len(data)
            full = self._pending_bytes >= PENDING_BYTES
        if full:  # the first export of a large project: written as it goes, not held to the end
            self.flush()

    def flush(self) -> None:
        """Commit the results :meth:`put` since the last flush (one transaction)."""
        with self._lock:
            pending, self._pending = self._pending, []
            self._pending_bytes = 0
            if not pending:
                return
            conn = self._connect()
            if conn is None:
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?)", pending)
                conn.execute("COMMIT")
                self._empty = False
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                self._fail(exc)

    def clear(self) -> None:
        """Forget every kept result (the benchmark's first export of a project)."""
        with self._lock:
            self._pending.clear()
            self._pending_bytes = 0
            conn = self._connect()
            if conn is not None:
                try:
                    conn.execute("DELETE FROM results")
                    self._empty = True
                except sqlite3.Error as exc:
                    self._fail(exc)

    def scan(self, kind_prefix: str = "") -> Generator[tuple[str, str, str, bytes], None, None]:
        """Every kept row (whose kind starts with ``kind_prefix``), ``(doc_id, kind, key, value)``
        in ``doc_id`` order (the store's order of ``_id``s), read by a connection of its own: an
        export that walks its documents in ``_id`` order reads its results beside them, one
        sequential pass instead of a lookup per result (:class:`ReadAhead`)."""
        with self._lock:
            if self._connect() is None or self._empty:
                return
        try:
            conn = sqlite3.connect(self.path, timeout=0.5)
        except sqlite3.Error as exc:
            log.warning("the export cache %s cannot be read: %s", self.path, exc)
            return
        try:
            # The kind is compared before the value is read: the other rows' values are skipped.
            for doc_id, kind, key, value in conn.execute(
                "SELECT doc_id, kind, key, value FROM results WHERE substr(kind, 1, ?) = ? ORDER BY doc_id, kind",
                (len(kind_prefix), kind_prefix),
            ):
                yield doc_id, kind, key, bytes(value)
        except sqlite3.Error as exc:
            log.warning("the export cache %s cannot be read: %s", self.path, exc)
        finally:
            conn.close()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
            self._conn = None


def disk_memo_for(db: Any) -> DiskMemo | None:
    """The on-disk memo beside ``db``'s store file, ``None`` for a store in memory."""
    path = getattr(db, "path", None)
    if not isinstance(path, str) or not path or path == ":memory:" or path.startswith("file:"):
        return None
    store = Path(path)
    if not store.parent.is_dir():
        return None
    return DiskMemo(store.parent / FILE_NAME)


NOT_KEPT = object()
"""What :meth:`ReadAhead.lookup` answers for a result the scan shows is not on disk."""


class ReadAhead:
    """The kept rows of one document at a time, from :meth:`DiskMemo.scan`, for an export that
    reads its documents in ``_id`` order: :meth:`advance` to each document, then
    :meth:`lookup` answers its results from the rows read (``None`` for other documents)."""

    def __init__(self, rows: Iterator[tuple[str, str, str, bytes]], kind_prefix: str = "") -> None:
        self._rows = rows
        self._prefix = kind_prefix
        self._next = next(rows, None)
        self._doc_id: str | None = None
        self._current: dict[str, tuple[str, bytes]] = {}

    def advance(self, doc_id: str) -> None:
        self._doc_id = doc_id
        self._current = {}
        rows, row = self._rows, self._next
        while row is not None and row[0] < doc_id:
            row = next(rows, None)
        while row is not None and row[0] == doc_id:
            self._current[row[1]] = (row[2], row[3])
            row = next(rows, None)
        self._next = row

    def lookup(self, key: Hashable) -> bytes | object | None:
        """The kept bytes of ``key``, :data:`NOT_KEPT`, or ``None`` (not the current document, or
        a kind the scan did not read)."""
        where = slot(key)
        if where is None or where[0] != self._doc_id or not where[1].startswith(self._prefix):
            return None
        row = self._current.get(where[1])
        if row is None or row[0] != _key_text(key):
            return NOT_KEPT
        return row[1]

    def close(self) -> None:
        close = getattr(self._rows, "close", None)
        if close is not None:
            close()
