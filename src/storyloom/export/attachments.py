"""Attachments in the game export: stubs instead of bytes, and the metadata of the Attachment
documents that exported documents reference (``_meta.attachments``).

An attachment never leaves the project as bytes: wherever one appears (a document's
``_attachments``, an entry of ``_meta.attachments``) it is a stub whose ``permalink`` names it
and whose ``url`` is the local API's route for its bytes. Exported documents reference
Attachment documents through actor expressions (``content.expressions[]``) and image permalinks
(``<scheme>://image/<id>``) in the text of a GDD (``content.gdd``, markdown or HTML); the export
lists the metadata of exactly those in ``_meta.attachments`` (see ``docs/export-format.md``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any
from urllib.parse import quote, unquote

from storyloom.project import ATTACHMENT_TYPE, FOLDER_TYPE, permalink_target

ATTACHMENT_PERMALINK = "storyloom://attachment/{doc_id}/{name}"
"""The permalink of an attachment stub: the document id and the attachment name, URL-quoted."""

ATTACHMENT_URL = "/attachments/{doc_id}/{name}"
"""The local API's route serving an attachment's bytes: the document id and the attachment
name, URL-quoted (``GET /attachments/{doc_id}/{name}``)."""

META_ATTACHMENTS_KEY = "attachments"
"""The key of ``_meta`` listing the Attachment documents the exported documents reference."""

REFERENCING_COLLECTIONS: frozenset[str] = frozenset({"Actor", "Gdd"})
"""The collections (app names) whose documents can reference Attachment documents."""

# Fields of a stored attachment stub an exported stub keeps (``data`` never leaves).
_STUB_FIELDS: tuple[str, ...] = ("content_type", "digest", "length", "revpos")

# An image permalink inside text (a markdown link or image, an HTML ``src``): the id runs to
# the first character that ends a link in either syntax.
_IMAGE_LINK = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://image/([^\s\"'()<>\[\]]+)")
_IMAGE_MARK = "://image/"


def attachment_permalink(doc_id: str, name: str) -> str:
    """``storyloom://attachment/<doc id>/<name>``, both URL-quoted."""
    return ATTACHMENT_PERMALINK.format(doc_id=quote(doc_id, safe=""), name=quote(name, safe=""))


def attachment_url(doc_id: str, name: str) -> str:
    """``/attachments/<doc id>/<name>``, both URL-quoted: the local API route of the bytes."""
    return ATTACHMENT_URL.format(doc_id=quote(doc_id, safe=""), name=quote(name, safe=""))


def attachment_stubs(doc_id: str, attachments: Mapping[str, Any]) -> dict[str, Any]:
    """The exported form of a document's ``_attachments``: stubs with a permalink and a URL."""
    stubs: dict[str, Any] = {}
    for name, info in attachments.items():
        info = info if isinstance(info, Mapping) else {}
        stub = {k: v for k, v in info.items() if k in _STUB_FIELDS}
        if "length" not in stub and isinstance(info.get("data"), str):
            stub["length"] = len(info["data"]) * 3 // 4 - info["data"][-2:].count("=")
        stub["stub"] = True
        stub["permalink"] = attachment_permalink(doc_id, name)
        stub["url"] = attachment_url(doc_id, name)
        stubs[name] = stub
    return stubs


def is_attachment_document(doc: Mapping[str, Any]) -> bool:
    """An ``Attachment`` document (an image or a file that other documents point at)."""
    doc_id = doc.get("_id")
    return (
        doc.get("type") == ATTACHMENT_TYPE
        and isinstance(doc_id, str)
        and not doc_id.startswith(("_design/", "_local/"))
    )


def attachment_entry(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of an Attachment document in ``_meta.attachments``: ``_id``, ``name``,
    ``mimeType``, ``content.notes`` when it holds text, and ``_attachments`` as stubs."""
    doc_id = str(doc["_id"])
    entry: dict[str, Any] = {"_id": doc_id}
    for key in ("name", "mimeType"):
        if isinstance(doc.get(key), str):
            entry[key] = doc[key]
    content = doc.get("content")
    notes = content.get("notes") if isinstance(content, Mapping) else None
    if isinstance(notes, str) and notes:
        entry["content"] = {"notes": notes}
    attachments = doc.get("_attachments")
    entry["_attachments"] = attachment_stubs(doc_id, attachments) if isinstance(attachments, Mapping) else {}
    return entry


def _expression_targets(
    doc: Mapping[str, Any], attachment_ids: Collection[str]
) -> Iterable[tuple[dict[str, Any], str]]:
    """``(expression, attachment id)`` for each actor expression whose image resolves to an
    Attachment document (by its ``_id``, else the target of its ``permalink``)."""
    content = doc.get("content")
    expressions = content.get("expressions") if isinstance(content, Mapping) else None
    if not isinstance(expressions, list):
        return
    for expression in expressions:
        if not isinstance(expression, dict):
            continue
        for candidate in (expression.get("_id"), permalink_target(expression.get("permalink", ""))):
            if isinstance(candidate, str) and candidate in attachment_ids:
                yield expression, candidate
                break


def link_expressions(doc: dict[str, Any], attachment_ids: Collection[str]) -> set[str]:
    """Give each actor expression whose image resolves to an Attachment document ``attachmentId``
    (that document's ``_id``); returns the ids linked."""
    linked: set[str] = set()
    for expression, target in _expression_targets(doc, attachment_ids):
        expression["attachmentId"] = target
        linked.add(target)
    return linked


def text_image_ids(text: str, attachment_ids: Collection[str]) -> set[str]:
    """The Attachment documents that image permalinks in ``text`` point at (an id may be
    URL-quoted in a link); links to anything else are ignored."""
    if _IMAGE_MARK not in text:  # most texts hold no image: skip the regex
        return set()
    found: set[str] = set()
    for match in _IMAGE_LINK.finditer(text):
        target = match.group(1)
        if target in attachment_ids:
            found.add(target)
        elif unquote(target) in attachment_ids:
            found.add(unquote(target))
    return found


def referenced_attachments(doc: Mapping[str, Any], collection: str, attachment_ids: Collection[str]) -> set[str]:
    """The Attachment documents an exported document of ``collection`` (app name) references:
    an actor's expression images, a GDD's images. Read-only (see :func:`link_expressions`)."""
    if doc.get("type") == FOLDER_TYPE or not attachment_ids:
        return set()
    if collection == "Actor":
        return {target for _, target in _expression_targets(doc, attachment_ids)}
    if collection == "Gdd":
        content = doc.get("content")
        text = content.get("gdd") if isinstance(content, Mapping) else None
        return text_image_ids(text, attachment_ids) if isinstance(text, str) else set()
    return set()
