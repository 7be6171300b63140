"""Where a dialogue graph's nodes and ports sit, Qt-free: node geometry and the layered layout.

Geometry is a rule shared by the editor (which draws each node in exactly this box, its ports at
these points) and the automatic layout (which needs the boxes): a header, a few body lines (a
script's first lines, a condition's expression, a note's text), then one row per port, inputs
on the left edge and outputs on the right edge (an output with a port script gets a line more).

:func:`layered_layout` lays a graph out left to right: each weakly connected part apart, links
that close a cycle set aside, nodes in columns by their longest path from a source, each column
ordered to follow its predecessors' ports (so a choice's options stay in order and links cross
little), and each node placed level with the port that leads to it where it can be.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.project.dialogue_graph import DialogueGraph, kind_of, ports

WIDTH = 240
NARROW_WIDTH = 168  # start, end, return: a title and one port
HEADER = 32
LINE = 18
PORT_ROW = 24
SCRIPT_LINE = 16  # an output's port script, under its label
GAP = 6
BOTTOM = 8
MAX_NOTE_LINES = 6
PREVIEW_LINES = 3

COLUMN_GAP = 96
ROW_GAP = 32
PART_GAP = 96


@dataclass(frozen=True)
class NodeGeometry:
    """A node's box (``width`` x ``height``, from its top-left ``position``), where its body
    text starts, and each port's point relative to the top-left: ``{handle_id: (x, y)}``."""

    width: int
    height: int
    body_top: int
    body_lines: int
    ports_top: int
    ports: dict[str, tuple[int, int]]


def body_lines(node: Mapping[str, Any], preview_count: int | None = None) -> int:
    """How many text lines the node's body shows: a script its preview (``preview_count``
    lines, :data:`PREVIEW_LINES` when unknown; one line saying it links none), a condition,
    switch, event or jump one, a note its text (up to :data:`MAX_NOTE_LINES`)."""
    kind = kind_of(node)
    if kind.type == "script":
        return max(1, min(PREVIEW_LINES, PREVIEW_LINES if preview_count is None else preview_count))
    if kind.type in ("condition", "switch", "event", "jump"):
        return 1
    if kind.type == "note":
        data = node.get("data")
        notes = data.get("notes") if isinstance(data, Mapping) else ""
        count = len(notes.splitlines()) if isinstance(notes, str) else 0
        return max(1, min(MAX_NOTE_LINES, count))
    return 0


def node_geometry(node: Mapping[str, Any], preview_count: int | None = None) -> NodeGeometry:
    kind = kind_of(node)
    width = NARROW_WIDTH if kind.type in ("start", "end", "return") else WIDTH
    lines = body_lines(node, preview_count)
    body_top = HEADER + (GAP if lines else 0)
    ports_top = body_top + lines * LINE + (GAP if lines else 0)
    points: dict[str, tuple[int, int]] = {}
    bottom = ports_top
    for side, found in ((0, ports(node, "target")), (width, ports(node, "source"))):
        y = ports_top
        for handle in found:
            points.setdefault(handle["id"], (side, y + PORT_ROW // 2))
            y += PORT_ROW + (SCRIPT_LINE if side and has_port_script(handle) else 0)
        bottom = max(bottom, y)
    height = bottom + (BOTTOM if bottom > ports_top or lines else 0)
    return NodeGeometry(width, max(height, HEADER + BOTTOM), body_top, lines, ports_top, points)


def has_port_script(handle: Mapping[str, Any]) -> bool:
    """Whether an output carries a port script (its row then shows the script under its label)."""
    script = handle.get("portScript")
    return isinstance(script, str) and bool(script.strip())


def layered_layout(tree: Mapping[str, Any] | DialogueGraph,
                   geometries: Mapping[str, NodeGeometry] | None = None,
                   origin: tuple[int, int] = (0, 0)) -> dict[str, tuple[int, int]]:
    """New top-left positions ``{node_id: (x, y)}`` for every node, left to right, the first
    column at ``origin`` (a pure function: the graph is not changed). ``geometries`` gives
    nodes' boxes and ports as drawn (a script's preview may be shorter than the default);
    missing ones come from :func:`node_geometry`. The part holding the Start node comes
    first, then the other parts by their first node; lone nodes (notes) sit in rows under them."""
    graph = tree if isinstance(tree, DialogueGraph) else DialogueGraph(tree)
    order = [n["id"] for n in graph.nodes if isinstance(n.get("id"), str)]
    if not order:
        return {}
    geometry = {node_id: (geometries or {}).get(node_id) or node_geometry(graph.node(node_id) or {})
                for node_id in order}
    size = {node_id: (geometry[node_id].width, geometry[node_id].height) for node_id in order}
    out_slot, in_slot, succ = _links(graph, order, geometry)
    neighbours: dict[str, set[str]] = {node_id: set() for node_id in order}
    for source, targets in succ.items():
        for target, _port in targets:
            neighbours[source].add(target)
            neighbours[target].add(source)
    start = graph.start_node()
    seeds = ([start["id"]] if start else []) + order
    seen: set[str] = set()
    parts: list[list[str]] = []
    for seed in seeds:
        if seed in seen:
            continue
        part, stack = [], [seed]
        seen.add(seed)
        while stack:
            current = stack.pop()
            part.append(current)
            for other in neighbours[current]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        rank = {node_id: i for i, node_id in enumerate(order)}
        parts.append(sorted(part, key=rank.__getitem__))
    positions: dict[str, tuple[int, int]] = {}
    x0, y = origin
    lone = [part[0] for part in parts if len(part) == 1 and not succ[part[0]]]
    for part in parts:
        if len(part) == 1 and part[0] in lone:
            continue
        placed = _layout_part(part, succ, size, out_slot, in_slot, start["id"] if start else None)
        bottom = max(py + size[node_id][1] for node_id, (_px, py) in placed.items())
        for node_id, (px, py) in placed.items():
            positions[node_id] = (x0 + px, y + py)
        y += bottom + PART_GAP
    if lone:
        right = max([x0 + 4 * (WIDTH + COLUMN_GAP)] + [px + size[n][0] for n, (px, _py) in positions.items()])
        x, row_height = x0, 0
        for node_id in lone:
            w, h = size[node_id]
            if x > x0 and x + w > right:
                x, y = x0, y + row_height + ROW_GAP
                row_height = 0
            positions[node_id] = (x, y)
            x += w + COLUMN_GAP // 2
            row_height = max(row_height, h)
    return positions


def _links(graph: DialogueGraph, order: list[str], geometry: dict[str, NodeGeometry]) -> tuple[
        dict[tuple[str, str], tuple[float, int]], dict[tuple[str, str], int], dict[str, list[tuple[str, str]]]]:
    """Valid links by source: ``succ[source] = [(target, edge_key)]`` in output-port order, the
    out-port of each link (its rank among the node's outputs and its y) and the in-port's y."""
    out_slot: dict[tuple[str, str], tuple[float, int]] = {}
    in_slot: dict[tuple[str, str], int] = {}
    succ: dict[str, list[tuple[str, str]]] = {node_id: [] for node_id in order}
    ranked: list[tuple[int, int, str, str, str]] = []
    for position, edge in enumerate(graph.edges):
        source, target = edge.get("source"), edge.get("target")
        if source not in succ or target not in succ or source == target:
            continue
        outputs = [h["id"] for h in ports(graph.node(source) or {}, "source")]
        handle = edge.get("sourceHandle")
        rank = outputs.index(handle) if handle in outputs else len(outputs)
        key = str(edge.get("id", position))
        out_port = geometry[source].ports.get(handle, (0, 0)) if isinstance(handle, str) else (0, 0)
        out_slot[(source, key)] = ((rank + 1) / (len(outputs) + 1), out_port[1])
        fallback = (0, geometry[target].height // 2)
        in_handle = edge.get("targetHandle")
        in_slot[(target, key)] = (geometry[target].ports.get(in_handle, fallback) if isinstance(in_handle, str)
                                  else fallback)[1]
        ranked.append((rank, position, source, target, key))
    for _rank, _position, source, target, key in sorted(ranked):
        succ[source].append((target, key))
    return out_slot, in_slot, succ


def _layout_part(part: list[str], succ: dict[str, list[tuple[str, str]]], size: Mapping[str, tuple[int, int]],
                 out_slot: dict[tuple[str, str], tuple[float, int]], in_slot: dict[tuple[str, str], int],
                 start: str | None) -> dict[str, tuple[int, int]]:
    forward, preorder = _forward_links(part, succ, start)
    preds: dict[str, list[tuple[str, str]]] = {n: [] for n in part}
    for source in part:
        for target, key in forward[source]:
            preds[target].append((source, key))
    columns, layer = _columns(part, forward, preds, preorder)
    _order_columns(columns, preds, layer, preorder, out_slot)
    return _coordinates(columns, preds, size, out_slot, in_slot)


def _forward_links(part: list[str], succ: dict[str, list[tuple[str, str]]],
                   start: str | None) -> tuple[dict[str, list[tuple[str, str]]], dict[str, int]]:
    """Depth-first from the roots (``start`` first): links back to a node on the path close a
    cycle and are set aside. The links kept, and each node's place in the walk."""
    members = set(part)
    has_pred = {target for node_id in part for target, _key in succ[node_id]}
    roots = ([start] if start in members else []) + [n for n in part if n not in has_pred] + part
    preorder: dict[str, int] = {}
    forward: dict[str, list[tuple[str, str]]] = {n: [] for n in part}
    state: dict[str, int] = {}
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        preorder[root] = len(preorder)
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            current, index = stack[-1]
            if index >= len(succ[current]):
                stack.pop()
                state[current] = 2
                continue
            stack[-1] = (current, index + 1)
            target, key = succ[current][index]
            if state.get(target) == 1:
                continue  # a back link
            forward[current].append((target, key))
            if target not in state:
                state[target] = 1
                preorder[target] = len(preorder)
                stack.append((target, 0))
    return forward, preorder


def _columns(part: list[str], forward: dict[str, list[tuple[str, str]]], preds: dict[str, list[tuple[str, str]]],
             preorder: dict[str, int]) -> tuple[list[list[str]], dict[str, int]]:
    """Columns by longest path (Kahn's order over the forward links), and each node's column."""
    layer = {n: 0 for n in part}
    indegree = {n: len(preds[n]) for n in part}
    ready = sorted((n for n in part if indegree[n] == 0), key=preorder.__getitem__)
    while ready:
        current = ready.pop(0)
        for target, _key in forward[current]:
            layer[target] = max(layer[target], layer[current] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    columns: list[list[str]] = [[] for _ in range(max(layer.values()) + 1)]
    for node_id in sorted(part, key=preorder.__getitem__):
        columns[layer[node_id]].append(node_id)
    return columns, layer


def _order_columns(columns: list[list[str]], preds: dict[str, list[tuple[str, str]]], layer: dict[str, int],
                   preorder: dict[str, int], out_slot: dict[tuple[str, str], tuple[float, int]]) -> None:
    """Order each column by its predecessors' places (a few sweeps of the barycentre rule)."""
    place = {n: float(i) for column in columns for i, n in enumerate(column)}
    for _sweep in range(4):
        for column in columns[1:]:
            for node_id in column:
                weights = [place[s] + out_slot[(s, k)][0] for s, k in preds[node_id] if layer[s] < layer[node_id]]
                if weights:
                    place[node_id] = sum(weights) / len(weights)
            column.sort(key=lambda n: (place[n], preorder[n]))
            for i, n in enumerate(column):
                place[n] = float(i)


def _coordinates(columns: list[list[str]], preds: dict[str, list[tuple[str, str]]],
                 size: Mapping[str, tuple[int, int]], out_slot: dict[tuple[str, str], tuple[float, int]],
                 in_slot: dict[tuple[str, str], int]) -> dict[str, tuple[int, int]]:
    """Columns side by side; each node level with the port leading to it."""
    xs, x = [], 0
    for column in columns:
        xs.append(x)
        x += max(size[n][0] for n in column) + COLUMN_GAP
    placed: dict[str, tuple[int, int]] = {}
    for index, column in enumerate(columns):
        floor: float = -1e9  # the first node of a column may sit above the others' tops
        for node_id in column:
            wanted = [placed[s][1] + out_slot[(s, k)][1] - in_slot[(node_id, k)]
                      for s, k in preds[node_id] if s in placed]
            y = round(max(floor, sum(wanted) / len(wanted) if wanted else max(floor, 0)))
            placed[node_id] = (xs[index], y)
            floor = y + size[node_id][1] + ROW_GAP
    top = min(py for _px, py in placed.values())
    return {n: (px, py - top) for n, (px, py) in placed.items()}


# ---------------------------------------------------------------------- the view: placing and fitting
#: A box as ``(left, top, width, height)``, in scene or view units.
Box = tuple[float, float, float, float]

#: The smallest zoom at which a node's text reads (9.5 pt titles at about 6 pt on screen):
#: fitting a graph never zooms out further; a graph too big for the view scrolls instead.
READABLE_ZOOM = 0.65
PLACE_GAP = 32  # the room kept free around a placed node
PLACE_STEP = 24  # the spacing of the places tried in the visible area


def _overlap(a: Box, b: Box, gap: float = 0.0) -> bool:
    return (a[0] < b[0] + b[2] + gap and b[0] < a[0] + a[2] + gap
            and a[1] < b[1] + b[3] + gap and b[1] < a[1] + a[3] + gap)


def free_spot(size: tuple[float, float], occupied: list[Box], area: Box, near: Box | None = None,
              gap: float = PLACE_GAP) -> tuple[int, int]:
    """Where a new node of ``size`` goes (its top-left), never on another node: beside ``near``
    (the selected node, when it is in ``area``, the visible part of the graph: to its right,
    then below it) when that place is free (the view then follows it); else the free place in
    ``area`` nearest its middle; when ``area`` is full, the first free place under it."""
    width, height = size

    def free(x: float, y: float, boxes: list[Box]) -> bool:
        return not any(_overlap((x, y, width, height), box, gap) for box in boxes)

    if near is not None and _overlap(near, area):
        for x, y in ((near[0] + near[2] + gap * 2, near[1]), (near[0], near[1] + near[3] + gap)):
            if free(x, y, occupied):
                return round(x), round(y)
    crowd = [box for box in occupied if _overlap(box, area, gap)]
    middle = (area[0] + area[2] / 2 - width / 2, area[1] + area[3] / 2 - height / 2)
    places = [(middle[0], middle[1])]
    columns = max(0, int((area[2] - width) // PLACE_STEP))
    rows = max(0, int((area[3] - height) // PLACE_STEP))
    places += sorted(((area[0] + c * PLACE_STEP, area[1] + r * PLACE_STEP)
                      for c in range(columns + 1) for r in range(rows + 1)),
                     key=lambda p: (p[0] - middle[0]) ** 2 + (p[1] - middle[1]) ** 2)
    for x, y in places:
        if free(x, y, crowd):
            return round(x), round(y)
    # The visible area is full: the first row under it with room, at its left.
    y = area[1] + area[3] + gap
    while not free(middle[0], y, occupied):
        y += PLACE_STEP
    return round(middle[0]), round(y)


def free_areas(view: tuple[float, float], covers: list[Box]) -> list[Box]:
    """The largest parts of a ``view`` (width, height) that none of ``covers`` (panels floating
    over it, in view units) hides: each cover is avoided by keeping left, right, above or below
    it, every combination tried."""
    areas: list[Box] = [(0.0, 0.0, float(view[0]), float(view[1]))]
    for cover in covers:
        if not _overlap(cover, (0.0, 0.0, float(view[0]), float(view[1]))):
            continue
        split: list[Box] = []
        for left, top, width, height in areas:
            right, bottom = left + width, top + height
            for candidate in ((left, top, min(right, cover[0]) - left, height),  # left of it
                              (max(left, cover[0] + cover[2]), top, right - max(left, cover[0] + cover[2]), height),
                              (left, top, width, min(bottom, cover[1]) - top),  # above it
                              (left, max(top, cover[1] + cover[3]), width, bottom - max(top, cover[1] + cover[3]))):
                if candidate[2] > 0 and candidate[3] > 0:
                    split.append(candidate)
        areas = split or areas
    return areas


def fit_view(content: Box, view: tuple[float, float], covers: list[Box] | None = None, margin: float = 32,
             min_zoom: float = READABLE_ZOOM, max_zoom: float = 1.0,
             anchor: tuple[float, float] | None = None) -> tuple[float, tuple[float, float]]:
    """How to show ``content`` (a scene box) in a ``view`` (width, height) partly hidden by
    ``covers``: the zoom (never under ``min_zoom``, never over ``max_zoom``) and the scene point
    that goes to the view's middle. The content is fitted into the uncovered part where it
    shows largest; when it does not fit at ``min_zoom`` it shows from its left end (and, too
    tall, around ``anchor``'s height, the start, without an empty band above or below it),
    to be scrolled."""
    left, top, width, height = content[0] - margin, content[1] - margin, content[2] + 2 * margin, \
        content[3] + 2 * margin
    width, height = max(width, 1.0), max(height, 1.0)
    areas = free_areas(view, covers or [])

    def fitting(area: Box) -> float:
        return min(area[2] / width, area[3] / height)

    def shown(area: Box) -> tuple[float, float]:
        # The zoom there, then how much of the content shows (a graph that does not fit at
        # min_zoom goes where most of it shows, not where it would fit at an unreadable zoom).
        zoom = max(min_zoom, min(max_zoom, fitting(area)))
        return round(zoom, 4), min(area[2], width * zoom) * min(area[3], height * zoom)

    area = max(areas, key=shown)
    zoom = max(min_zoom, min(max_zoom, fitting(area)))
    # The scene point at the area's middle, then moved to the view's middle.
    x = left + width / 2 if width * zoom <= area[2] else left + area[2] / zoom / 2
    if height * zoom <= area[3]:
        y = top + height / 2
    else:
        half = area[3] / zoom / 2  # the start at the middle, but no empty band above or below
        y = anchor[1] if anchor is not None else top + half
        y = max(top + half, min(y, top + height - half))
    x += (view[0] / 2 - (area[0] + area[2] / 2)) / zoom
    y += (view[1] / 2 - (area[1] + area[3] / 2)) / zoom
    return zoom, (x, y)
