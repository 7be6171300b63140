"""The project manager's dialogs: a project's name (create, rename) checked as it is typed, the
delete confirmation, the report of a Drafft import, and a project's automatic backups to restore."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.auto_backups import AutoBackup, age_text, day_text
from storyloom.drafft.report import ImportReport
from storyloom.gui import icons, theme
from storyloom.gui.widgets import EmptyState, dialog_layout, set_role
from storyloom.project import ProjectError, ProjectManager
from storyloom.words import counted


class ProjectNameDialog(QDialog):
    """Ask for a project's name (and, for a new project, a description). The name is checked
    against the manager's rules as it is typed; the error shows under the field and the accept
    button waits for a valid name."""

    def __init__(
        self,
        manager: ProjectManager,
        *,
        title: str,
        accept_text: str,
        name: str = "",
        except_id: str | None = None,
        with_description: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(440)
        self._manager = manager
        self._except_id = except_id
        self._original = name
        layout, _heading = dialog_layout(self, title)
        layout.addSpacing(theme.S)
        name_label = QLabel("&Name")
        self.name_edit = QLineEdit(name)
        self.name_edit.setPlaceholderText("The Goddess of Fate")
        name_label.setBuddy(self.name_edit)
        layout.addWidget(name_label)
        layout.addWidget(self.name_edit)
        self.error_label = set_role(QLabel(""), "error")
        self.error_label.setWordWrap(True)
        layout.addWidget(self.error_label)
        self.description_edit: QPlainTextEdit | None = None
        if with_description:
            label = QLabel("&Description (optional)")
            self.description_edit = QPlainTextEdit()
            self.description_edit.setPlaceholderText("A line about the story, for your project list")
            self.description_edit.setTabChangesFocus(True)
            self.description_edit.setFixedHeight(72)
            label.setBuddy(self.description_edit)
            layout.addSpacing(theme.XS)
            layout.addWidget(label)
            layout.addWidget(self.description_edit)
        layout.addSpacing(theme.M)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.accept_button = QPushButton(accept_text)
        self.accept_button.setDefault(True)
        self.accept_button.setProperty("primary", "true")
        self.buttons.addButton(self.accept_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.name_edit.textChanged.connect(self._check)
        self.name_edit.selectAll()
        self._check()

    def _check(self) -> None:
        problem = self.problem()
        # An empty field is not an error yet: the button waits, the field stays calm.
        show = problem if self.name_edit.text() else ""
        self.error_label.setText(show)
        self.error_label.setVisible(bool(show))
        self.name_edit.setProperty("invalid", "true" if show else "false")
        self.name_edit.style().unpolish(self.name_edit)
        self.name_edit.style().polish(self.name_edit)
        self.accept_button.setEnabled(not problem)

    def problem(self) -> str:
        """Why the name typed cannot be used ("" when it can)."""
        text = self.name_edit.text()
        if not text.strip():
            return "Type a name."
        if self._original and text.strip() == self._original:
            return "Type a new name." if self._except_id else ""
        try:
            self._manager.check_new_name(text, except_id=self._except_id)
        except ProjectError as exc:
            message = str(exc)
            return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")
        return ""

    def accept(self) -> None:
        if not self.problem():
            super().accept()

    @property
    def name(self) -> str:
        return self.name_edit.text().strip()

    @property
    def description(self) -> str:
        return self.description_edit.toPlainText().strip() if self.description_edit is not None else ""


def confirm_delete(parent: QWidget, name: str, documents: int | None) -> bool:
    """Ask before deleting a project: it cannot be undone. Cancel is the default button."""
    box = QMessageBox(parent)
    box.setObjectName("confirm-delete")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Delete project")
    box.setText(f"Delete “{name}”?")
    what = f"its {counted(documents, 'document')}" if documents else "the project"
    box.setInformativeText(
        f"This removes {what} and every attachment from this machine. It cannot be undone: "
        "back the project up first (Ctrl+B) if you may need it again."
    )
    delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
    delete.setIcon(icons.icon("delete", theme.colors().danger))
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    confirmed = box.clickedButton() is delete
    box.deleteLater()  # the manager lives long: its dialogs must not pile up
    return confirmed


class ImportReportDialog(QDialog):
    """What a Drafft import did: the totals in a sentence, then the full report."""

    def __init__(self, report: ImportReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("import-report")
        self.setWindowTitle("Import report")
        self.resize(760, 560)
        warnings = len(report.warnings)
        parts = [
            f"{counted(report.imported, 'document')} imported",
            f"{report.converted} converted",
            f"{report.skipped_count} skipped",
            counted(report.attachments, "attachment"),
        ]
        if warnings:
            parts.append(counted(warnings, "warning"))
        layout, heading = dialog_layout(self, f"Imported “{report.project_name}”",
                                        f"From {report.source} (Drafft {report.format}): " + ", ".join(parts) + ".")
        self.summary = heading.intro
        if report.notices:
            todo = QLabel("To do: " + "; ".join(report.notices) + ".")
            todo.setWordWrap(True)
            layout.addWidget(todo)
        layout.addSpacing(theme.S)
        self.details = QPlainTextEdit(report.to_text())
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.details, 1)
        self.buttons = QDialogButtonBox()
        self.open_button = QPushButton(icons.icon("open", theme.colors().accent_text), "Open project")
        self.open_button.setProperty("primary", "true")
        self.open_button.setDefault(True)
        self.buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons, 0, Qt.AlignmentFlag.AlignRight)


class AutoBackupsDialog(QDialog):
    """A project's automatic backups, the newest first (when, how long ago, size), the newest
    selected: Restore (or a double-click) accepts the chosen one, which the project manager
    restores as a new project named :attr:`restored_name`, shown before the click."""

    def __init__(self, project_name: str, backups: list[AutoBackup], keep: int,
                 name_for: Callable[[AutoBackup], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("auto-backups")
        self.setWindowTitle(f"Automatic backups — {project_name}")
        self.resize(600, 460)
        self.backups = backups
        self._name_for = name_for
        self.restored_name = ""
        policy = (f"“{project_name}”: one when the project opens, one after each hour of edits; the last "
                  f"{keep} are kept." if keep else
                  f"“{project_name}”: automatic backups are off; set how many to keep in a project's Options (Ctrl+,).")
        layout, heading = dialog_layout(self, "Automatic backups", policy,
                                        icon=icons.icon("auto-backup", theme.colors().accent))
        self.policy = heading.intro
        layout.addSpacing(theme.S)
        self.list = QTreeWidget()
        self.list.setObjectName("auto-backup-list")
        self.list.setColumnCount(3)
        self.list.setHeaderLabels(["Taken", "", "Size"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAllColumnsShowFocus(True)
        self.list.setIconSize(QSize(16, 16))
        self.list.setStyleSheet(f"QTreeView::item {{ padding: 0px {theme.S}px; }}")
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionsClickable(False)
        self.list.headerItem().setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        muted = QColor(theme.colors().muted)
        icon = icons.icon("auto-backup", theme.colors().muted)
        now = datetime.now(UTC)
        for backup in backups:
            item = QTreeWidgetItem([day_text(backup.time, now), age_text(backup.time, now), backup.size_text()])
            item.setIcon(0, icon)
            item.setForeground(1, muted)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(0, f"{backup.local_time()}\n{backup.path}")
            item.setSizeHint(0, QSize(0, 34))
            self.list.addTopLevelItem(item)
        self.empty = EmptyState(
            icons.icon("auto-backup", theme.colors().muted), "No automatic backups yet",
            "Storyloom takes one when you open the project, and another after each hour of edits." if keep else
            "Automatic backups are off for every project on this machine.")
        self.empty.setObjectName("auto-backups-empty")
        layout.addWidget(self.list if backups else self.empty, 1)
        (self.empty if backups else self.list).hide()
        self.outcome = QWidget()
        outcome = QVBoxLayout(self.outcome)
        outcome.setContentsMargins(0, theme.XS, 0, 0)
        outcome.setSpacing(theme.XS)
        outcome.addWidget(set_role(QLabel("Restore makes a new project beside this one, which stays as it is:"),
                                   "caption"))
        target = QHBoxLayout()
        target.setSpacing(theme.S)
        target_icon = QLabel()
        target_icon.setPixmap(icons.icon("project", theme.colors().accent).pixmap(QSize(16, 16)))
        target.addWidget(target_icon)
        self.target_name = QLabel("")
        self.target_name.setObjectName("restored-name")
        font = self.target_name.font()
        font.setBold(True)
        self.target_name.setFont(font)
        self.target_name.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        target.addWidget(self.target_name, 1)
        outcome.addLayout(target)
        layout.addWidget(self.outcome)
        layout.addSpacing(theme.S)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.restore_button = QPushButton(icons.icon("restore", theme.colors().accent_text), "Restore")
        self.restore_button.setProperty("primary", "true")
        self.restore_button.setDefault(True)
        self.buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.list.currentItemChanged.connect(self._chosen_changed)
        self.list.itemActivated.connect(lambda _item, _column: self.accept())
        if backups:
            self.list.setCurrentItem(self.list.topLevelItem(0))
            self.list.setFocus()
        self._chosen_changed()

    def chosen(self) -> AutoBackup | None:
        item = self.list.currentItem()
        index = self.list.indexOfTopLevelItem(item) if item is not None else -1
        return self.backups[index] if 0 <= index < len(self.backups) else None

    def _chosen_changed(self, *_: object) -> None:
        backup = self.chosen()
        self.restore_button.setEnabled(backup is not None)
        self.restored_name = self._name_for(backup) if backup is not None else ""
        self.target_name.setText(self.restored_name)
        self.outcome.setVisible(backup is not None)

    def accept(self) -> None:
        if self.chosen() is not None:
            super().accept()
