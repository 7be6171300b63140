"""Document shapes: Drafft's v2 shapes, with ``parent`` + ``sortKey`` instead of ``children``/``path``.

See ``docs/data-model.md`` for every shape. This module holds the vocabulary (types, node types,
editor modes and languages, permalinks) and :func:`new_document`, which builds a fresh document
of any type with every field at its default. Validation lives in
:mod:`storyloom.project.validation`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from storyloom.project.collections import (
    ATTACHMENT_TYPE,
    BY_APP_NAME,
    DIALOGUE_FOLDER_ID,
    FOLDER_TYPE,
    SETTINGS_ID,
    TRANSLATION_TYPE,
    USER_TYPE,
)
from storyloom.project.dates import DateFormatError, is_iso_utc, normalise_date

# Collections whose documents live in the folder tree (every collection but ProjectSettings).
TREE_COLLECTIONS: tuple[str, ...] = tuple(name for name in BY_APP_NAME if name != SETTINGS_ID)

# Every ``type`` a stored document may have.
CONTENT_TYPES: tuple[str, ...] = TREE_COLLECTIONS
KNOWN_TYPES: tuple[str, ...] = (*TREE_COLLECTIONS, FOLDER_TYPE, ATTACHMENT_TYPE, USER_TYPE, TRANSLATION_TYPE)

# Fields the tree derives; a stored document must not carry them.
DERIVED_FIELDS: tuple[str, ...] = ("children", "path")

# Timestamps every document may carry (ISO-8601 UTC, see storyloom.project.dates).
DATE_FIELDS: tuple[str, ...] = ("created", "createdAt", "modified", "lastModified", "lastModifiedDate", "lockedAt")

# The ten dialogue node types, as ``data.nodeType`` stores them.
NODE_TYPES: tuple[str, ...] = (
    "start", "script", "choice", "condition", "switch", "event", "jump", "note", "end", "return",
)
HANDLE_TYPES: tuple[str, ...] = ("source", "target")

# Script editor modes (``Script.editorMode``) and property-text languages (``editorLanguage``).
EDITOR_MODES: tuple[str, ...] = (
    "text", "csharp", "javascript", "lua", "python", "java", "markdown", "yarn_spinner", "gdscript", "gml",
)
EDITOR_LANGUAGES: tuple[str, ...] = ("json", "hjson", "yaml", "toml", "text")
GDD_EDITORS: tuple[str, ...] = ("markdown", "richText")

SCENE_ITEM_TYPES: tuple[str, ...] = ("Script", "Dialogue")

UNLOCKED_BY = "nobody"

# Attachments are referenced as ``<scheme>://image/<id>``. Storyloom writes its own scheme and
# reads any (Drafft's documents use ``drafft://``).
PERMALINK_SCHEME = "storyloom"
_PERMALINK = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?P<kind>[a-z]+)/(?P<id>.+)$")


def permalink(doc_id: str, kind: str = "image") -> str:
    """The permalink Storyloom writes for an attachment document."""
    return f"{PERMALINK_SCHEME}://{kind}/{doc_id}"


def permalink_target(link: str) -> str | None:
    """The document id a permalink points to (any scheme), or ``None`` if it is not one."""
    match = _PERMALINK.match(link) if isinstance(link, str) else None
    return match["id"] if match else None


_ATOMS = frozenset({str, int, float, bool, type(None)})


def copy_document(value: Any) -> Any:
    """A deep copy of a document (or any JSON value): every dict and list copied, strings,
    numbers, booleans and None shared (they cannot change), anything else deep-copied.

    Performance (bench/edit_bench.py: each editor write copies what it is given): about four
    times faster than ``copy.deepcopy`` on a document, which looks up a copier and keeps a memo
    for every value. Unlike it, a list or dict reached twice is copied twice (a stored document
    never shares one)."""
    kind = type(value)
    if kind is dict:
        copied = dict(value)
        for key, item in copied.items():
            if type(item) not in _ATOMS:
                copied[key] = copy_document(item)
        return copied
    if kind is list:
        items = list(value)
        for index, item in enumerate(items):
            if type(item) not in _ATOMS:
                items[index] = copy_document(item)
        return items
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)


def new_id() -> str:
    import uuid  # here: uuid loads the platform module, which a verb that only reads never needs

    return str(uuid.uuid4())


def is_tree_document(doc: dict[str, Any]) -> bool:
    """Folders and documents of the 14 tree collections (not settings, attachments, users)."""
    return doc.get("type") == FOLDER_TYPE or doc.get("type") in TREE_COLLECTIONS


def is_special_id(doc_id: str) -> bool:
    return doc_id in (SETTINGS_ID, DIALOGUE_FOLDER_ID)


# Default ``content`` per type. Misc holds free-form property text like Items; Scenes hold an
# ordered item list; Canvas holds notes and edges; Maps hold cells, edges and markers.
_DEFAULT_CONTENT: dict[str, dict[str, Any]] = {
    "Gdd": {"gdd": ""},
    "Script": {"script": ""},
    "Dialogue": {"tree": {"nodes": [], "edges": []}},
    "Actor": {"bio": "", "expressions": [], "properties": ""},
    "Quest": {"properties": "", "conditions": ""},
    "Item": {"item": ""},
    "Variable": {"variables": "", "json": ""},
    "Scenario": {"scenario": "", "json": ""},
    "Scene": {"items": []},
    "Misc": {"properties": ""},
    "Grid": {"columns": [], "data": [], "style": {}, "meta": {}, "comments": {}, "worksheetName": "Sheet1"},
    "Kanban": {"columns": [], "template": None, "settings": {}},
    "Canvas": {"nodes": [], "edges": []},
    "Map": {"width": 16, "height": 16, "cells": {}, "edges": {}, "markers": {}},
}

# Extra top-level fields per type, with their defaults.
_TYPE_FIELDS: dict[str, dict[str, Any]] = {
    "Script": {"editorMode": "text", "isDialogueScript": False},
    "Gdd": {"editor": "markdown"},
    "Actor": {"editorLanguage": "hjson"},
    "Quest": {"editorLanguage": "hjson"},
    "Item": {"editorLanguage": "hjson"},
    "Misc": {"editorLanguage": "hjson"},
    "Variable": {"editorLanguage": "yaml"},
    "Scenario": {"editorLanguage": "hjson"},
}


def default_content(doc_type: str) -> dict[str, Any]:
    """A fresh copy of the default ``content`` of ``doc_type`` (``{}`` for types without one)."""
    return copy.deepcopy(_DEFAULT_CONTENT.get(doc_type, {}))


def new_document(
    doc_type: str,
    name: str,
    *,
    collection: str | None = None,
    parent: str | None = None,
    doc_id: str | None = None,
    content: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A new document of ``doc_type`` with every field at its default (no ``_rev``, no stamps).

    ``collection`` is required for folders (the collection the folder belongs to) and defaults to
    ``doc_type`` otherwise. ``content`` is merged over the type's default content; ``fields`` are
    set last. The editing service adds ``sortKey`` and the ``created``/``modified`` stamps.
    """
    if doc_type == FOLDER_TYPE:
        if collection is None:
            raise ValueError("a folder needs the collection it belongs to")
    else:
        collection = collection or doc_type
    doc: dict[str, Any] = {"_id": doc_id or new_id(), "type": doc_type, "collection": collection, "name": name}
    if doc_type == FOLDER_TYPE or doc_type in TREE_COLLECTIONS:
        doc.update(
            {
                "parent": parent,
                "icon": "folder" if doc_type == FOLDER_TYPE else "file",
                "color": "#666" if doc_type == FOLDER_TYPE else "#cec4d1",
                "isClonable": doc_type != FOLDER_TYPE,
                "isRemovable": True,
                "isReadOnly": False,
            }
        )
    if doc_type in TREE_COLLECTIONS:
        doc.update({"alias": "", "comments": "", "locked": False, "lockedBy": UNLOCKED_BY})
        doc.update(copy.deepcopy(_TYPE_FIELDS.get(doc_type, {})))
        merged = default_content(doc_type)
        merged.update(copy.deepcopy(content or {}))
        doc["content"] = merged
    elif doc_type == FOLDER_TYPE:
        if collection == "Script":
            doc["isDialogueScriptFolder"] = False
    elif doc_type == ATTACHMENT_TYPE:
        doc.update({"mimeType": "application/octet-stream", "permalink": permalink(doc["_id"])})
        doc["content"] = {"notes": ""}
        doc["isClonable"] = False
        if content:
            doc["content"].update(copy.deepcopy(content))
    elif content is not None:
        doc["content"] = copy.deepcopy(content)
    doc.update(fields)
    return doc


def normalise_foreign_dates(doc: dict[str, Any]) -> None:
    """Rewrite, in place, a date stamp another client wrote in its own format (a Drafft teammate
    stamps JS Date strings or epoch milliseconds, and replication brings them in as they are) as
    the ISO-8601 UTC text the project's documents use, so that editing or resolving such a
    document is not refused for a stamp the user never typed. ``lockedAt`` is left alone: lock
    fields change only through the lock intents, and the server compares them as written."""
    for key in DATE_FIELDS:
        value = doc.get(key)
        if key == "lockedAt" or value is None or is_iso_utc(value):
            continue
        try:
            doc[key] = normalise_date(value)
        except DateFormatError:
            pass  # not a date in any known format: validation names it
