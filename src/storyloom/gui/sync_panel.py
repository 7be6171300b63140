"""Sync in the main window: the state in the status bar (off, connecting, syncing with progress,
up to date with the last time, offline with the next retry, error; the local changes not yet
pushed) and, when it is clicked (or Team ▸ Sync Panel, Ctrl+Shift+Y), the sync panel: the state
in a sentence, the current problem with its fix (for a document too large for the server: the
document, its size and the setting to raise), "Sync now" and the recent activity.

The words come from :mod:`storyloom.app.views.sync_activity`; the states from the session's
``SyncStateChanged`` events (through the window's bridge), the received documents from its
``DocumentChanged`` events and the settled locks from ``LockSettled``. :class:`SyncStatus` is
built with its window's host (:data:`storyloom.gui.panels.PANELS`: the panel is a right dock,
Team ▸ Sync Panel and Sync Now).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import qtawesome as qta
from PySide6.QtCore import QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import DocumentChanged, Origin
from storyloom.app.locks import LockNotice
from storyloom.app.sync_state import SyncState
from storyloom.app.views.lock_view import broken_view, lock_only_change, notice_view
from storyloom.app.views.sync_activity import (
    ActivityEntry,
    PanelView,
    SyncActivity,
    clock_text,
    panel_view,
    status_view,
)
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.host import WindowHost

if TYPE_CHECKING:
    from storyloom.project import BrokenLock

PANEL_SHORTCUT = "Ctrl+Shift+Y"
#: Up to this many documents in one batch, each is read to tell edits from lock changes.
FEW = 20
NOT_CONFIGURED = SyncState(
    kind="off", detail="sync is off: this project has no remote database (set one in Project Settings > "
                       "Remote Replication)")


def tone_color(tone: str) -> str:
    """A tone of :mod:`storyloom.app.views.sync_activity` as a colour of the theme in use."""
    colours = theme.colors()
    return {"accent": colours.accent, "success": colours.success, "warning": colours.warning,
            "danger": colours.danger}.get(tone, colours.muted)


class SyncPanel(QDockWidget):
    """The dock. ``sync_now_requested`` when "Sync now" is pressed; ``open_requested(doc_id)``
    when an activity line or a document too large is activated."""

    sync_now_requested = Signal()
    open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Sync", parent)
        self.setObjectName("syncDock")
        body = QWidget()
        body.setObjectName("syncPanel")
        layout = QVBoxLayout(body)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.L)
        layout.setSpacing(theme.S)
        head = QHBoxLayout()
        head.setSpacing(theme.M)
        self.icon = QLabel()
        head.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self.headline = QLabel()
        self.headline.setProperty("role", "heading")
        head.addWidget(self.headline, 1)
        self.sync_now = QPushButton(qta.icon("ph.arrows-clockwise", color=theme.colors().accent_text), "Sync now")
        self.sync_now.setProperty("primary", True)
        self.sync_now.setToolTip("Sync with the server at once (also ends a wait before the next try)")
        self.sync_now.clicked.connect(self.sync_now_requested)
        head.addWidget(self.sync_now, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)
        self.lines = QLabel()
        self.lines.setProperty("role", "caption")
        self.lines.setWordWrap(True)
        self.lines.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.lines)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.hide()
        layout.addWidget(self.progress)
        self.problem = QFrame()
        self.problem.setProperty("role", "banner")
        self.problem.setProperty("level", "error")
        problem_layout = QVBoxLayout(self.problem)
        problem_layout.setContentsMargins(theme.M, theme.M, theme.M, theme.M)
        problem_layout.setSpacing(theme.XS)
        self.problem_title = QLabel("What happened")
        font = self.problem_title.font()
        font.setBold(True)
        self.problem_title.setFont(font)
        problem_layout.addWidget(self.problem_title)
        self.cause = QLabel()
        self.cause.setWordWrap(True)
        self.cause.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        problem_layout.addWidget(self.cause)
        self.fix_title = QLabel("What to do")
        self.fix_title.setFont(font)
        problem_layout.addWidget(self.fix_title)
        self.fix = QLabel()
        self.fix.setWordWrap(True)
        self.fix.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        problem_layout.addWidget(self.fix)
        self.too_large = QListWidget()
        self.too_large.setObjectName("tooLargeList")
        self.too_large.itemActivated.connect(self._activated)
        problem_layout.addWidget(self.too_large)
        layout.addWidget(self.problem)
        self.problem.hide()
        layout.addSpacing(theme.S)
        recent = QLabel("Recent activity")
        recent.setObjectName("fieldLabel")
        layout.addWidget(recent)
        self.activity = QListWidget()
        self.activity.setObjectName("syncActivity")
        self.activity.setWordWrap(True)
        self.activity.setIconSize(QSize(10, 10))
        self.activity.setSpacing(2)
        self.activity.itemActivated.connect(self._activated)
        layout.addWidget(self.activity, 1)
        self.setWidget(body)
        self.view: PanelView | None = None

    def show_view(self, view: PanelView) -> None:
        """Show the state summary (and the problem, when there is one)."""
        self.view = view
        self.icon.setPixmap(qta.icon(view.icon, color=tone_color(view.tone)).pixmap(QSize(28, 28)))
        self.headline.setText(view.headline)
        self.lines.setText("\n".join(view.lines))
        if view.progress is not None:
            done, total = view.progress
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)
            self.progress.setFormat(f"{done} of {total}")
            self.progress.show()
        else:
            self.progress.hide()
        self.problem.setVisible(view.cause is not None)
        self.problem.setProperty("level", "error" if view.kind == "error" else "warning")
        self.problem.style().unpolish(self.problem)
        self.problem.style().polish(self.problem)
        self.cause.setText(view.cause or "")
        self.fix_title.setVisible(bool(view.fix))
        self.fix.setVisible(bool(view.fix))
        self.fix.setText(view.fix or "")
        self.too_large.clear()
        for row in view.too_large:
            item = QListWidgetItem(qta.icon("ph.file-x", color=tone_color("danger")),
                                   f"{row.name} — {row.size}\nRaise {row.setting}")
            item.setData(Qt.ItemDataRole.UserRole, row.doc_id)
            item.setToolTip(f"Open “{row.name}”")
            self.too_large.addItem(item)
        self.too_large.setVisible(bool(view.too_large))
        if view.too_large:
            self.too_large.setFixedHeight(min(4, len(view.too_large)) * 44 + 8)

    def show_activity(self, entries: list[ActivityEntry], now: float) -> None:
        self.activity.clear()
        if not entries:
            item = QListWidgetItem("Nothing yet: what sync does shows here.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.activity.addItem(item)
            return
        for entry in entries:
            item = QListWidgetItem(qta.icon("ph.circle-fill", color=tone_color(entry.tone)),
                                   f"{clock_text(entry.at, now)}   {entry.text}")
            item.setToolTip(entry.detail or entry.text)
            if entry.doc_id:
                item.setData(Qt.ItemDataRole.UserRole, entry.doc_id)
            self.activity.addItem(item)

    def _activated(self, item: QListWidgetItem) -> None:
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(doc_id, str) and doc_id:
            self.open_requested.emit(doc_id)


class SyncStatus(QObject):
    """The window's sync state: the status bar item, the panel (:attr:`panel`, a dock) and the
    activity follow the session's events. ``clock`` gives the time shown (tests fix it)."""

    def __init__(self, host: WindowHost) -> None:
        super().__init__(host.widget)
        self.host = host
        self.session = host.session
        panel = self.panel = SyncPanel()
        self.activity = SyncActivity()
        self.clock = time.time
        self.state = NOT_CONFIGURED
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.show)
        host.bridge.sync_state_changed.connect(self.apply)
        host.bridge.documents_changed.connect(self.documents_changed)
        host.bridge.lock_settled.connect(self.lock_settled)
        host.bridge.lock_broken.connect(self.lock_broken)
        host.status.sync.clicked.connect(self.toggle_panel)
        panel.sync_now_requested.connect(self.sync_now)
        panel.open_requested.connect(host.open_document)
        panel.visibilityChanged.connect(lambda _visible: self.show())
        host.add_action("Sync Now", self.sync_now, icon="ph.arrows-clockwise", menu="&Team")
        self.apply(self.session.sync.state if self.configured() else NOT_CONFIGURED)

    def configured(self) -> bool:
        try:
            return bool(self.session.remote.configured)
        except StoryloomError:
            return False

    def apply(self, state: SyncState) -> None:
        """A new state from the session (or the one read when the window opens)."""
        if self.session.closed:
            return
        if state.kind == "off" and not state.remote and not self.configured():
            state = NOT_CONFIGURED
        self.activity.state(state, self.clock())
        self.state = state
        # The countdown to the next try and "up to date · time" move on by themselves.
        if state.kind in ("offline", "idle", "syncing"):
            self._timer.start()
        else:
            self._timer.stop()
        self.show()

    def show(self) -> None:
        if self.session.closed:
            self._timer.stop()
            return
        now = self.clock()
        view = status_view(self.state, now)
        self.host.status.set_sync(view.text, view.tooltip, view.icon, tone_color(view.tone))
        if self.panel.isVisible():
            names = {doc.doc_id: self._name(doc.doc_id) for doc in self.state.too_large}
            self.panel.show_view(panel_view(self.state, now, names))
            self.panel.show_activity(self.activity.entries(), now)
            self.panel.sync_now.setVisible(self.configured())  # nothing to sync with: no button

    def _name(self, doc_id: str) -> str:
        summary = self.session.index.get(doc_id)
        name = getattr(summary, "name", None)
        return name if isinstance(name, str) and name else doc_id

    def documents_changed(self, changes: list[DocumentChanged]) -> None:
        """Teammates' edits a pull brought in (documents whose last edit is someone else's)."""
        if self.session.closed or not self.configured():
            return
        ids = [c.id for c in changes if c.origin == Origin.REMOTE and not c.deleted
               and not c.id.startswith(("_design/", "_local/")) and self.session.index.get(c.id) is not None]
        if len(ids) <= FEW:  # a lock taken, released or broken is not an edit
            ids = [doc_id for doc_id in ids if self._is_edit(doc_id)]
        names = [self._name(doc_id) for doc_id in ids]
        if names and self.activity.received(names, self.clock()) is not None:
            self.show()

    def _is_edit(self, doc_id: str) -> bool:
        """Whether the current revision of ``doc_id`` changed more than its lock (compared with
        its parent revision, when the store still has its body)."""
        db = self.session.db
        try:
            doc = db.get(doc_id, revs=True)
        except StoryloomError:
            return False
        revisions = doc.get("_revisions") or {}
        ids, start = revisions.get("ids") or [], revisions.get("start")
        if len(ids) < 2 or not isinstance(start, int):
            return True  # a new document
        try:
            parent = db.get(doc_id, rev=f"{start - 1}-{ids[1]}")
        except StoryloomError:
            return True
        return not lock_only_change(parent, doc)

    def lock_settled(self, notice: LockNotice) -> None:
        if self.session.closed:
            return
        self.activity.notice(notice_view(notice, self._name(notice.doc_id)), self.clock())
        self.show()

    def lock_broken(self, record: BrokenLock) -> None:
        if self.session.closed:
            return
        self.activity.notice(broken_view(record, self._name(record.doc_id)), self.clock())
        self.show()

    def toggle_panel(self) -> None:
        """The status item was clicked: show the panel (or hide it when it shows)."""
        if self.panel.isVisible():
            self.panel.hide()
            return
        self.panel.show()
        self.panel.raise_()
        self.show()

    def sync_now(self) -> None:
        if self.configured():
            self.session.sync.sync_now()
            self.activity.add(self.clock(), "muted", "Sync now")
            self.show()

    def stop(self) -> None:
        self._timer.stop()
