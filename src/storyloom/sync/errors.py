"""Typed errors of the replication engine.

Every error raised by the remote client or the replicator is a :class:`SyncError`. HTTP
errors keep the server's ``error`` and ``reason`` (taken from the JSON body, or from the
page title when a proxy answers with HTML, such as nginx's 413 page) and the ``status``.
"""

from __future__ import annotations

from typing import Any

from storyloom.errors import Fix, StoryloomError

# CouchDB-style error names for statuses whose body carried no usable ``error`` field.
STATUS_ERROR_NAMES: dict[int, str] = {
    300: "redirect",
    301: "redirect",
    302: "redirect",
    303: "redirect",
    307: "redirect",
    308: "redirect",
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    409: "conflict",
    412: "precondition_failed",
    413: "too_large",
    415: "bad_content_type",
    416: "requested_range_not_satisfiable",
    417: "expectation_failed",
    429: "too_many_requests",
    500: "internal_server_error",
    502: "bad_gateway",
    503: "service_unavailable",
    504: "gateway_timeout",
}


class SyncError(StoryloomError):
    """Base class of every sync failure. ``message`` is meant for the user (the cause, then the
    fix in neutral words)."""

    code = "sync_error"
    #: Whether retrying later (with backoff) can help.
    retryable: bool = False

    def __init__(self, message: str, *, fix: Fix | None = None) -> None:
        super().__init__(message, fix=fix)
        self.message = str(self)

    def to_json(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "message": self.message}


class InvalidRemote(SyncError, ValueError):
    """A malformed server URL or database name (raised before any request is sent)."""

    code = "invalid_remote"
    fixes = ("credentials_apart", "give_username")


class Cancelled(SyncError):
    """The replication was cancelled by the caller."""

    code = "sync_cancelled"


class NetworkError(SyncError):
    """The server could not be reached or the connection broke; retryable."""

    code = "network_error"
    retryable = True

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.method = method
        self.url = url

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data.update({"method": self.method, "url": self.url})
        return data


class RemoteTimeout(NetworkError):
    """The server did not answer within the client's timeout."""

    code = "remote_timeout"


class RemoteError(SyncError):
    """The server answered with an HTTP error status."""

    code = "remote_error"

    def __init__(
        self,
        status: int,
        error: str,
        reason: str,
        *,
        method: str = "",
        url: str = "",
        message: str | None = None,
    ) -> None:
        self.status = status
        self.error = error
        self.reason = reason
        self.method = method
        self.url = url
        # A server error, a timeout or throttling may pass (an attribute like the base class's,
        # not a property: a read-only property cannot override a writable attribute).
        self.retryable = status >= 500 or status in (408, 429)
        if message is None:
            message = f"{method} {url} failed: {status} {error}"
            if reason:
                message += f": {reason}"
        super().__init__(message)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data.update(
            {
                "status": self.status,
                "error": self.error,
                "reason": self.reason,
                "method": self.method,
                "url": self.url,
            }
        )
        return data


class Redirected(RemoteError):
    """3xx: the server (often a proxy sending http:// to https://) redirects the request.

    Redirects are never followed (credentials and request bodies would be re-sent to another
    place without the user choosing it): ``location`` is where the server points, and the
    fix is to use ``suggested_url`` as the remote. Not retryable.
    """

    code = "redirected"
    fixes = ("use_server", "fix_remote")

    def __init__(
        self,
        status: int,
        error: str,
        reason: str,
        *,
        method: str = "",
        url: str = "",
        location: str | None = None,
        suggested_url: str | None = None,
    ) -> None:
        super().__init__(status, error, reason, method=method, url=url)
        self.location = location
        #: The remote URL to use instead (the database URL derived from ``location``).
        self.suggested_url = suggested_url
        self.fix = Fix("use_server", url=suggested_url) if suggested_url else Fix("fix_remote")

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["location"] = self.location
        data["suggested_url"] = self.suggested_url
        return data


class RemoteBadRequest(RemoteError):
    """400."""

    code = "remote_bad_request"


class RemoteUnauthorized(RemoteError):
    """401: credentials are missing or wrong (pouchdb-server also uses it for non-members)."""

    code = "remote_unauthorized"


class RemoteForbidden(RemoteError):
    """403: the credentials are valid but lack a permission."""

    code = "remote_forbidden"


class RemoteNotFound(RemoteError):
    """404."""

    code = "remote_not_found"


class RemoteConflict(RemoteError):
    """409."""

    code = "remote_conflict"


class RemotePreconditionFailed(RemoteError):
    """412 (``file_exists`` on database creation, ``missing_stub`` on ``_bulk_docs``)."""

    code = "remote_precondition_failed"


class RequestTooLarge(RemoteError):
    """413: the request body exceeded a proxy's or the server's size limit."""

    code = "request_too_large"


class RemoteServerError(RemoteError):
    """5xx."""

    code = "remote_server_error"


_STATUS_CLASSES: dict[int, type[RemoteError]] = {
    400: RemoteBadRequest,
    401: RemoteUnauthorized,
    403: RemoteForbidden,
    404: RemoteNotFound,
    409: RemoteConflict,
    412: RemotePreconditionFailed,
    413: RequestTooLarge,
}


def error_class_for(status: int) -> type[RemoteError]:
    if status in _STATUS_CLASSES:
        return _STATUS_CLASSES[status]
    if status >= 500:
        return RemoteServerError
    return RemoteError


class AccessDenied(SyncError):
    """A database-level 401 or 403: says which credential or permission is missing. The fix
    follows ``action``: the credentials given again, membership, the database created."""

    code = "access_denied"
    fixes = ("retype_credentials", "add_member", "create_database")

    def __init__(self, message: str, refused: RemoteError | None = None, *, action: str = "read",
                 username: str | None = None, database: str | None = None) -> None:
        if action == "credentials":
            fix = Fix("retype_credentials", username=username)
        elif action == "create":
            fix = Fix("create_database", database=database)
        else:
            fix = Fix("add_member", username=username, database=database)
        super().__init__(message, fix=fix)
        #: The server's answer (its status, error and reason), when one came.
        self.refused = refused
        #: What was refused: ``credentials`` (none given, or rejected), ``read``, ``write``
        #: or ``create``.
        self.action = action

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["action"] = self.action
        if self.refused is not None:
            data["status"] = self.refused.status
            data["error"] = self.refused.error
            data["reason"] = self.refused.reason
        return data


class DatabaseMissing(SyncError):
    """The remote database does not exist and may not (or should not) be created."""

    code = "database_missing"
    fixes = ("create_database",)


class BatchFailed(SyncError):
    """A batch could not be completed (a document could not be fetched or written);
    it is not checkpointed, so a retry starts again before it."""

    code = "batch_failed"
    retryable = True


#: What is known to drop replicated writes while acknowledging them (docs/protocol.md section 6).
DROPPED_WRITES_CAUSE = (
    "pouchdb-server 4.2's validation plug-in (pouchdb-validation) drops replicated writes "
    "(_bulk_docs with new_edits:false) when the database has a validate function, such as "
    "Storyloom's lock rules, and still answers 201"
)


class WritesDropped(SyncError):
    """The target acknowledged a batch of replicated revisions but does not hold some of them
    (its ``_revs_diff`` still lists them as missing right after the write).

    The revisions stay pending (the checkpoint does not pass them), so the next sync sends
    them again. Not retryable within the run: resending to the same server drops them again,
    and the network is not at fault. The fix: upgrade or fix the server."""

    code = "writes_dropped"
    fixes = ("upgrade_server",)

    def __init__(self, server: str, dropped: dict[str, list[str]]) -> None:
        self.server = server
        #: Document id -> the revisions the server acknowledged but does not hold.
        self.dropped = dropped
        self.count = sum(len(revs) for revs in dropped.values())
        doc_id, revs = next(iter(dropped.items()))
        message = (
            f"the server {server} acknowledged {self.count} replicated revision(s) but did not keep them "
            f"(e.g. {doc_id!r} {revs[0]}). Known cause: {DROPPED_WRITES_CAUSE}. The {self.count} revision(s) "
            "stay on this machine and are sent again by the next sync"
        )
        super().__init__(message, fix=Fix("upgrade_server"))

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data.update({"server": self.server, "count": self.count,
                     "examples": [{"id": i, "rev": r[0]} for i, r in list(self.dropped.items())[:5]]})
        return data
