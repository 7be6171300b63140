"""The property pane of Actors, Items, Quests and Misc documents.

The properties text (``content.properties``; ``content.item`` for an Item) is edited in the
document's ``editorLanguage`` (chosen in the header's list), with a status line under it that
says "Parses" or where it does not ("Line 3, column 5: ..."), checked a moment after typing
stops by :func:`storyloom.app.views.editor_text.parse_status`. A line that does not parse is marked in
the gutter too. Text that does not parse is still saved as typed (the writer may be mid-edit).
An Actor's bio is markdown with its preview beside it, and under it the actor's own sections
(:mod:`storyloom.gui.editors.actor_panels`): its expression images and All lines, every line it
speaks with a jump to each. A Quest's conditions and any notes are plain text. Every other
content field is kept as it is."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qdebounced

from storyloom.app import DocumentChanged
from storyloom.app.attachments import AttachmentImages
from storyloom.app.views.actor_view import expression_tiles
from storyloom.app.views.editor_text import ParseStatus, normal_language, parse_status, property_layout
from storyloom.diagnostics import Diagnostic
from storyloom.gui.editors.actor_panels import ActorLinesView, ExpressionStrip
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.code_editor import CodeEditor
from storyloom.gui.editors.markdown_pane import MarkdownPane, open_document
from storyloom.gui.host import host_of
from storyloom.project.content import LANGUAGES

PARSE_MS = 250
RECOUNT_MS = 400  # All lines counts again this long after the project's changes stop
_COUNTED_COLLECTIONS = frozenset({"Script", "Dialogue", "Actor"})
_LABELS = {"properties": "Properties", "item": "Properties", "conditions": "Conditions", "bio": "Biography",
           "notes": "Notes"}
_LANGUAGE_NAMES = {"json": "JSON", "hjson": "HJSON", "yaml": "YAML", "toml": "TOML", "text": "Plain text"}


def _label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


class PropertyEditor(DocumentEditor):
    """``properties`` is the code editor of the properties text; ``status`` its parse line."""

    def build_body(self) -> QWidget:
        self.property_field, sources, prose = property_layout(self.base)
        self.sources: dict[str, QPlainTextEdit] = {}
        self.prose: dict[str, QPlainTextEdit] = {}
        self.bio: MarkdownPane | None = None
        self.expressions: ExpressionStrip | None = None
        self.lines: ActorLinesView | None = None
        self._following = False
        self.parsed = ParseStatus(True, "Parses")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(24, 0, 12, 8)
        left_layout.setSpacing(6)
        top = QHBoxLayout()
        top.addWidget(_label(_LABELS.get(self.property_field, "Properties")), 1)
        self.language = QComboBox()
        self.language.setObjectName("editorLanguage")
        for code in LANGUAGES:
            self.language.addItem(_LANGUAGE_NAMES[code], code)
        self.language.setToolTip("The language of the properties text (editorLanguage)")
        self.language.currentIndexChanged.connect(self._language_chosen)
        top.addWidget(QLabel("Language"))
        top.addWidget(self.language)
        left_layout.addLayout(top)
        self.properties = CodeEditor()
        self.properties.setObjectName("propertiesText")
        self.properties.textChanged.connect(self._properties_typed)
        left_layout.addWidget(self.properties, 3)
        self.status = QLabel()
        self.status.setObjectName("parseStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        left_layout.addWidget(self.status)
        for key in sources:
            left_layout.addWidget(_label(_LABELS.get(key, key.title())))
            editor = CodeEditor()
            editor.setObjectName(f"field-{key}")
            editor.textChanged.connect(self.mark_dirty)
            left_layout.addWidget(editor, 2)
            self.sources[key] = editor
        self.text = self.properties  # the tab focuses ``text``
        self._check_later = qdebounced(self.check_properties, timeout=PARSE_MS, parent=left)
        if not prose:
            return left

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(12, 0, 24, 8)
        right_layout.setSpacing(6)
        for key in prose:
            right_layout.addWidget(_label(_LABELS.get(key, key.title())))
            if key == "bio":
                self.bio = MarkdownPane(self.document_exists, placeholder="# Who they are\n\nA *markdown* biography.",
                                        name_of=self.document_name,
                                        images=AttachmentImages(self.session.db, self.session.index))
                self.bio.text_changed.connect(self.mark_dirty)
                self.bio.document_requested.connect(lambda doc_id: open_document(self, doc_id))
                right_layout.addWidget(self.bio, 3)
                if self.base.get("type") == "Actor":
                    self._build_actor_sections(right_layout)
            else:
                editor = QPlainTextEdit()
                editor.setObjectName(f"field-{key}")
                editor.textChanged.connect(self.mark_dirty)
                right_layout.addWidget(editor, 1)
                self.prose[key] = editor
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("propertySplitter")
        splitter.setHandleWidth(1)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([420, 680] if self.bio is not None else [640, 360])
        return splitter

    # ------------------------------------------------------------------ an actor's sections
    def _build_actor_sections(self, layout: QVBoxLayout) -> None:
        images = AttachmentImages(self.session.db, self.session.index)
        self.expressions = ExpressionStrip(images)
        layout.addWidget(self.expressions)
        self.lines = ActorLinesView(self.session)
        self.lines.counted.connect(lambda _found: self._show_expressions())
        layout.addWidget(self.lines, 2)
        self._recount_later = qdebounced(self.count_lines, timeout=RECOUNT_MS, parent=self.lines)

    def count_lines(self) -> None:
        """Count the actor's lines again (on a worker thread), by its saved name and alias."""
        if self.lines is not None:
            name = self.base.get("name")
            self.lines.count(name if isinstance(name, str) else "")

    def _show_expressions(self) -> None:
        if self.expressions is not None and not self.session.closed:
            self.expressions.show_tiles(expression_tiles(self.base, self.lines.found if self.lines else None))

    def _project_changed(self, changes: list[DocumentChanged]) -> None:
        if any(change.collection in _COUNTED_COLLECTIONS for change in changes):
            self._recount_later()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.lines is None or self._following:
            return
        host = host_of(self)
        if host is not None:  # in a window: follow the project's changes from now on
            self._following = True
            host.bridge.documents_changed.connect(self._project_changed)

    def stop(self) -> None:
        super().stop()
        if self.lines is not None:
            self._recount_later.cancel()
            self.lines.stop()

    # ------------------------------------------------------------------ load and save
    def apply_document(self, doc: dict[str, Any]) -> None:
        content = doc.get("content") if isinstance(doc.get("content"), dict) else {}
        language = normal_language(doc.get("editorLanguage"))
        index = self.language.findData(language)
        if index != self.language.currentIndex():
            self.language.setCurrentIndex(index)
        _set_text(self.properties, content.get(self.property_field))
        for key, editor in (*self.sources.items(), *self.prose.items()):
            _set_text(editor, content.get(key))
        if self.bio is not None:
            bio = content.get("bio")
            self.bio.set_text(bio if isinstance(bio, str) else "")
        if self.lines is not None:
            self._show_expressions()
            self.count_lines()
        self.check_properties()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content[self.property_field] = self.properties.toPlainText()
        for key, editor in (*self.sources.items(), *self.prose.items()):
            content[key] = editor.toPlainText()
        if self.bio is not None:
            content["bio"] = self.bio.text()
        changes: dict[str, Any] = {self.name_field: self.name_edit.text(), "content": content}
        if self.language_code() != normal_language(self.base.get("editorLanguage")) \
                or "editorLanguage" in self.base:
            changes["editorLanguage"] = self.language_code()
        return changes

    def focus_line(self, line: int) -> None:
        self.properties.go_to_line(line)

    def field_editor(self, field: str) -> QPlainTextEdit | None:
        key = field.removeprefix("content.")
        if key == self.property_field:
            return self.properties
        if key == "bio" and self.bio is not None:
            return self.bio.source
        return self.sources.get(key) or self.prose.get(key)

    # ------------------------------------------------------------------ the status line
    def language_code(self) -> str:
        return str(self.language.currentData() or "hjson")

    def _language_chosen(self, _index: int) -> None:
        self.mark_dirty()
        self.check_properties()

    def _properties_typed(self) -> None:
        self.mark_dirty()
        self._check_later()

    def check_properties(self) -> ParseStatus:
        """Parse the properties text now and show the result."""
        self._check_later.cancel()
        self.parsed = parse_status(self.properties.toPlainText(), self.language_code())
        self.status.setText(self.parsed.message)
        self.status.setProperty("ok", self.parsed.ok)
        self.status.setStyleSheet("" if self.parsed.ok else "color: #e5484d;")
        problems: dict[int, list[Diagnostic]] = {}
        if not self.parsed.ok and self.parsed.line is not None:
            problems[self.parsed.line] = [Diagnostic(self.parsed.message, "parse-error", line=self.parsed.line,
                                                     column=self.parsed.column)]
        self.properties.problems = problems
        self.properties.viewport().update()
        return self.parsed


def _set_text(editor: QPlainTextEdit, value: Any) -> None:
    text = value if isinstance(value, str) else ""
    if editor.toPlainText() == text:
        return
    position = editor.textCursor().position()
    editor.setPlainText(text)
    cursor = editor.textCursor()
    cursor.setPosition(min(position, len(text)))
    editor.setTextCursor(cursor)
