"""The ASGI application: ``create_app`` puts the endpoints, the error mapping and the
middlewares together.

The endpoints are module-level functions (:mod:`~storyloom.api.endpoints`,
:mod:`~storyloom.api.dump`, :mod:`~storyloom.api.attachments`, :mod:`~storyloom.api.openapi`)
that read what they need from the :class:`~storyloom.api.state.ApiState` kept on
``app.state.api``. The result is wrapped in :class:`ProtectionMiddleware`; the server
(:mod:`storyloom.api.server`) runs it on uvicorn, tests may also call it directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from storyloom.api.attachments import AttachmentPathMiddleware, attachment
from storyloom.api.dump import db_dump
from storyloom.api.endpoints import API_VERSION, events, game_export, info, info_answer, navigate, schema_export
from storyloom.api.events import EventHub
from storyloom.api.navigation import NavigationPort
from storyloom.api.openapi import openapi_document
from storyloom.api.protection import ProtectionMiddleware, ProtectionSettings
from storyloom.api.provider import ProjectProvider
from storyloom.api.responses import CatchAllMiddleware, add_error_handlers
from storyloom.api.state import ApiState, add_route
from storyloom.export import ExportCache

# In this order in the OpenAPI document.
ROUTES = (openapi_document, info, game_export, schema_export, db_dump, navigate, events, attachment)

DESCRIPTION = (
    "The local REST API of Storyloom. Every endpoint but `/openapi.json` needs the `x-api-key` "
    "header. Every error is `{\"error\": code, \"reason\": text}`. Every endpoint answers GET "
    "and HEAD (HEAD: the same status and headers, no body). Errors are checked in this order: "
    "Host (403), Origin (403), key (401), path (404), method (405), query parameters (400), "
    "loaded project (503), then what depends on the project's content. See docs/api.md."
)


def create_app(
    provider: ProjectProvider,
    protection: ProtectionSettings,
    *,
    username: Callable[[], str | None] = lambda: None,
    navigation: NavigationPort | None = None,
    exports: ExportCache | None = None,
    hub: EventHub | None = None,
) -> ProtectionMiddleware:
    """The API as an ASGI app. ``username`` is read on each ``/info`` and export (``exportedBy``);
    ``exports`` answers the exports (default: a new :class:`~storyloom.export.cache.ExportCache`)."""
    app = FastAPI(
        title="Storyloom local API",
        version=API_VERSION,
        description=DESCRIPTION,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,  # `/info/` is an unknown path (404), not a redirect to `/info`
    )
    app.state.api = ApiState(
        provider=provider,
        exports=exports if exports is not None else ExportCache(),
        hub=hub or EventHub(provider),
        username=username,
        navigation=navigation,
    )
    app.add_middleware(CatchAllMiddleware)
    add_error_handlers(app)
    for endpoint in ROUTES:
        add_route(app, endpoint)
    return ProtectionMiddleware(InfoFastPath(AttachmentPathMiddleware(app), app.state.api), protection)


class InfoFastPath:
    """``GET /info`` without a query string, answered without FastAPI's routing, parameter
    checks and dependency solving (which cost more than the answer: a game or a tool polls it).

    It sits behind :class:`ProtectionMiddleware` (Host, Origin, key: every check still runs) and
    answers what the route answers: the same body (:func:`~storyloom.api.endpoints.info_answer`)
    and headers. Anything else, and any failure (no project, a store error), goes on to the app,
    which answers it as always, errors included.
    """

    def __init__(self, app: Any, state: ApiState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (scope["type"] == "http" and scope["path"] == "/info" and scope["method"] == "GET"
                and not scope.get("query_string")):
            try:
                body = info_answer(self.state)
            except Exception:  # noqa: BLE001 - the route answers it (and its error) as it always has
                pass
            else:
                await send({
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")],
                })
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
