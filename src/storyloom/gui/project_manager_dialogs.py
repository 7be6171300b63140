"""The project manager's dialogs: a project's name (create, rename) checked as it is typed, the
delete confirmation, and the report of a Drafft import."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.drafft.report import ImportReport
from storyloom.gui import icons, theme
from storyloom.gui.widgets import set_role
from storyloom.project.manager import ProjectError, ProjectManager


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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.L)
        layout.setSpacing(theme.S)
        layout.addWidget(set_role(QLabel(title), "heading"))
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
    what = f"its {documents} documents" if documents else "the project"
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.L)
        layout.setSpacing(theme.S)
        layout.addWidget(set_role(QLabel(f"Imported “{report.project_name}”"), "heading"))
        warnings = len(report.warnings)
        parts = [
            f"{report.imported} documents imported",
            f"{report.converted} converted",
            f"{report.skipped_count} skipped",
            f"{report.attachments} attachments",
        ]
        if warnings:
            parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        self.summary = set_role(QLabel(f"From {report.source} (Drafft {report.format}): " + ", ".join(parts) + "."),
                                "caption")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
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
