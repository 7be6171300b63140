"""The generic editor: a document's name and the text fields of its content.

It serves every collection that has no dedicated editor yet (the visual editors register their
own in :mod:`storyloom.gui.editors`). Content that is not text (a dialogue graph, a grid) is
summarised, read-only, so nothing is shown wrongly and nothing is lost on save."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QScrollArea, QVBoxLayout, QWidget

from storyloom.gui.appearance import use_editor_font
from storyloom.gui.editors.base import DocumentEditor
from storyloom.words import counted

# Fields computed from another one (the parsed form of a source text): never edited by hand.
_DERIVED = {"json"}
# Prose fields in the system font; every other text field is source text (monospace).
_PROSE = {"bio", "gdd", "notes", "description", "comments"}
_LABELS = {"gdd": "Document", "bio": "Biography", "item": "Properties", "variables": "Variables",
           "scenario": "Scenario", "properties": "Properties", "conditions": "Conditions", "notes": "Notes"}


def _label(key: str) -> str:
    return _LABELS.get(key, key[:1].upper() + key[1:])


def _summary(value: Any) -> str:
    if isinstance(value, list):
        return counted(len(value), "item")
    if isinstance(value, dict):
        return counted(len(value), "entry", "entries")
    return repr(value)


class PropertiesEditor(DocumentEditor):
    """Edits ``name`` and every string field of ``content``."""

    def build_body(self) -> QWidget:
        self.fields: dict[str, QPlainTextEdit] = {}
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form = QWidget()
        self.form_layout = QVBoxLayout(self.form)
        self.form_layout.setContentsMargins(24, 8, 24, 24)
        self.form_layout.setSpacing(8)
        scroll.setWidget(self.form)
        return scroll

    def text_fields(self, doc: dict[str, Any]) -> dict[str, str]:
        content = doc.get("content")
        if not isinstance(content, dict):
            return {}
        return {k: v for k, v in content.items() if isinstance(v, str) and k not in _DERIVED}

    def other_fields(self, doc: dict[str, Any]) -> dict[str, Any]:
        content = doc.get("content")
        if not isinstance(content, dict):
            return {}
        return {k: v for k, v in content.items() if not isinstance(v, str)}

    def apply_document(self, doc: dict[str, Any]) -> None:
        texts = self.text_fields(doc)
        if set(texts) != set(self.fields):
            self._build_fields(doc, texts)
        for key, value in texts.items():
            editor = self.fields[key]
            if editor.toPlainText() != value:
                position = editor.textCursor().position()
                editor.setPlainText(value)
                cursor = editor.textCursor()
                cursor.setPosition(min(position, len(value)))
                editor.setTextCursor(cursor)

    def _build_fields(self, doc: dict[str, Any], texts: dict[str, str]) -> None:
        while self.form_layout.count():
            item = self.form_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.fields = {}
        for key in texts:
            label = QLabel(_label(key))
            label.setObjectName("fieldLabel")
            editor = QPlainTextEdit()
            editor.setObjectName(f"field-{key}")
            if key not in _PROSE:
                use_editor_font(editor)  # the Options' editor font, followed live
            editor.setMinimumHeight(160)
            editor.textChanged.connect(self.mark_dirty)
            self.form_layout.addWidget(label)
            self.form_layout.addWidget(editor, 1)
            self.fields[key] = editor
        others = self.other_fields(doc)
        if others:
            kind = str(doc.get("collection") or doc.get("type"))
            lines = ", ".join(f"{_label(k)}: {_summary(v)}" for k, v in others.items())
            note = QLabel(f"The visual {kind} editor shows the rest of this document ({lines}); "
                          "it is kept as it is when you save here.")
            note.setObjectName("placeholderNote")
            note.setWordWrap(True)
            self.form_layout.addWidget(note)
        if not texts and not others:
            empty = QLabel("This document has no text to edit here.")
            empty.setObjectName("placeholderNote")
            self.form_layout.addWidget(empty)
        self.form_layout.addStretch(0)

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        for key, editor in self.fields.items():
            content[key] = editor.toPlainText()
        changes: dict[str, Any] = {self.name_field: self.name_edit.text()}
        if isinstance(self.base.get("content"), dict):
            changes["content"] = content
        return changes

    def field(self, key: str) -> QPlainTextEdit:
        """The text box of content field ``key`` (for tests and focus)."""
        return self.fields[key]


class SettingsEditor(PropertiesEditor):
    """The project settings document, until its own editor arrives: the project name and the
    settings' top-level text fields."""

    name_field = "projectName"

    def text_fields(self, doc: dict[str, Any]) -> dict[str, str]:
        skip = {"projectName", "projectId", "type", "collection", "createdAt", "created", "modified", "modifiedBy",
                "createdBy"}
        return {k: v for k, v in doc.items() if isinstance(v, str) and not k.startswith("_") and k not in skip}

    def other_fields(self, doc: dict[str, Any]) -> dict[str, Any]:
        return {}

    def changes(self) -> dict[str, Any]:
        changes: dict[str, Any] = {self.name_field: self.name_edit.text()}
        for key, editor in self.fields.items():
            changes[key] = editor.toPlainText()
        return changes
