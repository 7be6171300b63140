"""Finished exports: the bytes of a game export or a schema, kept while the project is unchanged.

:class:`ExportCache` is what a server of exports (``GET /game-export``, ``GET /schema-export``)
asks, once per request: :meth:`~ExportCache.game_export` and :meth:`~ExportCache.schema_export`
return an :class:`ExportAnswer`, the finished bytes (``_meta`` included) and their size, built or
found before it is returned, so every error is raised then, before anything is sent.

Both exports are a function of the store's content (the settings are a document) and of the
request, but for ``_meta.exportedAt``. An answer is therefore kept per (project, store instance,
update seq, collections, compatibility mode, exported-by) and given again, with a fresh
``exportedAt``, until the next committed change, within ``max_bytes`` in all (the least recently
used dropped first). A game export too large for the bound is not held in memory: its spool
files (on disk) are kept instead, for the last such export, answered to every request for it
until the project changes, and deleted when the last answer reading them ends. Concurrent
requests for the same missing answer wait for one build. A build reads the per-revision memo
(:mod:`storyloom.export.cache.memo`), so after a change only the changed documents are
transformed again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from storyloom.export.game_export import dumps_export
from storyloom.export.stream import HeldExport, StreamedExport, read_snapshot, stream_game_export, stream_schema
from storyloom.project import ProjectLike, now_iso

DEFAULT_ANSWER_BYTES = 64 * 2**20
""":class:`ExportCache` holds at most this many bytes of answers by default (64 MiB)."""

_NEVER_KEPT = 2**62  # the size of a value the LRU must not keep


class ExportAnswer:
    """The bytes of one export answer: ``size`` and the pieces (iterate once); ``close()`` frees
    what an answer that is never sent holds (its spools, or its hold on a kept export)."""

    def __init__(self, size: int, pieces: Iterator[bytes], close: Callable[[], None] = lambda: None,
                 *, in_memory: bool = False) -> None:
        self.size = size
        self._pieces = pieces
        self._close: Callable[[], None] | None = close
        self.in_memory = in_memory
        """The pieces come from memory (a held answer): reading them never blocks."""

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._pieces
        finally:
            self.close()

    def close(self) -> None:
        close, self._close = self._close, None
        if close is not None:
            close()

    def __del__(self) -> None:  # an answer never sent (the client went away first) still lets go
        self.close()


class AnswerCache:
    """The bounded store of :class:`ExportCache`'s answers: a small LRU bounded in entries and in
    total bytes.

    One lock per key, so concurrent requests for the same missing entry build it once (and
    answers too large to keep are built one at a time, not once per waiting request at once).
    """

    def __init__(self, max_bytes: int = DEFAULT_ANSWER_BYTES, max_entries: int = 8) -> None:
        if max_bytes < 0:
            raise ValueError(f"the answer cache's bound must be 0 or more bytes, not {max_bytes}")
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    @property
    def held_bytes(self) -> int:
        """The bytes the entries kept now hold (at most ``max_bytes``)."""
        with self._lock:
            return sum(entry[1] for entry in self._entries.values())

    def _lookup(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return False, None
            self._entries.move_to_end(key)
            return True, entry[0]

    def get_or_build(self, key: Hashable, build: Callable[[], tuple[Any, int]]) -> Any:
        """The value kept for ``key``, else ``build()``'s value, kept when its size (in bytes)
        fits the bound (the least recently used entries make room)."""
        found, value = self._lookup(key)
        if found:
            return value
        with self._lock:
            key_lock = self._building.setdefault(key, threading.Lock())
        with key_lock:
            found, value = self._lookup(key)
            if found:
                return value
            try:
                value, size = build()
            finally:
                with self._lock:
                    self._building.pop(key, None)
            if size <= self.max_bytes:
                with self._lock:
                    self._entries[key] = (value, size)
                    total = sum(entry[1] for entry in self._entries.values())
                    while len(self._entries) > self.max_entries or total > self.max_bytes:
                        _, (_, dropped) = self._entries.popitem(last=False)
                        total -= dropped
            return value


class _Shared:
    """A streamed export answered to several requests: its spools are closed when the last
    holder (the kept slot, each answer being sent) releases it."""

    def __init__(self, export: StreamedExport) -> None:
        self.export = export
        self._holders = 1
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            self._holders += 1

    def release(self) -> None:
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            self.export.close()


class ExportCache:
    """Finished exports of any project, kept while it is unchanged (see the module docstring):
    at most ``max_bytes`` of answers held in memory; ``reuse=False`` keeps nothing (every answer
    is built afresh, from the per-revision memo)."""

    def __init__(self, max_bytes: int = DEFAULT_ANSWER_BYTES, *, reuse: bool = True) -> None:
        self._answers = AnswerCache(max_bytes) if reuse else None
        # The last game export too large to hold: its spools (on disk) are answered again while
        # the project is unchanged, to every request that asks for it meanwhile.
        self._large: tuple[Hashable, _Shared] | None = None
        self._large_lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        """The bytes of answers held in memory at most (0 when nothing is kept)."""
        return self._answers.max_bytes if self._answers is not None else 0

    @property
    def held_bytes(self) -> int:
        """The bytes of answers held in memory now."""
        return self._answers.held_bytes if self._answers is not None else 0

    def game_export(
        self, project: ProjectLike, collections: Sequence[str] | None = None, exported_by: str | None = None,
        *, compat: str | None = None, locale: str | None = None,
    ) -> ExportAnswer:
        """The game export's bytes, exactly those of
        :func:`~storyloom.export.stream.stream_game_export` (same arguments, same errors) with a
        fresh ``_meta.exportedAt``: built (or found) now; iterating the answer gives them in pieces
        of about a megabyte."""
        # Imported here: the exporters import this package (its per-revision memo).

        with read_snapshot(project):
            if self._answers is None or exported_by is None:
                export = stream_game_export(project, collections, exported_by, compat=compat, locale=locale)
                return _answer(export, None, export.close)
            # The settings' exportCompat is a document: the update seq covers it; the request's mode is keyed.
            # So is the locale: its Translation documents are documents too (the update seq covers them).
            key = ("game", *_state(project), _names(collections), compat, exported_by, locale)
            shared = self._large_export(key)
            if shared is not None:
                return _answer(shared.export, now_iso(), shared.release)

            def build() -> tuple[HeldExport | _Shared, int]:
                shared = self._large_export(key)  # built meanwhile by the request this one waited for
                if shared is not None:
                    return shared, _NEVER_KEPT
                export = stream_game_export(project, collections, exported_by, compat=compat, locale=locale)
                if export.size(meta=False) <= self.max_bytes:
                    held = HeldExport.of(export)
                    if held is not None:
                        return held, held.held_bytes
                shared = _Shared(export)  # held by the slot
                shared.acquire()  # and by this answer
                with self._large_lock:
                    previous, self._large = self._large, (key, shared)
                if previous is not None:
                    previous[1].release()
                return shared, _NEVER_KEPT

            value = self._answers.get_or_build(key, build)
            if isinstance(value, _Shared):
                return _answer(value.export, now_iso(), value.release)
            return _answer(value, now_iso(), None, in_memory=True)

    def _large_export(self, key: Hashable) -> _Shared | None:
        """The kept large export of ``key``, acquired for one answer; ``None`` when there is none."""
        with self._large_lock:
            if self._large is None or self._large[0] != key:
                return None
            shared = self._large[1]
            shared.acquire()
            return shared

    def schema_export(
        self, project: ProjectLike, collections: Sequence[str] | None = None, *, compat: str | None = None
    ) -> ExportAnswer:
        """The schema of the game export, exactly the bytes of ``dumps_export`` of
        :func:`~storyloom.export.stream.stream_schema` (same arguments, same errors)."""

        def build() -> tuple[bytes, int]:
            data = dumps_export(stream_schema(project, collections, compat)).encode("utf-8")
            return data, len(data)

        with read_snapshot(project):
            if self._answers is None:
                data, _ = build()
            else:
                data = self._answers.get_or_build(("schema", *_state(project), _names(collections), compat), build)
        return ExportAnswer(len(data), iter((data,)), in_memory=True)


def _answer(export: StreamedExport | HeldExport, exported_at: str | None, close: Callable[[], None] | None,
            *, in_memory: bool = False) -> ExportAnswer:
    """The answer of ``export`` (with another ``_meta.exportedAt`` when given); ``close`` lets
    go of its spools."""
    return ExportAnswer(export.size(exported_at=exported_at), export.chunks(exported_at=exported_at),
                        close or (lambda: None), in_memory=in_memory)


def _state(project: ProjectLike) -> tuple[Any, ...]:
    """What tells whether a kept answer is still the project's: its id, its store, the update seq."""
    info = project.db.info()
    return (project.id, info.get("instance_uuid"), info.get("update_seq"))


def _names(collections: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(collections) if collections else None

