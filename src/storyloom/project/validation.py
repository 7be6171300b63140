"""Validation of every document write: hard errors refuse the write, warnings are reported.

- **Errors** (:class:`ValidationError`): the document has the wrong shape: a field of the wrong
  type, a missing required field, an unknown dialogue node type, a malformed sort key, a stored
  ``children``/``path``. Each names the field (a dotted path such as
  ``content.tree.nodes[2].data.nodeType``) and what was expected.
- **Warnings**: references that do not resolve (a missing parent folder, a dialogue edge whose
  node or handle is missing, a scene item pointing at a missing script, an expression image
  that is not there) and content that does not parse yet (a variable source with a syntax
  error, a scenario overriding an unknown property). Documents are written in any order (by
  the API, by replication, while the writer is still typing), so these are reported, not refused.

:func:`check_document` returns every :class:`Problem`; :func:`validate_document` raises on the
errors and returns the warnings. Cross-document checks need a :class:`Context` (the editing
service passes one backed by the store; the import passes one backed by the batch).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Container
from typing import Any

from storyloom.diagnostics import ERROR, WARNING
from storyloom.project.checking import (
    Checker,
    Context,
    MappingContext,
    Problem,
    ValidationError,
    content_module,
    make_problem,
    parsed_source,
)
from storyloom.project.collections import (
    ATTACHMENT_TYPE,
    FOLDER_TYPE,
    SETTINGS_ID,
    TRANSLATION_TYPE,
    USER_TYPE,
)
from storyloom.project.dates import is_iso_utc
from storyloom.project.documents import (
    DATE_FIELDS,
    DERIVED_FIELDS,
    EDITOR_LANGUAGES,
    EDITOR_MODES,
    GDD_EDITORS,
    HANDLE_TYPES,
    KNOWN_TYPES,
    NODE_TYPES,
    SCENE_ITEM_TYPES,
    TREE_COLLECTIONS,
    permalink_target,
)
from storyloom.project.settings import MISSING, locale_problem, settings_problems
from storyloom.project.tree import is_valid_key

# The vocabulary lives in ``checking``; it is offered here too, beside the rules that use it.
__all__ = [
    "ERROR",
    "WARNING",
    "Context",
    "MappingContext",
    "Problem",
    "ValidationError",
    "check_dialogue",
    "check_dialogue_tree",
    "check_document",
    "validate_document",
]

# ---------------------------------------------------------------------------------------------
# Entry points


def check_document(doc: Any, context: Context | None = None) -> list[Problem]:
    """Every problem of ``doc`` (errors and warnings), in document order. Never raises."""
    context = context or Context()
    if not isinstance(doc, dict):
        return [make_problem(None, "(document)", "a JSON object", doc, ERROR, "wrong-type")]
    doc_id = doc.get("_id")
    ck = Checker(doc_id if isinstance(doc_id, str) else None)
    if not isinstance(doc_id, str) or not doc_id:
        ck.error("_id", "a non-empty string", doc.get("_id", MISSING), "missing-field")
    elif doc_id.startswith("_"):
        ck.error("_id", "an id not starting with '_' (reserved for design and local documents)", doc_id)
    if doc_id == SETTINGS_ID:
        for field_path, expected, got in settings_problems(doc):
            ck.error(field_path, expected, got, "missing-field" if got is MISSING else "wrong-type")
        _check_common_fields(ck, doc)
        return ck.problems
    doc_type = doc.get("type", MISSING)
    if doc_type not in KNOWN_TYPES:
        ck.error("type", f"one of {', '.join(KNOWN_TYPES)}", doc_type,
                 "missing-field" if doc_type is MISSING else "unknown-type")
        return ck.problems
    _check_common_fields(ck, doc)
    _check_collection(ck, doc)
    if doc_type == FOLDER_TYPE or doc_type in TREE_COLLECTIONS:
        _check_tree_fields(ck, doc, context)
    checker = _TYPE_CHECKS.get(doc_type)
    if checker is not None:
        checker(ck, doc, context)
    return ck.problems


def validate_document(doc: Any, context: Context | None = None) -> list[Problem]:
    """Raise :class:`ValidationError` if ``doc`` has errors; otherwise return its warnings."""
    problems = check_document(doc, context)
    errors = [p for p in problems if p.is_error]
    if errors:
        raise ValidationError(errors)
    return problems


# ---------------------------------------------------------------------------------------------
# Common fields


def _check_common_fields(ck: Checker, doc: dict[str, Any]) -> None:
    for derived in DERIVED_FIELDS:
        if derived in doc:
            ck.error(
                derived,
                f"no stored {derived!r} (it is derived from parent and sortKey; see storyloom.project.tree)",
                doc[derived],
                "derived-field",
            )
    if doc.get("_id") != SETTINGS_ID:
        ck.string(doc, "name", "name", required=True)
    for key in DATE_FIELDS:
        value = doc.get(key, MISSING)
        if value is MISSING or value is None:
            continue
        if not is_iso_utc(value):
            ck.error(key, "an ISO-8601 UTC timestamp such as 2021-03-30T23:08:49.000Z", value, "bad-date")
    for key in ("createdBy", "modifiedBy", "lockedBy"):
        ck.string(doc, key, key, nullable=True)
    for key in ("icon", "color", "comments", "alias"):
        ck.string(doc, key, key)
    for key in ("isClonable", "isRemovable", "isReadOnly", "locked"):
        ck.boolean(doc, key, key)
    attachments = doc.get("_attachments", MISSING)
    if attachments is not MISSING:
        _check_attachments(ck, attachments)


def _check_attachments(ck: Checker, attachments: Any) -> None:
    if not isinstance(attachments, dict):
        ck.error("_attachments", "an object of attachment name: attachment", attachments, "wrong-type")
        return
    for name, att in attachments.items():
        path = f"_attachments.{name}"
        if not isinstance(att, dict):
            ck.error(path, "an object with content_type and data (or stub: true)", att, "wrong-type")
            continue
        if att.get("stub") is True or att.get("follows") is True:
            continue
        if not isinstance(att.get("content_type"), str) or not att["content_type"]:
            ck.error(f"{path}.content_type", "a MIME type such as image/png", att.get("content_type", MISSING),
                     "missing-field")
        data = att.get("data", MISSING)
        if not isinstance(data, str):
            ck.error(f"{path}.data", "base64 text (or stub: true)", data, "missing-field")
            continue
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            ck.error(f"{path}.data", "valid base64 text", data, "bad-base64")


def _check_collection(ck: Checker, doc: dict[str, Any]) -> None:
    doc_type = doc["type"]
    collection = doc.get("collection", MISSING)
    if doc_type == FOLDER_TYPE:
        if collection not in TREE_COLLECTIONS:
            ck.error("collection", f"the collection the folder belongs to, one of {', '.join(TREE_COLLECTIONS)}",
                     collection, "missing-field" if collection is MISSING else "wrong-type")
    elif collection != doc_type:
        ck.error("collection", f"{doc_type!r} (the same as type)", collection,
                 "missing-field" if collection is MISSING else "wrong-type")


def _check_tree_fields(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    parent = doc.get("parent", MISSING)
    if parent is MISSING:
        ck.error("parent", "null (top level) or the id of a folder", parent, "missing-field")
    elif parent is not None:
        if not isinstance(parent, str) or not parent:
            ck.error("parent", "null (top level) or the id of a folder", parent, "wrong-type")
        elif parent == doc.get("_id"):
            ck.error("parent", "another document's id (a document cannot contain itself)", parent, "parent-cycle")
        elif context.knows_documents:
            folder = context.get(parent)
            if folder is None:
                ck.warn("parent", "an existing folder", parent, "dangling-parent",
                        detail=f"parent folder {parent!r} does not exist (yet)")
            elif folder.get("type") != FOLDER_TYPE:
                ck.error("parent", "the id of a folder", parent, "parent-not-folder",
                         detail=f"parent {parent!r} is a {folder.get('type')}, not a folder")
            elif folder.get("collection") != doc.get("collection"):
                ck.error("parent", f"a folder of collection {doc.get('collection')!r}", parent,
                         "parent-collection",
                         detail=f"parent folder {parent!r} belongs to {folder.get('collection')!r}, "
                                f"not {doc.get('collection')!r}")
    key = doc.get("sortKey", MISSING)
    if not is_valid_key(key):
        ck.error("sortKey", "a sort key (base-62 digits 0-9A-Za-z, not ending in '0')", key,
                 "missing-field" if key is MISSING else "bad-sort-key")


# ---------------------------------------------------------------------------------------------
# Per type


def _content(ck: Checker, doc: dict[str, Any]) -> dict[str, Any] | None:
    return ck.mapping(doc, "content", "content")


def _text_fields(ck: Checker, content: dict[str, Any], *keys: str, optional: tuple[str, ...] = ()) -> None:
    for key in keys:
        ck.string(content, key, f"content.{key}", required=True)
    for key in optional:
        ck.string(content, key, f"content.{key}")


def _editor_language(ck: Checker, doc: dict[str, Any]) -> None:
    value = doc.get("editorLanguage", MISSING)
    if value is not MISSING and value not in EDITOR_LANGUAGES:
        ck.error("editorLanguage", f"one of {', '.join(EDITOR_LANGUAGES)}", value, "wrong-type")


def _check_script(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is not None:
        _text_fields(ck, content, "script")
    ck.boolean(doc, "isDialogueScript", "isDialogueScript")
    if ck.string(doc, "editorMode", "editorMode"):
        mode = doc.get("editorMode")
        if mode is not None and mode not in EDITOR_MODES:
            ck.warn("editorMode", f"one of {', '.join(EDITOR_MODES)}", mode, "unknown-editor-mode",
                    detail=f"unknown script editor mode {mode!r} (highlighting falls back to text)")


def _check_folder(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    ck.boolean(doc, "isDialogueScriptFolder", "isDialogueScriptFolder")


def _check_gdd(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is not None:
        _text_fields(ck, content, "gdd")
    if ck.string(doc, "editor", "editor", nullable=True):
        editor = doc.get("editor")
        if editor is not None and editor not in GDD_EDITORS:
            ck.warn("editor", f"one of {', '.join(GDD_EDITORS)}", editor, "unknown-editor")


def _check_actor(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    _editor_language(ck, doc)
    content = _content(ck, doc)
    if content is None:
        return
    _text_fields(ck, content, "bio", "properties")
    expressions = ck.array(content, "expressions", "content.expressions")
    for index, expression in enumerate(expressions or []):
        path = f"content.expressions[{index}]"
        if not isinstance(expression, dict):
            ck.error(path, "an object {name, permalink, _id}", expression, "wrong-type")
            continue
        ck.string(expression, "name", f"{path}.name", required=True, non_empty=True)
        ck.string(expression, "permalink", f"{path}.permalink")
        ck.string(expression, "_id", f"{path}._id")
        target = expression.get("_id") or permalink_target(expression.get("permalink", ""))
        if target and isinstance(target, str) and context.knows_documents and context.get(target) is None:
            ck.warn(f"{path}._id", "an existing Attachment document", target, "dangling-attachment",
                    detail=f"expression image {target!r} does not exist")


def _check_quest(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    _editor_language(ck, doc)
    content = _content(ck, doc)
    if content is not None:
        _text_fields(ck, content, "properties", "conditions", optional=("notes",))


def _check_item(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    _editor_language(ck, doc)
    content = _content(ck, doc)
    if content is not None:
        _text_fields(ck, content, "item", optional=("notes",))


def _check_misc(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    _editor_language(ck, doc)
    content = _content(ck, doc)
    if content is not None:
        _text_fields(ck, content, "properties", optional=("notes",))


def _check_grid(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is None:
        return
    columns = ck.array(content, "columns", "content.columns")
    for index, column in enumerate(columns or []):
        if not isinstance(column, dict):
            ck.error(f"content.columns[{index}]", "an object {id, title, type, ...}", column, "wrong-type")
    data = ck.array(content, "data", "content.data")
    for index, row in enumerate(data or []):
        if not isinstance(row, list):
            ck.error(f"content.data[{index}]", "an array (one row of cells)", row, "wrong-type")


def _check_kanban(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is None:
        return
    columns = ck.array(content, "columns", "content.columns")
    for index, column in enumerate(columns or []):
        path = f"content.columns[{index}]"
        if not isinstance(column, dict):
            ck.error(path, "an object {id, title, cards}", column, "wrong-type")
            continue
        ck.string(column, "id", f"{path}.id", required=True)
        ck.string(column, "title", f"{path}.title")
        cards = ck.array(column, "cards", f"{path}.cards")
        for card_index, card in enumerate(cards or []):
            card_path = f"{path}.cards[{card_index}]"
            if not isinstance(card, dict):
                ck.error(card_path, "an object {id, title, ...}", card, "wrong-type")
                continue
            ck.string(card, "id", f"{card_path}.id", required=True)
            ck.string(card, "title", f"{card_path}.title")
            related = card.get("related", MISSING)
            if related is not MISSING and not (
                isinstance(related, list) and all(isinstance(r, str) for r in related)
            ):
                ck.error(f"{card_path}.related", "an array of document ids", related, "wrong-type")
            checklist = card.get("checklist", MISSING)
            if checklist is not MISSING and not (
                isinstance(checklist, list)
                and all(isinstance(i, dict) and isinstance(i.get("text", ""), str)
                        and isinstance(i.get("done", False), bool) for i in checklist)
            ):
                ck.error(f"{card_path}.checklist", "an array of {id, text, done}", checklist, "wrong-type")


def _check_canvas(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is not None:
        ck.array(content, "nodes", "content.nodes")
        ck.array(content, "edges", "content.edges")


def _check_attachment(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    ck.string(doc, "mimeType", "mimeType", required=True, non_empty=True)
    ck.string(doc, "permalink", "permalink")
    content = ck.mapping(doc, "content", "content", required=False)
    if content is not None:
        ck.string(content, "notes", "content.notes")
    attachments = doc.get("_attachments")
    if not isinstance(attachments, dict) or "blob" not in attachments:
        ck.warn("_attachments.blob", "the attachment's data", attachments.get("blob", MISSING)
                if isinstance(attachments, dict) else MISSING, "missing-blob",
                detail="an Attachment document without its blob")


def _check_user(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    ck.string(doc, "userName", "userName")
    ck.string(doc, "email", "email")


def _check_translation(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    """A Translation (docs/localization.md): ``locale`` (a BCP 47 tag), ``document`` (the id of
    the document translated), ``content.entries`` (``{line id: entry}``). A source document that
    is gone is a warning: its translations stay until someone deletes them."""
    locale = doc.get("locale", MISSING)
    problem = locale_problem(locale) if locale is not MISSING else "missing"
    if problem is not None:
        ck.error("locale", 'a BCP 47 language tag such as "fr" or "pt-BR"', locale,
                 "missing-field" if locale is MISSING else "wrong-type")
    if ck.string(doc, "document", "document", required=True, non_empty=True) and context.knows_documents \
            and context.get(doc["document"]) is None:
        ck.warn("document", "an existing document", doc["document"], "dangling-reference",
                detail=f"the translated document {doc['document']!r} does not exist (any more)")
    content = _content(ck, doc)
    if content is None:
        return
    entries = ck.mapping(content, "entries", "content.entries")
    for line_id, entry in (entries or {}).items():
        path = f"content.entries.{line_id}"
        if not isinstance(entry, dict):
            ck.error(path, 'an object {"text", "source", "review", "by", "at"}', entry, "wrong-type")
            continue
        ck.string(entry, "text", f"{path}.text", required=True)
        ck.string(entry, "source", f"{path}.source", required=True)
        ck.boolean(entry, "review", f"{path}.review")
        ck.string(entry, "by", f"{path}.by", nullable=True)
        at = entry.get("at")
        if at is not None and not is_iso_utc(at):
            ck.error(f"{path}.at", "an ISO-8601 UTC timestamp such as 2021-03-30T23:08:49.000Z", at, "bad-date")


# -- Dialogues ----------------------------------------------------------------------------


def _entry_id(ck: Checker, entry: Any, path: str, shape: str, seen: Container[str],
              unique: str, duplicate_code: str) -> str | None:
    """The id of a graph entry (node, handle) that is an object with a non-empty ``id`` not in
    ``seen``; otherwise the error is reported and the result is ``None``."""
    if not isinstance(entry, dict):
        ck.error(path, shape, entry, "wrong-type")
        return None
    entry_id = entry.get("id", MISSING)
    if not isinstance(entry_id, str) or not entry_id:
        ck.error(f"{path}.id", "a non-empty string", entry_id, "missing-field")
        return None
    if entry_id in seen:
        ck.error(f"{path}.id", unique, entry_id, duplicate_code)
        return None
    return entry_id


def check_dialogue_tree(ck: Checker, tree: Any, context: Context | None = None,
                        base: str = "content.tree") -> None:
    """Structure of a dialogue graph: the ten node types, handles, edges resolved by
    (node id, handle id). Malformed nodes and edges are errors; dangling edges are warnings."""
    context = context or Context()
    if not isinstance(tree, dict):
        ck.error(base, "an object {nodes, edges}", tree, "missing-field" if tree is MISSING else "wrong-type")
        return
    nodes = ck.array(tree, "nodes", f"{base}.nodes")
    edges = ck.array(tree, "edges", f"{base}.edges")
    handles_of: dict[str, dict[str, str]] = {}
    start_nodes = 0
    for index, node in enumerate(nodes or []):
        node_type = _check_dialogue_node(ck, node, f"{base}.nodes[{index}]", handles_of, context)
        if node_type == "start":
            start_nodes += 1
    if nodes and start_nodes != 1:
        ck.warn(f"{base}.nodes", "exactly one start node", start_nodes, "start-nodes",
                detail=f"a dialogue should have exactly one start node, this one has {start_nodes}")
    edge_ids: set[str] = set()
    for index, edge in enumerate(edges or []):
        _check_dialogue_edge(ck, edge, index, f"{base}.edges[{index}]", edge_ids, handles_of)


def _check_dialogue_node(ck: Checker, node: Any, path: str, handles_of: dict[str, dict[str, str]],
                         context: Context) -> Any:
    """One node of a dialogue graph; its handles go into ``handles_of`` (by handle id, their
    type). Returns its ``data.nodeType`` (``MISSING`` or anything else when it has none)."""
    node_id = _entry_id(ck, node, path, "an object {id, position, type, data}", handles_of,
                        "a node id unique in this dialogue", "duplicate-node")
    if node_id is None:
        return MISSING
    handles: dict[str, str] = {}
    handles_of[node_id] = handles
    position = node.get("position", MISSING)
    if position is not MISSING and not (
        isinstance(position, dict)
        and all(isinstance(position.get(a), int | float) and not isinstance(position.get(a), bool)
                for a in ("x", "y"))
    ):
        ck.error(f"{path}.position", "an object {x, y} of numbers", position, "wrong-type")
    data = ck.mapping(node, "data", f"{path}.data")
    if data is None:
        return MISSING
    node_type = data.get("nodeType", MISSING)
    if node_type not in NODE_TYPES:
        ck.error(f"{path}.data.nodeType", f"one of {', '.join(NODE_TYPES)}", node_type,
                 "missing-field" if node_type is MISSING else "unknown-node-type")
    ck.string(data, "label", f"{path}.data.label")
    ck.string(data, "notes", f"{path}.data.notes")
    if ck.string(data, "scriptId", f"{path}.data.scriptId", nullable=True):
        _check_node_script(ck, data.get("scriptId"), f"{path}.data.scriptId", node_id, context)
    node_handles = ck.array(data, "handles", f"{path}.data.handles")
    for h_index, handle in enumerate(node_handles or []):
        h_path = f"{path}.data.handles[{h_index}]"
        handle_id = _entry_id(ck, handle, h_path, "an object {id, type: source|target, label}", handles,
                              "a handle id unique within its node", "duplicate-handle")
        if handle_id is None:
            continue
        handle_type = handle.get("type", MISSING)
        if handle_type not in HANDLE_TYPES:
            ck.error(f"{h_path}.type", "source or target", handle_type,
                     "missing-field" if handle_type is MISSING else "wrong-type")
            continue
        handles[handle_id] = handle_type
        ck.string(handle, "label", f"{h_path}.label")
        ck.string(handle, "portScript", f"{h_path}.portScript")
    return node_type


def _check_node_script(ck: Checker, script_id: Any, path: str, node_id: str, context: Context) -> None:
    """A node's ``scriptId`` names an existing Script (a warning otherwise, when the documents
    are known)."""
    if not (isinstance(script_id, str) and script_id and context.knows_documents):
        return
    script = context.get(script_id)
    if script is None:
        ck.warn(path, "an existing Script", script_id, "dangling-script",
                detail=f"node {node_id!r} links script {script_id!r}, which does not exist")
    elif script.get("type") != "Script":
        ck.warn(path, "the id of a Script", script_id, "dangling-script",
                detail=f"node {node_id!r} links {script_id!r}, a {script.get('type')}, not a Script")


def _check_dialogue_edge(ck: Checker, edge: Any, index: int, path: str, edge_ids: set[str],
                         handles_of: dict[str, dict[str, str]]) -> None:
    """One edge of a dialogue graph: its id unique (kept in ``edge_ids``), both ends a node of
    the graph and a handle of the right kind there."""
    if not isinstance(edge, dict):
        ck.error(path, "an object {id, source, sourceHandle, target, targetHandle}", edge, "wrong-type")
        return
    edge_id = edge.get("id", MISSING)
    if not isinstance(edge_id, str) or not edge_id:
        ck.error(f"{path}.id", "a non-empty string", edge_id, "missing-field")
    elif edge_id in edge_ids:
        ck.error(f"{path}.id", "an edge id unique in this dialogue", edge_id, "duplicate-edge")
    else:
        edge_ids.add(edge_id)
    ok = True
    for key in ("source", "target"):
        ok = ck.string(edge, key, f"{path}.{key}", required=True, non_empty=True) and ok
    for key in ("sourceHandle", "targetHandle"):
        ok = ck.string(edge, key, f"{path}.{key}", nullable=True) and ok
    if not ok:
        return
    for end, wanted in (("source", "source"), ("target", "target")):
        node_id = edge[end]
        handle_id = edge.get(f"{end}Handle")
        label = f"edge {edge.get('id', index)!r}"
        if node_id not in handles_of:
            ck.warn(f"{path}.{end}", "the id of a node of this dialogue", node_id, "dangling-edge",
                    detail=f"{label}: {end} node {node_id!r} does not exist")
            continue
        if handle_id is None:
            continue
        handle_type = handles_of[node_id].get(handle_id)
        if handle_type is None:
            ck.warn(f"{path}.{end}Handle", f"a handle of node {node_id!r}", handle_id, "dangling-edge",
                    detail=f"{label}: node {node_id!r} has no handle {handle_id!r}")
        elif handle_type != wanted:
            ck.warn(f"{path}.{end}Handle", f"a {wanted} handle", handle_id, "dangling-edge",
                    detail=f"{label}: handle {handle_id!r} of node {node_id!r} is a {handle_type} "
                           f"handle, not a {wanted} handle")


def _check_dialogue(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is not None:
        check_dialogue_tree(ck, content.get("tree", MISSING), context)


# -- Scenes --------------------------------------------------------------------------------


def _check_scene(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is None:
        return
    items = ck.array(content, "items", "content.items")
    for index, item in enumerate(items or []):
        path = f"content.items[{index}]"
        if not isinstance(item, dict):
            ck.error(path, "an object {docId, docType, startLine, startNode}", item, "wrong-type")
            continue
        ok = ck.string(item, "docId", f"{path}.docId", required=True, non_empty=True)
        doc_type = item.get("docType", MISSING)
        if doc_type not in SCENE_ITEM_TYPES:
            ck.error(f"{path}.docType", "Script or Dialogue", doc_type,
                     "missing-field" if doc_type is MISSING else "wrong-type")
            ok = False
        start_line = item.get("startLine", MISSING)
        if start_line is not MISSING and start_line is not None and (
            isinstance(start_line, bool) or not isinstance(start_line, int) or start_line < 0
        ):
            ck.error(f"{path}.startLine", "a line number (0 or more) or null", start_line, "wrong-type")
        ck.string(item, "startNode", f"{path}.startNode", nullable=True)
        if not ok or not context.knows_documents:
            continue
        target = context.get(item["docId"])
        if target is None:
            ck.warn(f"{path}.docId", f"an existing {doc_type}", item["docId"], "dangling-scene-item",
                    detail=f"scene item {index} points at {item['docId']!r}, which does not exist")
            continue
        if target.get("type") != doc_type:
            ck.warn(f"{path}.docType", f"the type of {item['docId']!r} ({target.get('type')})", doc_type,
                    "scene-item-type",
                    detail=f"scene item {index} says {doc_type} but {item['docId']!r} is a {target.get('type')}")
            continue
        start_node = item.get("startNode")
        if doc_type == "Dialogue" and isinstance(start_node, str) and start_node:
            tree = (target.get("content") or {}).get("tree") or {}
            node_ids = {n.get("id") for n in tree.get("nodes") or [] if isinstance(n, dict)}
            if start_node not in node_ids:
                ck.warn(f"{path}.startNode", "a node of the dialogue", start_node, "dangling-scene-item",
                        detail=f"scene item {index}: dialogue {item['docId']!r} has no node {start_node!r}")
        if doc_type == "Script" and isinstance(start_line, int) and not isinstance(start_line, bool):
            script = (target.get("content") or {}).get("script")
            if isinstance(script, str) and start_line > max(1, len(script.splitlines())):
                ck.warn(f"{path}.startLine", "a line of the script", start_line, "dangling-scene-item",
                        detail=f"scene item {index}: script {item['docId']!r} has "
                               f"{len(script.splitlines())} lines, not {start_line}")


# -- Variables, Scenarios, Maps: the typed-content hooks --------------------------------------



def _from_content_problem(ck: Checker, problem: Any, base: str, severity: str) -> None:
    path = getattr(problem, "path", "") or ""
    field_path = f"{base}.{path}" if path else base
    code = getattr(problem, "code", "content")
    line, column = getattr(problem, "line", None), getattr(problem, "column", None)
    where = ""
    if line is not None:
        where = f"line {line}" + (f", column {column}" if column else "") + ": "
    who = f"document {ck.doc_id!r}" if ck.doc_id else "document"
    message = getattr(problem, "message", str(problem))
    ck.problems.append(
        Problem(
            field=field_path,
            expected="valid content",
            message=f"{who}: {field_path}: {where}{message}",
            severity=severity,
            code=code,
            doc_id=ck.doc_id,
            line=line,
            column=column,
        )
    )


def _typed_source(ck: Checker, doc: dict[str, Any], key: str) -> Any:
    """Checks the text fields of a typed-source document (Variable, Scenario); the content
    module when ``content.<key>`` is text it can go on to parse, else ``None``."""
    _editor_language(ck, doc)
    content = _content(ck, doc)
    if content is None:
        return None
    _text_fields(ck, content, key, optional=("json",))
    module = content_module()
    if module is None or not isinstance(content.get(key), str):
        return None
    return module


def _parse_error(ck: Checker, module: Any, exc: Any, base: str) -> None:
    """A source that does not parse: a warning (the text is kept, the writer may still be typing)."""
    _from_content_problem(ck, module.content_problem("parse-error", exc.message, "", exc.line, exc.column),
                          base, WARNING)


def _check_variable(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    module = _typed_source(ck, doc, "variables")
    if module is None:
        return
    try:
        state = parsed_source(module, doc, "variables")
    except module.ContentError as exc:
        # The text is kept (the writer may still be typing); the problem is reported.
        _parse_error(ck, module, exc, "content.variables")
        return
    if not context.knows_documents:
        return
    owner = context.variable_sid_owner(state["_sid"], exclude=doc.get("_id"))
    if owner is not None:
        ck.error("content.variables", f"a _sid not used by another Variable document "
                 f"({owner!r} already uses {state['_sid']!r})", state["_sid"],
                 "duplicate-sid",
                 detail=f"_sid {state['_sid']!r} is already used by Variable document "
                        f"{owner!r}; two variable documents cannot share a _sid")


def _check_scenario(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    module = _typed_source(ck, doc, "scenario")
    if module is None:
        return
    if not context.knows_documents:
        try:
            module.parse_scenario_doc(doc)
        except module.ContentError as exc:
            _parse_error(ck, module, exc, "content.scenario")
        return
    states = context.variable_states()
    # module.validate_scenario, with the parse shared with the index (see parsed_source).
    try:
        diff = parsed_source(module, doc, "scenario")
    except module.ContentError as exc:
        problems = [module.content_problem("parse-error", exc.message, "", exc.line, exc.column, doc.get("_id"))]
    else:
        problems = module.check_scenario_diff(diff, states, module.scenario_source(doc), doc.get("_id"))[1]
    for problem in problems:
        _from_content_problem(ck, problem, "content.scenario", WARNING)


def _check_map(ck: Checker, doc: dict[str, Any], context: Context) -> None:
    content = _content(ck, doc)
    if content is None:
        return
    module = content_module()
    if module is None:
        for key in ("width", "height"):
            value = content.get(key, MISSING)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                ck.error(f"content.{key}", "a whole number of 1 or more", value, "bad-dimension")
        return
    # Map content is written by the map editor, not typed by hand: every problem is an error.
    for problem in module.validate_map(doc):
        _from_content_problem(ck, problem, "content", ERROR)


_TYPE_CHECKS: dict[str, Callable[[Checker, dict[str, Any], Context], None]] = {
    "Script": _check_script,
    FOLDER_TYPE: _check_folder,
    "Gdd": _check_gdd,
    "Dialogue": _check_dialogue,
    "Actor": _check_actor,
    "Quest": _check_quest,
    "Item": _check_item,
    "Misc": _check_misc,
    "Grid": _check_grid,
    "Kanban": _check_kanban,
    "Canvas": _check_canvas,
    "Variable": _check_variable,
    "Scenario": _check_scenario,
    "Scene": _check_scene,
    "Map": _check_map,
    ATTACHMENT_TYPE: _check_attachment,
    USER_TYPE: _check_user,
    TRANSLATION_TYPE: _check_translation,
}


def check_dialogue(doc: dict[str, Any], context: Context | None = None) -> list[Problem]:
    """Problems of a Dialogue document's graph only (see :func:`check_dialogue_tree`)."""
    ck = Checker(doc.get("_id"))
    content = doc.get("content")
    check_dialogue_tree(ck, content.get("tree", MISSING) if isinstance(content, dict) else MISSING,
                        context or Context())
    return ck.problems
