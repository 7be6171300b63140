"""Search across the project's names and content (Ctrl+Shift+F): Qt-free rules.

:class:`ProjectSearch` keeps the searchable text of every document of a session in memory
(built once by :meth:`~ProjectSearch.rebuild`, then kept current from the session's
:class:`~storyloom.app.events.DocumentChanged` events by re-reading only the changed documents)
and answers :meth:`~ProjectSearch.search` from it, without reading the store.

What is searched (:func:`searchable_fields`): the document's name, its ``comments``, every text
field directly under ``content`` (a Script's script, a GDD's markdown, property text, bios,
conditions, notes, variables and scenario source; not the ``json`` cache), the text of a
Dialogue's nodes (label, notes, text, choice labels and port scripts) and the text-like fields
(``text``, ``label``, ``title``, ``notes``...) anywhere in the content of the other visual
collections (Canvas notes, Kanban cards, Grid cells, Map markers). Folders are not searched (the
tree shows them), nor ``_local`` and design documents.

A query is plain text matched case-insensitively unless asked otherwise
(:class:`SearchOptions`: ``case_sensitive``, ``whole_word``, ``regex``). Each match is a
:class:`SearchHit`: field, 1-based line and column, length and the line's text (cut around the
match when long). Results are grouped by document (:class:`DocumentHits`) and bounded: at most
``per_document`` hits are kept per document (the others are counted) and the search stops after
``limit`` hits (``truncated``).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.app.events import DocumentChanged
from storyloom.app.views.outline import display_name
from storyloom.errors import StoryloomError
from storyloom.project import COLLECTIONS, FOLDER_TYPE, TRANSLATION_TYPE
from storyloom.words import counted

LIMIT = 2000
PER_DOCUMENT = 100
PREVIEW_CHARS = 160  # the longest line text a hit keeps
_CONTEXT_BEFORE = 40  # characters kept before the match when a long line is cut
_FETCH_CHUNK = 500
_SKIPPED_CONTENT = frozenset({"json"})  # caches of parsed text: never what a writer typed
# Keys whose string values are prose in the visual collections' content.
_TEXT_KEYS = frozenset({"text", "label", "title", "notes", "description", "name", "content", "body",
                        "portScript", "caption", "value"})
_MAX_DEPTH = 12
_ORDER = {c.app_name: i for i, c in enumerate(COLLECTIONS)}
_FIELD_LABELS = {"name": "Name", "comments": "Comments", "content.script": "Script", "content.gdd": "Markdown",
                 "content.properties": "Properties", "content.item": "Properties", "content.bio": "Biography",
                 "content.conditions": "Conditions", "content.notes": "Notes", "content.variables": "Variables",
                 "content.scenario": "Scenario"}


class SearchError(StoryloomError):
    """The query cannot be searched for (a regular expression that does not compile)."""

    code = "bad_search"


@dataclass(frozen=True)
class SearchOptions:
    query: str
    case_sensitive: bool = False
    whole_word: bool = False
    regex: bool = False


@dataclass(frozen=True, slots=True)
class SearchField:
    """One searchable text of a document: ``path`` names it (``content.script``,
    ``content.tree.nodes.3.data.label``), ``label`` says it in words."""

    path: str
    label: str
    text: str


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One match. ``line`` and ``column`` are 1-based in the field's text; ``preview`` is the
    line (cut around the match when long), the match at ``preview[start:start + length]``."""

    doc_id: str
    field: str
    field_label: str
    line: int
    column: int
    length: int  # in the field's text (what to select)
    preview: str
    start: int
    shown: int  # the match's length within ``preview``

    @property
    def matched(self) -> str:
        return self.preview[self.start:self.start + self.shown]


@dataclass
class DocumentHits:
    """The hits of one document, in field then position order; ``more`` hits were not kept."""

    doc_id: str
    name: str
    doc_type: str
    collection: str
    hits: list[SearchHit] = field(default_factory=list)
    more: int = 0

    @property
    def count(self) -> int:
        return len(self.hits) + self.more


@dataclass
class SearchResults:
    options: SearchOptions
    groups: list[DocumentHits]
    total: int  # hits found (kept or counted)
    truncated: bool  # the search stopped at its limit: more documents may match
    documents: int  # documents searched
    seconds: float

    @property
    def kept(self) -> int:
        return sum(len(g.hits) for g in self.groups)

    def summary(self) -> str:
        """One line for the panel: "42 results in 7 documents" (and what was left out)."""
        if not self.options.query:
            return ""
        if not self.groups:
            return "No results"
        text = f"{counted(self.total, 'result')} in {counted(len(self.groups), 'document')}"
        if self.truncated:
            text += f" (stopped at {self.total}: refine the search to see every match)"
        return text


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    doc_type: str
    collection: str
    fields: tuple[SearchField, ...]


# ---------------------------------------------------------------------------------- fields
def searchable_fields(doc: Mapping[str, Any]) -> list[SearchField]:
    """The texts of ``doc`` a search looks at, in the order results list them."""
    fields: list[SearchField] = []
    name = doc.get("projectName") if doc.get("_id") == "ProjectSettings" else doc.get("name")
    if isinstance(name, str) and name:
        fields.append(SearchField("name", "Name", name))
    content = doc.get("content")
    if isinstance(content, Mapping):
        doc_type = doc.get("type")
        for key, value in content.items():
            if isinstance(value, str) and value and key not in _SKIPPED_CONTENT:
                path = f"content.{key}"
                fields.append(SearchField(path, _FIELD_LABELS.get(path, str(key).title()), value))
        if doc_type == "Dialogue":
            fields.extend(_dialogue_fields(content))
        elif doc_type not in ("Script", "Gdd", "Actor", "Item", "Quest", "Misc", "Variable", "Scenario"):
            for key, value in content.items():
                if not isinstance(value, str):
                    fields.extend(_walk(value, f"content.{key}", 1))
    comments = doc.get("comments")
    if isinstance(comments, str) and comments:
        fields.append(SearchField("comments", "Comments", comments))
    return fields


def _dialogue_fields(content: Mapping[str, Any]) -> Iterator[SearchField]:
    tree = content.get("tree")
    nodes = tree.get("nodes") if isinstance(tree, Mapping) else None
    if not isinstance(nodes, list):
        return
    for index, node in enumerate(nodes):
        data = node.get("data") if isinstance(node, Mapping) else None
        if not isinstance(data, Mapping):
            continue
        label = data.get("label")
        title = f"Node “{label}”" if isinstance(label, str) and label.strip() else f"Node {index + 1}"
        base = f"content.tree.nodes.{index}.data"
        for key in ("label", "text", "notes"):
            value = data.get(key)
            if isinstance(value, str) and value:
                yield SearchField(f"{base}.{key}", f"{title} · {key}", value)
        handles = data.get("handles")
        for number, handle in enumerate(handles if isinstance(handles, list) else ()):
            if not isinstance(handle, Mapping) or handle.get("type") != "source":
                continue
            for key, what in (("label", "choice"), ("portScript", "port script")):
                value = handle.get(key)
                if isinstance(value, str) and value and not (key == "label" and value == "Out"):
                    yield SearchField(f"{base}.handles.{number}.{key}", f"{title} · {what}", value)


def _walk(value: Any, path: str, depth: int) -> Iterator[SearchField]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            here = f"{path}.{key}"
            if isinstance(item, str):
                if item and key in _TEXT_KEYS:
                    yield SearchField(here, str(key).title(), item)
            else:
                yield from _walk(item, here, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                yield from _walk(item, f"{path}.{index}", depth + 1)


def _entry(doc: Mapping[str, Any]) -> _Entry:
    doc_type = doc.get("type")
    collection = doc.get("collection")
    name = doc.get("projectName") if doc.get("_id") == "ProjectSettings" else doc.get("name")
    return _Entry(display_name(name), doc_type if isinstance(doc_type, str) else "",
                  collection if isinstance(collection, str) else "", tuple(searchable_fields(doc)))


def _searched(doc: Mapping[str, Any]) -> bool:
    """Folders are found in the tree, not opened from a search; translations are not documents a
    writer opens (their lines are found through the translated document)."""
    return not doc.get("_deleted") and doc.get("type") not in (FOLDER_TYPE, TRANSLATION_TYPE)


def _searched_id(doc_id: str) -> bool:
    return bool(doc_id) and not doc_id.startswith("_")  # not design or local documents


# ---------------------------------------------------------------------------------- matching
def compile_query(options: SearchOptions) -> re.Pattern[str] | None:
    """The pattern of ``options`` (``None`` for an empty query). Raises :class:`SearchError` for
    a regular expression that does not compile, with where and why."""
    if not options.query:
        return None
    source = options.query if options.regex else re.escape(options.query)
    if options.whole_word:
        query = options.query
        if not options.regex and (query[0].isalnum() or query[0] == "_") and (query[-1].isalnum() or query[-1] == "_"):
            source = rf"\b{source}\b"  # the same as the lookarounds here, and 3x faster
        else:
            source = rf"(?<!\w)(?:{source})(?!\w)"
    flags = re.MULTILINE | (0 if options.case_sensitive else re.IGNORECASE)
    try:
        return re.compile(source, flags)
    except re.error as exc:
        where = f" at position {exc.pos + 1}" if exc.pos is not None and options.regex else ""
        raise SearchError(f"not a valid regular expression{where}: {exc.msg}") from None


def _preview(text: str, line_start: int, start: int, end: int) -> tuple[str, int, int]:
    """The line holding ``start`` (cut around the match when long), and the match within it."""
    line_end = text.find("\n", start)
    if line_end == -1:
        line_end = len(text)
    end = min(end, line_end)  # a multi-line match is shown on its first line
    lead = start - line_start
    line = text[line_start:line_end].rstrip("\r")
    stripped = len(line) - len(line.lstrip())
    if stripped <= lead:
        line, lead = line[stripped:], lead - stripped
    if len(line) <= PREVIEW_CHARS:
        return line, lead, end - start
    cut = max(0, lead - _CONTEXT_BEFORE)
    shown = line[cut:cut + PREVIEW_CHARS]
    prefix = "…" if cut else ""
    suffix = "…" if cut + PREVIEW_CHARS < len(line) else ""
    return prefix + shown + suffix, lead - cut + len(prefix), min(end - start, len(shown) - (lead - cut))


def find_in_text(pattern: re.Pattern[str], doc_id: str, search_field: SearchField,
                 room: int) -> tuple[list[SearchHit], int]:
    """The hits of ``pattern`` in one field, at most ``room`` kept; ``(hits, hits not kept)``."""
    text = search_field.text
    hits: list[SearchHit] = []
    extra = 0
    line = 1
    counted_to = 0
    line_start = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        if start == end:  # an empty match (``a*``) finds nothing to show
            continue
        if len(hits) >= room:
            extra += 1
            continue
        line += text.count("\n", counted_to, start)
        counted_to = start
        line_start = text.rfind("\n", 0, start) + 1
        preview, lead, length = _preview(text, line_start, start, end)
        hits.append(SearchHit(doc_id, search_field.path, search_field.label, line, start - line_start + 1,
                              end - start, preview, lead, length))
    return hits, extra


# ---------------------------------------------------------------------------------- the index
class ProjectSearch:
    """The searchable text of one project, kept in memory.

    ``db`` is the project's store (a session's ``db``). :meth:`rebuild` may run on a worker
    thread; :meth:`apply` and :meth:`search` are safe from any thread (one lock guards the
    table, and a search works on a snapshot of it)."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._built = False
        self._pending: set[str] = set()  # changed before the first build finished

    @property
    def built(self) -> bool:
        return self._built

    def __len__(self) -> int:
        return len(self._entries)

    def rebuild(self) -> int:
        """Read every document once; returns how many are searchable."""
        entries: dict[str, _Entry] = {}
        rows = self.db.all_docs(include_docs=True, skip_damaged=True)["rows"]
        for row in rows:
            doc = row.get("doc")
            if doc and _searched_id(row["id"]) and _searched(doc):
                entries[row["id"]] = _entry(doc)
        with self._lock:
            self._entries = entries
            pending, self._pending = self._pending, set()
            self._built = True
        if pending:
            self._refresh(pending)
        return len(entries)

    def apply(self, changes: Iterable[DocumentChanged]) -> set[str]:
        """Re-read the documents ``changes`` name (before the first build, only note them)."""
        ids = {c.id for c in changes if _searched_id(c.id)}
        if not ids:
            return set()
        with self._lock:
            if not self._built:
                self._pending |= ids
                return set()
        self._refresh(ids)
        return ids

    def _refresh(self, ids: set[str]) -> None:
        found: dict[str, _Entry] = {}
        listed = sorted(ids)
        for start in range(0, len(listed), _FETCH_CHUNK):
            rows = self.db.all_docs(keys=listed[start:start + _FETCH_CHUNK], include_docs=True,
                                    skip_damaged=True)["rows"]
            for row in rows:
                doc = row.get("doc")
                if doc and _searched(doc):
                    found[row["id"]] = _entry(doc)
        with self._lock:
            for doc_id in ids:
                if doc_id in found:
                    self._entries[doc_id] = found[doc_id]
                else:
                    self._entries.pop(doc_id, None)

    def search(self, options: SearchOptions, *, limit: int = LIMIT, per_document: int = PER_DOCUMENT,
               collections: Iterable[str] | None = None) -> SearchResults:
        """The documents matching ``options``, each with its hits; ``collections`` (app names)
        narrows the search. Raises :class:`SearchError` for a bad regular expression."""
        started = time.perf_counter()
        pattern = compile_query(options)
        # A whole-word search first looks for the plain text, which is several times faster.
        quick = compile_query(SearchOptions(options.query, options.case_sensitive)) \
            if options.whole_word and not options.regex else pattern
        with self._lock:
            entries = list(self._entries.items())
        wanted = set(collections) if collections is not None else None
        groups: list[DocumentHits] = []
        total = 0
        kept = 0
        truncated = False
        searched = 0
        if pattern is not None and quick is not None:
            for doc_id, entry in entries:
                if wanted is not None and entry.collection not in wanted and entry.doc_type not in wanted:
                    continue
                if kept >= limit:
                    truncated = True
                    break
                searched += 1
                group: DocumentHits | None = None
                for search_field in entry.fields:
                    if quick.search(search_field.text) is None or (
                            quick is not pattern and pattern.search(search_field.text) is None):
                        continue
                    if group is None:
                        group = DocumentHits(doc_id, entry.name, entry.doc_type, entry.collection)
                    room = max(0, min(per_document - len(group.hits), limit - kept))
                    hits, extra = find_in_text(pattern, doc_id, search_field, room)
                    group.hits.extend(hits)
                    group.more += extra
                    kept += len(hits)
                    total += len(hits) + extra
                if group is not None:
                    groups.append(group)
            groups.sort(key=lambda g: (_ORDER.get(g.collection, len(_ORDER)), g.name.casefold(), g.doc_id))
        return SearchResults(options, groups, total, truncated, searched, time.perf_counter() - started)
