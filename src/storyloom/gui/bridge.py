"""Session events to Qt signals.

The session calls its subscribers on its event thread; widgets may only be touched on the GUI
thread. :class:`SessionBridge` lives on the GUI thread: its subscriber queues each event and
wakes the GUI thread once through a queued signal, which then hands the widgets every event
queued so far in one batch (an import of thousands of documents repaints once, not per document).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal

from storyloom.app import (
    ApiStateChanged,
    DocumentChanged,
    LockBroken,
    LockSettled,
    ProjectSession,
    SessionClosed,
    SessionEvent,
    SyncStateChanged,
)


class SessionBridge(QObject):
    """Re-emits a session's events on the GUI thread.

    - ``documents_changed(list[DocumentChanged])``: a batch, in the session's order;
    - ``api_state_changed(ApiStateChanged)``;
    - ``sync_state_changed(SyncState)``: what the sync service shows now;
    - ``lock_settled(LockNotice)``: a provisional lock settled after reconnecting;
    - ``lock_broken(BrokenLock)``: someone broke this machine's lock (told once per machine);
    - ``session_closed(str)``: the project id.
    """

    documents_changed = Signal(list)
    api_state_changed = Signal(object)
    sync_state_changed = Signal(object)
    lock_settled = Signal(object)
    lock_broken = Signal(object)
    session_closed = Signal(str)
    _wake = Signal()

    def __init__(self, session: ProjectSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: list[SessionEvent] = []
        self._lock = threading.Lock()
        self._woken = False
        # Queued: the slot runs on this object's (the GUI) thread whichever thread emits.
        self._wake.connect(self._drain, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe: Callable[[], None] | None = session.subscribe(self._on_event)

    def _on_event(self, event: SessionEvent) -> None:
        # The session's event thread: queue and wake, never touch a widget here.
        with self._lock:
            self._pending.append(event)
            if self._woken:
                return
            self._woken = True
        self._wake.emit()

    def _drain(self) -> None:
        with self._lock:
            events, self._pending = self._pending, []
            self._woken = False
        changes: list[DocumentChanged] = []
        for event in events:
            if isinstance(event, DocumentChanged):
                changes.append(event)
                continue
            if changes:
                self.documents_changed.emit(changes)
                changes = []
            if isinstance(event, ApiStateChanged):
                self.api_state_changed.emit(event)
            elif isinstance(event, SyncStateChanged):
                self.sync_state_changed.emit(event.state)
            elif isinstance(event, LockSettled):
                self.lock_settled.emit(event.notice)
            elif isinstance(event, LockBroken):
                self.lock_broken.emit(event.record)
            elif isinstance(event, SessionClosed):
                self.session_closed.emit(event.project_id)
        if changes:
            self.documents_changed.emit(changes)

    def flush(self) -> None:
        """Deliver what is queued now (the window calls it before closing)."""
        self._drain()

    def detach(self) -> None:
        """Stop following the session."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
