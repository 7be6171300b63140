"""The API's errors: one status and one ``{"error", "reason"}`` body each.

``ERRORS`` is the single table the handlers, the OpenAPI document and ``docs/api.md`` agree
on: a client can switch on ``error`` (stable code) and show ``reason`` (text a person can act
on). Every ``/navigate`` error, whatever its status (the gate's 401 and 403 included), also
carries ``"success": false`` (and ``id`` when one was given), so a client reading ``success``
never has to look at the status first.

:func:`api_error` is the API's explainer of a Storyloom error (``docs/errors.md``): the status
and ``error`` from the error's ``code`` (:data:`ANSWERS`), the ``reason`` from its ``cause`` and
its fix in neutral words (:meth:`storyloom.errors.Fix.words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storyloom.errors import Fix, StoryloomError


@dataclass(frozen=True)
class ErrorSpec:
    status: int
    code: str
    description: str


# Stable error codes (the ``error`` member of every error body).
UNAUTHORIZED = "unauthorized"
FORBIDDEN_HOST = "forbidden_host"
FORBIDDEN_ORIGIN = "forbidden_origin"
NOT_FOUND = "not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"
BAD_REQUEST = "bad_request"
UNKNOWN_COLLECTIONS = "unknown_collections"
NOT_NAVIGABLE = "not_navigable"
NO_PROJECT = "no_project"
NAVIGATION_UNAVAILABLE = "navigation_unavailable"
INTERNAL_ERROR = "internal_error"
DAMAGED = "damaged"
DISK_FULL = "disk_full"
# Answered by the connection layer (storyloom.api.wire), before a request reaches the app.
REQUEST_TIMEOUT = "request_timeout"
TOO_MANY_CONNECTIONS = "too_many_connections"

ERRORS: tuple[ErrorSpec, ...] = (
    ErrorSpec(400, BAD_REQUEST, "A query parameter is missing, unknown or has a bad value; `reason` names it. "
              "Also `x-api-key` sent twice, and requests the HTTP layer cannot parse."),
    ErrorSpec(400, UNKNOWN_COLLECTIONS, "`collections` names an unknown collection or is empty; "
              "`reason` lists the valid names."),
    ErrorSpec(400, NOT_NAVIGABLE, "`/navigate`: the id is a design document, a `_local` id, a folder "
              "or another document that does not open in a tab."),
    ErrorSpec(401, UNAUTHORIZED, "The `x-api-key` header is missing or wrong (one answer for both)."),
    ErrorSpec(403, FORBIDDEN_HOST, "The `Host` header is not a loopback name with the server's port "
              "(DNS-rebinding protection)."),
    ErrorSpec(403, FORBIDDEN_ORIGIN, "The request has an `Origin` header that is not on the allowlist "
              "(no CORS unless origins are allowed explicitly)."),
    ErrorSpec(404, NOT_FOUND, "Unknown path, or no document with this id (`/navigate`, `/attachments`), "
              "or no attachment with this name (`/attachments`)."),
    ErrorSpec(405, METHOD_NOT_ALLOWED, "The path exists but not for this method (every endpoint answers GET "
              "and HEAD; see the `Allow` header)."),
    ErrorSpec(408, REQUEST_TIMEOUT, "The request line and headers did not all arrive within the head "
              "timeout (10 s by default); the connection is closed."),
    ErrorSpec(409, NAVIGATION_UNAVAILABLE, "`/navigate`: no desktop app is attached (headless `serve`) "
              "or the app could not open the document."),
    ErrorSpec(500, DAMAGED, "The project's store is damaged where the answer had to read: `reason` names "
              "the store, and `docId` (and `attachment`) the damaged item when known. Not a bug: run "
              "`storyloom check PROJECT`, then restore a backup or salvage the project."),
    ErrorSpec(500, INTERNAL_ERROR, "A bug in Storyloom; the reason says what failed."),
    ErrorSpec(503, NO_PROJECT, "No project is loaded in the app."),
    ErrorSpec(503, TOO_MANY_CONNECTIONS, "The server holds its limit of open connections (256 by default); the new "
              "connection is answered at once and closed. Retry when some connections have closed."),
    ErrorSpec(507, DISK_FULL, "The disk holding the project's store is full; free space and retry."),
)

REASON_UNAUTHORIZED = (
    "missing or wrong API key: send the key shown in Storyloom's options (or given to "
    "`storyloom serve`) in the x-api-key header"
)
REASON_TWO_KEYS = (
    "the x-api-key header is sent more than once: send the key once (one x-api-key header holding "
    "the key)"
)
REASON_NO_PROJECT = "no project is loaded: open a project in Storyloom, then retry"

# Paths whose every error body also carries ``"success": false``.
SUCCESS_FLAG_PATHS = frozenset({"/navigate"})


class ApiError(StoryloomError):
    """Raised by handlers; rendered as ``{"error": code, "reason": reason, **extra}``."""

    code = "api_error"

    def __init__(self, status: int, code: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.code = code
        self.reason = reason
        self.extra = extra

    def body(self, path: str | None = None) -> dict[str, Any]:
        """The JSON body; on a :data:`SUCCESS_FLAG_PATHS` path it always has ``success: false``."""
        return error_body(self.code, self.reason, path, **self.extra)


def error_body(code: str, reason: str, path: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"error": code, "reason": reason, **extra}
    if path in SUCCESS_FLAG_PATHS:
        body.setdefault("success", False)
    return body


#: The API's answer to a Storyloom error, by its code: the status and the body's ``error``. A
#: store error of another code answers 400 ``bad_request`` when its status is 400 (a bad option),
#: else 500 ``internal_error``.
ANSWERS: dict[str, tuple[int, str]] = {
    "db_closed": (503, NO_PROJECT),  # the project closed under the request
    "damaged": (500, DAMAGED),
    "disk_full": (507, DISK_FULL),
    "unknown_collections": (400, UNKNOWN_COLLECTIONS),
    # /game-export checks ?locale= itself and names the parameter; this is the answer anywhere else.
    "unknown_export_locale": (400, BAD_REQUEST),
}
#: Whose fix the reason says (the others' reason is the cause alone: a damaged store's way back
#: is the app's or the command line's, not a client's).
SAID_FIXES = frozenset({"free_disk_space"})


def fix_words(fix: Fix) -> str:
    """A fix in the API's words: the neutral ones."""
    return fix.words()


def reason_of(error: StoryloomError) -> str:
    """The ``reason`` of ``error``'s body: its cause, then its fix when a client can act on it."""
    fix = error.fix
    if fix is not None and fix.action in SAID_FIXES:
        return f"{error.cause}; {fix_words(fix)}"
    return error.cause


def api_error(error: StoryloomError) -> ApiError:
    """The API's answer to ``error`` (see :data:`ANSWERS`); a damaged item is named in ``docId``
    and ``attachment``."""
    if isinstance(error, ApiError):
        return error
    status, code = ANSWERS.get(error.code, (0, ""))
    if code == NO_PROJECT:
        return ApiError(status, code, REASON_NO_PROJECT)
    if code == DAMAGED:
        extra = {k: v for k in ("docId", "attachment")
                 if (v := getattr(error, "doc_id" if k == "docId" else k, None)) is not None}
        return ApiError(status, code, reason_of(error), **extra)
    if code:
        return ApiError(status, code, reason_of(error))
    if getattr(error, "status", None) == 400:
        return ApiError(400, BAD_REQUEST, reason_of(error))
    reason = getattr(error, "reason", error)
    return ApiError(500, INTERNAL_ERROR, f"store error: {getattr(error, 'error', '?')}: {reason}")


def bad_parameter(name: str, problem: str) -> ApiError:
    """A 400 whose reason starts with the parameter's name, e.g. ``limit: expected ...``."""
    return ApiError(400, BAD_REQUEST, f"invalid query parameter '{name}': {problem}")


class ApiStartError(StoryloomError):
    """The server could not start; the message says why and what to do."""

    code = "api_start_failed"
