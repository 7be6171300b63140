"""Canvas boards, Qt-free: notes, images, document cards, groups and labelled edges.

A Canvas document's ``content`` is ``{nodes, edges, viewport?}`` (``docs/data-model.md``), in
the shape React Flow (Drafft's graph library) uses:

- a node is ``{id, type, position {x, y}, width, height, data}``; ``type`` is one of
  :data:`NODE_TYPES`:

  - ``note``: ``data.text`` (markdown), optional ``data.docId`` (a linked document) and
    ``data.color``;
  - ``image``: ``data.docId`` (an Attachment holding the picture), optional ``data.caption``;
  - ``document``: a card for another document, ``data.docId`` and ``data.docType``;
  - ``group``: a frame, ``data.label``; the nodes in it carry ``parentId`` (the group's id) and
    their ``position`` is relative to the group's top-left corner. A group comes before its
    nodes in ``nodes`` and is never inside another group.

- an edge is ``{id, source, target, label}`` between two nodes (not a node and itself, and at
  most one edge each way between two nodes);
- ``viewport`` ``{x, y, zoom}`` (optional) is kept as it is.

Every function here takes a board's ``content`` and returns a new one (the input is never
changed), so an editor keeps the content before and after each step for undo and redo.
Positions and sizes are whole numbers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project.documents import new_id

NODE_TYPES: tuple[str, ...] = ("note", "image", "document", "group")
DEFAULT_SIZE: dict[str, tuple[int, int]] = {"note": (220, 90), "image": (240, 180), "document": (200, 60),
                                            "group": (320, 220)}
MIN_SIZE: dict[str, tuple[int, int]] = {"note": (100, 48), "image": (48, 48), "document": (120, 44),
                                        "group": (120, 80)}
GROUP_PADDING = 24
GROUP_HEADER = 28


class CanvasRefused(StoryloomError, ValueError):
    """A step the board does not take; the message says why, in a writer's words."""

    code = "canvas_refused"


# ---------------------------------------------------------------------------------------------
# Reading a board


def nodes_of(content: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The board's well-formed nodes (objects with a string id), in order."""
    found = content.get("nodes") if isinstance(content, Mapping) else None
    return [n for n in found if isinstance(n, dict) and isinstance(n.get("id"), str)] if isinstance(found, list) else []


def edges_of(content: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The board's well-formed edges (objects with a string id), in order."""
    found = content.get("edges") if isinstance(content, Mapping) else None
    return [e for e in found if isinstance(e, dict) and isinstance(e.get("id"), str)] if isinstance(found, list) else []


def find_node(content: Mapping[str, Any], node_id: str) -> dict[str, Any] | None:
    return next((n for n in nodes_of(content) if n["id"] == node_id), None)


def find_edge(content: Mapping[str, Any], edge_id: str) -> dict[str, Any] | None:
    return next((e for e in edges_of(content) if e["id"] == edge_id), None)


def node_type(node: Mapping[str, Any]) -> str:
    """The node's type; an unknown type reads as a note."""
    kind = node.get("type")
    return kind if kind in NODE_TYPES else "note"


def node_data(node: Mapping[str, Any]) -> dict[str, Any]:
    data = node.get("data")
    return data if isinstance(data, dict) else {}


def linked_document(node: Mapping[str, Any]) -> str | None:
    """The document a node links to (a note's link, an image's attachment, a card's document)."""
    doc_id = node_data(node).get("docId")
    return doc_id if isinstance(doc_id, str) and doc_id else None


def note_text(node: Mapping[str, Any]) -> str:
    text = node_data(node).get("text")
    return text if isinstance(text, str) else ""


def _number(value: Any, default: float = 0) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def size_of(node: Mapping[str, Any]) -> tuple[int, int]:
    """The node's width and height (its type's default when missing, never below the minimum)."""
    kind = node_type(node)
    default_w, default_h = DEFAULT_SIZE[kind]
    min_w, min_h = MIN_SIZE[kind]
    return (max(min_w, round(_number(node.get("width"), default_w))),
            max(min_h, round(_number(node.get("height"), default_h))))


def parent_of(content: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any] | None:
    """The group ``node`` is in, ``None`` at the top level (or when its group is gone)."""
    parent_id = node.get("parentId")
    if not isinstance(parent_id, str):
        return None
    parent = find_node(content, parent_id)
    return parent if parent is not None and node_type(parent) == "group" and parent is not node else None


def relative_position(node: Mapping[str, Any]) -> tuple[float, float]:
    position = node.get("position")
    if not isinstance(position, Mapping):
        return 0.0, 0.0
    return _number(position.get("x")), _number(position.get("y"))


def absolute_position(content: Mapping[str, Any], node_id: str) -> tuple[float, float]:
    """The node's top-left corner on the board (a grouped node's position is its group's plus its own)."""
    node = find_node(content, node_id)
    if node is None:
        raise CanvasRefused("that node is not on the board any more")
    x, y = relative_position(node)
    parent = parent_of(content, node)
    if parent is not None:
        px, py = relative_position(parent)
        x, y = x + px, y + py
    return x, y


def node_rect(content: Mapping[str, Any], node_id: str) -> tuple[float, float, int, int]:
    """``(x, y, width, height)`` of a node on the board."""
    node = find_node(content, node_id)
    if node is None:
        raise CanvasRefused("that node is not on the board any more")
    x, y = absolute_position(content, node_id)
    return (x, y, *size_of(node))


def members(content: Mapping[str, Any], group_id: str) -> list[str]:
    """The ids of the nodes in group ``group_id``, in order."""
    return [n["id"] for n in nodes_of(content) if n.get("parentId") == group_id and n["id"] != group_id]


def bounds(content: Mapping[str, Any]) -> tuple[float, float, float, float] | None:
    """The rectangle ``(x, y, width, height)`` holding every node, ``None`` for an empty board."""
    rects = [node_rect(content, n["id"]) for n in nodes_of(content)]
    if not rects:
        return None
    left = min(r[0] for r in rects)
    top = min(r[1] for r in rects)
    right = max(r[0] + r[2] for r in rects)
    bottom = max(r[1] + r[3] for r in rects)
    return left, top, right - left, bottom - top


def canvas_problems(content: Mapping[str, Any]) -> list[str]:
    """What is wrong with a board, in words (empty when it is sound): duplicate ids, edges to
    missing nodes, self-links, nodes in a missing or nested group, unknown node types."""
    problems: list[str] = []
    seen: set[str] = set()
    for node in nodes_of(content):
        if node["id"] in seen:
            problems.append(f"two nodes have the id {node['id']!r}")
        seen.add(node["id"])
        if node.get("type") not in NODE_TYPES:
            problems.append(f"node {node['id']!r} has the unknown type {node.get('type')!r}")
        parent_id = node.get("parentId")
        if parent_id is not None:
            parent = find_node(content, parent_id) if isinstance(parent_id, str) else None
            if parent is None or node_type(parent) != "group":
                problems.append(f"node {node['id']!r} is in a group that is not on the board")
            elif node_type(node) == "group":
                problems.append(f"group {node['id']!r} is inside another group")
    edge_ids: set[str] = set()
    for edge in edges_of(content):
        if edge["id"] in edge_ids:
            problems.append(f"two edges have the id {edge['id']!r}")
        edge_ids.add(edge["id"])
        for end in ("source", "target"):
            if edge.get(end) not in seen:
                problems.append(f"edge {edge['id']!r} has a {end} that is not on the board")
        if edge.get("source") == edge.get("target"):
            problems.append(f"edge {edge['id']!r} links a node to itself")
    return problems


# ---------------------------------------------------------------------------------------------
# New nodes


def _node(kind: str, x: float, y: float, data: dict[str, Any], size: tuple[int, int] | None = None) -> dict[str, Any]:
    width, height = size or DEFAULT_SIZE[kind]
    return {"id": new_id(), "type": kind, "position": {"x": round(x), "y": round(y)},
            "width": width, "height": height, "data": data}


def new_note(x: float, y: float, text: str = "", doc_id: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"text": text}
    if doc_id:
        data["docId"] = doc_id
    return _node("note", x, y, data)


def new_image(x: float, y: float, attachment_id: str, caption: str = "",
              size: tuple[int, int] | None = None) -> dict[str, Any]:
    """An image node showing the Attachment ``attachment_id`` (``size`` fits the picture)."""
    return _node("image", x, y, {"docId": attachment_id, "caption": caption}, size)


def new_document_card(x: float, y: float, doc_id: str, doc_type: str) -> dict[str, Any]:
    return _node("document", x, y, {"docId": doc_id, "docType": doc_type})


def image_size(width: int, height: int, longest: int = 240) -> tuple[int, int]:
    """The size an image node starts at: the picture's proportions, its longest side ``longest``."""
    if width <= 0 or height <= 0:
        return DEFAULT_SIZE["image"]
    scale = longest / max(width, height)
    min_w, min_h = MIN_SIZE["image"]
    return max(min_w, round(width * scale)), max(min_h, round(height * scale))


# ---------------------------------------------------------------------------------------------
# Steps: each returns a new content


def _board(content: Mapping[str, Any] | None) -> dict[str, Any]:
    board = copy.deepcopy(dict(content)) if isinstance(content, Mapping) else {}
    board["nodes"] = nodes_of(board)
    board["edges"] = edges_of(board)
    return board


def _index(board: dict[str, Any], node_id: str) -> int:
    for index, node in enumerate(board["nodes"]):
        if node["id"] == node_id:
            return index
    raise CanvasRefused("that node is not on the board any more")


def add_node(content: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    """The board with ``node`` added on top (a group goes below every other node)."""
    board = _board(content)
    node = copy.deepcopy(dict(node))
    if node.get("type") not in NODE_TYPES:
        raise CanvasRefused(f"a canvas node is a {', '.join(NODE_TYPES)}, not {node.get('type')!r}")
    if find_node(board, str(node.get("id"))) is not None:
        raise CanvasRefused("a node with that id is on the board already")
    if node["type"] == "group":
        board["nodes"].insert(0, node)
    else:
        board["nodes"].append(node)
    return board


def _group_at(board: Mapping[str, Any], x: float, y: float, exclude: set[str]) -> str | None:
    """The topmost group whose frame holds the point (``exclude``: groups being moved)."""
    found = None
    for node in nodes_of(board):
        if node_type(node) != "group" or node["id"] in exclude:
            continue
        gx, gy = relative_position(node)
        width, height = size_of(node)
        if gx <= x <= gx + width and gy <= y <= gy + height:
            found = node["id"]
    return found


def _place(board: dict[str, Any], node: dict[str, Any], x: float, y: float, group_id: str | None) -> None:
    """Put ``node`` at board position (``x``, ``y``) inside ``group_id`` (or at the top level),
    keeping the rule that a group comes before its nodes."""
    if group_id is None:
        node.pop("parentId", None)
        node["position"] = {"x": round(x), "y": round(y)}
        return
    group = find_node(board, group_id)
    assert group is not None
    gx, gy = relative_position(group)
    node["parentId"] = group_id
    node["position"] = {"x": round(x - gx), "y": round(y - gy)}
    nodes = board["nodes"]
    if _index(board, group_id) > _index(board, node["id"]):
        nodes.remove(node)
        nodes.insert(_index(board, group_id) + 1, node)


def move_nodes(content: Mapping[str, Any], positions: Mapping[str, tuple[float, float]], *,
               regroup: bool = True) -> dict[str, Any]:
    """Put nodes at new board positions (top-left corners). With ``regroup`` a note, image or
    card dropped with its middle inside a group's frame joins that group, and one dropped
    outside every group leaves its group; the nodes in a moved group move with it."""
    board = _board(content)
    moving_groups = {i for i in positions if (n := find_node(board, i)) is not None and node_type(n) == "group"}
    for node_id, (x, y) in positions.items():
        node = find_node(board, node_id)
        if node is None:
            continue
        if node_type(node) == "group" or node.get("parentId") in moving_groups:
            if node_type(node) == "group":
                node["position"] = {"x": round(x), "y": round(y)}
            continue  # a grouped node moves with its group
        group_id = parent["id"] if (parent := parent_of(board, node)) is not None else None
        if regroup:
            width, height = size_of(node)
            group_id = _group_at(board, x + width / 2, y + height / 2, moving_groups)
        _place(board, node, x, y, group_id)
    return board


def resize_node(content: Mapping[str, Any], node_id: str, width: float, height: float) -> dict[str, Any]:
    """The node at a new size (never below its type's minimum)."""
    board = _board(content)
    node = board["nodes"][_index(board, node_id)]
    min_w, min_h = MIN_SIZE[node_type(node)]
    node["width"], node["height"] = max(min_w, round(width)), max(min_h, round(height))
    return board


def set_data(content: Mapping[str, Any], node_id: str, **fields: Any) -> dict[str, Any]:
    """Set fields of a node's ``data`` (``text``, ``docId``, ``docType``, ``caption``, ``label``,
    ``color``); ``None`` removes a field."""
    board = _board(content)
    node = board["nodes"][_index(board, node_id)]
    data = dict(node_data(node))
    for key, value in fields.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    node["data"] = data
    return board


def connect(content: Mapping[str, Any], source: str, target: str, label: str = "") -> tuple[dict[str, Any], str]:
    """The board with an edge from ``source`` to ``target``, and the edge's id."""
    problem = connection_problem(content, source, target)
    if problem:
        raise CanvasRefused(problem)
    board = _board(content)
    edge = {"id": new_id(), "source": source, "target": target, "label": label}
    board["edges"].append(edge)
    return board, edge["id"]


def connection_problem(content: Mapping[str, Any], source: str, target: str) -> str | None:
    """Why an edge from ``source`` to ``target`` would be refused, ``None`` when it is fine."""
    if find_node(content, source) is None or find_node(content, target) is None:
        return "both ends of an edge must be on the board"
    if source == target:
        return "an edge links two different nodes"
    if any(e.get("source") == source and e.get("target") == target for e in edges_of(content)):
        return "these two nodes are linked that way already"
    return None


def set_edge_label(content: Mapping[str, Any], edge_id: str, label: str) -> dict[str, Any]:
    board = _board(content)
    edge = find_edge(board, edge_id)
    if edge is None:
        raise CanvasRefused("that edge is not on the board any more")
    edge["label"] = label
    return board


def reverse_edge(content: Mapping[str, Any], edge_id: str) -> dict[str, Any]:
    board = _board(content)
    edge = find_edge(board, edge_id)
    if edge is None:
        raise CanvasRefused("that edge is not on the board any more")
    edge["source"], edge["target"] = edge.get("target"), edge.get("source")
    return board


def remove(content: Mapping[str, Any], node_ids: Iterable[str] = (), edge_ids: Iterable[str] = ()) -> dict[str, Any]:
    """The board without the nodes (and every edge touching them) and edges. The nodes of a
    removed group stay on the board, where they were."""
    board = _board(content)
    gone = {i for i in node_ids if find_node(board, i) is not None}
    for group_id in [i for i in gone if node_type(find_node(board, i) or {}) == "group"]:
        for member in members(board, group_id):
            if member not in gone:
                x, y = absolute_position(board, member)
                _place(board, find_node(board, member) or {}, x, y, None)
    edges_gone = set(edge_ids)
    board["nodes"] = [n for n in board["nodes"] if n["id"] not in gone]
    board["edges"] = [e for e in board["edges"] if e["id"] not in edges_gone
                      and e.get("source") not in gone and e.get("target") not in gone]
    return board


def group(content: Mapping[str, Any], node_ids: Iterable[str], label: str = "Group") -> tuple[dict[str, Any], str]:
    """The board with a new group framing ``node_ids`` (notes, images and cards; they leave any
    group they were in), and the group's id."""
    board = _board(content)
    wanted = [i for i in dict.fromkeys(node_ids) if find_node(board, i) is not None]
    if any(node_type(find_node(board, i) or {}) == "group" for i in wanted):
        raise CanvasRefused("a group cannot hold another group")
    if not wanted:
        raise CanvasRefused("select the notes to group first")
    rects = {i: node_rect(board, i) for i in wanted}
    left = min(r[0] for r in rects.values()) - GROUP_PADDING
    top = min(r[1] for r in rects.values()) - GROUP_PADDING - GROUP_HEADER
    right = max(r[0] + r[2] for r in rects.values()) + GROUP_PADDING
    bottom = max(r[1] + r[3] for r in rects.values()) + GROUP_PADDING
    frame = _node("group", left, top, {"label": label}, (round(right - left), round(bottom - top)))
    board["nodes"].insert(0, frame)
    for node_id in wanted:
        x, y, _w, _h = rects[node_id]
        _place(board, find_node(board, node_id) or {}, x, y, frame["id"])
    return board, frame["id"]


def ungroup(content: Mapping[str, Any], group_id: str) -> dict[str, Any]:
    """The board without group ``group_id``'s frame; its nodes stay where they are."""
    node = find_node(content, group_id)
    if node is None or node_type(node) != "group":
        raise CanvasRefused("that is not a group")
    return remove(content, [group_id])


def fit_group(content: Mapping[str, Any], group_id: str) -> dict[str, Any]:
    """The group's frame grown to hold every node in it (it never shrinks)."""
    board = _board(content)
    frame = find_node(board, group_id)
    if frame is None or node_type(frame) != "group":
        raise CanvasRefused("that is not a group")
    width, height = size_of(frame)
    for member in members(board, group_id):
        x, y = relative_position(find_node(board, member) or {})
        w, h = size_of(find_node(board, member) or {})
        width, height = max(width, round(x + w + GROUP_PADDING)), max(height, round(y + h + GROUP_PADDING))
    frame["width"], frame["height"] = width, height
    return board
