"""Game export: the JSON a game engine reads (``storyloom export``, ``GET /game-export``).

:func:`build_game_export` reads the project's documents once, transforms them (see
``docs/export-format.md`` for every key and every transformation) and returns a plain dict;
:func:`dumps_export` serialises it deterministically. The pure part,
:func:`export_from_docs`, works on a list of document dicts so it is testable without a store.

Determinism: documents are sorted by ``_id``, object keys are sorted by the serialiser, and
everything else (arrays inside documents, tree children, script lines) keeps its meaningful
order; the only value that changes between two exports of the same project is
``_meta.exportedAt``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import heapq
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import storyloom
from storyloom.collector import gc_paused
from storyloom.export.attachments import (
    META_ATTACHMENTS_KEY,
    REFERENCING_COLLECTIONS,
    attachment_entry,
    attachment_stubs,
    is_attachment_document,
    link_expressions,
    referenced_attachments,
)
from storyloom.export.cache import MISS, ContentCache, cache_for, fingerprint
from storyloom.export.collections_filter import UnknownCollections, canonical_order, parse_collections
from storyloom.export.compat import apply_to_export, resolve_compat
from storyloom.export.localized import Localizer, export_locale, is_translation_of
from storyloom.project import (
    BY_APP_NAME,
    BY_EXPORT_NAME,
    COLLECTIONS,
    FOLDER_TYPE,
    LINE_IDS,
    SETTINGS_ID,
    ProjectLike,
    choice_options,
    derive_tree,
    dialogue_option_ids,
    public_settings,
    script_line_ids,
    source_locale,
)
from storyloom.project.content import (
    LANGUAGES,
    MAP_CONTENT_KEYS,
    ContentError,
    ContentProblem,
    check_map_content,
    check_scenario_diff,
    content_problem,
    parse_scenario_doc,
    parse_text,
    parse_variables_doc,
    scenario_source,
    variables_source,
)
from storyloom.store.all_docs import live_documents
from storyloom.store.codec import escape_surrogates, has_unusual_float

FORMAT_VERSION = 2
"""``_meta.formatVersion``: bumped on any change a consumer has to adapt to."""
META_WARNINGS_LIMIT = 1000
"""``_meta.warnings`` holds at most this many warnings (the first in warning order);
``_meta.warningCount`` says how many there are. ``storyloom check`` lists them all."""

# Editor data Drafft 1.x kept beside what the importer converted it to, per collection: the
# ``graph`` of a dialogue (now ``content.tree``) and the lanes ``data`` of a board (now
# ``content.columns``). Kept in the store, never exported.
LEGACY_EDITOR_FIELDS: dict[str, tuple[str, ...]] = {
    "Dialogue": ("graph",),
    "Kanban": ("data",),
}

# Fields never exported: revision and lock bookkeeping. Every other ``_``-prefixed field but
# ``_id`` and ``_attachments`` (``_conflicts``, ``_revisions``, ``_deleted_conflicts``,
# ``_revs_info``, ``_local_seq``) is stripped too.
STRIPPED_FIELDS: frozenset[str] = frozenset({"_rev", "locked", "lockedBy", "lockedAt", "lockBroken"})

_KEPT_UNDERSCORED = frozenset({"_id", "_attachments"})

# Per-machine fields of ProjectSettings that old files still carry (Drafft 1.x kept the remote
# database, password included, in the replicated settings) are never exported: one rule,
# :func:`storyloom.project.settings.public_settings`, shared with the API's ``/info``.

# Property text parsed from ``editorLanguage`` to JSON: collection -> fields of ``content``.
PROPERTY_FIELDS: dict[str, tuple[str, ...]] = {
    "Item": ("item",),
    "Quest": ("properties", "conditions"),
    "Actor": ("properties",),
    "Misc": ("properties",),
}

# Keys of ``content`` each typed collection exports (whitelists: editor caches such as the
# stringified ``content.json`` and any simulation state never leave the project).
TYPED_CONTENT_KEYS: dict[str, tuple[str, ...]] = {
    "Variable": ("variables",),
    "Scenario": ("scenario",),
    "Map": MAP_CONTENT_KEYS,
}


# Collections whose exported form a localized export changes (their translatable lines).
LOCALIZED_COLLECTIONS: frozenset[str] = frozenset({"Script", "Dialogue"})

# Collections whose content the exporter transforms (Variables are handled apart: a variable's
# fate depends on the other variable documents).
_TRANSFORMED: frozenset[str] = frozenset({*PROPERTY_FIELDS, "Script", "Scenario", "Map"})


# --------------------------------------------------------------------------------------
# Reading the project


def read_documents(db: Any) -> list[dict[str, Any]]:
    """Every live document of the store (winning revisions, attachment stubs), design
    documents excluded, as fresh dicts the caller may modify: the store's own walk of its live
    documents (:func:`storyloom.store.all_docs.live_documents`, what the streamed export reads
    through) in one snapshot, else ``all_docs``."""
    snapshot = getattr(db, "snapshot", None)
    if snapshot is not None:
        with snapshot() as snap:
            if hasattr(snap, "conn"):
                return [doc for doc, _ in live_documents(snap)]
    rows = db.all_docs(include_docs=True)["rows"]
    return [row["doc"] for row in rows if row.get("doc") and not row["id"].startswith("_design/")]


def collection_of(doc: Mapping[str, Any]) -> str | None:
    """The app name of the collection a document belongs to, or ``None`` (attachments, users,
    hotkeys, design documents, unknown types are not exported)."""
    doc_id = doc.get("_id")
    if doc_id == SETTINGS_ID:
        return SETTINGS_ID
    if not isinstance(doc_id, str) or doc_id.startswith(("_design/", "_local/")):
        return None
    collection = doc.get("collection")
    if isinstance(collection, str) and collection in BY_APP_NAME and collection != SETTINGS_ID:
        return collection
    doc_type = doc.get("type")
    if isinstance(doc_type, str) and doc_type in BY_APP_NAME and doc_type != SETTINGS_ID:
        return doc_type
    return None


def default_collections(settings: Mapping[str, Any], warnings: list[dict[str, Any]] | None = None) -> list[str]:
    """The project's export sections (``ProjectSettings.exportSections``), every collection when
    it names none. Unknown names in it are skipped (with a warning when ``warnings`` is given)."""
    sections = settings.get("exportSections")
    if not isinstance(sections, list) or not sections:
        return [c.export_name for c in COLLECTIONS]
    chosen: list[str] = []
    for name in sections:
        try:
            chosen.extend(parse_collections([name]) if isinstance(name, str) else [])
        except UnknownCollections:
            if warnings is not None:
                warnings.append(
                    _warning(
                        "unknown-export-section",
                        f"ProjectSettings.exportSections names an unknown collection {name!r}; skipped",
                        doc_id=SETTINGS_ID,
                        collection=SETTINGS_ID,
                        field="exportSections",
                    )
                )
    return canonical_order(chosen) if chosen else [c.export_name for c in COLLECTIONS]


# --------------------------------------------------------------------------------------
# Warnings


def _warning(
    code: str,
    message: str,
    *,
    doc_id: str | None,
    collection: str | None,
    field: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> dict[str, Any]:
    return {
        "code": code,
        "message": message,
        "docId": doc_id,
        "collection": collection,
        "field": field,
        "line": line,
        "column": column,
    }


def _problem_warning(problem: ContentProblem, collection: str, field: str) -> dict[str, Any]:
    path = f"{field}.{problem.path}" if problem.path else field
    return _warning(
        problem.code,
        problem.message,
        doc_id=problem.doc_id,
        collection=collection,
        field=path,
        line=problem.line,
        column=problem.column,
    )


_COLLECTION_ORDER = {c.app_name: i for i, c in enumerate(COLLECTIONS)}


def _warning_order(w: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        _COLLECTION_ORDER.get(w.get("collection") or "", len(_COLLECTION_ORDER)),
        w.get("docId") or "",
        w.get("field") or "",
        w.get("line") or 0,
        w.get("column") or 0,
        w.get("code") or "",
        w.get("message") or "",
    )


# --------------------------------------------------------------------------------------
# Scripts: parsed lines with the export mappings applied


ScriptRenderer = Callable[
    [str, str | None, str | None, Mapping[str, Any] | None, bool],
    tuple[list[dict[str, Any]], list[dict[str, Any]]],
]


def _interpolated(line: Any, state: Mapping[str, Any], problems: list[dict[str, Any]]) -> Any:
    """``line`` with every ``${...}`` of its text (or command params) replaced by its value
    in the authored defaults; on an error the line is kept as written, with a problem."""
    import dataclasses

    from storyloom.script import CommandLine, ExpressionError, SpeechLine, TextLine, interpolate

    def fill(text: str) -> str:
        if "${" not in text:
            return text
        try:
            return interpolate(text, state, state)
        except ExpressionError as exc:
            problems.append(
                {
                    "line": line.line,
                    "column": None,
                    "code": "interpolation",
                    "message": f"${{...}} left as written: {exc}",
                    "severity": "warning",
                }
            )
            return text

    if isinstance(line, SpeechLine | TextLine):
        text = fill(line.text)
        return line if text == line.text else dataclasses.replace(line, text=text)
    if isinstance(line, CommandLine):
        params = [fill(param) for param in line.params]
        return line if params == line.params else dataclasses.replace(line, params=params)
    return line


def render_script(
    text: str,
    speech_template: str | None,
    command_template: str | None,
    known_state: Mapping[str, Any] | None = None,
    interpolate_variables: bool = False,
    *,
    translate: Callable[[int, str], str] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(lines, problems)`` of a script as JSON-ready dicts; each speech or command line gets
    ``mapped`` when its template is non-empty. ``known_state`` (``{_sid: state}``, the authored
    defaults) turns on the check of variable paths; with ``interpolate_variables`` (the
    project's ``exportMappings.interpolateVariablesOnExport``) every ``${...}`` in speech and
    text lines and in command params is replaced by its value in those defaults. ``translate``
    (a localized export) gives each speech line's text from its index among the speech lines and
    its source text: it replaces the source before the interpolation and the mapping."""
    import dataclasses

    from storyloom.script import SpeechLine, parse_script, render_line

    parsed = parse_script(text, known_state)
    problems = [problem.to_dict() for problem in parsed.problems]
    lines: list[dict[str, Any]] = []
    speech_index = 0
    for line in parsed.lines:
        if translate is not None and isinstance(line, SpeechLine):
            translated = translate(speech_index, line.text)
            speech_index += 1
            if translated != line.text:
                line = dataclasses.replace(line, text=translated)
        if interpolate_variables:
            line = _interpolated(line, known_state or {}, problems)
        item = line.to_dict()
        mapped = render_line(line, speech_template or "", command_template or "")
        if mapped is not None:
            item["mapped"] = mapped
        lines.append(item)
    return lines, problems


def _dialogue_line_ids(doc: dict[str, Any], localizer: Localizer | None = None) -> None:
    """Every choice option of an exported Dialogue carries its ``lineId`` (the stored one, else
    the one the next edit stores: a Drafft teammate's dialogue has none yet); a localized export
    puts each option's translation in its ``label``."""
    ids = dialogue_option_ids(doc)
    if ids:
        content = doc["content"]
        for place, handle in choice_options(content.get("tree")):
            handle["lineId"] = ids[place]
            label = handle.get("label")
            if localizer is not None and isinstance(label, str):
                handle["label"] = localizer.text(str(doc["_id"]), ids[place], label)


def _mapping_templates(settings: Mapping[str, Any], mode: str) -> tuple[str | None, str | None]:
    mappings = settings.get("exportMappings")
    if not isinstance(mappings, Mapping):
        return None, None
    speech = mappings.get("speechExportMapping")
    command = mappings.get("commandSpeechExportMapping")
    speech_template = speech.get(mode) if isinstance(speech, Mapping) else None
    command_template = command.get(mode) if isinstance(command, Mapping) else None
    return (
        speech_template if isinstance(speech_template, str) and speech_template else None,
        command_template if isinstance(command_template, str) and command_template else None,
    )


# --------------------------------------------------------------------------------------
# The transformation


class _Exporter:
    def __init__(
        self,
        settings: Mapping[str, Any],
        render: ScriptRenderer,
        states: Mapping[str, Mapping[str, Any]] | None = None,
        localizer: Localizer | None = None,
    ) -> None:
        self.settings = settings
        self.localizer = localizer
        self.render = render
        self.states = states
        self.warnings: list[dict[str, Any]] = []
        language = settings.get("defaultEditorLanguage")
        self.default_language = language if isinstance(language, str) and language in LANGUAGES else "hjson"
        mode = settings.get("defaultScriptEditorMode")
        self.default_mode = mode if isinstance(mode, str) and mode else "text"
        self._templates: dict[str, tuple[str | None, str | None]] = {}
        mappings = settings.get("exportMappings")
        self.interpolate = isinstance(mappings, Mapping) and mappings.get("interpolateVariablesOnExport") is True

    def warn(self, code: str, message: str, doc: Mapping[str, Any], collection: str, **kw: Any) -> None:
        self.warnings.append(_warning(code, message, doc_id=doc.get("_id"), collection=collection, **kw))

    # -- generic ------------------------------------------------------------------------
    def base(self, doc: dict[str, Any], collection: str, tree: Mapping[str, Any]) -> dict[str, Any]:
        """Strip revision, lock and local fields; add ``collection``, ``children``, ``path``;
        attachments as stubs. Works in place on the freshly read document."""
        for key in [k for k in doc if k in STRIPPED_FIELDS or (k[:1] == "_" and k not in _KEPT_UNDERSCORED)]:
            del doc[key]
        if collection == SETTINGS_ID:
            public = public_settings(doc)
            doc.clear()
            doc.update(public)
        else:
            for key in LEGACY_EDITOR_FIELDS.get(collection, ()):
                doc.pop(key, None)
        doc["collection"] = collection
        node = tree.get(doc["_id"])
        if node:
            doc["children"] = list(node["children"])
            doc["path"] = node["path"]
        else:
            doc["children"] = []
            doc["path"] = doc["_id"]
        attachments = doc.get("_attachments")
        if isinstance(attachments, Mapping):
            doc["_attachments"] = attachment_stubs(doc["_id"], attachments)
        elif "_attachments" in doc:
            del doc["_attachments"]
        return doc

    # -- property text --------------------------------------------------------------------
    def properties(self, doc: dict[str, Any], collection: str) -> None:
        content = doc.get("content")
        if not isinstance(content, dict):
            return
        language = doc.get("editorLanguage")
        if not isinstance(language, str) or not language:
            language = self.default_language
        for field in PROPERTY_FIELDS[collection]:
            text = content.get(field)
            if not isinstance(text, str):
                continue
            if language.lower() not in LANGUAGES:
                self.warn(
                    "unknown-language",
                    f"editorLanguage {language!r} is not one of {', '.join(LANGUAGES)}; left as text",
                    doc,
                    collection,
                    field=f"content.{field}",
                )
                continue
            try:
                content[field] = parse_text(text, language)
            except ContentError as exc:
                self.warn(
                    "parse-error",
                    f"{exc.message} ({language}); left as text",
                    doc,
                    collection,
                    field=f"content.{field}",
                    line=exc.line,
                    column=exc.column,
                )

    # -- scripts --------------------------------------------------------------------------
    def script(self, doc: dict[str, Any]) -> None:
        content = doc.get("content")
        if not isinstance(content, dict) or not isinstance(content.get("script"), str):
            return
        mode = doc.get("editorMode") or doc.get("scriptEditorMode") or self.default_mode
        mode = mode if isinstance(mode, str) else self.default_mode
        if mode not in self._templates:
            self._templates[mode] = _mapping_templates(self.settings, mode)
        speech, command = self._templates[mode]
        # every speech line carries its stable id (its tag, else the side table's entry, anchored
        # here when the text changed without the editor gate); the table itself stays inside
        line_ids = script_line_ids(doc)
        localizer = self.localizer
        if localizer is None:
            lines, problems = self.render(content["script"], speech, command, self.states, self.interpolate)
        else:
            doc_id = str(doc.get("_id"))

            def translate(index: int, source: str) -> str:
                return localizer.text(doc_id, line_ids[index] if index < len(line_ids) else None, source)

            lines, problems = self.render(content["script"], speech, command, self.states, self.interpolate,
                                          translate=translate)  # type: ignore[call-arg]
        ids = iter(line_ids)
        for item in lines:
            if item.get("type") == "speech":
                item["lineId"] = next(ids, None)
        content.pop(LINE_IDS, None)
        content["lines"] = lines
        for problem in problems:
            self.warn(
                f"script-{problem.get('code', 'problem')}",
                str(problem.get("message", "")),
                doc,
                "Script",
                field="content.script",
                line=problem.get("line"),
                column=problem.get("column"),
            )

    # -- typed collections ----------------------------------------------------------------
    def transform(self, doc: dict[str, Any], collection: str) -> None:
        """The content transformation of ``collection`` (one of :data:`_TRANSFORMED`)."""
        if collection in PROPERTY_FIELDS:
            self.properties(doc, collection)
        elif collection == "Script":
            self.script(doc)
        elif collection == "Scenario":
            self.scenario(doc, self.states or {})
        elif collection == "Map":
            self.map(doc)

    def cached_transform(self, doc: dict[str, Any], collection: str, cache: ContentCache, key: Any) -> bool:
        """:meth:`transform` through the per-revision memo: ``[has content, content, warnings,
        unusual]``. Returns whether the content holds a float that orjson spells differently from
        the stdlib (:func:`storyloom.store.codec.has_unusual_float`, looked for once per revision)."""
        hit = cache.get(key)
        if hit is not MISS:
            has_content, content, warnings, unusual = hit
            if has_content:
                doc["content"] = content
            self.warnings.extend(warnings)
            return bool(unusual)
        before = len(self.warnings)
        self.transform(doc, collection)
        unusual = has_unusual_float(doc.get("content"))
        cache.put(key, ["content" in doc, doc.get("content"), self.warnings[before:], unusual])
        return unusual

    def variable(self, doc: dict[str, Any], state: dict[str, Any] | None, error: ContentProblem | None) -> None:
        if error is not None:
            self.warnings.append(_problem_warning(error, "Variable", "content.variables"))
            source = variables_source(doc)
            doc["content"] = {"variables": source}
            return
        doc["content"] = {"variables": state}

    def scenario(self, doc: dict[str, Any], states: Mapping[str, Mapping[str, Any]]) -> None:
        try:
            diff = parse_scenario_doc(doc)
        except ContentError as exc:
            self.warn(
                "parse-error",
                f"{exc.message}; left as text",
                doc,
                "Scenario",
                field="content.scenario",
                line=exc.line,
                column=exc.column,
            )
            doc["content"] = {"scenario": scenario_source(doc)}
            return
        cleaned, problems = check_scenario_diff(diff, states, scenario_source(doc), doc.get("_id"))
        for problem in problems:
            warning = _problem_warning(problem, "Scenario", "content.scenario")
            warning["message"] += "; override dropped"
            self.warnings.append(warning)
        doc["content"] = {"scenario": cleaned}

    def map(self, doc: dict[str, Any]) -> None:
        content = doc.get("content")
        if not isinstance(content, Mapping):
            content = {}
        exported, problems = check_map_content(content, doc.get("_id"))
        for problem in problems:
            warning = _problem_warning(problem, "Map", "content")
            warning["message"] += "; not exported" if exported is not None else "; map content not exported"
            self.warnings.append(warning)
        doc["content"] = exported


def _parse_variable(doc: Mapping[str, Any]) -> list[Any]:
    try:
        return ["ok", parse_variables_doc(doc)]
    except ContentError as exc:
        return ["error", exc.message, exc.line, exc.column]


def analyse_variables(
    docs: Iterable[Mapping[str, Any]],
    cache: ContentCache | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], dict[str, ContentProblem]]:
    """Parse every Variable document once.

    Returns ``(states by _sid, state by doc id, problem by doc id)``: a document that does not
    parse, or whose ``_sid`` a document earlier in ``_id`` order already uses, has a problem
    instead of a state. ``cache`` memoises the parse per ``(_id, _rev)``.
    """
    states: dict[str, dict[str, Any]] = {}
    by_doc: dict[str, dict[str, Any]] = {}
    failures: dict[str, ContentProblem] = {}
    owners: dict[str, str] = {}
    variable_docs = [d for d in docs if collection_of(d) == "Variable" and d.get("type") != FOLDER_TYPE]
    for doc in sorted(variable_docs, key=lambda d: str(d["_id"])):
        doc_id = str(doc["_id"])
        rev = doc.get("_rev")
        if cache is not None and isinstance(rev, str):
            result = cache.memo(("variables", doc_id, rev), functools.partial(_parse_variable, doc))
        else:
            result = _parse_variable(doc)
        if result[0] != "ok":
            _, message, line, column = result
            failures[doc_id] = content_problem("parse-error", f"{message}; left as text", "", line, column, doc_id)
            continue
        state = result[1]
        sid = state["_sid"]
        if sid in owners:
            failures[doc_id] = content_problem(
                "duplicate-sid",
                f"`_sid` {sid!r} is already used by document {owners[sid]}; left as text",
                "_sid",
                doc_id=doc_id,
            )
            continue
        owners[sid] = doc_id
        states[sid] = state
        by_doc[doc_id] = state
    return states, by_doc, failures


class ExportPlan:
    """Everything an export decides before it transforms documents, and the transformation of one
    document: shared by :func:`export_from_docs` (a list of documents) and the streamed export
    (:mod:`storyloom.export.stream`, one document at a time), so both give the same bytes.

    ``variable_docs`` are the Variable documents (read before any is transformed: their ``_rev``
    keys the memo), ``attachment_docs`` the Attachment documents by ``_id``, ``tree`` the derived
    tree of every document (:func:`storyloom.project.tree.derive_tree`). ``locale`` asks for the
    localized export (:mod:`storyloom.export.localized`; ``None`` or the source locale: the plain
    one, byte for byte; another tag raises
    :class:`~storyloom.export.localized.UnknownExportLocale`), whose texts come from
    ``translation_docs``, that locale's Translation documents.
    """

    def __init__(
        self,
        settings: Mapping[str, Any],
        collections: str | Sequence[str] | None,
        *,
        variable_docs: Iterable[Mapping[str, Any]],
        attachment_docs: Mapping[str, Mapping[str, Any]],
        tree: Mapping[str, Any],
        render: ScriptRenderer | None = None,
        cache: ContentCache | None = None,
        compat: str | None = None,
        locale: str | None = None,
        translation_docs: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        pre_warnings: list[dict[str, Any]] = []
        tag = export_locale(settings, locale)  # refuses an unknown locale before any work
        localizer = Localizer(tag, source_locale(settings), translation_docs) if tag is not None else None
        self.mode, compat_problem = resolve_compat(compat, settings)
        self.selected = parse_collections(collections, default_collections(settings, pre_warnings))
        if compat_problem is not None:
            pre_warnings.append(
                _warning("unknown-export-compat", compat_problem, doc_id=SETTINGS_ID, collection=SETTINGS_ID,
                         field="exportCompat")
            )
        chosen_apps = {BY_EXPORT_NAME[name].app_name for name in self.selected}
        self.chosen = [c for c in COLLECTIONS if c.app_name in chosen_apps]
        """The chosen collections, in the canonical order."""
        self.apps = frozenset(chosen_apps)
        if chosen_apps & {"Variable", "Scenario", "Script"}:
            states, self.by_doc, self.failures = analyse_variables(variable_docs, cache)
        else:
            states, self.by_doc, self.failures = {}, {}, {}
        self.localizer = localizer
        """The translations of a localized export (``None``: the plain export). Its Scripts and
        Dialogues bypass the memos: their exported form depends on the Translation documents and
        the counts are taken on every run."""
        self.exporter = _Exporter(settings, render or render_script, states, localizer)
        self.exporter.warnings.extend(pre_warnings)
        if render is not None and render is not render_script:
            cache = None  # a custom renderer's results are not the memo's
        self.cache = cache
        self.context: tuple[str, str] | None = None
        if cache is not None:
            self.context = (
                fingerprint(
                    [settings.get(k) for k in ("exportMappings", "defaultEditorLanguage", "defaultScriptEditorMode")]
                ),
                fingerprint(states) if chosen_apps & {"Scenario", "Script"} else "",
            )
        self.attachment_docs = attachment_docs
        self._attachments_print: str | None = None
        self.tree = tree
        self.referenced: set[str] = set()

    @property
    def warnings(self) -> list[dict[str, Any]]:
        return self.exporter.warnings

    def export_document(self, doc: dict[str, Any], collection: str) -> bool:
        """Turn a freshly read document of a chosen ``collection`` (app name) into its exported
        form, in place; its warnings and referenced attachments are kept for ``_meta``. Returns
        whether the content it computed holds a float that orjson spells differently from the
        stdlib encoder (see :func:`storyloom.export.stream.encode_value`)."""
        return self.export_one(doc, collection)[0]

    def export_one(self, doc: dict[str, Any], collection: str, *, memo: bool = True) -> tuple[bool, set[str]]:
        """:meth:`export_document`, returning ``(unusual, the Attachment ids this document
        references)``. ``memo=False`` transforms the content without the per-revision memo of
        content (a caller that keeps the whole document's JSON per revision instead)."""
        exporter = self.exporter
        rev = doc.get("_rev")
        exporter.base(doc, collection, self.tree)
        unusual = False
        referenced: set[str] = set()
        if doc.get("type") == FOLDER_TYPE:
            pass
        elif collection == "Variable":
            exporter.variable(doc, self.by_doc.get(doc["_id"]), self.failures.get(doc["_id"]))
            unusual = has_unusual_float(doc.get("content"))
        elif collection in _TRANSFORMED:
            if memo and self.cache is not None and isinstance(rev, str) and not self.localized(collection):
                unusual = exporter.cached_transform(doc, collection, self.cache,
                                                    ("export", collection, doc["_id"], rev, self.context))
            else:
                exporter.transform(doc, collection)
                unusual = has_unusual_float(doc.get("content"))
            if collection == "Actor":
                referenced = link_expressions(doc, self.attachment_docs)
        elif collection == "Gdd":
            referenced = referenced_attachments(doc, collection, self.attachment_docs)
        elif collection == "Dialogue":
            _dialogue_line_ids(doc, self.localizer)
        if referenced:
            self.referenced |= referenced
        return unusual, referenced

    def localized(self, collection: str) -> bool:
        """Whether the documents of ``collection`` (app name) are localized in this export (and
        so never served from a memo)."""
        return self.localizer is not None and collection in LOCALIZED_COLLECTIONS

    def document_key(self, doc_id: str, rev: str, collection: str) -> tuple[Any, ...]:
        """A key naming everything the exported form of revision ``rev`` of ``doc_id`` (of the chosen
        ``collection``) depends on but its place in the tree (``children``, ``path``): for a memo
        of exported documents. Transformed content depends on the export context (mappings,
        default language and mode, the variables' states), a Variable on its fate among the
        other Variables, Actors and GDD pages on which Attachment documents exist."""
        deps: tuple[Any, ...] = ()
        if collection == "Variable":
            failure = self.failures.get(doc_id)
            if failure is not None:
                warning = _problem_warning(failure, "Variable", "content.variables")
                deps = ("failed", json.dumps(warning, sort_keys=True, ensure_ascii=False, default=str))
            else:
                deps = ("parsed" if doc_id in self.by_doc else "none",)
        elif collection in _TRANSFORMED:
            deps = (self.context or ("", ""),)
        if collection in REFERENCING_COLLECTIONS:
            if self._attachments_print is None:
                self._attachments_print = fingerprint(sorted(self.attachment_docs))
            deps = (*deps, self._attachments_print)
        return ("json", collection, doc_id, rev, deps)

    def finish(self) -> None:
        """The end of the run: the memo forgets what no recent export used."""
        if self.cache is not None:
            self.cache.trim()

    def meta(
        self,
        *,
        exported_by: str | None,
        project_id: str | None,
        project_name: str | None,
        now: _dt.datetime | None = None,
    ) -> dict[str, Any]:
        """``_meta`` of the export, once every chosen document went through :meth:`export_document`
        (with what the compatibility mode adds)."""
        moment = now or _dt.datetime.now(_dt.UTC)
        warnings = self.exporter.warnings
        meta: dict[str, Any] = {
            "exportedAt": moment.astimezone(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "exportedBy": exported_by,
            "appVersion": storyloom.__version__,
            "formatVersion": FORMAT_VERSION,
            "collections": self.selected,
            "projectId": project_id,
            "projectName": project_name,
            "warningCount": len(warnings),
            "warnings": heapq.nsmallest(META_WARNINGS_LIMIT, warnings, key=_warning_order),
            META_ATTACHMENTS_KEY: [
                attachment_entry(self.attachment_docs[doc_id]) for doc_id in sorted(self.referenced)
            ],
        }
        if self.localizer is not None:
            meta["localization"] = self.localizer.meta()
        holder = {"_meta": meta}
        apply_to_export(holder, self.mode)
        return holder["_meta"]


def export_from_docs(
    docs: Sequence[dict[str, Any]],
    settings: Mapping[str, Any],
    collections: str | Sequence[str] | None = None,
    *,
    exported_by: str | None = None,
    project_id: str | None = None,
    project_name: str | None = None,
    now: _dt.datetime | None = None,
    render: ScriptRenderer | None = None,
    cache: ContentCache | None = None,
    compat: str | None = None,
    locale: str | None = None,
) -> dict[str, Any]:
    """The game export of ``docs`` (freshly read document dicts; they are modified in place).

    ``render`` turns script text into lines (default: :func:`render_script`); ``now`` fixes
    ``_meta.exportedAt`` (tests); ``cache`` memoises per-revision results (documents without
    a ``_rev`` are never cached); ``compat`` is the requested compatibility mode
    (:mod:`storyloom.export.compat`; ``None``: the settings' ``exportCompat``); ``locale`` asks
    for the localized export (:mod:`storyloom.export.localized`).
    """
    apps = [collection_of(doc) for doc in docs]  # before the documents are changed
    plan = ExportPlan(
        settings,
        collections,
        variable_docs=[doc for doc, app in zip(docs, apps, strict=True) if app == "Variable"],
        attachment_docs={doc["_id"]: doc for doc in docs if is_attachment_document(doc)},
        tree=derive_tree(docs),
        render=render,
        cache=cache,
        compat=compat,
        locale=locale,
        translation_docs=translation_documents(docs, settings, locale),
    )
    buckets: dict[str, list[dict[str, Any]]] = {c.app_name: [] for c in plan.chosen}
    for doc, collection in zip(docs, apps, strict=True):
        if collection not in buckets:
            continue
        plan.export_document(doc, collection)
        buckets[collection].append(doc)
    plan.finish()

    export: dict[str, Any] = {}
    for c in plan.chosen:
        export[c.export_key] = sorted(buckets[c.app_name], key=lambda d: d["_id"])
    export["_meta"] = plan.meta(
        exported_by=exported_by, project_id=project_id, project_name=project_name, now=now
    )
    return export


def build_game_export(
    project: ProjectLike,
    collections: str | Sequence[str] | None = None,
    exported_by: str | None = None,
    *,
    docs: list[dict[str, Any]] | None = None,
    settings: Mapping[str, Any] | None = None,
    project_name: str | None = None,
    compat: str | None = None,
    locale: str | None = None,
) -> dict[str, Any]:
    """The game export of ``project`` for ``collections`` (export names; default: the
    project's export sections). ``exported_by`` is the name written in ``_meta.exportedBy`` (the
    caller knows the user). ``compat`` is a compatibility mode (``"drafft"``, or ``"none"`` for
    the plain export; ``None``: the project's ``exportCompat`` setting, off when unset); ``locale``
    a target locale for the localized export (:mod:`storyloom.export.localized`). Raises
    :class:`~storyloom.export.collections_filter.UnknownCollections` on a bad name and
    :class:`~storyloom.export.compat.UnknownCompat` on a bad mode.

    ``docs``, ``settings`` and ``project_name``, when given, are what was already read from
    the store (:func:`read_documents`, the settings document, the name): the export then reads
    nothing more, so an export and a schema built from the same reading agree
    (:func:`storyloom.export.schema_export.build_export_and_schema`). ``docs`` is consumed
    (modified in place)."""
    if settings is None:
        settings = project.settings() or {}
    if project_name is None:
        project_name = _project_attr(project, "name")
    with gc_paused():
        return export_from_docs(
            read_documents(project.db) if docs is None else docs,
            settings,
            collections,
            exported_by=exported_by,
            project_id=_project_attr(project, "id"),
            project_name=project_name,
            cache=cache_for(project.db),
            compat=compat,
            locale=locale,
        )


def translation_documents(docs: Iterable[Mapping[str, Any]], settings: Mapping[str, Any],
                          locale: str | None) -> list[Mapping[str, Any]]:
    """The Translation documents among ``docs`` that an export asked for ``locale`` reads (none
    for the plain export)."""
    tag = export_locale(settings, locale)
    return [] if tag is None else [doc for doc in docs if is_translation_of(doc, tag)]


def _project_attr(project: Any, name: str) -> str | None:
    value = getattr(project, name, None)
    return value if isinstance(value, str) else None


def dumps_export(export: Mapping[str, Any], indent: int | None = None) -> str:
    """Serialise an export (or a schema) deterministically (:func:`export_json_text`), with a
    final newline."""
    with gc_paused():
        return export_json_text(export, indent) + "\n"


def export_json_text(value: Any, indent: int | None = None) -> str:
    """The JSON of ``value`` as an export spells it: keys sorted, UTF-8 text kept as is (a lone
    surrogate as its ``\\u`` escape, which UTF-8 cannot hold otherwise), compact unless ``indent``
    is given. NaN and infinities are refused."""
    if indent is None:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    else:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent, allow_nan=False)
    return escape_surrogates(text)
