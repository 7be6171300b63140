"""What the API needs from the rest of Storyloom, behind two small interfaces.

- A :class:`ProjectProvider` answers "which project is loaded now?" (``None`` → 503). The desktop
  app's :class:`~storyloom.api.controller.ApiController` is one; headless ``serve`` uses
  :class:`StaticProjectProvider`. A plain zero-argument callable works too.
- :class:`Payloads` builds the export payloads as JSON text. :class:`StoryloomPayloads` calls the
  export layer (the same functions as ``storyloom export`` and ``storyloom schema``, so the API
  and the CLI share one code path per payload); tests may pass their own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol, runtime_checkable

from storyloom.api.errors import UNKNOWN_COLLECTIONS, ApiError
from storyloom.project import ProjectLike


@runtime_checkable
class ProjectProvider(Protocol):
    def current_project(self) -> ProjectLike | None:
        """The loaded project, or ``None`` when none is (the API answers 503)."""
        ...


class StaticProjectProvider:
    """Always the same project (headless ``storyloom serve``)."""

    def __init__(self, project: ProjectLike | None) -> None:
        self.project = project

    def current_project(self) -> ProjectLike | None:
        return self.project


class _CallableProvider:
    def __init__(self, func: Callable[[], ProjectLike | None]) -> None:
        self._func = func

    def current_project(self) -> ProjectLike | None:
        return self._func()


def as_provider(value: ProjectProvider | Callable[[], ProjectLike | None]) -> ProjectProvider:
    """Accept a provider object or a zero-argument callable returning the project."""
    if isinstance(value, ProjectProvider):
        return value
    if callable(value):
        return _CallableProvider(value)
    raise TypeError(f"not a project provider: {value!r}")


class Payloads(Protocol):
    """Builds the export payloads as UTF-8 JSON (the bytes the CLI writes)."""

    def parse_collections(self, values: list[str]) -> list[str]:
        """Export names from the ``collections`` query value(s); ``ApiError`` 400 when invalid."""
        ...

    def game_export_json(
        self, project: ProjectLike, collections: list[str] | None, exported_by: str | None,
        compat: str | None = None,
    ) -> bytes:
        """The game export as UTF-8 JSON; ``compat`` is the request's compatibility mode
        (``None``: the project's setting)."""
        ...

    def schema_export_json(
        self, project: ProjectLike, collections: list[str] | None, compat: str | None = None
    ) -> bytes:
        """The schema export as UTF-8 JSON."""
        ...


_NEVER_CACHE = 2**62

DEFAULT_CACHE_BYTES = 64 * 2**20
"""The API's answer cache holds at most this many bytes of answers by default (64 MiB):
``ApiServer(answer_cache_bytes=…)``. An answer larger than the bound is streamed and never kept."""

_CHUNK = 1 << 20


class AnswerCache:
    """A small LRU keyed by the store's state, bounded in entries and in total bytes.

    One lock per key, so concurrent requests for the same missing entry build it once (and
    answers too large to keep are built one at a time, not once per waiting request at once).
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES, max_entries: int = 8) -> None:
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

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class StoryloomPayloads:
    """The export layer's builders and serialiser (the code of ``storyloom export``/``schema``).

    Both payloads are a function of the store's content (the settings are a document) and of the
    request, except ``_meta.exportedAt``. Their JSON text is therefore kept per (project,
    database instance, update seq, collections, compatibility mode, exported-by) and reused until
    the next committed change, within ``cache_bytes`` in all (default :data:`DEFAULT_CACHE_BYTES`;
    ``cache=False`` keeps nothing). A cached game export still gets a fresh ``exportedAt``: its
    ``_meta`` is serialised again and spliced in front of the cached remainder. A game export is
    built streamed (:mod:`storyloom.export.stream`: the documents one at a time, spooled) and
    answered from its spools when it is too large to keep, so serving a large project holds at
    most the cache's bound beyond one export's working set.
    """

    def __init__(self, cache: bool = True, cache_bytes: int | None = None) -> None:
        self._cache = AnswerCache(DEFAULT_CACHE_BYTES if cache_bytes is None else cache_bytes) if cache else None
        # The last game export too large for the cache: its spools (on disk) are answered again
        # while the project is unchanged, to every request that asks for it meanwhile.
        self._large: tuple[Hashable, _Shared] | None = None
        self._large_lock = threading.Lock()

    @property
    def cache(self) -> AnswerCache | None:
        """The answer cache (``None`` when off)."""
        return self._cache

    def parse_collections(self, values: list[str]) -> list[str]:
        from storyloom.export.collections_filter import UnknownCollections, parse_collections

        try:
            # Export names are ASCII: refuse what case folding would map onto them ("ſcripts"),
            # so the OpenAPI document's pattern is exactly what is accepted.
            unknown = [part.strip() for value in values for part in value.split(",") if not part.strip().isascii()]
            if unknown:
                raise UnknownCollections(unknown)
            return list(parse_collections(values if len(values) > 1 else values[0], None))
        except UnknownCollections as exc:
            raise ApiError(400, UNKNOWN_COLLECTIONS, f"collections: {exc}") from None

    @staticmethod
    def _state(project: ProjectLike) -> tuple[Any, ...]:
        info = project.db.info()
        return (project.id, info.get("instance_uuid"), info.get("update_seq"))

    def game_export_json(
        self, project: ProjectLike, collections: list[str] | None, exported_by: str | None,
        compat: str | None = None,
    ) -> bytes:
        return b"".join(self.game_export_stream(project, collections, exported_by, compat))

    def game_export_stream(
        self, project: ProjectLike, collections: list[str] | None, exported_by: str | None,
        compat: str | None = None,
    ) -> ExportAnswer:
        """The game export's bytes as an :class:`ExportAnswer`: built (or found in the cache)
        now, so every error is raised here, before anything is sent; iterating it gives the
        bytes in pieces of about a megabyte."""
        with read_snapshot(project):
            return self._game_export(project, collections, exported_by, compat)

    def _game_export(
        self, project: ProjectLike, collections: list[str] | None, exported_by: str | None, compat: str | None
    ) -> ExportAnswer:
        from storyloom.export.stream import stream_game_export

        if self._cache is None or exported_by is None:
            return _spooled_answer(stream_game_export(project, collections, exported_by, compat=compat))
        # The settings' exportCompat is a document: the update seq covers it; the request's mode is keyed.
        key = ("game", *self._state(project), tuple(collections) if collections else None, compat, exported_by)
        limit = self._cache.max_bytes
        shared = self._large_export(key)
        if shared is not None:
            return _shared_answer(shared)

        def build() -> tuple[Any, int]:
            shared = self._large_export(key)  # built meanwhile by the request this one waited for
            if shared is not None:
                return shared, _NEVER_CACHE
            export = stream_game_export(project, collections, exported_by, compat=compat)
            # Kept when the export without its _meta fits the cache and _meta sorts first (the
            # splice below then gives exactly the streamed bytes); otherwise its spools are kept
            # (on disk) as the one large export, answered from there until the project changes.
            if export.keys and min(export.keys) > "_meta" and export.size(meta=False) <= limit:
                with export:
                    rest = b"".join(export.chunks(meta=False))
                return (export.meta, rest), len(rest)
            shared = _Shared(export)  # held by the slot
            shared.acquire()  # and by this answer
            with self._large_lock:
                previous, self._large = self._large, (key, shared)
            if previous is not None:
                previous[1].release()
            return shared, _NEVER_CACHE

        value = self._cache.get_or_build(key, build)
        if isinstance(value, _Shared):
            return _shared_answer(value)
        meta, rest = value
        return _spliced_answer({**meta, "exportedAt": _now_iso()}, rest)

    def _large_export(self, key: Hashable) -> _Shared | None:
        """The kept large export of ``key``, acquired for one answer; ``None`` when there is none."""
        with self._large_lock:
            if self._large is None or self._large[0] != key:
                return None
            shared = self._large[1]
            shared.acquire()
            return shared

    def schema_export_json(
        self, project: ProjectLike, collections: list[str] | None, compat: str | None = None
    ) -> bytes:
        from storyloom.export.game_export import dumps_export
        from storyloom.export.stream import stream_schema

        with read_snapshot(project):
            if self._cache is None:
                return dumps_export(stream_schema(project, collections, compat)).encode("utf-8")
            key = ("schema", *self._state(project), tuple(collections) if collections else None, compat)

            def build() -> tuple[Any, int]:
                data = dumps_export(stream_schema(project, collections, compat)).encode("utf-8")
                return data, len(data)

            return self._cache.get_or_build(key, build)


class ExportAnswer:
    """The bytes of one game export answer: ``size`` and the pieces (iterate once); ``close()``
    frees what an answer that is never sent holds (its spools, or its hold on a kept export)."""

    def __init__(self, size: int, pieces: Iterator[bytes], close: Callable[[], None] = lambda: None,
                 *, in_memory: bool = False) -> None:
        self.size = size
        self._pieces = pieces
        self._close: Callable[[], None] | None = close
        self.in_memory = in_memory
        """The pieces come from memory (the answer cache): reading them never blocks."""

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


class _Shared:
    """A streamed export answered to several requests: its spools are closed when the last
    holder (the kept slot, each answer being sent) releases it."""

    def __init__(self, export: Any) -> None:
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


def _shared_answer(shared: _Shared) -> ExportAnswer:
    """An answer from a kept large export, with a fresh ``_meta.exportedAt``."""
    at = _now_iso()
    export = shared.export
    return ExportAnswer(export.size(exported_at=at), export.chunks(exported_at=at), shared.release)


def _spooled_answer(export: Any) -> ExportAnswer:
    return ExportAnswer(export.size(), export.chunks(), export.close)


def _spliced_answer(meta: dict[str, Any], rest: bytes) -> ExportAnswer:
    """``dumps_export({"_meta": meta, **rest})`` from ``rest``'s bytes (``"_meta"`` sorts first),
    in pieces: the answer of a cached export costs copying it out, not a rebuild."""
    from storyloom.export.game_export import dumps_export

    head = dumps_export({"_meta": meta}).encode("utf-8")[:-2] + b","  # b'{"_meta":{...},'
    view = memoryview(rest)

    def pieces() -> Iterator[bytes]:
        yield head
        for start in range(1, len(rest), _CHUNK):
            yield view[start:start + _CHUNK]  # type: ignore[misc]  # a view: the cached bytes are not copied

    return ExportAnswer(len(head) + len(rest) - 1, pieces(), in_memory=True)


def read_snapshot(project: ProjectLike) -> AbstractContextManager[Any]:
    """``with read_snapshot(project):``: the reads of the block see one state of the project's store.

    An answer built from several reads (the settings, the name, the documents, the update seq
    its cache entry is keyed by) must not mix two moments while others write; the store's
    ``snapshot()`` makes the block's reads on this thread one read transaction.
    """
    snapshot = getattr(project.db, "snapshot", None)
    return snapshot() if snapshot is not None else nullcontext()


def _now_iso() -> str:
    from storyloom.project import now_iso

    return now_iso()
