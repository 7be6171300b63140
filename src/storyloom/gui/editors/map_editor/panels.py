"""The map editor's two panels. The palette (left): the tools, the cell types and the edge types
to paint with (add a type by name). The inspector (right): what is selected — a cell, an edge or
a marker, its type and its properties as JSON — the map's bounds and properties, and its markers.

Panels send intents as signals when a field is done with; the editor makes them undoable steps."""

from __future__ import annotations

import json
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFocusEvent, QFontDatabase, QIcon, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
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

from storyloom.gui import theme
from storyloom.project import maps as mp
from storyloom.project.content import MAX_MAP_SIZE

TOOLS: tuple[tuple[str, str, str, str], ...] = (
    ("select", "Select", "ph.cursor", "V"),
    ("cell", "Paint cells", "ph.paint-brush", "B"),
    ("edge", "Paint edges", "ph.line-segment", "E"),
    ("fill", "Bucket fill", "ph.paint-bucket", "G"),
    ("marker", "Markers", "ph.map-pin", "M"),
    ("erase", "Delete", "ph.eraser", "X"),
)
TOOL_HINTS = {
    "select": "Click a cell, a side or a marker to inspect it; drag a marker to move it.",
    "cell": "Click or drag to paint cells; right-click erases.",
    "edge": "Click near a cell's side to paint an edge (door, wall…); right-click erases it.",
    "fill": "Click to fill the area of same cells joined side by side.",
    "marker": "Click a cell to place a new marker; drag a marker to move it.",
    "erase": "Click or drag: removes the side under the pointer, else the marker, else the cell.",
}


def swatch(color: str, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


def _field_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("role", "caption")
    return label


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setProperty("role", "heading")
    return label


class JsonEdit(QPlainTextEdit):
    """Properties as a JSON object; says it is done when it loses the focus."""

    committed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setTabChangesFocus(True)
        self.setFixedHeight(96)
        self._shown = ""

    def show_value(self, value: dict[str, Any]) -> None:
        text = json.dumps(value, indent=1, ensure_ascii=False) if value else "{}"
        if not self.hasFocus():
            self._shown = text
            self.setPlainText(text)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        if self.toPlainText() != self._shown:
            self._shown = self.toPlainText()
            self.committed.emit(self.toPlainText())


def parse_properties(text: str) -> dict[str, Any]:
    """What a properties box holds: a JSON object (``ValueError`` with the reason otherwise)."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} (line {exc.lineno})") from exc
    if not isinstance(value, dict):
        raise ValueError("properties are a JSON object, { \"key\": value }")
    return value


class MapPalette(QFrame):
    tool_chosen = Signal(str)
    type_chosen = Signal(str, str)  # "cells" | "edges", type
    type_added = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapPalette")
        self.setFixedWidth(212)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.M, theme.M, theme.M, theme.M)
        layout.setSpacing(theme.XS)
        layout.addWidget(_field_label("Tools"))
        grid = QGridLayout()
        grid.setSpacing(theme.XS)
        self.tool_buttons: dict[str, QToolButton] = {}
        for index, (name, title, icon, key) in enumerate(TOOLS):
            button = QToolButton()
            button.setIcon(qta.icon(icon))
            button.setText(title.split()[-1].capitalize() if name != "erase" else "Delete")
            button.setToolTip(f"{title} ({key})")
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
            button.setMinimumWidth(58)
            button.setObjectName(f"tool-{name}")
            button.clicked.connect(lambda _c=False, n=name: self.tool_chosen.emit(n))
            grid.addWidget(button, index // 3, index % 3)
            self.tool_buttons[name] = button
        layout.addLayout(grid)
        self.hint = _caption("")
        self.hint.setMinimumHeight(48)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.hint)
        layout.addSpacing(theme.S)
        self.lists: dict[str, QListWidget] = {}
        self.adders: dict[str, QLineEdit] = {}
        for kind, title, placeholder in (("cells", "Cell types", "New cell type…"),
                                         ("edges", "Edge types", "New edge type…")):
            layout.addWidget(_field_label(title))
            types = QListWidget()
            types.setObjectName(f"{kind}Palette")
            types.currentItemChanged.connect(lambda item, _prev, k=kind: self._chosen(k, item))
            layout.addWidget(types, 1 if kind == "cells" else 0)
            adder = QLineEdit()
            adder.setPlaceholderText(placeholder)
            adder.setObjectName(f"{kind}Adder")
            adder.returnPressed.connect(lambda a=adder, k=kind: self._add(k, a))
            layout.addWidget(adder)
            layout.addSpacing(theme.S)
            self.lists[kind], self.adders[kind] = types, adder

    def _chosen(self, kind: str, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.type_chosen.emit(kind, item.data(Qt.ItemDataRole.UserRole))

    def _add(self, kind: str, adder: QLineEdit) -> None:
        name = adder.text().strip()
        if name:
            adder.clear()
            self.type_added.emit(kind, name)

    def show_tool(self, tool: str) -> None:
        for name, button in self.tool_buttons.items():
            button.setChecked(name == tool)
        self.hint.setText(TOOL_HINTS.get(tool, ""))

    def show_palette(self, kind: str, entries: list[dict[str, Any]], current: str, counts: dict[str, int]) -> None:
        types = self.lists[kind]
        types.blockSignals(True)
        types.clear()
        for entry in entries:
            used = counts.get(entry["type"], 0)
            item = QListWidgetItem(swatch(entry["color"]), f"{entry['type']}" + (f"  · {used}" if used else ""))
            item.setData(Qt.ItemDataRole.UserRole, entry["type"])
            types.addItem(item)
            if entry["type"] == current:
                types.setCurrentItem(item)
        types.blockSignals(False)
        if kind == "edges":  # the edge types take the room they need; the cell types the rest
            rows = max(3, min(types.count(), 8))
            types.setFixedHeight(rows * max(types.sizeHintForRow(0), 18) + 2 * types.frameWidth() + 4)


class MapInspector(QScrollArea):
    cell_edited = Signal(int, int, dict)  # x, y, value (type and properties)
    edge_edited = Signal(str, dict)  # key, value
    marker_renamed = Signal(str, str)
    marker_moved = Signal(str, int, int)
    marker_properties = Signal(str, dict)
    marker_removed = Signal(str)
    marker_chosen = Signal(str)
    size_requested = Signal(int, int)
    properties_edited = Signal(dict)
    invalid = Signal(str)  # what was typed that the map cannot take

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapInspector")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumWidth(280)
        page = QWidget()
        page.setObjectName("inspectorPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.L)
        layout.setSpacing(theme.XS)
        self.selection_title = _heading("Nothing selected")
        layout.addWidget(self.selection_title)
        self.selection_caption = _caption("Use the Select tool (V) and click a cell, a side or a marker.")
        layout.addWidget(self.selection_caption)
        self.type_label = _field_label("Type")
        layout.addWidget(self.type_label)
        self.type_box = QComboBox()
        self.type_box.setEditable(True)
        self.type_box.setObjectName("selectionType")
        self.type_box.activated.connect(lambda _i: self._commit_selection())
        self.type_box.lineEdit().editingFinished.connect(self._commit_selection)
        layout.addWidget(self.type_box)
        self.name_label = _field_label("Name")
        layout.addWidget(self.name_label)
        self.marker_name = QLineEdit()
        self.marker_name.setObjectName("markerName")
        self.marker_name.editingFinished.connect(self._rename_marker)
        layout.addWidget(self.marker_name)
        self.props_label = _field_label("Properties (JSON)")
        layout.addWidget(self.props_label)
        self.props = JsonEdit()
        self.props.setObjectName("selectionProperties")
        self.props.committed.connect(lambda _t: self._commit_selection())
        layout.addWidget(self.props)
        self.remove_marker = QPushButton(qta.icon("ph.trash"), "Remove marker")
        self.remove_marker.clicked.connect(lambda: self.marker and self.marker_removed.emit(self.marker))
        row = QHBoxLayout()
        row.addWidget(self.remove_marker)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addSpacing(theme.L)
        layout.addWidget(_heading("Map"))
        size_row = QHBoxLayout()
        size_row.setSpacing(theme.S)
        self.width_box, self.height_box = QSpinBox(), QSpinBox()
        for box, name in ((self.width_box, "Width"), (self.height_box, "Height")):
            box.setRange(1, MAX_MAP_SIZE)
            box.setObjectName(f"map{name}")
            box.setToolTip(f"{name} in cells")
            column = QVBoxLayout()
            column.setSpacing(2)
            column.addWidget(_field_label(name))
            column.addWidget(box)
            size_row.addLayout(column, 1)
        self.apply_size = QPushButton("Resize")
        self.apply_size.setObjectName("applySize")
        self.apply_size.clicked.connect(lambda: self.size_requested.emit(self.width_box.value(),
                                                                         self.height_box.value()))
        size_row.addWidget(self.apply_size, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addLayout(size_row)
        layout.addWidget(_field_label("Map properties (JSON)"))
        self.map_props = JsonEdit()
        self.map_props.setObjectName("mapProperties")
        self.map_props.committed.connect(self._commit_map_properties)
        layout.addWidget(self.map_props)
        layout.addSpacing(theme.L)
        layout.addWidget(_heading("Markers"))
        self.markers = QListWidget()
        self.markers.setObjectName("markerList")
        self.markers.setMinimumHeight(120)
        self.markers.itemClicked.connect(lambda item: self.marker_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        layout.addWidget(self.markers, 1)
        self.setWidget(page)
        self.selection: tuple[str, Any] | None = None
        self.marker: str | None = None
        self._show_fields(False, False, False)

    def _show_fields(self, typed: bool, props: bool, marker: bool) -> None:
        for widget in (self.type_label, self.type_box):
            widget.setVisible(typed)
        for widget in (self.props_label, self.props):
            widget.setVisible(props)
        for widget in (self.name_label, self.marker_name, self.remove_marker):
            widget.setVisible(marker)

    def show_map(self, content: dict[str, Any]) -> None:
        width, height = mp.size_of(content)
        for box, value in ((self.width_box, width), (self.height_box, height)):
            if not box.hasFocus():
                box.setValue(value)
        props = content.get("properties")
        self.map_props.show_value(props if isinstance(props, dict) else {})
        current = self.markers.currentItem().data(Qt.ItemDataRole.UserRole) if self.markers.currentItem() else None
        self.markers.clear()
        for name, marker in sorted(mp.markers_of(content).items()):
            where = f"{marker.get('x')},{marker.get('y')}" if isinstance(marker, dict) else "?"
            item = QListWidgetItem(qta.icon("ph.map-pin", color="#d6336c"), f"{name}   {where}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.markers.addItem(item)
            if name == current:
                self.markers.setCurrentItem(item)

    def show_selection(self, content: dict[str, Any], selection: tuple[str, Any] | None) -> None:
        self.selection = selection
        self.marker = None
        if selection is None:
            self.selection_title.setText("Nothing selected")
            self.selection_caption.setText("Use the Select tool (V) and click a cell, a side or a marker.")
            self._show_fields(False, False, False)
            return
        kind, where = selection
        if kind == "marker":
            marker = mp.markers_of(content).get(where) or {}
            self.marker = where
            self.selection_title.setText(f"Marker {where}")
            self.selection_caption.setText(f"At {marker.get('x')},{marker.get('y')}. Drag it on the map to move it.")
            if not self.marker_name.hasFocus():
                self.marker_name.setText(where)
            self.props.show_value({k: v for k, v in marker.items() if k not in ("x", "y")})
            self._show_fields(False, True, True)
            return
        if kind == "cell":
            x, y = where
            value = mp.cell_at(content, x, y)
            self.selection_title.setText(f"Cell {mp.cell_key(x, y)}")
            self.selection_caption.setText("Empty: choose a type to set it." if value is None else
                                           "Its type and properties, as the export writes them.")
            entries = mp.palette(content, "cells")
        else:
            x, y, side = where
            found = mp.edge_at(content, x, y, side)
            value = found[1] if found else None
            key = found[0] if found else mp.edge_key(x, y, side)
            other = mp.edge_key(*mp.twin(*mp.parse_edge_key(key)))  # type: ignore[misc]
            self.selection_title.setText(f"Edge {key}")
            self.selection_caption.setText(f"The same side as {other}. " + (
                "No edge here yet: choose a type to set one." if value is None else "Stored under this key."))
            entries = mp.palette(content, "edges")
        self.type_box.blockSignals(True)
        self.type_box.clear()
        self.type_box.addItem("", "")
        for entry in entries:
            self.type_box.addItem(swatch(entry["color"]), entry["type"], entry["type"])
        self.type_box.setCurrentText(mp.type_of(value) or "")
        self.type_box.blockSignals(False)
        self.props.show_value({k: v for k, v in (value or {}).items() if k != "type"})
        self._show_fields(True, True, False)

    def _commit_selection(self) -> None:
        if self.selection is None:
            return
        kind, where = self.selection
        try:
            props = parse_properties(self.props.toPlainText())
        except ValueError as exc:
            self.invalid.emit(f"Properties {exc}")
            return
        if kind == "marker":
            self.marker_properties.emit(where, props)
            return
        type_name = self.type_box.currentText().strip()
        if not type_name:
            return
        value = {"type": type_name, **{k: v for k, v in props.items() if k != "type"}}
        if kind == "cell":
            self.cell_edited.emit(where[0], where[1], value)
        else:
            self.edge_edited.emit(mp.edge_key(*where), value)

    def _rename_marker(self) -> None:
        if self.marker is not None and self.marker_name.text().strip() and self.marker_name.text() != self.marker:
            self.marker_renamed.emit(self.marker, self.marker_name.text())

    def _commit_map_properties(self, text: str) -> None:
        try:
            self.properties_edited.emit(parse_properties(text))
        except ValueError as exc:
            self.invalid.emit(f"Map properties {exc}")

