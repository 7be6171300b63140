"""Automatic backups in a project's window: the schedule of
:class:`~storyloom.app.auto_backups.AutoBackups` driven by a timer and the session's changes, each
backup written on a worker thread (:class:`~storyloom.gui.tasks.Task`), and the state in the
status bar: writing, the last one, or a failure with its cause (the app goes on; it tries again).

The first check comes a moment after the window opens, so opening shows the project first; then
one a minute. Closing the window stops a backup being written (nothing half-written is kept) and
waits for its thread before the session closes.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QTimer

from storyloom.app import DocumentChanged
from storyloom.app.auto_backups import AutoBackup, AutoBackups, BackupCancelled, Clock, utc_now
from storyloom.gui import theme
from storyloom.gui.host import WindowHost
from storyloom.gui.sync_panel import tone_color
from storyloom.gui.tasks import Task

log = logging.getLogger(__name__)

#: After the window opens, the first check waits this long (the window's own loading first).
FIRST_CHECK_MS = 3000
CHECK_EVERY_MS = 60_000
ICONS = {"muted": "ph.clock-clockwise", "accent": "ph.floppy-disk", "danger": "ph.warning-circle"}


class AutoBackupController(QObject):
    """The window's automatic backups, taken while it is open. :meth:`check` starts one when due
    (returns its task)."""

    def __init__(self, host: WindowHost, *, clock: Clock = utc_now, first_check_ms: int = FIRST_CHECK_MS) -> None:
        super().__init__(host.widget)
        self.host = host
        self.session = host.session
        options = host.workspace.options
        # Read at every step: the Options dialog may change the number while the project is open.
        self.schedule = AutoBackups(self.session.project, keep=lambda: options.auto_backups_keep, clock=clock)
        self.task: Task | None = None
        self._cancel = threading.Event()
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_EVERY_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()
        QTimer.singleShot(first_check_ms, self, self.check)
        host.bridge.documents_changed.connect(self._documents_changed)
        self.show()

    def _documents_changed(self, changes: list[DocumentChanged]) -> None:
        if any(not change.id.startswith("_local/") for change in changes):
            self.schedule.changed()

    def check(self) -> Task | None:
        """Start a backup on a worker thread when one is due; the window goes on meanwhile."""
        if self._stopped or self.session.closed or self.task is not None:
            return None
        job = self.schedule.start()
        if job is None:
            return None
        task = Task(lambda: job.run(self._cancel.is_set), "Automatic backup", self)
        task.succeeded.connect(self._done)
        task.failed.connect(self._failed)
        self.task = task
        task.start()
        self.show()
        return task

    def _finish(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None

    def _done(self, backup: AutoBackup) -> None:
        self._finish()
        if not self._stopped:
            log.info("automatic backup written: %s", backup.path)
            self.show()

    def _failed(self, exc: BaseException) -> None:
        self._finish()  # the schedule knows the failure (with its cause) and when to try again
        if not self._stopped and not isinstance(exc, BackupCancelled):
            log.warning("automatic backup failed: %s", exc)
            self.show()

    def show(self) -> None:
        """The state in the status bar."""
        if self._stopped:
            return
        view = self.schedule.status()
        color = tone_color(view.tone) if view.tone != "muted" else theme.colors().muted
        self.host.status.set_backup(view.visible, view.text, view.tooltip, ICONS.get(view.tone, ICONS["muted"]),
                                      color)

    def stop(self) -> None:
        """The window closes: a backup being written stops (nothing is kept of it) and its
        thread ends before the session closes."""
        self._stopped = True
        self._timer.stop()
        self._cancel.set()
        if self.task is not None:
            self.task.wait()
