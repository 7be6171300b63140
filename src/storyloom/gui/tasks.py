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
    ``finished``. ``label`` says what runs, in the words a busy indicator shows."""

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
