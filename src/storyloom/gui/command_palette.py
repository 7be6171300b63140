"""The command palette (View > Command Palette…, Ctrl+Shift+P): every command of the window by name.

The commands are read from the window itself, as the shortcuts dialog reads them: the menu
bar's menus in their order (a submenu's place is ``Menu › Submenu``), then the other actions
with a name and a shortcut that the window's parts own (the tree's New Document, Rename…). The
matching and the order are :func:`storyloom.app.views.command_palette.rank_commands`; the look is
the quick open's (:mod:`storyloom.gui.quick_open`). Enter runs the chosen command after the
palette closes (so the command finds the window as the writer left it), Esc closes; a command
that cannot run now is listed greyed, after the others, and Enter on it does nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QFont, QIcon, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QLineEdit,
    QListView,
    QMainWindow,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.views.command_palette import Command, CommandMatch, clean_label, rank_commands
from storyloom.gui import theme
from storyloom.gui.host import WindowHost
from storyloom.gui.shortcuts_dialog import action_keys

SHORTCUT = "Ctrl+Shift+P"
ROW_HEIGHT = 32
ICON = 16
#: The role holding a row's :class:`CommandMatch`.
MATCH_ROLE = Qt.ItemDataRole.UserRole + 1


def _menu_title(menu: QMenu) -> str:
    return clean_label(menu.title())


def window_commands(window: QMainWindow) -> tuple[list[Command], dict[str, QAction]]:
    """The window's commands in menu order, and the action behind each (by its key)."""
    commands: list[Command] = []
    actions: dict[str, QAction] = {}

    def add(action: QAction, where: str) -> None:
        key = str(id(action))
        label = clean_label(action.text())
        if key in actions or not label or action.isSeparator() or not action.isVisible():
            return
        actions[key] = action
        commands.append(Command(key, label, where, action_keys(action), action.isEnabled()))

    def walk(menu: QMenu, where: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{where} › {_menu_title(sub)}")
            else:
                add(action, where)

    for top in window.menuBar().actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _menu_title(menu))
    for action in window.findChildren(QAction):
        if action.menu() is None and action_keys(action) and str(id(action)) not in actions:
            owner = action.parent()
            where = str(owner.property("shortcutGroup") or "") if owner is not None else ""
            add(action, where or "Window")
    return commands, actions


class _Commands(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self.matches: list[CommandMatch] = []

    def set_matches(self, matches: list[CommandMatch]) -> None:
        self.beginResetModel()
        self.matches = matches
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.matches)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        # A disabled command stays selectable (arrows pass over it) but reads as disabled.
        enabled = self.matches[index.row()].command.enabled
        return Qt.ItemFlag.ItemIsSelectable | (Qt.ItemFlag.ItemIsEnabled if enabled else Qt.ItemFlag.NoItemFlags)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        match = self.matches[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return match.command.label
        if role == Qt.ItemDataRole.ToolTipRole:
            command = match.command
            state = "" if command.enabled else " (not available now)"
            return f"{command.where} › {command.label}{state}"
        if role == MATCH_ROLE:
            return match
        return None


class _CommandDelegate(QStyledItemDelegate):
    """A row: the command's icon, its name (its matched letters bold), its menu muted after it,
    and its shortcut at the right, as a menu shows it."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.actions = actions

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(option.rect.width(), ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        match: CommandMatch | None = index.data(MATCH_ROLE)
        if match is None:
            return
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        rect = option.rect.adjusted(theme.XS, 1, -theme.XS, -1)
        if selected:
            highlight = option.palette.color(QPalette.ColorRole.Highlight)
            highlight.setAlphaF(0.16 if match.command.enabled else 0.08)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(highlight)
            painter.drawRoundedRect(rect, 4, 4)
        text_colour = option.palette.color(QPalette.ColorRole.Text)
        if not match.command.enabled:
            text_colour = option.palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        font = QFont(option.font)
        bold = QFont(font)
        bold.setWeight(QFont.Weight.Bold)
        x = rect.left() + theme.S
        action = self.actions.get(match.command.key)
        icon = action.icon() if action is not None else None
        if icon is not None and not icon.isNull():
            mode = QIcon.Mode.Normal if match.command.enabled else QIcon.Mode.Disabled
            icon.paint(painter, QRect(x, rect.center().y() - ICON // 2, ICON, ICON), mode=mode)
        x += ICON + theme.S
        label = match.command.label
        positions = set(match.positions)
        for position, char in enumerate(label):
            used = bold if position in positions else font
            painter.setFont(used)
            painter.setPen(text_colour)
            metrics = painter.fontMetrics()
            painter.drawText(QRect(x, rect.top(), metrics.horizontalAdvance(char) + 1, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, char)
            x += metrics.horizontalAdvance(char)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        keys = match.command.keys
        keys_width = metrics.horizontalAdvance(keys) + theme.S if keys else 0
        if keys:
            painter.setPen(text_colour)
            painter.drawText(QRect(rect.right() - keys_width - theme.S, rect.top(), keys_width, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, keys)
        where = match.command.where + ("" if match.command.enabled else "  ·  not available now")
        room = rect.right() - keys_width - theme.L - (x + theme.M)
        if where and room > 20:
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText) if match.command.enabled
                           else text_colour)
            painter.drawText(QRect(x + theme.M, rect.top(), room, rect.height()),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             metrics.elidedText(where, Qt.TextElideMode.ElideRight, room))
        painter.restore()


class CommandPalette(QDialog):
    """The palette over ``window``: a query line and the matching commands."""

    def __init__(self, window: QMainWindow, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setObjectName("commandPalette")
        self.setWindowTitle("Command Palette")
        self.window_ = window
        self.resize(640, 440)
        self.commands, self._actions = window_commands(window)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.M, theme.M, theme.M, theme.M)
        layout.setSpacing(theme.S)
        self.query = QLineEdit()
        self.query.setObjectName("commandPaletteQuery")
        self.query.setPlaceholderText("Type a command: save, export, problems, play…")
        self.query.setClearButtonEnabled(True)
        self.query.textChanged.connect(self.update_matches)
        self.query.installEventFilter(self)
        layout.addWidget(self.query)
        self.model = _Commands()
        self.list = QListView()
        self.list.setObjectName("quickOpenList")  # the quick open's look
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        self.list.setItemDelegate(_CommandDelegate(self._actions, self.list))
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.activated.connect(self.run)
        self.list.clicked.connect(self.run)
        layout.addWidget(self.list, 1)
        self.empty = QLabel("No command matches. Try fewer letters.")
        self.empty.setObjectName("emptyState")
        self.empty.hide()
        layout.addWidget(self.empty)
        self.ran: Command | None = None
        self.update_matches("")

    def update_matches(self, text: str) -> None:
        matches = rank_commands(self.commands, text)
        self.model.set_matches(matches)
        self.empty.setVisible(not matches)
        self.list.setVisible(bool(matches))
        if matches:
            self.list.setCurrentIndex(self.model.index(0))

    def shown(self) -> list[CommandMatch]:
        """The rows listed, in order (what the tests read)."""
        return list(self.model.matches)

    def current(self) -> Command | None:
        index = self.list.currentIndex()
        return self.model.matches[index.row()].command if index.isValid() else None

    def eventFilter(self, watched: Any, event: Any) -> bool:
        # Arrows move in the list and Enter runs, while the typing stays in the query.
        if watched is self.query and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self._move(key)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.run(self.list.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _move(self, key: int) -> None:
        rows = self.model.rowCount()
        if not rows:
            return
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 10, Qt.Key.Key_PageUp: -10}[
            Qt.Key(key)]
        row = self.list.currentIndex().row()
        self.list.setCurrentIndex(self.model.index(max(0, min(rows - 1, row + step))))

    def run(self, index: QModelIndex | QPersistentModelIndex) -> None:
        """Close and run the command at ``index``; nothing for a command that cannot run now."""
        if not index.isValid():
            return
        command = self.model.matches[index.row()].command
        action = self._actions.get(command.key)
        if action is None or not action.isEnabled():
            QApplication.beep()
            return
        self.ran = command
        self.accept()
        # After the palette is gone: the command's dialog or focus lands in the window.
        QTimer.singleShot(0, action.trigger)


def open_palette(host: WindowHost) -> CommandPalette:
    window = host.widget
    if not isinstance(window, QMainWindow):
        raise TypeError("the command palette opens over a main window")
    palette = CommandPalette(window)
    palette.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    palette.open()
    palette.query.setFocus()
    return palette


def command_palette_action(host: WindowHost) -> QAction:
    """View > Command Palette… (Ctrl+Shift+P)."""
    return host.add_action("Command Palette…", lambda: open_palette(host), keys=SHORTCUT,
                           icon="ph.command", menu="&View")
