"""Favourites: the documents a writer starred, per project and per machine (Qt-free).

Favourites are a person's preference, not the team's content: they are kept in a ``_local``
document of the project (``_local/storyloom-favourites``), which is never replicated, so a
teammate's sidebar never changes when you star a document, and a second machine of yours has
its own. The record holds document ids in the order they were starred: a renamed document stays
a favourite under its new name, and a deleted one drops out of the list shown
(:func:`favourite_rows`) and out of the record the next time it is written."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from storyloom.app.views.outline import display_name
from storyloom.project import FOLDER_TYPE, DocSummary, Editor, WriteIntent
from storyloom.store import NotFound

FAVOURITES_ID = "_local/storyloom-favourites"
# A sidebar section, not an index: more than this is no longer a short list of favourites.
MAX_FAVOURITES = 200


@dataclass(frozen=True)
class FavouriteRow:
    id: str
    name: str
    collection: str


def load_favourites(db: Any) -> list[str]:
    """The starred ids of this project, in starring order; none when nothing was saved or the
    record is unreadable (losing favourites must never stop a project from opening)."""
    try:
        doc = db.get_local(FAVOURITES_ID)
    except NotFound:
        return []
    ids = doc.get("ids")
    if not isinstance(ids, list):
        return []
    return list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))[:MAX_FAVOURITES]


def save_favourites(editor: Editor, ids: Iterable[str]) -> list[str]:
    """Write ``ids`` as this project's favourites on this machine; returns the list written."""
    try:
        rev = editor.db.get_local(FAVOURITES_ID).get("_rev")
    except NotFound:
        rev = None
    kept = list(dict.fromkeys(ids))[:MAX_FAVOURITES]
    doc: dict[str, Any] = {"_id": FAVOURITES_ID, "ids": kept}
    if rev:
        doc["_rev"] = rev
    editor.write_local(doc, WriteIntent.UPDATE)
    return kept


def toggled(ids: list[str], doc_ids: Iterable[str]) -> list[str]:
    """``ids`` with ``doc_ids`` starred, or unstarred when every one of them already is (as a
    star button does for a selection)."""
    wanted = list(dict.fromkeys(doc_ids))
    if wanted and all(doc_id in ids for doc_id in wanted):
        return [doc_id for doc_id in ids if doc_id not in wanted]
    return ids + [doc_id for doc_id in wanted if doc_id not in ids]


def can_star(summary: DocSummary | None) -> bool:
    """A document (not a folder, not the settings) that exists can be starred."""
    return summary is not None and summary.type != FOLDER_TYPE and bool(summary.collection) \
        and summary.type != "ProjectSettings"


def favourite_rows(ids: Iterable[str], lookup: Callable[[str], DocSummary | None]) -> list[FavouriteRow]:
    """What the sidebar shows: each starred document that still exists, by its current name."""
    rows: list[FavouriteRow] = []
    for doc_id in ids:
        summary = lookup(doc_id)
        if summary is not None and can_star(summary):
            rows.append(FavouriteRow(doc_id, display_name(summary.name), str(summary.collection)))
    return rows
