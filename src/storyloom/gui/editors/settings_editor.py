"""The Project Settings editor: a form in sections (General, Export), not a JSON dump.

General: the project's name (the base editor's title field, moved into the form), description
and version. Export: the export sections as checkboxes, the compatibility mode, and the export
mappings of each script language (speech and command templates) with a live preview of a sample
line rendered as the game export would. What the form computes lives in
:mod:`storyloom.app.views.settings_form`; saving writes the changed fields through
``session.editor.update_settings``. A refused value shows its message under its field, and
what was typed stays. The form saves with the revision it loaded: when the settings changed
elsewhere meanwhile, a banner says so (Reload / Overwrite) and nothing typed is lost."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.views import settings_form as form
from storyloom.errors import StoryloomError
from storyloom.gui.editors.base import DocumentEditor
from storyloom.project import (
    DEFAULT_VOICE_OVER_PATH,
    EDITOR_MODES,
    EXPORT_COMPAT,
    MAX_STALE_LOCK_MINUTES,
    MIN_STALE_LOCK_MINUTES,
    SOURCE_LOCALE,
    STALE_LOCK,
    TARGET_LOCALES,
    VOICE_OVER_PATH,
    LockRefused,
    ValidationError,
    stale_lock_minutes,
)
from storyloom.script import MAPPING_VARIABLES
from storyloom.store import Conflict, NotFound


def _label(text: str, name: str = "fieldLabel") -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


class ProjectSettingsEditor(DocumentEditor):
    """The ProjectSettings document as a form. ``errors[field]`` is the inline message label
    of a form field (``projectName``, ``exportSections``, ``exportMappings``, ...)."""

    name_field = "projectName"

    # ------------------------------------------------------------------ building
    def build_body(self) -> QWidget:
        self.errors: dict[str, QLabel] = {}
        self.section_boxes: dict[str, QCheckBox] = {}
        self.tables = form.mapping_tables(self.base)
        self._language_chosen_once = False
        self.kind_label.hide()
        header = self.layout().itemAt(1).layout()  # the base's title row: the name moves into the form
        header.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        page = QWidget()
        page.setObjectName("settingsForm")
        outer = QHBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        content = QWidget()
        content.setMaximumWidth(960)  # a readable line length on wide windows
        outer.addWidget(content, 1)
        outer.addStretch(0)
        self.form_layout = QVBoxLayout(content)
        self.form_layout.setContentsMargins(24, 16, 24, 24)
        self.form_layout.setSpacing(8)
        title = QLabel("Project Settings")
        title.setObjectName("welcomeTitle")
        self.form_title = title
        # The title row takes the kind label (hidden) from the base's header, and with it the
        # editor's header controls (the Lock button goes where the kind label is): the base's
        # row, emptied, would hold them alone above the pages.
        title_row = QHBoxLayout()
        title_row.setContentsMargins(0, 0, 0, 0)
        title_row.setSpacing(12)
        title_row.addWidget(title)
        title_row.addStretch(1)
        header.removeWidget(self.kind_label)
        title_row.addWidget(self.kind_label)
        self.form_layout.addLayout(title_row)
        self._general()
        self._team()
        self._localization()
        self._export()
        self.form_layout.addStretch(1)
        scroll.setWidget(page)
        self.form_scroll = scroll
        # The project's remote on this machine: a page of its own (kept apart from the document).
        from storyloom.gui.remote_settings_page import RemoteSettingsPage

        self.remote_page = RemoteSettingsPage(self.session)
        self.pages = QTabWidget()
        self.pages.setObjectName("settingsPages")
        self.pages.setDocumentMode(True)
        self.pages.addTab(scroll, "General && Export")
        self.pages.addTab(self.remote_page, "Remote Replication")
        self.setFocusProxy(self.name_edit)  # the tab's focus goes to the first field, at the top
        return self.pages

    def showEvent(self, event: QShowEvent) -> None:
        """The form opens at its top (its first field has the focus), wherever it was left."""
        super().showEvent(event)
        self.form_scroll.verticalScrollBar().setValue(0)

    def show_remote_page(self) -> None:
        self.pages.setCurrentWidget(self.remote_page)

    def set_read_only(self, read_only: bool) -> None:
        """The settings document locked by someone else: its form is read-only, while the Remote
        Replication page (this machine's settings, not the document) stays editable."""
        self.form_scroll.widget().setEnabled(not read_only)

    def stop(self) -> None:
        super().stop()
        self.remote_page.stop_work()

    def _heading(self, text: str) -> None:
        self.form_layout.addSpacing(16)
        heading = QLabel(text)
        heading.setObjectName("settingsSection")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        heading.setFont(font)
        self.form_layout.addWidget(heading)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        self.form_layout.addWidget(line)

    def _field(self, key: str, label: str, widget: QWidget, hint: str = "") -> None:
        self.form_layout.addWidget(_label(label))
        if hint:
            self.form_layout.addWidget(_label(hint, "fieldHint"))
        self.form_layout.addWidget(widget)
        error = _label("", "fieldError")
        error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        error.hide()
        self.errors[key] = error
        self.form_layout.addWidget(error)

    def _general(self) -> None:
        self._heading(form.FORM_SECTIONS[0])
        name = self.name_edit
        name.setObjectName("field-projectName")
        name.setFont(self.font())
        name.setFrame(True)
        name.setPlaceholderText("The project's name")
        self._field("projectName", "Project name", name)
        self.description = QPlainTextEdit()
        self.description.setObjectName("field-projectDescription")
        self.description.setFixedHeight(96)
        self.description.textChanged.connect(self.mark_dirty)
        self._field("projectDescription", "Description", self.description)
        self.version = QLineEdit()
        self.version.setObjectName("field-projectVersion")
        self.version.setMaximumWidth(240)
        self.version.textEdited.connect(self.mark_dirty)
        self._field("projectVersion", "Version", self.version)

    def _team(self) -> None:
        self._heading(form.FORM_SECTIONS[1])
        self.stale_lock = QSpinBox()
        self.stale_lock.setObjectName("field-staleLockMinutes")
        self.stale_lock.setRange(MIN_STALE_LOCK_MINUTES, MAX_STALE_LOCK_MINUTES)
        self.stale_lock.setSingleStep(30)
        self.stale_lock.setSuffix(" minutes")
        self.stale_lock.setMaximumWidth(200)
        self.stale_lock.valueChanged.connect(self.mark_dirty)
        self._field(STALE_LOCK, "Stale-lock time", self.stale_lock,
                    "A teammate may break a lock idle longer than this; the project's owners may break any lock. "
                    "The server enforces it once Set up has run again (Remote Replication).")

    def _localization(self) -> None:
        self._heading(form.FORM_SECTIONS[2])
        self.source_locale = QLineEdit()
        self.source_locale.setObjectName("field-sourceLocale")
        self.source_locale.setMaximumWidth(240)
        self.source_locale.setPlaceholderText("en")
        self.source_locale.textEdited.connect(self.mark_dirty)
        self._field(SOURCE_LOCALE, "Source locale", self.source_locale,
                    "The language the writers write in, as a BCP 47 tag: en, fr, pt-BR, zh-Hant, es-419.")
        self.target_locales = QLineEdit()
        self.target_locales.setObjectName("field-targetLocales")
        self.target_locales.setPlaceholderText("fr, de, pt-BR")
        self.target_locales.textEdited.connect(self.mark_dirty)
        self._field(TARGET_LOCALES, "Target locales", self.target_locales,
                    "The languages the project is translated into, separated by commas.")
        self.voice_over = QLineEdit()
        self.voice_over.setObjectName("field-voiceOverPath")
        self.voice_over.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.voice_over.setPlaceholderText(DEFAULT_VOICE_OVER_PATH)
        self.voice_over.textEdited.connect(self.mark_dirty)
        self._field(VOICE_OVER_PATH, "Voice-over files", self.voice_over,
                    "Where the game finds a recorded line, relative to its audio folder: {actor}, {lineId}, "
                    "{locale} and {document} are filled in (the recording script's file column).")

    def _export(self) -> None:
        self._heading(form.FORM_SECTIONS[3])
        boxes = QWidget()
        grid = QGridLayout(boxes)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(24)
        grid.setVerticalSpacing(8)
        for index, (name, _checked) in enumerate(form.export_section_choices(self.base)):
            box = QCheckBox(name)
            box.setObjectName(f"exportSection-{name}")
            box.toggled.connect(self.mark_dirty)
            grid.addWidget(box, index // 5, index % 5)
            self.section_boxes[name] = box
        self._field("exportSections", "Export sections", boxes,
                    "What a game export holds when no collections are named.")
        self.compat = QComboBox()
        self.compat.setObjectName("field-exportCompat")
        for label, value in form.COMPAT_CHOICES:
            self.compat.addItem(label, value)
        self.compat.setMaximumWidth(480)
        self.compat.currentIndexChanged.connect(self.mark_dirty)
        self._field(EXPORT_COMPAT, "Compatibility mode", self.compat)
        self._mappings()

    def _mappings(self) -> None:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        self.language = QComboBox()
        self.language.setObjectName("mappingLanguage")
        for mode in EDITOR_MODES:
            self.language.addItem(form.language_label(mode), mode)
        self.language.setMaximumWidth(240)
        self.language.currentIndexChanged.connect(self._language_chosen)
        layout.addWidget(self.language)
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.speech_template = QLineEdit()
        self.speech_template.setObjectName("speechTemplate")
        self.speech_template.setPlaceholderText('e.g. %actor.Say("%speech", "%expression", "%tag")')
        self.command_template = QLineEdit()
        self.command_template.setObjectName("commandTemplate")
        self.command_template.setPlaceholderText('e.g. ExecuteCommand("%command", %params(,))')
        for caption, edit in (("Speech lines", self.speech_template), ("Command lines", self.command_template)):
            edit.setFont(fixed)
            edit.textEdited.connect(self._template_typed)
            layout.addWidget(_label(caption))
            layout.addWidget(edit)
        self.interpolate = QCheckBox("Interpolate variables on export")
        self.interpolate.setObjectName("interpolateVariables")
        self.interpolate.toggled.connect(self.mark_dirty)
        layout.addWidget(self.interpolate)
        layout.addWidget(_label("Preview"))
        self.preview = QLabel()
        self.preview.setObjectName("mappingPreview")
        self.preview.setFont(fixed)
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.preview)
        variables = " ".join(f"%{name}" for name in sorted(MAPPING_VARIABLES)) + " %params(<sep>) %%"
        self._field("exportMappings", "Export mappings", box,
                    f"A template per script language rewrites each speech and command line. Variables: {variables}")

    # ------------------------------------------------------------------ document <-> widgets
    def apply_document(self, doc: dict[str, Any]) -> None:
        description = doc.get("projectDescription")
        description = description if isinstance(description, str) else ""
        if self.description.toPlainText() != description:
            self.description.setPlainText(description)
        version = doc.get("projectVersion")
        self.version.setText(version if isinstance(version, str) else "")
        for name, checked in form.export_section_choices(doc):
            self.section_boxes[name].setChecked(checked)
        self.stale_lock.blockSignals(True)
        self.stale_lock.setValue(stale_lock_minutes(doc))
        self.stale_lock.blockSignals(False)
        source, targets = form.locale_texts(doc)
        self.source_locale.setText(source)
        self.target_locales.setText(targets)
        self.voice_over.setText(form.voice_over_text(doc))
        index = self.compat.findData(form.compat_value(doc))
        self.compat.setCurrentIndex(max(index, 0))
        self.tables = form.mapping_tables(doc)
        self.interpolate.setChecked(self.tables.interpolate)
        if not self._language_chosen_once:  # first load: the project's script language
            self._language_chosen_once = True
            self.language.setCurrentIndex(max(self.language.findData(doc.get("defaultScriptEditorMode")), 0))
        self._show_templates()
        self._clear_errors()

    def _language_chosen(self, _index: int) -> None:
        self._show_templates()

    def _show_templates(self) -> None:
        mode = str(self.language.currentData() or "text")
        self.speech_template.setText(self.tables.speech.get(mode, ""))
        self.command_template.setText(self.tables.command.get(mode, ""))
        self.update_preview()

    def _template_typed(self, *_args: Any) -> None:
        mode = str(self.language.currentData() or "text")
        self.tables.speech[mode] = self.speech_template.text()
        self.tables.command[mode] = self.command_template.text()
        self.update_preview()
        self.mark_dirty()

    def update_preview(self) -> None:
        preview = form.mapping_preview(self.speech_template.text(), self.command_template.text())
        self.preview.setText(f"{preview.speech_source}\n  → {preview.speech}\n"
                             f"{preview.command_source}\n  → {preview.command}")

    def values(self) -> dict[str, Any]:
        """Every settings field the form shows, as typed."""
        self.tables.interpolate = self.interpolate.isChecked()
        return {
            "projectName": self.name_edit.text(),
            "projectDescription": self.description.toPlainText(),
            "projectVersion": self.version.text(),
            "exportSections": form.export_sections(n for n, box in self.section_boxes.items() if box.isChecked()),
            EXPORT_COMPAT: self.compat.currentData(),
            "exportMappings": form.export_mappings_value(self.base, self.tables),
            **form.stale_lock_value(self.base, self.stale_lock.value()),
            **form.locales_value(self.base, self.source_locale.text(), self.target_locales.text()),
            **form.voice_over_value(self.base, self.voice_over.text()),
        }

    def changes(self) -> dict[str, Any]:
        return form.settings_patch(self.base, self.values())

    # ------------------------------------------------------------------ saving
    def save(self) -> bool:
        """Write the changed fields through ``editor.update_settings``; a refused value shows
        its message under its field (what was typed stays)."""
        self._autosave.cancel()
        if not self.dirty or self.deleted:
            return not self.dirty
        changes = self.changes()
        if not changes:
            self.dirty = False
            self.invalid = False
            self._clear_errors()
            self.banner.clear()
            self.state_changed.emit()
            return True
        try:
            result = self.session.editor.update_settings(changes, rev=self.base.get("_rev"))
        except Conflict:  # changed elsewhere since the form loaded: ask, keep what was typed
            self._changed_elsewhere(self._read())
            return False
        except ValidationError as exc:
            placed, others = form.field_errors(exc.problems)
            self._clear_errors()
            for key, message in placed.items():
                self.errors[key].setText(message)
                self.errors[key].show()
            extra = f": {'; '.join(others[:3])}" if others else " (see the field marked below)"
            self._refused(f"Not saved{extra}. What you typed is kept.")
            return False
        except (LockRefused, NotFound, StoryloomError) as exc:
            self._refused(f"Not saved: {exc}. What you typed is kept.")
            return False
        self._clear_errors()
        return self._saved(result)

    def _changed_elsewhere(self, doc: dict[str, Any] | None) -> None:
        """The settings changed elsewhere (another window, an import, a sync) since the form
        loaded them: say so over the form, keep every typed value, and let the writer choose."""
        if doc is None:
            self._deleted_elsewhere()
            return
        self._elsewhere = doc
        who = doc.get("modifiedBy")
        by = f" by {who}" if isinstance(who, str) and who else ""
        self.banner.show_message(
            "warning",
            f"The project settings were changed elsewhere{by} while you edited them; your values are kept, "
            "not saved. Overwrite saves the fields you changed over theirs; Reload shows theirs instead.",
            ("Reload", self.load_theirs),
            ("Overwrite", self.keep_mine),
        )

    def _clear_errors(self) -> None:
        for label in self.errors.values():
            label.clear()
            label.hide()
