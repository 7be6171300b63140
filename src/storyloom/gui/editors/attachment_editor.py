"""The Attachments editor: one Attachment document's file, previewed, with its details.

Images are drawn scaled to the space (small ones enlarged crisply, pixel for pixel), with their
dimensions; other files show their type, and "Save a copy…" writes their bytes to disk. The
details say the type, size, digest, revision, permalink and which documents use the file
(actor expressions, GDD images). "Replace file…" gives the document a new file, a new revision
written through the gate like every save; the name and notes autosave like any editor. The
rules live in :mod:`storyloom.app.attachments`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.attachments import (
    AttachmentFileError,
    AttachmentInfo,
    attachment_info,
    detail_rows,
    read_blob,
    replace_file,
    suggested_file_name,
    users_of,
)
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.markdown_pane import open_document
from storyloom.gui.editors.preview_images import decode_image
from storyloom.output_files import OutputError, write_chunks
from storyloom.project import LockRefused, ValidationError, WriteResult
from storyloom.store import Conflict, NotFound

FILE_FILTER = "All files (*);;Images (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.svg)"
MAX_ENLARGE = 8  # a 16 px placeholder shows at 128 px, pixel for pixel
_TYPE_ICONS = {"application/pdf": "ph.file-pdf", "text/": "ph.file-text", "audio/": "ph.speaker-high",
               "video/": "ph.film-strip", "image/": "ph.image"}


def type_icon(mime: str) -> str:
    """The Phosphor icon of a file type."""
    for prefix, icon in _TYPE_ICONS.items():
        if mime.startswith(prefix):
            return icon
    return "ph.file"


class ImageView(QWidget):
    """Draws one image as large as fits (never blurred: enlarged images use whole pixels)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentImage")
        self.image = QImage()
        self.setMinimumSize(160, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage) -> None:
        self.image = image
        self.update()

    def target_rect(self) -> QRectF:
        """Where the image is drawn: centred, scaled to fit; a small image grows by a whole factor."""
        if self.image.isNull():
            return QRectF()
        area = self.rect().adjusted(theme.L, theme.L, -theme.L, -theme.L)
        width, height = self.image.width(), self.image.height()
        fit = min(area.width() / width, area.height() / height)
        scale = fit if fit < 1 else float(min(int(fit), MAX_ENLARGE))
        w, h = width * scale, height * scale
        return QRectF(area.x() + (area.width() - w) / 2, area.y() + (area.height() - h) / 2, w, h)

    def scale(self) -> float:
        rect = self.target_rect()
        return rect.width() / self.image.width() if not self.image.isNull() else 0.0

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.image.isNull():
            return
        painter = QPainter(self)
        rect = self.target_rect()
        smooth = rect.width() < self.image.width()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
        border = QColor(theme.colors().border)
        painter.setPen(border)
        painter.drawRect(rect.adjusted(-0.5, -0.5, 0.5, 0.5))
        painter.drawImage(rect, self.image)
        painter.end()


class AttachmentEditor(DocumentEditor):
    """An Attachment document: preview (or the file's type), details, notes, replace and save."""

    def build_body(self) -> QWidget:
        self.info: AttachmentInfo | None = None
        self.dimensions: tuple[int, int] | None = None
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("attachmentSplitter")
        splitter.setHandleWidth(1)
        splitter.addWidget(self._preview_side())
        splitter.addWidget(self._details_side())
        splitter.setStretchFactor(0, 1)
        splitter.setCollapsible(0, False)
        splitter.setSizes([640, 360])
        return splitter

    def _preview_side(self) -> QWidget:
        side = QWidget()
        side.setObjectName("attachmentPreview")
        side.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(side)
        layout.setContentsMargins(theme.XL, theme.S, theme.XL, theme.L)
        layout.setSpacing(theme.S)
        self.image_view = ImageView()
        layout.addWidget(self.image_view, 1)
        self.no_preview = QWidget()
        empty = QVBoxLayout(self.no_preview)
        empty.setSpacing(theme.M)
        empty.addStretch(2)
        self.type_icon = QLabel()
        self.type_icon.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.no_preview_text = QLabel()
        self.no_preview_text.setObjectName("placeholderNote")
        self.no_preview_text.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.no_preview_text.setWordWrap(True)
        empty.addWidget(self.type_icon)
        empty.addWidget(self.no_preview_text)
        empty.addStretch(3)
        layout.addWidget(self.no_preview, 1)
        self.caption = QLabel()
        self.caption.setObjectName("placeholderNote")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.caption)
        return side

    def _details_side(self) -> QWidget:
        scroll = QScrollArea()
        scroll.setObjectName("attachmentDetails")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setMinimumWidth(320)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(theme.XL, theme.S, theme.XL, theme.L)
        layout.setSpacing(theme.S)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        self.replace_button = QPushButton(qta.icon("ph.swap"), "Replace file…")
        self.replace_button.setToolTip("Give this attachment another file (a new revision); its name, notes "
                                       "and the documents that use it stay")
        self.replace_button.clicked.connect(lambda: self.replace_with())
        self.save_copy_button = QPushButton(qta.icon("ph.download-simple"), "Save a copy…")
        self.save_copy_button.setToolTip("Write the file to a folder of your choice")
        self.save_copy_button.clicked.connect(lambda: self.save_copy())
        buttons.addWidget(self.replace_button)
        buttons.addWidget(self.save_copy_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addSpacing(theme.S)
        layout.addWidget(self._section("Details"))
        self.details = QFormLayout()
        self.details.setHorizontalSpacing(theme.M)
        self.details.setVerticalSpacing(theme.S)
        self.details.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.details.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.addLayout(self.details)
        self.copy_link = QPushButton(qta.icon("ph.copy"), "Copy permalink")
        self.copy_link.setToolTip("Copy the link documents use to show this attachment")
        self.copy_link.clicked.connect(self.copy_permalink)
        layout.addWidget(self.copy_link, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addSpacing(theme.S)
        layout.addWidget(self._section("Used by"))
        self.users_box = QVBoxLayout()
        self.users_box.setSpacing(0)
        layout.addLayout(self.users_box)
        layout.addSpacing(theme.S)
        layout.addWidget(self._section("Notes"))
        self.notes = QPlainTextEdit()
        self.notes.setObjectName("attachmentNotes")
        self.notes.setPlaceholderText("Where this file comes from, its licence, what it is for…")
        self.notes.setMinimumHeight(96)
        self.notes.setTabChangesFocus(True)
        self.notes.textChanged.connect(self.mark_dirty)
        layout.addWidget(self.notes, 1)
        scroll.setWidget(panel)
        return scroll

    def _section(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("fieldLabel")
        return label

    # ------------------------------------------------------------------ showing the document
    def apply_document(self, doc: dict[str, Any]) -> None:
        info = attachment_info(doc)
        previous = self.info
        self.info = info
        if self.notes.toPlainText() != info.notes:
            self.notes.setPlainText(info.notes)
        if previous is None or (previous.digest, previous.rev) != (info.digest, info.rev):
            self._show_file(info)
        self._show_details(info)

    def _show_file(self, info: AttachmentInfo) -> None:
        data = read_blob(self.session.db, info.id, info.rev or None) if info.has_blob else None
        image = decode_image(data) if data is not None and info.is_image else QImage()
        self.dimensions = (image.width(), image.height()) if not image.isNull() else None
        self.image_view.set_image(image)
        showing = not image.isNull()
        self.image_view.setVisible(showing)
        self.no_preview.setVisible(not showing)
        self.save_copy_button.setEnabled(data is not None)
        if showing:
            self._update_caption()
            return
        self.caption.setText("")
        self.type_icon.setPixmap(qta.icon(type_icon(info.mime_type), color=theme.colors().muted)
                                 .pixmap(QSize(64, 64), self.devicePixelRatioF()))
        if data is None:
            self.no_preview_text.setText("This attachment holds no file.\nReplace file… gives it one.")
        elif info.is_image:
            self.no_preview_text.setText(f"This {info.mime_type} image cannot be drawn here.\n"
                                         "Save a copy… opens it in another program.")
        else:
            self.no_preview_text.setText(f"No preview for {info.mime_type} files.\n"
                                         "Save a copy… opens it in another program.")

    def _update_caption(self) -> None:
        if self.dimensions is None:
            return
        percent = round(self.image_view.scale() * 100)
        size = f"{self.dimensions[0]} × {self.dimensions[1]} px"
        self.caption.setText(size if percent == 100 or percent == 0 else f"{size} · shown at {percent}%")

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._update_caption()

    def _show_details(self, info: AttachmentInfo) -> None:
        while self.details.rowCount():
            self.details.removeRow(0)
        for label, value in detail_rows(info, self.dimensions):
            name = QLabel(label)
            name.setObjectName("docKind")
            text = QLabel(value)
            text.setObjectName(f"detail-{label.lower()}")
            text.setWordWrap(True)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if label in ("Digest", "Permalink"):  # long ids and hashes may wrap anywhere
                text.setText("\u200b".join(value))
            self.details.addRow(name, text)
        self.copy_link.setEnabled(bool(info.permalink))
        self._show_users()

    def _show_users(self) -> None:
        while self.users_box.count():
            item = self.users_box.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        try:
            users = users_of(self.session.db, self.session.index, self.doc_id)
        except StoryloomError:
            users = []
        self.users = users
        if not users:
            note = QLabel("No actor or GDD page shows this file yet.")
            note.setObjectName("placeholderNote")
            note.setWordWrap(True)
            self.users_box.addWidget(note)
            return
        for user in users:
            button = QPushButton(qta.icon("ph.arrow-square-out"), f"{user.name or user.id} — {user.how}")
            button.setProperty("flat", "true")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setToolTip(f"Open {user.collection} “{user.name}”")
            button.clicked.connect(lambda _c=False, i=user.id: open_document(self, i))
            self.users_box.addWidget(button)

    def _saved(self, result: WriteResult) -> bool:
        saved = super()._saved(result)
        doc = self._read()  # the write's result carries no attachment stubs: the details want them
        if doc is not None:
            self.info = attachment_info(doc)
            self._show_details(self.info)
        return saved

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["notes"] = self.notes.toPlainText()
        return {self.name_field: self.name_edit.text(), "content": content}

    # ------------------------------------------------------------------ commands
    def replace_with(self, path: str | Path | None = None) -> bool:
        """Give the attachment the file at ``path`` (asked with the system's dialog when not
        given): a new revision through the gate. False when cancelled or refused (the banner
        says why)."""
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, f"Replace the file of “{self.title}”", str(Path.home()),
                                                    FILE_FILTER)
            if not chosen:
                return False
            path = chosen
        if self.dirty and not self.save():
            return False
        try:
            result = replace_file(self.session.editor, self.doc_id, Path(path), rev=self.base.get("_rev"))
        except AttachmentFileError as exc:
            self.banner.show_message("error", f"Not replaced: {exc}.")
            return False
        except ValidationError as exc:
            self.banner.show_message("error", "Not replaced: " + "; ".join(p.message for p in exc.problems[:3]))
            return False
        except LockRefused as exc:
            self.banner.show_message("error", f"Not replaced: {exc}.")
            return False
        except Conflict:
            self._load_current()
            self.banner.show_message("warning", "This attachment was changed elsewhere; it is shown as it is now. "
                                     "Replace the file again if you still want to.")
            return False
        except NotFound:
            self._deleted_elsewhere()
            return False
        except StoryloomError as exc:
            self.banner.show_message("error", f"Not replaced: {exc}")
            return False
        self._own_revs.add(result.rev)
        self._load_current()
        info = self.info
        revision = f" (revision {info.revision})" if info is not None else ""
        self.banner.show_message("info", f"Replaced the file with {Path(path).name}{revision}.")
        self.state_changed.emit()
        return True

    def _load_current(self) -> None:
        doc = self._read()
        if doc is None:
            self._deleted_elsewhere()
            return
        self._load(doc)
        self.dirty = False
        self.invalid = False

    def save_copy(self, path: str | Path | None = None) -> Path | None:
        """Write the attachment's bytes to ``path`` (asked when not given); the file written."""
        info = self.info
        if info is None:
            return None
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, f"Save a copy of “{self.title}”",
                                                    str(Path.home() / suggested_file_name(info)))
            if not chosen:
                return None
            path = chosen
        data = read_blob(self.session.db, self.doc_id)
        if data is None:
            self.banner.show_message("error", "Not saved: this attachment holds no file.")
            return None
        target = Path(path)
        try:  # atomically, replacing the file named (the save dialog asked)
            write_chunks(target, [data])
        except OutputError as exc:
            self.banner.show_message("error", f"{str(exc)[:1].upper()}{str(exc)[1:]}.")  # it is a folder
            return None
        except OSError as exc:
            self.banner.show_message("error", f"Could not write {target.name}: {exc.strerror or exc}.")
            return None
        self.banner.show_message("info", f"Saved a copy to {target}.")
        return target

    def copy_permalink(self) -> None:
        if self.info is not None and self.info.permalink:
            QGuiApplication.clipboard().setText(self.info.permalink)
            self.banner.show_message("info", f"Copied {self.info.permalink}: paste it in a GDD page as "
                                     f"![{self.info.name}]({self.info.permalink}) to show the image.")
