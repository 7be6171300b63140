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
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol, runtime_checkable

from storyloom.api.errors import UNKNOWN_COLLECTIONS, ApiError
from storyloom.project.protocols import ProjectLike


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


class _TextCache:
    """A small LRU keyed by the store's state, bounded in entries and total characters.

    One lock per key, so concurrent requests for the same missing entry build it once.
    """

    def __init__(self, max_chars: int = 96_000_000, max_entries: int = 8) -> None:
        self.max_chars = max_chars
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    def _lookup(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return False, None
            self._entries.move_to_end(key)
            return True, entry[0]

    def get_or_build(self, key: Hashable, build: Callable[[], tuple[Any, int]]) -> Any:
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
            if size <= self.max_chars:
                with self._lock:
                    self._entries[key] = (value, size)
                    total = sum(entry[1] for entry in self._entries.values())
                    while len(self._entries) > self.max_entries or total > self.max_chars:
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
    database instance, update seq, collections, compatibility mode, exported-by) and reused until the next committed
    change. A cached game export still gets a fresh ``exportedAt``: its ``_meta`` is serialised
    again and spliced in front of the cached remainder; when the entry was made, the splice was
    checked to give exactly ``dumps_export`` of the whole payload (otherwise nothing is cached).
    """

    def __init__(self, cache: bool = True) -> None:
        self._cache = _TextCache() if cache else None

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
        with read_snapshot(project):
            return self._game_export_json(project, collections, exported_by, compat)

    def _game_export_json(
        self, project: ProjectLike, collections: list[str] | None, exported_by: str | None, compat: str | None
    ) -> bytes:
        from storyloom.export.game_export import build_game_export, dumps_export

        if self._cache is None or exported_by is None:
            return dumps_export(build_game_export(project, collections, exported_by, compat=compat)).encode("utf-8")
        # The settings' exportCompat is a document: the update seq covers it; the request's mode is keyed.
        key = ("game", *self._state(project), tuple(collections) if collections else None, compat, exported_by)

        def build() -> tuple[Any, int]:
            payload = build_game_export(project, collections, exported_by, compat=compat)
            full = dumps_export(payload).encode("utf-8")
            meta = payload.get("_meta")
            rest = {k: v for k, v in payload.items() if k != "_meta"}
            if isinstance(meta, dict) and rest:
                rest_bytes = dumps_export(rest).encode("utf-8")
                if _splice(meta, rest_bytes) == full:
                    return (full, (meta, rest_bytes)), len(rest_bytes)
            # Not spliceable: answer it, never cache it (a cached copy would repeat exportedAt).
            return (full, None), _NEVER_CACHE

        full, parts = self._cache.get_or_build(key, build)
        if parts is None:
            return full
        meta, rest_bytes = parts
        return _splice({**meta, "exportedAt": _now_iso()}, rest_bytes)

    def schema_export_json(
        self, project: ProjectLike, collections: list[str] | None, compat: str | None = None
    ) -> bytes:
        from storyloom.export.game_export import dumps_export
        from storyloom.export.schema_export import build_schema

        with read_snapshot(project):
            if self._cache is None:
                return dumps_export(build_schema(project, collections, compat)).encode("utf-8")
            key = ("schema", *self._state(project), tuple(collections) if collections else None, compat)

            def build() -> tuple[Any, int]:
                data = dumps_export(build_schema(project, collections, compat)).encode("utf-8")
                return data, len(data)

            return self._cache.get_or_build(key, build)


def read_snapshot(project: ProjectLike) -> AbstractContextManager[Any]:
    """``with read_snapshot(project):``: the reads of the block see one state of the project's store.

    An answer built from several reads (the settings, the name, the documents, the update seq
    its cache entry is keyed by) must not mix two moments while others write; the store's
    ``snapshot()`` makes the block's reads on this thread one read transaction.
    """
    snapshot = getattr(project.db, "snapshot", None)
    return snapshot() if snapshot is not None else nullcontext()


def _now_iso() -> str:
    from storyloom.project.dates import now_iso

    return now_iso()


def _splice(meta: dict[str, Any], rest: bytes) -> bytes:
    """``dumps_export({"_meta": meta, **rest})`` from ``rest``'s bytes (``"_meta"`` sorts first).

    One copy of ``rest``: the answer of a cached export costs a memory copy, not a rebuild.
    """
    from storyloom.export.game_export import dumps_export

    meta_bytes = dumps_export({"_meta": meta}).encode("utf-8")  # b'{"_meta":{...}}\n'
    return b"".join((memoryview(meta_bytes)[:-2], b",", memoryview(rest)[1:]))
