"""Map documents: bounds, cells, edges and markers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from storyloom.project.content.problems import ContentProblem, content_problem
from storyloom.project.content.schemas import json_type

# --------------------------------------------------------------------------------------
# Maps

SIDES: tuple[str, ...] = ("N", "E", "S", "W")
MAP_CONTENT_KEYS: tuple[str, ...] = ("width", "height", "cells", "edges", "markers", "properties")
"""The exported keys of a Map's ``content``; anything else (``content.editor``: viewport,
zoom, tool, palette, layer visibility) is editor-only and never exported."""

MAX_MAP_SIZE = 100_000
CELL_KEY = re.compile(r"^(0|[1-9][0-9]*),(0|[1-9][0-9]*)$")
EDGE_KEY = re.compile(r"^(0|[1-9][0-9]*),(0|[1-9][0-9]*):([NESW])$")
_LOOSE_CELL_KEY = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
_LOOSE_EDGE_KEY = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*:\s*([NESWnesw])\s*$")
_NEIGHBOUR = {"N": (0, -1, "S"), "S": (0, 1, "N"), "E": (1, 0, "W"), "W": (-1, 0, "E")}


def _dimension(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    size = int(value)
    return size if 1 <= size <= MAX_MAP_SIZE else None


def _has_type(entry: Any) -> bool:
    """A valid cell or edge value: an object with a non-empty string ``type``."""
    if not isinstance(entry, dict):
        return False
    entry_type = entry.get("type")
    return isinstance(entry_type, str) and bool(entry_type.strip())


class _MapCheck:
    """One Map's content checked part by part; ``problems`` collects what is wrong, in the order
    the parts are checked (dimensions, the entry objects, cells, edges, markers)."""

    def __init__(self, content: Mapping[str, Any], doc_id: str | None) -> None:
        self.content = content
        self.doc_id = doc_id
        self.problems: list[ContentProblem] = []
        self.width = _dimension(content.get("width"))
        self.height = _dimension(content.get("height"))
        for dimension, size in (("width", self.width), ("height", self.height)):
            if size is None:
                self.problem(
                    "bad-dimension",
                    f"{dimension} must be a whole number from 1 to {MAX_MAP_SIZE}, got {content.get(dimension)!r}",
                    dimension,
                )

    def problem(self, code: str, message: str, path: str) -> None:
        self.problems.append(content_problem(code, message, path, doc_id=self.doc_id))

    @property
    def bounded(self) -> bool:
        return self.width is not None and self.height is not None

    def in_bounds(self, x: int, y: int) -> bool:
        return self.width is not None and self.height is not None and 0 <= x < self.width and 0 <= y < self.height

    def bounds_text(self) -> str:
        return f"x 0..{(self.width or 1) - 1}, y 0..{(self.height or 1) - 1}"

    def entries(self, name: str) -> Mapping[str, Any]:
        value = self.content.get(name, {})
        if value is None:
            return {}
        if not isinstance(value, dict | Mapping):
            self.problem("bad-entry", f"{name} must be an object keyed by position, not {json_type(value)}", name)
            return {}
        return value

    def markers_in(self) -> dict[str, Any]:
        """The markers by name; also accepted: a list of {name, x, y, ...}."""
        raw_markers = self.content.get("markers", {})
        if not isinstance(raw_markers, list):
            return dict(self.entries("markers"))
        markers_in: dict[str, Any] = {}
        for index, marker in enumerate(raw_markers):
            name = marker.get("name") if isinstance(marker, Mapping) else None
            if not isinstance(name, str) or not name.strip():
                self.problem("bad-marker", f"markers[{index}] needs a non-empty `name`", f"markers[{index}]")
            elif name in markers_in:
                self.problem("bad-marker", f"two markers are named {name!r}; marker names are unique",
                             f"markers[{index}]")
            else:
                markers_in[name] = {k: v for k, v in marker.items() if k != "name"}
        return markers_in

    def properties(self) -> Mapping[str, Any]:
        map_properties = self.content.get("properties", {})
        if map_properties is None:
            return {}
        if not isinstance(map_properties, Mapping):
            self.problem("bad-entry", f"properties must be an object, not {json_type(map_properties)}", "properties")
            return {}
        return map_properties

    def typed(self, kind: str, key: str, value: Any) -> bool:
        """Whether ``value`` is an object with a ``type``; reports what is wrong when not."""
        if _has_type(value):
            return True
        path = f'{kind}["{key}"]'
        if not isinstance(value, dict):
            self.problem("bad-entry", f"{path} must be an object with a `type`, not {json_type(value)}", path)
        else:
            self.problem("missing-type", f'{path} needs a `type` (a non-empty string, e.g. "wall")', path)
        return False

    def cells(self, cells_in: Mapping[str, Any]) -> dict[str, Any]:
        cells: dict[str, Any] = {}
        for key in sorted(cells_in):
            value = cells_in[key]
            match = CELL_KEY.match(key)
            if not match:
                self._bad_cell_key(key)
                continue
            x, y = int(match.group(1)), int(match.group(2))
            if self.bounded and not self.in_bounds(x, y):
                self.problem("out-of-bounds", f"cell {key!r} is outside the map ({self.bounds_text()})",
                             f'cells["{key}"]')
                continue
            if self.typed("cells", key, value):
                cells[key] = value
        return cells

    def _bad_cell_key(self, key: str) -> None:
        loose = _LOOSE_CELL_KEY.match(key)
        if loose and not (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
            self.problem(
                "bad-key",
                f'cell key {key!r} must be written "x,y" without spaces or zeros in front',
                f'cells["{key}"]',
            )
        elif loose:
            self.problem("out-of-bounds", f"cell {key!r} is outside the map ({self.bounds_text()})", f'cells["{key}"]')
        else:
            self.problem("bad-key", f'cell key {key!r} must be "x,y", e.g. "3,4"', f'cells["{key}"]')

    def edges(self, edges_in: Mapping[str, Any]) -> dict[str, Any]:
        edges: dict[str, Any] = {}
        seen_edges: dict[tuple[int, int, str], str] = {}
        for key in sorted(edges_in):
            value = edges_in[key]
            match = EDGE_KEY.match(key)
            if not match:
                loose = _LOOSE_EDGE_KEY.match(key)
                if loose and (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
                    self.problem("out-of-bounds", f"edge {key!r} is outside the map ({self.bounds_text()})",
                                 f'edges["{key}"]')
                else:
                    self.problem("bad-key", f'edge key {key!r} must be "x,y:N|E|S|W", e.g. "3,4:S"',
                                 f'edges["{key}"]')
                continue
            x, y, side = int(match.group(1)), int(match.group(2)), match.group(3)
            if self.bounded and not self.in_bounds(x, y):
                self.problem("out-of-bounds", f"edge {key!r} is outside the map ({self.bounds_text()})",
                             f'edges["{key}"]')
                continue
            if not self.typed("edges", key, value):
                continue
            dx, dy, opposite = _NEIGHBOUR[side]
            twin = (x + dx, y + dy, opposite)
            if twin in seen_edges:
                self.problem(
                    "duplicate-edge",
                    f"edge {key!r} is the same edge as {seen_edges[twin]!r}; keep one of them",
                    f'edges["{key}"]',
                )
                continue
            seen_edges[(x, y, side)] = key
            edges[key] = value
        return edges

    def markers(self, markers_in: Mapping[str, Any]) -> dict[str, Any]:
        markers: dict[str, Any] = {}
        for name in sorted(markers_in):
            value = markers_in[name]
            path = f'markers["{name}"]'
            if not name.strip():
                self.problem("bad-marker", "a marker needs a non-empty name", path)
                continue
            if not isinstance(value, Mapping):
                self.problem("bad-marker", f"{path} must be an object with x and y, not {json_type(value)}", path)
                continue
            mx, my = value.get("x"), value.get("y")
            if not (isinstance(mx, int) and isinstance(my, int)) or isinstance(mx, bool) or isinstance(my, bool):
                self.problem("bad-marker", f"{path} needs whole-number x and y, got x={mx!r}, y={my!r}", path)
                continue
            if self.bounded and not self.in_bounds(mx, my):
                self.problem("out-of-bounds",
                             f"marker {name!r} at {mx},{my} is outside the map ({self.bounds_text()})", path)
                continue
            markers[name] = value
        return markers


def check_map_content(
    content: Mapping[str, Any], doc_id: str | None = None
) -> tuple[dict[str, Any] | None, list[ContentProblem]]:
    """Check a Map's content; returns ``(exportable content, problems)``.

    The exportable content holds only :data:`MAP_CONTENT_KEYS` and only the valid cells,
    edges and markers; it is ``None`` when the width or height is unusable (no bounds).
    """
    check = _MapCheck(content, doc_id)
    cells_in, edges_in = check.entries("cells"), check.entries("edges")
    markers_in = check.markers_in()
    map_properties = check.properties()
    cells = check.cells(cells_in)
    edges = check.edges(edges_in)
    markers = check.markers(markers_in)
    if check.width is None or check.height is None:
        return None, check.problems
    exported = {
        "width": check.width,
        "height": check.height,
        "cells": cells,
        "edges": edges,
        "markers": markers,
        "properties": dict(map_properties),
    }
    return exported, check.problems


def validate_map(doc: Mapping[str, Any]) -> list[ContentProblem]:
    """Problems of a Map document's content (empty when valid): ``bad-dimension``,
    ``bad-key``, ``out-of-bounds``, ``bad-entry``, ``missing-type``, ``duplicate-edge``,
    ``bad-marker``. See ``docs/export-format.md`` for the shape."""
    content = doc.get("content")
    if not isinstance(content, Mapping):
        return [
            content_problem(
                "bad-entry", "a map's content must be an object with width and height", "", doc_id=doc.get("_id")
            )
        ]
    return check_map_content(content, doc.get("_id"))[1]
