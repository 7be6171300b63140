"""What the endpoints share: the app state (:class:`ApiState`), how they are declared, and the
query checks they run first.

``create_app`` keeps one :class:`ApiState` on ``app.state.api``; every endpoint receives it as
its ``state`` parameter (:data:`State`, a FastAPI dependency that adds nothing to the OpenAPI
document). Endpoints are module-level functions declared with :func:`route` where they are
defined and registered, in the order ``create_app`` lists them, by :func:`add_route`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request

from storyloom.api import errors as E
from storyloom.api.errors import UNKNOWN_COLLECTIONS, ApiError
from storyloom.api.events import EventHub
from storyloom.api.navigation import NavigationPort
from storyloom.api.provider import ProjectProvider
from storyloom.export import ExportCache, UnknownCollections, parse_collections
from storyloom.project import ProjectLike

ENDPOINTS = ("/info", "/game-export", "/schema-export", "/db-dump", "/navigate", "/attachments/{doc_id}/{name}",
             "/events", "/openapi.json")
METHODS = ("GET", "HEAD")  # every endpoint: HEAD answers what GET would, without the body (RFC 9110)
ALLOW = ", ".join(METHODS)
_ROUTE = "api_route"  # the attribute :func:`route` puts on an endpoint


@dataclass
class ApiState:
    """What the endpoints read: the project, the export cache that answers the exports, the desktop
    app's port, the SSE hub.

    ``username`` is read on each ``/info`` and export (``exportedBy``). ``info_cache`` holds
    the last ``/info`` body and its key; ``openapi_body`` the OpenAPI document, built once.
    """

    provider: ProjectProvider
    exports: ExportCache
    hub: EventHub
    username: Callable[[], str | None]
    navigation: NavigationPort | None = None
    info_cache: dict[str, Any] = field(default_factory=lambda: {"key": None, "body": b""})
    openapi_body: bytes | None = None

    def project(self) -> ProjectLike:
        """The loaded project; ``ApiError`` 503 when none is."""
        project = self.provider.current_project()
        if project is None:
            raise ApiError(503, E.NO_PROJECT, E.REASON_NO_PROJECT)
        return project

    def collections(self, request: Request) -> list[str] | None:
        """The export names of the ``collections`` parameter(s); ``None`` when it is not given;
        ``ApiError`` 400 when a name is not one."""
        values = request.query_params.getlist("collections")
        if not values:
            return None
        try:
            # Export names are ASCII: refuse what case folding would map onto them ("ſcripts"),
            # so the OpenAPI document's pattern is exactly what is accepted.
            unknown = [part.strip() for value in values for part in value.split(",") if not part.strip().isascii()]
            if unknown:
                raise UnknownCollections(unknown)
            return list(parse_collections(values if len(values) > 1 else values[0], None))
        except UnknownCollections as exc:
            raise ApiError(400, UNKNOWN_COLLECTIONS, f"collections: {exc}") from None


async def api_state(request: Request) -> ApiState:
    """The app's :class:`ApiState`; a coroutine, so resolving it never hops to a worker thread."""
    state: ApiState = request.app.state.api
    return state


State = Annotated[ApiState, Depends(api_state)]


def route(path: str, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the endpoint's path and its ``add_api_route`` options (summary, responses...)."""
    def declare(func: Callable[..., Any]) -> Callable[..., Any]:
        setattr(func, _ROUTE, (path, options))
        return func
    return declare


def add_route(app: FastAPI, endpoint: Callable[..., Any]) -> None:
    """Register ``endpoint`` for GET and, as its own operation (own operationId), for HEAD."""
    path, options = getattr(endpoint, _ROUTE)
    for method in METHODS:
        app.add_api_route(path, endpoint, methods=[method], **options)


def reject_unknown(request: Request, *allowed: str) -> None:
    """``ApiError`` 400 naming the first query parameter that is not one of ``allowed``."""
    for name in request.query_params:
        if name not in allowed:
            accepted = ", ".join(allowed) if allowed else "no parameters"
            raise E.bad_parameter(name, f"unknown parameter; this endpoint accepts {accepted}")


def single(request: Request, name: str) -> str | None:
    """The one value of query parameter ``name`` (``None`` when absent); 400 when given twice."""
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise E.bad_parameter(name, "given more than once")
    return values[0] if values else None
