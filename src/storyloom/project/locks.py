"""The lock policy the editor's gate asks before every write.

The gate does not know how locks are kept or taken: it asks a :class:`LockPolicy`, which the
session injects. :class:`NoLocks` allows every write (a project used alone, imports, tests);
the team-projects work provides a policy that reads ``locked``/``lockedBy`` and takes locks on
the server.
"""

from __future__ import annotations

from typing import Any, Protocol

from storyloom.errors import StoryloomError


class LockRefused(StoryloomError):
    """A write to a document that someone else holds the lock of."""

    def __init__(self, doc_id: str, holder: str, message: str | None = None) -> None:
        self.doc_id = doc_id
        self.holder = holder
        super().__init__(
            message
            or f"document {doc_id!r} is locked by {holder}: ask them to unlock it, or wait until they do"
        )


class LockPolicy(Protocol):
    def check_write(self, doc: dict[str, Any], intent: str, previous: dict[str, Any] | None, username: str) -> None:
        """Return to allow the write of ``doc`` (``previous`` is the current revision or None);
        raise :class:`LockRefused` to refuse it."""
        ...


class NoLocks:
    """Every write is allowed."""

    def check_write(self, doc: dict[str, Any], intent: str, previous: dict[str, Any] | None, username: str) -> None:
        return None
