"""The Options dialog: username, the local API switch, its key, its port and its answer cache,
and how many automatic backups are kept per project.

Save copies the fields into the workspace's options (each checked by
:class:`~storyloom.app.AppOptions`' own rules; a wrong value is shown under its field) and
calls ``workspace.save_options()``, which starts, stops or restarts the API of every open
project. When the API then fails to start (a port in use), the dialog stays open and says why."""

from __future__ import annotations

import copy

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from storyloom.api.keys import generate_api_key
from storyloom.app import OptionsError, Workspace
from storyloom.app.options import MAX_ANSWER_CACHE_MB, MAX_BACKUPS_KEEP
from storyloom.errors import StoryloomError

_FIELDS = ("username", "api_key", "api_port", "api_answer_cache_mb", "api_enabled", "auto_backups_keep")


class OptionsDialog(QDialog):
    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("optionsDialog")
        self.setWindowTitle("Options")
        # Wide enough that the API key's placeholder shows whole beside the longest label.
        self.setMinimumWidth(544)
        self.workspace = workspace
        options = workspace.options
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 16)
        layout.setSpacing(16)
        form = QFormLayout()
        form.setVerticalSpacing(4)
        form.setHorizontalSpacing(16)
        self.errors: dict[str, QLabel] = {}
        self.username = QLineEdit(options.username)
        self.username.setPlaceholderText("Your name, as your edits are signed")
        self._row(form, "Username", self.username, "username",
                  "Signs your edits and the locks you hold.")
        self.api_enabled = QCheckBox("Serve the local REST API while a project is open")
        self.api_enabled.setChecked(options.api_enabled)
        self._row(form, "Local API", self.api_enabled, "api_enabled",
                  "Game tools read the project at http://127.0.0.1:<port> with this key.")
        key_row = QWidget()
        key_layout = QHBoxLayout(key_row)
        key_layout.setContentsMargins(0, 0, 0, 0)
        key_layout.setSpacing(8)
        self.api_key = QLineEdit(options.api_key)
        self.api_key.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        self.api_key.setPlaceholderText("Generated when the API is turned on")
        self.generate = QPushButton("Regenerate" if options.api_key else "Generate")
        self.generate.clicked.connect(self.generate_key)
        self.copy = QPushButton("Copy")
        self.copy.clicked.connect(self.copy_key)
        key_layout.addWidget(self.api_key, 1)
        key_layout.addWidget(self.generate)
        key_layout.addWidget(self.copy)
        self._row(form, "API key", key_row, "api_key", "Sent as the x-api-key header. Regenerating it "
                  "locks out tools that use the old one.")
        self.api_port = QSpinBox()
        self.api_port.setRange(1, 65535)
        self.api_port.setValue(options.api_port)
        self.api_port.setFixedWidth(120)
        self._row(form, "API port", self.api_port, "api_port", "")
        self.answer_cache = QSpinBox()
        self.answer_cache.setRange(0, MAX_ANSWER_CACHE_MB)
        self.answer_cache.setSingleStep(16)
        self.answer_cache.setSuffix(" MiB")
        self.answer_cache.setSpecialValueText("Off")
        self.answer_cache.setValue(options.api_answer_cache_mb)
        self.answer_cache.setFixedWidth(120)
        self.answer_cache.setToolTip(
            "Exports kept in memory to answer repeated /game-export and /schema-export requests at "
            "once, until the project changes. 0 keeps none: each request builds its export."
        )
        self._row(form, "Answer cache", self.answer_cache, "api_answer_cache_mb",
                  "Exports kept in memory for repeated requests. Off keeps none.")
        self.backups_keep = QSpinBox()
        self.backups_keep.setRange(0, MAX_BACKUPS_KEEP)
        self.backups_keep.setSuffix(" per project")
        self.backups_keep.setSpecialValueText("Off")
        self.backups_keep.setValue(options.auto_backups_keep)
        self.backups_keep.setFixedWidth(160)
        self.backups_keep.setToolTip("Turning them off removes none of the backups taken so far; restore one "
                                     "from the project manager (Automatic backups…).")
        self._row(form, "Backups", self.backups_keep, "auto_backups_keep",
                  "Automatic: when a project opens, then after each hour of edits; the oldest go. Off "
                  "takes none.")
        layout.addLayout(form)
        self.result_label = QLabel()
        self.result_label.setObjectName("optionsResult")
        self.result_label.setWordWrap(True)
        self.result_label.hide()
        layout.addWidget(self.result_label)
        layout.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        layout.addWidget(buttons)

    def _row(self, form: QFormLayout, label: str, widget: QWidget, field: str, hint: str) -> None:
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 8)
        column_layout.setSpacing(4)
        column_layout.addWidget(widget)
        error = QLabel()
        error.setObjectName("fieldError")
        error.setWordWrap(True)
        error.hide()
        column_layout.addWidget(error)
        if hint:
            note = QLabel(hint)
            note.setObjectName("fieldHint")
            note.setWordWrap(True)
            column_layout.addWidget(note)
        self.errors[field] = error
        form.addRow(label, column)

    def generate_key(self) -> None:
        self.api_key.setText(generate_api_key())
        self.api_key.setEchoMode(QLineEdit.EchoMode.Normal)
        self.generate.setText("Regenerate")

    def copy_key(self) -> None:
        QGuiApplication.clipboard().setText(self.api_key.text())
        self.copy.setText("Copied")

    def show_error(self, field: str, message: str) -> None:
        label = self.errors.get(field)
        if label is None:
            self.result_label.setText(message)
            self.result_label.setProperty("kind", "error")
            self.result_label.show()
            return
        label.setText(message)
        label.show()

    def save(self) -> bool:
        """Apply, save and restart the API as needed; True when the dialog closed."""
        for label in self.errors.values():
            label.hide()
        self.result_label.hide()
        options = self.workspace.options
        before = copy.copy(options)
        try:
            options.username = self.username.text().strip()
            options.set_api_key(self.api_key.text())  # a short key is refused under its field
            options.api_enabled = self.api_enabled.isChecked()
            options.set_port(self.api_port.value())
            options.set_answer_cache_mb(self.answer_cache.value())
            options.set_backups_keep(self.backups_keep.value())
            options.validate()
        except OptionsError as exc:
            for field in _FIELDS:
                setattr(options, field, getattr(before, field))
            self.show_error(exc.field, f"{exc}")
            return False
        self.api_key.setText(options.api_key)  # turning the API on may have generated one
        try:
            self.workspace.save_options()
        except (OSError, StoryloomError) as exc:
            self.show_error("", f"The options could not be saved: {exc}")
            return False
        failures = [s.api.status.error for s in self.workspace.sessions if s.api.status.error]
        if options.api_enabled and failures:
            self.show_error("", f"Saved, but the API could not start: {failures[0]}. Choose another port.")
            return False
        self.accept()
        return True
