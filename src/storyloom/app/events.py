"""The typed events of a project session, and the bus that delivers them.

Threading rule: every callback runs on the session's event thread, one event at a time, in the
order the events happened (document changes in the store's seq order). A callback must return
quickly and never block on the GUI: the desktop app re-emits each event as a Qt signal, which
queues it to the GUI thread. A callback that raises is logged and the others still run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storyloom.app.locks import LockNotice
    from storyloom.app.sync_state import SyncState
    from storyloom.project import BrokenLock

log = logging.getLogger(__name__)


class Origin(StrEnum):
    """Where a document change came from."""

    LOCAL = "local"  # this session's editor (a person editing, a restore, a conflict resolution)
    IMPORT = "import"  # this session's editor, bringing documents in (an import or a backup restore)
    REMOTE = "remote"  # anything else: replication, or another process writing the same project


@dataclass(frozen=True, slots=True)
class DocumentChanged:
    """One entry of the store's changes feed: the document's winning revision after ``seq``."""

    id: str
    rev: str
    seq: int
    collection: str | None
    deleted: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class ApiStateChanged:
    """The local REST API started (``running`` with its ``url``), stopped, or failed (``error``)."""

    running: bool
    url: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SyncStateChanged:
    """The project's sync service shows something else: ``state`` (a
    :class:`~storyloom.app.sync_state.SyncState`: off, connecting, syncing, idle, offline, error)."""

    state: SyncState


@dataclass(frozen=True, slots=True)
class LockSettled:
    """A provisional lock of this machine was settled once the server answered (after a pull):
    ``notice`` (a :class:`~storyloom.app.locks.LockNotice`) says whether it was confirmed, lost
    (who holds it since when, and the revision that keeps our edits) or released."""

    notice: LockNotice


@dataclass(frozen=True, slots=True)
class LockBroken:
    """Someone broke this machine's lock holder's lock, and this machine sees it for the first
    time (after a pull, or in the server copy a lock call read): ``record`` (a
    :class:`~storyloom.project.locks.BrokenLock`) says who broke it, when, and since when it
    was held. Told once per machine (:mod:`storyloom.app.broken_notices`)."""

    record: BrokenLock


@dataclass(frozen=True, slots=True)
class SessionClosed:
    """The session closed its project; no event follows."""

    project_id: str


SessionEvent = DocumentChanged | ApiStateChanged | SyncStateChanged | LockSettled | LockBroken | SessionClosed
Subscriber = Callable[[SessionEvent], None]


class EventBus:
    """Subscribers of one session. ``publish`` is called from the session's event thread only."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` for every later event; returns the function that unsubscribes."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: SessionEvent) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("session event subscriber %r failed on %r", callback, event)
