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


def check_map_content(
    content: Mapping[str, Any], doc_id: str | None = None
) -> tuple[dict[str, Any] | None, list[ContentProblem]]:
    """Check a Map's content; returns ``(exportable content, problems)``.

    The exportable content holds only :data:`MAP_CONTENT_KEYS` and only the valid cells,
    edges and markers; it is ``None`` when the width or height is unusable (no bounds).
    """
    problems: list[ContentProblem] = []

    def problem(code: str, message: str, path: str) -> None:
        problems.append(content_problem(code, message, path, doc_id=doc_id))

    width = _dimension(content.get("width"))
    height = _dimension(content.get("height"))
    for dimension, size in (("width", width), ("height", height)):
        if size is None:
            problem(
                "bad-dimension",
                f"{dimension} must be a whole number from 1 to {MAX_MAP_SIZE}, got {content.get(dimension)!r}",
                dimension,
            )

    def entries(name: str) -> Mapping[str, Any]:
        value = content.get(name, {})
        if value is None:
            return {}
        if not isinstance(value, dict | Mapping):
            problem("bad-entry", f"{name} must be an object keyed by position, not {json_type(value)}", name)
            return {}
        return value

    cells_in, edges_in = entries("cells"), entries("edges")
    raw_markers = content.get("markers", {})
    markers_in: dict[str, Any] = {}
    if isinstance(raw_markers, list):  # also accepted: a list of {name, x, y, ...}
        for index, marker in enumerate(raw_markers):
            name = marker.get("name") if isinstance(marker, Mapping) else None
            if not isinstance(name, str) or not name.strip():
                problem("bad-marker", f"markers[{index}] needs a non-empty `name`", f"markers[{index}]")
            elif name in markers_in:
                problem("bad-marker", f"two markers are named {name!r}; marker names are unique", f"markers[{index}]")
            else:
                markers_in[name] = {k: v for k, v in marker.items() if k != "name"}
    else:
        markers_in = dict(entries("markers"))
    map_properties = content.get("properties", {})
    if map_properties is None:
        map_properties = {}
    if not isinstance(map_properties, Mapping):
        problem("bad-entry", f"properties must be an object, not {json_type(map_properties)}", "properties")
        map_properties = {}
    cells: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    markers: dict[str, Any] = {}

    def in_bounds(x: int, y: int) -> bool:
        return width is not None and height is not None and 0 <= x < width and 0 <= y < height

    def bounds_text() -> str:
        return f"x 0..{(width or 1) - 1}, y 0..{(height or 1) - 1}"

    def check_entry(kind: str, key: str, value: Any) -> bool:
        if _has_type(value):
            return True
        path = f'{kind}["{key}"]'
        if not isinstance(value, dict):
            problem("bad-entry", f"{path} must be an object with a `type`, not {json_type(value)}", path)
        else:
            problem("missing-type", f'{path} needs a `type` (a non-empty string, e.g. "wall")', path)
        return False

    bounded = width is not None and height is not None
    for key in sorted(cells_in):
        value = cells_in[key]
        match = CELL_KEY.match(key)
        if not match:
            loose = _LOOSE_CELL_KEY.match(key)
            if loose and not (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
                problem(
                    "bad-key",
                    f'cell key {key!r} must be written "x,y" without spaces or zeros in front',
                    f'cells["{key}"]',
                )
            elif loose:
                problem("out-of-bounds", f"cell {key!r} is outside the map ({bounds_text()})", f'cells["{key}"]')
            else:
                problem("bad-key", f'cell key {key!r} must be "x,y", e.g. "3,4"', f'cells["{key}"]')
            continue
        x, y = int(match.group(1)), int(match.group(2))
        if bounded and not in_bounds(x, y):
            problem("out-of-bounds", f"cell {key!r} is outside the map ({bounds_text()})", f'cells["{key}"]')
            continue
        if not _has_type(value):
            check_entry("cells", key, value)  # reports what is wrong
            continue
        cells[key] = value

    seen_edges: dict[tuple[int, int, str], str] = {}
    for key in sorted(edges_in):
        value = edges_in[key]
        match = EDGE_KEY.match(key)
        if not match:
            loose = _LOOSE_EDGE_KEY.match(key)
            if loose and (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
                problem("out-of-bounds", f"edge {key!r} is outside the map ({bounds_text()})", f'edges["{key}"]')
            else:
                problem("bad-key", f'edge key {key!r} must be "x,y:N|E|S|W", e.g. "3,4:S"', f'edges["{key}"]')
            continue
        x, y, side = int(match.group(1)), int(match.group(2)), match.group(3)
        if bounded and not in_bounds(x, y):
            problem("out-of-bounds", f"edge {key!r} is outside the map ({bounds_text()})", f'edges["{key}"]')
            continue
        if not _has_type(value):
            check_entry("edges", key, value)  # reports what is wrong
            continue
        dx, dy, opposite = _NEIGHBOUR[side]
        twin = (x + dx, y + dy, opposite)
        if twin in seen_edges:
            problem(
                "duplicate-edge",
                f"edge {key!r} is the same edge as {seen_edges[twin]!r}; keep one of them",
                f'edges["{key}"]',
            )
            continue
        seen_edges[(x, y, side)] = key
        edges[key] = value

    for name in sorted(markers_in):
        value = markers_in[name]
        path = f'markers["{name}"]'
        if not name.strip():
            problem("bad-marker", "a marker needs a non-empty name", path)
            continue
        if not isinstance(value, Mapping):
            problem("bad-marker", f"{path} must be an object with x and y, not {json_type(value)}", path)
            continue
        mx, my = value.get("x"), value.get("y")
        if not (isinstance(mx, int) and isinstance(my, int)) or isinstance(mx, bool) or isinstance(my, bool):
            problem("bad-marker", f"{path} needs whole-number x and y, got x={mx!r}, y={my!r}", path)
            continue
        if width is not None and height is not None and not in_bounds(mx, my):
            problem("out-of-bounds", f"marker {name!r} at {mx},{my} is outside the map ({bounds_text()})", path)
            continue
        markers[name] = value

    if width is None or height is None:
        return None, problems
    exported = {
        "width": width,
        "height": height,
        "cells": cells,
        "edges": edges,
        "markers": markers,
        "properties": dict(map_properties),
    }
    return exported, problems


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
