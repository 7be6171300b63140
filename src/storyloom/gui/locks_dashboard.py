"""The "My locks" dashboard (Team ▸ My Locks…, Ctrl+Shift+L): the documents I hold locked, with
"Unlock" and "Unlock all", the documents others hold, with "Break lock…" (after a confirmation
that says the break is recorded), and the breaks recorded lately. Rows open their document on
a double click. The rows come from :func:`storyloom.app.views.lock_view.lock_rows`; every change goes
through the window's :class:`~storyloom.gui.locks_ui.LockController`, off the GUI thread."""

from __future__ import annotations

from functools import partial
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from storyloom.app.views.lock_view import LockRow, broken_text, lock_rows
from storyloom.gui import icons, theme
from storyloom.gui.locks_ui import LOCKED_ICON, LockController
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import dialog_layout
from storyloom.project import BrokenLock

ID_ROLE = Qt.ItemDataRole.UserRole


class LocksDashboard(QDialog):
    """The dashboard of ``controller``'s window."""

    def __init__(self, controller: LockController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("locksDashboard")
        self.setWindowTitle("My Locks")
        self.controller = controller
        self.session = controller.session
        self.broken: list[BrokenLock] = []
        self._task: Task | None = None
        self.resize(760, 600)
        layout, _heading = dialog_layout(self, "Locks", "A lock keeps teammates from editing a document while you "
                                         "do. Unlock what you are done with; break someone else's lock only when it "
                                         "is stale.")
        layout.addSpacing(theme.S)

        self.mine_title = self._section(layout)
        self.mine = self._table(["Document", "Locked since", "State"])
        layout.addWidget(self.mine, 3)
        self.mine_empty = self._empty("You hold no locks. Open a document and press F2 to lock it.")
        layout.addWidget(self.mine_empty)
        mine_buttons = QHBoxLayout()
        mine_buttons.setSpacing(theme.S)
        self.unlock_button = QPushButton("Unlock")
        self.unlock_button.clicked.connect(self.unlock_selected)
        self.unlock_all_button = QPushButton("Unlock all")
        self.unlock_all_button.setProperty("primary", True)
        self.unlock_all_button.clicked.connect(self.unlock_all)
        mine_buttons.addWidget(self.unlock_button)
        mine_buttons.addStretch(1)
        mine_buttons.addWidget(self.unlock_all_button)
        layout.addLayout(mine_buttons)
        layout.addSpacing(theme.M)

        self.others_title = self._section(layout)
        self.others = self._table(["Document", "Held by", "Locked since"])
        layout.addWidget(self.others, 3)
        self.others_empty = self._empty("Nobody else holds a lock in this project.")
        layout.addWidget(self.others_empty)
        others_buttons = QHBoxLayout()
        self.break_button = QPushButton("Break lock…")
        self.break_button.setToolTip("Free a stale lock of someone else; the break is recorded in the document")
        self.break_button.clicked.connect(self.break_selected)
        others_buttons.addWidget(self.break_button)
        others_buttons.addStretch(1)
        layout.addLayout(others_buttons)
        layout.addSpacing(theme.M)

        self.breaks_title = self._section(layout)
        self.breaks = QLabel()
        self.breaks.setWordWrap(True)
        self.breaks.setProperty("role", "caption")
        layout.addWidget(self.breaks)

        footer = QHBoxLayout()
        self.status = QLabel()
        self.status.setProperty("role", "caption")
        self.status.setWordWrap(True)
        footer.addWidget(self.status, 1)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        footer.addWidget(close)
        layout.addLayout(footer)

        for table in (self.mine, self.others):
            table.itemSelectionChanged.connect(self._update_buttons)
            table.itemDoubleClicked.connect(self._open)
        controller.changed.connect(self.refresh)
        controller.finished.connect(self._finished)
        self.refresh()
        self.load_breaks()

    # ------------------------------------------------------------------ building
    def _section(self, layout: QVBoxLayout) -> QLabel:
        label = QLabel()
        label.setObjectName("fieldLabel")
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        layout.addWidget(label)
        return label

    def _table(self, columns: list[str]) -> QTreeWidget:
        table = QTreeWidget()
        table.setColumnCount(len(columns))
        table.setHeaderLabels(columns)
        table.setRootIsDecorated(False)
        table.setUniformRowHeights(True)
        table.setAlternatingRowColors(True)
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(columns)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        return table

    def _empty(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("emptyState")
        label.setProperty("role", "caption")
        label.setContentsMargins(theme.S, theme.S, theme.S, theme.S)
        return label

    # ------------------------------------------------------------------ rows
    def _describe(self, doc_id: str) -> tuple[str, str]:
        summary = self.session.index.get(doc_id)
        if summary is None:
            return doc_id, ""
        return self.controller.name(doc_id), str(summary.collection or summary.type or "")

    def rows(self) -> tuple[list[LockRow], list[LockRow]]:
        return lock_rows(self.controller.table.locks(), self.controller.me, self._describe)

    def refresh(self) -> None:
        mine, others = self.rows()
        self._fill(self.mine, mine, lambda row: [row.name, row.since,
                                                   "Waiting for the server" if row.provisional else "Held"])
        self._fill(self.others, others, lambda row: [row.name, row.holder, row.since], holder_column=1)
        self.mine_title.setText(f"Locked by you ({len(mine)})" if mine else "Locked by you")
        self.others_title.setText(f"Locked by others ({len(others)})" if others else "Locked by others")
        self.mine.setVisible(bool(mine))
        self.mine_empty.setVisible(not mine)
        self.others.setVisible(bool(others))
        self.others_empty.setVisible(not others)
        self._show_breaks()
        self._update_buttons()

    def _fill(self, table: QTreeWidget, rows: list[LockRow], columns: Any, holder_column: int | None = None) -> None:
        selected = {item.data(0, ID_ROLE) for item in table.selectedItems()}
        table.clear()
        for row in rows:
            item = QTreeWidgetItem(columns(row))
            item.setData(0, ID_ROLE, row.doc_id)
            item.setToolTip(0, f"{row.name}\n{row.tooltip[:1].upper()}{row.tooltip[1:]}")
            try:
                item.setIcon(0, icons.collection_icon(row.kind))
            except KeyError:
                pass
            if holder_column is not None:
                item.setIcon(holder_column, qta.icon(LOCKED_ICON, color=row.color))
                item.setForeground(holder_column, QBrush(QColor(row.color)))
            if row.provisional:
                item.setForeground(2, QBrush(QColor(theme.colors().warning)))
            table.addTopLevelItem(item)
            item.setSelected(row.doc_id in selected)

    def _show_breaks(self) -> None:
        me = self.controller.me
        lines = [broken_text(record, me, self.controller.name(record.doc_id)) for record in self.broken[:5]]
        self.breaks_title.setText("Breaks recorded lately")
        self.breaks_title.setVisible(bool(lines))
        self.breaks.setVisible(bool(lines))
        self.breaks.setText("\n".join(f"•  {line}" for line in lines))

    def load_breaks(self) -> None:
        """Read the recorded breaks off the GUI thread (every document is read)."""
        locks = self.session.locks
        task = Task(locks.broken_locks, "Reading the recorded breaks", self)
        task.succeeded.connect(self._breaks_loaded)
        task.finished.connect(task.deleteLater)
        self._task = task
        task.start()

    def _breaks_loaded(self, records: list[BrokenLock]) -> None:
        self.broken = list(records)
        self._show_breaks()

    def _selected(self, table: QTreeWidget) -> list[str]:
        return [str(item.data(0, ID_ROLE)) for item in table.selectedItems()]

    def _update_buttons(self) -> None:
        busy = self.controller.busy()
        self.unlock_button.setEnabled(bool(self._selected(self.mine)) and not busy)
        self.unlock_all_button.setEnabled(self.mine.topLevelItemCount() > 0 and not busy)
        self.break_button.setEnabled(len(self._selected(self.others)) == 1 and not busy)

    # ------------------------------------------------------------------ intents
    def unlock_selected(self) -> None:
        locks = self.session.locks
        for doc_id in self._selected(self.mine):
            self.controller.run(doc_id, "Unlocking…", partial(locks.unlock, doc_id))
        self.status.setText("Unlocking…")
        self._update_buttons()

    def unlock_all(self) -> None:
        self.controller.unlock_all()
        self.status.setText("Unlocking every lock you hold…")
        self._update_buttons()

    def break_selected(self) -> None:
        selected = self._selected(self.others)
        if len(selected) == 1 and self.controller.break_lock(selected[0]):
            self.status.setText("Breaking the lock…")
        self._update_buttons()

    def _finished(self, doc_id: str, message: str) -> None:
        if not self.controller.busy():
            self.status.setText(message)
            if not message:
                self.load_breaks()
        self._update_buttons()

    def _open(self, item: QTreeWidgetItem) -> None:
        doc_id = item.data(0, ID_ROLE)
        if isinstance(doc_id, str):
            self.controller.host.open_document(doc_id)

    def stop_work(self) -> None:
        """The window closes: wait for the breaks being read."""
        task = self._task
        if task is not None and isValid(task) and task.isRunning():
            task.wait(10_000)
