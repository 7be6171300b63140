"""A project's translatable lines for one target locale: :func:`catalog`.

What is gathered (docs/localization.md, "What a catalog holds"):

- every **speech line** of every Script: the text after ``::Actor::`` (without the line's
  ``[expression]`` and ``{json}``, which are not read by a player), the speaker (the Actor
  document's name when the name written resolves to one, by name or alias, else the name as
  written), the 1-based line number, and as notes the writer's ``//`` comment lines directly
  above the line and the Script's own comments;
- every **choice option** of every Dialogue: its label, at ``"<node id>/<handle id>"``.

Documents come in the project's tree order (Scripts, then Dialogues; each tree depth first, in
the explorer's order: folders first, then documents, each by sort key), each named by its path
in the tree (``"Act 1/Intro"``), with the translation held for the locale and whether it is to
be reviewed (its source changed since, or it was marked so). The documents are read a chunk at
a time: a project of 100,000 documents is never held in memory, only its lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.l10n.catalog import Catalog, CatalogEntry
from storyloom.l10n.translations import StoredEntry, entries_of, needs_review, same_source, translation_docs
from storyloom.project import (
    FOLDER_TYPE,
    actor_keys,
    choice_options,
    dialogue_option_ids,
    script_line_ids,
    source_locale,
    speaker_key,
)

SCRIPT = "Script"
DIALOGUE = "Dialogue"
ACTOR = "Actor"
#: The collections whose lines are translated, in the order a catalog lists them.
TRANSLATED = (SCRIPT, DIALOGUE)
#: Documents read from the store at a time.
CHUNK = 200


@dataclass(frozen=True, slots=True)
class Place:
    """A translated document in the tree: its id, type, name and path ("Act 1/Intro")."""

    id: str
    type: str
    name: str
    path: str


def places(index: Any) -> list[Place]:
    """Every Script and Dialogue of the project, in tree order, from the project index (no
    document is read). A document under a missing parent is at the top level; a parent cycle
    (concurrent moves replicated) is cut where it closes."""
    summaries = [s for s in index.summaries() if s.is_tree]
    ids = {s.id for s in summaries}
    children: dict[str | None, list[Any]] = {}
    for summary in summaries:
        parent = summary.parent if summary.parent in ids and summary.parent != summary.id else None
        children.setdefault(parent, []).append(summary)
    for group in children.values():
        group.sort(key=lambda s: (s.type != FOLDER_TYPE, s.order))  # the explorer's: folders first
    found: list[Place] = []
    seen: set[str] = set()
    for collection in TRANSLATED:
        roots = [s for s in children.get(None, ()) if s.collection == collection or s.type == collection]
        stack: list[tuple[Any, tuple[str, ...]]] = [(s, ()) for s in reversed(roots)]
        while stack:
            summary, above = stack.pop()
            if summary.id in seen:
                continue
            seen.add(summary.id)
            name = summary.name if isinstance(summary.name, str) and summary.name.strip() else summary.id
            if summary.type == FOLDER_TYPE:
                stack.extend((child, (*above, name)) for child in reversed(children.get(summary.id, ())))
            elif summary.type in TRANSLATED:
                found.append(Place(summary.id, summary.type, name, "/".join((*above, name))))
    return found


def catalog(project: Any, target_locale: str) -> Catalog:
    """The catalog of ``project`` (a :class:`~storyloom.project.Project`) for ``target_locale``:
    every translatable line, with the translation held for that locale."""
    settings = project.editor.settings()
    return Catalog(
        project=str(settings.get("projectName") or project.name),
        source_locale=source_locale(settings),
        target_locale=target_locale,
        entries=tuple(entries(project, target_locale)),
    )


def entries(project: Any, target_locale: str) -> Iterator[CatalogEntry]:
    """The catalog's entries, one document at a time (see :func:`catalog`)."""
    db = project.db
    index = project.editor.index
    speakers = actor_names(db, index.ids_of_type(ACTOR))
    for place, doc, held in placed_documents(db, places(index), (target_locale,)):
        stored = held[target_locale]
        lines = script_lines(doc, speakers) if place.type == SCRIPT else option_lines(doc)
        for line in lines:
            yield _entry(line, place, stored.get(line.line_id))


def placed_documents(db: Any, found: list[Place], locales: Iterable[str] = ()
                     ) -> Iterator[tuple[Place, dict[str, Any], dict[str, dict[str, StoredEntry]]]]:
    """``(place, its document, {locale: its stored translations})`` for each of ``found`` that
    still exists, reading :data:`CHUNK` documents (and their Translation documents of each of
    ``locales``) at a time: the walk the catalog, the voice-over script and the Localization view
    share."""
    locales = tuple(locales)
    for start in range(0, len(found), CHUNK):
        part = found[start:start + CHUNK]
        ids = [p.id for p in part]
        docs = read_documents(db, ids)
        held = {locale: dict(translation_docs(db, locale, ids)) for locale in locales}
        for place in part:
            doc = docs.get(place.id)
            if doc is None:
                continue  # deleted since the index was read
            yield place, doc, {locale: entries_of(held[locale].get(place.id)) for locale in locales}


@dataclass(frozen=True, slots=True)
class Line:
    """A translatable line of a document, before the translation is looked up."""

    line_id: str
    source: str
    location: str
    kind: str
    speaker: str | None = None
    notes: tuple[str, ...] = ()
    #: A speech line's actor expression (``[happy]``), for a voice actor; not translated.
    expression: str | None = None


def _entry(line: Line, place: Place, stored: StoredEntry | None) -> CatalogEntry:
    review = stored is not None and needs_review(stored, line.source)
    previous = stored.source if stored is not None and not same_source(stored.source, line.source) else None
    return CatalogEntry(
        line_id=line.line_id, source=line.source, target=stored.text if stored is not None else None,
        needs_review=review, previous_source=previous, speaker=line.speaker, document_id=place.id,
        document=place.path, location=line.location, kind="speech" if line.kind == "speech" else "option",
        notes=line.notes,
    )


def script_lines(doc: Mapping[str, Any], speakers: Mapping[str, str] | None = None) -> list[Line]:
    """The speech lines of a Script document with their ids, speakers and notes (lines without
    text have nothing to translate and are left out)."""
    from storyloom.script import SpeechLine, parse_script

    content = doc.get("content")
    text = content.get("script") if isinstance(content, Mapping) else None
    if not isinstance(text, str):
        return []
    ids = script_line_ids(doc)
    raw = text.splitlines()
    # The parser reads each line by itself: only the speech lines are given to it (the others
    # blank, so the numbers stay), as the actors' index does.
    speech_only = "\n".join(line if "::" in line else "" for line in raw)
    spoken = [line for line in parse_script(speech_only).lines if isinstance(line, SpeechLine)]
    own = doc.get("comments")
    doc_notes = (own.strip(),) if isinstance(own, str) and own.strip() else ()
    found: list[Line] = []
    for line_id, line in zip(ids, spoken, strict=False):
        if not line.text.strip():
            continue
        speaker = (speakers or {}).get(speaker_key(line.actor), line.actor.strip())
        found.append(Line(line_id, line.text, str(line.line), "speech", speaker,
                          (*comments_above(raw, line.line), *doc_notes), line.expression))
    return found


def comments_above(raw: list[str], number: int) -> tuple[str, ...]:
    """The ``//`` comment lines directly above line ``number`` (1-based), top first, their text
    after ``//``."""
    notes: list[str] = []
    at = number - 2
    while at >= 0:
        stripped = raw[at].strip()
        if not stripped.startswith("//"):
            break
        notes.append(stripped[2:].strip())
        at -= 1
    return tuple(reversed([note for note in notes if note]))


def option_lines(doc: Mapping[str, Any]) -> list[Line]:
    """The choice options of a Dialogue document with their ids (options without a label are
    left out)."""
    content = doc.get("content")
    tree = content.get("tree") if isinstance(content, Mapping) else None
    ids = dialogue_option_ids(doc)
    found: list[Line] = []
    for place, handle in choice_options(tree):
        label = handle.get("label")
        if isinstance(label, str) and label.strip() and place in ids:
            found.append(Line(ids[place], label, place, "option"))
    return found


def actor_names(db: Any, actor_ids: Iterable[str]) -> dict[str, str]:
    """``{speaker key: actor name}`` of the Actor documents (by name and by alias)."""
    names: dict[str, str] = {}
    ids = list(actor_ids)
    for start in range(0, len(ids), 500):
        for doc in read_documents(db, ids[start:start + 500]).values():
            name = doc.get("name")
            if doc.get("type") != ACTOR or not isinstance(name, str) or not name.strip():
                continue
            for key in actor_keys(doc):
                names.setdefault(key, name.strip())
    return names


def read_documents(db: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The live documents of ``ids`` (one read; a deleted, missing or damaged one is left out)."""
    if not ids:
        return {}
    rows = db.all_docs(keys=ids, include_docs=True, skip_damaged=True)["rows"]
    return {row["id"]: row["doc"] for row in rows
            if isinstance(row.get("doc"), dict) and not row["doc"].get("_deleted")}
