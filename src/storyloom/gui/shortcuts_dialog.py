"""Help > Keyboard Shortcuts (F1): every action of a window that has a shortcut, grouped by menu.

The list is read from the window itself, never written down by hand, so it cannot fall behind:
first the menu bar's menus in their order (a submenu is its own group, ``File › Recent``), then
any other action with a shortcut that the window or its panels own (the tree's New Document,
Rename, …), grouped under the panel's ``shortcutGroup`` property or its object name.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from storyloom.gui import theme
from storyloom.gui.widgets import dialog_layout

ROW_HEIGHT = 26
ROW_SPACER = 10
MAX_HEIGHT = 800

Row = tuple[str, str]  # (what the action does, its keys)
Group = tuple[str, list[Row]]


def action_text(action: QAction) -> str:
    """The action's label without mnemonics (``&``) or the trailing ``…``."""
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text.rstrip(".…").strip()


def action_keys(action: QAction) -> str:
    """Every shortcut of the action as the platform writes it, ``" / "`` between them."""
    return " / ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty())


def _menu_title(menu: QMenu) -> str:
    return menu.title().replace("&&", "\0").replace("&", "").replace("\0", "&")


def _menu_groups(menu: QMenu, title: str, seen: set[int]) -> list[Group]:
    rows: list[Row] = []
    subgroups: list[Group] = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        sub = action.menu()
        if isinstance(sub, QMenu):
            subgroups.extend(_menu_groups(sub, f"{title} › {_menu_title(sub)}", seen))
            continue
        keys = action_keys(action)
        if keys and id(action) not in seen:
            seen.add(id(action))
            rows.append((action_text(action), keys))
    return ([(title, rows)] if rows else []) + subgroups


def _owner_group(action: QAction) -> str:
    owner = action.parent()
    while owner is not None:
        group = owner.property("shortcutGroup")
        if group:
            return str(group)
        name = owner.objectName()
        if name and isinstance(owner, QWidget) and not isinstance(owner, QMainWindow):
            return name[:1].upper() + name[1:]
        owner = owner.parent()
    return "Other"


def shortcut_groups(window: QMainWindow) -> list[Group]:
    """``[(group, [(action, keys), ...]), ...]``: the menus in menu-bar order, then the rest."""
    seen: set[int] = set()
    groups: list[Group] = []
    for top in window.menuBar().actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            groups.extend(_menu_groups(menu, _menu_title(menu), seen))
    others: dict[str, list[Row]] = {}
    for action in window.findChildren(QAction):
        keys = action_keys(action)
        if not keys or id(action) in seen or action.menu() is not None:
            continue
        seen.add(id(action))
        others.setdefault(_owner_group(action), []).append((action_text(action), keys))
    groups.extend(others.items())
    return groups


class ShortcutsDialog(QDialog):
    """A two-column table (action, keys) with one header row per group."""

    def __init__(self, groups: list[Group], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard Shortcuts")
        self.groups = groups
        layout, _heading = dialog_layout(self, "Keyboard Shortcuts", spacing=theme.M)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Action", "Shortcut"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFrameShape(QTableWidget.Shape.NoFrame)
        self.table.setWordWrap(False)
        table_palette = self.table.palette()
        table_palette.setColor(QPalette.ColorRole.Base, table_palette.color(QPalette.ColorRole.Window))
        self.table.setPalette(table_palette)
        self.table.verticalHeader().setMinimumSectionSize(ROW_SPACER)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self._fill()
        layout.addWidget(self.table, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(480)
        rows_height = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        self.resize(520, min(MAX_HEIGHT, rows_height + 130))

    def _fill(self) -> None:
        palette = self.palette()
        muted = palette.placeholderText().color()
        bold = QFont(self.font())
        bold.setWeight(QFont.Weight.DemiBold)
        for number, (group, rows) in enumerate(self.groups):
            if number:
                self._add_spacer()
            row = self.table.rowCount()
            self.table.insertRow(row)
            heading = QTableWidgetItem(group.upper())
            heading.setFont(bold)
            heading.setForeground(muted)
            heading.setData(Qt.ItemDataRole.UserRole, group)
            self.table.setItem(row, 0, heading)
            self.table.setSpan(row, 0, 1, 2)
            self.table.setRowHeight(row, ROW_HEIGHT + 4)
            for text, keys in rows:
                row = self.table.rowCount()
                self.table.insertRow(row)
                self.table.setItem(row, 0, QTableWidgetItem(text))
                key_item = QTableWidgetItem(keys)
                key_item.setFont(bold)
                key_item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, 1, key_item)

    def _add_spacer(self) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setRowHeight(row, ROW_SPACER)

    def entries(self) -> list[tuple[str, str, str]]:
        """``(group, action, keys)`` for every row shown (what the tests read)."""
        out: list[tuple[str, str, str]] = []
        group = ""
        for row in range(self.table.rowCount()):
            first, second = self.table.item(row, 0), self.table.item(row, 1)
            if first is None:
                continue
            if first.data(Qt.ItemDataRole.UserRole):
                group = str(first.data(Qt.ItemDataRole.UserRole))
            elif second is not None:
                out.append((group, first.text(), second.text()))
        return out


def show_shortcuts(window: QMainWindow) -> ShortcutsDialog:
    """Open the dialog (window-modal) for ``window``'s actions and return it."""
    dialog = ShortcutsDialog(shortcut_groups(window), window)
    dialog.open()
    return dialog
