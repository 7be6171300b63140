"""The project's endpoints: ``/info``, the two exports, ``/navigate`` and ``/events``.

``/db-dump`` is in :mod:`storyloom.api.dump`, ``/attachments`` in
:mod:`storyloom.api.attachments`, ``/openapi.json`` in :mod:`storyloom.api.openapi`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import Header, Query, Request
from starlette.responses import Response, StreamingResponse

import storyloom
from storyloom.api import errors as E
from storyloom.api.errors import ApiError
from storyloom.api.events import parse_last_event_id
from storyloom.api.models import InfoBody, NavigateBody
from storyloom.api.navigation import NavigationRefused, check_id, resolve
from storyloom.api.openapi import (
    COLLECTIONS_PATTERN,
    COMMON,
    DOCUMENT_ID_PATTERN,
    LAST_EVENT_ID_PATTERN,
    error_responses,
)
from storyloom.api.responses import JsonResponse, no_body
from storyloom.api.state import ApiState, State, reject_unknown, route, single
from storyloom.export import (
    COMPAT_VALUES,
    DRAFFT_VERSION,
    ExportAnswer,
    UnknownCompat,
    UnknownExportLocale,
    export_locale,
    parse_compat,
    read_snapshot,
)
from storyloom.project import EXPORT_NAMES, ProjectLike, public_settings

API_VERSION = "1.0"


# ------------------------------------------------------------------ /info
def info_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings /info shows: the project's one rule for what never leaves the machine
    (credentials, remote replication, ``dbName``), and no CouchDB metadata (``_id``, ``_rev``)."""
    return {k: v for k, v in public_settings(settings).items() if not k.startswith("_")}


@route(
    "/info",
    summary="The app, the user and the loaded project",
    response_model=None,
    responses={200: {"model": InfoBody}, **error_responses(*COMMON, 400, 503)},
    tags=["project"],
)
async def info(request: Request, state: State) -> Response:
    reject_unknown(request)
    return Response(info_answer(state), media_type="application/json")


def info_answer(state: ApiState) -> bytes:
    """The ``/info`` body: the route's, and the app's fast path's (``storyloom.api.app``).

    Small reads of the store, done on the event loop (a worker-thread hop would cost more than
    the work; the store's readers never wait for its writer, in WAL mode). The body is kept
    until the next committed change (or another user name). Raises what the route answers as
    an error (``ApiError`` 503 without a project, a ``StoreError``).
    """
    project = state.project()
    cache = state.info_cache
    # The seq of the cache key, the settings and the name: one moment.
    with read_snapshot(project) as snapshot:
        user = state.username()
        key = (id(project), project.id, *_store_state(project, snapshot), user)
        if cache["key"] != key:
            cache["body"], cache["key"] = _info_body(project, user), key
        body: bytes = cache["body"]
    return body


def _store_state(project: ProjectLike, snapshot: Any) -> tuple[Any, int]:
    """The store's instance and update sequence: what tells whether ``/info``'s body may be kept.

    Read from the snapshot the answer is read in (the two values ``Database.info`` reads, without
    the counts it reads too: this runs on every request); a store whose snapshot reads no
    metadata answers through ``info()``.
    """
    meta = getattr(snapshot, "meta", None)
    if meta is None:
        db_state = project.db.info()
        return db_state.get("instance_uuid"), db_state.get("update_seq")
    return meta("instance_uuid"), int(meta("update_seq", "0") or 0)


def _info_body(project: ProjectLike, user: str | None) -> bytes:
    settings = project.settings() or {}
    return bytes(JsonResponse({
        "app": {"name": storyloom.APP_NAME, "version": storyloom.__version__},
        "apiVersion": API_VERSION,
        "user": {"username": user},
        "project": {
            "id": project.id,
            "name": project.name,
            "description": settings.get("projectDescription"),
            "version": settings.get("projectVersion"),
            "settings": info_settings(settings),
        },
        "collections": list(EXPORT_NAMES),
    }).body)


# ------------------------------------------------------------------ /game-export, /schema-export
_EXPORT_RESPONSES = {200: {"content": {"application/json": {"schema": {"type": "object"}}}},
                     **error_responses(*COMMON, 400, 503)}


def _collections_query() -> Any:
    return Query(
        None,
        description=(
            "Export names separated by commas (spaces around names are ignored), e.g. `Scripts,Dialogues`. "
            "Without it, the project's export sections. Valid names: " + ", ".join(EXPORT_NAMES) + "."
        ),
        json_schema_extra={"pattern": COLLECTIONS_PATTERN},
    )


def _compat_query() -> Any:
    return Query(
        None,
        description=(
            "Compatibility mode: `drafft` adds `_meta.drafftVersion` (`" + DRAFFT_VERSION + "`), which "
            "Drafft's engine importers check before loading a file (the schema then requires it); `none` "
            "is the plain export even when the project's `exportCompat` setting names a mode. Without "
            "it, the project's setting (off when unset). Allowed values: " + ", ".join(COMPAT_VALUES) + "."
        ),
    )


def _export_input(request: Request, state: State, *more: str) -> tuple[ProjectLike, list[str] | None, str | None]:
    """What both exports check, in this order: the parameters (``collections``, ``compat`` and
    ``more``), ``collections``, ``compat``, the project."""
    reject_unknown(request, "collections", "compat", *more)
    names = state.collections(request)
    try:
        compat = parse_compat(single(request, "compat"))
    except UnknownCompat as exc:
        raise E.bad_parameter("compat", str(exc)) from None
    return state.project(), names, compat


def _locale_query() -> Any:
    return Query(
        None,
        description=(
            "The language of the text: a target locale of the project (`targetLocales`; case aside). "
            "Translated speech lines and choice options hold their translation, the others the source "
            "text; `_meta.localization` counts them. The source locale, or no `locale`: the source text."
        ),
    )


@route(
    "/game-export",
    summary="The game export of the project",
    description="The same JSON as `storyloom export` (one code path), streamed.",
    response_model=None,
    responses=_EXPORT_RESPONSES,
    tags=["project"],
)
def game_export(
    request: Request, state: State, collections: str | None = _collections_query(),
    compat: str | None = _compat_query(), locale: str | None = _locale_query(),
) -> Response:
    project, names, mode = _export_input(request, state, "locale")
    try:
        tag = export_locale(project.settings() or {}, single(request, "locale"))
    except UnknownExportLocale as exc:
        raise E.bad_parameter("locale", str(exc)) from None
    return _sent(request, state.exports.game_export(project, names, state.username(), compat=mode, locale=tag))


def _sent(request: Request, answer: ExportAnswer) -> Response:
    """An export's answer, built (or found in the export cache) in the worker thread, so every
    error was still an error answer; sent in pieces from the spools or the held bytes (memory
    stays bounded)."""
    headers = {"content-length": str(answer.size)}
    if request.method == "HEAD":
        answer.close()
        return StreamingResponse(no_body(), media_type="application/json", headers=headers)
    if answer.in_memory:  # held bytes: sent from the event loop, no thread hop per piece
        return StreamingResponse(_pieces_of(answer), media_type="application/json", headers=headers)
    return StreamingResponse(iter(answer), media_type="application/json", headers=headers)


async def _pieces_of(answer: ExportAnswer) -> AsyncIterator[bytes]:
    for piece in answer:
        yield piece


@route(
    "/schema-export",
    summary="JSON Schema (2020-12) of the game export",
    description="Same `collections` filter, `compat` mode and errors as `/game-export`.",
    response_model=None,
    responses=_EXPORT_RESPONSES,
    tags=["project"],
)
def schema_export(
    request: Request, state: State, collections: str | None = _collections_query(),
    compat: str | None = _compat_query(),
) -> Response:
    project, names, mode = _export_input(request, state)
    return _sent(request, state.exports.schema_export(project, names, compat=mode))


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
    responses={200: {"model": NavigateBody}, **error_responses(*COMMON, 400, 404, 409, 503, navigate=True)},
    tags=["app"],
)
def navigate(
    request: Request,
    state: State,
    id: str | None = Query(None, description="The id of the document to open (required; ids starting "
                                             "with `_` are design, `_local` or reserved ids: 400).",
                           json_schema_extra={"pattern": DOCUMENT_ID_PATTERN}),
) -> Response:
    # Every error of this endpoint has "success": false (error_response adds it by path).
    reject_unknown(request, "id")
    doc_id = check_id(single(request, "id"))
    project = state.project()
    target = resolve(project.db, doc_id)
    body = {"success": True, "id": target.id, "collection": target.collection, "route": target.route}
    where = {"success": False, "id": target.id, "collection": target.collection, "route": target.route}
    if state.navigation is None:
        raise ApiError(
            409, E.NAVIGATION_UNAVAILABLE,
            "no desktop app is attached to this server (headless `storyloom serve`): nothing can "
            "open the document",
            **where,
        )
    if request.method == "HEAD":  # safe: checks what GET checks, never asks the app to open anything
        return JsonResponse(body)
    try:
        accepted = state.navigation.navigate(target.route, target.id)
    except NavigationRefused as exc:
        raise ApiError(409, E.NAVIGATION_UNAVAILABLE, f"the app could not open the document: {exc}",
                       **where) from None
    if accepted is False:
        raise ApiError(409, E.NAVIGATION_UNAVAILABLE, "the app refused to open the document", **where)
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
        "(server stopping, project closed). In the desktop app, `event: sync` (no `id`) carries the "
        "state of the project's sync service: its latest state when the stream opens, then every change."
    ),
    response_model=None,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
               **error_responses(*COMMON, 400, 503)},
    tags=["project"],
)
async def events(
    request: Request,
    state: State,
    last_event_id: str | None = Header(
        None, alias="Last-Event-ID",
        description="The `id` of the last event received: the stream resumes after that seq.",
        json_schema_extra={"pattern": LAST_EVENT_ID_PATTERN},
    ),
) -> Response:
    reject_unknown(request)
    since = parse_last_event_id(last_event_id)
    project = state.project()
    current = project.db.info()["update_seq"]  # also: a closed store answers 503
    headers = {"x-accel-buffering": "no"}
    if request.method == "HEAD":  # the headers of the stream, which is not opened
        return StreamingResponse(no_body(), media_type="text/event-stream", headers=headers)
    return StreamingResponse(state.hub.stream(project, since, current), media_type="text/event-stream",
                             headers=headers)
