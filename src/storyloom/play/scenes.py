"""Qt-free rules of the Scene editor: a scene is an ordered playlist of scripts and dialogues.

A Scene document keeps its playlist in ``content.items``, each item
``{docId, docType: "Script"|"Dialogue", startLine, startNode}`` (``docs/data-model.md``):
``startLine`` (a line number, or ``None``: the first line) applies to scripts, ``startNode`` (a
node id, or ``None``: the Start node) to dialogues. The functions here never change their
arguments: each edit returns a new list of items, which the editor writes through the gate.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.play.player import PlayItem, dialogue_nodes
from storyloom.project import SCENE_ITEM_TYPES
from storyloom.script import CommentLine, parse_script

Lookup = Callable[[str], "Mapping[str, Any] | None"]
_PREVIEW_CHARS = 70


class SceneItemError(StoryloomError, ValueError):
    """An item cannot be added or changed: a document that is not a Script or a Dialogue, a
    position outside the list."""

    code = "bad_scene_item"


@dataclass(frozen=True)
class ItemView:
    """What the playlist shows for one item: the document's name and type, where it starts,
    and a problem (``""`` when there is none)."""

    index: int
    doc_id: str
    doc_type: str
    name: str
    start: str
    problem: str = ""


def scene_items(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scene's items (copies), each with the four fields; entries that are not objects are
    dropped (validation refuses them on save)."""
    content = doc.get("content") if isinstance(doc.get("content"), Mapping) else {}
    items = content.get("items") if isinstance(content, Mapping) else None
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            fixed = copy.deepcopy(dict(item))
            for key in ("startLine", "startNode"):
                fixed.setdefault(key, None)
            out.append(fixed)
    return out


def new_item(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The item that plays ``doc`` (a Script or a Dialogue) from its beginning."""
    doc_type = doc.get("type")
    if doc_type not in SCENE_ITEM_TYPES:
        raise SceneItemError(f"a scene plays scripts and dialogues, not a {doc_type or 'document'}")
    return {"docId": str(doc.get("_id")), "docType": str(doc_type), "startLine": None, "startNode": None}


def _check_index(items: Sequence[Any], index: int, *, end: bool = False) -> None:
    if not 0 <= index < len(items) + (1 if end else 0):
        raise SceneItemError(f"there is no item {index + 1} in a scene of {len(items)}")


def insert_item(items: Sequence[Mapping[str, Any]], index: int, item: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``items`` with ``item`` at ``index`` (``len(items)``: at the end)."""
    _check_index(items, index, end=True)
    out = [dict(i) for i in items]
    out.insert(index, dict(item))
    return out


def remove_item(items: Sequence[Mapping[str, Any]], index: int) -> list[dict[str, Any]]:
    """``items`` without item ``index``."""
    _check_index(items, index)
    return [dict(i) for n, i in enumerate(items) if n != index]


def move_item(items: Sequence[Mapping[str, Any]], source: int, target: int) -> list[dict[str, Any]]:
    """``items`` with item ``source`` moved so that it ends up at position ``target``."""
    _check_index(items, source)
    _check_index(items, target)
    out = [dict(i) for i in items]
    out.insert(target, out.pop(source))
    return out


def set_start(items: Sequence[Mapping[str, Any]], index: int, start: int | str | None) -> list[dict[str, Any]]:
    """``items`` with item ``index`` starting at ``start``: a line number for a script, a node
    id for a dialogue, ``None`` for the beginning."""
    _check_index(items, index)
    out = [dict(i) for i in items]
    item = out[index]
    if item.get("docType") == "Script":
        if start is not None and (isinstance(start, bool) or not isinstance(start, int) or start < 0):
            raise SceneItemError("a script item starts at a line number")
        item["startLine"] = start
    else:
        if start is not None and not isinstance(start, str):
            raise SceneItemError("a dialogue item starts at a node id")
        item["startNode"] = start or None
    return out


def line_choices(script: Mapping[str, Any]) -> list[tuple[int, str]]:
    """``(line, preview)`` of every line a script item can start at (comments and blank lines
    left out), in order."""
    text = (script.get("content") or {}).get("script") if isinstance(script.get("content"), Mapping) else None
    if not isinstance(text, str):
        return []
    source = text.splitlines()
    out = []
    for line in parse_script(text).lines:
        if isinstance(line, CommentLine):
            continue
        preview = source[line.line - 1].strip() if line.line - 1 < len(source) else ""
        if len(preview) > _PREVIEW_CHARS:
            preview = preview[: _PREVIEW_CHARS - 1] + "…"
        out.append((line.line, preview))
    return out


def node_choices(dialogue: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(node id, "Label (type)")`` of every node a dialogue item can start at (notes are not
    played), the Start first; a label that is the type's own name is shown alone."""
    nodes = [(node_id, label if label.lower() == kind else f"{label} ({kind or 'node'})", kind)
             for node_id, kind, label in dialogue_nodes(dialogue) if kind != "note"]
    nodes.sort(key=lambda n: n[2] != "start")
    return [(node_id, text) for node_id, text, _kind in nodes]


def describe_items(items: Sequence[Mapping[str, Any]], lookup: Lookup) -> list[ItemView]:
    """What the playlist shows for each item (``lookup(doc_id)`` gives the document)."""
    out = []
    for index, item in enumerate(items):
        doc_id = str(item.get("docId") or "")
        doc_type = str(item.get("docType") or "")
        doc = lookup(doc_id) if doc_id else None
        if doc is None:
            out.append(ItemView(index, doc_id, doc_type, doc_id or "(no document)", "",
                                "this document does not exist any more"))
            continue
        name = str(doc.get("name") or "").strip() or "Untitled"
        if doc.get("type") != doc_type:
            out.append(ItemView(index, doc_id, doc_type, name, "", f"this is a {doc.get('type')}, not a {doc_type}"))
            continue
        start, problem = _start_text(item, doc)
        out.append(ItemView(index, doc_id, doc_type, name, start, problem))
    return out


def _start_text(item: Mapping[str, Any], doc: Mapping[str, Any]) -> tuple[str, str]:
    if item.get("docType") == "Script":
        line = item.get("startLine")
        if not isinstance(line, int) or isinstance(line, bool) or line <= 1:
            return "from the first line", ""
        previews = dict(line_choices(doc))
        if line in previews:
            return f"from line {line}: {previews[line]}", ""
        later = [n for n in previews if n > line]
        if later:
            return f"from line {line} (blank or a comment: plays from line {later[0]})", ""
        return f"from line {line}", f"the script has no line {line} or after it"
    node = item.get("startNode")
    if not node:
        return "from Start", ""
    labels = {node_id: label for node_id, _kind, label in dialogue_nodes(doc)}
    if node in labels:
        return f"from {labels[node]!r}", ""
    return "from a node", "the dialogue has no such node any more"


def scene_program(items: Sequence[Mapping[str, Any]]) -> list[PlayItem]:
    """The player's program for a scene: its items in order (items of another type skipped)."""
    program = []
    for item in items:
        doc_type = item.get("docType")
        doc_id = item.get("docId")
        if doc_type not in SCENE_ITEM_TYPES or not isinstance(doc_id, str) or not doc_id:
            continue
        line = item.get("startLine")
        node = item.get("startNode")
        program.append(PlayItem(doc_id, str(doc_type),
                                start_line=line if isinstance(line, int) and not isinstance(line, bool) else None,
                                start_node=node if isinstance(node, str) and node else None))
    return program


__all__ = ["ItemView", "SceneItemError", "describe_items", "insert_item", "line_choices", "move_item",
           "new_item", "node_choices", "remove_item", "scene_items", "scene_program", "set_start"]
