"""The base of every document editor: load, debounced autosave, Ctrl+S, the banner.

Every save goes through the session's editor gate (``editor.patch`` against the revision the
editor was based on). A refused save keeps the text as typed, marks the editor invalid and
shows why in a banner over it; a change made elsewhere is applied at once when nothing is
being typed, and otherwise kept aside with a banner so nothing typed is lost: "changed
remotely" (replicated, or written by another process) or "changed elsewhere" (written through
this session: a restore, a merge, the local API). Which of the two belongs to the revision kept
aside (``session.origin_of``), so it reads the same whether the session's event or a save that
revision refused brought it first.
Subclasses fill :meth:`build_body`, :meth:`apply_document` and :meth:`changes`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QVBoxLayout, QWidget
from superqt.utils import qdebounced

from storyloom.app import DocumentChanged, Origin, ProjectSession
from storyloom.app.views.editor_text import rename_only_change
from storyloom.app.views.lock_view import lock_only_change
from storyloom.app.views.outline import display_name
from storyloom.errors import StoryloomError
from storyloom.gui.remote_change import merge_unsaved, show_changes
from storyloom.gui.sidebar import collection_label
from storyloom.gui.widgets import Banner
from storyloom.project import LockRefused, ValidationError, WriteResult
from storyloom.store import Conflict, DiskFull, NotFound

AUTOSAVE_MS = 800
# A save the full disk refused is tried again this often until it goes through.
DISK_FULL_RETRY_MS = 3000


def select_in_text(widget: QPlainTextEdit, line: int, column: int = 1, length: int = 0) -> None:
    """Select ``length`` characters at ``line``/``column`` (1-based) of ``widget``, show them in
    the middle of the view and focus it."""
    block = widget.document().findBlockByNumber(max(0, line - 1))
    if not block.isValid():
        return
    cursor = QTextCursor(block)
    start = block.position() + min(max(0, column - 1), max(0, block.length() - 1))
    cursor.setPosition(start)
    if length > 0:
        cursor.setPosition(min(start + length, widget.document().characterCount() - 1), QTextCursor.MoveMode.KeepAnchor)
    widget.setTextCursor(cursor)
    widget.centerCursor()
    widget.setFocus()


class DocumentEditor(QWidget):
    """One open document. ``state_changed`` fires when the title, unsaved or invalid state changes."""

    state_changed = Signal()

    def __init__(self, session: ProjectSession, doc: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.doc_id: str = doc["_id"]
        self.base: dict[str, Any] = doc
        self.dirty = False
        self.invalid = False
        self.error = ""
        self.deleted = False
        self._own_revs: set[str] = set()
        self._elsewhere: dict[str, Any] | None = None  # a newer revision kept aside while typing
        self._set_aside: dict[str, Any] | None = None  # the text "Take theirs" replaced, to put back
        self._loading = False
        self._autosave = qdebounced(self.autosave, timeout=AUTOSAVE_MS, parent=self)
        self._retry_when_space = QTimer(self)
        self._retry_when_space.setSingleShot(True)
        self._retry_when_space.setInterval(DISK_FULL_RETRY_MS)
        self._retry_when_space.timeout.connect(self._retry_save)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.banner = Banner(strip=True)
        layout.addWidget(self.banner)
        header = QHBoxLayout()
        header.setContentsMargins(24, 16, 24, 8)
        header.setSpacing(12)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("docTitle")
        self.name_edit.setFrame(False)
        self.name_edit.setPlaceholderText("Untitled")
        font = self.name_edit.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        self.name_edit.setFont(font)
        self.name_edit.textEdited.connect(self.mark_dirty)
        header.addWidget(self.name_edit, 1)
        self.kind_label = QLabel(collection_label(str(doc.get("collection") or doc.get("type") or "")))
        self.kind_label.setObjectName("docKind")
        header.addWidget(self.kind_label)
        layout.addLayout(header)
        self.body = self.build_body()
        layout.addWidget(self.body, 1)
        self._load(doc)

    # ------------------------------------------------------------------ for subclasses
    name_field = "name"

    def build_body(self) -> QWidget:
        raise NotImplementedError

    def apply_document(self, doc: dict[str, Any]) -> None:
        """Show ``doc`` in the body's widgets (keeping cursors where they can stay)."""
        raise NotImplementedError

    def changes(self) -> dict[str, Any]:
        """The top-level fields the widgets set, as ``editor.patch`` takes them."""
        raise NotImplementedError

    def focus_line(self, line: int) -> None:
        """Put the cursor on ``line`` (1-based) where the editor has lines."""

    def field_editor(self, field: str) -> QPlainTextEdit | None:
        """The text widget showing ``field`` (``content.script``...), ``None`` when none does."""
        return None

    def focus_match(self, field: str, line: int, column: int = 1, length: int = 0) -> None:
        """Select a search hit: ``length`` characters at ``line``/``column`` (1-based) of
        ``field``; the name field selects in the title; otherwise the editor goes to ``line``."""
        if field == self.name_field or field == "name":
            self.name_edit.setFocus()
            self.name_edit.setSelection(max(0, column - 1), length)
            return
        widget = self.field_editor(field)
        if widget is None:
            if line > 0:
                self.focus_line(line)
            return
        select_in_text(widget, line, column, length)

    # ------------------------------------------------------------------ state
    @property
    def title(self) -> str:
        return display_name(self.name_edit.text() or self.base.get(self.name_field))

    def _load(self, doc: dict[str, Any]) -> None:
        self._loading = True
        try:
            self.base = doc
            name = doc.get(self.name_field)
            if self.name_edit.text() != (name or ""):
                self.name_edit.setText(name if isinstance(name, str) else "")
            self.apply_document(doc)
        finally:
            self._loading = False

    def mark_dirty(self, *_args: Any) -> None:
        if self._loading:
            return
        if not self.dirty:
            self.dirty = True
            self.state_changed.emit()
        self._autosave()

    def save(self) -> bool:
        """Write the edits through the gate now. False when refused (the text stays, marked)."""
        self._autosave.cancel()
        if not self.dirty or self.deleted:
            return not self.dirty
        try:
            result = self.session.editor.patch(self.doc_id, self.changes(), rev=self.base.get("_rev"))
        except Conflict as exc:
            if not self._follow_rename(self._read()):
                return self._not_saved(exc)
            try:  # renamed meanwhile (the tree, the API): the text is saved on the renamed revision
                result = self.session.editor.patch(self.doc_id, self.changes(), rev=self.base.get("_rev"))
            except StoryloomError as again:
                return self._not_saved(again)
        except StoryloomError as exc:
            return self._not_saved(exc)
        return self._saved(result)

    def autosave(self) -> None:
        """What the autosave's timer calls after a pause in typing: :meth:`save` (an editor may
        write in the background instead)."""
        self.save()

    def _not_saved(self, exc: StoryloomError) -> bool:
        """The gate refused the write with ``exc``: say why; the text stays, unsaved. False."""
        if isinstance(exc, ValidationError):
            details = "; ".join(p.message for p in exc.problems[:3])
            self._refused(f"Not saved: {details}. Fix it and the text saves by itself; what you typed is kept.")
        elif isinstance(exc, LockRefused):
            self._refused(f"Not saved: {exc}. Your text is kept here.")
        elif isinstance(exc, Conflict):
            doc = self._read()
            if not self._follow_rename(doc):  # a rename is followed, and the text saved on it next
                self._changed_elsewhere(doc)
        elif isinstance(exc, NotFound):
            self._deleted_elsewhere()
        elif isinstance(exc, DiskFull):
            self._refused(f"Not saved: {exc}. What you typed is kept here and saves by itself once there "
                          "is space.")
            self._retry_when_space.start()
        else:
            self._refused(f"Not saved: {exc}")
        return False

    def _retry_save(self) -> None:
        """A save the full disk refused, tried again (and again, until it goes through)."""
        if self.dirty and not self.deleted:
            self.save()

    def _saved(self, result: WriteResult) -> bool:
        """The write went through: this revision is ours, the editor is clean again, and the
        gate's warnings (if any) are shown."""
        self._own_revs.add(result.rev)
        self.base = result.doc
        self.dirty = False
        self.invalid = False
        self.error = ""
        self._elsewhere = None
        warnings = [w.message for w in result.warnings]
        if warnings:
            self.banner.show_message("info", "Saved, with warnings: " + "; ".join(warnings[:3]))
        else:
            self.banner.clear()
        self.state_changed.emit()
        return True

    def written_revision(self) -> dict[str, Any] | None:
        """The revision the editor is based on when the editor wrote it itself (it is then what
        the store holds at that revision, lock fields and all), else None."""
        rev = self.base.get("_rev")
        return self.base if isinstance(rev, str) and rev in self._own_revs else None

    def document_name(self, doc_id: str) -> str | None:
        """The name of another document of the project (for links), ``None`` when unknown."""
        try:
            summary = self.session.index.get(doc_id)
        except Exception:  # noqa: BLE001 - the index is a convenience: without it, the name is unknown
            return None
        return summary.name if summary is not None else None

    def document_exists(self, doc_id: str) -> bool:
        """Whether a link to ``doc_id`` leads anywhere."""
        try:
            return self.session.index.get(doc_id) is not None
        except Exception:  # noqa: BLE001 - the index is a convenience: without it, ask the store
            try:
                self.session.db.get(doc_id)
            except Exception:  # noqa: BLE001 - missing, deleted or unreadable: the link leads nowhere
                return False
            return True

    def stop(self) -> None:
        """Cancel a pending autosave (the window saves before closing the session)."""
        self._autosave.cancel()

    def _refused(self, message: str) -> None:
        self.invalid = True
        self.error = message
        self.banner.show_message("error", message)
        self.state_changed.emit()

    def _read(self) -> dict[str, Any] | None:
        try:
            return self.session.db.get(self.doc_id)
        except NotFound:
            return None

    # ------------------------------------------------------------------ changes from elsewhere
    def external_change(self, change: DocumentChanged) -> None:
        """A change of this document came from the session (any writer). Our own saves are
        recognised by their revision and ignored."""
        if change.rev in self._own_revs:
            return
        if change.deleted:
            if self._read() is None:
                self._deleted_elsewhere()
            return
        doc = self._read()
        if doc is None or doc.get("_rev") == self.base.get("_rev") or doc.get("_rev") in self._own_revs:
            return
        if lock_only_change(self.base, doc):  # locked, unlocked or broken: what is typed stays
            self.base = doc
            self.state_changed.emit()
            if self.dirty:
                self._autosave()  # on the new revision (the lock decides whether it goes through)
            return
        if self.dirty:
            if not self._follow_rename(doc):
                self._changed_elsewhere(doc)
            return
        self._load(doc)
        self.deleted = False
        self.banner.clear()
        self.state_changed.emit()

    def _follow_rename(self, doc: dict[str, Any] | None) -> bool:
        """When ``doc`` only renames the revision the editor is based on (from the tree, another
        window, the API) and the name was not edited here: show the new name and move to that
        revision; what is typed stays and saves on it (the autosave is asked for). False
        otherwise (nothing done)."""
        if doc is None or not rename_only_change(self.base, doc, self.name_field):
            return False
        based_on = self.base.get(self.name_field)
        if self.name_edit.text() != (based_on if isinstance(based_on, str) else ""):
            return False  # renamed here too: which name stays is the writer's choice (the banner)
        name = doc.get(self.name_field)
        self._loading = True
        try:
            self.name_edit.setText(name if isinstance(name, str) else "")
        finally:
            self._loading = False
        self.base = doc
        self.state_changed.emit()
        if self.dirty:
            self._autosave()
        return True

    def _changed_elsewhere(self, doc: dict[str, Any] | None) -> None:
        if doc is None:
            self._deleted_elsewhere()
            return
        self._elsewhere = doc
        who = doc.get("modifiedBy")
        by = f" by {who}" if isinstance(who, str) and who else ""
        # Asked of the revision itself: a save refused by it (Conflict) may come before the
        # session's event for it, and the event may name an older revision than the one read.
        remote = self.session.origin_of(self.doc_id, str(doc.get("_rev"))) == Origin.REMOTE
        where = "remotely" if remote else "elsewhere"
        self.banner.show_message(
            "warning",
            f"This document was changed {where}{by} while you were typing. Your text is kept and not saved yet.",
            ("Show changes", self.show_changes),
            ("Merge…", self.merge_changes),
            ("Keep mine", self.keep_mine),
            ("Take theirs", self.take_theirs),
        )

    def unsaved_document(self) -> dict[str, Any]:
        """The unsaved version: the revision the editor started from with what the widgets hold."""
        return {**self.base, **self.changes()}

    def show_changes(self) -> QWidget | None:
        """Their changes beside the unsaved ones (the banner's "Show changes")."""
        theirs = self._elsewhere or self._read()
        if theirs is None:
            return None
        return show_changes(self.base, theirs, self.unsaved_document(), self)

    def merge_changes(self) -> QWidget | None:
        """The merge view of the unsaved text with the newer revision (the banner's "Merge…")."""
        theirs = self._elsewhere or self._read()
        if theirs is None:
            return None
        return merge_unsaved(self.session, self.base, theirs, self.unsaved_document(),
                             lambda merged: self.apply_merge(merged, theirs), self)

    def apply_merge(self, merged: dict[str, Any] | None, theirs: dict[str, Any]) -> None:
        """Show the merge of the unsaved text with ``theirs`` (the revision it was merged with)
        and save it on top of that revision."""
        if merged is None:
            return
        self._load(merged)
        self.base = theirs
        self._elsewhere = None
        self.dirty = True
        self.banner.clear()
        self.state_changed.emit()
        self.save()

    def keep_mine(self) -> None:
        """Save the text as typed over the newer revision."""
        if self._elsewhere is not None:
            self.base = dict(self.base, _rev=self._elsewhere.get("_rev"))
        self._elsewhere = None
        self.dirty = True
        self.save()

    def load_theirs(self) -> None:
        """Drop the unsaved text and show the newer revision."""
        doc = self._elsewhere or self._read()
        self._elsewhere = None
        if doc is None:
            self._deleted_elsewhere()
            return
        self._load(doc)
        self.dirty = False
        self.invalid = False
        self.banner.clear()
        self.state_changed.emit()

    def take_theirs(self) -> None:
        """Show the newer revision (the banner's "Take theirs"); the unsaved text is set aside,
        and the banner offers to put it back."""
        set_aside = self.changes() if self.dirty else None
        self.load_theirs()
        if set_aside is not None and not self.deleted:
            self._set_aside = set_aside
            self.banner.show_message("info", "Their version is shown. Your text is set aside until you close the tab.",
                                     ("Put my text back", self.put_back))

    def put_back(self) -> None:
        """Show the text "Take theirs" set aside again, unsaved, over the current revision."""
        if self._set_aside is None:
            return
        stored = self._read() or self.base
        self._load({**stored, **self._set_aside})
        self.base = stored
        self._set_aside = None
        self.banner.clear()
        self.mark_dirty()

    def _deleted_elsewhere(self) -> None:
        self.deleted = True
        self._autosave.cancel()
        self.banner.show_message(
            "warning", "This document was deleted elsewhere. Copy what you need before closing the tab.")
        self.state_changed.emit()
