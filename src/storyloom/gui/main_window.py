"""The main window of one project: collections rail, tree, tabs, status bar, and the panels of
:data:`storyloom.gui.panels.PANELS`, built in one loop against the window's host interface
(:class:`storyloom.gui.host.WindowHost`, which this window is).

:func:`open_project_window` opens the project's session (with this window's navigation port,
for the API's ``/navigate``), starts the API when the options enable it, shows the window and
returns it. Closing the window saves pending edits, records the open tabs, closes the session
(which stops the API) and emits :attr:`MainWindow.closed`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import qtawesome as qta
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import ApiStateChanged, DocumentChanged, ProjectSession, Workspace
from storyloom.app.views.open_tabs import load_open_tabs, save_open_tabs, without_missing
from storyloom.errors import StoryloomError
from storyloom.gui.appearance import restyle_with_theme
from storyloom.gui.bridge import SessionBridge
from storyloom.gui.explorer import ExplorerPanel
from storyloom.gui.host import Keys, Stoppable
from storyloom.gui.navigation import GuiNavigation
from storyloom.gui.options_dialog import OptionsDialog
from storyloom.gui.panels import PANELS, PanelSpec
from storyloom.gui.quick_open import QuickOpen
from storyloom.gui.sidebar import ATTACHMENTS, RAIL, SETTINGS, Sidebar
from storyloom.gui.status_bar import StatusBar
from storyloom.gui.style import window_style
from storyloom.gui.tabs import DocumentTabs
from storyloom.gui.tree_model import MarkProvider
from storyloom.gui.widgets import keep_on_screen, remember_place, restore_place
from storyloom.project import ATTACHMENT_TYPE, FOLDER_TYPE, SETTINGS_ID

if TYPE_CHECKING:
    from storyloom.gui.backup_status import AutoBackupController
    from storyloom.gui.conflict_marks import ConflictMarks
    from storyloom.gui.damaged_project import DamageNotice
    from storyloom.gui.info_drawer import InfoDrawer
    from storyloom.gui.locks_ui import LockController
    from storyloom.gui.problems_panel import ProblemsPanel
    from storyloom.gui.search_panel import SearchPanel
    from storyloom.gui.sync_panel import SyncStatus

ICON_COLOR = "#8a94a0"
#: The name the project windows' place is remembered under (``windows.json``): one for all of
#: them, as they are one kind of window (a project opened for the first time opens where the
#: writer keeps their project window), and windows.json never grows with every project opened.
PLACE = "project"
#: The least the documents' area asks of the window, whatever an editor's content would like.
DOCUMENTS_MINIMUM = QSize(420, 240)


class DocumentArea(QStackedWidget):
    """The welcome page or the tabs. Its minimum is its own, never its editors': a wide toolbar
    or a long problem message is elided, wrapped or scrolled inside the editor, and never moves
    the splitter's handles or grows the window (the writer's sizes stay the writer's)."""

    def minimumSizeHint(self) -> QSize:
        return QSize(DOCUMENTS_MINIMUM)


class MainWindow(QMainWindow):
    """One project's window. ``closed`` is emitted after the session is closed."""

    closed = Signal()
    # The parts built from PANELS (each under its name).
    play_actions: tuple[QAction, QAction]
    problems_panel: ProblemsPanel
    search_panel: SearchPanel
    conflict_marks: ConflictMarks
    info_drawer: InfoDrawer
    remote_settings_action: QAction
    lock_ui: LockController
    sync_status: SyncStatus
    auto_backups: AutoBackupController
    damage_notice: DamageNotice

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
        self.restyle()
        restyle_with_theme(self)
        self.bridge = SessionBridge(session, self)
        self.sidebar = Sidebar(session.name)
        self.explorer = ExplorerPanel(session)
        self.tabs = DocumentTabs(session)
        self.welcome = self._welcome()
        self.documents = DocumentArea()
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
        self._counted_at = -1  # the index's shape_changes when the rail was last counted
        self._make_menus()
        self._parts: dict[str, object] = {}
        self.build_panels(PANELS)
        # The tree, the counts and the tabs last: the index they read may still be loading on
        # its thread (open_project_window) while the rest of the window is built.
        self.sidebar.select("Script")
        self.update_counts()
        self.restore_tabs()
        self._show_api_status()

    def restyle(self) -> None:
        """The current theme's style sheet (at start, and at each theme change: appearance)."""
        self.setStyleSheet(window_style())

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

    def _make_menus(self) -> None:
        file = self.menu("&File")
        # The tree's New Document (Ctrl+N) works from anywhere in the window: with the focus
        # elsewhere it creates beside the open document (new_document).
        new = self.explorer.actions_by_name["new"]
        new.triggered.disconnect()
        new.triggered.connect(lambda _checked=False: self.new_document())
        new.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        new.setIcon(qta.icon("ph.plus", color=ICON_COLOR))
        file.addAction(new)
        file.addSeparator()
        self.quick_open_action = self.add_action("Quick Open…", self.quick_open, keys="Ctrl+P",
                                                 icon="ph.magnifying-glass", menu=file)
        self.add_action("Save", self.save_current, keys=QKeySequence.StandardKey.Save, icon="ph.floppy-disk", menu=file)
        self.add_action("Save All", self.tabs.save_all, keys="Ctrl+Alt+S", menu=file)
        file.addSeparator()
        self.add_action("Export Game Content…", self.show_export, keys="Ctrl+E", icon="ph.upload-simple", menu=file)
        self.add_action("Export Schema…", lambda: self.show_export("schema"), keys="Ctrl+Shift+E", menu=file)
        # Ctrl+P is Quick Open (as in code editors), so printing takes Ctrl+Alt+P.
        self.add_action("Print / Export Document…", self.show_print, keys="Ctrl+Alt+P", icon="ph.printer", menu=file)
        file.addSeparator()
        self.add_action("Close Tab", self.tabs.close_current, keys="Ctrl+W", menu=file)
        self.add_action("Options…", self.show_options, keys="Ctrl+,", icon="ph.gear-six", menu=file)
        file.addSeparator()
        self.add_action("Close Project", self.close, keys="Ctrl+Shift+W", menu=file)
        edit = self.menu("&Edit")
        for text, keys, method in (("Undo", QKeySequence.StandardKey.Undo, "undo"),
                                   ("Redo", QKeySequence.StandardKey.Redo, "redo")):
            action = self.add_action(text, partial(self._on_focus, method), keys=keys, menu=edit)
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # the focused editor handles its keys
        go = self.menu("&Go")
        for index, entry in enumerate(RAIL[:9]):
            self.add_action(entry.label, partial(self.sidebar.select, entry.key), keys=f"Alt+{index + 1}", menu=go)
        go.addSeparator()
        self.add_action("Next Tab", lambda: self._cycle_tab(1), keys="Ctrl+Tab", menu=go)
        self.add_action("Previous Tab", lambda: self._cycle_tab(-1), keys="Ctrl+Shift+Tab", menu=go)
        self.add_action("Keyboard Shortcuts", self.show_shortcuts, keys="F1", icon="ph.keyboard", menu="&Help")

    def build_panels(self, specs: tuple[PanelSpec, ...]) -> None:
        """Build each part of ``specs`` with this window as its host, in order, and keep it
        under its name; put docks in their place with their menu entry."""
        for spec in specs:
            menu = self.menu(spec.menu) if spec.title else None
            before = len(menu.actions()) if menu is not None else 0
            part = spec.factory(self)
            self._parts[spec.name] = part
            setattr(self, spec.name, part)
            if menu is not None:
                self._add_dock(spec, part, menu, before)

    def _add_dock(self, spec: PanelSpec, part: object, menu: QMenu, before: int) -> None:
        dock = spec.dock(part) if spec.dock is not None else part
        if not isinstance(dock, QDockWidget):
            raise TypeError(f"the panel {spec.name!r} has no dock")
        self.addDockWidget(spec.area, dock)
        beside = self._parts.get(spec.tab_with) if spec.tab_with else None
        if isinstance(beside, QDockWidget):
            self.tabifyDockWidget(beside, dock)
        dock.hide()
        if spec.entry is not None:
            run = spec.entry
            action = QAction(spec.title, self)
            action.triggered.connect(lambda _checked=False: run(part))
        else:
            action = dock.toggleViewAction()
            action.setText(spec.title)
        if spec.icon:
            action.setIcon(qta.icon(spec.icon, color=ICON_COLOR))
        if spec.shortcut:
            action.setShortcut(QKeySequence(spec.shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        after = menu.actions()[before] if before < len(menu.actions()) else None  # before the part's own entries
        if spec.separator:
            menu.insertSeparator(after) if after is not None else menu.addSeparator()
        menu.insertAction(after, action) if after is not None else menu.addAction(action)
        self.addAction(action)  # the shortcut works whatever has focus in the window

    # ------------------------------------------------------------------ the host (storyloom.gui.host.WindowHost)
    @property
    def widget(self) -> QWidget:
        return self

    @property
    def tree(self) -> QTreeView:
        return self.explorer.view

    def part(self, name: str) -> object:
        return self._parts[name]

    def menu(self, title: str) -> QMenu:
        bar = self.menuBar()
        for action in bar.actions():
            found = action.menu()
            if action.text() == title and isinstance(found, QMenu):
                return found
        menu = QMenu(title, bar)
        help_action = next((a for a in bar.actions() if a.text() == "&Help"), None)
        if help_action is not None:
            bar.insertMenu(help_action, menu)
        else:
            bar.addMenu(menu)
        return menu

    def add_action(self, text: str, slot: Callable[[], object], *, keys: Keys | None = None,
                   icon: str | None = None, menu: QMenu | str | None = None,
                   documents_only: bool = False) -> QAction:
        action = QAction(text, self)
        if keys:
            action.setShortcut(QKeySequence(keys))
        if icon:
            action.setIcon(qta.icon(icon, color=ICON_COLOR))
        action.triggered.connect(lambda _checked=False: slot())
        if isinstance(menu, str):
            menu = self.menu(menu)
        if menu is not None:
            menu.addAction(action)
        if documents_only:  # e.g. F2, which renames in the tree: here it belongs to the documents' area
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.tabs.addAction(action)
        else:
            self.addAction(action)
        return action

    def add_marks(self, marks: MarkProvider) -> None:
        self.explorer.marks.append(marks)
        self.tabs.marks.append(marks)

    def refresh_marks(self) -> None:
        self.explorer.view.viewport().update()
        self.tabs.update_marks()

    def show_message(self, text: str, timeout_ms: int = 0) -> None:
        self.status.showMessage(text, timeout_ms)

    def select_collection(self, key: str) -> None:
        self.sidebar.select(key)

    # ------------------------------------------------------------------ intents
    def show_collection(self, key: str) -> None:
        self.explorer.set_collection(key)
        if key == SETTINGS:
            self.open_document(SETTINGS_ID)

    def new_document(self) -> None:
        """Ctrl+N: a new document in the tree's selected folder when the focus is in the tree;
        from anywhere else, in the folder of the open document (its collection shown on the
        left), or in the tree's selection when no document of a collection is open."""
        focus = QApplication.focusWidget()
        if focus is None or not self.explorer.isAncestorOf(focus):
            editor = self.tabs.current_editor()
            summary = self.session.index.get(editor.doc_id) if editor is not None else None
            if summary is not None and summary.is_tree and summary.type != FOLDER_TYPE and summary.collection:
                if self.sidebar.current() != summary.collection:
                    self.sidebar.select(str(summary.collection))
                self.explorer.reveal(summary.id)  # selected: the new document goes beside it
        self.explorer.new_document()

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

    def show_print(self) -> QWidget:
        """File > Print / Export Document…: the current document, the GDD or the scripts to a file."""
        from storyloom.gui.print_dialog import PrintDialog  # loaded when first asked for

        editor = self.tabs.current_editor()
        dialog = PrintDialog(self.session, editor.doc_id if editor is not None else None, self)
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
        # Counted again only when a document came, went or changed collection (an autosave
        # changes none of that): the index counts those changes.
        if self.session.index.shape_changes != self._counted_at:
            self._counts.start()

    def _api_state_changed(self, _event: ApiStateChanged) -> None:
        self._show_api_status()

    def _show_api_status(self) -> None:
        if self.session.closed:
            return
        self.status.set_api(self.session.api.status, self.workspace.options.api_enabled)

    def update_counts(self) -> None:
        """The rail's counts, counted in the index's table (no summary is read)."""
        index = self.session.index
        counts = index.tree_counts()
        self._counted_at = index.shape_changes
        for entry in RAIL:
            if entry.key != SETTINGS:
                key = ATTACHMENT_TYPE if entry.key == ATTACHMENTS else entry.key
                self.sidebar.set_count(entry.key, counts.get(key, 0))

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
        remember_place(self, PLACE)  # the next project window opens there, on this machine
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
        for part in reversed(self._parts.values()):  # a backup being written, lock calls waiting… end first
            if isinstance(part, Stoppable):
                part.stop()
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
    session.load_index_soon()  # while the window's widgets are built
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
    restored = restore_place(window, PLACE)  # where the last project window was left, on a screen
    window.show()
    if restored:
        keep_on_screen(window)  # its frame too, now that it is known
    return window
