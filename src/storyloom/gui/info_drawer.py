"""The document info drawer: a dock on the right of the project window that follows the current
tab. It shows who created and last changed the document and when, whether it is in conflict
(with the way to the merge view), its revisions (the newest 15 whose bodies the store keeps,
each with who, when and what it changed), the diff of the chosen revision against the current
one, and "Restore this revision", written through the editor gate so locks apply (a refusal is
shown in the drawer, under the button).

Built with its window's host (:data:`storyloom.gui.panels.PANELS`: View ▸ Document Info, Ctrl+I),
it follows the current tab and the session's changes, and asks the open tab to save before a
restore. The rules live in :mod:`storyloom.project.revisions`."""

from __future__ import annotations

import logging

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDockWidget,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import DocumentChanged
from storyloom.app.views.conflict_flags import ConflictFlags
from storyloom.app.views.outline import display_name
from storyloom.errors import StoryloomError
from storyloom.gui import icons, theme
from storyloom.gui.diff_view import DiffView
from storyloom.gui.host import WindowHost
from storyloom.gui.sidebar import collection_label
from storyloom.gui.widgets import set_role
from storyloom.project import (
    LockRefused,
    Revision,
    RevisionList,
    ValidationError,
    diff_documents,
    document_info,
    exact_time,
    list_revisions,
    restore_revision,
    when_text,
)
from storyloom.store import Conflict, NotFound

log = logging.getLogger(__name__)

SHORTCUT = "Ctrl+I"
REV_ROLE = Qt.ItemDataRole.UserRole


class InfoDrawer(QDockWidget):
    """``merge_requested(doc_id)``: the user asked for the merge view of the document shown."""

    merge_requested = Signal(str)

    def __init__(self, host: WindowHost, flags: ConflictFlags | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__("Document Info", parent)
        self.setObjectName("infoDrawer")
        self.host = host
        self.session = host.session
        self.flags = flags
        self.doc_id: str | None = None
        self.listing: RevisionList | None = None
        self.current: dict | None = None
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.stack = QStackedWidget()
        self.empty = set_role(QLabel("Open a document to see who changed it, its revisions and their differences."),
                              "caption")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.XL)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_page())
        self.setWidget(self.stack)
        self.setMinimumWidth(340)
        host.tabs.changed.connect(self.follow)
        self.visibilityChanged.connect(lambda visible: visible and self.follow())
        host.bridge.documents_changed.connect(self.apply)

    def follow(self) -> None:
        """Show the current tab's document (while the drawer shows)."""
        editor = self.host.tabs.current_editor()
        if self.isVisible():
            self.show_document(editor.doc_id if editor is not None else None)

    def _save_first(self, doc_id: str) -> bool:
        """Save the open tab of ``doc_id`` (before a restore); False when it could not be saved."""
        editor = self.host.tabs.editor(doc_id)
        return editor is None or not editor.dirty or editor.save()

    # ------------------------------------------------------------------ building
    def _build_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("infoPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.M)
        layout.setSpacing(theme.S)
        self.title = set_role(QLabel(), "heading")
        self.title.setWordWrap(True)
        self.kind = set_role(QLabel(), "caption")
        layout.addWidget(self.title)
        layout.addWidget(self.kind)
        stamps = QFormLayout()
        stamps.setContentsMargins(0, theme.XS, 0, theme.XS)
        stamps.setHorizontalSpacing(theme.M)
        stamps.setVerticalSpacing(theme.XS)
        self.created = QLabel()
        self.modified = QLabel()
        for label in (self.created, self.modified):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        stamps.addRow(set_role(QLabel("Created"), "caption"), self.created)
        stamps.addRow(set_role(QLabel("Modified"), "caption"), self.modified)
        layout.addLayout(stamps)
        self.flag_box = QFrame()
        set_role(self.flag_box, "banner", level="error")
        flag_layout = QHBoxLayout(self.flag_box)
        flag_layout.setContentsMargins(theme.M, theme.S, theme.S, theme.S)
        flag_layout.setSpacing(theme.S)
        self.flag_icon = QLabel()
        self.flag_icon.setPixmap(icons.icon("warning").pixmap(QSize(18, 18)))
        self.flag_text = QLabel()
        self.flag_text.setWordWrap(True)
        self.merge_button = QPushButton("Merge…")
        self.merge_button.setProperty("primary", "true")
        self.merge_button.clicked.connect(lambda: self.doc_id and self.merge_requested.emit(self.doc_id))
        flag_layout.addWidget(self.flag_icon, 0, Qt.AlignmentFlag.AlignTop)
        flag_layout.addWidget(self.flag_text, 1)
        flag_layout.addWidget(self.merge_button, 0, Qt.AlignmentFlag.AlignTop)
        self.flag_box.hide()
        layout.addWidget(self.flag_box)
        heading = QHBoxLayout()
        heading.setContentsMargins(0, theme.S, 0, 0)
        heading.addWidget(set_role(QLabel("Revisions"), "heading"))
        heading.addStretch(1)
        self.count = set_role(QLabel(), "caption")
        heading.addWidget(self.count)
        layout.addLayout(heading)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        self.revisions = QListWidget()
        self.revisions.setObjectName("revisionList")
        self.revisions.setAlternatingRowColors(False)
        self.revisions.setSpacing(2)
        self.revisions.setWordWrap(True)
        self.revisions.currentItemChanged.connect(lambda *_: self._show_selected())
        splitter.addWidget(self.revisions)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, theme.S, 0, 0)
        lower_layout.setSpacing(theme.S)
        self.compare_title = set_role(QLabel("Compared with the current version"), "caption")
        lower_layout.addWidget(self.compare_title)
        self.diff = DiffView()
        lower_layout.addWidget(self.diff, 1)
        actions = QHBoxLayout()
        actions.setSpacing(theme.S)
        self.restore_button = QPushButton(icons.icon("restore"), "Restore this revision")
        self.restore_button.clicked.connect(self.restore_selected)
        actions.addWidget(self.restore_button)
        actions.addStretch(1)
        lower_layout.addLayout(actions)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        lower_layout.addWidget(self.message)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)
        return page

    # ------------------------------------------------------------------ what it shows
    def show_document(self, doc_id: str | None) -> None:
        """Follow ``doc_id`` (``None``: no document)."""
        if doc_id != self.doc_id:
            self.message.hide()
        self.doc_id = doc_id
        self.refresh()

    def refresh(self) -> None:
        """Read the document and its revisions again, keeping the chosen revision if it is still listed."""
        if self.doc_id is None or self.session.closed:
            self._show_empty()
            return
        try:
            current = self.session.db.get(self.doc_id)
            listing = list_revisions(self.session.db, self.doc_id)
        except NotFound:
            self._show_empty("This document was deleted.")
            return
        chosen = self.selected_rev()
        self.current, self.listing = current, listing
        self.stack.setCurrentIndex(1)
        self.title.setText(display_name(current.get("name") or current.get("projectName")))
        self.kind.setText(collection_label(str(current.get("collection") or current.get("type") or "")))
        info = document_info(current)
        self.created.setText(info.created_text())
        self.created.setToolTip(exact_time(info.created))
        self.modified.setText(info.modified_text())
        self.modified.setToolTip(exact_time(info.modified))
        self._show_flag()
        self._fill_list(listing, chosen)

    def _show_empty(self, text: str | None = None) -> None:
        self.current, self.listing = None, None
        if text:
            self.empty.setText(text)
        else:
            self.empty.setText("Open a document to see who changed it, its revisions and their differences.")
        self.stack.setCurrentIndex(0)

    def _show_flag(self) -> None:
        flag = self.flags.flag(self.doc_id) if self.flags is not None and self.doc_id else None
        self.flag_box.setVisible(flag is not None)
        if flag is not None:
            self.flag_text.setText(flag.text)
            self.merge_button.setVisible(flag.kind == "conflict")

    def _fill_list(self, listing: RevisionList, chosen: str | None) -> None:
        self.revisions.blockSignals(True)
        self.revisions.clear()
        select = 0
        for index, revision in enumerate(listing.revisions):
            item = QListWidgetItem(self._item_text(revision))
            item.setData(REV_ROLE, revision.rev)
            item.setToolTip(f"Revision {revision.rev}\n{exact_time(revision.time)}")
            if revision.current:
                font = QFont(item.font())
                font.setWeight(QFont.Weight.DemiBold)
                item.setFont(font)
            self.revisions.addItem(item)
            if revision.rev == chosen:
                select = index
        self.revisions.blockSignals(False)
        shown = len(listing.revisions)
        count = f"{shown} shown"
        if listing.older:
            kept = listing.older - listing.without_body
            count += f" · {listing.older} older" + (f" ({kept} kept)" if kept else "")
        self.count.setText(count)
        if shown:
            self.revisions.setCurrentRow(select if chosen else min(1, shown - 1))
        self._show_selected()

    @staticmethod
    def _item_text(revision: Revision) -> str:
        who = revision.author or "someone"
        head = f"{revision.number}  ·  {who}, {when_text(revision.time)}"
        if revision.current:
            head += "  ·  current"
        return f"{head}\n{revision.summary}"

    def selected_rev(self) -> str | None:
        item = self.revisions.currentItem()
        return item.data(REV_ROLE) if item is not None else None

    def selected_revision(self) -> Revision | None:
        rev = self.selected_rev()
        if self.listing is None or rev is None:
            return None
        return next((r for r in self.listing.revisions if r.rev == rev), None)

    def _show_selected(self) -> None:
        revision = self.selected_revision()
        if revision is None or self.current is None:
            self.diff.show_diffs([], empty="Choose a revision to compare it with the current version.")
            self.restore_button.setEnabled(False)
            return
        if revision.current:
            self.compare_title.setText("This is the current version")
            self.diff.show_diffs([], empty="Choose an older revision to see what changed since.")
            self.restore_button.setEnabled(False)
            return
        self.compare_title.setText(f"Revision {revision.number} compared with the current version")
        diffs = diff_documents(revision.doc, self.current)
        self.diff.show_diffs(diffs, old_label=f"Rev {revision.number}", new_label="Now",
                             empty="Same content as the current version (only the lock or the stamps differ).")
        self.restore_button.setEnabled(revision.doc is not None and bool(diffs))

    # ------------------------------------------------------------------ restoring
    def restore_selected(self) -> bool:
        """Write the chosen revision's content as a new revision; False when refused (shown)."""
        revision = self.selected_revision()
        if revision is None or self.doc_id is None or self.current is None:
            return False
        if not self._save_first(self.doc_id):  # the open tab's unsaved text goes first
            self._say("error", "Not restored: the open tab has text that could not be saved. "
                      "Save it (Ctrl+S) or resolve its message first.")
            return False
        try:
            result = restore_revision(self.session.editor, self.doc_id, revision.rev,
                                      based_on=str(self.current.get("_rev")))
        except LockRefused as exc:
            self._say("error", f"Not restored: {exc}. Ask them to unlock it, or wait.")
            return False
        except ValidationError as exc:
            details = "; ".join(p.message for p in exc.problems[:2])
            self._say("error", f"Not restored: that revision is not valid today ({details}).")
            return False
        except Conflict:
            self._say("error", "Not restored: the document changed meanwhile. Look at the list again and retry.")
            self.refresh()
            return False
        except StoryloomError as exc:
            self._say("error", f"Not restored: {exc}")
            return False
        self.refresh()
        self._say("success", f"Restored revision {revision.number} as revision {result.rev.split('-', 1)[0]}.")
        return True

    def _say(self, level: str, text: str) -> None:
        colours = theme.colors()
        colour = colours.danger if level == "error" else colours.success
        self.message.setStyleSheet(f"color: {colour};")
        self.message.setText(text)
        self.message.show()

    # ------------------------------------------------------------------ following the session
    def apply(self, changes: list[DocumentChanged]) -> None:
        if self.session.closed or self.doc_id is None or not self.isVisible():
            return
        if any(change.id == self.doc_id for change in changes):
            self.refresh()
