"""The project manager: the window the app opens on. It lists the projects on this machine
(name, description, documents, last change) and creates, opens, renames, deletes, imports
(Drafft backups), backs up and restores them (from a file, or one of a project's automatic
backups in two clicks); recent projects sit in the sidebar.

The window sends intents to the Qt-free layers (``ProjectManager``, ``import_backup``,
``RecentProjects``) and shows their answers: errors in the banner over the list, never as a
traceback. Imports, backups and restores run on a worker thread (:class:`~storyloom.gui.tasks.Task`)
with a busy banner, so the window stays responsive.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

import storyloom
from storyloom.app import Workspace
from storyloom.app.auto_backups import list_backups, restored_name
from storyloom.app.recent import RecentProjects
from storyloom.app.views.explain import say
from storyloom.drafft import import_backup
from storyloom.drafft.report import ImportReport, ImportWouldDropError
from storyloom.errors import StoryloomError
from storyloom.gui import icons, theme
from storyloom.gui.damaged_project import offer_recovery
from storyloom.gui.project_manager_dialogs import (
    AutoBackupsDialog,
    ImportReportDialog,
    ProjectNameDialog,
    confirm_delete,
)
from storyloom.gui.project_table import (  # noqa: F401 - relative_time: the tests read it here
    DESCRIPTION,
    DOCUMENTS,
    MODIFIED,
    NAME,
    SORT_ROLE,
    ProjectTableModel,
    relative_time,
)
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import ActionButton, Banner, EmptyState, set_role
from storyloom.progress import Progress, ProgressCallback
from storyloom.project import (
    SAMPLE_NAME,
    DamagedAttachmentsError,
    ProjectExists,
    ProjectSummary,
    backup_file_name,
    create_sample_project,
    display_name,
    project_summary,
)
from storyloom.store import Damaged
from storyloom.words import counted

log = logging.getLogger(__name__)

#: ``opener(workspace, project_id, parent=None) -> MainWindow``: how a project gets its window.
Opener = Callable[..., Any]
MAX_RECENT_SHOWN = 5


def open_project_window(workspace: Workspace, project: str, parent: QWidget | None = None) -> Any:
    """The main window's opener, imported when first used (the main window is the heavier module)."""
    from storyloom.gui.main_window import open_project_window as opener

    return opener(workspace, project, parent)


class ProjectManagerWindow(QMainWindow):
    """The projects on this machine. ``opener`` opens a project's window (by default
    :func:`storyloom.gui.main_window.open_project_window`); tests pass their own.
    ``last_window_closed`` is emitted when the list closes with no project window open."""

    last_window_closed = Signal()
    # The worker's progress, as banner text (emitted on the worker thread, shown on the GUI's).
    work_progress = Signal(str)

    def __init__(
        self,
        workspace: Workspace,
        opener: Opener | None = None,
        recent: RecentProjects | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.manager = workspace.manager
        self.opener: Opener = opener or open_project_window
        self.recent = recent or RecentProjects()
        self.windows: dict[str, Any] = {}  # project id -> its open window
        self.task: Task | None = None
        self._quitting = False
        self.setObjectName("project-manager")
        self.setWindowTitle("Projects — Storyloom")
        self.setMinimumSize(880, 560)
        self.resize(1180, 720)
        self._make_actions()
        self._build()
        self.work_progress.connect(self._show_progress)
        self.refresh()

    # ------------------------------------------------------------------ building
    def _action(self, text: str, role: str, shortcut: str | QKeySequence.StandardKey | None,
                slot: Callable[[], object], tip: str) -> QAction:
        action = QAction(icons.icon(role), text, self)
        action.setProperty("iconRole", role)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        return action

    def _make_actions(self) -> None:
        self.new_action = self._action("New project…", "new", "Ctrl+N", self.new_project, "Create an empty project")
        self.sample_action = self._action("New sample project", "document", "Ctrl+Shift+N", self.create_sample,
                                          "Create the sample story, an example in every collection, to explore")
        self.import_action = self._action("Import Drafft backup…", "import", "Ctrl+I", self.import_drafft,
                                          "Import a Drafft backup (.json) as a new project")
        self.restore_action = self._action("Restore a backup…", "restore", "Ctrl+Shift+O", self.restore_backup,
                                           "Restore a Storyloom backup as a project")
        self.join_action = self._action("Join a project from a server…", "sync", "Ctrl+J", self.join_from_server,
                                        "Copy a team's project from its CouchDB server (your invitation has the "
                                        "URL, user name and password)")
        self.open_action = self._action("Open", "open", None, self.open_selected, "Open the selected project (Enter)")
        self.rename_action = self._action("Rename…", "rename", "F2", self.rename_selected,
                                          "Rename the selected project")
        self.backup_action = self._action("Back up…", "backup", "Ctrl+B", self.backup_selected,
                                          "Save a backup file of the selected project")
        self.auto_backups_action = self._action(
            "Automatic backups…", "auto-backup", "Ctrl+Shift+B", self.show_auto_backups,
            "The selected project's automatic backups: restore one as a new project")
        self.delete_action = self._action("Delete…", "delete", QKeySequence.StandardKey.Delete, self.delete_selected,
                                          "Delete the selected project from this machine")
        self.reopen_action = self._action("Reopen last project", "recent", "Ctrl+R", self.reopen_last,
                                          "Open the project you opened last")
        self.find_action = self._action("Find", "search", "Ctrl+F", self._focus_filter, "Filter the projects")
        self.refresh_action = self._action("Refresh", "restore", "F5", self.refresh, "Read the project list again")
        self.quit_action = self._action("Quit", "close", "Ctrl+Q", self._quit, "Quit Storyloom")
        self.dismiss_action = self._action("Dismiss", "close", "Esc", self._dismiss_banner, "Dismiss the message")
        self.selection_actions = (self.open_action, self.rename_action, self.backup_action, self.auto_backups_action,
                                  self.delete_action)

    def _build(self) -> None:
        root = QWidget()
        layout = QHBoxLayout(root)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_sidebar())
        layout.addWidget(self._build_main(), 1)
        self.setCentralWidget(root)

    def _build_sidebar(self) -> QFrame:
        sidebar = QFrame()
        set_role(sidebar, "sidebar")
        sidebar.setFixedWidth(292)
        box = QVBoxLayout(sidebar)
        box.setContentsMargins(theme.L, theme.XL, theme.L, theme.L)
        box.setSpacing(theme.XS)
        brand = QHBoxLayout()
        brand.setSpacing(theme.S)
        logo = QLabel()
        logo.setPixmap(icons.icon("app", theme.colors().accent).pixmap(28, 28))
        brand.addWidget(logo)
        brand.addWidget(set_role(QLabel("Storyloom"), "heading"))
        brand.addStretch(1)
        box.addLayout(brand)
        box.addWidget(set_role(QLabel("Narrative design for game teams"), "caption"))
        box.addSpacing(theme.XL)
        for action in (self.new_action, self.sample_action, self.import_action, self.restore_action,
                       self.join_action):
            box.addWidget(ActionButton(action))
        box.addSpacing(theme.XL)
        self.recent_heading = set_role(QLabel("RECENT"), "caption")
        box.addWidget(self.recent_heading)
        box.addSpacing(theme.XS)
        self.recent_box = QVBoxLayout()
        self.recent_box.setSpacing(2)
        box.addLayout(self.recent_box)
        box.addStretch(1)
        box.addWidget(set_role(QLabel(f"Storyloom {storyloom.__version__}"), "caption"))
        return sidebar

    def _build_main(self) -> QWidget:
        main = QWidget()
        box = QVBoxLayout(main)
        box.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.XL)
        box.setSpacing(theme.L)
        header = QHBoxLayout()
        header.setSpacing(theme.M)
        header.addWidget(set_role(QLabel("Projects"), "title"))
        self.count_label = set_role(QLabel(""), "caption")
        header.addWidget(self.count_label, 0, Qt.AlignmentFlag.AlignBottom)
        header.addStretch(1)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter projects  (Ctrl+F)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.addAction(icons.icon("search", theme.colors().muted), QLineEdit.ActionPosition.LeadingPosition)
        self.filter_edit.setFixedWidth(280)
        header.addWidget(self.filter_edit)
        box.addLayout(header)
        self.banner = Banner()
        box.addWidget(self.banner)

        self.model = ProjectTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterKeyColumn(-1)
        self.filter_edit.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView()
        self.table.setObjectName("project-table")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(MODIFIED, Qt.SortOrder.DescendingOrder)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(40)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        head = self.table.horizontalHeader()
        head.setHighlightSections(False)
        head.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Interactive)
        head.setSectionResizeMode(DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(DOCUMENTS, QHeaderView.ResizeMode.Fixed)
        head.setSectionResizeMode(MODIFIED, QHeaderView.ResizeMode.Fixed)
        head.resizeSection(NAME, 300)
        head.resizeSection(DOCUMENTS, 120)
        head.resizeSection(MODIFIED, 170)
        self.table.activated.connect(self._open_index)
        self.table.selectionModel().selectionChanged.connect(self._update_actions)

        self.empty = EmptyState(
            icons.icon("project", theme.colors().muted),
            "No projects yet",
            "Create one (Ctrl+N), explore the sample story (Ctrl+Shift+N), import a Drafft backup (Ctrl+I) "
            "or restore a Storyloom backup (Ctrl+Shift+O).",
        )
        self.empty.setObjectName("empty-state")
        self.empty.add_button(self.new_action, primary=True)
        self.empty.add_button(self.sample_action)
        self.empty.add_button(self.import_action)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)
        box.addWidget(self.stack, 1)

        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        self.hint_label = set_role(QLabel("Double-click or press Enter to open a project"), "caption")
        buttons.addWidget(self.hint_label)
        buttons.addStretch(1)
        self.buttons: dict[str, QPushButton] = {}
        for key, action in (("delete", self.delete_action), ("auto-backups", self.auto_backups_action),
                            ("backup", self.backup_action), ("rename", self.rename_action), ("open", self.open_action)):
            button = QPushButton(action.icon(), action.text())
            shortcut = action.shortcut().toString()
            button.setToolTip(f"{action.toolTip()}" + (f" ({shortcut})" if shortcut else ""))
            button.clicked.connect(action.trigger)
            action.enabledChanged.connect(button.setEnabled)
            self.buttons[key] = button
            buttons.addWidget(button)
        self.buttons["open"].setProperty("primary", "true")
        self.buttons["open"].setIcon(icons.icon("open", theme.colors().accent_text))
        self.buttons["open"].setDefault(True)
        self.action_bar = QWidget()
        self.action_bar.setLayout(buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.action_bar)
        return main

    # ------------------------------------------------------------------ state
    def refresh(self, select: str | None = None) -> None:
        """Read the project list again (keeping the selection, or selecting project ``select``)."""
        keep = select or self.selected_id()
        try:
            infos = self.manager.list()
        except (StoryloomError, OSError) as exc:
            infos = []
            self.show_error(f"Cannot list the projects: {say(exc)}")
        self.model.set_rows([project_summary(info) for info in infos])
        count = len(infos)
        self.count_label.setText(counted(count, "project") if count else "")
        self.stack.setCurrentWidget(self.table if count else self.empty)
        self.action_bar.setVisible(bool(count))
        self.filter_edit.setVisible(bool(count))
        if keep:
            self.select(keep)
        elif count and not self.table.selectionModel().hasSelection():
            self.table.selectRow(0)
        self._refresh_recent({info.id for info in infos})
        self._update_actions()

    def _refresh_recent(self, existing: set[str]) -> None:
        while self.recent_box.count():
            item = self.recent_box.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        names = {row.info.id: row.info.name for row in self.model.rows}
        entries = self.recent.existing(existing)[:MAX_RECENT_SHOWN]
        self.recent_heading.setVisible(bool(entries))
        self.reopen_action.setEnabled(bool(entries))
        for position, entry in enumerate(entries):
            name = display_name(names.get(entry.id, entry.name))
            button = QPushButton(icons.icon("recent", theme.colors().muted), name)
            button.setProperty("flat", "true")
            button.setObjectName(f"recent-{entry.id}")
            button.setToolTip(f"Open {name}" + (" (Ctrl+R)" if position == 0 else ""))
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(partial(self.open_project, entry.id))
            self.recent_box.addWidget(button)

    def selected_summary(self) -> ProjectSummary | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.model.summary(self.proxy.mapToSource(rows[0]).row())

    def selected_id(self) -> str | None:
        summary = self.selected_summary()
        return summary.info.id if summary else None

    def select(self, project_id: str) -> bool:
        for row, summary in enumerate(self.model.rows):
            if summary.info.id == project_id:
                index = self.proxy.mapFromSource(self.model.index(row, NAME))
                if index.isValid():
                    self.table.selectRow(index.row())
                    self.table.scrollTo(index)
                    return True
        return False

    def _update_actions(self, *_: object) -> None:
        has = self.selected_summary() is not None
        busy = self.task is not None
        for action in self.selection_actions:
            action.setEnabled(has and not busy)
        self.open_action.setEnabled(has)
        for action in (self.new_action, self.import_action, self.restore_action, self.join_action):
            action.setEnabled(not busy)

    def _focus_filter(self) -> None:
        if self.filter_edit.isVisible():
            self.filter_edit.setFocus()
            self.filter_edit.selectAll()

    # ------------------------------------------------------------------ banner
    def show_error(self, text: str, action: str | None = None, on_action: Callable[[], None] | None = None) -> None:
        """``text`` in the banner, with a button ``action`` that hides it and calls ``on_action``."""
        if action is None or on_action is None:
            self.banner.show_message("error", text)
            return

        def run() -> None:
            self.banner.clear()
            on_action()

        self.banner.show_message("error", text, (action, run))

    def show_success(self, text: str) -> None:
        self.banner.show_message("success", text)

    def _dismiss_banner(self) -> None:
        if self.banner.isVisible() and self.banner.kind != "busy":
            self.banner.clear()
        elif self.filter_edit.hasFocus() and self.filter_edit.text():
            self.filter_edit.clear()

    # ------------------------------------------------------------------ intents
    def new_project(self) -> None:
        dialog = ProjectNameDialog(self.manager, title="New project", accept_text="Create",
                                   with_description=True, parent=self)
        accepted = dialog.exec()
        name, description = dialog.name, dialog.description
        dialog.deleteLater()
        if accepted:
            self.create_project(name, description)

    def create_project(self, name: str, description: str = "") -> str | None:
        """Create a project (the id, or None with the reason in the banner)."""
        try:
            project = self.manager.create(name, description)
        except StoryloomError as exc:
            self.show_error(f"Cannot create “{name}”: {say(exc)}")
            return None
        project.close()
        self.banner.clear()
        self.refresh(select=project.id)
        return project.id

    def rename_selected(self) -> None:
        summary = self.selected_summary()
        if summary is None:
            return
        if summary.info.id in self.windows:
            self.show_error(f"“{summary.info.name}” is open: rename it from its window, or close it first.")
            return
        dialog = ProjectNameDialog(self.manager, title="Rename project", accept_text="Rename",
                                   name=summary.info.name, except_id=summary.info.id, parent=self)
        accepted = dialog.exec()
        name = dialog.name
        dialog.deleteLater()
        if accepted:
            self.rename_project(summary.info.id, name)

    def rename_project(self, project_id: str, new_name: str) -> bool:
        try:
            name = self.manager.rename(project_id, new_name)
        except StoryloomError as exc:
            self.show_error(f"Cannot rename the project: {say(exc)}")
            return False
        self.recent.rename(project_id, name)
        self.banner.clear()
        self.refresh(select=project_id)
        return True

    def delete_selected(self) -> None:
        summary = self.selected_summary()
        if summary is None:
            return
        if summary.info.id in self.windows:
            self.show_error(f"“{summary.info.name}” is open: close its window before deleting it.")
            return
        if confirm_delete(self, display_name(summary.info.name), summary.documents):
            self.delete_project(summary.info.id)

    def delete_project(self, project_id: str) -> bool:
        try:
            info = self.manager.find(project_id)
            self.manager.delete(project_id)
        except (StoryloomError, OSError) as exc:
            self.show_error(f"Cannot delete the project: {say(exc)}")
            return False
        self.recent.forget(project_id)
        self.refresh()
        self.show_success(f"Deleted “{display_name(info.name)}”.")
        return True

    # -- open ----------------------------------------------------------------------------------
    def _open_index(self, index: QModelIndex) -> None:
        self.open_project(self.model.summary(self.proxy.mapToSource(index).row()).info.id)

    def open_selected(self) -> None:
        project_id = self.selected_id()
        if project_id:
            self.open_project(project_id)

    def reopen_last(self) -> None:
        entry = self.recent.last(row.info.id for row in self.model.rows)
        if entry is not None:
            self.open_project(entry.id)

    def open_project(self, name_or_id: str) -> bool:
        """Open a project's window (or bring it forward when open); the manager then hides.
        On failure the manager shows the reason and stays; returns whether a window is open."""
        try:
            info = self.manager.find(name_or_id)
        except StoryloomError as exc:
            self.show_error(f"Cannot open {name_or_id!r}: {say(exc)}")
            return False
        window = self.windows.get(info.id)
        if window is None:
            try:
                window = self.opener(self.workspace, info.id, parent=None)
            except Damaged as exc:  # the ways back, offered at once
                offer_recovery(self, info, exc)
                return False
            except StoryloomError as exc:
                self.show_error(f"Cannot open “{display_name(info.name)}”: {say(exc)}")
                return False
            except Exception as exc:  # a bug: say so without a traceback; the log has it
                log.exception("opening project %s failed", info.id)
                self.show_error(
                    f"Cannot open “{display_name(info.name)}”: an internal error stopped it "
                    f"({type(exc).__name__}: {exc}). This is a bug in Storyloom; please report it."
                )
                return False
            self.windows[info.id] = window
            closed = getattr(window, "closed", None)
            if closed is not None:
                closed.connect(partial(self._window_closed, info.id))
        self.recent.record(info.id, info.name)
        self.banner.clear()
        window.show()
        window.raise_()
        window.activateWindow()
        self.hide()
        return True

    def _window_closed(self, project_id: str) -> None:
        self.windows.pop(project_id, None)
        if self._quitting or self.windows:
            return
        # The last project closed: back to the list (its counts may have changed).
        self.refresh(select=project_id)
        self.show()
        self.raise_()

    # -- long work on a worker thread ----------------------------------------------------------
    def _start(self, label: str, fn: Callable[[], Any], done: Callable[[Any], None],
               failed: Callable[[BaseException], None]) -> Task:
        task = Task(fn, label, self)
        self.task = task
        self._on_done, self._on_failed = done, failed
        task.succeeded.connect(self._task_succeeded)
        task.failed.connect(self._task_failed)
        self.banner.show_message("busy", label)
        self._update_actions()
        task.start()
        return task

    def _progress(self, label: str) -> ProgressCallback:
        """A progress callback for the worker: ``label`` and documents done out of the total."""
        def report(event: Progress) -> None:
            count = f"{event.done:,}" + (f" of {event.total:,}" if event.total is not None else "")
            self.work_progress.emit(f"{label} {event.detail or event.phase}: {count} {event.unit}")
        return report

    def _show_progress(self, text: str) -> None:
        if self.task is not None:
            self.banner.show_message("busy", text)

    def _task_succeeded(self, result: Any) -> None:
        self._finish_task()
        self._on_done(result)

    def _task_failed(self, exc: BaseException) -> None:
        self._finish_task()
        self._on_failed(exc)

    def _finish_task(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self.banner.clear()
        self._update_actions()

    def _failure_text(self, what: str, exc: BaseException) -> str:
        if isinstance(exc, StoryloomError | OSError):
            return f"{what}: {say(exc)}"
        return f"{what}: an internal error stopped it ({type(exc).__name__}: {exc}). This is a bug; please report it."

    # -- the sample story -------------------------------------------------------------------------
    def create_sample(self) -> Task:
        """Create the built-in sample project on a worker thread, then select it."""
        manager = self.manager
        name = manager.unique_name(SAMPLE_NAME)

        def work() -> str:
            with create_sample_project(manager, name) as project:
                return project.id

        return self._start(f"Creating the sample story “{name}”…", work, self._sample_done,
                           partial(self._sample_failed, name))

    def _sample_done(self, project_id: str) -> None:
        self.refresh(select=project_id)
        self.show_success("Created the sample story: open it to see an example in every collection.")

    def _sample_failed(self, name: str, exc: BaseException) -> None:
        self.show_error(self._failure_text(f"Could not create the sample project “{name}”", exc))

    # -- import --------------------------------------------------------------------------------
    def import_drafft(self) -> None:
        file, _ = QFileDialog.getOpenFileName(self, "Import a Drafft backup", str(Path.home()),
                                              "Drafft backups (*.json);;All files (*)")
        if file:
            self.start_import(Path(file))

    def start_import(self, file: Path, *, allow_skips: bool = False, accept_damaged: bool = False) -> Task:
        """Import ``file`` on a worker thread; the report dialog follows (or the reason)."""
        manager, progress = self.manager, self._progress(f"Importing {file.name}…")

        def work() -> tuple[str, ImportReport]:
            project, report = import_backup(manager, file, allow_skips=allow_skips, progress=progress,
                                            accept_damaged=accept_damaged)
            with project:
                return project.id, report

        return self._start(f"Importing {file.name}… A large project takes a few seconds.", work,
                           self._import_done, partial(self._import_failed, file, allow_skips, accept_damaged))

    def _import_done(self, result: tuple[str, ImportReport]) -> None:
        project_id, report = result
        self.refresh(select=project_id)
        self.show_success(f"Imported “{display_name(report.project_name)}” from {report.source}.")
        dialog = ImportReportDialog(report, self)
        accepted = dialog.exec()
        dialog.deleteLater()
        if accepted:
            self.open_project(project_id)

    def _import_failed(self, file: Path, allow_skips: bool, accept_damaged: bool, exc: BaseException) -> None:
        if isinstance(exc, DamagedAttachmentsError):
            self.show_error(f"Nothing was imported: {exc.in_short()}. Import anyway to keep them as they are "
                            "(the report lists each), or import another backup.", "Import anyway",
                            partial(self.start_import, file, allow_skips=allow_skips, accept_damaged=True))
            return
        if isinstance(exc, ImportWouldDropError):
            count = len(exc.dropped)
            self.show_error(
                f"Nothing was imported: {counted(count, 'entry', 'entries')} of {file.name} cannot be "
                f"kept (first: {exc.dropped[0].id}: {exc.dropped[0].reason}). Import the rest and see them "
                "listed in the report, or fix the backup.",
                "Import the rest", partial(self.start_import, file, allow_skips=True, accept_damaged=accept_damaged),
            )
            return
        self.show_error(self._failure_text(f"Cannot import {file.name}", exc))

    # -- backup and restore --------------------------------------------------------------------
    def backup_selected(self) -> None:
        summary = self.selected_summary()
        if summary is None:
            return
        suggested = str(Path.home() / backup_file_name(summary.info.name))
        file, _ = QFileDialog.getSaveFileName(self, f"Back up “{summary.info.name}”", suggested,
                                              "Storyloom backups (*.json)")
        if file:  # the save dialog asked before naming an existing file: replacing it is confirmed
            self.start_backup(summary.info.id, Path(file), force=True)

    def start_backup(self, project_id: str, file: Path, *, force: bool = False) -> Task:
        manager, progress = self.manager, self._progress(f"Backing up to {file.name}…")
        return self._start(f"Backing up to {file.name}…",
                           lambda: manager.backup(project_id, file, progress=progress, force=force),
                           lambda written: self.show_success(f"Backed up to {written}."),
                           lambda exc: self.show_error(self._failure_text("Cannot back up the project", exc)))

    def join_from_server(self) -> QWidget:
        """Join a project from a server… (``storyloom clone``): the dialog runs the first pull with
        its progress; the joined project then opens."""
        from storyloom.gui.remote_dialogs import JoinDialog  # loaded when first asked for

        dialog = JoinDialog(self.workspace, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.joined.connect(self._joined)
        dialog.open()
        return dialog

    def _joined(self, result: Any) -> None:
        self.refresh(select=result.project_id)
        self.show_success(f"Joined “{display_name(result.name)}”: {counted(result.docs_written, 'document')} from "
                          f"{result.database_url}.")
        self.open_project(result.project_id)

    def restore_backup(self) -> None:
        file, _ = QFileDialog.getOpenFileName(self, "Restore a Storyloom backup", str(Path.home()),
                                              "Storyloom backups (*.json);;All files (*)")
        if file:
            self.start_restore(Path(file))

    def show_auto_backups(self) -> None:
        """The selected project's automatic backups; Restore makes the chosen one a new project."""
        summary = self.selected_summary()
        if summary is None:
            return
        info = summary.info
        dialog = AutoBackupsDialog(display_name(info.name), list_backups(info.id),
                                   self.workspace.options.auto_backups_keep,
                                   lambda backup: restored_name(self.manager, info.name, backup), self)
        accepted = dialog.exec()
        chosen, name = dialog.chosen(), dialog.restored_name
        dialog.deleteLater()
        if accepted and chosen is not None:
            self.start_restore(chosen.path, new_id=True, name=name)

    def start_restore(self, file: Path, *, new_id: bool = False, name: str | None = None,
                      accept_damaged: bool = False) -> Task:
        manager, progress = self.manager, self._progress(f"Restoring {file.name}…")

        def work() -> tuple[str, str, list[str]]:
            warnings: list[str] = []
            with manager.restore(file, name, new_id=new_id, progress=progress, accept_damaged=accept_damaged,
                                 on_warning=warnings.append) as project:
                return project.id, project.name, warnings

        return self._start(f"Restoring {file.name}…", work, self._restore_done,
                           partial(self._restore_failed, file, new_id, name, accept_damaged))

    def _restore_done(self, result: tuple[str, str, list[str]]) -> None:
        project_id, name, warnings = result
        self.refresh(select=project_id)
        kept = (f" Kept as they were: {counted(len(warnings), 'damaged attachment')}; first: {warnings[0]}."
                if warnings else "")
        self.show_success(f"Restored “{display_name(name)}”.{kept}")

    def _restore_failed(self, file: Path, new_id: bool, name: str | None, accept_damaged: bool,
                        exc: BaseException) -> None:
        if isinstance(exc, DamagedAttachmentsError):
            self.show_error(f"Nothing was restored: {exc.in_short()}. Restore anyway to keep them as they are, "
                            "or restore another backup.", "Restore anyway",
                            partial(self.start_restore, file, new_id=new_id, name=name, accept_damaged=True))
            return
        if isinstance(exc, ProjectExists):
            self.show_error(
                f"The project in {file.name} is on this machine already. Restore it as a copy (a new "
                "project beside it), or delete the existing project first.",
                "Restore as a copy", partial(self.start_restore, file, new_id=True, accept_damaged=accept_damaged),
            )
            return
        self.show_error(self._failure_text(f"Cannot restore {file.name}", exc))

    # ------------------------------------------------------------------ closing
    def prepare_to_quit(self) -> None:
        """The app is quitting: closing windows must not bring the manager back."""
        self._quitting = True

    def _quit(self) -> None:
        self.prepare_to_quit()
        QApplication.quit()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.task is not None:
            QMessageBox.information(self, "Storyloom", f"Wait until the work in progress ends: {self.task.label}")
            event.ignore()
            return
        event.accept()
        if not self.windows and not self._quitting:
            # Closing the list with no project open ends the app (run() connects this to quit).
            self.last_window_closed.emit()
