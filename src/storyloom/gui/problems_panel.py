"""The Problems dock: every problem of the open project in one table (severity, message,
document, line), kept current from the session's changes by
:class:`storyloom.app.views.problems.ProjectProblems`. Activating a row asks to open the document
(``open_requested(doc_id, line)``; line 0 when the problem has none). The first check of the
whole project runs on a worker thread: the window does not wait for it. So does the check of
each batch of changes (an autosave's script, 5,000 lines: 10 ms or more) and the sorting of
the rows: typing goes on meanwhile, and the worker gives up the GIL every 2 ms or so of a check
(``ProjectProblems(pause=...)``) so the GUI thread never waits long for it. One check runs at a
time (:class:`ProjectProblems` is used by one thread at a time); changes that arrive meanwhile
are checked after it.

Built with its window's host (:data:`storyloom.gui.panels.PANELS`: a bottom dock, View ▸ Problems,
Ctrl+Shift+M), it puts a count in the status bar and opens a row's document at its line.

A problem with a quick fix (:class:`storyloom.app.views.problems.QuickFix`: "Create actor" for a
speaker who is not an actor) offers it twice: the button under the table, for the selected row,
and the row's context menu; :func:`storyloom.app.views.problems.apply_quick_fix` does it, and the
rechecks that follow the write clear the problem."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import DocumentChanged
from storyloom.app.views.problems import CREATE_ACTOR, ProjectProblem, ProjectProblems, QuickFix, apply_quick_fix
from storyloom.errors import StoryloomError
from storyloom.gui import icons
from storyloom.gui.host import WindowHost
from storyloom.gui.status_bar import ClickableItem
from storyloom.gui.tasks import Task
from storyloom.words import counted

log = logging.getLogger(__name__)

SHORTCUT = "Ctrl+Shift+M"
# What a check on the worker sleeps between two of its slices (ProjectProblems' pause).
YIELD_S = 0.0002
COLUMNS = ("Message", "Document", "Line")
_Index = QModelIndex | QPersistentModelIndex


class ProblemsModel(QAbstractTableModel):
    """The rows of :meth:`ProjectProblems.problems`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ProjectProblem] = []
        self._icons: dict[bool, Any] = {}

    def set_rows(self, rows: list[ProjectProblem]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def _icon(self, error: bool) -> Any:
        if error not in self._icons:
            self._icons[error] = icons.icon("error" if error else "warning")
        return self._icons[error]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        problem = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return problem.message
            if column == 1:
                return problem.doc_name
            return "" if problem.line is None else str(problem.line)
        if role == Qt.ItemDataRole.DecorationRole:
            if column == 0:
                return self._icon(problem.is_error)
            if column == 1 and problem.doc_type:
                try:
                    return icons.collection_icon(problem.doc_type)
                except KeyError:
                    return None
        if role == Qt.ItemDataRole.ToolTipRole:
            where = f"{problem.doc_name}" + (f", line {problem.line}" if problem.line else "")
            field = f" ({problem.diagnostic.field})" if problem.diagnostic.field else ""
            fix = f"\nQuick fix: {problem.fix.label} (right-click)" if problem.fix is not None else ""
            return f"{problem.severity.capitalize()} in {where}{field}:\n{problem.message}{fix}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ProblemsPanel(QDockWidget):
    """The dock. ``open_requested(doc_id, line)`` when a row is activated."""

    open_requested = Signal(str, int)
    counts_changed = Signal(int, int)

    def __init__(self, host: WindowHost, parent: QWidget | None = None) -> None:
        super().__init__("Problems", parent)
        self.setObjectName("problemsDock")
        session = self.session = host.session
        self.problems = ProjectProblems(session.db, session.index, pause=_give_way)
        self.model = ProblemsModel(self)
        self.view = QTableView()
        self.view.setObjectName("problemsView")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(24)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(1, 240)
        self.view.activated.connect(self._activated)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.doubleClicked.connect(self._activated)
        self.empty = QLabel("No problems in this project.")
        self.empty.setObjectName("problemsEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.fix_button = QPushButton("Quick fix")
        self.fix_button.setObjectName("problemsQuickFix")
        self.fix_button.setEnabled(False)
        self.fix_button.setToolTip("Select a problem that has a quick fix")
        self.fix_button.clicked.connect(self._fix_selected)
        self.fix_note = QLabel("")
        self.fix_note.setObjectName("problemsFixNote")
        self.fix_note.setTextFormat(Qt.TextFormat.PlainText)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 2, 6, 4)
        bar.addWidget(self.fix_button)
        bar.addWidget(self.fix_note, 1)
        table = QWidget()
        table_layout = QVBoxLayout(table)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.setSpacing(0)
        table_layout.addWidget(self.view, 1)
        table_layout.addLayout(bar)
        self.table_page = table
        self.stack = QStackedWidget()
        self.stack.addWidget(table)
        self.stack.addWidget(self.empty)
        self.setWidget(self.stack)
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self._task: Task | None = None
        self._whole = False  # the running task checks the whole project (not changes)
        self._rebuild_wanted = False  # a check of the whole project asked for while changes were checked
        self._queued: list[DocumentChanged] = []
        self._stopped = False
        self.count = ClickableItem("ph.warning-circle", "No problems")
        self.count.setObjectName("problemsCount")
        self.count.clicked.connect(self._reveal)
        host.status.addPermanentWidget(self.count)
        self.counts_changed.connect(self._show_counts)
        self.open_requested.connect(lambda doc_id, line: host.open_at(doc_id, line))
        host.bridge.documents_changed.connect(self.apply)
        self.rebuild_in_background()
        self._show_counts(*self.problems.counts())

    def rebuild(self) -> None:
        """Check the whole project again, now."""
        self.wait_until_checked()
        try:
            self.problems.rebuild()
        except Exception:  # the panel is a help: never a traceback for the user
            log.exception("collecting the project's problems failed")
        self._show()

    def rebuild_in_background(self) -> None:
        """Check the whole project on a worker thread, so the window opens at once (checking
        10,000 documents takes seconds); changes that arrive meanwhile are applied after."""
        if self._stopped:
            return
        if self._task is not None:
            self._rebuild_wanted = not self._whole  # changes are being checked: the whole project after
            return
        self.empty.setText("Checking the project…")
        self.stack.setCurrentWidget(self.empty)
        self._start(self.problems.rebuild, "Checking the project", whole=True)

    def _start(self, check: Callable[[], object], label: str, *, whole: bool) -> None:
        def work() -> object:
            check()
            return self.problems.problems()  # sorted there too, not on the GUI thread

        self._whole = whole
        self._task = Task(work, label, self)
        self._task.succeeded.connect(self._checked)
        self._task.failed.connect(self._checked)
        self._task.start()

    @property
    def checking(self) -> bool:
        """True while a check of the whole project runs."""
        return self._task is not None and self._whole

    def wait_until_checked(self) -> None:
        """Block until the checks running or waiting are done and shown (tests, screenshots,
        benchmarks)."""
        while self._task is not None:
            self._task.wait()
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents()

    def _checked(self, result: object) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.release()
        if isinstance(result, Exception):
            log.error("collecting the project's problems failed: %s", result)
        if self._stopped or self.session.closed:
            return
        self.empty.setText("No problems in this project.")
        if self._rebuild_wanted:
            self._rebuild_wanted = False
            self.rebuild_in_background()  # what is queued is checked after it
            return
        queued, self._queued = self._queued, []
        if queued:
            self.apply(queued)
        else:
            self._show()

    def stop(self) -> None:
        """Before the session closes: wait for a check in progress, follow nothing more."""
        self._stopped = True
        if self._task is not None:
            self._task.wait()

    def apply(self, changes: list[DocumentChanged]) -> None:
        """Follow a batch of the session's changes (the bridge's ``documents_changed``)."""
        if self.session.closed or self._stopped:
            return
        if self._task is not None:  # a check runs: after it
            self._queued.extend(changes)
            return
        self._start(lambda: self.problems.apply(changes), "Checking the changes", whole=False)

    def _show(self) -> None:
        selected = self._selected()
        self.model.set_rows(self.problems.problems())
        if selected is not None:  # keep the selection on the same problem when it is still there
            for row, problem in enumerate(self.model.rows):
                if problem == selected:
                    self.view.selectRow(row)
                    break
        self._selection_changed()
        errors, warnings = self.problems.counts()
        self.stack.setCurrentWidget(self.table_page if self.model.rows else self.empty)
        self.setWindowTitle(f"Problems ({errors + warnings})" if errors + warnings else "Problems")
        self.counts_changed.emit(errors, warnings)

    def _activated(self, index: QModelIndex) -> None:
        if index.isValid() and index.row() < len(self.model.rows):
            problem = self.model.rows[index.row()]
            self.open_requested.emit(problem.doc_id, problem.line or 0)

    def activate_row(self, row: int) -> None:
        self._activated(self.model.index(row, 0))

    # ------------------------------------------------------------------ quick fixes
    def _selected(self) -> ProjectProblem | None:
        model = self.view.selectionModel()
        rows = model.selectedRows() if model is not None else []
        if rows and rows[0].row() < len(self.model.rows):
            return self.model.rows[rows[0].row()]
        return None

    def _selection_changed(self, *_args: object) -> None:
        problem = self._selected()
        fix = problem.fix if problem is not None else None
        self.fix_button.setEnabled(fix is not None)
        self.fix_button.setText(_fix_text(fix) if fix is not None else "Quick fix")
        self.fix_button.setIcon(icons.icon("new") if fix is not None else icons.icon("info"))
        self.fix_button.setToolTip(_fix_tip(fix) if fix is not None else "Select a problem that has a quick fix")

    def row_actions(self, row: int) -> list[QAction]:
        """The actions of a row's context menu: its quick fix (when it has one), then Open."""
        problem = self.model.rows[row]
        actions: list[QAction] = []
        if problem.fix is not None:
            fix_action = QAction(icons.icon("new"), _fix_text(problem.fix), self)
            fix_action.setToolTip(_fix_tip(problem.fix))
            fix_action.triggered.connect(lambda _checked=False, p=problem: self.apply_fix(p))
            actions.append(fix_action)
        open_action = QAction(icons.icon("open"), "Open at this line" if problem.line else "Open", self)
        open_action.triggered.connect(lambda _checked=False, p=problem: self.open_requested.emit(p.doc_id, p.line or 0))
        actions.append(open_action)
        return actions

    def _context_menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        self.view.selectRow(index.row())
        menu = QMenu(self)
        for action in self.row_actions(index.row()):
            menu.addAction(action)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def _fix_selected(self) -> None:
        problem = self._selected()
        if problem is not None:
            self.apply_fix(problem)

    def apply_fix(self, problem: ProjectProblem) -> str | None:
        """Do ``problem``'s quick fix; returns the id of the document it made, ``None`` when it failed
        (the reason shows beside the button)."""
        try:
            made = apply_quick_fix(self.session, problem.fix)
        except (StoryloomError, ValueError) as exc:
            self.fix_note.setText(f"{problem.fix.label if problem.fix else 'The fix'} failed: {exc}")
            return None
        if problem.fix is not None and problem.fix.action == CREATE_ACTOR:
            self.fix_note.setText(f"Created the actor “{problem.fix.name}”.")
        return made

    def _reveal(self) -> None:
        self.show()
        self.raise_()

    def _show_counts(self, errors: int, warnings: int) -> None:
        """The count in the status bar."""
        colour = "#e5484d" if errors else ("#d9912a" if warnings else "#8a94a0")
        self.count.set_icon("ph.warning-circle", colour)
        self.count.set_text(count_text(errors, warnings), f"{count_text(errors, warnings)} ({SHORTCUT} shows them)")


def _give_way() -> None:
    """Between two slices of a check on the worker: the GIL is given up long enough for a GUI
    thread waiting for it to take it (rather than wait out Python's 5 ms switch interval)."""
    time.sleep(YIELD_S)


def _fix_text(fix: QuickFix) -> str:
    """The button's words: the fix and what it acts on (Create actor “Memory Echo”)."""
    return f"{fix.label} “{fix.name}”" if fix.action == CREATE_ACTOR else fix.label


def _fix_tip(fix: QuickFix) -> str:
    if fix.action == CREATE_ACTOR:
        return f"Create an Actor named “{fix.name}” in the Actors collection"
    return fix.label


def count_text(errors: int, warnings: int) -> str:
    if not errors and not warnings:
        return "No problems"
    parts = [counted(errors, "error")] if errors else []
    if warnings:
        parts.append(counted(warnings, "warning"))
    return ", ".join(parts)
