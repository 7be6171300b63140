"""A damaged project, where a person meets it: the offer of the ways back (a dialog), and in an
open project's window a status-bar warning for documents that cannot be read.

The offer comes from :func:`storyloom.app.views.recovery.recovery_for`; the work runs on a worker
thread. The project manager opens the dialog when a project fails to open as damaged; the
window's warning opens it when documents of the open project are damaged.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QPushButton,
    QToolButton,
    QWidget,
)

from storyloom.app.views.recovery import Recovery, recovery_for, salvage_summary
from storyloom.gui import icons, theme
from storyloom.gui.host import WindowHost
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import dialog_layout
from storyloom.project import salvage_project
from storyloom.store import Damaged
from storyloom.words import counted

SALVAGE = "salvage"
#: How long the window's status bar shows what the way back did.
RESULT_SHOWN_MS = 30_000
RESTORE = "restore"


class DamagedProjectDialog(QDialog):
    """What is damaged and the ways back: Salvage (the default), Restore the newest automatic
    backup (when there is one), or Cancel. :attr:`choice` is ``"salvage"``, ``"restore"`` or None."""

    def __init__(self, recovery: Recovery, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("damaged-project")
        self.setWindowTitle(f"“{recovery.project_name}” is damaged")
        self.setMinimumWidth(560)
        self.choice: str | None = None
        layout, heading = dialog_layout(self, "This project's store is damaged", recovery.text,
                                        icon=icons.icon("warning", theme.colors().danger), muted=False,
                                        spacing=theme.M)
        self.text = heading.intro
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        buttons.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        buttons.addWidget(cancel)
        self.restore_button: QPushButton | None = None
        if recovery.newest_backup is not None:
            self.restore_button = QPushButton(icons.icon("auto-backup"), "Restore the newest backup")
            self.restore_button.setToolTip(f"Restores the backup of {recovery.newest_backup.local_time()} as "
                                           f"“{recovery.backup_name}”")
            self.restore_button.clicked.connect(lambda: self._choose(RESTORE))
            buttons.addWidget(self.restore_button)
        self.salvage_button = QPushButton(icons.icon("salvage"), f"Salvage into “{recovery.salvage_name}”")
        self.salvage_button.setDefault(True)
        self.salvage_button.setProperty("primary", "true")
        self.salvage_button.clicked.connect(lambda: self._choose(SALVAGE))
        buttons.addWidget(self.salvage_button)
        layout.addLayout(buttons)

    def _choose(self, choice: str) -> None:
        self.choice = choice
        self.accept()


def recovery_work(manager: Any, recovery: Recovery, choice: str, progress: Any = None) -> tuple[str, str]:
    """The chosen way back, run on a worker: ``(new project id, what it did in words)``."""
    if choice == RESTORE and recovery.newest_backup is not None:
        from storyloom.app.auto_backups import restore_backup

        with restore_backup(manager, recovery.newest_backup, recovery.backup_name or recovery.salvage_name,
                            progress=progress) as project:
            return project.id, f"Restored the backup of {recovery.newest_backup.local_time()} as “{project.name}”."
    project, report = salvage_project(manager, recovery.project_id, recovery.salvage_name, progress=progress)
    with project:
        return project.id, salvage_summary(project.name, report)


class DamageNotice(QObject):
    """The window's warning for damaged documents (left out of the tree): a status-bar button
    that opens the offer; it runs the chosen way back and says what it did."""

    def __init__(self, host: WindowHost) -> None:
        super().__init__(host.widget)
        self.host = host
        self.task: Task | None = None
        self.said = ""
        self.button = QToolButton()
        self.button.setObjectName("damage-notice")
        self.button.setAutoRaise(True)
        self.button.setIcon(icons.icon("warning", theme.colors().danger))
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.clicked.connect(self.offer)
        self.button.hide()
        host.status.addPermanentWidget(self.button)
        self.damaged: set[str] = set()
        host.tabs.damaged.connect(lambda doc_id: self.refresh({doc_id}))
        host.bridge.documents_changed.connect(lambda _changes: self.refresh())
        self.refresh()

    def refresh(self, more: set[str] | None = None) -> None:
        """Show the warning when the project index left documents out as damaged."""
        self.damaged |= set(self.host.session.index.damaged) | (more or set())
        count = len(self.damaged)
        if count:
            self.button.setText(counted(count, "damaged document"))
            self.button.setToolTip("These documents cannot be read and are left out of the tree. "
                                   "Click for the ways back.")
        self.button.setVisible(bool(count))

    def offer(self) -> DamagedProjectDialog:
        session = self.host.session
        manager = self.host.workspace.manager
        info = manager.find(session.project.id)
        names = sorted(self.damaged)
        damage = (f"{counted(len(names), 'document')} cannot be read ("
                  + ", ".join(names[:5]) + (", …" if len(names) > 5 else "") + ")")
        recovery = recovery_for(manager, info, damage)
        dialog = DamagedProjectDialog(recovery, self.host.widget)
        dialog.finished.connect(lambda _code: self._chosen(dialog, recovery))
        dialog.open()
        return dialog

    def _chosen(self, dialog: DamagedProjectDialog, recovery: Recovery) -> None:
        choice = dialog.choice
        dialog.deleteLater()
        if choice is None or self.task is not None:
            return
        manager = self.host.workspace.manager
        self.task = Task(lambda: recovery_work(manager, recovery, choice), "Recovering…", self)
        self.task.succeeded.connect(self._done)
        self.task.failed.connect(self._failed)
        self.task.finished.connect(self._finished)
        self.button.setEnabled(False)
        self.button.setText("Recovering…")
        self.task.start()

    def _finished(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self.button.setEnabled(True)
        self.refresh()

    def _done(self, result: tuple[str, str]) -> None:
        _project_id, said = result
        self.said = f"{said} Open it from the project list (File > Close Project)."
        self.host.show_message(self.said, RESULT_SHOWN_MS)

    def _failed(self, exc: BaseException) -> None:
        self.said = f"The way back failed: {exc}"
        self.host.show_message(self.said, RESULT_SHOWN_MS)


def offer_recovery(owner: Any, info: Any, error: Damaged) -> DamagedProjectDialog:
    """The project manager's offer for a project that did not open as damaged; the chosen way
    back runs on its worker (``owner._start``) with its progress, then selects the new project."""
    manager = owner.manager
    recovery = recovery_for(manager, info, error.detail or str(error))
    dialog = DamagedProjectDialog(recovery, owner)

    def chosen(_code: int) -> None:
        choice = dialog.choice
        dialog.deleteLater()
        if choice is None:
            return
        progress = owner._progress("Recovering")

        def done(result: tuple[str, str]) -> None:
            owner.refresh(select=result[0])
            owner.show_success(result[1])

        owner._start("Recovering…", lambda: recovery_work(manager, recovery, choice, progress), done,
                     lambda exc: owner.show_error(owner._failure_text("The way back failed", exc)))

    dialog.finished.connect(chosen)
    dialog.open()
    return dialog
