"""Conflicted documents, flagged where the user looks: a warning icon and a sentence in the tree
and the tab, and a bar in the open editor with the way to the merge view. The flags are
:class:`storyloom.app.views.conflict_flags.ConflictFlags`, kept current from the session's changes
(a pull that brings a conflicting version, a merge that settles one).

:class:`ConflictMarks` is built with its window's host (:data:`storyloom.gui.panels.PANELS`);
:meth:`ConflictMarks.open_merge` opens the merge view of a document."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QSize, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from storyloom.app import DocumentChanged
from storyloom.app.views.conflict_flags import ConflictFlags, DocFlag
from storyloom.gui import icons, theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.host import WindowHost
from storyloom.gui.merge_view import MergeView, open_merge_view
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import set_role

log = logging.getLogger(__name__)


class ConflictBar(QFrame):
    """The strip an editor shows while its document is flagged: what happened, and "Merge…"."""

    merge_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictBar")
        set_role(self, "banner", level="error")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(theme.L, theme.S, theme.M, theme.S)
        layout.setSpacing(theme.S)
        self.icon = QLabel()
        self.icon.setPixmap(icons.icon("warning").pixmap(QSize(18, 18)))
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.button = QPushButton("Merge…")
        self.button.setProperty("primary", "true")
        self.button.clicked.connect(self.merge_requested)
        layout.addWidget(self.icon)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self.flag: DocFlag | None = None
        self.hide()

    def show_flag(self, flag: DocFlag | None) -> None:
        self.flag = flag
        self.setVisible(flag is not None)
        if flag is not None:
            self.text.setText(flag.text)
            self.button.setVisible(flag.kind == "conflict")


class ConflictMarks(QObject):
    """The window's flags and what shows them (the tree, the tabs, a bar in each editor),
    following the session. ``changed`` after flags came or went.

    The first read of every conflict runs on a worker thread (it walks every document's
    revision tree: a fifth of a second at 10,000 documents), so the window is usable at once and
    the marks appear when it is done; changes that arrive meanwhile are followed after it."""

    changed = Signal()

    def __init__(self, host: WindowHost) -> None:
        super().__init__(host.widget)
        self.host = host
        self.session = host.session
        self.flags = ConflictFlags(host.session.db)
        self._icons = {"conflict": icons.icon("warning"), "refused": icons.icon("error")}
        #: The changes seen while the first read runs (None once it is done).
        self._waiting: list[DocumentChanged] | None = []
        self._task: Task | None = Task(self.flags.read, "Reading the project's conflicts", self)
        self._task.succeeded.connect(self._read)
        self._task.failed.connect(self._read)
        self._task.start()
        self.views: dict[str, MergeView] = {}
        host.add_marks(self.mark)
        host.bridge.documents_changed.connect(self.apply)
        host.tabs.changed.connect(self.attach_bars)
        # A push can add or settle a refused edit (no document changes).
        host.bridge.sync_state_changed.connect(lambda _state: self.refresh_refused())
        self.attach_bars()
        self.show_marks()

    def mark(self, doc_id: str) -> tuple[QIcon, str] | None:
        """The tree's and the tabs' mark for ``doc_id``."""
        flag = self.flags.flag(doc_id)
        return None if flag is None else (self._icons[flag.kind], flag.text)

    def _read(self, result: object) -> None:
        """The first read is done (on the GUI thread): show it, then follow what came meanwhile."""
        task, self._task = self._task, None
        if task is not None:
            task.release()
        waiting, self._waiting = self._waiting or [], None
        if isinstance(result, Exception):  # the flags are a help: a broken read must not stop the window
            log.error("reading the project's conflicts failed: %s", result)
        elif isinstance(result, tuple) and not self.session.closed:
            self.flags.conflicts, self.flags.refused = result
            self.show_marks()
            self.changed.emit()
        if waiting:
            self.apply(waiting)
        self.refresh_refused()  # a push meanwhile may have recorded or cleared one

    @property
    def reading(self) -> bool:
        """True while the first read of the project's conflicts runs."""
        return self._task is not None

    def wait_until_read(self) -> None:
        """Block until the first read is done and shown (tests, screenshots, benchmarks)."""
        while self._task is not None:
            self._task.wait()
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents()

    def stop(self) -> None:
        """Before the session closes: let the first read end (it reads the store)."""
        if self._task is not None:
            self._task.wait()

    def apply(self, changes: list[DocumentChanged]) -> None:
        """Follow a batch of the session's changes."""
        if self._waiting is not None:  # the first read runs: after it
            self._waiting.extend(changes)
            return
        self._update(lambda: bool(self.flags.apply(changes)), "updating the project's conflicts failed")

    def refresh_refused(self) -> None:
        """Read the edits the server refused again (after a push)."""
        if self._waiting is not None:  # the first read reads them too
            return
        self._update(lambda: bool(self.flags.refresh_refused()), "reading the refused edits failed")

    def _update(self, read: Callable[[], bool], failed: str) -> None:
        """Update the flags (``read``: whether any came or went) and show them when they changed."""
        if self.session.closed:
            return
        try:
            changed = read()
        except Exception:  # the flags are a help: a broken read is logged, the window goes on
            log.exception(failed)
            return
        if changed:
            self.show_marks()
            self.changed.emit()

    def show_marks(self) -> None:
        self.host.refresh_marks()
        for editor in self._editors():
            self.bar(editor).show_flag(self.flags.flag(editor.doc_id))

    def _editors(self) -> list[DocumentEditor]:
        return [editor for editor in self.host.tabs.editors() if isinstance(editor, DocumentEditor)]

    def bar(self, editor: DocumentEditor) -> ConflictBar:
        """The editor's conflict bar (made on first use, under its banner)."""
        bar = editor.findChild(ConflictBar, "conflictBar")
        if bar is None:
            bar = ConflictBar(editor)
            layout = editor.layout()
            if isinstance(layout, QVBoxLayout):
                layout.insertWidget(1, bar)
            bar.merge_requested.connect(lambda e=editor: self.open_merge(e.doc_id))
            bar.show_flag(self.flags.flag(editor.doc_id))
        return bar

    def attach_bars(self) -> None:
        for editor in self._editors():
            self.bar(editor)

    def open_merge(self, doc_id: str) -> MergeView | None:
        """Open (or bring forward) the merge view of ``doc_id``; ``None`` when it is no longer in
        conflict (the flags are read again)."""
        view = self.views.get(doc_id)
        if view is not None and view.isVisible():
            view.raise_()
            view.activateWindow()
            return view
        view = open_merge_view(self.session, doc_id, self.host.widget)
        if view is None:
            self.flags.rebuild()
            self.show_marks()
            return None
        self.views[doc_id] = view
        view.resolved.connect(lambda _rev: self.session.wait_for_events(2.0))
        view.finished.connect(lambda _result, d=doc_id: self.views.pop(d, None))
        return view
