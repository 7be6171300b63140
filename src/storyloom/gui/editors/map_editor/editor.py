"""The Map editor: a tile and edge level editor. The palette (tools, cell and edge types), the
map with zoom and pan, and the inspector (the selection, the bounds, the markers): a board
(:class:`~storyloom.gui.editors.board.ContentBoardEditor`: undo, read-only, selection). Every
edit is a step of :mod:`storyloom.project.maps` (a new content) — one brush stroke is one step —
and the document saves ``content`` through the editor gate like every editor.

The public methods (:meth:`set_tool`, :meth:`paint_cells`, :meth:`paint_edge`, :meth:`fill`,
:meth:`erase_at`, :meth:`add_marker`, :meth:`move_marker`, :meth:`resize_map`, :meth:`add_type`,
:meth:`select_cell`, :meth:`select_edge`, :meth:`select_marker`...) are what the panels and the
pointer call, and what the tests drive."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QSplitter, QWidget

from storyloom.gui.editors.board import ContentBoardEditor
from storyloom.gui.editors.map_editor.panels import TOOLS, MapInspector, MapPalette
from storyloom.gui.editors.map_editor.view import CELL, MapView
from storyloom.project import maps as mp
from storyloom.words import counted

EDGE_REACH = 0.3
"""How near a side (in cells) the pointer must be for the delete tool to take the edge."""
CURSORS = {"select": Qt.CursorShape.ArrowCursor, "marker": Qt.CursorShape.PointingHandCursor}


class MapEditor(ContentBoardEditor):
    """A Map document (``content.width``, ``height``, ``cells``, ``edges``, ``markers``...)."""

    view: MapView
    noun = "map"
    object_prefix = "map"
    text_beside_icons = False

    def make_view(self) -> MapView:
        self.content = {"width": 16, "height": 12, "cells": {}, "edges": {}, "markers": {}}
        self.tool = "cell"
        self.cell_type = ""
        self.edge_type = ""
        self.selection: tuple[str, Any] | None = None
        self._strokes = itertools.count(1)
        self._stroke: str | None = None
        self._stroke_button = 0
        self._dragging_marker: str | None = None
        self.tile_palette = MapPalette()
        self.inspector = MapInspector()
        return MapView()

    def build_tools(self) -> None:
        self.add_zoom_tools()
        self.grid_action = self.add_tool("ph.grid-four", "Grid", "Ctrl+'", self._toggle_grid)
        self.grid_action.setCheckable(True)
        self.grid_action.setChecked(True)
        for name, title, _icon, key in TOOLS:
            action = QAction(title, self)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _c=False, n=name: self.set_tool(n))
            self.view.addAction(action)

    def arrange(self, center: QWidget) -> QWidget:
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setObjectName("mapSplitter")
        body.setHandleWidth(1)
        body.addWidget(self.tile_palette)
        body.addWidget(center)
        body.addWidget(self.inspector)
        body.setStretchFactor(1, 1)
        body.setCollapsible(1, False)
        body.setSizes([212, 900, 300])
        return body

    def connect_board(self) -> None:
        self.view.pressed.connect(self._pressed)
        self.view.dragged.connect(self._dragged)
        self.view.released.connect(self._released)
        self.view.hovered.connect(self._hovered)
        self.tile_palette.tool_chosen.connect(self.set_tool)
        self.tile_palette.type_chosen.connect(self._type_chosen)
        self.tile_palette.type_added.connect(lambda kind, name: self.add_type(kind, name))
        self.inspector.cell_edited.connect(self.set_cell)
        self.inspector.edge_edited.connect(self.set_edge)
        self.inspector.marker_renamed.connect(self.rename_marker)
        self.inspector.marker_properties.connect(self.set_marker_properties)
        self.inspector.marker_removed.connect(self.remove_marker)
        self.inspector.marker_chosen.connect(self.select_marker)
        self.inspector.size_requested.connect(self.resize_map)
        self.inspector.properties_edited.connect(self.set_properties)
        self.inspector.invalid.connect(lambda text: self.hint_label.setText(f"Not saved: {text}."))

    # ------------------------------------------------------------------ the document
    def content_loaded(self) -> None:
        editor = self.content.get("editor") if isinstance(self.content.get("editor"), dict) else {}
        if editor.get("tool") in {t[0] for t in TOOLS}:
            self.tool = str(editor["tool"])
        layers = editor.get("layers") if isinstance(editor.get("layers"), dict) else {}
        self.view.item.show_grid = layers.get("grid", True) is not False
        self.grid_action.setChecked(self.view.item.show_grid)
        super().content_loaded()
        self.set_tool(self.tool)

    def show_content(self) -> None:
        self._refresh()

    def fit(self) -> None:
        self.view.fit(self.view.item.map_rect(), margin=CELL / 2, max_zoom=3.0)
        self.show_zoom()

    def _toggle_grid(self) -> None:
        self.view.item.show_grid = self.grid_action.isChecked()
        self.view.item.update()

    def _refresh(self) -> None:
        """Show the content everywhere: the map, the palettes, the inspector, the summary."""
        if self.selection is not None and not self._selection_exists():
            self.selection = None
        self.view.item.show_map(self.content)
        self.view.item.set_marks(self.selection, self.view.item.hover)
        for kind in ("cells", "edges"):
            entries = mp.palette(self.content, kind)
            current = self.cell_type if kind == "cells" else self.edge_type
            if entries and current not in {e["type"] for e in entries}:
                current = entries[0]["type"]
                if kind == "cells":
                    self.cell_type = current
                else:
                    self.edge_type = current
            counts = Counter(mp.type_of(v) for v in getattr(mp, f"{kind}_of")(self.content).values())
            self.tile_palette.show_palette(kind, entries, current, counts)  # type: ignore[arg-type]
        self.inspector.show_map(self.content)
        self.inspector.show_selection(self.content, self.selection)
        width, height = mp.size_of(self.content)
        cells, edges, markers = (len(getattr(mp, f"{k}_of")(self.content)) for k in ("cells", "edges", "markers"))
        self.summary_label.setText(f"{width} × {height} · {counted(cells, 'cell')} · {counted(edges, 'edge')} · "
                                   f"{counted(markers, 'marker')}")

    def _selection_exists(self) -> bool:
        kind, where = self.selection  # type: ignore[misc]
        if kind == "marker":
            return where in mp.markers_of(self.content)
        if kind == "cell":
            return mp.in_bounds(self.content, *where)
        return mp.in_bounds(self.content, where[0], where[1]) or mp.in_bounds(self.content, *mp.twin(*where)[:2])

    # ------------------------------------------------------------------ steps
    def board_editable(self, editable: bool) -> None:
        """Locked by someone else: the map can be looked at and inspected, not changed."""
        self.tile_palette.setEnabled(editable)
        self.inspector.setEnabled(editable)
        if not editable:
            self.set_tool("select")

    def _try(self, text: str, make: Any, merge_key: str | None = None) -> bool:
        try:
            after = make()
        except mp.MapRefused as exc:
            return self.not_done(exc)
        self.hint_label.setText("")
        return self.step(text, after, merge_key)

    def set_tool(self, tool: str) -> None:
        self.tool = tool
        self.tile_palette.show_tool(tool)
        self.view.set_cursor_shape(CURSORS.get(tool, Qt.CursorShape.CrossCursor))

    def _type_chosen(self, kind: str, type_name: str) -> None:
        if kind == "cells":
            self.cell_type = type_name
            if self.tool not in ("cell", "fill"):
                self.set_tool("cell")
        else:
            self.edge_type = type_name
            self.set_tool("edge")

    def add_type(self, kind: str, name: str, color: str | None = None) -> bool:
        """Add a cell or edge type to the palette (and paint with it)."""
        done = self._try("Add type", lambda: mp.add_palette_type(self.content, kind, name, color))
        if done:
            self._type_chosen(kind, name.strip())
            self._refresh()
        return done

    def paint_cells(self, positions: list[tuple[int, int]], type_name: str | None = None,
                    merge_key: str | None = None) -> bool:
        return self._try("Paint cells", lambda: mp.paint_cells(self.content, positions, type_name or self.cell_type),
                         merge_key)

    def erase_cells(self, positions: list[tuple[int, int]], merge_key: str | None = None) -> bool:
        return self._try("Erase cells", lambda: mp.erase_cells(self.content, positions), merge_key)

    def paint_edge(self, x: int, y: int, side: str, type_name: str | None = None,
                   merge_key: str | None = None) -> bool:
        if not (type_name or self.edge_type):
            self.hint_label.setText("Add an edge type first (type its name under Edge types).")
            return False
        return self._try("Paint edge", lambda: mp.paint_edge(self.content, x, y, side, type_name or self.edge_type),
                         merge_key)

    def erase_edge(self, x: int, y: int, side: str, merge_key: str | None = None) -> bool:
        return self._try("Erase edge", lambda: mp.erase_edge(self.content, x, y, side), merge_key)

    def fill(self, x: int, y: int, type_name: str | None = None) -> bool:
        return self._try("Fill", lambda: mp.fill(self.content, x, y, type_name or self.cell_type))

    def erase_at(self, fx: float, fy: float, merge_key: str | None = None) -> bool:
        """The delete tool at a point in cell units: the side under it, else the marker, else the cell."""
        x, y, side = mp.nearest_side(fx, fy)
        u, v = fx - x, fy - y
        near = min(u, v, 1 - u, 1 - v) <= EDGE_REACH
        if near and mp.edge_at(self.content, x, y, side) is not None:
            return self.erase_edge(x, y, side, merge_key)
        return self._try("Delete", lambda: mp.erase_at(self.content, x, y), merge_key)

    def set_cell(self, x: int, y: int, value: dict[str, Any]) -> bool:
        return self._try("Edit cell", lambda: mp.set_cell(self.content, x, y, value))

    def set_edge(self, key: str, value: dict[str, Any]) -> bool:
        parsed = mp.parse_edge_key(key)
        if parsed is None:
            return False
        return self._try("Edit edge", lambda: mp.set_edge(self.content, *parsed, value))

    def add_marker(self, x: int, y: int, name: str | None = None) -> str | None:
        name = name or mp.new_marker_name(self.content)
        if not self._try("Add marker", lambda: mp.set_marker(self.content, name, x, y)):
            return None
        self.select_marker(name)
        return name

    def move_marker(self, name: str, x: int, y: int, merge_key: str | None = None) -> bool:
        return self._try("Move marker", lambda: mp.set_marker(self.content, name, x, y), merge_key)

    def rename_marker(self, old: str, new: str) -> bool:
        done = self._try("Rename marker", lambda: mp.rename_marker(self.content, old, new))
        if done:
            self.select_marker(new.strip())
        return done

    def set_marker_properties(self, name: str, properties: dict[str, Any]) -> bool:
        return self._try("Edit marker", lambda: mp.set_marker_properties(self.content, name, properties))

    def remove_marker(self, name: str) -> bool:
        return self._try("Remove marker", lambda: mp.remove_marker(self.content, name))

    def resize_map(self, width: int, height: int) -> bool:
        """Set the map's bounds; what falls outside is removed (undo brings it back)."""
        try:
            after, dropped = mp.resize(self.content, width, height)
        except mp.MapRefused as exc:
            return self.not_done(exc)
        done = self.step(f"Resize to {width} × {height}", after)
        if done:
            self.hint_label.setText(f"{dropped} cells, edges or markers were outside and were removed "
                                    "(Undo brings them back)." if dropped else "")
            self.view.setSceneRect(QRectF())
        return done

    def set_properties(self, properties: dict[str, Any]) -> bool:
        return self._try("Edit map properties", lambda: mp.set_properties(self.content, properties))

    def delete_selection(self) -> bool:
        if self.selection is None:
            return False
        kind, where = self.selection
        if kind == "marker":
            return self.remove_marker(where)
        if kind == "cell":
            return self.erase_cells([where])
        return self.erase_edge(*where)

    # ------------------------------------------------------------------ selection
    def _select(self, selection: tuple[str, Any] | None) -> None:
        self.selection = selection
        self.view.item.set_marks(selection, self.view.item.hover)
        self.selection_changed()

    def selection_changed(self) -> None:
        self.inspector.show_selection(self.content, self.selection)

    def select_cell(self, x: int, y: int) -> None:
        self._select(("cell", (x, y)))

    def select_edge(self, key: str) -> None:
        parsed = mp.parse_edge_key(key)
        if parsed is not None:
            self._select(("edge", parsed))

    def select_marker(self, name: str) -> None:
        marker = mp.markers_of(self.content).get(name)
        self._select(("marker", name))
        if isinstance(marker, dict) and isinstance(marker.get("x"), int) and isinstance(marker.get("y"), int):
            point = self.view.scene_point(marker["x"] + 0.5, marker["y"] + 0.5)
            if not self.view.mapToScene(self.view.viewport().rect()).boundingRect().contains(point):
                self.view.centerOn(point)

    def focus_match(self, field: str, line: int, column: int = 1, length: int = 0) -> None:
        """A search hit in a marker, a cell or an edge (``content.markers.spawn.facing``) selects it."""
        parts = field.split(".", 3)
        if len(parts) >= 3 and parts[0] == "content":
            if parts[1] == "markers" and parts[2] in mp.markers_of(self.content):
                self.select_marker(parts[2])
                return
            if parts[1] == "cells" and (place := mp.parse_cell_key(parts[2])) is not None:
                self.select_cell(*place)
                return
            if parts[1] == "edges" and mp.parse_edge_key(parts[2]) is not None:
                self.select_edge(parts[2])
                return
        super().focus_match(field, line, column, length)

    # ------------------------------------------------------------------ the pointer
    def _pressed(self, fx: float, fy: float, button: int) -> None:
        x, y = int(fx // 1), int(fy // 1)
        right = button == Qt.MouseButton.RightButton.value
        self._stroke = f"map-stroke:{next(self._strokes)}"
        self._stroke_button = button
        self._dragging_marker = None
        marker = mp.marker_at(self.content, x, y)
        if self.tool in ("select", "marker") and marker is not None and not right:
            self._dragging_marker = marker
            self.select_marker(marker)
            return
        if self.tool == "select":
            side = mp.nearest_side(fx, fy)
            u, v = fx - x, fy - y
            if min(u, v, 1 - u, 1 - v) <= EDGE_REACH and mp.edge_at(self.content, *side) is not None:
                self._select(("edge", side))
            elif mp.in_bounds(self.content, x, y):
                self.select_cell(x, y)
            else:
                self._select(None)
        elif self.tool == "marker" and not right:
            self.add_marker(x, y)
        elif self.tool == "fill" and not right:
            self.fill(x, y)
        else:
            self._stroke_at(fx, fy)

    def _stroke_at(self, fx: float, fy: float) -> None:
        x, y = int(fx // 1), int(fy // 1)
        right = self._stroke_button == Qt.MouseButton.RightButton.value
        if self.tool == "erase" or (right and self.tool in ("cell", "edge", "fill")):
            if self.tool == "edge":
                self.erase_edge(*mp.nearest_side(fx, fy), merge_key=self._stroke)
            elif self.tool == "erase":
                self.erase_at(fx, fy, self._stroke)
            else:
                self.erase_cells([(x, y)], self._stroke)
        elif self.tool == "cell":
            if mp.in_bounds(self.content, x, y):
                self.paint_cells([(x, y)], merge_key=self._stroke)
        elif self.tool == "edge":
            self.paint_edge(*mp.nearest_side(fx, fy), merge_key=self._stroke)

    def _dragged(self, fx: float, fy: float) -> None:
        self._hovered(fx, fy)
        if self._dragging_marker is not None:
            x, y = int(fx // 1), int(fy // 1)
            if mp.in_bounds(self.content, x, y):
                self.move_marker(self._dragging_marker, x, y, self._stroke)
                self.selection_changed()
            return
        if self.tool in ("cell", "edge", "erase") or (
                self._stroke_button == Qt.MouseButton.RightButton.value and self.tool == "fill"):
            self._stroke_at(fx, fy)

    def _released(self, fx: float, fy: float) -> None:
        self._stroke = None
        self._dragging_marker = None

    def _hovered(self, fx: float, fy: float) -> None:
        x, y = int(fx // 1), int(fy // 1)
        if self.tool == "edge":
            hover: tuple[str, Any] | None = ("edge", mp.nearest_side(fx, fy))
        elif mp.in_bounds(self.content, x, y):
            hover = ("cell", (x, y))
        else:
            hover = None
        self.view.item.set_marks(self.selection, hover)
        where = f"{x},{y}" if mp.in_bounds(self.content, x, y) else ""
        if self.tool == "edge":
            where = mp.edge_key(*mp.nearest_side(fx, fy))
        if where and not self.read_only and not self.hint_label.text().startswith("Not"):
            cell = mp.cell_at(self.content, x, y)
            self.hint_label.setText(f"{where}" + (f" · {mp.type_of(cell)}" if cell and self.tool != "edge" else ""))
