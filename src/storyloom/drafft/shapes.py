"""Drafft v1 shapes to v2 (content fields, dialogue graphs, kanban lanes, hotkeys) and the
repairs of documents validation would refuse."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from storyloom.diagnostics import name_list
from storyloom.drafft.report import HOTKEYS_COLLECTION, ImportReport, describe, free_key
from storyloom.project import (
    ATTACHMENT_TYPE,
    FOLDER_TYPE,
    NODE_TYPES,
    TREE_COLLECTIONS,
    DateFormatError,
    new_document,
    normalise_date,
)
from storyloom.project.content import check_map_content


def convert_hotkey(doc: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    data = {k: v for k, v in doc.items() if k not in ("_id", "collection")}
    misc = new_document(
        "Misc",
        str(doc.get("name") or doc.get("label") or "Hotkey"),
        doc_id=doc["_id"],
        content={"properties": json.dumps(data, indent=2, ensure_ascii=False) + "\n"},
        editorLanguage="json",
        originalCollection=HOTKEYS_COLLECTION,
    )
    notes.append("Hotkeys document -> Misc document (its data as JSON in content.properties)")
    return misc


def _html_or_markdown(text: str) -> str:
    return "richText" if text.lstrip().startswith("<") else "markdown"


def _move_text(doc: dict[str, Any], content: dict[str, Any], top: str, key: str, notes: list[str]) -> None:
    """Move top-level v1 text ``top`` into ``content[key]`` unless the v2 field already exists."""
    if key in content:
        return
    value = doc.get(top)
    if top in doc and (isinstance(value, str) or value is None):
        content[key] = value or ""
        del doc[top]
        notes.append(f"{top} -> content.{key}")
    else:
        content[key] = ""


def _keep_odd_content(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """A ``content`` that is neither an object (v2) nor text (v1) nor null moves to
    ``contentOriginal`` (the type's content object is built in its place)."""
    raw = doc.get("content")
    if raw is None or isinstance(raw, dict | str):
        return
    kept = free_key(doc, "contentOriginal")
    doc[kept] = doc.pop("content")
    report.warnings.append(
        f"{doc['_id']}: content is {describe(raw)}, neither an object nor text; kept as {kept}"
    )
    notes.append("repair: content of another kind kept as contentOriginal")


def convert_v1_shapes(doc: dict[str, Any], notes: list[str], report: ImportReport) -> bool:
    """Convert a document still in a v1 shape, in place. Returns True if anything was v1."""
    doc_type = doc.get("type")
    before = len(notes)
    if "prefix" in doc and ("alias" not in doc or not doc.get("alias")):
        doc["alias"] = doc.pop("prefix")
        notes.append("prefix -> alias")
    if doc_type not in TREE_COLLECTIONS:
        if doc_type == ATTACHMENT_TYPE and not isinstance(doc.get("content"), dict):
            _keep_odd_content(doc, notes, report)
            text = doc.get("content")
            doc["content"] = {"notes": text if isinstance(text, str) else ""}
            if text:
                notes.append("content text -> content.notes")
        return len(notes) > before
    _keep_odd_content(doc, notes, report)
    raw = doc.get("content")
    legacy_text = raw if isinstance(raw, str) else None
    if isinstance(raw, dict):
        content = raw
    else:
        content = {}
        doc["content"] = content
    convert = _V1_CONTENT.get(str(doc_type))
    if convert is not None and convert(doc, content, legacy_text, notes, report):
        legacy_text = None  # it became the type's own text field
    for key, empty in _V2_DEFAULTS.get(str(doc_type), ()):
        content.setdefault(key, empty())
    if legacy_text:
        content["notes"] = legacy_text
        notes.append("content text -> content.notes")
    elif legacy_text is not None and not notes[before:]:
        notes.append("empty content text -> content object")
    return len(notes) > before or not isinstance(raw, dict)


# The v1 -> v2 conversion of one type's content, in place: ``(doc, content, v1 content text,
# notes, report)``; True when the v1 content text became the type's own text field.
_V1Convert = Callable[[dict[str, Any], dict[str, Any], str | None, list[str], ImportReport], bool]


def _v1_script(doc: dict[str, Any], content: dict[str, Any], text: str | None, notes: list[str],
               report: ImportReport) -> bool:
    used = "script" not in content
    if used:
        content["script"] = text or ""
        notes.append("content text -> content.script")
    if "editorMode" not in doc and isinstance(doc.get("scriptEditorMode"), str):
        doc["editorMode"] = doc.pop("scriptEditorMode")
        notes.append("scriptEditorMode -> editorMode")
    return used


def _v1_gdd(doc: dict[str, Any], content: dict[str, Any], text: str | None, notes: list[str],
            report: ImportReport) -> bool:
    if "gdd" in content:
        return False
    content["gdd"] = text or ""
    notes.append("content text -> content.gdd")
    if "editor" not in doc:
        doc["editor"] = _html_or_markdown(content["gdd"])
    return True


def _v1_text_fields(*moves: tuple[str, str]) -> _V1Convert:
    """A type whose v1 document kept text fields at the top (``(top, content key)`` pairs)."""
    def convert(doc: dict[str, Any], content: dict[str, Any], text: str | None, notes: list[str],
                report: ImportReport) -> bool:
        for top, key in moves:
            _move_text(doc, content, top, key, notes)
        return False
    return convert


def _v1_dialogue(doc: dict[str, Any], content: dict[str, Any], text: str | None, notes: list[str],
                 report: ImportReport) -> bool:
    graph = doc.get("graph")
    if "tree" not in content:
        if isinstance(graph, dict):
            content["tree"] = convert_graph(graph, report, doc.get("_id", ""))
            notes.append("graph -> content.tree (nodes and edges; the v1 graph is kept)")
        else:
            content["tree"] = {"nodes": [], "edges": []}
    return False


def _v1_kanban(doc: dict[str, Any], content: dict[str, Any], text: str | None, notes: list[str],
               report: ImportReport) -> bool:
    data = doc.get("data")
    if "columns" not in content:
        lanes = data.get("lanes") if isinstance(data, dict) else None
        content["columns"] = _convert_lanes(lanes if isinstance(lanes, list) else [], report, doc.get("_id", ""))
        content.setdefault("template", None)
        content.setdefault("settings", {})
        if lanes is not None:
            notes.append("data.lanes -> content.columns (cards kept; the v1 data is kept)")
    return False


_V1_CONTENT: dict[str, _V1Convert] = {
    "Script": _v1_script,
    "Gdd": _v1_gdd,
    "Item": _v1_text_fields(("properties", "item")),
    "Quest": _v1_text_fields(("properties", "properties"), ("conditions", "conditions")),
    "Misc": _v1_text_fields(("properties", "properties")),
    "Actor": _v1_text_fields(("bio", "bio"), ("properties", "properties")),
    "Dialogue": _v1_dialogue,
    "Kanban": _v1_kanban,
}
# The content fields a v2 document of the type always has: (key, its empty value's type).
_V2_DEFAULTS: dict[str, tuple[tuple[str, Callable[[], Any]], ...]] = {
    "Actor": (("expressions", list),),
    "Grid": (("columns", list), ("data", list)),
    "Variable": (("variables", str),),
    "Scenario": (("scenario", str),),
    "Scene": (("items", list),),
    "Canvas": (("nodes", list), ("edges", list)),
}


def convert_graph(graph: dict[str, Any], report: ImportReport | None = None, doc_id: str = "") -> dict[str, Any]:
    """A v1 dialogue ``graph`` (nodes with ports, links) as a v2 ``content.tree``.

    The same mapping as Drafft's own v1->v2 migration (positions doubled, ports become handles:
    ``in`` ports are targets, the others sources; links become edges between (node, handle)).
    """
    nodes = []
    for node in graph.get("nodes") or []:
        if not isinstance(node, dict):
            continue
        extras = raw if isinstance(raw := node.get("extras"), dict) else {}
        v1_type = str(extras.get("type") or "")
        node_type = v1_type.lower()
        data: dict[str, Any] = {
            "label": node.get("name", ""),
            "handles": [
                {"id": port.get("id"), "type": "target" if port.get("in") else "source", "label": port.get("label", "")}
                for port in node.get("ports") or []
                if isinstance(port, dict)
            ],
            "nodeType": node_type,
        }
        if node_type not in NODE_TYPES:
            data["nodeType"] = "note"
            data["v1Type"] = v1_type
            if report is not None:
                report.warnings.append(
                    f"{doc_id}: node {node.get('id')!r} has v1 type {v1_type!r}, "
                    "imported as a note node (v1Type keeps the original)"
                )
        if "scriptID" in extras:
            data["scriptId"] = extras["scriptID"]
        nodes.append(
            {
                "id": node.get("id"),
                "position": {"x": (node.get("x") or 0) * 2, "y": (node.get("y") or 0) * 2},
                "sourcePosition": "left",
                "targetPosition": "right",
                "type": "base",
                "dragHandle": ".drag-handle__header",
                "data": data,
            }
        )
    edges = []
    for link in graph.get("links") or []:
        if not isinstance(link, dict):
            continue
        edges.append(
            {
                "edgeId": link.get("id"),
                "id": link.get("id"),
                "key": link.get("id"),
                "source": link.get("source"),
                "target": link.get("target"),
                "sourceHandle": link.get("sourcePort"),
                "targetHandle": link.get("targetPort"),
                "animated": False,
            }
        )
    return {"nodes": nodes, "edges": edges}


def _convert_lanes(lanes: list[Any], report: ImportReport, doc_id: str) -> list[dict[str, Any]]:
    columns = []
    for lane in lanes:
        if not isinstance(lane, dict):
            continue
        cards = []
        for card in lane.get("cards") or []:
            if not isinstance(card, dict):
                continue
            converted = copy.deepcopy(card)
            tags = card.get("tags") or []
            converted["tags"] = [t.get("title", "") if isinstance(t, dict) else str(t) for t in tags]
            converted.setdefault("type", "card")
            converted.setdefault("description", "")
            converted.setdefault("related", [])
            converted.setdefault("completed", False)
            converted.setdefault("dueDate", "")
            converted.setdefault("assigned", "")
            if converted.get("modified"):
                try:
                    converted["modified"] = normalise_date(converted["modified"])
                    report.dates_normalised += 1
                except DateFormatError:
                    pass
            cards.append(converted)
        columns.append(
            {"id": str(lane.get("id", "")), "title": lane.get("title", ""), "type": "column", "cards": cards}
        )
    return columns


# The text fields of ``content`` per type (validation wants strings there).
_CONTENT_TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "Script": ("script",),
    "Gdd": ("gdd",),
    "Actor": ("bio", "properties"),
    "Quest": ("properties", "conditions", "notes"),
    "Item": ("item", "notes"),
    "Misc": ("properties", "notes"),
    "Variable": ("variables", "json"),
    "Scenario": ("scenario", "json"),
    ATTACHMENT_TYPE: ("notes",),
}


def repair_document(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """Repair, in place, what validation would refuse where the intent is clear; each repair is
    a warning of the report and a note of the document, and an original value is kept beside it.
    Parents are repaired later, with the tree (they need every document)."""
    doc_id = doc["_id"]
    doc_type = doc.get("type")
    if doc_type != FOLDER_TYPE:
        collection = doc.get("collection")
        if collection != doc_type:
            what = describe(collection) if "collection" in doc else "missing"
            message = f"{doc_id}: collection is {what}; set to {doc_type!r} (the document's type)"
            if collection is not None:
                kept = free_key(doc, "collectionOriginal")
                doc[kept] = collection
                message += f"; the value is kept as {kept}"
            doc["collection"] = doc_type
            report.warnings.append(message)
            notes.append("repair: collection set from type")
    name = doc.get("name")
    if not isinstance(name, str):
        if name is None:
            doc["name"] = ""
            report.warnings.append(f"{doc_id}: name is {'null' if 'name' in doc else 'missing'}; set to \"\"")
        else:
            kept = free_key(doc, "nameOriginal")
            doc[kept] = name
            doc["name"] = json.dumps(name, ensure_ascii=False)
            report.warnings.append(f"{doc_id}: name is {describe(name)}, not text; written as text, "
                                   f"the value is kept as {kept}")
        notes.append("repair: name set to text")
    content = doc.get("content")
    if isinstance(content, dict):
        for key in _CONTENT_TEXT_FIELDS.get(str(doc_type), ()):
            value = content.get(key)
            if key not in content or isinstance(value, str):
                continue
            content[key] = "" if value is None else json.dumps(value, ensure_ascii=False, indent=2)
            report.warnings.append(
                f"{doc_id}: content.{key} is {describe(value)}, not text; kept as the text {content[key][:40]!r}"
            )
            notes.append(f"repair: content.{key} written as text")
        if doc_type == "Actor" and not isinstance(content.get("expressions"), list):
            value = content.get("expressions")
            if value is not None:
                kept = free_key(content, "expressionsOriginal")
                content[kept] = value
                report.warnings.append(f"{doc_id}: content.expressions is {describe(value)}, not a list; "
                                       f"kept as content.{kept}")
            content["expressions"] = []
            notes.append("repair: content.expressions set to a list")
        if doc_type == "Map":
            _repair_map(doc, content, notes, report)
    if doc_type == ATTACHMENT_TYPE and not (isinstance(doc.get("mimeType"), str) and doc["mimeType"]):
        blob = (doc.get("_attachments") or {}).get("blob") or {}
        mime = blob.get("content_type") or "application/octet-stream"
        if doc.get("mimeType") is not None:
            doc[free_key(doc, "mimeTypeOriginal")] = doc["mimeType"]
        doc["mimeType"] = mime
        report.warnings.append(f"{doc_id}: mimeType missing; set to {mime!r} (its blob's content type)")
        notes.append("repair: mimeType set from the blob")


def _repair_map(doc: dict[str, Any], content: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """Map cells, edges and markers that validation would refuse (outside the map, malformed
    keys, without a type, a second copy of an edge) move to ``content.invalid``, where they are
    kept (and not exported). Unusable width or height cannot be repaired (no bounds)."""
    exported, problems = check_map_content(content, doc["_id"])
    if exported is None or not problems:
        return
    invalid: dict[str, Any] = {}
    for kind in ("cells", "edges", "markers"):
        value = content.get(kind)
        if value is None:
            continue
        if isinstance(value, dict):
            bad = {k: v for k, v in value.items() if k not in exported[kind]}
            if bad:
                invalid[kind] = bad
                content[kind] = {k: v for k, v in value.items() if k in exported[kind]}
        elif kind == "markers" and isinstance(value, list):
            keep: list[Any] = []
            bad_items: list[Any] = []
            seen: set[str] = set()
            for marker in value:
                marker_name = marker.get("name") if isinstance(marker, dict) else None
                if isinstance(marker_name, str) and marker_name in exported["markers"] and marker_name not in seen:
                    seen.add(marker_name)
                    keep.append(marker)
                else:
                    bad_items.append(marker)
            if bad_items:
                invalid[kind] = bad_items
                content[kind] = keep
        else:
            invalid[kind] = value
            content[kind] = {}
    properties = content.get("properties")
    if properties is not None and not isinstance(properties, dict):
        invalid["properties"] = content.pop("properties")
    if not invalid:
        return
    kept = free_key(content, "invalid")
    content[kept] = invalid
    report.warnings.append(
        f"{doc['_id']}: map entries validation refuses were moved to content.{kept} (kept, not exported): "
        + name_list((p.message for p in problems), separator="; ")
    )
    notes.append("repair: invalid map entries moved to content.invalid")
