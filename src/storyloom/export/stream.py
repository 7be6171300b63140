"""The game export and its schema, streamed: memory bounded whatever the project's size.

``storyloom export``, ``storyloom schema``, File > Export and ``GET /game-export`` write through
here. The bytes are exactly ``dumps_export(build_game_export(...))`` (and ``dumps_export`` of
:func:`~storyloom.export.schema_export.build_schema`): the same per-document steps
(:class:`~storyloom.export.game_export.ExportPlan`, :class:`~storyloom.export.schema_export.SchemaFacts`)
run over the documents read one at a time instead of over a list of all of them.

One read transaction (a snapshot of the store), two walks of it:

1. a light pass reads a few fields of every document inside SQLite (``parent``, ``sortKey``,
   ``collection``, ``type``): the tree (``children``, ``path``), the Variable and Attachment
   documents (read whole, they are what every other document is checked against) and the total;
2. the main pass reads every document whole, one at a time, transforms it and writes its JSON to
   a spool file of its collection (a temporary file; the first megabyte stays in memory).

``_meta`` (warnings, counts, referenced attachments) is known at the end and sorts first among
the keys, so the answer is ``{"_meta": …`` followed by the spools, copied out in key order.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import tempfile
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from storyloom.collector import gc_paused
from storyloom.errors import StoryloomError
from storyloom.export.attachments import is_attachment_document
from storyloom.export.cache import MISS, ContentCache, cache_for
from storyloom.export.cache.disk import DiskMemo, revision_key_text
from storyloom.export.game_export import (
    ExportPlan,
    _project_attr,
    collection_of,
    export_json_text,
    read_documents,
)
from storyloom.export.localized import export_locale, is_translation_of
from storyloom.export.schema_export import SchemaFacts, schema_from_facts
from storyloom.progress import ProgressCallback, ProgressReporter
from storyloom.project import FOLDER_TYPE, ProjectLike, TreeTable
from storyloom.store.all_docs import (
    document_fields,
    live_document,
    live_documents,
    live_revisions,
    revision_fields,
)
from storyloom.store.codec import has_unusual_float
from storyloom.store.readers import Snapshot

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency
    orjson = None  # type: ignore[assignment]

CHUNK = 1 << 20
"""Bytes per chunk copied out of a spool (and per write)."""
SPOOL_IN_MEMORY = 1 << 20
"""A collection's spool gathers this many bytes in memory before it writes them to its
temporary file."""

# Where ``children`` and ``path`` go in a document's JSON kept per revision: orjson writes a
# Fragment's bytes as they are and never writes a raw NUL byte otherwise (it escapes U+0000 in
# strings), so the JSON of a document holding these two has exactly two NULs, ``children``'s
# first (the keys are sorted). ``None`` when orjson has no Fragment: nothing is kept then.
_FRAGMENT = getattr(orjson, "Fragment", None)
_TREE_MARK = _FRAGMENT(b"\x00") if _FRAGMENT is not None else None
_ORJSON_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME
                   if orjson is not None else 0)

# The fields of every document the light pass reads (derive_tree, collection_of,
# is_attachment_document need nothing else), in the order _Reading.light unpacks them.
_LIGHT_FIELDS = ("_deleted", "parent", "sortKey", "collection", "type")
_LIGHT_KIND = "light"
"""The kind of the rows of the export's memo on disk that keep a revision's light fields."""

# --------------------------------------------------------------------------------------
# JSON of one value, exactly as dumps_export spells it


def _stdlib_json(value: Any, indent: int | None) -> bytes:
    return export_json_text(value, indent).encode("utf-8")


def encode_value(value: Any, indent: int | None = None, *, plain: bool | None = None) -> bytes:
    """The JSON of ``value`` exactly as :func:`~storyloom.export.game_export.dumps_export` writes
    it (without its final newline), through orjson (about four times faster) when it spells it
    the same: the stdlib encoder writes whatever orjson refuses (integers beyond 64 bits, lone
    surrogates, non-string keys, subclasses) and every value holding a float orjson spells
    otherwise, or a NaN or an infinity (which the export refuses with ``ValueError``, as
    ``dumps_export`` does). ``plain=True`` says the caller knows ``value`` holds no such float
    (the streamed export knows it per document); ``None`` looks."""
    if plain is None:
        plain = not has_unusual_float(value)
    if orjson is None or indent not in (None, 2) or not plain:
        return _stdlib_json(value, indent)
    option = _ORJSON_OPTIONS
    if indent is not None:
        option |= orjson.OPT_INDENT_2
    try:
        return orjson.dumps(value, option=option)
    except TypeError:  # orjson.JSONEncodeError
        return _stdlib_json(value, indent)


# --------------------------------------------------------------------------------------
# Spools: the documents of one collection, as the JSON array's inside


class _Spool:
    """The JSON of one collection's documents in ``_id`` order, separators included: gathered in
    memory and moved to a temporary file a megabyte at a time."""

    def __init__(self, indent: int | None) -> None:
        self._buffer = bytearray()
        self._file: IO[bytes] | None = None
        self.count = 0
        self.size = 0
        self._first, self._next = (b"", b",") if indent is None else (b"\n    ", b",\n    ")
        self._indented = indent is not None

    def add(self, data: bytes) -> None:
        if self._indented:
            data = data.replace(b"\n", b"\n    ")  # raw newlines are only layout in JSON text
        self.add_parts((data,))

    def add_parts(self, parts: Sequence[bytes]) -> None:
        """One document's JSON given in pieces (joined here rather than copied once more); the
        pieces of a compact export's kept document, or :meth:`add`'s whole document."""
        buffer = self._buffer
        buffer += self._next if self.count else self._first
        for part in parts:
            buffer += part
        self.count += 1
        if len(buffer) >= SPOOL_IN_MEMORY:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self._file.write(self._buffer)
        self.size += len(self._buffer)
        self._buffer.clear()

    def chunks(self) -> Iterator[bytes]:
        if self._file is not None:
            position = 0
            while True:  # os.pread: several readers of one kept spool never move each other
                block = os.pread(self._file.fileno(), CHUNK, position)
                if not block:
                    break
                position += len(block)
                yield block
        if self._buffer:
            yield bytes(self._buffer)

    def seal(self) -> None:
        """The last document was added: what is in the file is flushed for the readers."""
        if self._file is not None:
            self._file.flush()

    @property
    def total(self) -> int:
        return self.size + len(self._buffer)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _assemble(parts: list[tuple[str, bytes | _Spool]], indent: int | None, *, spools: bool = True) -> Iterator[bytes]:
    """The top-level object of ``parts`` (key, JSON of a value or a spool), keys sorted, as
    ``dumps_export`` lays it out, with its final newline; with ``spools=False`` everything but the
    spools' contents (to count the bytes)."""
    parts = sorted(parts, key=lambda part: part[0])
    if indent is None:
        yield b"{"
        for index, (key, value) in enumerate(parts):
            yield (b"," if index else b"") + json.dumps(key, ensure_ascii=False).encode("utf-8") + b":"
            if isinstance(value, _Spool):
                yield b"["
                if spools:
                    yield from value.chunks()
                yield b"]"
            else:
                yield value
        yield b"}\n"
        return
    yield b"{"
    for index, (key, value) in enumerate(parts):
        yield (b",\n  " if index else b"\n  ") + json.dumps(key, ensure_ascii=False).encode("utf-8") + b": "
        if isinstance(value, _Spool):
            if value.count:
                yield b"["
                if spools:
                    yield from value.chunks()
                yield b"\n  ]"
            else:
                yield b"[]"
        else:
            yield value.replace(b"\n", b"\n  ")
    yield b"\n}\n"


# --------------------------------------------------------------------------------------
# Reading the project in one snapshot


class _Reading:
    """The documents of one snapshot of the store: a light pass, then each whole, one at a time.
    A project whose ``db`` offers no snapshot of the store (a test double) is read as a list."""

    def __init__(self, db: Any, snap: Any) -> None:
        self.db = db
        self.snap: Snapshot | None = snap if hasattr(snap, "conn") else None
        self._docs: list[dict[str, Any]] | None = None if self.snap is not None else read_documents(db)
        self._revisions: list[tuple[str, str]] | None = None

    def light(self, disk: DiskMemo | None = None) -> list[dict[str, Any]]:
        """Per document ``_id`` and the few fields of :data:`_LIGHT_FIELDS` (missing ones None).
        With ``disk``, the fields of each revision are kept there and read back from it."""
        if self._docs is not None:
            return [{"_id": d["_id"], **{k: d.get(k) for k in _LIGHT_FIELDS}} for d in self._docs]
        assert self.snap is not None  # no list read: a snapshot
        rows = self._kept_fields(disk) if disk is not None else document_fields(self.snap, _LIGHT_FIELDS)
        # A dict display: a third of dict(zip(...))'s cost.
        return [{"_id": doc_id, "_deleted": deleted, "parent": parent, "sortKey": sort_key,
                 "collection": collection, "type": doc_type}
                for doc_id, (deleted, parent, sort_key, collection, doc_type) in rows]

    def light_rows(self, disk: DiskMemo | None = None) -> Iterator[dict[str, Any]]:
        """:meth:`light` one document at a time (no list of them all)."""
        if self._docs is not None:
            yield from self.light()
            return
        assert self.snap is not None
        rows = self._kept_rows(disk) if disk is not None else document_fields(self.snap, _LIGHT_FIELDS)
        for doc_id, (deleted, parent, sort_key, collection, doc_type) in rows:
            yield {"_id": doc_id, "_deleted": deleted, "parent": parent, "sortKey": sort_key,
                   "collection": collection, "type": doc_type}

    def _kept_rows(self, disk: DiskMemo) -> Iterator[tuple[str, list[Any]]]:
        """:meth:`_kept_fields` one document at a time: the ids and revisions, the kept rows and
        (once more than a few are missing: the first export) the fields read by SQLite are three
        cursors walked side by side in ``_id`` order; the fields read are kept as they go."""
        snap = self.snap
        assert snap is not None
        kept = disk.scan(_LIGHT_KIND)
        fresh: Iterator[tuple[str, list[Any]]] | None = None
        row = next(kept, None)
        fresh_row: tuple[str, list[Any]] | None = None
        if row is None:  # nothing kept (the first export): every document's fields in one pass
            fresh = document_fields(snap, _LIGHT_FIELDS)
            fresh_row = next(fresh, None)
        seen = missing = 0
        try:
            for doc_id, rev in live_revisions(snap):
                seen += 1
                while row is not None and row[0] < doc_id:
                    row = next(kept, None)
                if row is not None and row[0] == doc_id and row[2] == revision_key_text(_LIGHT_KIND, doc_id, rev):
                    yield doc_id, marshal.loads(row[3])
                    continue
                missing += 1
                if fresh is None and missing > 64 + seen // 16:
                    fresh = document_fields(snap, _LIGHT_FIELDS)
                    fresh_row = next(fresh, None)
                if fresh is not None:
                    while fresh_row is not None and fresh_row[0] < doc_id:
                        fresh_row = next(fresh, None)
                    values = fresh_row[1] if fresh_row is not None and fresh_row[0] == doc_id else None
                else:
                    values = revision_fields(snap, doc_id, rev, _LIGHT_FIELDS)
                # A document the walk of bodies would not list (no fields: not JSON SQLite reads)
                # is left out, as document_fields leaves it out.
                if values is not None:
                    disk.put((_LIGHT_KIND, doc_id, rev), marshal.dumps(values))
                    yield doc_id, values
        finally:
            kept.close()

    def _kept_fields(self, disk: DiskMemo) -> Iterable[tuple[str, list[Any]]]:
        """:func:`~storyloom.store.all_docs.document_fields` through the fields kept per revision
        (kind ``light``): the ids and revisions are read (no body), then the kept rows in one
        ordered scan; the fields of the other revisions are read in SQLite and kept. Those of
        every document when most are not kept (the first export)."""
        snap = self.snap
        assert snap is not None
        self._revisions = revisions = list(live_revisions(snap))
        found: list[Any] = [None] * len(revisions)
        missing: list[int] = []
        rows = disk.scan(_LIGHT_KIND)
        try:
            row = next(rows, None)
            for index, (doc_id, rev) in enumerate(revisions):
                while row is not None and row[0] < doc_id:
                    row = next(rows, None)
                if row is not None and row[0] == doc_id and row[2] == revision_key_text(_LIGHT_KIND, doc_id, rev):
                    found[index] = marshal.loads(row[3])
                else:
                    missing.append(index)
        finally:
            rows.close()
        if len(missing) > 64 + len(revisions) // 16:
            fields = dict(document_fields(snap, _LIGHT_FIELDS))
            for index in missing:
                found[index] = fields.get(revisions[index][0])
        else:
            for index in missing:
                found[index] = revision_fields(snap, *revisions[index], _LIGHT_FIELDS)
        for index in missing:
            if found[index] is not None:
                doc_id, rev = revisions[index]
                disk.put((_LIGHT_KIND, doc_id, rev), marshal.dumps(found[index]))
        # A document the walk of bodies would not list (no fields: not JSON SQLite reads) is left
        # out, as document_fields leaves it out.
        return [(doc_id, values) for (doc_id, _), values in zip(revisions, found, strict=True) if values is not None]

    def whole(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The documents ``ids`` (all live), whole, in the order given."""
        if not ids:
            return []
        if self._docs is not None:
            wanted = set(ids)
            return [d for d in self._docs if d["_id"] in wanted]
        snap = self.snap
        assert snap is not None
        found = (live_document(snap, doc_id) for doc_id in ids)
        return [doc for doc, _ in filter(None, found)]

    def revisions(self) -> Iterator[tuple[str, str]]:
        """``(id, rev)`` of each document :meth:`each` gives, in the same order, bodies unread
        (only with a snapshot)."""
        assert self.snap is not None
        return iter(self._revisions) if self._revisions is not None else live_revisions(self.snap)

    def document(self, doc_id: str, rev: str) -> tuple[dict[str, Any], bool] | None:
        """``(doc, plain)`` of one document of :meth:`revisions`, as :meth:`each` gives it."""
        assert self.snap is not None
        return live_document(self.snap, doc_id, rev)

    def each(self, only: Container[str] | None = None) -> Iterator[tuple[dict[str, Any], bool]]:
        """``(doc, plain)`` for each document (of ``only``), in ``_id`` order (``plain``: see
        :func:`~storyloom.store.all_docs.live_documents`)."""
        if self._docs is not None:
            docs, self._docs = self._docs, []
            for doc in docs:
                if only is None or doc["_id"] in only:
                    yield doc, not has_unusual_float(doc)
            return
        assert self.snap is not None
        yield from live_documents(self.snap, only)


def read_snapshot(project: ProjectLike) -> contextlib.AbstractContextManager[Any]:
    """``with read_snapshot(project) as snap:``: the reads of the block, on this thread, see one
    state of the project's store (one read transaction: ``Database.snapshot()``, which nests).
    An answer built from several reads (the settings, the name, the documents, the update seq it
    is kept under) must not mix two moments while others write. A store without snapshots (a
    test double) gives ``None``."""
    snapshot = getattr(project.db, "snapshot", None)
    return snapshot() if snapshot is not None else contextlib.nullcontext()


@contextlib.contextmanager
def _reading(project: ProjectLike) -> Iterator[_Reading]:
    with read_snapshot(project) as snap:
        yield _Reading(project.db, snap)


# --------------------------------------------------------------------------------------
# The game export


class StreamedExport:
    """A game export built into spools: ``meta`` (its ``_meta``), ``documents`` (how many
    documents, folders left out), ``schema`` (when asked for), and :meth:`chunks`, the bytes of
    ``dumps_export(build_game_export(…))``. Close it (or use it as a context manager) to free the
    spools."""

    def __init__(self, meta: dict[str, Any], spools: dict[str, _Spool], indent: int | None,
                 documents: int, schema: dict[str, Any] | None = None) -> None:
        self.meta = meta
        self.documents = documents
        self.schema = schema
        #: ``{line id: translation}`` of a localized export's translated lines (else empty).
        self.strings: dict[str, str] = {}
        self._spools = spools
        self.indent = indent

    def _parts(self, meta: bool, exported_at: str | None) -> list[tuple[str, bytes | _Spool]]:
        parts: list[tuple[str, bytes | _Spool]] = list(self._spools.items())
        if meta:
            value = self.meta if exported_at is None else {**self.meta, "exportedAt": exported_at}
            parts.append(("_meta", encode_value(value, self.indent)))
        return parts

    def chunks(self, *, meta: bool = True, exported_at: str | None = None) -> Iterator[bytes]:
        """The export's UTF-8 JSON in pieces of at most about a megabyte (``meta=False``: the
        same object without ``_meta``; ``exported_at``: another ``_meta.exportedAt``). Several
        threads may read one export's chunks at once."""
        yield from _assemble(self._parts(meta, exported_at), self.indent)

    def size(self, *, meta: bool = True, exported_at: str | None = None) -> int:
        """How many bytes :meth:`chunks` gives."""
        parts = self._parts(meta, exported_at)
        framing = sum(len(chunk) for chunk in _assemble(parts, self.indent, spools=False))
        return framing + sum(spool.total for spool in self._spools.values())

    @property
    def keys(self) -> list[str]:
        """The top-level keys but ``_meta``."""
        return list(self._spools)

    def write_to(self, handle: IO[bytes]) -> int:
        """Write :meth:`chunks` to ``handle``; returns the bytes written."""
        written = 0
        for chunk in self.chunks():
            handle.write(chunk)
            written += len(chunk)
        return written

    def close(self) -> None:
        for spool in self._spools.values():
            spool.close()

    def __enter__(self) -> StreamedExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HeldExport:
    """A finished compact game export held in memory: its ``_meta`` apart and the rest of its
    bytes (``{`` and the collections) as one object. :meth:`chunks` and :meth:`size` are those of
    the :class:`StreamedExport` it was read from (with another ``_meta.exportedAt`` when asked):
    answering it again costs copying it out, not a rebuild."""

    def __init__(self, meta: dict[str, Any], rest: bytes) -> None:
        self.meta = meta
        self._rest = rest

    @classmethod
    def of(cls, export: StreamedExport) -> HeldExport | None:
        """``export``'s bytes read out of its spools (which are then closed); ``None`` when its
        ``_meta`` would not come first (an indented export, one of no collection): it is left as
        it is."""
        keys = export.keys
        if export.indent is not None or not keys or min(keys) <= "_meta":
            return None
        with export:
            return cls(export.meta, b"".join(export.chunks(meta=False)))

    @property
    def held_bytes(self) -> int:
        """The bytes held (the export without its ``_meta``)."""
        return len(self._rest)

    def _head(self, exported_at: str | None) -> bytes:
        meta = self.meta if exported_at is None else {**self.meta, "exportedAt": exported_at}
        return b'{"_meta":' + encode_value(meta) + b","  # "_meta" sorts first: then the rest, after its "{"

    def chunks(self, *, exported_at: str | None = None) -> Iterator[bytes]:
        """The export's UTF-8 JSON in pieces of at most a megabyte, the held bytes never copied."""
        yield self._head(exported_at)
        rest = memoryview(self._rest)
        for start in range(1, len(rest), CHUNK):
            yield rest[start:start + CHUNK]  # type: ignore[misc]  # a view is sent as bytes are

    def size(self, *, exported_at: str | None = None) -> int:
        """How many bytes :meth:`chunks` gives."""
        return len(self._head(exported_at)) + len(self._rest) - 1


def stream_game_export(
    project: ProjectLike,
    collections: str | Sequence[str] | None = None,
    exported_by: str | None = None,
    *,
    compat: str | None = None,
    indent: int | None = None,
    with_schema: bool = False,
    progress: ProgressCallback | None = None,
    cancelled: Callable[[], bool] | None = None,
    locale: str | None = None,
) -> StreamedExport:
    """The game export of ``project`` as :func:`~storyloom.export.game_export.build_game_export`
    builds it (same arguments, same errors), spooled: memory bounded whatever the project's size.
    ``indent`` as for ``dumps_export``; ``with_schema`` also builds the schema of this very export
    from the same reading (``export --schema-sidecar``). Reports phase ``"export"`` to
    ``progress`` (documents done of the total); ``cancelled()`` is asked between documents and
    stops the work with :class:`ExportStopped`. ``locale`` asks for the localized export
    (:mod:`storyloom.export.localized`): that locale's Translation documents are read with the
    Variables, and the Scripts and Dialogues are transformed afresh (never from a memo);
    ``strings`` of the result is then its string table."""
    report = ProgressReporter(progress, "export")
    spools: dict[str, _Spool] = {}
    try:
        with _reading(project) as reading, gc_paused():
            cache = cache_for(project.db)
            disk = cache.disk if cache is not None and indent is None and not with_schema else None
            settings = dict(project.settings() or {})  # inside the snapshot: the same moment
            project_name = _project_attr(project, "name")
            if with_schema:  # as build_export_and_schema names it
                name = settings.get("projectName")
                project_name = name if isinstance(name, str) and name else project_name
            tag = export_locale(settings, locale)
            # One pass over the light fields: the tree, each document's collection and whether it
            # is a folder go to a temporary SQLite table (issue 28: nothing kept in memory for
            # every document); only the few documents read whole are listed.
            attachment_ids: list[str] = []
            variable_ids: list[str] = []
            translation_ids: list[str] = []

            def label(doc: Mapping[str, Any]) -> str:
                app = collection_of(doc)
                if app == "Variable":
                    variable_ids.append(doc["_id"])
                if is_attachment_document(doc):
                    attachment_ids.append(doc["_id"])
                if tag is not None and is_translation_of(doc, tag):
                    translation_ids.append(doc["_id"])
                return ("F" if doc["type"] == FOLDER_TYPE else "D") + (app or "")

            tree = TreeTable(reading.light_rows(disk if disk is not None and not disk.broken else None), label)
            report.set_total(len(tree))
            apps = _Labels(tree)
            wanted = reading.whole(sorted({*variable_ids, *attachment_ids, *translation_ids}))  # one read
            by_id = {doc["_id"]: doc for doc in wanted}
            translations = [by_id[doc_id] for doc_id in translation_ids if doc_id in by_id]
            variables = [by_id[doc_id] for doc_id in variable_ids if doc_id in by_id]
            attachment_docs = {doc_id: by_id[doc_id] for doc_id in attachment_ids if doc_id in by_id}
            del wanted, by_id
            plan = ExportPlan(
                settings, collections, variable_docs=variables, attachment_docs=attachment_docs,
                tree=tree, cache=cache, compat=compat, locale=tag, translation_docs=translations,
            )
            facts = SchemaFacts(set(attachment_ids), cache) if with_schema else None
            del variables, translations
            spools = {c.export_key: _Spool(indent) for c in plan.chosen}
            by_app = {c.app_name: spools[c.export_key] for c in plan.chosen}
            if cache is not None and facts is None and indent is None and reading.snap is not None \
                    and _TREE_MARK is not None:
                documents = _export_by_revision(reading, apps, by_app, plan, cache, report, cancelled)
            else:
                documents = 0
                ahead_scan = cache.reading_ahead() if cache is not None else contextlib.nullcontext()
                with ahead_scan as ahead:
                    for doc, plain in reading.each():
                        documents += _export_one(doc, plain, apps, by_app, plan, facts, ahead, indent, report,
                                                 cancelled)
            for spool in spools.values():
                spool.seal()
            plan.finish()
            meta = plan.meta(exported_by=exported_by, project_id=_project_attr(project, "id"),
                             project_name=project_name)
            schema = None
            if facts is not None:
                schema = schema_from_facts(facts, settings, collections, project_id=_project_attr(project, "id"),
                                           project_name=project_name, cache=cache, compat=compat)
            tree.close()
        report.finish()
        result = StreamedExport(meta, spools, indent, documents, schema)
        if plan.localizer is not None:
            result.strings = plan.localizer.strings
        return result
    except BaseException:
        for spool in spools.values():
            spool.close()
        raise


def _export_one(doc: dict[str, Any], plain: bool, apps: _Labels, by_app: dict[str, _Spool],
                plan: ExportPlan, facts: SchemaFacts | None, ahead: Any, indent: int | None,
                report: ProgressReporter, cancelled: Callable[[], bool] | None) -> int:
    """One document of the main pass: its schema facts, its export into its spool; 1 when it
    counts as an exported document (not a folder)."""
    report.advance()
    app = apps.get(doc["_id"])  # the light pass read what collection_of reads
    if ahead is not None:
        ahead.advance(doc["_id"])
    if facts is not None:
        facts.add(doc, app)
    spool = by_app.get(app) if app is not None else None
    if spool is None or app is None:
        return 0
    if cancelled is not None and cancelled():
        raise ExportStopped()
    unusual = plan.export_document(doc, app)
    spool.add(encode_value(doc, indent, plain=plain and not unusual))
    return 0 if doc.get("type") == FOLDER_TYPE else 1


def _export_by_revision(reading: _Reading, apps: _Labels, by_app: dict[str, _Spool], plan: ExportPlan,
                        cache: ContentCache, report: ProgressReporter, cancelled: Callable[[], bool] | None) -> int:
    """The main pass of a compact export with a memo: each exported document's JSON is kept per
    revision (:meth:`~storyloom.export.game_export.ExportPlan.document_key`, with its warnings
    and the attachments it references), with marks where its tree fields go; a document whose
    JSON is kept is copied with its current ``children`` and ``path`` and its body is not read.
    Returns the documents exported (folders left out)."""
    documents = 0
    warnings = plan.warnings
    tree = plan.tree
    labels = apps.walk()  # in _id order, as the revisions: side by side, not a lookup each
    labelled: tuple[str, str | None] | None = next(labels, None)
    with cache.reading_ahead("json:") as ahead:
        for doc_id, rev in reading.revisions():
            report.advance()
            while labelled is not None and labelled[0] < doc_id:
                labelled = next(labels, None)
            # The light pass read what collection_of reads.
            label = labelled[1] if labelled is not None and labelled[0] == doc_id else None
            app = (label[1:] or None) if label else None
            folder = label is not None and label[:1] == "F"
            spool = by_app.get(app) if app is not None else None
            if spool is None or app is None:
                continue  # not exported: not even read
            if ahead is not None:
                ahead.advance(doc_id)
            if cancelled is not None and cancelled():
                raise ExportStopped()
            if plan.localized(app):  # its form depends on the translations: never kept
                found = reading.document(doc_id, rev)
                if found is None:  # pragma: no cover - the snapshot listed this revision
                    continue
                doc, plain = found
                unusual = plan.export_document(doc, app)
                spool.add(encode_value(doc, plain=plain and not unusual))
                if not folder:
                    documents += 1
                continue
            key = plan.document_key(doc_id, rev, app)
            kept = cache.get(key)
            if kept is MISS:
                data = _export_and_keep(reading, doc_id, rev, app, plan, cache, key)
                if data is None:
                    continue
            else:
                data, doc_warnings, referenced = kept
                if doc_warnings:
                    warnings.extend(doc_warnings)
                if referenced:
                    plan.referenced.update(referenced)
            if isinstance(data, bytes):
                spool.add(data)  # written by the stdlib's encoder, tree fields included
            else:
                head, middle, tail = data
                node = tree.get(doc_id)
                children, path = _tree_json(node["children"], node["path"]) if node else (b"[]", _json_text(doc_id))
                spool.add_parts((head, children, middle, path, tail))
            if not folder:
                documents += 1
    return documents


class _Labels:
    """Each document's collection (``get``, as a dict of them would answer) from the labels of
    a :class:`~storyloom.project.TreeTable` (``"F"`` or ``"D"``, folder or not, then the
    collection's app name)."""

    def __init__(self, tree: TreeTable) -> None:
        self.tree = tree

    def get(self, doc_id: str) -> str | None:
        label = self.tree.label(doc_id)
        return (label[1:] or None) if label else None

    def walk(self) -> Iterator[tuple[str, str | None]]:
        """``(id, label)`` of every document, in ``_id`` order."""
        return self.tree.labels()



def _export_and_keep(reading: _Reading, doc_id: str, rev: str, app: str, plan: ExportPlan, cache: ContentCache,
                     key: tuple[Any, ...]) -> bytes | list[bytes] | None:
    """Read, transform and encode one document of :func:`_export_by_revision`: its JSON in three
    pieces around its tree fields, kept in ``cache``; or, when orjson does not write it as
    ``dumps_export`` does, its whole JSON by the stdlib's encoder (not kept)."""
    found = reading.document(doc_id, rev)
    if found is None:  # pragma: no cover - the snapshot listed this revision
        return None
    doc, plain = found
    warnings = plan.warnings
    before = len(warnings)
    unusual, referenced = plan.export_one(doc, app, memo=False)
    if plain and not unusual:
        tree_fields = doc["children"], doc["path"]
        doc["children"] = doc["path"] = _TREE_MARK
        try:
            data = orjson.dumps(doc, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: what only the stdlib writes
            pass
        else:
            pieces = data.split(b"\x00")
            if len(pieces) == 3:
                cache.put(key, [pieces, warnings[before:], sorted(referenced)])
                return pieces
        doc["children"], doc["path"] = tree_fields
    return encode_value(doc, plain=False)


def _tree_json(children: list[str], path: str) -> tuple[bytes, bytes]:
    """The JSON of a document's ``children`` and ``path`` as ``dumps_export`` writes them."""
    try:
        return (orjson.dumps(children) if children else b"[]"), orjson.dumps(path)
    except TypeError:  # pragma: no cover - ids are text SQLite holds, which orjson writes
        return _stdlib_json(children, None), _stdlib_json(path, None)


def _json_text(text: str) -> bytes:
    return _tree_json([], text)[1]


class ExportStopped(StoryloomError):
    """``cancelled()`` turned true while a streamed export ran (nothing was written)."""

    code = "export_stopped"

    def __init__(self) -> None:
        super().__init__("The export was stopped before it finished; nothing was written. Run it again to export.")


def write_game_export(handle: IO[bytes], project: ProjectLike, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`stream_game_export` written to ``handle``; returns the export's ``_meta``."""
    with stream_game_export(project, *args, **kwargs) as export:
        export.write_to(handle)
        return export.meta


# --------------------------------------------------------------------------------------
# The schema


def stream_schema(
    project: ProjectLike,
    collections: str | Sequence[str] | None = None,
    compat: str | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """:func:`~storyloom.export.schema_export.build_schema`, reading the documents one at a time
    (only those the schema looks into are decoded): memory bounded. Reports phase ``"schema"``."""
    report = ProgressReporter(progress, "schema")
    looked_into = {"Variable", "Scenario", "Map", "Actor", "Gdd"}
    with _reading(project) as reading, gc_paused():
        # One pass over the light fields keeps only the collections of the documents the schema
        # looks into, and the Attachment ids (issue 28: nothing kept for every document).
        wanted: dict[str, str | None] = {}
        attachment_ids: set[str] = set()
        total = 0
        for doc in reading.light_rows():
            total += 1
            app = collection_of(doc)
            if app in looked_into:
                wanted[doc["_id"]] = app
            if is_attachment_document(doc):
                attachment_ids.add(doc["_id"])
        report.set_total(total)
        settings = dict(project.settings() or {})
        cache = cache_for(project.db)
        facts = SchemaFacts(attachment_ids, cache)
        report.advance(total - len(wanted))
        for doc, _ in reading.each(wanted):
            report.advance()
            facts.add(doc, wanted.get(doc["_id"]))
        schema = schema_from_facts(facts, settings, collections, project_id=_project_attr(project, "id"),
                                   project_name=_project_attr(project, "name"), cache=cache, compat=compat)
    if cache is not None:
        cache.trim()
    report.finish()
    return schema
