"""Line ids in documents: where they live and when the editor gate updates them
(docs/localization.md).

- A Script keeps the side table ``content.lineIds`` (``[[id, fingerprint], ...]``, one entry per
  speech line without a Drafft ``[#tag]``; :mod:`storyloom.script.line_ids`). The gate
  re-anchors it from the previous revision's table whenever the script text changes; readers
  (the export) anchor a stale table the same way, so ids are right before the next write.
- A Dialogue's choice options (the source handles of a ``choice`` node) carry ``lineId`` on
  their own handle object: moving or editing other nodes never touches it. An option keeps its
  id while the previous revision had that id on the same (node id, handle id); a new option, a
  pasted one (new node ids) or a duplicate id gets a new id, derived from the document id and
  the option's place.
- A copy of a document (a duplicate, pasted nodes) leaves them out: :func:`without_line_ids`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from storyloom.script.line_ids import anchor, new_line_id, reanchor, speech_line_ids

LINE_IDS = "lineIds"  # the Script side table, in ``content``
LINE_ID = "lineId"  # the id on a dialogue object


def script_line_ids(doc: Mapping[str, Any]) -> list[str]:
    """The id of every speech line of a Script document, in order (tags, else the side table,
    anchored when the text changed without the gate). Empty without script text."""
    content = doc.get("content")
    if not isinstance(content, Mapping) or not isinstance(content.get("script"), str):
        return []
    return speech_line_ids(content["script"], content.get(LINE_IDS), str(doc.get("_id") or ""))


def update_line_ids(doc: dict[str, Any], previous: Mapping[str, Any] | None, *, previous_current: bool = False) -> None:
    """Bring ``doc``'s line ids up to date before it is written (in place), from ``previous``
    (the revision it replaces, ``None`` for a new document, whose own ids are the base).
    ``previous_current``: the caller knows ``previous``'s Script table is anchored to its text
    (the gate wrote that revision): it is not checked against the text again."""
    doc_type = doc.get("type")
    if doc_type == "Script":
        _update_script(doc, previous, previous_current)
    elif doc_type == "Dialogue":
        _update_dialogue(doc, previous)


def _content(doc: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    content = doc.get("content") if doc is not None else None
    return content if isinstance(content, Mapping) else None


def _update_script(doc: dict[str, Any], previous: Mapping[str, Any] | None, previous_current: bool = False) -> None:
    content = doc.get("content")
    if not isinstance(content, dict) or not isinstance(content.get("script"), str):
        return
    text = content["script"]
    doc_id = str(doc.get("_id") or "")
    before = _content(previous)
    if before is not None and isinstance(before.get("script"), str):
        if before["script"] == text and content.get(LINE_IDS) == before.get(LINE_IDS):
            return  # the text did not change: a rename, a move, a field of its own
        # the previous table, anchored to the previous text first (a Drafft teammate may have
        # changed that text without the table), then to the new text
        table = reanchor(before.get(LINE_IDS), before["script"], text, doc_id, previous_current=previous_current)
    else:
        table = anchor(content.get(LINE_IDS), text, doc_id)  # a new document: its own table (an import, a restore)
    if table or LINE_IDS in content:
        content[LINE_IDS] = table


def choice_options(tree: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(place, handle)`` of every choice option of a dialogue tree: the source handles of its
    ``choice`` nodes, ``place`` being ``"<node id>/<handle id>"``."""
    nodes = tree.get("nodes") if isinstance(tree, Mapping) else None
    if not isinstance(nodes, list):
        return
    for node in nodes:
        data = node.get("data") if isinstance(node, Mapping) else None
        if not isinstance(data, Mapping) or data.get("nodeType") != "choice":
            continue
        handles = data.get("handles")
        for handle in handles if isinstance(handles, list) else ():
            if isinstance(handle, dict) and handle.get("type") == "source" and isinstance(handle.get("id"), str):
                yield f"{node.get('id')}/{handle['id']}", handle


def _update_dialogue(doc: dict[str, Any], previous: Mapping[str, Any] | None) -> None:
    content = doc.get("content")
    if not isinstance(content, dict):
        return
    before_content = _content(previous)
    had: dict[str, Any] | None = None
    if before_content is not None:
        had = {place: handle.get(LINE_ID) for place, handle in choice_options(before_content.get("tree"))}
    for handle, line_id in _option_ids(str(doc.get("_id") or ""), content.get("tree"), had):
        handle[LINE_ID] = line_id


def _option_ids(doc_id: str, tree: Any, had: Mapping[str, Any] | None) -> list[tuple[dict[str, Any], str]]:
    """``(handle, id)`` of every choice option of ``tree``: its own ``lineId`` when well formed,
    not taken by an earlier option and (with ``had``, the previous revision's ids by place) the
    one it had at the same place; an option without the field takes the one it had there; else
    a new id derived from ``doc_id`` and its place."""
    options = list(choice_options(tree))
    used: set[str] = set()
    ids: list[str | None] = []
    for place, handle in options:
        line_id = handle.get(LINE_ID)
        if line_id is None and had is not None:
            line_id = had.get(place)  # a writer that does not know the field (an editor's model, Drafft)
        if isinstance(line_id, str) and line_id and line_id not in used and (had is None or had.get(place) == line_id):
            used.add(line_id)
            ids.append(line_id)
        else:
            ids.append(None)
    found: list[tuple[dict[str, Any], str]] = []
    for (place, handle), line_id in zip(options, ids, strict=True):
        if line_id is None:
            line_id = new_line_id(doc_id, place, 0, used)
            used.add(line_id)
        found.append((handle, line_id))
    return found


def dialogue_option_ids(doc: Mapping[str, Any]) -> dict[str, str]:
    """``{"<node id>/<handle id>": id}`` of a Dialogue's choice options, as a reader sees them:
    stored ids, and for options without one (a Drafft teammate's, an import's) the id the next
    write through the gate stores."""
    content = _content(doc)
    if content is None:
        return {}
    places = [place for place, _ in choice_options(content.get("tree"))]
    found = _option_ids(str(doc.get("_id") or ""), content.get("tree"), None)
    return {place: line_id for place, (_, line_id) in zip(places, found, strict=True)}


def without_line_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (a copy about to get a new id, or pasted dialogue nodes' document) without line
    ids, in place: the gate then gives the copy ids of its own."""
    content = doc.get("content")
    if isinstance(content, dict):
        content.pop(LINE_IDS, None)
        for _, handle in choice_options(content.get("tree")):
            handle.pop(LINE_ID, None)
    return doc


def strip_node_line_ids(nodes: Any) -> None:
    """Remove ``lineId`` from the handles of dialogue ``nodes`` (pasted copies), in place."""
    for _, handle in choice_options({"nodes": nodes}):
        handle.pop(LINE_ID, None)
