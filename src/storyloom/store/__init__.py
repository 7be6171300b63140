"""The embedded document store with CouchDB semantics. See docs/store.md."""

from storyloom.store.database import Database
from storyloom.store.documents import LOCAL_PREFIX, attachment_digest, validate_doc_id
from storyloom.store.errors import (
    BadRequest,
    Conflict,
    Damaged,
    DatabaseClosed,
    DiskFull,
    Forbidden,
    MissingStub,
    NotAStore,
    NotFound,
    StoreError,
)

__all__ = [
    "LOCAL_PREFIX",
    "BadRequest",
    "Conflict",
    "Damaged",
    "Database",
    "DatabaseClosed",
    "DiskFull",
    "Forbidden",
    "MissingStub",
    "NotAStore",
    "NotFound",
    "StoreError",
    "attachment_digest",
    "validate_doc_id",
]
