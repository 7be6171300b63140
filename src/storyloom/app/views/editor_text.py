"""Qt-free rules of the text editors: where a link in a document leads, whether property text
parses (the status line under the properties), which text fields each collection edits, and how
the problems shown per line follow an edit until the next parse."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from storyloom.diagnostics import Diagnostic
from storyloom.project import permalink, permalink_target
from storyloom.project.content import LANGUAGES, ContentError, parse_text

EXTERNAL_SCHEMES = ("http", "https", "mailto")
T = TypeVar("T")


@dataclass(frozen=True)
class LinkTarget:
    """``kind`` is ``document`` (``target`` is its id), ``missing`` (a document link whose
    document is gone), ``external`` (a web or mail address, ``target`` the address) or ``none``."""

    kind: str
    target: str = ""


def resolve_link(href: str, exists: Callable[[str], bool]) -> LinkTarget:
    """Where clicking ``href`` leads. Document links are permalinks (``storyloom://document/<id>``,
    any scheme and kind, as :func:`storyloom.project.documents.permalink_target` reads them)."""
    href = (href or "").strip()
    if not href:
        return LinkTarget("none")
    scheme = urlsplit(href).scheme.lower()
    if scheme in EXTERNAL_SCHEMES:
        return LinkTarget("external", href)
    doc_id = permalink_target(href)
    if doc_id is None:
        return LinkTarget("none")
    return LinkTarget("document", doc_id) if exists(doc_id) else LinkTarget("missing", doc_id)


_DOC_REF = re.compile(r":doc\{#([^}\s]+)\}")


def link_document_refs(markdown: str, name_of: Callable[[str], str | None]) -> str:
    """Drafft's document references (``:doc{#<id>}``) as markdown links to the document, named
    by ``name_of(id)`` (the id itself when unknown), for the preview; the source is unchanged."""

    def link(match: re.Match[str]) -> str:
        doc_id = match[1]
        name = (name_of(doc_id) or doc_id).replace("[", "(").replace("]", ")")
        return f"[{name}]({permalink(doc_id, 'document')})"

    return _DOC_REF.sub(link, markdown)


@dataclass(frozen=True)
class ParseStatus:
    ok: bool
    message: str
    line: int | None = None
    column: int | None = None


def parse_status(text: str, language: str) -> ParseStatus:
    """``Parses``, or ``Line N, column M: <message>`` for text that does not parse in ``language``."""
    language = normal_language(language)
    try:
        parse_text(text, language)
    except ContentError as exc:
        if exc.line is not None:
            where = f"Line {exc.line}, column {exc.column}: " if exc.column is not None else f"Line {exc.line}: "
        else:
            where = ""
        return ParseStatus(False, f"{where}{exc.message}", exc.line, exc.column)
    except Exception as exc:  # noqa: BLE001 - a parser's own failure is still only a status, never a traceback
        return ParseStatus(False, str(exc) or type(exc).__name__)
    return ParseStatus(True, "Parses")


def normal_language(language: Any, default: str = "hjson") -> str:
    value = str(language or "").strip().lower()
    return value if value in LANGUAGES else default


# The content text fields a property pane edits, per collection: the properties text (parsed in
# the document's editorLanguage) first, then other source text, then prose (markdown or notes).
PROPERTY_FIELDS: dict[str, str] = {"Actor": "properties", "Item": "item", "Quest": "properties", "Misc": "properties"}
SOURCE_FIELDS: dict[str, tuple[str, ...]] = {"Quest": ("conditions",)}
PROSE_FIELDS: dict[str, tuple[str, ...]] = {"Actor": ("bio",)}
OPTIONAL_PROSE = ("notes",)


def property_layout(doc: dict[str, Any]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``(properties field, other source fields, prose fields)`` of ``doc``; optional notes are
    included when the document has them."""
    kind = str(doc.get("collection") or doc.get("type") or "")
    found = doc.get("content")
    content: dict[str, Any] = found if isinstance(found, dict) else {}
    prose = PROSE_FIELDS.get(kind, ()) + tuple(k for k in OPTIONAL_PROSE if isinstance(content.get(k), str))
    return PROPERTY_FIELDS.get(kind, "properties"), SOURCE_FIELDS.get(kind, ()), prose


def shift_lines(by_line: Mapping[int, T], at: int, delta: int) -> dict[int, T]:
    """``by_line`` (keyed by 1-based line numbers) after an edit that left lines 1 to ``at`` in
    place and added ``delta`` lines after them (removed when negative): the lines after ``at``
    move by ``delta``; the lines an edit removed lose their entries. A text editor keeps what it
    shows per line (a problem's underline, its gutter mark) on the line it belongs to this way
    until the next parse replaces it."""
    if not delta:
        return dict(by_line)
    moved: dict[int, T] = {}
    for line, value in by_line.items():
        if line <= at:
            moved[line] = value
        elif delta > 0 or line > at - delta:
            moved[line + delta] = value
    return moved


def shown_problems_changed(old: Mapping[int, Sequence[Diagnostic]],
                           new: Mapping[int, Sequence[Diagnostic]]) -> set[int]:
    """The lines whose problems show differently in ``new`` than in ``old`` (message, severity,
    column: what the underline and its tooltip are made of). A problem that only moved with its
    line (its ``line`` field is another) shows the same."""
    def shown(problems: Sequence[Diagnostic] | None) -> list[tuple[str, str, int | None]]:
        return [(p.message, p.severity, p.column) for p in problems or ()]

    return {line for line in old.keys() | new.keys() if shown(old.get(line)) != shown(new.get(line))}


# What a rename writes besides the name (storyloom.project.editor: every write stamps these).
_RENAME_STAMPS = frozenset({"_rev", "_revisions", "modified", "modifiedBy"})


def rename_only_change(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, name_field: str = "name") -> bool:
    """Whether ``new`` differs from ``old`` only in its ``name_field`` (a rename from the tree,
    another window or the API: an editor with unsaved text takes the new name and saves its text
    on the new revision, instead of calling it a change made elsewhere)."""
    if not old or not new or old.get("_deleted") or new.get("_deleted"):
        return False
    if old.get(name_field) == new.get(name_field):
        return False
    ignored = _RENAME_STAMPS | {name_field}
    keys = (old.keys() | new.keys()) - ignored
    return all(old.get(key, _ABSENT) == new.get(key, _ABSENT) for key in keys)


_ABSENT = object()
