"""The face of :mod:`storyloom.store`: read by :func:`lazy_loader.attach_stub` (each name is
imported from its module at first use, so a quick CLI verb pays only for what it touches)
and by type checkers."""

from .database import (
    Database as Database,
)
from .documents import (
    LOCAL_PREFIX as LOCAL_PREFIX,
    attachment_digest as attachment_digest,
    validate_doc_id as validate_doc_id,
)
from .errors import (
    BadRequest as BadRequest,
    Conflict as Conflict,
    Damaged as Damaged,
    DatabaseClosed as DatabaseClosed,
    DiskFull as DiskFull,
    Forbidden as Forbidden,
    MissingStub as MissingStub,
    NotAStore as NotAStore,
    NotFound as NotFound,
    StoreError as StoreError,
)
