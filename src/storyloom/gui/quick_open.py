"""Quick open (Ctrl+P): type part of a name, Enter opens the best match.

The matching is :func:`storyloom.app.views.quick_open.quick_open` over the session's index; the list
is a model view, so a large project lists only the rows it paints."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListView, QVBoxLayout, QWidget

from storyloom.app import ProjectSession
from storyloom.app.views.quick_open import QuickOpenMatch, quick_open
from storyloom.gui.sidebar import collection_icon, collection_label

LIMIT = 200


class _Matches(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self.matches: list[QuickOpenMatch] = []

    def set_matches(self, matches: list[QuickOpenMatch]) -> None:
        self.beginResetModel()
        self.matches = matches
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.matches)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        match = self.matches[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{match.name}    —  {collection_label(match.collection)}"
        if role == Qt.ItemDataRole.DecorationRole:
            return collection_icon(match.collection)
        if role == Qt.ItemDataRole.UserRole:
            return match.id
        return None


class QuickOpen(QDialog):
    """``chosen(doc_id)`` when the user picks a match (Enter or click)."""

    chosen = Signal(str)

    def __init__(self, session: ProjectSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("quickOpen")
        self.setWindowTitle("Quick Open")
        self.session = session
        self.resize(640, 420)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(8)
        self.query = QLineEdit()
        self.query.setObjectName("quickOpenQuery")
        self.query.setPlaceholderText("Go to a document by name…")
        self.query.setClearButtonEnabled(True)
        self.query.textChanged.connect(self.update_matches)
        self.query.installEventFilter(self)
        layout.addWidget(self.query)
        self.model = _Matches()
        self.list = QListView()
        self.list.setObjectName("quickOpenList")
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)
        self.list.setIconSize(QSize(16, 16))
        self.list.activated.connect(self._pick)
        self.list.clicked.connect(self._pick)
        layout.addWidget(self.list, 1)
        self.empty = QLabel("No document matches. Try fewer letters.")
        self.empty.setObjectName("emptyState")
        self.empty.hide()
        layout.addWidget(self.empty)
        self.update_matches("")

    def update_matches(self, text: str) -> None:
        matches = quick_open(self.session.index.summaries(), text, LIMIT)
        self.model.set_matches(matches)
        self.empty.setVisible(not matches)
        self.list.setVisible(bool(matches))
        if matches:
            self.list.setCurrentIndex(self.model.index(0))

    def eventFilter(self, watched: Any, event: Any) -> bool:
        # Arrows move in the list and Enter opens, while the typing stays in the query.
        if watched is self.query and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self.list.keyPressEvent(event)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._pick(self.list.currentIndex())
                return True
        return super().eventFilter(watched, event)

    def _pick(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        doc_id = index.data(Qt.ItemDataRole.UserRole)
        self.accept()
        self.chosen.emit(doc_id)
