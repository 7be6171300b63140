"""Store errors carry CouchDB's error name, reason and HTTP status.

Upper layers (API, sync) map them to responses without guessing.
"""

from __future__ import annotations

from storyloom.errors import Fix, StoryloomError


class StoreError(StoryloomError):
    """Base class: ``error`` is CouchDB's error name, ``status`` its HTTP status."""

    code = "store_error"
    status = 500
    error = "internal_error"

    def __init__(self, reason: str = "", *, error: str | None = None, status: int | None = None,
                 fix: Fix | None = None) -> None:
        super().__init__(reason, fix=fix)
        #: CouchDB's reason: the cause, then the fix in neutral words.
        self.reason = str(self)
        if error is not None:
            self.error = error
        if status is not None:
            self.status = status

    def to_json(self) -> dict[str, str]:
        return {"error": self.error, "reason": self.reason}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.error!r}, {self.reason!r})"


class BadRequest(StoreError):
    code = "bad_request"
    status = 400
    error = "bad_request"


class Forbidden(StoreError):
    code = "forbidden"
    status = 403
    error = "forbidden"


class NotFound(StoreError):
    """``reason`` is ``missing`` (never existed) or ``deleted`` (winner is a tombstone)."""

    code = "not_found"
    status = 404
    error = "not_found"

    def __init__(
        self, reason: str = "missing", *, error: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(reason, error=error, status=status)


class Conflict(StoreError):
    code = "conflict"
    status = 409
    error = "conflict"

    def __init__(
        self, reason: str = "Document update conflict.", *, error: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(reason, error=error, status=status)


class MissingStub(StoreError):
    code = "missing_stub"
    status = 412
    error = "missing_stub"


class DatabaseClosed(StoreError):
    """The database was closed (e.g. its project was closed) and can no longer be used."""

    code = "db_closed"
    status = 500
    error = "db_closed"

    def __init__(
        self, reason: str = "Database is closed", *, error: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(reason, error=error, status=status)


class NotAStore(StoreError):
    """A file that is not a Storyloom store (missing, not SQLite, or another program's SQLite
    file); it is left as it was."""

    code = "not_a_store"
    status = 400
    error = "not_a_store"


def damaged_item(doc_id: str | None, attachment: str | None) -> str:
    """What is damaged, in words: an attachment of a document, a document, or the store file."""
    if doc_id is not None and attachment is not None:
        return f"attachment {attachment!r} of document {doc_id!r}"
    if doc_id is not None:
        return f"document {doc_id!r}"
    return "the store file"


class Damaged(StoreError):
    """Part of a store cannot be read back as it was written: flipped bits, a bad disk, a copy
    cut short. It names the store and, when known, the document or attachment; ``detail`` says
    what was wrong, never the document's text. Nothing a person did caused it, and it is not a
    bug: the way back is another copy (a backup, the server, a salvage of what still reads):
    the fix ``recover_damaged``. ``reason`` is the cause alone."""

    code = "damaged"
    fixes = ("recover_damaged",)
    status = 500
    error = "damaged"

    def __init__(self, store: str, *, doc_id: str | None = None, attachment: str | None = None,
                 detail: str = "") -> None:
        self.store = store
        self.doc_id = doc_id
        self.attachment = attachment
        self.detail = detail
        reason = f"{damaged_item(doc_id, attachment)} in {store} is damaged" + (f" ({detail})" if detail else "")
        super().__init__(reason, fix=Fix("recover_damaged"))
        self.reason = reason

    def to_json(self) -> dict[str, str]:
        body = {"error": self.error, "reason": self.reason}
        if self.doc_id is not None:
            body["docId"] = self.doc_id
        if self.attachment is not None:
            body["attachment"] = self.attachment
        return body


class DiskFull(StoreError):
    """A write found the disk full. The transaction was rolled back: nothing of this change was
    saved and everything acknowledged before it is intact. The fix: ``free_disk_space``."""

    code = "disk_full"
    fixes = ("free_disk_space",)
    status = 507
    error = "disk_full"

    def __init__(self, path: str, *, reading: bool = False) -> None:
        self.path = path
        self.reading = reading
        done = "the store cannot be opened, and nothing was changed" if reading else "the change was not saved"
        super().__init__(f"the disk holding {path} is full: {done}", fix=Fix("free_disk_space", path=path))
