"""The collections rail: the 14 content collections, then Attachments and Project Settings,
under the writer's Favourites.

Each entry has an icon and a colour, as Drafft users know them, so a collection is found at a
glance. The rail is a short fixed list; choosing an entry emits :attr:`Sidebar.chosen`. The
Favourites section at the top lists the starred documents (:meth:`Sidebar.set_favourites`, filled
by :mod:`storyloom.gui.favourites`); opening one emits :attr:`Sidebar.favourite_opened`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QMenu, QVBoxLayout, QWidget

from storyloom.gui import icons
from storyloom.project import COLLECTIONS

ATTACHMENTS = "Attachments"
FAVOURITE_ROW_HEIGHT = 28
# Beyond this many rows the Favourites section scrolls, so the rail stays in view.
FAVOURITE_ROWS_SHOWN = 6
SETTINGS = "ProjectSettings"  # the settings document's id, and its rail entry


@dataclass(frozen=True)
class RailEntry:
    key: str  # a collection's app name, or ATTACHMENTS / SETTINGS
    label: str


RAIL: tuple[RailEntry, ...] = (
    *(RailEntry(c.app_name, c.export_name) for c in COLLECTIONS if c.app_name != SETTINGS),
    RailEntry(ATTACHMENTS, "Attachments"),
    RailEntry(SETTINGS, "Project Settings"),
)
BY_KEY: dict[str, RailEntry] = {entry.key: entry for entry in RAIL}


def collection_icon(key: str) -> QIcon:
    """The icon of a collection (or of the rail's last two entries) in its colour."""
    try:
        return icons.collection_icon("Attachment" if key == ATTACHMENTS else key)
    except KeyError:
        return icons.icon("document")


def collection_label(key: str) -> str:
    entry = BY_KEY.get(key)
    return entry.label if entry else key


class Sidebar(QWidget):
    """The rail. ``chosen(key)`` fires when the user picks an entry (mouse or keyboard)."""

    chosen = Signal(str)
    #: A favourite was opened (its document id): click, Enter.
    favourite_opened = Signal(str)
    #: "Remove from Favourites" in a favourite's context menu (its document id).
    favourite_removed = Signal(str)

    def __init__(self, project_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 12, 0, 8)
        layout.setSpacing(8)
        self.title = QLabel(project_name)
        self.title.setObjectName("sidebarTitle")
        self.title.setContentsMargins(16, 0, 16, 4)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setToolTip(project_name)
        self.title.setWordWrap(True)  # a long project name wraps rather than being cut
        layout.addWidget(self.title)
        self._favourites_section(layout)
        self.list = QListWidget()
        self.list.setObjectName("collectionRail")
        self.list.setFrameShape(QListWidget.Shape.NoFrame)
        self.list.setIconSize(QSize(18, 18))
        self.list.setSpacing(1)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for index, entry in enumerate(RAIL):
            if entry.key == ATTACHMENTS:
                spacer = QListWidgetItem("")
                spacer.setFlags(Qt.ItemFlag.NoItemFlags)
                spacer.setSizeHint(QSize(10, 12))
                self.list.addItem(spacer)
            item = QListWidgetItem(collection_icon(entry.key), entry.label)
            item.setData(Qt.ItemDataRole.UserRole, entry.key)
            item.setSizeHint(QSize(10, 32))
            item.setToolTip(f"{entry.label} (Alt+{index + 1})" if index < 9 else entry.label)
            self.list.addItem(item)
        self.list.currentItemChanged.connect(self._changed)
        layout.addWidget(self.list, 1)
        self.setMinimumWidth(176)

    def _favourites_section(self, layout: QVBoxLayout) -> None:
        self.favourites_heading = QLabel("FAVOURITES")
        self.favourites_heading.setObjectName("favouritesHeading")
        self.favourites_heading.setContentsMargins(20, 4, 16, 0)
        layout.addWidget(self.favourites_heading)
        self.favourites = QListWidget()
        self.favourites.setObjectName("favouritesList")
        self.favourites.setFrameShape(QListWidget.Shape.NoFrame)
        self.favourites.setIconSize(QSize(16, 16))
        self.favourites.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.favourites.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.favourites.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.favourites.customContextMenuRequested.connect(self._favourite_menu)
        self.favourites.itemActivated.connect(self._favourite_activated)
        self.favourites.itemClicked.connect(self._favourite_activated)
        layout.addWidget(self.favourites)
        self.favourites_hint = QLabel("Starred documents show here (Ctrl+Alt+F).")
        self.favourites_hint.setWordWrap(True)
        self.favourites_hint.setObjectName("favouritesHint")
        self.favourites_hint.setContentsMargins(20, 0, 16, 4)
        layout.addWidget(self.favourites_hint)
        self.set_favourites([])

    def set_favourites(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Show ``rows`` (document id, name, collection) as the Favourites section."""
        self.favourites.clear()
        for doc_id, name, collection in rows:
            item = QListWidgetItem(collection_icon(collection), name)
            item.setData(Qt.ItemDataRole.UserRole, doc_id)
            item.setToolTip(f"{name} — {collection_label(collection)}")
            item.setSizeHint(QSize(10, FAVOURITE_ROW_HEIGHT))
            self.favourites.addItem(item)
        shown = min(len(rows), FAVOURITE_ROWS_SHOWN)
        self.favourites.setFixedHeight(shown * FAVOURITE_ROW_HEIGHT + (2 if shown else 0))
        self.favourites.setVisible(bool(rows))
        self.favourites_hint.setVisible(not rows)

    def favourite_ids(self) -> list[str]:
        return [self.favourites.item(r).data(Qt.ItemDataRole.UserRole) for r in range(self.favourites.count())]

    def _favourite_activated(self, item: QListWidgetItem) -> None:
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        if doc_id:
            self.favourite_opened.emit(doc_id)

    def _favourite_menu(self, point: QPoint) -> None:
        item = self.favourites.itemAt(point)
        if item is None:
            return
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.favourite_opened.emit(doc_id))
        menu.addAction("Remove from Favourites", lambda: self.favourite_removed.emit(doc_id))
        menu.exec(self.favourites.viewport().mapToGlobal(point))

    def _changed(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if key:
            self.chosen.emit(key)

    def current(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def select(self, key: str) -> None:
        """Make ``key`` the current entry (emits ``chosen`` when it changes)."""
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == key:
                self.list.setCurrentItem(item)
                return

    def set_count(self, key: str, count: int) -> None:
        """Show how many documents a collection holds next to its name."""
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == key:
                entry = BY_KEY[key]
                item.setText(f"{entry.label}    {count}" if count else entry.label)
                return
