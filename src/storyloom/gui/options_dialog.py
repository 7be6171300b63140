"""The Options dialog: how the app looks (theme, editor font), who you are (username), the local
API (its switch, key, port and answer cache) and how many automatic backups are kept per project.

The options are a person's, on one machine (:class:`~storyloom.app.AppOptions`, never
replicated). The dialog is one page of sections, each with an icon and a heading, listed on
the left as well (a click scrolls to the section). The theme and the editor font show at once
while the dialog is open, so the writer sees the choice; Cancel puts back what was saved.

Save copies the fields into the workspace's options (each checked by
:class:`~storyloom.app.AppOptions`' own rules; a wrong value is shown under its field, and its
section scrolls into view) and calls ``workspace.save_options()``, which starts, stops or
restarts the API of every open project. When the API then fails to start (a port in use), the
dialog stays open and says why."""

from __future__ import annotations

import copy

import qtawesome as qta
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from superqt import QSearchableComboBox

from storyloom.api.keys import generate_api_key
from storyloom.app import OptionsError, Workspace
from storyloom.app.options import (
    MAX_ANSWER_CACHE_MB,
    MAX_BACKUPS_KEEP,
    MAX_EDITOR_FONT_SIZE,
    MIN_EDITOR_FONT_SIZE,
    AppOptions,
)
from storyloom.errors import StoryloomError
from storyloom.gui import appearance, theme
from storyloom.gui.widgets import DialogHeading, set_role

_FIELDS = ("username", "api_key", "api_port", "api_answer_cache_mb", "api_enabled", "auto_backups_keep",
           "theme", "editor_font_family", "editor_font_size")
#: The size spin box's lowest value, shown as "Default" (the system's size: 0 in the options).
_DEFAULT_SIZE = MIN_EDITOR_FONT_SIZE - 1
SYSTEM_FONT = "System monospace"
SAMPLE = "::Mara:: Where were you last night? [worried]\n@if $trust > 2\n    ::Ivo:: At the lighthouse."
LABEL_WIDTH = 112
MIN_WIDTH = 880
# Tall enough for the Appearance and You sections without scrolling; the rest scrolls.
PREFERRED_HEIGHT = 700
THEMES = (("system", "System", "ph.desktop"), ("light", "Light", "ph.sun"), ("dark", "Dark", "ph.moon"))


class _Section(QWidget):
    """An icon and a heading over a grid of labelled rows."""

    def __init__(self, key: str, title: str, icon: str, intro: str = "") -> None:
        super().__init__()
        self.setObjectName(f"optionsSection-{key}")
        self.key = key
        self.title = title
        self.icon = icon
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(theme.M)
        head = QHBoxLayout()
        head.setSpacing(theme.S)
        badge = QLabel()
        badge.setPixmap(qta.icon(icon, color=theme.colors().accent).pixmap(QSize(20, 20)))
        head.addWidget(badge)
        heading = set_role(QLabel(title), "heading")
        head.addWidget(heading, 1)
        column.addLayout(head)
        if intro:
            note = set_role(QLabel(intro), "caption")
            note.setWordWrap(True)
            column.addWidget(note)
        self.grid = QGridLayout()
        self.grid.setContentsMargins(28, 0, 0, 0)  # under the heading's text, past its icon
        self.grid.setHorizontalSpacing(theme.L)
        self.grid.setVerticalSpacing(theme.M)
        self.grid.setColumnMinimumWidth(0, LABEL_WIDTH)
        self.grid.setColumnStretch(1, 1)
        column.addLayout(self.grid)


class OptionsDialog(QDialog):
    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("optionsDialog")
        self.setWindowTitle("Options")
        # Wide enough that the API key's placeholder shows whole beside the longest label.
        self.setMinimumWidth(MIN_WIDTH)
        self.resize(self.sizeHint())
        self.workspace = workspace
        options = workspace.options
        self._saved_look = (options.theme, options.editor_font_family, options.editor_font_size)
        self.errors: dict[str, QLabel] = {}
        self.sections: dict[str, _Section] = {}
        self._field_section: dict[str, str] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.L)
        outer.setSpacing(theme.L)
        outer.addWidget(DialogHeading(
            "Options", "Yours, on this computer: they are never sent to the team or the server.",
            icon=qta.icon("ph.gear-six", color=theme.colors().muted)))
        body = QHBoxLayout()
        body.setSpacing(theme.L)
        self.nav = QListWidget()
        self.nav.setObjectName("optionsNav")
        self.nav.setFixedWidth(168)
        self.nav.setIconSize(QSize(18, 18))
        self.nav.setFrameShape(QFrame.Shape.NoFrame)
        self.nav.setSpacing(1)
        self.nav.currentRowChanged.connect(self._go_to_section)
        body.addWidget(self.nav)
        self.page_scroll = QScrollArea()
        self.page_scroll.setObjectName("optionsScroll")
        self.page_scroll.setWidgetResizable(True)
        self.page_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.page_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        page.setObjectName("optionsPage")
        self.page_layout = QVBoxLayout(page)
        self.page_layout.setContentsMargins(0, 0, theme.S, 0)
        self.page_layout.setSpacing(theme.XL + theme.S)
        self.page_scroll.setWidget(page)
        body.addWidget(self.page_scroll, 1)
        outer.addLayout(body, 1)
        self._appearance_section(options)
        self._you_section(options)
        self._api_section(options)
        self._backups_section(options)
        self.page_layout.addStretch(1)
        self.result_label = QLabel()
        self.result_label.setObjectName("optionsResult")
        self.result_label.setWordWrap(True)
        self.result_label.hide()
        outer.addWidget(self.result_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setProperty("primary", "true")
        self.save_button.setIcon(qta.icon("ph.check", color=theme.colors().accent_text))
        cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setIcon(qta.icon("ph.x", color=theme.colors().muted))
        outer.addWidget(buttons)
        self.nav.setCurrentRow(0)
        self.page_scroll.verticalScrollBar().valueChanged.connect(self._follow_scroll)

    def sizeHint(self) -> QSize:
        return QSize(MIN_WIDTH, PREFERRED_HEIGHT)

    # ------------------------------------------------------------------ building
    def _section(self, key: str, title: str, icon: str, intro: str = "") -> _Section:
        section = _Section(key, title, icon, intro)
        self.sections[key] = section
        self.page_layout.addWidget(section)
        item = QListWidgetItem(qta.icon(icon, color=theme.colors().muted), title)
        item.setData(Qt.ItemDataRole.UserRole, key)
        item.setSizeHint(QSize(10, 34))
        self.nav.addItem(item)
        return section

    def _row(self, section: _Section, label: str, widget: QWidget, field: str, hint: str) -> None:
        row = section.grid.rowCount()
        name = QLabel(label)
        name.setObjectName("optionLabel")
        name.setBuddy(widget)
        section.grid.addWidget(name, row, 0, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.setSpacing(theme.XS)
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
        self._field_section[field] = section.key
        section.grid.addWidget(column, row, 1)
        # The label sits on the field's first line, whatever the field's height.
        name.setMinimumHeight(min(widget.sizeHint().height(), 32))

    def _appearance_section(self, options: AppOptions) -> None:
        section = self._section("appearance", "Appearance", "ph.palette",
                                "Shown at once; Save keeps them, Cancel puts back the ones you had.")
        themes = QWidget()
        themes.setObjectName("themeChoice")
        row = QHBoxLayout(themes)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(theme.S)
        self.theme_buttons = QButtonGroup(self)
        self.theme_buttons.setExclusive(True)
        for key, label, icon in THEMES:
            button = QToolButton()
            button.setObjectName(f"theme-{key}")
            button.setText(label)
            button.setIcon(qta.icon(icon))
            button.setIconSize(QSize(18, 18))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setCheckable(True)
            button.setChecked(options.theme == key)
            button.setMinimumWidth(96)
            button.setProperty("themeKey", key)
            self.theme_buttons.addButton(button)
            row.addWidget(button)
        row.addStretch(1)
        self.theme_buttons.buttonToggled.connect(self._theme_toggled)
        self._row(section, "Theme", themes, "theme", "System follows your computer's light or dark setting.")
        font_row = QWidget()
        fonts = QHBoxLayout(font_row)
        fonts.setContentsMargins(0, 0, 0, 0)
        fonts.setSpacing(theme.S)
        self.font_family = QSearchableComboBox()
        self.font_family.setObjectName("editorFontFamily")
        system_family = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        self.font_family.addItem(f"{SYSTEM_FONT} ({system_family})", "")
        monospaced = [f for f in QFontDatabase.families() if QFontDatabase.isFixedPitch(f)]
        others = [f for f in QFontDatabase.families() if f not in monospaced]
        for family in monospaced + others:  # monospace first: scripts line up
            self.font_family.addItem(family, family)
        index = self.font_family.findData(options.editor_font_family)
        if index < 0 and options.editor_font_family:  # a font this computer lacks: kept, shown as chosen
            self.font_family.addItem(f"{options.editor_font_family} (not installed)", options.editor_font_family)
            index = self.font_family.count() - 1
        self.font_family.setCurrentIndex(max(index, 0))
        self.font_family.currentIndexChanged.connect(self._font_changed)
        fonts.addWidget(self.font_family, 1)
        self.font_size = QSpinBox()
        self.font_size.setObjectName("editorFontSize")
        self.font_size.setRange(_DEFAULT_SIZE, MAX_EDITOR_FONT_SIZE)
        self.font_size.setSpecialValueText("Default size")
        self.font_size.setSuffix(" pt")
        self.font_size.setValue(options.editor_font_size or _DEFAULT_SIZE)
        self.font_size.setFixedWidth(132)
        self.font_size.valueChanged.connect(self._font_changed)
        fonts.addWidget(self.font_size)
        self._row(section, "Editor font", font_row, "editor_font_size",
                  "Used by every script, markdown and data editor.")
        self.font_sample = QPlainTextEdit(SAMPLE)
        self.font_sample.setObjectName("editorFontSample")
        self.font_sample.setReadOnly(True)
        self.font_sample.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.font_sample.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        appearance.use_editor_font(self.font_sample)
        self._fit_sample()
        self.errors["editor_font_family"] = self.errors["editor_font_size"]
        section.grid.addWidget(self.font_sample, section.grid.rowCount(), 1)

    def _you_section(self, options: AppOptions) -> None:
        section = self._section("you", "You", "ph.user-circle")
        self.username = QLineEdit(options.username)
        self.username.setPlaceholderText("Your name, as your edits are signed")
        self._row(section, "Username", self.username, "username", "Signs your edits and the locks you hold.")

    def _api_section(self, options: AppOptions) -> None:
        section = self._section("api", "Local API", "ph.broadcast",
                                "Game tools and scripts read the open project over HTTP on this computer.")
        self.api_enabled = QCheckBox("Serve the local REST API while a project is open")
        self.api_enabled.setChecked(options.api_enabled)
        self._row(section, "API", self.api_enabled, "api_enabled",
                  "Tools read the project at http://127.0.0.1:<port> with this key.")
        key_row = QWidget()
        key_layout = QHBoxLayout(key_row)
        key_layout.setContentsMargins(0, 0, 0, 0)
        key_layout.setSpacing(theme.S)
        self.api_key = QLineEdit(options.api_key)
        self.api_key.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        self.api_key.setPlaceholderText("Generated when the API is turned on")
        self.generate = QPushButton(qta.icon("ph.arrows-clockwise", color=theme.colors().muted),
                                    "Regenerate" if options.api_key else "Generate")
        self.generate.clicked.connect(self.generate_key)
        self.copy = QPushButton(qta.icon("ph.copy", color=theme.colors().muted), "Copy")
        self.copy.clicked.connect(self.copy_key)
        key_layout.addWidget(self.api_key, 1)
        key_layout.addWidget(self.generate)
        key_layout.addWidget(self.copy)
        self._row(section, "API key", key_row, "api_key", "Sent as the x-api-key header. Regenerating it "
                  "locks out tools that use the old one.")
        self.api_port = QSpinBox()
        self.api_port.setRange(1, 65535)
        self.api_port.setValue(options.api_port)
        self.api_port.setFixedWidth(132)
        self._row(section, "Port", self.api_port, "api_port", "")
        self.answer_cache = QSpinBox()
        self.answer_cache.setRange(0, MAX_ANSWER_CACHE_MB)
        self.answer_cache.setSingleStep(16)
        self.answer_cache.setSuffix(" MiB")
        self.answer_cache.setSpecialValueText("Off")
        self.answer_cache.setValue(options.api_answer_cache_mb)
        self.answer_cache.setFixedWidth(132)
        self.answer_cache.setToolTip(
            "Exports kept in memory to answer repeated /game-export and /schema-export requests at "
            "once, until the project changes. 0 keeps none: each request builds its export."
        )
        self._row(section, "Answer cache", self.answer_cache, "api_answer_cache_mb",
                  "Exports kept in memory for repeated requests. Off keeps none.")

    def _backups_section(self, options: AppOptions) -> None:
        section = self._section("backups", "Backups", "ph.clock-counter-clockwise")
        self.backups_keep = QSpinBox()
        self.backups_keep.setRange(0, MAX_BACKUPS_KEEP)
        self.backups_keep.setSuffix(" per project")
        self.backups_keep.setSpecialValueText("Off")
        self.backups_keep.setValue(options.auto_backups_keep)
        self.backups_keep.setFixedWidth(160)
        self.backups_keep.setToolTip("Turning them off removes none of the backups taken so far; restore one "
                                     "from the project manager (Automatic backups…).")
        self._row(section, "Keep", self.backups_keep, "auto_backups_keep",
                  "Automatic: when a project opens, then after each hour of edits; the oldest go. Off "
                  "takes none.")

    # ------------------------------------------------------------------ the look, live
    def chosen_theme(self) -> str:
        button = self.theme_buttons.checkedButton()
        return str(button.property("themeKey")) if button is not None else "system"

    def chosen_font(self) -> tuple[str, int]:
        size = self.font_size.value()
        return str(self.font_family.currentData() or ""), 0 if size == _DEFAULT_SIZE else size

    def _theme_toggled(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            self._preview()

    def _font_changed(self, *_args: object) -> None:
        self._preview()
        self._fit_sample()

    def _fit_sample(self) -> None:
        lines = SAMPLE.count("\n") + 1
        self.font_sample.setFixedHeight(self.font_sample.fontMetrics().lineSpacing() * lines + 20)

    def _preview(self) -> None:
        """Show the chosen theme and font now, as Save would keep them."""
        app = QGuiApplication.instance()
        if app is None:
            return
        family, size = self.chosen_font()
        appearance.apply_look(self.chosen_theme(), family, size)
        self._fit_sample()

    def reject(self) -> None:
        """Cancel: the theme and the font go back to the saved ones."""
        appearance.apply_look(*self._saved_look)
        super().reject()

    def _go_to_section(self, row: int) -> None:
        item = self.nav.item(row)
        section = self.sections.get(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None
        if section is not None:
            self.page_scroll.verticalScrollBar().setValue(section.y())

    def _follow_scroll(self, value: int) -> None:
        """The list shows the section at the top of the page as the writer scrolls."""
        bar = self.page_scroll.verticalScrollBar()
        keys = list(self.sections)
        row = 0
        for index, key in enumerate(keys):
            if self.sections[key].y() <= value + theme.L:
                row = index
        if value >= bar.maximum() > 0:
            row = len(keys) - 1  # at the bottom: the last section, however short
        if row != self.nav.currentRow():
            held = self.nav.blockSignals(True)
            self.nav.setCurrentRow(row)
            self.nav.blockSignals(held)

    # ------------------------------------------------------------------ the API key
    def generate_key(self) -> None:
        self.api_key.setText(generate_api_key())
        self.api_key.setEchoMode(QLineEdit.EchoMode.Normal)
        self.generate.setText("Regenerate")

    def copy_key(self) -> None:
        QGuiApplication.clipboard().setText(self.api_key.text())
        self.copy.setText("Copied")

    # ------------------------------------------------------------------ saving
    def show_error(self, field: str, message: str) -> None:
        label = self.errors.get(field)
        if label is None:
            self.result_label.setText(message)
            self.result_label.setProperty("kind", "error")
            self.result_label.show()
            return
        label.setText(message)
        label.show()
        section = self.sections.get(self._field_section.get(field, ""))
        if section is not None:
            self.page_scroll.ensureWidgetVisible(label)

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
            options.set_theme(self.chosen_theme())
            options.set_editor_font(*self.chosen_font())
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
        self._saved_look = (options.theme, options.editor_font_family, options.editor_font_size)
        appearance.apply_appearance(options)
        failures = [s.api.status.error for s in self.workspace.sessions if s.api.status.error]
        if options.api_enabled and failures:
            self.show_error("", f"Saved, but the API could not start: {failures[0]}. Choose another port.")
            return False
        self.accept()
        return True
