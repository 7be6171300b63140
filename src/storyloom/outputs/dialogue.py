"""A dialogue graph in print: its nodes in the order a player meets them (from the Start node,
each output followed before the next), each as a heading with what the node holds (its condition,
switch, event or jump, its notes, its outputs and where each leads, an option's ``@set`` port
script) and a Script node's linked script as a screenplay right under it.

Read from the stored shape (``content.tree``: ``{nodes, edges}``, docs/data-model.md), so this
layer needs nothing of the project's dialogue editor."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from storyloom.outputs.model import Page, Part
from storyloom.outputs.screenplay import screenplay_of

#: A node type's title in print (unknown types print as notes do).
KIND_TITLES = {"start": "Start", "script": "Script", "choice": "Choice", "condition": "Condition",
               "switch": "Switch", "event": "Event", "jump": "Jump", "note": "Note", "end": "End",
               "return": "Return"}
#: The ``data`` key holding a node's own value, and its words.
FIELDS = {"condition": "Condition", "switch": "Switch on", "event": "Event", "jumpTo": "Jump to"}


def _data(node: Mapping[str, Any]) -> Mapping[str, Any]:
    data = node.get("data")
    return data if isinstance(data, Mapping) else {}


def _label(node: Mapping[str, Any]) -> str:
    label = _data(node).get("label")
    return " ".join(str(label).split()) if isinstance(label, str) and label.strip() else "(untitled)"


def _order(nodes: list[Mapping[str, Any]], edges: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Depth first from the Start nodes, outputs in their order; unreachable nodes after, as stored."""
    by_id = {str(node.get("id")): node for node in nodes}
    outgoing: dict[str, list[str]] = {}
    for _position, edge in sorted(enumerate(edges), key=lambda pair: _handle_index(by_id, pair[1], pair[0])):
        outgoing.setdefault(str(edge.get("source")), []).append(str(edge.get("target")))
    seen: set[str] = set()
    ordered: list[Mapping[str, Any]] = []
    stack = [str(n.get("id")) for n in reversed(nodes) if _data(n).get("nodeType") == "start"]
    while stack:
        node_id = stack.pop()
        if node_id in seen or node_id not in by_id:
            continue
        seen.add(node_id)
        ordered.append(by_id[node_id])
        stack.extend(reversed(outgoing.get(node_id, [])))
    ordered.extend(node for node in nodes if str(node.get("id")) not in seen)
    return ordered


def _handle_index(by_id: Mapping[str, Mapping[str, Any]], edge: Mapping[str, Any], position: int) -> tuple[int, int]:
    """Where an edge's source handle is among its node's handles (edges follow their ports)."""
    handles = _data(by_id.get(str(edge.get("source")), {})).get("handles")
    ids = [h.get("id") for h in handles if isinstance(h, Mapping)] if isinstance(handles, list) else []
    index = ids.index(edge.get("sourceHandle")) if edge.get("sourceHandle") in ids else len(ids)
    return index, position


def _node_head(node: Mapping[str, Any], by_id: Mapping[str, Mapping[str, Any]]) -> str:
    """What a node holds itself: its field's value and its notes, as markdown."""
    data = _data(node)
    lines: list[str] = []
    for key, words in FIELDS.items():
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            shown = _label(by_id[value]) if key == "jumpTo" and value in by_id else value
            lines.append(f"**{words}:** `{shown}`")
            lines.append("")
    notes = data.get("notes")
    if isinstance(notes, str) and notes.strip():
        lines.extend([f"> {line}" for line in notes.strip().splitlines()] + [""])
    return "\n".join(lines)


def _node_outputs(node: Mapping[str, Any], edges: list[Mapping[str, Any]],
                  by_id: Mapping[str, Mapping[str, Any]]) -> str:
    """Where a node goes: each output, the nodes it leads to and its port script, as a list."""
    data = _data(node)
    lines: list[str] = []
    found = data.get("handles")
    handles: list[Any] = found if isinstance(found, list) else []
    for handle in handles:
        if not isinstance(handle, Mapping) or handle.get("type") != "source":
            continue
        targets = [_label(by_id[str(e.get("target"))]) for e in edges
                   if e.get("source") == node.get("id") and e.get("sourceHandle") == handle.get("id")
                   and str(e.get("target")) in by_id]
        label = str(handle.get("label") or "Out")
        item = f"- {label} → {', '.join(targets) if targets else '(not linked)'}"
        script = handle.get("portScript")
        if isinstance(script, str) and script.strip():
            item += f" — `{' '.join(script.split())}`"
        lines.append(item)
    return "\n".join(lines)


def dialogue_parts(name: str, tree: Any, script_of: Callable[[str], tuple[str, str] | None], *, level: int = 1,
                   doc_id: str = "") -> list[Part]:
    """The parts of dialogue ``name`` (its ``content.tree``); ``script_of(id)`` is a linked
    script's ``(name, text)``, or ``None`` when it is gone."""
    nodes = [n for n in tree.get("nodes", []) if isinstance(n, Mapping)] if isinstance(tree, Mapping) else []
    edges = [e for e in tree.get("edges", []) if isinstance(e, Mapping)] if isinstance(tree, Mapping) else []
    by_id = {str(node.get("id")): node for node in nodes}
    parts: list[Part] = [Page(name, None, level, doc_id)]
    for node in _order(nodes, edges):
        data = _data(node)
        kind = KIND_TITLES.get(str(data.get("nodeType")), "Note")
        parts.append(Page(f"{_label(node)} ({kind})", _node_head(node, by_id) or None, level + 1))
        script_id = data.get("scriptId")
        if kind == "Script" and isinstance(script_id, str) and script_id:
            found = script_of(script_id)
            if found is not None:
                parts.append(screenplay_of(found[0], found[1], script_id))
        outputs = _node_outputs(node, edges, by_id)
        if outputs:
            parts.append(Page("", outputs, level + 1))
    return parts
