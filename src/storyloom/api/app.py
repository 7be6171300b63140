"""The ASGI application: routes, error mapping and the OpenAPI document.

``create_app`` builds a FastAPI app wrapped in :class:`ProtectionMiddleware`. The server
(:mod:`storyloom.api.server`) runs it on uvicorn; tests may also call it directly.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import quote, unquote

import anyio
from fastapi import FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response, StreamingResponse

import storyloom
from storyloom.api import errors as E
from storyloom.api.errors import ApiError
from storyloom.api.events import EventHub, parse_last_event_id
from storyloom.api.models import (
    ERROR_EXAMPLES,
    ErrorBody,
    InfoBody,
    NavigateBody,
    NavigateErrorBody,
)
from storyloom.api.navigation import NavigationPort, NavigationRefused, check_id, resolve
from storyloom.api.openapi_rules import collections_pattern, constrain_parameters
from storyloom.api.protection import API_KEY_HEADER, ProtectionMiddleware, ProtectionSettings
from storyloom.api.provider import Payloads, ProjectLike, ProjectProvider, StoryloomPayloads, read_snapshot
from storyloom.api.query import parse_all_docs_query
from storyloom.project import settings as project_settings
from storyloom.project.collections import EXPORT_NAMES
from storyloom.store.errors import StoreError

log = logging.getLogger(__name__)

API_VERSION = "1.0"
CHUNK_BYTES = 64 * 1024  # /db-dump hands the response over in pieces of about this size
# Documented in the OpenAPI document; the handler's own parser gives the error messages.
BOOLEAN_PATTERN = "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"
INTEGER_PATTERN = "^([+]?[0-9]+|-0+)$"
LAST_EVENT_ID_PATTERN = "^[0-9]{0,18}$"  # empty: as if not sent
DOCUMENT_ID_PATTERN = "^[^_]"  # not empty, and not a design, _local or other reserved (`_`) id
COLLECTIONS_PATTERN = collections_pattern()
ENDPOINTS = ("/info", "/game-export", "/schema-export", "/db-dump", "/navigate", "/attachments/{doc_id}/{name}",
             "/events", "/openapi.json")
METHODS = ("GET", "HEAD")  # every endpoint: HEAD answers what GET would, without the body (RFC 9110)
ALLOW = ", ".join(METHODS)
ATTACHMENTS_PREFIX = "/attachments/"
# A media type as a header can carry it; anything else is served as application/octet-stream.
_MEDIA_TYPE = re.compile(r"^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\s*;[ -~]*)?$")



class JsonResponse(Response):
    """Compact UTF-8 JSON (``json.dumps`` with no padding); faster than pydantic round trips."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
            "utf-8"
        )


class CatchAllMiddleware:
    """Turns an unexpected exception into a 500 ``internal_error`` body and keeps the connection.

    Starlette's own handler for ``Exception`` re-raises after answering, which makes uvicorn drop
    the (keep-alive) connection; a client must get the documented body and be able to go on.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            log.exception("unexpected error on %s", scope.get("path"))
            if started:
                raise  # the answer is half sent: only closing the connection tells the client
            response = error_response(ApiError(
                500, E.INTERNAL_ERROR, f"unexpected error ({type(exc).__name__}); see Storyloom's log",
            ), scope.get("path"))
            await response(scope, receive, send)


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


def error_response(exc: ApiError, path: str | None = None) -> JsonResponse:
    return JsonResponse(exc.body(path), status_code=exc.status)


def public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings /info shows: the project's one rule for what never leaves the machine
    (credentials, remote replication, ``dbName``), and no CouchDB metadata (``_id``, ``_rev``)."""
    return {k: v for k, v in project_settings.public_settings(settings).items() if not k.startswith("_")}


def _responses(*statuses: int, navigate: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error statuses an endpoint can answer."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted(set(statuses)):
        specs = [s for s in E.ERRORS if s.status == status]
        model = NavigateErrorBody if navigate else ErrorBody
        description = " ".join(f"`{s.code}`: {s.description}" for s in specs) or "Error"
        examples = {s.code: {"value": _example(s.code, navigate)} for s in specs if s.code in ERROR_EXAMPLES}
        entry: dict[str, Any] = {"model": model, "description": description}
        if examples:
            entry["content"] = {"application/json": {"examples": examples}}
        out[status] = entry
    return out


def _example(code: str, navigate: bool) -> dict[str, Any]:
    example = ERROR_EXAMPLES[code]
    return {**example, "success": False} if navigate and "success" not in example else example


COMMON = (401, 403, 405, 500)


def create_app(
    provider: ProjectProvider,
    protection: ProtectionSettings,
    *,
    username: Callable[[], str | None] = lambda: None,
    navigation: NavigationPort | None = None,
    payloads: Payloads | None = None,
    hub: EventHub | None = None,
) -> ProtectionMiddleware:
    """The API as an ASGI app. ``username`` is read on each ``/info`` and export (``exportedBy``)."""
    payloads = payloads or StoryloomPayloads()
    hub = hub or EventHub(provider)
    app = FastAPI(
        title="Storyloom local API",
        version=API_VERSION,
        description=(
            "The local REST API of Storyloom. Every endpoint but `/openapi.json` needs the `x-api-key` "
            "header. Every error is `{\"error\": code, \"reason\": text}`. Every endpoint answers GET "
            "and HEAD (HEAD: the same status and headers, no body). Errors are checked in this order: "
            "Host (403), Origin (403), key (401), path (404), method (405), query parameters (400), "
            "loaded project (503), then what depends on the project's content. See docs/api.md."
        ),
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,  # `/info/` is an unknown path (404), not a redirect to `/info`
    )
    app.state.hub = hub
    app.add_middleware(CatchAllMiddleware)

    def route(path: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register ``path`` for GET and, as its own operation (own operationId), for HEAD."""
        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            for method in METHODS:
                app.add_api_route(path, func, methods=[method], **kwargs)
            return func
        return register

    def project_or_503() -> ProjectLike:
        project = provider.current_project()
        if project is None:
            raise ApiError(503, E.NO_PROJECT, E.REASON_NO_PROJECT)
        return project

    def collections_filter(request: Request) -> list[str] | None:
        values = request.query_params.getlist("collections")
        if not values:
            return None
        return payloads.parse_collections(values)

    def reject_unknown(request: Request, *allowed: str) -> None:
        for name in request.query_params:
            if name not in allowed:
                accepted = ", ".join(allowed) if allowed else "no parameters"
                raise E.bad_parameter(name, f"unknown parameter; this endpoint accepts {accepted}")

    def single(request: Request, name: str) -> str | None:
        values = request.query_params.getlist(name)
        if len(values) > 1:
            raise E.bad_parameter(name, "given more than once")
        return values[0] if values else None

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc, request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        if exc.status_code == 404:
            hint = f" (did you mean {path.rstrip('/')}?)" if path.rstrip("/") in ENDPOINTS else ""
            return error_response(ApiError(
                404, E.NOT_FOUND,
                f"no endpoint at {path!r}{hint}; the endpoints are {', '.join(ENDPOINTS)}",
            ), path)
        if exc.status_code == 405:
            response = error_response(ApiError(
                405, E.METHOD_NOT_ALLOWED,
                f"{request.method} is not allowed on {path}; every endpoint answers GET and HEAD only",
            ), path)
            response.headers["allow"] = ALLOW
            return response
        return error_response(ApiError(exc.status_code, E.BAD_REQUEST, str(exc.detail)), path)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        name = str((first.get("loc") or ("?",))[-1])
        return error_response(E.bad_parameter(name, str(first.get("msg", "invalid value"))), request.url.path)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> Response:
        return error_response(store_error(exc), request.url.path)

    def store_error(exc: Exception) -> ApiError:
        status = getattr(exc, "status", 500)
        reason = getattr(exc, "reason", str(exc))
        if getattr(exc, "error", None) == "db_closed":  # the project closed under the request
            return ApiError(503, E.NO_PROJECT, E.REASON_NO_PROJECT)
        if status == 400:
            return ApiError(400, E.BAD_REQUEST, str(reason))
        return ApiError(500, E.INTERNAL_ERROR, f"store error: {getattr(exc, 'error', '?')}: {reason}")

    # ------------------------------------------------------------------ /openapi.json
    schema_cache: dict[str, bytes] = {}

    @route(
        "/openapi.json",
        summary="This OpenAPI document",
        description="Public (no key): it describes the API and nothing about the loaded project.",
        responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}},
                   **_responses(403, 405)},
        openapi_extra={"security": []},
        tags=["meta"],
    )
    async def openapi_document() -> Response:
        if "doc" not in schema_cache:
            schema_cache["doc"] = JsonResponse(build_openapi(app)).body
        return Response(schema_cache["doc"], media_type="application/json")

    # ------------------------------------------------------------------ /info
    info_cache: dict[str, Any] = {"key": None, "body": b""}

    @route(
        "/info",
        summary="The app, the user and the loaded project",
        response_model=None,
        responses={200: {"model": InfoBody}, **_responses(*COMMON, 400, 503)},
        tags=["project"],
    )
    async def info(request: Request) -> Response:
        # Small reads of the store, done on the event loop (a worker-thread hop would cost more
        # than the work; the store's readers never wait for its writer, in WAL mode). The body
        # is kept until the next committed change (or another user name).
        reject_unknown(request)
        project = project_or_503()
        with read_snapshot(project):  # the seq of the cache key, the settings and the name: one moment
            state = project.db.info()
            user = username()
            key = (id(project), project.id, state.get("instance_uuid"), state.get("update_seq"), user)
            if info_cache["key"] != key:
                info_cache["body"], info_cache["key"] = _info_body(project, user), key
        return Response(info_cache["body"], media_type="application/json")

    def _info_body(project: ProjectLike, user: str | None) -> bytes:
        settings = project.settings() or {}
        return JsonResponse({
            "app": {"name": storyloom.APP_NAME, "version": storyloom.__version__},
            "apiVersion": API_VERSION,
            "user": {"username": user},
            "project": {
                "id": project.id,
                "name": project.name,
                "description": settings.get("projectDescription"),
                "version": settings.get("projectVersion"),
                "settings": public_settings(settings),
            },
            "collections": list(EXPORT_NAMES),
        }).body

    collections_doc = (
        "Export names separated by commas (spaces around names are ignored), e.g. `Scripts,Dialogues`. "
        "Without it, the project's export sections. Valid names: " + ", ".join(EXPORT_NAMES) + "."
    )

    # ------------------------------------------------------------------ /game-export
    @route(
        "/game-export",
        summary="The game export of the project",
        description="The same JSON as `storyloom export` (one code path).",
        response_model=None,
        responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}},
                   **_responses(*COMMON, 400, 503)},
        tags=["project"],
    )
    def game_export(
        request: Request,
        collections: str | None = Query(None, description=collections_doc,
                                        json_schema_extra={"pattern": COLLECTIONS_PATTERN}),
    ) -> Response:
        reject_unknown(request, "collections")
        names = collections_filter(request)
        project = project_or_503()
        return _json_text(payloads.game_export_json(project, names, username()))

    # ------------------------------------------------------------------ /schema-export
    @route(
        "/schema-export",
        summary="JSON Schema (2020-12) of the game export",
        description="Same `collections` filter and errors as `/game-export`.",
        response_model=None,
        responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}},
                   **_responses(*COMMON, 400, 503)},
        tags=["project"],
    )
    def schema_export(
        request: Request,
        collections: str | None = Query(None, description=collections_doc,
                                        json_schema_extra={"pattern": COLLECTIONS_PATTERN}),
    ) -> Response:
        reject_unknown(request, "collections")
        names = collections_filter(request)
        project = project_or_503()
        return _json_text(payloads.schema_export_json(project, names))

    # ------------------------------------------------------------------ /db-dump
    def _bool(name: str, default: bool | None = None) -> Any:
        shown = "as CouchDB" if default is None else f"`{str(default).lower()}`"
        text = f"`true` or `false` (any case). Default {shown}."
        return Query(None, alias=name, description=text, json_schema_extra={"pattern": BOOLEAN_PATTERN})

    def _json(name: str, what: str) -> Any:
        return Query(None, alias=name, description=f"{what}, as a JSON value (a document id is a JSON string: "
                                                    f"`{name}=\"abc\"`).")

    @route(
        "/db-dump",
        summary="Every document, as CouchDB `_all_docs`",
        description=(
            "The CouchDB `_all_docs` response of the project's store, streamed. Options and their parsing "
            "are CouchDB's; `include_docs` and `attachments` default to true. `_local` documents never "
            "appear."
        ),
        response_model=None,
        responses={200: {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/AllDocs"}}}},
                   **_responses(*COMMON, 400, 503)},
        tags=["project"],
    )
    def db_dump(
        request: Request,
        include_docs: str | None = _bool("include_docs", True),
        attachments: str | None = _bool("attachments", True),
        conflicts: str | None = _bool("conflicts", False),
        descending: str | None = _bool("descending", False),
        inclusive_end: str | None = _bool("inclusive_end", True),
        update_seq: str | None = _bool("update_seq", False),
        limit: str | None = Query(None, description="Non-negative integer: at most this many rows.",
                                  json_schema_extra={"pattern": INTEGER_PATTERN}),
        skip: str | None = Query(None, description="Non-negative integer: rows to skip first.",
                                 json_schema_extra={"pattern": INTEGER_PATTERN}),
        startkey: str | None = _json("startkey", "First id of the range"),
        start_key: str | None = _json("start_key", "Alias of `startkey`"),
        endkey: str | None = _json("endkey", "Last id of the range"),
        end_key: str | None = _json("end_key", "Alias of `endkey`"),
        key: str | None = _json("key", "Only this id"),
        keys: str | None = _json("keys", "Only these ids, a JSON array (rows for unknown ids say so)"),
    ) -> Response:
        options = parse_all_docs_query(request.query_params.multi_items())
        project = project_or_503()
        # all_docs_stream opens its own connection and does not check that the store is open;
        # info() does (a closed store must answer 503, not a dump).
        project.db.info()
        return _stream_all_docs(project.db, options, store_error, head=request.method == "HEAD")

    # ------------------------------------------------------------------ /navigate
    @route(
        "/navigate",
        summary="Open a document in the desktop app",
        description=(
            "Asks the desktop app to open the document's route (`/<collection lowercase>/<id>`) and focus "
            "its tab. Headless (`storyloom serve`), the answer is 409. Every error body has "
            "`success: false`. HEAD checks what GET checks but never asks the app to open the document."
        ),
        response_model=None,
        responses={200: {"model": NavigateBody}, **_responses(*COMMON, 400, 404, 409, 503, navigate=True)},
        tags=["app"],
    )
    def navigate(
        request: Request,
        id: str | None = Query(None, description="The id of the document to open (required; ids starting "
                                                 "with `_` are design, `_local` or reserved ids: 400).",
                               json_schema_extra={"pattern": DOCUMENT_ID_PATTERN}),
    ) -> Response:
        # Every error of this endpoint has "success": false (error_response adds it by path).
        reject_unknown(request, "id")
        doc_id = check_id(single(request, "id"))
        project = project_or_503()
        target = resolve(project.db, doc_id)
        body = {"success": True, "id": target.id, "collection": target.collection, "route": target.route}
        if navigation is None:
            raise ApiError(
                409, E.NAVIGATION_UNAVAILABLE,
                "no desktop app is attached to this server (headless `storyloom serve`): nothing can "
                "open the document",
                success=False, id=target.id, collection=target.collection, route=target.route,
            )
        if request.method == "HEAD":  # safe: checks what GET checks, never asks the app to open anything
            return JsonResponse(body)
        try:
            accepted = navigation.navigate(target.route, target.id)
        except NavigationRefused as exc:
            raise ApiError(409, E.NAVIGATION_UNAVAILABLE, f"the app could not open the document: {exc}",
                           success=False, id=target.id, collection=target.collection,
                           route=target.route) from None
        if accepted is False:
            raise ApiError(409, E.NAVIGATION_UNAVAILABLE, "the app refused to open the document",
                           success=False, id=target.id, collection=target.collection, route=target.route)
        return JsonResponse(body)

    # ------------------------------------------------------------------ /events
    @route(
        "/events",
        summary="Server-Sent Events: one per committed change",
        description=(
            "`text/event-stream`, following the store's changes feed in seq order, whoever wrote (writes "
            "from other processes are seen within about 0.25 s). Each change: `id: <seq>`, `event: change`, "
            "`data: {\"id\", \"collection\", \"rev\", \"deleted\"}`. Send `Last-Event-ID` to resume "
            "after that seq; a seq beyond the latest gets `event: reset` first, a value that is not a seq a "
            "400. `: keep-alive` comments when idle; `event: end` with a reason before the stream ends "
            "(server stopping, project closed)."
        ),
        response_model=None,
        responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
                   **_responses(*COMMON, 400, 503)},
        tags=["project"],
    )
    async def events(
        request: Request,
        last_event_id: str | None = Header(
            None, alias="Last-Event-ID",
            description="The `id` of the last event received: the stream resumes after that seq.",
            json_schema_extra={"pattern": LAST_EVENT_ID_PATTERN},
        ),
    ) -> Response:
        reject_unknown(request)
        since = parse_last_event_id(last_event_id)
        project = project_or_503()
        current = project.db.info()["update_seq"]  # also: a closed store answers 503
        if request.method == "HEAD":  # the headers of the stream, which is not opened
            return StreamingResponse(_no_body(), media_type="text/event-stream",
                                     headers={"x-accel-buffering": "no"})
        stream = hub.stream(project, since, current)
        return StreamingResponse(
            stream,
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    # ------------------------------------------------------------------ /attachments
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
            **_responses(*COMMON, 400, 404, 503),
        },
        response_class=Response,
        tags=["project"],
    )
    def attachment(
        request: Request,
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
        project = project_or_503()
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

    return ProtectionMiddleware(AttachmentPathMiddleware(app), protection)


def _json_text(data: bytes) -> Response:
    return Response(data, media_type="application/json")


async def _no_body() -> AsyncIterator[bytes]:
    """The body of a HEAD answer that GET streams: nothing (the headers are GET's)."""
    return
    yield b""  # pragma: no cover - makes this an async generator


def _etags(header: str | None) -> set[str]:
    """The entity tags of an ``If-None-Match`` header (``*`` matches any); weak tags compare equal."""
    if not header:
        return set()
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}


def _stream_all_docs(db: Any, options: dict[str, Any], store_error: Callable[[Exception], ApiError], *,
                     head: bool = False) -> Response:
    """Stream ``db.all_docs_stream(**options)`` from one producer thread.

    The generator runs entirely in one thread (SQLite connections and read transactions are bound
    to a thread) and hands chunks over a small bounded queue, so a slow client holds at most a few
    chunks in memory. Errors raised before the first chunk (bad option combinations) become
    answers with their status; the response has not started yet. With ``head``, the dump stops
    after its first chunk (so a HEAD gets the status a GET would) and no body is sent.
    """
    chunks: queue.Queue[Any] = queue.Queue(maxsize=4)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        """Hand ``item`` to the consumer unless it went away (``stop``): never blocks for good."""
        while not stop.is_set():
            try:
                chunks.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def hand_over(text: str) -> bool:
        return put(text.encode("utf-8"))

    def produce() -> None:
        iterator: Iterator[str] | None = None
        try:
            iterator = iter(db.all_docs_stream(**options))
            batch: list[str] = []
            size = 0
            for chunk in iterator:
                batch.append(chunk)
                size += len(chunk)
                if size < CHUNK_BYTES:
                    continue
                if not hand_over("".join(batch)):
                    return
                batch, size = [], 0
            if batch and not hand_over("".join(batch)):
                return
            put(done)
        except BaseException as exc:  # handed to the consumer
            put(exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    threading.Thread(target=produce, name="storyloom-db-dump", daemon=True).start()
    first = chunks.get()
    if isinstance(first, StoreError):
        stop.set()
        raise store_error(first)
    if isinstance(first, BaseException):
        stop.set()
        raise first
    if head:
        stop.set()
        return StreamingResponse(_no_body(), media_type="application/json")

    async def body() -> AsyncIterator[bytes]:
        item = first
        try:
            while item is not done:
                if isinstance(item, BaseException):
                    raise item
                yield item
                item = chunks.get_nowait() if not chunks.empty() else await anyio.to_thread.run_sync(chunks.get)
        finally:
            stop.set()

    return StreamingResponse(body(), media_type="application/json")


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, adjusted: key scheme, no 422s, our error schemas."""
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["AllDocs"] = {
        "type": "object",
        "description": "CouchDB `_all_docs` output.",
        "properties": {
            "total_rows": {"type": "integer"},
            "offset": {"type": ["integer", "null"]},
            "update_seq": {},
            "rows": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["rows"],
    }
    components["securitySchemes"] = {
        "apiKey": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER,
                   "description": "The key shown in Storyloom's options, or given to `storyloom serve`."}
    }
    doc["security"] = [{"apiKey": []}]
    for path, path_item in doc.get("paths", {}).items():
        for method, operation in path_item.items():
            operation.get("responses", {}).pop("422", None)
            for parameter in operation.get("parameters", []):
                parameter["schema"] = _plain_parameter_schema(parameter.get("schema", {}))
            constrain_parameters(path, operation.get("parameters", []))
            if method == "head":
                # The same statuses and headers as GET, never a body.
                operation["summary"] = f"{operation.get('summary', '')} (headers only)".strip()
                operation["description"] = (
                    "HEAD: the status and headers GET would answer, without the body. "
                    + operation.get("description", "")
                ).strip()
                for response in operation.get("responses", {}).values():
                    response.pop("content", None)
    return doc


def _plain_parameter_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``{"anyOf": [{"type": "string"}, {"type": "null"}], ...}`` → ``{"type": "string", ...}``.

    A query parameter is absent or a string; "null" only describes the Python default.
    """
    out = {k: v for k, v in schema.items() if k not in ("anyOf", "title", "description")}
    members = [m for m in schema.get("anyOf", []) if m.get("type") != "null"]
    if len(members) == 1:
        out.update(members[0])
    elif "anyOf" in schema:
        out["anyOf"] = members
    return out
