"""Qt-free rules of File > Export Game Content and File > Export Schema.

The desktop app exports with the very functions ``storyloom export`` and ``storyloom schema``
call (:func:`storyloom.export.stream.stream_game_export` and
:func:`storyloom.export.stream.stream_schema`: the documents read one at a time, memory bounded),
so a file exported from the app is the one the command line writes for the same selection
(``_meta.exportedAt`` aside).

- :func:`collection_choices` lists the collections to tick, with their document counts and the
  project's export sections ticked; :func:`selection` turns the ticks into the export's
  ``collections`` argument (``None`` when they are the project's sections, as the CLI without
  ``--collections``).
- :func:`export_game_content` and :func:`export_schema` build and write, reporting their steps
  to ``progress`` and stopping before anything is written when ``cancelled()``. Where the file
  goes and how it is written are :mod:`storyloom.output_files`' rules, as for ``storyloom
  export``: a folder gets :func:`default_file_name` inside it, a file named is replaced (never a
  folder), atomically.
- Under them, the one export to a file of the app and the command line: :func:`output_path` (the
  file an output names), :func:`write_game_export`, :func:`write_schema` and :func:`write_dump`
  (``storyloom export``, ``schema`` and ``dump``), which also write to a stream (stdout).
- :class:`ExportResult` is the summary the dialog shows (files, counts, warnings).
- The last choices are kept per project and machine (a ``_local`` document).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from storyloom.errors import StoryloomError
from storyloom.export import (
    ExportStopped,
    default_collections,
    dumps_export,
    parse_collections,
    parse_compat,
    sidecar_path,
    stream_game_export,
    stream_schema,
)
from storyloom.output_files import OutputError, resolve_output
from storyloom.output_files import write_chunks as write_file
from storyloom.progress import ProgressCallback
from storyloom.project import COLLECTIONS, FOLDER_TYPE, SETTINGS_ID, Editor, WriteIntent
from storyloom.store import NotFound
from storyloom.words import counted

GAME = "game"
SCHEMA = "schema"
DUMP = "dump"
CHOICES_ID = "_local/storyloom-export-choices"
MAX_WARNING_LINES = 200
_LABELS = {"ProjectSettings": "Project Settings"}


class ExportError(StoryloomError):
    """An export that cannot run as chosen (no collection, no file, a folder as the file)."""

    code = "export_failed"


class ExportCancelled(StoryloomError):
    """The user cancelled the export before its files were written (nothing was written)."""

    code = "export_cancelled"

    def __init__(self) -> None:
        super().__init__("Export cancelled; no file was written.")


# ---------------------------------------------------------------------------------- choices


@dataclass(frozen=True)
class CollectionChoice:
    """One collection to tick: its export name, its label, how many documents it holds, and
    whether the project's export sections include it."""

    export_name: str
    label: str
    documents: int
    default: bool


def collection_choices(settings: Mapping[str, Any], summaries: Iterable[Any]) -> list[CollectionChoice]:
    """Every export collection in the canonical order; ``summaries`` are the project index's
    (documents are counted per collection, folders left out)."""
    counts: dict[str, int] = {}
    for summary in summaries:
        if summary.type == FOLDER_TYPE or not summary.is_tree:
            continue
        key = str(summary.collection)
        counts[key] = counts.get(key, 0) + 1
    defaults = set(default_collections(settings))
    return [
        CollectionChoice(c.export_name, _LABELS.get(c.export_name, c.export_name),
                         1 if c.app_name == SETTINGS_ID else counts.get(c.app_name, 0), c.export_name in defaults)
        for c in COLLECTIONS
    ]


def selection(checked: Iterable[str], defaults: Iterable[str]) -> list[str] | None:
    """The ``collections`` argument of the export for the ticked export names: ``None`` when they
    are exactly the project's export sections (``defaults``), so the export is the CLI's without
    ``--collections`` (with its warnings about the sections); otherwise the names in the
    canonical order. Raises :class:`ExportError` when nothing is ticked."""
    names = list(checked)
    chosen = parse_collections(names) if names else []
    if not chosen:
        raise ExportError("Tick at least one collection to export.")
    return None if set(chosen) == set(defaults) else chosen


@dataclass
class ExportChoices:
    """What the dialog asks: the file, the collections (``None``: the project's export
    sections), the schema beside the export, the compatibility mode (``None``: the project's
    setting; ``"none"``: plain) and indentation."""

    output: str = ""
    collections: list[str] | None = None
    schema_sidecar: bool = False
    compat: str | None = None
    pretty: bool = False
    #: The language of the text (``None``: the source; else a target locale of the project).
    locale: str | None = None
    #: The source text, and beside the file a string table per target locale.
    all_locales: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"output": self.output, "collections": self.collections, "schemaSidecar": self.schema_sidecar,
                "compat": self.compat, "pretty": self.pretty, "locale": self.locale, "allLocales": self.all_locales}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExportChoices:
        """Choices read back; anything malformed falls back to its default."""
        collections = data.get("collections")
        try:
            chosen = parse_collections(collections) if isinstance(collections, list) and collections else None
        except StoryloomError:
            chosen = None
        try:
            compat = parse_compat(data["compat"]) if isinstance(data.get("compat"), str) else None
        except StoryloomError:
            compat = None
        output = data.get("output")
        locale = data.get("locale")
        return cls(output=output if isinstance(output, str) else "", collections=chosen,
                   schema_sidecar=data.get("schemaSidecar") is True, compat=compat, pretty=data.get("pretty") is True,
                   locale=locale if isinstance(locale, str) and locale else None,
                   all_locales=data.get("allLocales") is True and not (isinstance(locale, str) and locale))


#: The export dialog's Language entry for the source text with a string table per target locale.
ALL_LOCALES = "*"


def language_choices(settings: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """The export dialog's Language: ``(label, locale)``, the source text first (``None``), then
    each target locale of the project in its settings' order, then (with any target locale) the
    source text with every locale's string table beside it (:data:`ALL_LOCALES`)."""
    from storyloom.project import source_locale, target_locales

    targets = target_locales(settings)
    every = [(f"Source text, and a string table per language ({', '.join(targets)})", ALL_LOCALES)] if targets else []
    return [(f"Source text ({source_locale(settings)})", None), *((tag, tag) for tag in targets), *every]


def slug(name: str) -> str:
    """A file name's stem from a project's name: ``The Goddess of Fate`` -> ``the-goddess-of-fate``."""
    text = re.sub(r"[^\w]+", "-", name.strip().lower(), flags=re.UNICODE).strip("-")
    return text or "project"


_SUFFIXES = {GAME: ".json", SCHEMA: ".schema.json", DUMP: ".dump.json"}


def default_file_name(project_name: str, kind: str) -> str:
    """``<slug>.json`` for the game export, ``<slug>.schema.json`` for the schema,
    ``<slug>.dump.json`` for the raw dump: the name an output naming a folder gets."""
    return f"{slug(project_name)}{_SUFFIXES[kind]}"


def default_output(project_name: str, kind: str, folder: Path) -> str:
    """``<folder>/`` and :func:`default_file_name`."""
    return str(folder / default_file_name(project_name, kind))


def load_choices(db: Any, kind: str) -> ExportChoices | None:
    """The choices of this project's last ``kind`` export on this machine, ``None`` before any."""
    try:
        doc = db.get_local(CHOICES_ID)
    except NotFound:
        return None
    data = doc.get(kind)
    return ExportChoices.from_dict(data) if isinstance(data, Mapping) else None


def save_choices(editor: Editor, kind: str, choices: ExportChoices) -> None:
    """Remember ``choices`` as this project's last ``kind`` export (per machine, never replicated)."""
    try:
        doc = dict(editor.db.get_local(CHOICES_ID))
    except NotFound:
        doc = {"_id": CHOICES_ID}
    doc[kind] = choices.to_dict()
    editor.write_local(doc, WriteIntent.UPDATE)


# ---------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: ``files`` (path, bytes), the collections and the number of
    documents exported, and the export's ``_meta.warnings``."""

    kind: str
    files: list[tuple[str, int]]
    collections: list[str]
    documents: int = 0
    warnings: list[dict[str, Any]] = field(default_factory=list)
    #: ``_meta.warningCount``: every warning, where ``warnings`` holds the first ones only.
    warning_count: int | None = None
    #: ``_meta.localization`` of a localized export (else ``None``).
    localization: dict[str, Any] | None = None
    #: ``{locale: counts}`` of the string tables written beside the export (``all_locales``).
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)

    def headline(self) -> str:
        """One sentence: what was exported (the files are listed apart)."""
        what = counted(len(self.collections), "collection")
        if self.kind == SCHEMA:
            return f"Wrote the JSON Schema of {what}."
        docs = counted(self.documents, "document")
        schema = ", with its JSON Schema beside it" if len(self.files) > 1 + len(self.tables) else ""
        text = f"Exported {docs} in {what}{schema}."
        if self.localization is not None:
            counts = self.localization
            text += (f" Text in {counts['locale']}: {counts['translated']} of {counted(counts['lines'], 'line')}"
                     f" translated ({counts['needsReview']} to review; the rest in the source language).")
        if self.tables:
            text += f" String tables: {', '.join(self.tables)}."
        return text

    def warnings_title(self) -> str:
        count = len(self.warnings)
        if not count:
            return "No warnings."
        return f"{counted(count, 'warning')} (also in the export's _meta.warnings):"

    def warning_lines(self) -> list[str]:
        """The warnings as lines (at most :data:`MAX_WARNING_LINES`, then how many more)."""
        lines = [format_warning(w) for w in self.warnings[:MAX_WARNING_LINES]]
        if len(self.warnings) > MAX_WARNING_LINES:
            lines.append(f"… and {len(self.warnings) - MAX_WARNING_LINES} more in the file")
        return lines


def format_warning(warning: Mapping[str, Any]) -> str:
    """``<collection> <doc id> <field> line L:C: <message>``, as ``storyloom export`` prints it."""
    where = f"{warning.get('collection') or ''} {warning.get('docId') or ''} {warning.get('field') or ''}".strip()
    if warning.get("line"):
        where += f" line {warning['line']}" + (f":{warning['column']}" if warning.get("column") else "")
    message = str(warning.get("message") or "")
    return f"{where}: {message}" if where else message


def describe_warning(warning: Mapping[str, Any], name_of: Callable[[str], str | None]) -> tuple[str, str]:
    """``(where, message)`` of an export warning for people: the document by its name
    (``name_of(id)``, the id when unknown), the field and the line: ``Script “Ending Setup”,
    content.script, line 1:5``."""
    doc_id = warning.get("docId")
    collection = str(warning.get("collection") or "")
    parts = []
    if isinstance(doc_id, str) and doc_id:
        name = name_of(doc_id) or doc_id
        parts.append(f"{collection} “{name}”".strip())
    elif collection:
        parts.append(collection)
    if warning.get("field"):
        parts.append(str(warning["field"]))
    if warning.get("line"):
        parts.append(f"line {warning['line']}" + (f":{warning['column']}" if warning.get("column") else ""))
    return ", ".join(parts), str(warning.get("message") or "")


def output_path(output: str, project_name: str, kind: str) -> Path:
    """The file ``output`` names for a ``kind`` export of ``project_name`` (a folder gets
    :func:`default_file_name` inside it, created when absent); raises
    :class:`~storyloom.output_files.OutputError` saying what is wrong with it."""
    return resolve_output(output, default_file_name(project_name, kind)).path


def check_output(output: str, default_name: str = "game.json") -> Path:
    """The file to write for ``output`` (a folder gets ``default_name`` inside it, created when
    absent), or :class:`ExportError` naming what is wrong with it."""
    if not output.strip():
        raise ExportError("Choose the file to write the export to.")
    try:
        return resolve_output(output.strip(), default_name).path
    except OutputError as exc:
        raise ExportError(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None


#: Where an export goes: a file (written atomically) or a stream (stdout).
Target = Path | IO[bytes]


def write_text(path: Target, text: str) -> int:
    """Write ``text`` as UTF-8 to ``path`` atomically (or to a stream); returns the bytes written."""
    return write_chunks(path, [text.encode("utf-8")])


def write_chunks(path: Target, chunks: Iterable[bytes | str]) -> int:
    """Write ``chunks`` (text is written as UTF-8) to ``path`` atomically
    (:func:`storyloom.output_files.write_chunks`: a held temporary file beside it, flushed and
    renamed into place), or to a stream, flushed at the end (a stream that closed meanwhile, a
    pipe whose reader stopped early, ends the writing); returns the bytes written."""
    if isinstance(path, Path):
        return write_file(path, chunks)[1]
    written = 0
    for chunk in chunks:
        if path.closed:  # the reader went away (a pipe closed early): nothing more to read
            return written
        data = chunk.encode("utf-8") if isinstance(chunk, str) else chunk
        path.write(data)
        written += len(data)
    if not path.closed:
        path.flush()
    return written


def _where(target: Target) -> str:
    return str(target) if isinstance(target, Path) else "-"


Progress = Callable[[str], None]


def _step(progress: Progress | None, cancelled: Callable[[], bool] | None, text: str) -> None:
    if cancelled is not None and cancelled():
        raise ExportCancelled()
    if progress is not None:
        progress(text)


def export_game_content(project: Any, choices: ExportChoices, *, exported_by: str | None,
                        progress: Progress | None = None,
                        cancelled: Callable[[], bool] | None = None,
                        on_progress: ProgressCallback | None = None) -> ExportResult:
    """Build the game export of ``project`` as ``choices`` say and write it (with its schema
    beside it, ``<name>.schema.json``, when asked): :func:`write_game_export` to the file
    ``choices.output`` names. Raises :class:`ExportError` for a bad choice, :class:`ExportCancelled`
    when ``cancelled()`` turned true before the writing, and the export's own errors
    (``UnknownCollections``, ``UnknownCompat``)."""
    target = check_output(choices.output, default_file_name(project.name, GAME))
    return write_game_export(project, target, collections=choices.collections, exported_by=exported_by,
                             compat=choices.compat, pretty=choices.pretty, schema_sidecar=choices.schema_sidecar,
                             progress=progress, cancelled=cancelled, on_progress=on_progress,
                             locale=choices.locale, all_locales=choices.all_locales)


def write_game_export(project: Any, target: Target, *, collections: str | Sequence[str] | None = None,
                      exported_by: str | None = None, compat: str | None = None, pretty: bool = False,
                      schema_sidecar: bool = False, progress: Progress | None = None,
                      cancelled: Callable[[], bool] | None = None,
                      on_progress: ProgressCallback | None = None, locale: str | None = None,
                      all_locales: bool = False) -> ExportResult:
    """The game export of ``project`` written to ``target`` (a file, atomically, or a stream),
    with its JSON Schema beside the file (``<name>.schema.json``) when ``schema_sidecar``:
    ``storyloom export`` and File > Export. ``collections``: export names (a list, or text
    separated by commas), ``None`` for the project's export sections.

    The export is streamed (the documents read one at a time, memory bounded; with the sidecar,
    one reading of the store for both); ``progress`` gets the steps in words, ``on_progress``
    the documents done of the total (:class:`storyloom.progress.Progress`, phase ``"export"``).
    Raises :class:`ExportCancelled` when ``cancelled()`` turned true before the writing, and the
    export's own errors (``UnknownCollections``, ``UnknownCompat``, ``UnknownExportLocale``).

    ``locale``: the text in that language (a target locale of the project; the source locale or
    ``None``: the source text). ``all_locales``: the export in the source text, and beside the
    file a string table per target locale (:func:`string_table_path`, :func:`write_string_tables`)."""
    if schema_sidecar and not isinstance(target, Path):
        raise ExportError("The schema sidecar is written beside the export: choose a file to write it to.")
    if all_locales and not isinstance(target, Path):
        raise ExportError("The string tables are written beside the export: choose a file to write it to.")
    if all_locales and locale is not None:
        raise ExportError("Export one language, or the source text with a string table per language: not both.")
    _step(progress, cancelled, "Reading the project and building the export…")
    indent = 2 if pretty else None
    try:
        export = stream_game_export(project, collections, exported_by, compat=compat, indent=indent,
                                    with_schema=schema_sidecar, progress=on_progress, cancelled=cancelled,
                                    locale=locale)
    except ExportStopped:
        raise ExportCancelled() from None
    with export:
        _step(progress, cancelled, f"Writing {target.name if isinstance(target, Path) else 'the export'}…")
        files = [(_where(target), write_chunks(target, export.chunks()))]
        if export.schema is not None and isinstance(target, Path):
            side = Path(sidecar_path(str(target)))
            files.append((str(side), write_text(side, dumps_export(export.schema, indent))))
        meta = export.meta
        tables: dict[str, dict[str, Any]] = {}
        if all_locales and isinstance(target, Path):
            tables = write_string_tables(project, target, list(meta.get("collections") or []), files,
                                         pretty=pretty, progress=progress, cancelled=cancelled)
        warnings = list(meta.get("warnings") or [])
        return ExportResult(GAME, files, list(meta.get("collections") or []), export.documents, warnings,
                            meta.get("warningCount", len(warnings)), meta.get("localization"), tables)


#: The collections whose lines a string table holds (export names).
TRANSLATED_SECTIONS = ("Scripts", "Dialogues")


def string_table_path(target: Path, locale: str) -> Path:
    """The string table of ``locale`` beside the export ``target``: ``game.json`` ->
    ``game.fr.json`` (a name not ending in ``.json`` gets ``.<locale>.json`` added)."""
    name = target.name
    stem = name[:-len(".json")] if name.lower().endswith(".json") and len(name) > len(".json") else name
    return target.with_name(f"{stem}.{locale}.json")


def write_string_tables(project: Any, target: Path, collections: list[str], files: list[tuple[str, int]], *,
                        pretty: bool = False, progress: Progress | None = None,
                        cancelled: Callable[[], bool] | None = None) -> dict[str, dict[str, Any]]:
    """A string table per target locale of ``project`` beside the export ``target``
    (:func:`string_table_path`), each written atomically and added to ``files``: ``{"_meta":
    {"localization": counts}, "strings": {line id: translation}}`` for the translated lines of
    the Scripts and Dialogues among ``collections``, the counts those of ``_meta.localization``
    of the export in that locale. Returns ``{locale: counts}``. Each table is a localized export
    of those two collections (their lines transformed afresh: no memo holds translations)."""
    from storyloom.project import source_locale, target_locales

    settings = project.settings() or {}
    sections = [name for name in collections if name in TRANSLATED_SECTIONS]
    tables: dict[str, dict[str, Any]] = {}
    for tag in target_locales(settings):
        path = string_table_path(target, tag)
        _step(progress, cancelled, f"Writing {path.name}…")
        if sections:
            with stream_game_export(project, sections, locale=tag) as localized:
                counts = dict(localized.meta["localization"])
                strings = dict(localized.strings)
        else:
            counts = {"locale": tag, "sourceLocale": source_locale(settings), "lines": 0, "translated": 0,
                      "needsReview": 0, "untranslated": 0}
            strings = {}
        table = {"_meta": {"localization": counts}, "strings": strings}
        files.append((str(path), write_text(path, dumps_export(table, 2 if pretty else None))))
        tables[tag] = counts
    return tables


def export_schema(project: Any, choices: ExportChoices, *, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None,
                  on_progress: ProgressCallback | None = None) -> ExportResult:
    """Build the JSON Schema of ``project``'s game export for ``choices`` and write it
    (:func:`write_schema` to the file ``choices.output`` names)."""
    target = check_output(choices.output, default_file_name(project.name, SCHEMA))
    return write_schema(project, target, collections=choices.collections, compat=choices.compat,
                        pretty=choices.pretty, progress=progress, cancelled=cancelled, on_progress=on_progress)


def write_schema(project: Any, target: Target, *, collections: str | Sequence[str] | None = None,
                 compat: str | None = None, pretty: bool = False, progress: Progress | None = None,
                 cancelled: Callable[[], bool] | None = None,
                 on_progress: ProgressCallback | None = None) -> ExportResult:
    """The JSON Schema of ``project``'s game export for ``collections`` written to ``target`` (a
    file, atomically, or a stream): ``storyloom schema`` and File > Export Schema. The documents
    are read one at a time; ``on_progress`` as for :func:`write_game_export`, phase ``"schema"``."""
    _step(progress, cancelled, "Reading the project and building the schema…")
    schema = stream_schema(project, collections, compat=compat, progress=on_progress)
    _step(progress, cancelled, f"Writing {target.name if isinstance(target, Path) else 'the schema'}…")
    files = [(_where(target), write_text(target, dumps_export(schema, 2 if pretty else None)))]
    if isinstance(collections, str):
        chosen = parse_collections(collections)
    elif collections is not None:
        chosen = list(collections)
    else:
        chosen = default_collections(project.settings() or {})
    return ExportResult(SCHEMA, files, chosen)


def write_dump(db: Any, target: Target) -> ExportResult:
    """The raw ``all_docs`` dump of a project's store (``include_docs``, ``attachments``: what
    ``/db-dump`` serves and a backup holds) written to ``target`` (a file, atomically, or a
    stream): ``storyloom dump``. Read as text chunks from one snapshot."""
    stream = getattr(db, "all_docs_stream", None)
    if callable(stream):
        chunks: Iterable[bytes | str] = stream(include_docs=True, attachments=True)
    else:  # pragma: no cover - every Database has all_docs_stream
        import json

        chunks = [json.dumps(db.all_docs(include_docs=True, attachments=True), ensure_ascii=False)]
    return ExportResult(DUMP, [(_where(target), write_chunks(target, chunks))], [])
