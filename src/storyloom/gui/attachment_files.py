"""Adding files to the project's attachments from the explorer.

When the Attachments entry of the rail is chosen, the explorer's "+" button and Ctrl+N ask for
files with the system's dialog (:meth:`AttachmentFiles.choose`), and files dragged from the
desktop onto the list (or onto its empty state) are added too. Each file becomes an Attachment
document (:func:`storyloom.app.attachments.add_files`, through the gate); the first one added
opens in its tab. Files that cannot be added are named in the explorer's message line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QWidget

from storyloom.app import ProjectSession
from storyloom.app.attachments import add_files, added_summary

FILE_FILTER = "All files (*);;Images (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.svg)"


def dropped_files(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[Path]:
    """The local files a drag carries (folders and remote URLs left out)."""
    data = event.mimeData()
    if data is None or not data.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in data.urls() if url.isLocalFile() and url.toLocalFile()]


class AttachmentFiles(QObject):
    """Adds files as attachments for a panel. ``added(ids)`` after files were added;
    ``failed(message)`` says what could not be added. ``active()`` says whether drops are taken
    now (only while the Attachments list is shown)."""

    added = Signal(list)
    failed = Signal(str)

    def __init__(self, session: ProjectSession, active: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.active = active

    def accept_drops_on(self, *widgets: QWidget) -> None:
        """Take file drops on ``widgets`` (a list's viewport, an empty state)."""
        for widget in widgets:
            widget.setAcceptDrops(True)
            widget.installEventFilter(self)

    def choose(self, parent: QWidget | None = None) -> list[str]:
        """Ask for files with the system's dialog and add them; the ids created."""
        files, _ = QFileDialog.getOpenFileNames(parent, "Add files to the attachments", str(Path.home()), FILE_FILTER)
        return self.add([Path(f) for f in files]) if files else []

    def add(self, paths: list[Path]) -> list[str]:
        """Add ``paths`` as Attachment documents; the ids created (in the files' order)."""
        if not paths:
            return []
        results = add_files(self.session.editor, paths)
        ids = [r.doc_id for r in results if r.doc_id]
        if any(r.error for r in results):
            self.failed.emit(added_summary(results))
        if ids:
            self.added.emit(ids)
        return ids

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop) or not self.active():
            return False
        if not isinstance(event, QDragEnterEvent | QDragMoveEvent | QDropEvent):
            return False
        files = dropped_files(event)
        if not files:
            return False  # not files from the desktop: the list's own drag and drop
        event.acceptProposedAction()
        if kind == QEvent.Type.Drop:
            self.add(files)
        return True
