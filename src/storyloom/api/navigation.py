"""``/navigate``: which documents can be opened, their route, and the port the desktop app plugs in.

The API never reaches widgets. The desktop app passes an object with
``navigate(route, doc_id)`` (a :class:`NavigationPort`) to the server; the API calls it from a
server worker thread, so the app must hand the call over to its GUI thread (a queued Qt signal)
and return at once. ``navigate`` may return ``False`` or raise :class:`NavigationRefused` to
report that the app could not open the document: the API answers 409 with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from storyloom.api.errors import BAD_REQUEST, NOT_FOUND, NOT_NAVIGABLE, ApiError
from storyloom.errors import StoryloomError
from storyloom.project import (
    ATTACHMENT_TYPE,
    BY_APP_NAME,
    FOLDER_TYPE,
    SETTINGS_ID,
    TRANSLATION_TYPE,
    USER_TYPE,
)

NOT_NAVIGABLE_REASON = "only documents can be navigated to"
# A Translation opens nowhere: its source line does (the Localization view shows it).
_NOT_NAVIGABLE_TYPES = frozenset({FOLDER_TYPE, ATTACHMENT_TYPE, USER_TYPE, TRANSLATION_TYPE})
# ProjectSettings is edited in the settings dialog, not opened as a document tab.
_NOT_NAVIGABLE_COLLECTIONS = frozenset({SETTINGS_ID})


class NavigationPort(Protocol):
    def navigate(self, route: str, doc_id: str) -> bool | None:
        """Open ``route`` (``/<collection lowercase>/<id>``) and focus its tab."""
        ...


class NavigationRefused(StoryloomError):
    """Raised by a navigation port that could not open the document; the message is the reason."""

    code = "navigation_refused"


@dataclass(frozen=True)
class NavigationTarget:
    id: str
    collection: str
    route: str


def route_for(collection_app_name: str, doc_id: str) -> str:
    return f"/{collection_app_name.lower()}/{doc_id}"


def _not_navigable(doc_id: str, detail: str) -> ApiError:
    return ApiError(400, NOT_NAVIGABLE, f"{NOT_NAVIGABLE_REASON}: {detail}", success=False, id=doc_id)


def navigable_collection(doc: dict[str, Any]) -> str | None:
    """The app name of the collection ``doc`` opens in, or ``None`` when it does not open in a tab."""
    doc_type = doc.get("type")
    if doc_type in _NOT_NAVIGABLE_TYPES:
        return None
    collection = doc.get("collection") or doc_type
    if not isinstance(collection, str) or collection not in BY_APP_NAME:
        return None
    if collection in _NOT_NAVIGABLE_COLLECTIONS:
        return None
    return collection


def check_id(doc_id: str | None) -> str:
    """The checks that need no project: ``id`` given, and not a design, ``_local`` or reserved id.

    Run before the project is looked up, so these are 400s with or without a project (503).
    """
    if doc_id is None or doc_id == "":
        raise ApiError(
            400, BAD_REQUEST, "invalid query parameter 'id': required (the id of the document to open)",
            success=False,
        )
    if doc_id.startswith("_design/"):
        raise _not_navigable(doc_id, f"{doc_id!r} is a design document")
    if doc_id.startswith("_local/"):
        raise _not_navigable(doc_id, f"{doc_id!r} is a local (never replicated) document")
    if doc_id.startswith("_"):
        raise _not_navigable(doc_id, f"{doc_id!r} is a reserved id")
    return doc_id


# What a document that does not open in a tab is, by its ``type``, for the 400's reason.
_KIND_BY_TYPE = {
    FOLDER_TYPE: "a folder",
    ATTACHMENT_TYPE: "an attachment (a file stored in the project)",
    USER_TYPE: "a user",
}


def describe_not_navigable(doc: dict[str, Any]) -> str:
    """Why ``doc`` does not open in a tab, e.g. ``'x' is a folder, which does not open in a tab``."""
    doc_id = doc.get("_id")
    if doc_id == SETTINGS_ID:
        return f"{doc_id!r} is the project settings, which are edited in the settings dialog, not in a tab"
    doc_type = doc.get("type")
    kind = _KIND_BY_TYPE.get(doc_type) if isinstance(doc_type, str) else None
    if doc_type == TRANSLATION_TYPE:
        kind = (f"a translation (its lines show in the Localization view; navigate to the translated "
                f"document {doc.get('document')!r} instead)")
    if kind is None:
        label = doc_type or doc.get("collection")
        if isinstance(label, str) and label:
            kind = f"a document of type {label!r}"
        else:
            kind = "a document without a type or collection"
    return f"{doc_id!r} is {kind}, which does not open in a tab"


def resolve(db: Any, doc_id: str | None) -> NavigationTarget:
    """Check ``doc_id`` against the store and compute its route; ``ApiError`` (400/404) otherwise."""
    from storyloom.store.errors import NotFound

    doc_id = check_id(doc_id)
    try:
        doc = db.get(doc_id)
    except NotFound as exc:
        detail = "it was deleted" if exc.reason == "deleted" else "there is none"
        raise ApiError(
            404, NOT_FOUND, f"no document with id {doc_id!r} in this project ({detail})",
            success=False, id=doc_id,
        ) from None
    collection = navigable_collection(doc)
    if collection is None:
        raise _not_navigable(doc_id, describe_not_navigable(doc))
    return NavigationTarget(id=doc_id, collection=collection, route=route_for(collection, doc_id))
