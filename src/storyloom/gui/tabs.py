"""Open documents in tabs: one editor per document, unsaved (•) and invalid state in the tab.

Ctrl+W closes the current tab (saving it first; a tab whose save was refused asks before its
text is dropped). Which tabs are open is kept Qt-free in :mod:`storyloom.app.views.open_tabs`."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QTabBar, QTabWidget, QToolButton, QWidget

from storyloom.app import ProjectSession
from storyloom.app.views.open_tabs import OpenTabs
from storyloom.app.views.outline import display_name
from storyloom.gui import icons
from storyloom.gui.editors import DocumentEditor, editor_for
from storyloom.gui.sidebar import SETTINGS, collection_icon
from storyloom.gui.tree_model import MarkProvider, document_mark
from storyloom.project import SETTINGS_ID
from storyloom.store import Damaged, NotFound


class DocumentTabs(QTabWidget):
    """``changed`` fires when the set of tabs or the current tab changes."""

    changed = Signal()
    #: A document that cannot be read (its id): the window shows it as damaged.
    damaged = Signal(str)

    def __init__(self, session: ProjectSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("documentTabs")
        self.session = session
        self.setDocumentMode(True)
        # Close buttons are our own (a themed icon): with a styled tab bar, Qt's default close
        # button is drawn as a red box.
        self.setTabsClosable(False)
        self.setMovable(True)
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.setUsesScrollButtons(True)
        self.tabCloseRequested.connect(lambda i: self.close_tab(i))
        self.currentChanged.connect(lambda _i: self.changed.emit())
        self._invalid_icon = icons.icon("error")
        #: What documents are marked with (conflicts, locks), shown in their tabs as in the tree.
        self.marks: list[MarkProvider] = []

    def _close_button(self, editor: QWidget) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName("tabCloseButton")
        button.setIcon(icons.icon("close"))
        button.setAutoRaise(True)
        button.setIconSize(QSize(12, 12))
        button.setFixedSize(QSize(18, 18))
        button.setToolTip("Close (Ctrl+W)")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda: self.close_tab(self.indexOf(editor)))
        return button

    # ------------------------------------------------------------------ lookup
    def editors(self) -> list[DocumentEditor]:
        return [self.widget(i) for i in range(self.count())]  # type: ignore[misc]

    def editor(self, doc_id: str) -> DocumentEditor | None:
        for editor in self.editors():
            if editor.doc_id == doc_id:
                return editor
        return None

    def current_editor(self) -> DocumentEditor | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, DocumentEditor) else None

    # ------------------------------------------------------------------ opening and closing
    def open(self, doc_id: str, *, focus: bool = True) -> DocumentEditor | None:
        """Bring ``doc_id``'s tab forward, opening it first; ``None`` when the document is gone."""
        editor = self.editor(doc_id)
        if editor is None:
            try:
                doc = self.session.db.get(doc_id)
            except NotFound:
                return None
            except Damaged:  # said once, in the window's damage warning, with the ways back
                self.damaged.emit(doc_id)
                return None
            editor = editor_for(self.session, doc)
            editor.state_changed.connect(lambda e=editor: self._update_tab(e))
            index = self.addTab(editor, "")
            self.tabBar().setTabButton(index, QTabBar.ButtonPosition.RightSide, self._close_button(editor))
            self._update_tab(editor)
            if not focus:
                self.changed.emit()
                return editor
            self.setCurrentIndex(index)
        else:
            self.setCurrentWidget(editor)
        self.changed.emit()
        if focus:
            target = getattr(editor, "text", None)
            (target if isinstance(target, QWidget) else editor).setFocus()
        return editor

    def close_tab(self, index: int, *, ask: bool = True) -> bool:
        """Save and close the tab at ``index``; False when the user kept it open."""
        editor = self.widget(index)
        if not isinstance(editor, DocumentEditor):
            return False
        if editor.dirty and not editor.deleted and not editor.save() and ask:
            answer = QMessageBox.warning(
                self, "Unsaved changes",
                f"“{editor.title}” could not be saved:\n{editor.error or 'it was changed elsewhere'}\n\n"
                "Close it and lose the unsaved text?",
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Discard:
                return False
        self.removeTab(index)
        editor.deleteLater()
        self.changed.emit()
        return True

    def close_current(self) -> None:
        if self.currentIndex() >= 0:
            self.close_tab(self.currentIndex())

    def save_all(self) -> bool:
        """Save every tab with unsaved edits; False when any save was refused."""
        return all([editor.save() for editor in self.editors() if editor.dirty])

    def _update_tab(self, editor: DocumentEditor) -> None:
        index = self.indexOf(editor)
        if index < 0:
            return
        # The saved name: a rename shows in the tab once, when it is saved, not letter by letter.
        title = display_name(editor.base.get(editor.name_field))
        self.setTabText(index, f"{title} •" if editor.dirty else title)
        kind = SETTINGS if editor.doc_id == SETTINGS_ID else str(
            editor.base.get("collection") or editor.base.get("type") or "")
        mark_icon, mark_texts = document_mark(self.marks, editor.doc_id)
        self.setTabIcon(index, self._invalid_icon if editor.invalid else mark_icon or collection_icon(kind))
        tip = "\n".join([title, *mark_texts])
        if editor.invalid:
            tip += f"\n{editor.error}"
        elif editor.dirty:
            tip += "\nUnsaved changes (saving…)"
        if editor.deleted:
            tip += "\nDeleted elsewhere"
        self.setTabToolTip(index, tip)

    def update_marks(self) -> None:
        """Show the documents' marks again (a conflict appeared or went)."""
        for editor in self.editors():
            self._update_tab(editor)

    # ------------------------------------------------------------------ the open tabs record
    def state(self) -> OpenTabs:
        current = self.current_editor()
        return OpenTabs([e.doc_id for e in self.editors() if not e.deleted], current.doc_id if current else None)

    def restore(self, tabs: OpenTabs) -> None:
        for doc_id in tabs.ids:
            self.open(doc_id, focus=False)
        if tabs.active is not None:
            editor = self.editor(tabs.active)
            if editor is not None:
                self.setCurrentWidget(editor)
