"""Markdown source beside its rendered preview, shared by the GDD editor and the Actor's bio.

The source is highlighted as it is typed (:class:`~storyloom.gui.editors.markdown_look.MarkdownHighlighter`;
off for a rich-text GDD's HTML). The preview is a :class:`QTextBrowser` filled with
:meth:`QTextDocument.setMarkdown` and dressed by :func:`~storyloom.gui.editors.markdown_look.style_markdown`
(quotes, code, headings' spacing, tables; light and dark, redrawn when the theme changes), or
HTML for a rich-text GDD, redrawn a moment after typing stops. Images (``![alt](storyloom://image/<id>)``,
Drafft's ``drafft://image/<id>``, an attachment's id or name) are drawn from the project's
attachments (:mod:`storyloom.gui.editors.preview_images`). Clicking a link asks
:func:`storyloom.app.views.editor_text.resolve_link` where it leads: a document link emits
``document_requested(id)``; a web address goes to the system browser; anything else does nothing."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QLabel, QSplitter, QTextBrowser, QVBoxLayout, QWidget
from superqt.utils import qdebounced

from storyloom.app.attachments import AttachmentImages
from storyloom.app.views.editor_text import link_document_refs, resolve_link
from storyloom.gui.editors.code_editor import CodeEditor
from storyloom.gui.editors.markdown_look import MarkdownHighlighter, style_markdown
from storyloom.gui.editors.preview_images import PreviewBrowser
from storyloom.gui.host import host_of

PREVIEW_MS = 300


class MarkdownPane(QWidget):
    """``text_changed`` fires as the source is typed; ``document_requested(id)`` when a document
    link is clicked in the preview; ``link_refused(message)`` for a link that leads nowhere."""

    text_changed = Signal()
    document_requested = Signal(str)
    link_refused = Signal(str)

    def __init__(self, exists: object, parent: QWidget | None = None, *, placeholder: str = "",
                 html: bool = False, name_of: object = None, images: AttachmentImages | None = None) -> None:
        super().__init__(parent)
        self._exists = exists
        self._name_of = name_of if callable(name_of) else (lambda _id: None)
        self._html = html
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("markdownSplitter")
        self.splitter.setHandleWidth(1)
        self.source = CodeEditor()
        self.source.setObjectName("markdownSource")
        self.source.setPlaceholderText(placeholder or "# A heading\n\nSome *markdown*, and a "
                                       "[link to a document](storyloom://document/<id>).")
        self.highlighter = MarkdownHighlighter(self.source.document())
        self.highlighter.set_enabled(not html)
        self.preview = PreviewBrowser()  # draws the project's attachments where the text shows images
        self.preview.images = images
        self.preview.setObjectName("markdownPreview")
        self.preview.setOpenLinks(False)
        self.preview.setOpenExternalLinks(False)
        self.preview.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.preview.document().setDocumentMargin(16)
        self.preview.anchorClicked.connect(self.follow)
        self.splitter.addWidget(self.source)
        self.splitter.addWidget(self.preview)
        self.splitter.setSizes([500, 500])
        layout.addWidget(self.splitter, 1)
        self.note = QLabel()
        self.note.setObjectName("placeholderNote")
        self.note.hide()
        layout.addWidget(self.note)
        self._render_later = qdebounced(self.render_preview, timeout=PREVIEW_MS, parent=self)
        self.preview.refit.connect(self._render_later)
        self.source.textChanged.connect(self._typed)
        self._setting = False

    @property
    def html(self) -> bool:
        """The text is HTML (a rich-text GDD), not markdown: previewed as HTML, not highlighted."""
        return self._html

    @html.setter
    def html(self, value: bool) -> None:
        self._html = value
        self.highlighter.set_enabled(not value)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # The theme changed (light, dark): the preview and the source take its colours.
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange) and hasattr(self, "_render_later"):
            self._setting = True  # new colours are no edit of the text
            try:
                self.highlighter.restyle()
            finally:
                self._setting = False
            self._render_later()

    # ------------------------------------------------------------------ text
    def text(self) -> str:
        return self.source.toPlainText()

    def set_text(self, text: str) -> None:
        """Show ``text`` (keeping the cursor where it can stay) without counting it as typing."""
        if text == self.source.toPlainText():
            return
        position = self.source.textCursor().position()
        self._setting = True
        try:
            self.source.setPlainText(text)
        finally:
            self._setting = False
        cursor = self.source.textCursor()
        cursor.setPosition(min(position, len(text)))
        self.source.setTextCursor(cursor)
        self.render_preview()

    def _typed(self) -> None:
        if self._setting:
            return
        self.text_changed.emit()
        self._render_later()

    def render_preview(self) -> None:
        """Redraw the preview now (keeping its scroll position)."""
        self._render_later.cancel()
        scroll = self.preview.verticalScrollBar().value()
        if self.html:
            self.preview.setHtml(self.text())
        else:
            self.preview.document().setMarkdown(link_document_refs(self.text(), self._name_of))
            style_markdown(self.preview.document())
        self.preview.moveCursor(QTextCursor.MoveOperation.Start)
        self.preview.verticalScrollBar().setValue(scroll)

    # ------------------------------------------------------------------ links
    def follow(self, url: QUrl) -> None:
        """A link in the preview was clicked."""
        href = url.toString()
        exists = self._exists if callable(self._exists) else (lambda _id: False)
        target = resolve_link(href, exists)
        if target.kind == "document":
            self.note.hide()
            self.document_requested.emit(target.target)
        elif target.kind == "external":
            self.note.hide()
            QDesktopServices.openUrl(QUrl(target.target))
        elif target.kind == "missing":
            self._refuse("That link points to a document that no longer exists.")
        elif href.startswith("#"):
            self.preview.scrollToAnchor(href[1:])

    def _refuse(self, message: str) -> None:
        self.note.setText(message)
        self.note.show()
        self.link_refused.emit(message)


def open_document(widget: QWidget, doc_id: str) -> bool:
    """Open ``doc_id`` in its tab in the window holding ``widget`` (False outside a project window)."""
    host = host_of(widget)
    if host is None:
        return False
    host.navigate_to("", doc_id)
    return True
