"""The main window of one project: collections rail, tree, tabs, status bar.

:func:`open_project_window` opens the project's session (with this window's navigation port,
for the API's ``/navigate``), starts the API when the options enable it, shows the window and
returns it. Closing the window saves pending edits, records the open tabs, closes the session
(which stops the API) and emits :attr:`MainWindow.closed`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import ApiStateChanged, DocumentChanged, ProjectSession, Workspace
from storyloom.app.views.open_tabs import load_open_tabs, save_open_tabs, without_missing
from storyloom.errors import StoryloomError
from storyloom.gui.bridge import SessionBridge
from storyloom.gui.explorer import ExplorerPanel
from storyloom.gui.navigation import GuiNavigation
from storyloom.gui.options_dialog import OptionsDialog
from storyloom.gui.quick_open import QuickOpen
from storyloom.gui.sidebar import RAIL, SETTINGS, Sidebar
from storyloom.gui.status_bar import StatusBar
from storyloom.gui.style import window_style
from storyloom.gui.tabs import DocumentTabs
from storyloom.project import ATTACHMENT_TYPE, FOLDER_TYPE, SETTINGS_ID


class MainWindow(QMainWindow):
    """One project's window. ``closed`` is emitted after the session is closed."""

    closed = Signal()

    def __init__(self, workspace: Workspace, session: ProjectSession, navigation: GuiNavigation,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.workspace = workspace
        self.session = session
        self.navigation = navigation
        self._closing = False
        self.setWindowTitle(f"{session.name} — Storyloom")
        self.resize(1440, 900)
        self.setStyleSheet(window_style())
        self.bridge = SessionBridge(session, self)
        self.sidebar = Sidebar(session.name)
        self.explorer = ExplorerPanel(session)
        self.tabs = DocumentTabs(session)
        self.welcome = self._welcome()
        self.documents = QStackedWidget()
        self.documents.addWidget(self.welcome)
        self.documents.addWidget(self.tabs)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("mainSplitter")
        splitter.setHandleWidth(1)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.explorer)
        splitter.addWidget(self.documents)
        splitter.setStretchFactor(2, 1)
        splitter.setCollapsible(2, False)
        splitter.setSizes([200, 280, 960])
        self.setCentralWidget(splitter)
        self.status = StatusBar(session.name, workspace.user)
        self.status.set_user(workspace.user)
        self.setStatusBar(self.status)
        self.sidebar.chosen.connect(self.show_collection)
        self.explorer.open_requested.connect(self.open_document)
        self.tabs.changed.connect(self._tabs_changed)
        self.bridge.documents_changed.connect(self._documents_changed)
        self.bridge.api_state_changed.connect(self._api_state_changed)
        # /navigate arrives on a server thread: queued to this (the GUI) thread.
        navigation.requested.connect(self.navigate_to, Qt.ConnectionType.QueuedConnection)
        navigation.attached = True
        self._counts = QTimer(self)
        self._counts.setSingleShot(True)
        self._counts.setInterval(300)
        self._counts.timeout.connect(self.update_counts)
        self._make_menus()
        from storyloom.gui.problems_panel import install_problems_panel  # the Problems dock (Ctrl+Shift+M)

        self.problems_panel = install_problems_panel(self)
        from storyloom.gui.search_panel import install_search_panel  # the Search dock (Ctrl+Shift+F)

        self.search_panel = install_search_panel(self)
        from storyloom.gui.conflict_marks import install_conflict_marks  # conflicts flagged, the merge view
        from storyloom.gui.info_drawer import install_info_drawer  # the Document Info drawer (Ctrl+I)

        self.conflict_marks = install_conflict_marks(self)
        self.info_drawer = install_info_drawer(self, self.conflict_marks.flags)
        self.info_drawer.merge_requested.connect(self.conflict_marks.open_merge)
        self.conflict_marks.changed.connect(self.info_drawer.refresh)
        from storyloom.gui.locks_ui import LockController  # locks in the tree, the tabs, the editors (F2)
        from storyloom.gui.sync_panel import install_sync_panel  # the sync state and its panel

        self.lock_ui = LockController(self)
        self.sync_status = install_sync_panel(self)
        from storyloom.gui.remote_settings_page import install_remote_settings  # Team > Remote Replication…

        self.remote_settings_action = install_remote_settings(self)
        from storyloom.gui.backup_status import install_auto_backups  # a backup per hour of edits

        self.auto_backups = install_auto_backups(self)
        from storyloom.gui.damaged_project import install_damage_notice  # damaged documents, the way back

        self.damage_notice = install_damage_notice(self)
        self.sidebar.select("Script")
        self.update_counts()
        self.restore_tabs()
        self._show_api_status()

    # ------------------------------------------------------------------ building
    def _welcome(self) -> QWidget:
        page = QWidget()
        page.setObjectName("welcome")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(48, 48, 48, 48)
        layout.setSpacing(12)
        layout.addStretch(1)
        icon = QLabel()
        icon.setPixmap(qta.icon("ph.book-open", color="#8a94a0").pixmap(QSize(48, 48)))
        icon.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(icon)
        title = QLabel("No document open")
        title.setObjectName("welcomeTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(title)
        hint = QLabel("Pick a document in the tree, press Ctrl+P to open one by name,\n"
                      "or Ctrl+N to create one in the collection on the left.")
        hint.setObjectName("welcomeHint")
        hint.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(hint)
        layout.addStretch(2)
        return page

    def _action(self, menu: object, text: str, keys: str | QKeySequence | None, slot: Callable[[], object],
                icon: str | None = None) -> QAction:
        action = QAction(text, self)
        if keys:
            action.setShortcut(QKeySequence(keys))
        if icon:
            action.setIcon(qta.icon(icon, color="#8a94a0"))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)  # type: ignore[attr-defined]
        return action

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self.quick_open_action = self._action(file, "Quick Open…", "Ctrl+P", self.quick_open, "ph.magnifying-glass")
        self._action(file, "Save", QKeySequence.StandardKey.Save, self.save_current, "ph.floppy-disk")
        self._action(file, "Save All", "Ctrl+Alt+S", self.tabs.save_all)
        file.addSeparator()
        self._action(file, "Export Game Content…", "Ctrl+E", self.show_export, "ph.upload-simple")
        self._action(file, "Export Schema…", "Ctrl+Shift+E", lambda: self.show_export("schema"))
        file.addSeparator()
        self._action(file, "Close Tab", "Ctrl+W", self.tabs.close_current)
        self._action(file, "Options…", "Ctrl+,", self.show_options, "ph.gear-six")
        file.addSeparator()
        self._action(file, "Close Project", "Ctrl+Shift+W", self.close)
        edit = bar.addMenu("&Edit")
        self._action(edit, "Undo", QKeySequence.StandardKey.Undo, lambda: self._on_focus("undo"))
        self._action(edit, "Redo", QKeySequence.StandardKey.Redo, lambda: self._on_focus("redo"))
        for action in edit.actions():  # the focused editor handles its own keys
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        view = bar.addMenu("&Go")
        for index, entry in enumerate(RAIL[:9]):
            self._action(view, entry.label, f"Alt+{index + 1}", lambda key=entry.key: self.sidebar.select(key))
        view.addSeparator()
        self._action(view, "Next Tab", "Ctrl+Tab", lambda: self._cycle_tab(1))
        self._action(view, "Previous Tab", "Ctrl+Shift+Tab", lambda: self._cycle_tab(-1))
        from storyloom.gui.player import add_play_actions  # Play (F5), Play from Here (Shift+F5)

        add_play_actions(self, bar.addMenu("&Play"))
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "Keyboard Shortcuts", "F1", self.show_shortcuts, "ph.keyboard")

    # ------------------------------------------------------------------ intents
    def show_collection(self, key: str) -> None:
        self.explorer.set_collection(key)
        if key == SETTINGS:
            self.open_document(SETTINGS_ID)

    def open_document(self, doc_id: str) -> bool:
        """Open ``doc_id`` in its tab and focus it; False when it no longer exists."""
        editor = self.tabs.open(doc_id)
        if editor is None:
            self.explorer.show_message("That document no longer exists; it was deleted elsewhere.")
            self.explorer.rebuild()
            return False
        return True

    def open_at(self, doc_id: str, line: int = 0, column: int = 1, *, field: str | None = None,
                length: int = 0) -> bool:
        """Open ``doc_id`` with the cursor on ``line`` (1-based; 0 leaves it) or, for a search
        hit, with ``length`` characters of ``field`` selected at ``line``/``column``."""
        if not self.open_document(doc_id):
            return False
        editor = self.tabs.editor(doc_id)
        if editor is not None and field is not None:
            editor.focus_match(field, line, column, length)
        elif editor is not None and line > 0:
            editor.focus_line(line)
        return True

    def navigate_to(self, route: str, doc_id: str) -> None:
        """``/navigate`` (on the GUI thread): open the tab, show it in its tree, raise the window."""
        if not self.open_document(doc_id):
            return
        summary = self.session.index.get(doc_id)
        if summary is not None and summary.type not in (FOLDER_TYPE, ATTACHMENT_TYPE) and summary.collection:
            if self.sidebar.current() != summary.collection:
                self.sidebar.select(str(summary.collection))
            self.explorer.reveal(doc_id)
        self.tabs.open(doc_id)
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def quick_open(self) -> QuickOpen:
        dialog = QuickOpen(self.session, self)
        dialog.chosen.connect(lambda doc_id: self.navigate_to("", doc_id))
        dialog.open()
        dialog.query.setFocus()
        return dialog

    def save_current(self) -> None:
        editor = self.tabs.current_editor()
        if editor is not None:
            editor.save()

    def show_export(self, kind: str = "game") -> QWidget:
        """File > Export Game Content (``kind`` ``"game"``) or Export Schema (``"schema"``)."""
        from storyloom.gui.export_dialog import ExportDialog  # loaded when first asked for

        dialog = ExportDialog(self.session, self.workspace.user, kind, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def show_options(self) -> OptionsDialog:
        dialog = OptionsDialog(self.workspace, self)
        dialog.accepted.connect(self._options_saved)
        dialog.open()
        return dialog

    def _options_saved(self) -> None:
        self.status.set_user(self.workspace.user)
        self._show_api_status()
        self.auto_backups.show()  # turned off, or on again (the next check takes one when due)

    def show_shortcuts(self) -> QWidget:
        from storyloom.gui.shortcuts_dialog import show_shortcuts  # read from this window's actions

        return show_shortcuts(self)

    def _on_focus(self, method: str) -> None:
        widget = self.focusWidget()
        if widget is not None and hasattr(widget, method):
            getattr(widget, method)()

    def _cycle_tab(self, step: int) -> None:
        if self.tabs.count():
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    # ------------------------------------------------------------------ session events
    def _documents_changed(self, changes: list[DocumentChanged]) -> None:
        if self.session.closed:  # queued before the close, delivered after it
            return
        self.explorer.refresh(changes)
        for change in changes:
            editor = self.tabs.editor(change.id)
            if editor is not None:
                editor.external_change(change)
        self._counts.start()

    def _api_state_changed(self, _event: ApiStateChanged) -> None:
        self._show_api_status()

    def _show_api_status(self) -> None:
        if self.session.closed:
            return
        self.status.set_api(self.session.api.status, self.workspace.options.api_enabled)

    def update_counts(self) -> None:
        counts: dict[str, int] = {}
        for summary in self.session.index.summaries():
            if summary.type == ATTACHMENT_TYPE:
                counts["Attachments"] = counts.get("Attachments", 0) + 1
            elif summary.is_tree and summary.type != FOLDER_TYPE:
                counts[str(summary.collection)] = counts.get(str(summary.collection), 0) + 1
        for entry in RAIL:
            if entry.key != SETTINGS:
                self.sidebar.set_count(entry.key, counts.get(entry.key, 0))

    # ------------------------------------------------------------------ tabs
    def _tabs_changed(self) -> None:
        self.documents.setCurrentWidget(self.tabs if self.tabs.count() else self.welcome)

    def restore_tabs(self) -> None:
        tabs = without_missing(load_open_tabs(self.session.db), lambda i: self.session.index.get(i) is not None)
        self.tabs.restore(tabs)
        self._tabs_changed()

    def remember_tabs(self) -> None:
        try:
            save_open_tabs(self.session.editor, self.tabs.state())
        except StoryloomError:  # a refused record of tabs must not keep the window open
            pass

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closing:
            event.accept()
            return
        if not self.tabs.save_all():
            answer = QMessageBox.warning(
                self, "Unsaved changes",
                "Some documents could not be saved (their tabs are marked). Close anyway and lose those edits?",
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Discard:
                event.ignore()
                return
        self._closing = True
        self.remember_tabs()
        self.close_session()
        event.accept()
        self.closed.emit()

    def close_session(self) -> None:
        self._counts.stop()
        for dialog in self.findChildren(QDialog):  # work a dialog runs on a worker (an export) ends first
            stop = getattr(dialog, "stop_work", None)
            if callable(stop):
                stop()
        for editor in self.tabs.editors():
            editor.stop()
        self.search_panel.stop()
        self.problems_panel.stop()
        self.sync_status.stop()
        self.auto_backups.stop()  # a backup being written ends before its store closes
        self.lock_ui.stop()  # lock calls still waiting for the server end first
        self.navigation.attached = False
        self.bridge.detach()
        self.session.close()


def open_project_window(workspace: Workspace, project: str, parent: QWidget | None = None,
                        **session_options: Any) -> MainWindow:
    """Open ``project`` (a name or id) in a new main window, start the API if the options say so
    and sync when the project's remote is enabled, show the window and return it. Opening errors
    (``ProjectNotFound``, ``ProjectAlreadyOpen``) are raised before any window exists, for the
    caller to show. ``session_options`` go to :meth:`Workspace.open_session`."""
    navigation = GuiNavigation()
    session = workspace.open_session(project, navigation=navigation, **session_options)
    try:
        window = MainWindow(workspace, session, navigation, parent)
    except BaseException:
        session.close()
        raise
    navigation.setParent(window)
    # Always: the session serves only when the options enable it, and follows later changes
    # of the options (Options dialog) from here on.
    session.start_api()
    window._show_api_status()
    window.sync_status.apply(session.start_sync())  # a team project syncs while it is open
    window.show()
    return window
