"""The canvas's side panel: what the selection holds, to edit — a note's markdown, colour and
linked document, an image's attachment and caption, a card's document, a group's label, an
edge's label — or, with nothing selected, the board and how to work it.

Every edit is a signal sent when a field is done with (a pause in typing, Enter, leaving the
field); the editor makes it an undoable step. The panel never changes the board itself."""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFocusEvent, QIcon, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.gui import icons, theme
from storyloom.gui.editors.canvas.items import NOTE_COLORS
from storyloom.project import canvas as cv
from storyloom.words import counted

TYPING_PAUSE_MS = 700


class MarkdownEdit(QPlainTextEdit):
    """A note's text: says it is done after a pause in typing or when it loses the focus."""

    committed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TYPING_PAUSE_MS)
        self._timer.timeout.connect(lambda: self.committed.emit(self.toPlainText()))
        self.textChanged.connect(self._timer.start)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        if self._timer.isActive():
            self._timer.stop()
            self.committed.emit(self.toPlainText())


def _field_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("role", "caption")
    return label


def _swatch(color: str) -> QIcon:
    pixmap = QPixmap(16, 16)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class CanvasInspector(QScrollArea):
    text_edited = Signal(str, str)  # node id, markdown
    data_edited = Signal(str, dict)  # node id, data fields (None removes one)
    edge_label_edited = Signal(str, str)
    edge_reversed = Signal(str)
    open_requested = Signal(str)  # a document id
    group_requested = Signal()
    ungroup_requested = Signal(str)
    delete_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("canvasInspector")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.documents: list[tuple[str, str, str]] = []  # id, name, collection label
        self.images: list[tuple[str, str]] = []  # attachment id, name
        self._doc_types: dict[str, str] = {}
        self.subject: tuple[str, str] | None = None  # ("node" | "edge", id)
        self.fields: dict[str, Any] = {}
        self._signature: Any = None
        self.show_board(0, 0, 0)

    def _page(self, title: str, icon: QIcon | None = None) -> QVBoxLayout:
        page = QWidget()
        page.setObjectName("inspectorPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.L)
        layout.setSpacing(theme.XS)
        header = QHBoxLayout()
        header.setSpacing(theme.S)
        if icon is not None:
            mark = QLabel()
            mark.setPixmap(icon.pixmap(18, 18))
            header.addWidget(mark)
        heading = QLabel(title)
        heading.setProperty("role", "heading")
        header.addWidget(heading, 1)
        layout.addLayout(header)
        layout.addSpacing(theme.XS)
        self.setWidget(page)
        self.fields = {}
        return layout

    # ------------------------------------------------------------------ nothing or many selected
    def show_board(self, nodes: int, edges: int, selected: int) -> None:
        signature = ("board", nodes, edges, selected)
        if signature == self._signature:
            return
        self._signature = signature
        self.subject = None
        layout = self._page(f"{selected} selected" if selected > 1 else "Canvas")
        if selected > 1:
            layout.addWidget(_caption("Group them to move them together, or delete them."))
            layout.addSpacing(theme.S)
            row = QHBoxLayout()
            group = QPushButton(qta.icon("ph.selection-plus"), "Group")
            group.setObjectName("groupButton")
            group.clicked.connect(self.group_requested.emit)
            row.addWidget(group)
            delete = QPushButton(icons.icon("delete"), "Delete")
            delete.clicked.connect(self.delete_requested.emit)
            row.addWidget(delete)
            row.addStretch(1)
            layout.addLayout(row)
            self.fields["group"] = group
        else:
            counts = f"{counted(nodes, 'node')} · {counted(edges, 'edge')}"
            layout.addWidget(_caption(counts))
            layout.addSpacing(theme.S)
            for title, text in (
                    ("Add", "Double-click the board for a note, or use the toolbar for an image or a document "
                            "card."),
                    ("Link", "Drag from the dot on a node's right side to another node; double-click an edge "
                             "to label it."),
                    ("Arrange", "Drag to move; drag the corner of a selected node to resize; select several "
                                "and press Ctrl+G to group them."),
                    ("Look around", "Wheel to zoom, middle button or Space+drag to pan, F to fit.")):
                layout.addWidget(_field_label(title))
                layout.addWidget(_caption(text))
                layout.addSpacing(theme.XS)
        layout.addStretch(1)

    # ------------------------------------------------------------------ one node
    def show_node(self, node: dict[str, Any]) -> None:
        kind = cv.node_type(node)
        signature = ("node", node["id"], repr(node))
        if signature == self._signature:
            return
        focused = self.fields.get("text")
        if self.subject == ("node", node["id"]) and isinstance(focused, MarkdownEdit) and focused.hasFocus():
            self._signature = signature  # typing: the board caught up with the text box
            return
        self._signature = signature
        self.subject = ("node", node["id"])
        node_id = node["id"]
        data = cv.node_data(node)
        titles = {"note": ("Note", "ph.note"), "image": ("Image", "ph.image"),
                  "document": ("Document card", "ph.file-text"), "group": ("Group", "ph.selection")}
        title, icon_name = titles[kind]
        layout = self._page(title, qta.icon(icon_name, color=theme.colors().muted))
        if kind == "note":
            layout.addWidget(_field_label("Text (markdown)"))
            text = MarkdownEdit()
            text.setObjectName("noteText")
            text.setPlainText(cv.note_text(node))
            text.setPlaceholderText("What do you want to remember? **bold**, *italic*, - lists")
            text.setMinimumHeight(160)
            text.committed.connect(lambda value: self.text_edited.emit(node_id, value))
            layout.addWidget(text)
            self.fields["text"] = text
            layout.addSpacing(theme.S)
            layout.addWidget(_field_label("Colour"))
            layout.addLayout(self._colors(node_id, str(data.get("color") or "")))
            layout.addSpacing(theme.S)
            self._document_field(layout, node_id, cv.linked_document(node), "Linked document",
                                 [d for d in self.documents], none="No link")
        elif kind == "image":
            self._image_field(layout, node_id, cv.linked_document(node))
            layout.addSpacing(theme.S)
            layout.addWidget(_field_label("Caption"))
            caption = QLineEdit(str(data.get("caption") or ""))
            caption.setObjectName("imageCaption")
            caption.setPlaceholderText("Under the picture")
            caption.editingFinished.connect(lambda: self.data_edited.emit(node_id, {"caption": caption.text()}))
            layout.addWidget(caption)
            self.fields["caption"] = caption
        elif kind == "document":
            self._document_field(layout, node_id, cv.linked_document(node), "Document", self.documents)
        else:
            layout.addWidget(_field_label("Label"))
            label = QLineEdit(str(data.get("label") or ""))
            label.setObjectName("groupLabel")
            label.editingFinished.connect(lambda: self.data_edited.emit(node_id, {"label": label.text()}))
            layout.addWidget(label)
            self.fields["label"] = label
            layout.addSpacing(theme.S)
            ungroup = QPushButton(qta.icon("ph.selection-slash"), "Ungroup")
            ungroup.setToolTip("Remove the frame; its notes stay where they are (Ctrl+Shift+G)")
            ungroup.clicked.connect(lambda: self.ungroup_requested.emit(node_id))
            row = QHBoxLayout()
            row.addWidget(ungroup)
            row.addStretch(1)
            layout.addLayout(row)
            self.fields["ungroup"] = ungroup
        layout.addStretch(1)

    def _colors(self, node_id: str, current: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(theme.XS)
        for name, color in (("", theme.colors().surface), *NOTE_COLORS.items()):
            button = QToolButton()
            button.setIcon(_swatch(color))
            button.setCheckable(True)
            button.setChecked(name == current)
            button.setToolTip(name.capitalize() or "Plain")
            button.setAutoRaise(True)
            button.clicked.connect(lambda _c=False, n=name: self.data_edited.emit(node_id, {"color": n or None}))
            row.addWidget(button)
            self.fields[f"color:{name or 'plain'}"] = button
        row.addStretch(1)
        return row

    def _combo(self, entries: list[tuple[str, str]], current: str | None, none: str | None) -> QComboBox:
        combo = QComboBox()
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)
        if none is not None:
            combo.addItem(none, "")
        for doc_id, text in entries:
            combo.addItem(text, doc_id)
        if current and combo.findData(current) < 0:
            combo.addItem("Missing document", current)
        combo.setCurrentIndex(max(0, combo.findData(current or "")))
        completer = combo.completer()
        if completer is not None:
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        return combo

    def _document_field(self, layout: QVBoxLayout, node_id: str, current: str | None, title: str,
                        documents: list[tuple[str, str, str]], none: str | None = None) -> None:
        layout.addWidget(_field_label(title))
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        combo = self._combo([(d, f"{name} — {kind}") for d, name, kind in documents], current, none)
        combo.setObjectName("linkedDocument")

        def chosen(index: int) -> None:
            doc_id = str(combo.itemData(index) or "")
            kind = next((k for d, _n, k in documents if d == doc_id), "")
            fields: dict[str, Any] = {"docId": doc_id or None}
            if title == "Document":
                fields["docType"] = self._doc_types.get(doc_id, kind)
            self.data_edited.emit(node_id, fields)

        combo.activated.connect(chosen)
        row.addWidget(combo, 1)
        open_button = QToolButton()
        open_button.setIcon(icons.icon("external"))
        open_button.setToolTip("Open the document")
        open_button.setEnabled(bool(current))
        open_button.clicked.connect(lambda: current and self.open_requested.emit(current))
        row.addWidget(open_button)
        layout.addLayout(row)
        self.fields["document"] = combo
        self.fields["open"] = open_button

    def _image_field(self, layout: QVBoxLayout, node_id: str, current: str | None) -> None:
        layout.addWidget(_field_label("Picture"))
        combo = self._combo(self.images, current, None if self.images else "No image attachments yet")
        combo.setObjectName("imageAttachment")
        combo.activated.connect(lambda index: combo.itemData(index) and self.data_edited.emit(
            node_id, {"docId": str(combo.itemData(index))}))
        layout.addWidget(combo)
        layout.addWidget(_caption("Pictures are the project's image attachments (Attachments in the rail)."))
        self.fields["image"] = combo

    def set_documents(self, documents: list[tuple[str, str, str, str]], images: list[tuple[str, str]]) -> None:
        """The documents a note or card can link to (id, name, type, collection label) and the
        image attachments."""
        self.documents = [(d, name, label) for d, name, _t, label in documents]
        self._doc_types = {d: t for d, _n, t, _l in documents}
        self.images = images
        self._signature = None

    # ------------------------------------------------------------------ one edge
    def show_edge(self, edge: dict[str, Any], source: str, target: str) -> None:
        signature = ("edge", edge["id"], repr(edge), source, target)
        if signature == self._signature:
            return
        self._signature = signature
        self.subject = ("edge", edge["id"])
        edge_id = edge["id"]
        layout = self._page("Edge", qta.icon("ph.arrow-right", color=theme.colors().muted))
        layout.addWidget(_caption(f"From “{source}” to “{target}”"))
        layout.addSpacing(theme.S)
        layout.addWidget(_field_label("Label"))
        label = QLineEdit(str(edge.get("label") or ""))
        label.setObjectName("edgeLabel")
        label.setPlaceholderText("What links them, e.g. had the keys")
        label.editingFinished.connect(lambda: self.edge_label_edited.emit(edge_id, label.text()))
        layout.addWidget(label)
        self.fields["label"] = label
        layout.addSpacing(theme.S)
        row = QHBoxLayout()
        reverse = QPushButton(qta.icon("ph.arrows-left-right"), "Reverse")
        reverse.clicked.connect(lambda: self.edge_reversed.emit(edge_id))
        row.addWidget(reverse)
        delete = QPushButton(icons.icon("delete"), "Delete")
        delete.clicked.connect(self.delete_requested.emit)
        row.addWidget(delete)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(1)

    def focus_text(self) -> None:
        widget = self.fields.get("text") or self.fields.get("label") or self.fields.get("caption")
        if widget is not None:
            widget.setFocus()
