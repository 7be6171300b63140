"""The node palette: the ten node types, each with its colour; click one to add it at a free
place in view (beside the selected node when there is room), or drag it onto the graph to put
it where it is dropped. Its entries are buttons, not list items: never selected (a selected
entry drew its label in the selection's text colour on no selection background: blank) and
never edited."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

from storyloom.gui.editors.dialogue_graph.items import kind_color
from storyloom.gui.editors.dialogue_graph.view import NODE_MIME
from storyloom.project.dialogue_graph import NODE_KINDS


def kind_icon(node_type: str, size: int = 14) -> QIcon:
    picture = QPixmap(size * 2, size * 2)
    picture.setDevicePixelRatio(2)
    picture.fill(Qt.GlobalColor.transparent)
    painter = QPainter(picture)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(kind_color(node_type)))
    painter.drawRoundedRect(1, 1, size - 2, size - 2, 4, 4)
    painter.end()
    return QIcon(picture)


class NodePalette(QListWidget):
    """``chosen(node_type)`` on a click or Enter; a drag carries the type to the view."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("nodePalette")
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setIconSize(QSize(14, 14))
        self.setSpacing(1)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for kind in NODE_KINDS.values():
            item = QListWidgetItem(kind_icon(kind.type), kind.title)
            item.setData(Qt.ItemDataRole.UserRole, kind.type)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsDragEnabled)
            item.setToolTip(f"{kind.title}: {kind.description}\nClick to add it, or drag it onto the graph.")
            self.addItem(item)
        self.itemClicked.connect(lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.itemActivated.connect(lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def mimeData(self, items: list[QListWidgetItem]) -> QMimeData:  # type: ignore[override]
        data = QMimeData()
        if items:
            data.setData(NODE_MIME, str(items[0].data(Qt.ItemDataRole.UserRole)).encode("utf-8"))
        return data

    def mimeTypes(self) -> list[str]:
        return [NODE_MIME]
