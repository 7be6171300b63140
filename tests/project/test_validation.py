from __future__ import annotations

import copy
from typing import Any

import pytest

from storyloom.project.documents import NODE_TYPES, new_document
from storyloom.project.settings import default_settings
from storyloom.project.validation import (
    MappingContext,
    Problem,
    ValidationError,
    check_dialogue,
    check_document,
    validate_document,
)


def doc_of(doc_type: str, **fields: Any) -> dict[str, Any]:
    collection = fields.pop("collection", None)
    doc = new_document(doc_type, fields.pop("name", "Doc"), collection=collection, doc_id=fields.pop("_id", None))
    if doc_type != "Attachment" and doc_type != "User":
        doc["sortKey"] = "V"
    content = fields.pop("content", None)
    if content is not None:
        doc["content"] = content
    doc.update(fields)
    return doc


def errors(doc: Any, context: MappingContext | None = None) -> list[Problem]:
    return [p for p in check_document(doc, context) if p.is_error]


def warnings(doc: Any, context: MappingContext | None = None) -> list[Problem]:
    return [p for p in check_document(doc, context) if not p.is_error]


def the_error(doc: Any, context: MappingContext | None = None) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        validate_document(doc, context)
    return info.value


@pytest.mark.parametrize(
    "doc_type",
    ["Gdd", "Script", "Dialogue", "Actor", "Quest", "Item", "Variable", "Scenario", "Scene", "Misc", "Grid",
     "Kanban", "Canvas", "Map"],
)
def test_new_documents_of_every_collection_are_valid(doc_type: str) -> None:
    doc = doc_of(doc_type)
    if doc_type == "Variable":
        doc["content"]["variables"] = "_sid: player\ncourage: 5"
    assert errors(doc) == []


def test_folders_attachments_users_and_settings_are_valid() -> None:
    assert errors(doc_of("Folder", collection="Script")) == []
    attachment = doc_of("Attachment", mimeType="image/png",
                        _attachments={"blob": {"content_type": "image/png", "data": "aGVsbG8="}})
    assert errors(attachment) == []
    assert errors(doc_of("User", userName="ana", email="a@b.c")) == []
    assert errors(default_settings("P")) == []


def test_error_names_field_and_expectation() -> None:
    doc = doc_of("Script", content={"script": 42})
    exc = the_error(doc)
    assert exc.field == "content.script"
    assert exc.expected == "a string"
    assert "content.script" in str(exc) and "expected a string" in str(exc) and "42" in str(exc)
    assert exc.doc_id == doc["_id"]


@pytest.mark.parametrize(
    ("mutate", "field", "expected_part"),
    [
        (lambda d: d.pop("type"), "type", "one of"),
        (lambda d: d.update(type="Spaceship"), "type", "one of"),
        (lambda d: d.update(collection="Dialogue"), "collection", "'Script'"),
        (lambda d: d.pop("name"), "name", "a string"),
        (lambda d: d.update(parent=7), "parent", "null (top level) or the id of a folder"),
        (lambda d: d.pop("parent"), "parent", "null (top level)"),
        (lambda d: d.update(sortKey="V0"), "sortKey", "a sort key"),
        (lambda d: d.pop("sortKey"), "sortKey", "a sort key"),
        (lambda d: d.update(children=["x"]), "children", "no stored 'children'"),
        (lambda d: d.update(path="a.b"), "path", "no stored 'path'"),
        (lambda d: d.update(modified="Tue Mar 30 2021 20:08:49 GMT-0300"), "modified", "ISO-8601 UTC"),
        (lambda d: d.update(locked="yes"), "locked", "true or false"),
        (lambda d: d.update(content="text"), "content", "an object"),
        (lambda d: d.update(_id=""), "_id", "a non-empty string"),
        (lambda d: d.update(_id="_oops"), "_id", "not starting with '_'"),
        (lambda d: d.update(_attachments={"a": {"data": "aGk="}}), "_attachments.a.content_type", "MIME"),
        (lambda d: d.update(_attachments={"a": {"content_type": "x/y", "data": "!!"}}), "_attachments.a.data",
         "base64"),
    ],
)
def test_common_field_errors(mutate: Any, field: str, expected_part: str) -> None:
    doc = doc_of("Script")
    mutate(doc)
    exc = the_error(doc)
    fields = [p.field for p in exc.problems]
    assert field in fields, exc.problems
    problem = next(p for p in exc.problems if p.field == field)
    assert expected_part in problem.expected
    assert field in problem.message


@pytest.mark.parametrize(
    ("doc_type", "content", "field"),
    [
        ("Gdd", {"gdd": None}, "content.gdd"),
        ("Actor", {"bio": "", "properties": "", "expressions": "none"}, "content.expressions"),
        ("Actor", {"bio": "", "properties": "", "expressions": [{"permalink": "x"}]}, "content.expressions[0].name"),
        ("Quest", {"properties": ""}, "content.conditions"),
        ("Item", {}, "content.item"),
        ("Misc", {"properties": 1}, "content.properties"),
        ("Grid", {"columns": [], "data": ["row"]}, "content.data[0]"),
        ("Kanban", {"columns": [{"title": "x", "cards": []}]}, "content.columns[0].id"),
        ("Kanban", {"columns": [{"id": "c", "cards": [{"id": "k", "related": "x"}]}]},
         "content.columns[0].cards[0].related"),
        ("Canvas", {"nodes": []}, "content.edges"),
        ("Variable", {"variables": 3}, "content.variables"),
        ("Scenario", {}, "content.scenario"),
        ("Scene", {"items": {}}, "content.items"),
        ("Dialogue", {}, "content.tree"),
    ],
)
def test_content_shape_errors(doc_type: str, content: dict[str, Any], field: str) -> None:
    exc = the_error(doc_of(doc_type, content=content))
    assert field in [p.field for p in exc.problems]


def test_editor_language_and_unknown_modes() -> None:
    exc = the_error(doc_of("Item", editorLanguage="xml"))
    assert exc.field == "editorLanguage" and "hjson" in exc.expected
    # An unknown script editor mode is only a warning (highlighting falls back to text).
    assert [p.code for p in warnings(doc_of("Script", editorMode="cobol"))] == ["unknown-editor-mode"]


def test_folder_needs_a_tree_collection() -> None:
    folder = doc_of("Folder", collection="Script")
    folder["collection"] = "ProjectSettings"
    assert the_error(folder).field == "collection"


def test_parent_references() -> None:
    folder = doc_of("Folder", collection="Script", _id="f1")
    dialogue_folder = doc_of("Folder", collection="Dialogue", _id="f2")
    script = doc_of("Script", _id="s1", parent="f1")
    context = MappingContext([folder, dialogue_folder, script])
    assert check_document(script, context) == []
    # A missing parent is reported, not refused: documents arrive in any order.
    orphan = doc_of("Script", parent="nowhere")
    assert [p.code for p in warnings(orphan, context)] == ["dangling-parent"]
    assert errors(orphan, context) == []
    # A parent that is not a folder, or a folder of another collection, is refused.
    assert the_error(doc_of("Script", parent="s1"), context).problem_code == "parent-not-folder"
    assert the_error(doc_of("Script", parent="f2"), context).problem_code == "parent-collection"
    assert the_error(doc_of("Script", _id="me", parent="me"), context).field == "parent"


def test_settings_errors_name_the_field() -> None:
    settings = default_settings("P")
    cases = [
        ("projectId", "not-a-uuid", "a UUID"),
        ("projectName", "", "a non-empty string"),
        ("defaultEditorLanguage", "xml", "one of json"),
        ("exportSections", ["Scripts", "Nope"], "export names among"),
        ("exportMappings", [], "an object"),
        ("screenPlay", {"locationCommand": "CutTo", "fadeInCommand": 1, "fadeOutCommand": "x"}, "a command name"),
    ]
    for field, value, expected in cases:
        broken = copy.deepcopy(settings)
        broken[field] = value
        exc = the_error(broken)
        assert exc.field.startswith(field) and expected in exc.expected, (field, exc)
    broken = copy.deepcopy(settings)
    broken["exportMappings"]["speechExportMapping"]["lua"] = 3
    assert the_error(broken).field == "exportMappings.speechExportMapping"


# -- dialogues ------------------------------------------------------------------------------


def node(node_id: str, node_type: str, *handles: tuple[str, str], script: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"label": node_id, "nodeType": node_type,
                            "handles": [{"id": h, "type": t, "label": ""} for h, t in handles]}
    if script:
        data["scriptId"] = script
    return {"id": node_id, "position": {"x": 0, "y": 0}, "type": "base", "data": data}


def edge(edge_id: str, source: str, source_handle: str, target: str, target_handle: str) -> dict[str, Any]:
    return {"id": edge_id, "source": source, "sourceHandle": source_handle, "target": target,
            "targetHandle": target_handle}


def dialogue(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    return doc_of("Dialogue", content={"tree": {"nodes": nodes, "edges": edges}})


def test_every_node_type_is_accepted() -> None:
    nodes = [node("start", "start", ("out", "source"))]
    nodes += [node(f"n-{t}", t, ("in", "target"), ("out", "source")) for t in NODE_TYPES if t != "start"]
    # Handle ids repeat across nodes: edges resolve by (node id, handle id).
    edges = [edge("e0", "start", "out", "n-script", "in"), edge("e1", "n-script", "out", "n-end", "in")]
    doc = dialogue(nodes, edges)
    assert check_document(doc) == []
    assert len(NODE_TYPES) == 10


def test_unknown_node_type_and_malformed_handles_are_errors() -> None:
    doc = dialogue([node("a", "teleport", ("h", "source"))], [])
    exc = the_error(doc)
    assert exc.field == "content.tree.nodes[0].data.nodeType"
    assert "start" in exc.expected and "return" in exc.expected
    doc = dialogue([node("a", "start", ("h", "sideways"))], [])
    assert the_error(doc).field == "content.tree.nodes[0].data.handles[0].type"
    doc = dialogue([node("a", "start", ("h", "source"), ("h", "target"))], [])
    assert the_error(doc).problem_code == "duplicate-handle"
    doc = dialogue([node("a", "start"), node("a", "end")], [])
    assert the_error(doc).problem_code == "duplicate-node"
    doc = dialogue([node("a", "start", ("o", "source"))], [{"id": "e", "source": "a", "sourceHandle": "o"}])
    assert the_error(doc).field == "content.tree.edges[0].target"


def test_dangling_edges_are_reported_not_refused() -> None:
    nodes = [node("a", "start", ("out", "source")), node("b", "end", ("in", "target"))]
    edges = [
        edge("ok", "a", "out", "b", "in"),
        edge("no-node", "a", "out", "ghost", "in"),
        edge("no-handle", "a", "nope", "b", "in"),
        edge("wrong-way", "b", "in", "a", "out"),
    ]
    doc = dialogue(nodes, edges)
    assert errors(doc) == []
    found = {(p.field, p.code) for p in warnings(doc)}
    assert ("content.tree.edges[1].target", "dangling-edge") in found
    assert ("content.tree.edges[2].sourceHandle", "dangling-edge") in found
    assert ("content.tree.edges[3].sourceHandle", "dangling-edge") in found
    assert ("content.tree.edges[3].targetHandle", "dangling-edge") in found
    assert not any(p.field.startswith("content.tree.edges[0]") for p in warnings(doc))
    assert validate_document(doc)  # returns the warnings
    assert check_dialogue(doc) == check_document(doc)


def test_dialogue_script_links_and_start_nodes() -> None:
    script = doc_of("Script", _id="script-1")
    item = doc_of("Item", _id="item-1")
    doc = dialogue([node("a", "start", script="script-1"), node("b", "script", script="item-1"),
                    node("c", "end", script="missing")], [])
    found = [p.code for p in warnings(doc, MappingContext([script, item]))]
    assert found.count("dangling-script") == 2
    doc = dialogue([node("a", "end")], [])
    assert [p.code for p in warnings(doc)] == ["start-nodes"]


# -- scenes -----------------------------------------------------------------------------------


def test_scene_items() -> None:
    script = doc_of("Script", _id="s", content={"script": "one\ntwo\nthree"})
    talk = dialogue([node("n1", "start")], [])
    talk["_id"] = "d"
    context = MappingContext([script, talk])
    scene = doc_of("Scene", content={"items": [
        {"docId": "s", "docType": "Script", "startLine": 2, "startNode": None},
        {"docId": "d", "docType": "Dialogue", "startLine": None, "startNode": "n1"},
    ]})
    assert check_document(scene, context) == []
    bad = doc_of("Scene", content={"items": [{"docId": "s", "docType": "Actor"}]})
    assert the_error(bad, context).field == "content.items[0].docType"
    bad = doc_of("Scene", content={"items": [{"docId": "s", "docType": "Script", "startLine": -1}]})
    assert the_error(bad, context).field == "content.items[0].startLine"
    dangling = doc_of("Scene", content={"items": [
        {"docId": "gone", "docType": "Script"},
        {"docId": "s", "docType": "Dialogue"},
        {"docId": "d", "docType": "Dialogue", "startNode": "n9"},
        {"docId": "s", "docType": "Script", "startLine": 40},
    ]})
    found = [(p.field, p.code) for p in warnings(dangling, context)]
    assert found == [
        ("content.items[0].docId", "dangling-scene-item"),
        ("content.items[1].docType", "scene-item-type"),
        ("content.items[2].startNode", "dangling-scene-item"),
        ("content.items[3].startLine", "dangling-scene-item"),
    ]
    assert errors(dangling, context) == []


# -- typed content hooks ----------------------------------------------------------------------


def variable(doc_id: str, source: str) -> dict[str, Any]:
    return doc_of("Variable", _id=doc_id, editorLanguage="yaml", content={"variables": source, "json": ""})


def test_variable_parse_errors_are_warnings_with_line_and_column() -> None:
    doc = variable("v1", "_sid: player\ncourage: [1, 2\n")
    problems = warnings(doc)
    assert problems and problems[0].code == "parse-error"
    assert problems[0].field == "content.variables"
    assert problems[0].line is not None and problems[0].column is not None
    assert errors(doc) == []


def test_duplicate_sid_is_an_error() -> None:
    first = variable("v1", "_sid: player\ncourage: 5")
    second = variable("v2", "_sid: player\nluck: 1")
    exc = the_error(second, MappingContext([first, second]))
    assert exc.problem_code == "duplicate-sid" and exc.field == "content.variables" and "v1" in str(exc)
    assert errors(variable("v3", "_sid: world"), MappingContext([first])) == []


def test_scenario_problems_are_warnings() -> None:
    player = variable("v1", "_sid: player\ncourage: 5\nname: Ana")
    scenario = doc_of("Scenario", content={"scenario": "player: {courage: \"high\", luck: 2}\nghost: {a: 1}"})
    found = {p.code for p in warnings(scenario, MappingContext([player]))}
    assert {"type-changed", "unknown-property", "unknown-state"} <= found
    assert errors(scenario, MappingContext([player])) == []
    good = doc_of("Scenario", content={"scenario": "player: {courage: 8}"})
    assert check_document(good, MappingContext([player])) == []


def test_map_problems_are_errors() -> None:
    good = doc_of("Map", content={"width": 4, "height": 3, "cells": {"0,0": {"type": "floor"}},
                                  "edges": {"1,1:S": {"type": "door"}}, "markers": {"spawn": {"x": 1, "y": 2}}})
    assert check_document(good) == []
    bad = doc_of("Map", content={"width": 4, "height": 3, "cells": {"9,9": {"type": "floor"}}, "edges": {},
                                 "markers": {}})
    exc = the_error(bad)
    assert exc.problem_code == "out-of-bounds" and exc.field.startswith("content.cells")
