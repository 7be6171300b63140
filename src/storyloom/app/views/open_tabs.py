"""Which documents a user has open in tabs, per project and per machine (Qt-free).

The list is a ``_local`` document of the project (never replicated: another team member's
tabs are theirs), written through the editor's gate like every other write, so the app
restores the tabs of the last visit when the project opens again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from storyloom.project import Editor, WriteIntent
from storyloom.store import NotFound

OPEN_TABS_ID = "_local/storyloom-open-tabs"
MAX_TABS = 50


@dataclass
class OpenTabs:
    """The open documents in tab order and the one in front (``None``: no tab)."""

    ids: list[str] = field(default_factory=list)
    active: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "active": self.active}


def load_open_tabs(db: Any) -> OpenTabs:
    """The tabs saved for this project; none when nothing was saved or the record is unreadable."""
    try:
        doc = db.get_local(OPEN_TABS_ID)
    except NotFound:
        return OpenTabs()
    ids = doc.get("ids")
    if not isinstance(ids, list):
        return OpenTabs()
    kept = list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))[:MAX_TABS]
    active = doc.get("active")
    return OpenTabs(kept, active if isinstance(active, str) and active in kept else None)


def save_open_tabs(editor: Editor, tabs: OpenTabs) -> None:
    """Write ``tabs`` as this project's open tabs (the last write wins: the record is per machine)."""
    try:
        rev = editor.db.get_local(OPEN_TABS_ID).get("_rev")
    except NotFound:
        rev = None
    ids = list(dict.fromkeys(tabs.ids))[:MAX_TABS]
    doc: dict[str, Any] = {"_id": OPEN_TABS_ID, "ids": ids, "active": tabs.active if tabs.active in ids else None}
    if rev:
        doc["_rev"] = rev
    editor.write_local(doc, WriteIntent.UPDATE)


def without_missing(tabs: OpenTabs, exists: Any) -> OpenTabs:
    """``tabs`` less the documents ``exists(id)`` says are gone (deleted since the last visit)."""
    ids = [doc_id for doc_id in tabs.ids if exists(doc_id)]
    return OpenTabs(ids, tabs.active if tabs.active in ids else (ids[-1] if ids else None))
