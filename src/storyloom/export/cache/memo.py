"""A per-store memo of what the exporters compute from one document revision.

Parsing property text, variables, scenarios and scripts is most of an export's cost, and a
document's content never changes at a given ``_rev``. While a project stays open (the desktop
app, the API answering a game engine that re-exports on every change), the exporters keep the
result for each ``(kind, _id, _rev, context)`` here, so a repeated export only re-parses the
documents that changed. ``context`` holds whatever else the result depends on (the export
mappings, the default language, a fingerprint of the variables' states).

Results are stored serialised (``marshal``: several times faster than a JSON round trip both
ways, and exact for JSON values) and decoded afresh on every hit: callers own what they get and
may modify it. Entries that no export used in the last few runs (older revisions, deleted
documents, older export mappings) are dropped, so the memo stays about the size of the project.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import threading
import weakref
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from storyloom.export.cache.disk import NOT_KEPT, DiskMemo, ReadAhead, disk_memo_for

_MISS = object()


class ContentCache:
    """Memo of JSON-able results keyed by hashable keys (see the module docstring)."""

    KEEP_GENERATIONS = 3
    """A result unused by this many exports in a row is forgotten."""

    MEMORY_BYTES_WITH_DISK = 32 << 20
    """With results kept on disk, memory holds at most this many bytes of them (32 MiB) (the first ones
    met; the others are read from disk on each use), so a large project's memo stays bounded."""

    def __init__(self, disk: DiskMemo | None = None, max_bytes: int | None = None) -> None:
        self.disk = disk
        """The results kept on disk beside the store (:mod:`storyloom.export.cache.disk`): asked
        on a miss, given every new result."""
        self.max_bytes = max_bytes if max_bytes is not None else (
            self.MEMORY_BYTES_WITH_DISK if disk is not None else None)
        """Bytes of results held in memory at most (``None``: no bound); past it, new results
        go to disk only. Not least-recently-used: an export walks every document in the same
        order, which would evict every entry just before its next use."""
        self._bytes = 0
        self._entries: dict[Hashable, bytes] = {}
        self._last_used: dict[Hashable, int] = {}
        self._generation = 0
        self._lock = threading.Lock()
        self._thread = threading.local()  # the ReadAhead of the export running on this thread
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    # Every read or write of ``_entries``, ``_last_used`` and the counters holds ``_lock``:
    # exports run in several threads (the API) and ``trim`` iterates ``_last_used``. Encoding
    # and decoding (``marshal``) happen outside it.

    def get(self, key: Hashable) -> Any:
        """The stored result (a fresh copy), or :data:`MISS`."""
        with self._lock:
            data = self._entries.get(key)
            if data is not None:  # only what memory holds is aged (see trim)
                self._last_used[key] = self._generation
        if data is None and self.disk is not None:
            ahead = getattr(self._thread, "ahead", None)
            found = ahead.lookup(key) if ahead is not None else None
            if found is None:
                data = self.disk.get(key)
            elif found is not NOT_KEPT:
                data = found
            if data is not None:
                self._hold(key, data)
        with self._lock:
            if data is None:
                self.misses += 1
                return _MISS
            self.hits += 1
        return marshal.loads(data)

    def put(self, key: Hashable, value: Any) -> None:
        """Store a JSON-able ``value`` (dicts, lists, strings, numbers, booleans, None; bytes too)."""
        try:
            data = marshal.dumps(value)
        except ValueError:  # not a plain JSON value: keep it through JSON, as documented
            data = marshal.dumps(json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False)))
        self._hold(key, data)
        if self.disk is not None:
            self.disk.put(key, data)

    def _hold(self, key: Hashable, data: bytes) -> None:
        """Keep ``data`` in memory unless that would pass :attr:`max_bytes` (then it stays on
        disk only)."""
        with self._lock:
            old = self._entries.get(key)
            grown = len(data) - (len(old) if old is not None else 0)
            if old is None and self.max_bytes is not None and self._bytes + grown > self.max_bytes:
                return
            self._entries[key] = data
            self._last_used[key] = self._generation
            self._bytes += grown

    def memo(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per key; later calls return a fresh copy of the stored result."""
        value = self.get(key)
        if value is _MISS:
            value = compute()
            self.put(key, value)
        return value

    @contextlib.contextmanager
    def reading_ahead(self, kind_prefix: str = "") -> Iterator[ReadAhead | None]:
        """``with cache.reading_ahead() as ahead:`` for an export that walks its documents in
        ``_id`` order on this thread: ``ahead.advance(doc_id)`` before each, and this thread's
        lookups of that document's results (of the kinds starting with ``kind_prefix``; others
        are looked up one by one) are answered from one ordered scan of the disk (``None``
        without a disk)."""
        if self.disk is None:
            yield None
            return
        self.disk.flush()
        ahead = ReadAhead(self.disk.scan(kind_prefix), kind_prefix)
        self._thread.ahead = ahead
        try:
            yield ahead
        finally:
            self._thread.ahead = None
            ahead.close()

    def trim(self) -> None:
        """End of an export (or schema export): forget results no recent export used (older
        revisions of documents, deleted documents, an older set of export mappings); the new
        results go to disk."""
        if self.disk is not None:
            self.disk.flush()
        with self._lock:
            self._generation += 1
            oldest = self._generation - self.KEEP_GENERATIONS
            stale = [key for key, used in self._last_used.items() if used < oldest]
            for key in stale:
                dropped = self._entries.pop(key, None)
                if dropped is not None:
                    self._bytes -= len(dropped)
                del self._last_used[key]

    def clear(self, *, disk: bool = False) -> None:
        """Forget every result held in memory (as a new process starts), and with ``disk`` those
        kept on disk too (as the first export of a project)."""
        with self._lock:
            self._entries.clear()
            self._last_used.clear()
            self._bytes = 0
        if disk and self.disk is not None:
            self.disk.clear()


MISS = _MISS
"""What :meth:`ContentCache.get` returns for an unknown key."""

_caches: weakref.WeakKeyDictionary[Any, ContentCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def cache_for(db: Any) -> ContentCache | None:
    """The memo of store ``db`` (created on first use, gone with the store object, backed by the
    results kept on disk beside the store's file); ``None`` for objects that cannot be weakly
    referenced."""
    with _caches_lock:
        try:
            cache = _caches.get(db)
            if cache is None:
                cache = _caches[db] = ContentCache(disk_memo_for(db))
        except TypeError:
            return None
    return cache


def fingerprint(value: Any) -> str:
    """A short stable digest of a JSON value (for cache contexts)."""
    import hashlib

    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
