"""Store errors carry CouchDB's error name, reason and HTTP status.

Upper layers (API, sync) map them to responses without guessing.
"""

from __future__ import annotations

from storyloom.errors import StoryloomError


class StoreError(StoryloomError):
    """Base class: ``error`` is CouchDB's error name, ``status`` its HTTP status."""

    status = 500
    error = "internal_error"

    def __init__(self, reason: str = "", *, error: str | None = None, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        if error is not None:
            self.error = error
        if status is not None:
            self.status = status

    def to_json(self) -> dict[str, str]:
        return {"error": self.error, "reason": self.reason}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.error!r}, {self.reason!r})"


class BadRequest(StoreError):
    status = 400
    error = "bad_request"


class Forbidden(StoreError):
    status = 403
    error = "forbidden"


class NotFound(StoreError):
    """``reason`` is ``missing`` (never existed) or ``deleted`` (winner is a tombstone)."""

    status = 404
    error = "not_found"

    def __init__(self, reason: str = "missing", **kwargs: object) -> None:
        super().__init__(reason, **kwargs)  # type: ignore[arg-type]


class Conflict(StoreError):
    status = 409
    error = "conflict"

    def __init__(self, reason: str = "Document update conflict.", **kwargs: object) -> None:
        super().__init__(reason, **kwargs)  # type: ignore[arg-type]


class MissingStub(StoreError):
    status = 412
    error = "missing_stub"


class DatabaseClosed(StoreError):
    """The database was closed (e.g. its project was closed) and can no longer be used."""

    status = 500
    error = "db_closed"

    def __init__(self, reason: str = "Database is closed", **kwargs: object) -> None:
        super().__init__(reason, **kwargs)  # type: ignore[arg-type]


class NotAStore(StoreError):
    """A file that is not a Storyloom store (missing, not SQLite, or another program's SQLite
    file); it is left as it was."""

    status = 400
    error = "not_a_store"
