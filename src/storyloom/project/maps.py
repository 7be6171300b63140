"""Editing Map documents, Qt-free: cell and edge keys, painting, bucket fill, markers, bounds
and the palette.

A Map's ``content`` (``docs/export-format.md``) is ``{width, height, cells {"x,y": {type, ...}},
edges {"x,y:N|E|S|W": {type, ...}}, markers {name: {x, y, ...}}, properties, editor}``. The
rules a stored map must keep are :func:`storyloom.project.content.validate_map`'s; every step
here keeps them: keys written as ``"x,y"`` and ``"x,y:S"`` inside the bounds, one key per edge
(``1,1:S`` and ``1,2:N`` are the same edge: setting one replaces the other), every entry with a
``type``. ``editor`` holds what only the editor uses (the palette, the zoom, the tool).

Every step takes a map's ``content`` and returns a new one; the input is never changed (the new
content shares the entries it did not change), so an editor keeps both for undo and redo.
"""

from __future__ import annotations

import colorsys
import copy
import hashlib
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project.content.maps import CELL_KEY, EDGE_KEY, MAX_MAP_SIZE, SIDES

MAX_FILL = 250_000
"""The most cells one bucket fill paints (a fill of a larger area is refused)."""

_STEP = {"N": (0, -1, "S"), "S": (0, 1, "N"), "E": (1, 0, "W"), "W": (-1, 0, "E")}

#: Colours of common cell and edge types (others get a steady colour from their name).
KNOWN_COLORS: dict[str, str] = {
    "water": "#3b82c4", "sea": "#3b82c4", "grass": "#6aa84f", "shingle": "#c9b98f", "sand": "#e3cf8d",
    "rock": "#7a7368", "wall": "#4b4b55", "floor": "#b9a78a", "jetty": "#8b5a2b", "wood": "#8b5a2b",
    "lighthouse": "#e8e1d0", "cove": "#2f6f73", "road": "#a39e93", "forest": "#2f6b3a", "lava": "#d2502a",
    "door": "#c0392b", "window": "#5dade2", "cliff_path": "#d4a017", "fence": "#8e6e53", "gate": "#b7791f",
}


class MapRefused(StoryloomError, ValueError):
    """A step the map does not take; the message says why."""

    code = "map_refused"


# ---------------------------------------------------------------------------------------------
# Keys


def cell_key(x: int, y: int) -> str:
    return f"{x},{y}"


def edge_key(x: int, y: int, side: str) -> str:
    return f"{x},{y}:{side}"


def parse_cell_key(key: str) -> tuple[int, int] | None:
    match = CELL_KEY.match(key)
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_edge_key(key: str) -> tuple[int, int, str] | None:
    match = EDGE_KEY.match(key)
    return (int(match.group(1)), int(match.group(2)), match.group(3)) if match else None


def twin(x: int, y: int, side: str) -> tuple[int, int, str]:
    """The same edge seen from the neighbouring cell: ``(1, 1, "S")`` is ``(1, 2, "N")``."""
    dx, dy, opposite = _STEP[side]
    return x + dx, y + dy, opposite


def nearest_side(fx: float, fy: float) -> tuple[int, int, str]:
    """The cell side nearest to a point given in cell units (``(2.9, 4.5)`` is near ``2,4:E``)."""
    x, y = int(fx // 1), int(fy // 1)
    u, v = fx - x, fy - y
    distances = {"N": v, "S": 1 - v, "W": u, "E": 1 - u}
    side = min(SIDES, key=lambda s: distances[s])
    return x, y, side


# ---------------------------------------------------------------------------------------------
# Reading a map


def size_of(content: Mapping[str, Any]) -> tuple[int, int]:
    """The map's width and height (1 for a missing or unusable value)."""
    def whole(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            return 1
        return max(1, min(MAX_MAP_SIZE, int(value)))
    return whole(content.get("width")), whole(content.get("height"))


def in_bounds(content: Mapping[str, Any], x: int, y: int) -> bool:
    width, height = size_of(content)
    return 0 <= x < width and 0 <= y < height


def _entries(content: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = content.get(name)
    return value if isinstance(value, dict) else {}


def cells_of(content: Mapping[str, Any]) -> dict[str, Any]:
    return _entries(content, "cells")


def edges_of(content: Mapping[str, Any]) -> dict[str, Any]:
    return _entries(content, "edges")


def markers_of(content: Mapping[str, Any]) -> dict[str, Any]:
    """The markers keyed by name (a list of ``{name, x, y}`` is read the same way)."""
    markers = content.get("markers")
    if isinstance(markers, list):
        return {m["name"]: {k: v for k, v in m.items() if k != "name"} for m in markers
                if isinstance(m, dict) and isinstance(m.get("name"), str)}
    return markers if isinstance(markers, dict) else {}


def type_of(entry: Any) -> str | None:
    kind = entry.get("type") if isinstance(entry, Mapping) else None
    return kind if isinstance(kind, str) and kind.strip() else None


def cell_at(content: Mapping[str, Any], x: int, y: int) -> dict[str, Any] | None:
    entry = cells_of(content).get(cell_key(x, y))
    return entry if isinstance(entry, dict) else None


def edge_at(content: Mapping[str, Any], x: int, y: int, side: str) -> tuple[str, dict[str, Any]] | None:
    """The key and value of the edge on that side of cell ``x,y``, stored under either key."""
    edges = edges_of(content)
    for key in (edge_key(x, y, side), edge_key(*twin(x, y, side))):
        if isinstance(edges.get(key), dict):
            return key, edges[key]
    return None


def marker_at(content: Mapping[str, Any], x: int, y: int) -> str | None:
    return next((name for name, m in markers_of(content).items()
                 if isinstance(m, Mapping) and m.get("x") == x and m.get("y") == y), None)


def edge_ends(x: int, y: int, side: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two corners of a cell side, in cell units: ``0,0:S`` runs from (0, 1) to (1, 1)."""
    if side == "N":
        return (x, y), (x + 1, y)
    if side == "S":
        return (x, y + 1), (x + 1, y + 1)
    if side == "W":
        return (x, y), (x, y + 1)
    return (x + 1, y), (x + 1, y + 1)


# ---------------------------------------------------------------------------------------------
# The palette


def type_color(kind: str) -> str:
    """A colour for a cell or edge type: a known one, else a steady one made from the name."""
    if kind in KNOWN_COLORS:
        return KNOWN_COLORS[kind]
    digest = hashlib.sha1(kind.encode("utf-8")).digest()
    hue = digest[0] / 255
    red, green, blue = colorsys.hls_to_rgb(hue, 0.55, 0.45)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def palette(content: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    """The ``cells`` or ``edges`` types to paint with: ``editor.palette[kind]`` in its order,
    then the types the map uses that it does not list; each ``{type, color, properties}``."""
    editor = raw_editor if isinstance(raw_editor := content.get("editor"), Mapping) else {}
    listed = raw_palette.get(kind) if isinstance(raw_palette := editor.get("palette"), Mapping) else None
    entries: dict[str, dict[str, Any]] = {}
    for entry in listed if isinstance(listed, list) else []:
        name = type_of(entry)
        if name and name not in entries:
            entries[name] = {"type": name, "color": entry.get("color") or type_color(name),
                             "properties": dict(entry.get("properties") or {})}
    used = _entries(content, kind)
    for name in sorted({t for t in (type_of(v) for v in used.values()) if t}):
        if name not in entries:
            entries[name] = {"type": name, "color": type_color(name), "properties": {}}
    return list(entries.values())


def palette_entry(content: Mapping[str, Any], kind: str, type_name: str) -> dict[str, Any]:
    return next((e for e in palette(content, kind) if e["type"] == type_name),
                {"type": type_name, "color": type_color(type_name), "properties": {}})


def add_palette_type(content: Mapping[str, Any], kind: str, type_name: str, color: str | None = None) -> dict[str, Any]:
    """The map with ``type_name`` in its ``cells`` or ``edges`` palette (``editor.palette``)."""
    name = type_name.strip()
    if not name:
        raise MapRefused("a type needs a name, e.g. floor or wall")
    if kind not in ("cells", "edges"):
        raise MapRefused(f"a palette is of cells or edges, not {kind!r}")
    new = dict(content)
    editor = copy.deepcopy(dict(new.get("editor") or {}))
    current = raw_palette if isinstance(raw_palette := editor.get("palette"), dict) else {}
    listed = [dict(e) for e in palette(content, kind)]
    if any(e["type"] == name for e in listed):
        if color is None:
            return new
        listed = [dict(e, color=color) if e["type"] == name else e for e in listed]
    else:
        listed.append({"type": name, "color": color or type_color(name), "properties": {}})
    editor["palette"] = {**current, kind: listed}
    new["editor"] = editor
    return new


def remember(content: Mapping[str, Any], **state: Any) -> dict[str, Any]:
    """The map with editor-only state (``zoom``, ``tool``, ``layers``...) set in ``editor``."""
    new = dict(content)
    new["editor"] = {**(raw_editor if isinstance(raw_editor := content.get("editor"), dict) else {}), **state}
    return new


# ---------------------------------------------------------------------------------------------
# Steps


def _with(content: Mapping[str, Any], name: str, entries: dict[str, Any]) -> dict[str, Any]:
    new = dict(content)
    new[name] = entries
    return new


def paint_cells(content: Mapping[str, Any], positions: Iterable[tuple[int, int]], type_name: str) -> dict[str, Any]:
    """Cells at ``positions`` (inside the map) set to ``type_name`` with its palette properties;
    a cell already of that type keeps its own properties."""
    if not type_name.strip():
        raise MapRefused("choose a cell type to paint with")
    defaults = palette_entry(content, "cells", type_name)["properties"]
    cells = dict(cells_of(content))
    for x, y in positions:
        if not in_bounds(content, x, y):
            continue
        key = cell_key(x, y)
        if type_of(cells.get(key)) != type_name:
            cells[key] = {"type": type_name, **copy.deepcopy(defaults)}
    return _with(content, "cells", cells)


def erase_cells(content: Mapping[str, Any], positions: Iterable[tuple[int, int]]) -> dict[str, Any]:
    cells = dict(cells_of(content))
    for x, y in positions:
        cells.pop(cell_key(x, y), None)
    return _with(content, "cells", cells)


def set_cell(content: Mapping[str, Any], x: int, y: int, value: Mapping[str, Any]) -> dict[str, Any]:
    """Cell ``x,y`` set to ``value`` (an object with a ``type``: its properties as typed)."""
    if not in_bounds(content, x, y):
        raise MapRefused(f"cell {x},{y} is outside the map")
    if not type_of(value):
        raise MapRefused('a cell needs a "type"')
    cells = dict(cells_of(content))
    cells[cell_key(x, y)] = copy.deepcopy(dict(value))
    return _with(content, "cells", cells)


def _edge_allowed(content: Mapping[str, Any], x: int, y: int, side: str) -> bool:
    return in_bounds(content, x, y) or in_bounds(content, *twin(x, y, side)[:2])


def _home(content: Mapping[str, Any], x: int, y: int, side: str) -> tuple[int, int, str]:
    """Where a new edge is stored: on the cell inside the map (the given one when both are)."""
    if in_bounds(content, x, y):
        return x, y, side
    return twin(x, y, side)


def set_edge(content: Mapping[str, Any], x: int, y: int, side: str, value: Mapping[str, Any]) -> dict[str, Any]:
    """The edge on that side of ``x,y`` set to ``value`` (with a ``type``), kept under the key it
    already has (so the edge never has two keys)."""
    if side not in SIDES:
        raise MapRefused(f"a side is N, E, S or W, not {side!r}")
    if not _edge_allowed(content, x, y, side):
        raise MapRefused(f"the edge {edge_key(x, y, side)} is outside the map")
    if not type_of(value):
        raise MapRefused('an edge needs a "type"')
    found = edge_at(content, x, y, side)
    key = found[0] if found else edge_key(*_home(content, x, y, side))
    edges = dict(edges_of(content))
    edges[key] = copy.deepcopy(dict(value))
    return _with(content, "edges", edges)


def paint_edge(content: Mapping[str, Any], x: int, y: int, side: str, type_name: str) -> dict[str, Any]:
    """The edge set to ``type_name`` (its palette properties); one of that type already keeps its own."""
    found = edge_at(content, x, y, side)
    if found and type_of(found[1]) == type_name:
        return dict(content)
    defaults = palette_entry(content, "edges", type_name)["properties"]
    return set_edge(content, x, y, side, {"type": type_name, **copy.deepcopy(defaults)})


def erase_edge(content: Mapping[str, Any], x: int, y: int, side: str) -> dict[str, Any]:
    found = edge_at(content, x, y, side)
    if found is None:
        return dict(content)
    edges = dict(edges_of(content))
    del edges[found[0]]
    return _with(content, "edges", edges)


def bucket_fill(cells: Mapping[str, Any], width: int, height: int, x: int, y: int,
                type_name: str, limit: int = MAX_FILL) -> list[tuple[int, int]]:
    """The cells a bucket fill from ``x,y`` paints: the area of cells joined side by side that
    have the start cell's type (or are all empty when it is), inside ``width`` x ``height``;
    empty when the start is outside or already ``type_name``. Raises :class:`MapRefused` when
    the area is larger than ``limit`` cells."""
    if not (0 <= x < width and 0 <= y < height):
        return []
    wanted = type_of(cells.get(cell_key(x, y)))
    if wanted == type_name:
        return []
    seen = {(x, y)}
    queue = deque([(x, y)])
    area: list[tuple[int, int]] = []
    while queue:
        cx, cy = queue.popleft()
        area.append((cx, cy))
        if len(area) > limit:
            raise MapRefused(f"that area has more than {limit:,} cells; fill a smaller area or set a "
                             "smaller map size")
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = cx + dx, cy + dy
            if 0 <= nx < width and 0 <= ny < height and (nx, ny) not in seen \
                    and type_of(cells.get(cell_key(nx, ny))) == wanted:
                seen.add((nx, ny))
                queue.append((nx, ny))
    return sorted(area, key=lambda p: (p[1], p[0]))


def fill(content: Mapping[str, Any], x: int, y: int, type_name: str) -> dict[str, Any]:
    """The map after a bucket fill from ``x,y`` with ``type_name`` (see :func:`bucket_fill`)."""
    width, height = size_of(content)
    return paint_cells(content, bucket_fill(cells_of(content), width, height, x, y, type_name), type_name)


def new_marker_name(content: Mapping[str, Any], base: str = "marker") -> str:
    names = set(markers_of(content))
    number = 1
    while f"{base}_{number}" in names:
        number += 1
    return f"{base}_{number}"


def set_marker(content: Mapping[str, Any], name: str, x: int, y: int, **properties: Any) -> dict[str, Any]:
    """Marker ``name`` at ``x,y`` (added, or moved keeping its other properties)."""
    name = name.strip()
    if not name:
        raise MapRefused("a marker needs a name")
    if not in_bounds(content, x, y):
        raise MapRefused(f"{x},{y} is outside the map")
    markers = {k: dict(v) for k, v in markers_of(content).items()}
    markers[name] = {**markers.get(name, {}), **properties, "x": x, "y": y}
    return _with(content, "markers", markers)


def rename_marker(content: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    new = new.strip()
    markers = markers_of(content)
    if old not in markers:
        raise MapRefused(f"there is no marker named {old!r}")
    if not new:
        raise MapRefused("a marker needs a name")
    if new != old and new in markers:
        raise MapRefused(f"a marker named {new!r} exists already")
    renamed = {(new if k == old else k): v for k, v in markers.items()}
    return _with(content, "markers", renamed)


def remove_marker(content: Mapping[str, Any], name: str) -> dict[str, Any]:
    markers = {k: v for k, v in markers_of(content).items() if k != name}
    return _with(content, "markers", markers)


def set_marker_properties(content: Mapping[str, Any], name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """Marker ``name``'s free properties replaced (its ``x`` and ``y`` stay)."""
    markers = {k: dict(v) for k, v in markers_of(content).items()}
    if name not in markers:
        raise MapRefused(f"there is no marker named {name!r}")
    place = {"x": markers[name].get("x"), "y": markers[name].get("y")}
    markers[name] = {**{k: v for k, v in properties.items() if k not in ("x", "y")}, **place}
    return _with(content, "markers", markers)


def erase_at(content: Mapping[str, Any], x: int, y: int) -> dict[str, Any]:
    """What the delete tool removes at cell ``x,y``: its marker if it has one, else the cell."""
    marker = marker_at(content, x, y)
    if marker is not None:
        return remove_marker(content, marker)
    return erase_cells(content, [(x, y)])


def resize(content: Mapping[str, Any], width: int, height: int) -> tuple[dict[str, Any], int]:
    """The map at a new size, and how many cells, edges and markers fell outside it (removed)."""
    if isinstance(width, bool) or isinstance(height, bool) or not (1 <= width <= MAX_MAP_SIZE) \
            or not (1 <= height <= MAX_MAP_SIZE):
        raise MapRefused(f"a map is 1 to {MAX_MAP_SIZE:,} cells wide and high")
    new = dict(content)
    new["width"], new["height"] = width, height
    cells = {k: v for k, v in cells_of(content).items()
             if (p := parse_cell_key(k)) is not None and in_bounds(new, *p)}
    edges: dict[str, Any] = {}
    for key, value in edges_of(content).items():
        parsed = parse_edge_key(key)
        if parsed is None:
            continue
        x, y, side = parsed
        if in_bounds(new, x, y):
            edges[key] = value
        elif in_bounds(new, *twin(x, y, side)[:2]) and edge_key(*twin(x, y, side)) not in edges_of(content):
            edges[edge_key(*twin(x, y, side))] = value  # the cell it was kept on is gone: move it across
    markers = {k: v for k, v in markers_of(content).items()
               if isinstance(v, Mapping) and isinstance(v.get("x"), int) and isinstance(v.get("y"), int)
               and in_bounds(new, v["x"], v["y"])}
    dropped = (len(cells_of(content)) - len(cells)) + (len(edges_of(content)) - len(edges)) \
        + (len(markers_of(content)) - len(markers))
    new["cells"], new["edges"], new["markers"] = cells, edges, markers
    return new, dropped


def set_properties(content: Mapping[str, Any], properties: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(properties, Mapping):
        raise MapRefused("the map's properties are an object")
    return _with(content, "properties", copy.deepcopy(dict(properties)))
