"""Favourites in a project window: star documents and find them at the top of the sidebar.

A document is starred or unstarred from the tree's context menu, from a tab's context menu, with
the star beside the document's title in its editor, and with Go > Toggle Favourite (Ctrl+Alt+F:
the tree's selection when the tree has the focus, else the document in front). The list is
:mod:`storyloom.app.views.favourites`' record: per project and per machine, never replicated (a
teammate's favourites are theirs). The sidebar follows renames (the list holds ids) and drops
deleted documents as their changes arrive."""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtCore import QObject, QPoint, QSize, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabWidget, QToolButton, QWidget

from storyloom.app import DocumentChanged
from storyloom.app.views.favourites import can_star, favourite_rows, load_favourites, save_favourites, toggled
from storyloom.errors import StoryloomError
from storyloom.gui.explorer import ExplorerPanel
from storyloom.gui.host import WindowHost
from storyloom.gui.sidebar import Sidebar

SHORTCUT = "Ctrl+Alt+F"
STAR_COLOR = "#d9a400"


class Favourites(QObject):
    """The window's favourites: the record, the sidebar section, the menu entries."""

    def __init__(self, host: WindowHost) -> None:
        super().__init__(host.widget)
        self.host = host
        self.session = host.session
        self.ids: list[str] = load_favourites(self.session.db)
        sidebar = host.widget.findChild(Sidebar)
        explorer = host.widget.findChild(ExplorerPanel)
        if sidebar is None or explorer is None:
            raise TypeError("favourites need the window's sidebar and explorer")
        self.sidebar = sidebar
        self.explorer = explorer
        self.action: QAction = host.add_action("Toggle Favourite", self.toggle_focused, keys=SHORTCUT,
                                               icon="ph.star", menu="&Go")
        sidebar.favourite_opened.connect(lambda doc_id: host.navigate_to("", doc_id))
        sidebar.favourite_removed.connect(lambda doc_id: self.set_starred([doc_id], False))
        explorer.is_favourite = self.is_favourite
        explorer.favourite_keys = SHORTCUT
        explorer.favourite_requested.connect(self.toggle)
        tabs = host.tabs
        if isinstance(tabs, QTabWidget):
            bar = tabs.tabBar()
            bar.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            bar.customContextMenuRequested.connect(self._tab_menu)
        host.bridge.documents_changed.connect(self._changed)
        #: The star button in each open editor's header, by the editor's id.
        self._stars: dict[int, tuple[QWidget, QToolButton]] = {}
        host.tabs.changed.connect(self._attach_stars)
        self.show()
        self._attach_stars()

    # ------------------------------------------------------------------ the list
    def is_favourite(self, doc_id: str) -> bool:
        return doc_id in self.ids

    def show(self) -> None:
        rows = favourite_rows(self.ids, self.session.index.get)
        self.sidebar.set_favourites([(r.id, r.name, r.collection) for r in rows])
        for editor, button in self._stars.values():
            self._show_star(button, str(getattr(editor, "doc_id", "")))

    def toggle(self, doc_ids: list[str]) -> None:
        """Star ``doc_ids``, or unstar them when every one already is."""
        wanted = [i for i in doc_ids if can_star(self.session.index.get(i))]
        if wanted:
            self._save(toggled(self.ids, wanted))

    def set_starred(self, doc_ids: list[str], starred: bool) -> None:
        if starred:
            self._save(self.ids + [i for i in doc_ids if i not in self.ids])
        else:
            self._save([i for i in self.ids if i not in doc_ids])

    def _save(self, ids: list[str]) -> None:
        # Deleted documents leave the record when it is next written.
        existing = [i for i in ids if self.session.index.get(i) is not None]
        try:
            self.ids = save_favourites(self.session.editor, existing)
        except StoryloomError as exc:
            self.host.show_message(f"Favourites could not be saved: {exc}", 8000)
            return
        self.show()

    def toggle_focused(self) -> None:
        """Ctrl+Alt+F: the tree's selection when the tree has the focus, else the tab in front."""
        if self.explorer.view.hasFocus():
            ids = self.explorer.selected_ids()
        else:
            editor = self.host.tabs.current_editor()
            ids = [editor.doc_id] if editor is not None else []
        if not ids:
            self.host.show_message("Select a document to star it.", 4000)
            return
        self.toggle(ids)
        starred = all(self.is_favourite(i) for i in ids)
        self.host.show_message("Added to Favourites." if starred else "Removed from Favourites.", 3000)

    # ------------------------------------------------------------------ editors
    def star_of(self, editor: QWidget) -> QToolButton | None:
        """The star in an open editor's header."""
        found = self._stars.get(id(editor))
        return found[1] if found is not None else None

    def _attach_stars(self) -> None:
        editors = [e for e in self.host.tabs.editors() if isinstance(e, QWidget)]
        alive = {id(e) for e in editors}
        for key in [key for key in self._stars if key not in alive]:
            del self._stars[key]
        for editor in editors:
            doc_id = getattr(editor, "doc_id", None)
            if id(editor) in self._stars or not isinstance(doc_id, str):
                continue
            if not can_star(self.session.index.get(doc_id)):
                continue
            header, title = _header_of(editor)
            if header is None:
                continue
            button = QToolButton()
            button.setObjectName("favouriteStar")
            button.setAutoRaise(True)
            button.setCheckable(True)
            button.setIconSize(QSize(18, 18))
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda checked, d=doc_id: self.set_starred([d], checked))
            header.insertWidget(header.indexOf(title) + 1, button)
            self._stars[id(editor)] = (editor, button)
            self._show_star(button, doc_id)

    def _show_star(self, button: QToolButton, doc_id: str) -> None:
        starred = self.is_favourite(doc_id)
        button.setChecked(starred)
        button.setIcon(qta.icon("ph.star-fill", color=STAR_COLOR) if starred else qta.icon("ph.star"))
        button.setToolTip(f"{'Remove from' if starred else 'Add to'} Favourites ({SHORTCUT})")

    # ------------------------------------------------------------------ tabs
    def tab_menu(self, index: int) -> QMenu | None:
        """A tab's context menu: star or unstar its document, close it."""
        tabs = self.host.tabs
        if not isinstance(tabs, QTabWidget):
            return None
        editor = tabs.widget(index)
        doc_id = getattr(editor, "doc_id", None)
        if not isinstance(doc_id, str):
            return None
        menu = QMenu(tabs)
        starred = self.is_favourite(doc_id)
        if can_star(self.session.index.get(doc_id)):
            action = menu.addAction(qta.icon("ph.star-fill" if starred else "ph.star", color=STAR_COLOR),
                                    f"{'Remove from' if starred else 'Add to'} Favourites\t{SHORTCUT}")
            action.setObjectName("favouriteEntry")
            action.triggered.connect(lambda _checked=False: self.set_starred([doc_id], not starred))
        close = getattr(tabs, "close_tab", None)
        if callable(close):
            menu.addAction("Close Tab\tCtrl+W", lambda: close(index))
        return menu

    def _tab_menu(self, point: QPoint) -> None:
        tabs = self.host.tabs
        if not isinstance(tabs, QTabWidget):
            return
        index = tabs.tabBar().tabAt(point)
        menu = self.tab_menu(index) if index >= 0 else None
        if menu is not None:
            menu.exec(tabs.tabBar().mapToGlobal(point))

    # ------------------------------------------------------------------ changes
    def _changed(self, changes: list[DocumentChanged]) -> None:
        if self.session.closed:
            return
        if any(change.id in self.ids for change in changes):
            self.show()  # a rename shows its new name; a deleted document drops out


def _header_of(editor: QWidget) -> tuple[Any, QWidget | None]:
    """The layout of an editor's header and its title field (``name_edit``), or ``(None, None)``."""
    title = getattr(editor, "name_edit", None)
    layout = editor.layout()
    if layout is None or not isinstance(title, QWidget):
        return None, None
    for i in range(layout.count()):
        item = layout.itemAt(i)
        child = item.layout() if item is not None else None
        if child is not None and child.indexOf(title) >= 0:
            return child, title
    return None, None
