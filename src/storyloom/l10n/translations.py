"""Translations stored as documents (docs/localization.md, "Translations as documents").

One Translation document per (target locale, translated document): its id is derived from both
(:func:`translation_id`), so two translators who import the same locale on two machines write
the same document, and sync merges their entries field by field like any other document's.

.. code-block:: json

    {"_id": "l10n.fr.<document id>", "type": "Translation", "collection": "Translation",
     "name": "fr: Intro", "locale": "fr", "document": "<document id>",
     "content": {"entries": {"<line id>": {"text": "Bonjour.", "source": "Hello.",
                                            "review": false, "by": "ana", "at": "2026-..."}}}}

An entry keeps the source text the translation was made from: when the line's source changes
later, the translation is kept and reads as to be reviewed (:func:`needs_review`). Translations
are in no tree and no game export (their type is not a collection), pass the editor's gate like
every document and take locks like every document: a writer holding a Script's lock does not
stop its translators, a translator holding a Translation's lock stops the other translators of
that document and locale.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.project import TRANSLATION_TYPE

#: The prefix of a Translation document's id: ``l10n.<locale>.<document id>``.
ID_PREFIX = "l10n."


def translation_id(locale: str, document_id: str) -> str:
    """The id of the Translation document of ``document_id`` into ``locale`` (the tag as the
    project's settings spell it: ids compare exactly)."""
    return f"{ID_PREFIX}{locale}.{document_id}"


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One translated line as a Translation document holds it."""

    text: str
    #: The source text the translation was made from.
    source: str
    #: The translation was marked to be reviewed (a fuzzy PO entry, an XLIFF state).
    review: bool = False
    by: str | None = None
    at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "source": self.source, "review": self.review, "by": self.by, "at": self.at}


def entries_of(doc: Mapping[str, Any] | None) -> dict[str, StoredEntry]:
    """``{line id: entry}`` of a Translation document (well-formed entries only; none for None)."""
    content = doc.get("content") if doc else None
    entries = content.get("entries") if isinstance(content, Mapping) else None
    found: dict[str, StoredEntry] = {}
    for line_id, raw in (entries.items() if isinstance(entries, Mapping) else ()):
        if isinstance(raw, Mapping) and isinstance(raw.get("text"), str) and isinstance(raw.get("source"), str):
            by, at = raw.get("by"), raw.get("at")
            found[str(line_id)] = StoredEntry(raw["text"], raw["source"], raw.get("review") is True,
                                              by if isinstance(by, str) else None, at if isinstance(at, str) else None)
    return found


def needs_review(entry: StoredEntry, source: str) -> bool:
    """Whether a stored translation is to be reviewed against the line's current ``source``:
    it was made from another source text, or it was marked so."""
    return entry.review or not same_source(entry.source, source)


def same_source(one: str, other: str) -> bool:
    """Whether two source texts are the same line (surrounding whitespace aside: a file format
    may trim or keep it)."""
    return one.strip() == other.strip()


def new_translation(locale: str, document_id: str, document_name: str) -> dict[str, Any]:
    """A Translation document without entries (``_id`` derived, no ``_rev``)."""
    return {
        "_id": translation_id(locale, document_id),
        "type": TRANSLATION_TYPE,
        "collection": TRANSLATION_TYPE,
        "name": f"{locale}: {document_name}",
        "locale": locale,
        "document": document_id,
        "content": {"entries": {}},
    }


def translation_docs(db: Any, locale: str, document_ids: list[str], chunk: int = 500
                     ) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """``(document id, its Translation document or None)`` for each of ``document_ids``, read
    ``chunk`` at a time."""
    for start in range(0, len(document_ids), chunk):
        part = document_ids[start:start + chunk]
        keys = [translation_id(locale, doc_id) for doc_id in part]
        rows = db.all_docs(keys=keys, include_docs=True, skip_damaged=True)["rows"]
        by_id = {row.get("id"): row.get("doc") for row in rows if isinstance(row.get("doc"), dict)}
        for doc_id, key in zip(part, keys, strict=True):
            doc = by_id.get(key)
            yield doc_id, doc if doc is not None and not doc.get("_deleted") else None


def write_entry(editor: Any, locale: str, document_id: str, document_name: str, line_id: str, text: str,
                source: str, *, review: bool = False) -> dict[str, Any]:
    """Set the translation of one line (the app's Localization view, edited in place): the
    Translation document of ``document_id`` into ``locale`` gets ``line_id``'s entry (made from
    ``source``, by the editor's user, now), created when there is none yet. Written through the
    editor's gate with the intent ``translate``: validation applies, another user's lock refuses
    it (:class:`~storyloom.project.LockRefused`, with the holder) and no lock is taken. Retried
    once when another writer wrote the document between the read and the write. Returns the
    document written."""
    from storyloom.project import WriteIntent, now_iso
    from storyloom.store import Conflict, NotFound

    for attempt in (1, 2):
        try:
            current: dict[str, Any] | None = editor.get(translation_id(locale, document_id))
        except NotFound:
            current = None
        if current is not None and current.get("_deleted"):
            current = None
        doc = dict(current) if current is not None else new_translation(locale, document_id, document_name)
        content = doc.get("content")
        held = content.get("entries") if isinstance(content, dict) else None
        entries = dict(held) if isinstance(held, dict) else {}
        entries[line_id] = StoredEntry(text, source, review, editor.username, now_iso()).to_json()
        doc["content"] = {**(content if isinstance(content, dict) else {}), "entries": entries}
        try:
            if current is None:
                return dict(editor.create_document(doc).doc)
            return dict(editor.update(doc, intent=WriteIntent.TRANSLATE).doc)
        except Conflict:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")
