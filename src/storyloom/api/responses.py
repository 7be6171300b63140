"""JSON answers and the error mapping: every error, raised anywhere, becomes the documented
``{"error", "reason"}`` body with its status.

:func:`add_error_handlers` maps what handlers raise (``ApiError``, the store's ``StoreError``)
and what routing and validation raise (unknown path, wrong method, bad parameter);
:class:`CatchAllMiddleware` turns anything else into a 500 body.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from storyloom.api import errors as E
from storyloom.api.errors import ApiError
from storyloom.api.state import ALLOW, ENDPOINTS
from storyloom.errors import StoryloomError
from storyloom.store.codec import escape_surrogates
from storyloom.store.errors import StoreError

log = logging.getLogger(__name__)


class JsonResponse(Response):
    """Compact UTF-8 JSON (``json.dumps`` with no padding); faster than pydantic round trips."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        # (a lone surrogate, which UTF-8 cannot hold, as its \u escape)
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return escape_surrogates(text).encode("utf-8")


def error_response(exc: ApiError, path: str | None = None) -> JsonResponse:
    return JsonResponse(exc.body(path), status_code=exc.status)


async def no_body() -> AsyncIterator[bytes]:
    """The body of a HEAD answer that GET streams: nothing (the headers are GET's)."""
    return
    yield b""  # pragma: no cover - makes this an async generator


def store_api_error(exc: StoreError) -> ApiError:
    """The API's answer to a store error (:func:`storyloom.api.errors.api_error`), logged when the
    store is damaged or the disk full."""
    answer = E.api_error(exc)
    if answer.code == E.DAMAGED:
        # The id and the store name the damage; the document's text never reaches the log.
        log.error("the store is damaged: %s", answer.reason)
    elif answer.code == E.DISK_FULL:
        log.error("%s", answer.reason)
    return answer


# Starlette types a handler as taking any Exception; each one here is registered for the classes
# it narrows to.

async def _raised_error(request: Request, exc: Exception) -> Response:
    """An ``ApiError`` a handler raised, or a ``StoreError`` from the store, as its error body."""
    assert isinstance(exc, ApiError | StoreError)
    error = exc if isinstance(exc, ApiError) else store_api_error(exc)
    return error_response(error, request.url.path)


async def _routing_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404 (no such path) and 405 (wrong method), with the endpoints and methods there are."""
    assert isinstance(exc, StarletteHTTPException)
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


async def _validation_error(request: Request, exc: Exception) -> Response:
    """FastAPI's parameter validation (422 by default): a 400 naming the first bad parameter."""
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    name = str((first.get("loc") or ("?",))[-1])
    return error_response(E.bad_parameter(name, str(first.get("msg", "invalid value"))), request.url.path)


def add_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _raised_error)
    app.add_exception_handler(StarletteHTTPException, _routing_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StoreError, _raised_error)


class StreamCut(StoryloomError):
    """A streamed answer cannot be finished (the store is damaged past its first chunk)."""

    code = "stream_cut"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
        except StreamCut as cut:
            # Damage met mid-stream: one line naming it, then the connection closes before the
            # body's last chunk, so no client takes the part sent for a whole answer.
            log.error("%s stopped after part of its answer was sent: %s", scope.get("path"), cut.reason)
            return
        except Exception as exc:
            log.exception("unexpected error on %s", scope.get("path"))
            if started:
                raise  # the answer is half sent: only closing the connection tells the client
            response = error_response(ApiError(
                500, E.INTERNAL_ERROR, f"unexpected error ({type(exc).__name__}); see Storyloom's log",
            ), scope.get("path"))
            await response(scope, receive, send)
