"""The GDD editor: the design document's markdown (``content.gdd``) beside its rendered preview.

The preview follows the typing (debounced); a link to a document (``storyloom://document/<id>``)
opens that document's tab; a web link goes to the system browser; images show the project's
attachments (``![alt](storyloom://image/<id>)``, Drafft's ``drafft://image/<id>``). A rich-text
GDD (``editor: "richText"``, imported HTML) is previewed as HTML. Saving goes through the gate like every editor."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QPlainTextEdit, QWidget

from storyloom.app.attachments import AttachmentImages
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.markdown_pane import MarkdownPane, open_document


class GddEditor(DocumentEditor):
    def build_body(self) -> QWidget:
        self.pane = MarkdownPane(self.document_exists, html=self.base.get("editor") == "richText",
                                 name_of=self.document_name,
                                 images=AttachmentImages(self.session.db, self.session.index))
        self.pane.text_changed.connect(self.mark_dirty)
        self.pane.document_requested.connect(self.open_link)
        self.text = self.pane.source  # the tab focuses ``text``
        self.preview = self.pane.preview
        return self.pane

    def open_link(self, doc_id: str) -> None:
        open_document(self, doc_id)

    def apply_document(self, doc: dict[str, Any]) -> None:
        gdd = (doc.get("content") or {}).get("gdd")
        self.pane.html = doc.get("editor") == "richText"
        self.pane.set_text(gdd if isinstance(gdd, str) else "")
        self.pane.render_preview()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["gdd"] = self.pane.text()
        return {self.name_field: self.name_edit.text(), "content": content}

    def focus_line(self, line: int) -> None:
        self.pane.source.go_to_line(line)

    def field_editor(self, field: str) -> QPlainTextEdit | None:
        return self.pane.source if field == "content.gdd" else None
