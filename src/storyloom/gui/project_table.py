"""The project manager's table: one row per project (name, description, documents, last
change), with what each column shows, sorts by and says in its tooltip."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from storyloom.gui import icons, theme
from storyloom.project import ProjectSummary, display_name
from storyloom.words import counted

COLUMNS = ("Name", "Description", "Documents", "Last modified")
NAME, DESCRIPTION, DOCUMENTS, MODIFIED = range(4)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def relative_time(when: datetime | None, now: datetime | None = None) -> str:
    """``just now``, ``5 minutes ago``, ``yesterday``, or the date: how long ago, as people say it."""
    if when is None:
        return "—"
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        minutes = int(seconds // 60)
        return f"{counted(minutes, 'minute')} ago"
    local, today = when.astimezone(), now.astimezone()
    if local.date() == today.date():
        return f"today {local:%H:%M}"
    if (today.date() - local.date()).days == 1:
        return f"yesterday {local:%H:%M}"
    if local.year == today.year:
        return f"{local:%b} {local.day}"
    return f"{local:%b} {local.day}, {local.year}"


class ProjectTableModel(QAbstractTableModel):
    """The projects as rows (one :class:`ProjectSummary` each)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ProjectSummary] = []

    def set_rows(self, rows: list[ProjectSummary]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.TextAlignmentRole:
                align = Qt.AlignmentFlag.AlignRight if section == DOCUMENTS else Qt.AlignmentFlag.AlignLeft
                return int(align | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME:
                return display_name(row.info.name) or "(unnamed)"
            if column == DESCRIPTION:
                return row.problem or " ".join(row.description.split())
            if column == DOCUMENTS:
                return "—" if row.documents is None else f"{row.documents:,}"
            return relative_time(row.modified)
        if role == SORT_ROLE:
            if column == NAME:
                return row.info.name.casefold()
            if column == DESCRIPTION:
                return row.description.casefold()
            if column == DOCUMENTS:
                return -1 if row.documents is None else row.documents
            return row.modified.timestamp() if row.modified else 0.0
        if role == Qt.ItemDataRole.DecorationRole and column == NAME:
            return icons.icon("error") if row.problem else icons.icon("project", theme.colors().accent)
        if role == Qt.ItemDataRole.ForegroundRole and column in (DESCRIPTION, MODIFIED):
            return QColor(theme.colors().danger if row.problem and column == DESCRIPTION else theme.colors().muted)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            align = Qt.AlignmentFlag.AlignRight if column == DOCUMENTS else Qt.AlignmentFlag.AlignLeft
            return int(align | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == MODIFIED and row.modified:
                return row.modified.astimezone().strftime("%Y-%m-%d %H:%M:%S")
            if column == DESCRIPTION and (row.problem or row.description):
                return row.problem or row.description
            if column == NAME:
                return f"{row.info.name}\n{row.info.path}"
        return None

    def summary(self, row: int) -> ProjectSummary:
        return self.rows[row]
