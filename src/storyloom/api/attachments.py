"""``/attachments/{doc_id}/{name}``: an attachment's bytes, and the routing of its quoted path."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Path, Request
from starlette.responses import Response

from storyloom.api import errors as E
from storyloom.api.errors import ApiError
from storyloom.api.openapi import COMMON, DOCUMENT_ID_PATTERN, error_responses
from storyloom.api.state import State, reject_unknown, route

ATTACHMENTS_PREFIX = "/attachments/"
# A media type as a header can carry it; anything else is served as application/octet-stream.
_MEDIA_TYPE = re.compile(r"^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\s*;[ -~]*)?$")


class AttachmentPathMiddleware:
    """Routes ``/attachments/<doc id>/<name>`` on the *raw* path.

    Document ids and attachment names may contain ``/``; clients send them URL-quoted
    (``act%2F1``), but the ASGI ``path`` is already unquoted, where ``act/1`` would be two
    segments. This splits the raw path into its two segments and puts them back, quoted, into
    ``path``: the route's parameters are then the quoted segments, unquoted by the handler.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith(ATTACHMENTS_PREFIX):
            raw = scope.get("raw_path")
            if raw is not None:
                text = raw.decode("latin-1")
            else:  # no raw path (a test client): quote the decoded segments
                text = "/".join(quote(part, safe="") for part in scope["path"].split("/"))
            if text.startswith(ATTACHMENTS_PREFIX):
                segments = text[len(ATTACHMENTS_PREFIX):].split("/")
                if len(segments) == 2 and all(segments):
                    canonical = [quote(unquote(part), safe="") for part in segments]
                    scope = {**scope, "path": ATTACHMENTS_PREFIX + "/".join(canonical)}
        await self.app(scope, receive, send)


@route(
    "/attachments/{doc_id}/{name}",
    summary="The bytes of one attachment",
    description=(
        "The raw bytes of attachment `name` of document `doc_id` (winning revision), with its "
        "`content_type`, `Content-Length`, an `ETag` (the attachment's digest, quoted) and "
        "`Cache-Control: no-cache`; `If-None-Match` with that ETag answers 304. Both path segments "
        "are URL-quoted (`/` in an id is `%2F`): the game export's attachment stubs carry this path "
        "as `url` (and `storyloom://attachment/<id>/<name>` as `permalink`). Design and `_local` "
        "documents are refused (400)."
    ),
    response_model=None,
    responses={
        200: {"description": "The attachment's bytes, with its own content type.",
              "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
              "headers": {
                  "ETag": {"description": "The attachment's digest, quoted.", "schema": {"type": "string"}},
                  "Cache-Control": {"description": "`no-cache`.", "schema": {"type": "string"}},
              }},
        304: {"description": "`If-None-Match` names the current ETag: the client's copy is current."},
        **error_responses(*COMMON, 400, 404, 503),
    },
    response_class=Response,
    tags=["project"],
)
def attachment(
    request: Request,
    state: State,
    doc_id: str = Path(description="The document's id, URL-quoted (not a design, `_local` or other `_` id).",
                       json_schema_extra={"pattern": DOCUMENT_ID_PATTERN}),
    name: str = Path(description="The attachment's name, URL-quoted.", json_schema_extra={"minLength": 1}),
) -> Response:
    from storyloom.store.errors import NotFound

    reject_unknown(request)
    doc_id, name = unquote(doc_id), unquote(name)
    if doc_id.startswith("_design/") or doc_id.startswith("_local/"):
        raise ApiError(400, E.BAD_REQUEST, f"{doc_id!r} is a design or _local document: only the "
                       "attachments of project documents are served")
    if doc_id.startswith("_"):
        raise ApiError(400, E.BAD_REQUEST, f"{doc_id!r} is a reserved id: only the attachments of "
                       "project documents are served")
    project = state.project()
    db = project.db
    try:
        doc = db.get(doc_id)
    except NotFound as exc:
        detail = "it was deleted" if exc.reason == "deleted" else "there is none"
        raise ApiError(404, E.NOT_FOUND, f"no document with id {doc_id!r} in this project ({detail})") from None
    attachments = doc.get("_attachments") or {}
    meta = attachments.get(name)
    if not isinstance(meta, dict):
        names = ", ".join(repr(n) for n in sorted(attachments)) or "none"
        raise ApiError(404, E.NOT_FOUND, f"document {doc_id!r} has no attachment named {name!r} "
                       f"(its attachments: {names})")
    digest = str(meta.get("digest") or "")
    etag = f'"{digest}"'
    headers = {"etag": etag, "cache-control": "no-cache"}
    matches = _etags(request.headers.get("if-none-match"))
    if etag in matches or "*" in matches:
        return Response(status_code=304, headers=headers)
    try:
        data = db.get_attachment(doc_id, name, rev=doc["_rev"])
    except NotFound:  # the revision was replaced between the two reads
        raise ApiError(404, E.NOT_FOUND, f"document {doc_id!r} changed while its attachment {name!r} "
                       "was read; retry") from None
    content_type = meta.get("content_type")
    if not isinstance(content_type, str) or not _MEDIA_TYPE.match(content_type):
        content_type = "application/octet-stream"
    return Response(data, media_type=content_type, headers=headers)


def _etags(header: str | None) -> set[str]:
    """The entity tags of an ``If-None-Match`` header (``*`` matches any); weak tags compare equal."""
    if not header:
        return set()
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}
