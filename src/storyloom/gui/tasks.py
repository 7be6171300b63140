"""Long work off the GUI thread: :class:`Task` runs one function in a ``QThread`` and reports
its result or its exception through signals, which Qt queues to the GUI thread (the receivers
live there), so no widget is ever touched from the worker."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

log = logging.getLogger(__name__)


class Task(QThread):
    """``fn()`` on a worker thread. Connect ``succeeded(result)`` and ``failed(exception)`` to
    methods of GUI objects, then :meth:`start`; exactly one of them is emitted, then
    ``finished``. ``label`` says what runs, in the words a busy indicator shows. Once its result
    is handled, :meth:`release` it (the one teardown: wait for the thread, then delete it)."""

    succeeded = Signal(object)
    failed = Signal(object)

    def __init__(self, fn: Callable[[], Any], label: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fn = fn
        self.label = label
        self.setObjectName(f"storyloom-task: {label}")

    def run(self) -> None:
        try:
            result = self._fn()
        except Exception as exc:  # every failure reaches the widget that asked (failed), none kills the thread
            if not getattr(exc, "__module__", "").startswith("storyloom."):
                log.exception("task %r failed", self.label)
            self.failed.emit(exc)
        else:
            self.succeeded.emit(result)

    def release(self, timeout_ms: int | None = None) -> bool:
        """Let the task go: wait for its thread to end (at most ``timeout_ms``; ``None``: as
        long as it takes), then delete it on the GUI thread's next turn (``deleteLater``), as
        its signals may still be queued there. A thread still running after the timeout is
        deleted when it ends instead (deleting a running ``QThread`` aborts the process).
        True when it had ended."""
        ended = self.wait() if timeout_ms is None else self.wait(timeout_ms)
        if ended or not self.isRunning():
            self.deleteLater()
            return True
        self.finished.connect(self.deleteLater)
        if self.isFinished():  # it ended meanwhile, perhaps before the connection (twice is safe)
            self.deleteLater()
        return False
