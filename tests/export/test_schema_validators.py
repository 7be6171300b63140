"""The schema export compiles, and its export validates, under both Python ``jsonschema`` and
ajv 8 (draft 2020-12 build, strict mode off, ajv-formats): for the edge projects (empty, no
variables, no scenarios, nothing that parses) and a generated project using every collection.
The Drafft samples are checked in ``test_fixture_projects.py``."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.export.schema_export import build_schema
from storyloom.project.collections import COLLECTIONS, EXPORT_NAMES, SETTINGS_ID
from storyloom.project.documents import permalink
from storyloom.project.manager import Project, ProjectManager
from tests.export import validators
from tests.export.helpers import MemoryProject, doc, scenario, settings_doc, variable

_EDGE_PROJECTS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "empty": lambda: [],
    "settings only": lambda: [settings_doc()],
    "no variables": lambda: [
        settings_doc(),
        scenario("s1", "hero: {\n  hp: 3\n}\n"),
        doc("Actor", "a1", content={"bio": "", "properties": "", "expressions": [{"name": "x", "_id": "gone"}]}),
        doc("Item", "i1", content={"item": "a: 1"}),
    ],
    "no scenarios": lambda: [settings_doc(), variable("v1", "_sid: hero\nhp: 10\n")],
    "nothing parses": lambda: [
        settings_doc(),
        variable("v1", "_sid: [broken\n"),
        scenario("s1", "hero: {\n  hp: [\n}\n"),
        doc("Map", "m1", content={"width": 0, "height": 2}),
    ],
    "folders only": lambda: [
        settings_doc(),
        *(doc("Folder", f"f-{c.app_name}", collection=c.app_name) for c in COLLECTIONS if c.app_name != SETTINGS_ID),
    ],
}
_SELECTIONS = [None, "Variables", "Scenarios", "Variables,Scenarios", "Actors", "GDD,Actors", "Maps", "Items"]


@pytest.mark.parametrize("selection", _SELECTIONS, ids=lambda s: s or "default")
@pytest.mark.parametrize("case", list(_EDGE_PROJECTS))
@pytest.mark.slow
def test_edge_projects_compile_and_validate_under_both_validators(case: str, selection: str | None) -> None:
    project = MemoryProject(_EDGE_PROJECTS[case]())
    try:
        export = json.loads(dumps_export(build_game_export(project, selection, exported_by="ann")))
        schema = build_schema(project, selection)
    finally:
        project.close()
    validators.check_schema(schema)
    assert validators.errors(schema, export) == set()


def test_no_variables_means_no_variable_validates() -> None:
    """Without a parsed variable, the schema still compiles and still rejects a typed state."""
    project = MemoryProject([settings_doc(), doc("Folder", "vf", collection="Variable")])
    export = json.loads(dumps_export(build_game_export(project, "Variables")))
    schema = build_schema(project, "Variables")
    validators.check_schema(schema)
    assert validators.errors(schema, export) == set()
    export["variables"].append(
        {"_id": "v9", "collection": "Variable", "type": "Variable", "children": [], "path": "v9",
         "content": {"variables": {"_sid": "ghost", "hp": 1}}}
    )
    assert validators.errors(schema, export) == {(("variables", 1, "content", "variables", "_sid"), "not")}


# -- a generated project that uses every collection ---------------------------------------------

_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n generated").decode()


def _fill(project: Project) -> dict[str, str]:
    """One folder and one document with real content in every collection, through the editing
    service (the gate every write passes); returns the ids that tests look up."""
    ed = project.editor
    ids: dict[str, str] = {}
    ids["image"] = ed.create(
        "Attachment",
        "hero_expression_default",
        mimeType="image/png",
        content={"notes": "drawn by Ann"},
        _attachments={"blob": {"content_type": "image/png", "data": _PNG}},
    ).id
    ids["unused image"] = ed.create(
        "Attachment", "unused", mimeType="image/png", _attachments={"blob": {"content_type": "image/png", "data": _PNG}}
    ).id
    folders = {c.app_name: ed.create("Folder", f"{c.export_name} folder", collection=c.app_name).id
               for c in COLLECTIONS if c.app_name != SETTINGS_ID}
    variables = "_sid: hero\nhp: 10\nname: Ann\nspeed: 1.5\nalive: true\ninventory:\n  - key\nstats:\n  str: 3\n"
    contents: dict[str, dict[str, Any]] = {
        "Gdd": {"gdd": f"# Hero\n\n![The hero]({permalink(ids['image'])})\n"},
        "Variable": {"variables": variables},
        "Script": {
            "script": "[#t1]::Hero:: I have ${variables.hero.hp} hp. [happy]\n@if variables.hero.hp > 3\n"
            "@set variables.hero.hp += 1\n@else\n// tired\n@endif\n<PlaySound(\"bell\", 2)>\n"
        },
        "Dialogue": {},
        "Actor": {
            "bio": "The hero.",
            "properties": "age: 30\ntags: [brave]\n",
            "expressions": [{"name": "default", "permalink": permalink(ids["image"]), "_id": ids["image"]}],
        },
        "Quest": {"properties": "reward: 10\n", "conditions": "level: 2\n"},
        "Item": {"item": "weight: 3\ntags: [a, b]\n"},
        "Scenario": {"scenario": "hero: {\n  hp: 3\n  name: Bob\n}\n"},
        "Misc": {"properties": "a: 1\n"},
        "Grid": {
            "columns": [{"id": c, "title": c, "type": "text", "name": c, "width": 100} for c in ("id", "en")],
            "data": [["greeting", "Hello"]],
        },
        "Kanban": {"columns": [{"id": "todo", "title": "To do", "cards": [{"id": "c1", "title": "Write"}]}]},
        "Canvas": {"nodes": [{"id": "n1", "text": "Idea", "x": 0, "y": 0}], "edges": []},
        "Map": {
            "width": 4,
            "height": 3,
            "cells": {"0,0": {"type": "floor"}, "3,2": {"type": "wall"}},
            "edges": {"0,0:N": {"type": "door", "locked": True}},
            "markers": {"spawn": {"x": 1, "y": 2}},
            "editor": {"zoom": 2},
        },
    }
    for c in COLLECTIONS:
        if c.app_name == SETTINGS_ID:
            continue
        content = contents.get(c.app_name, {})
        if c.app_name == "Scene":
            content = {"items": [{"docId": ids["Script"], "docType": "Script", "startLine": 1, "startNode": None}]}
        ids[c.app_name] = ed.create(c.app_name, f"{c.export_name} one", parent=folders[c.app_name], content=content).id
    ed.update_settings(
        {
            "exportMappings": {
                "speechExportMapping": {"text": '%actor.Say("%speech", "%expression", "%tag")'},
                "commandSpeechExportMapping": {"text": "%command(%params(, ))"},
                "interpolateVariablesOnExport": True,
            }
        }
    )
    return ids


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict, dict, dict[str, str]]]:
    home = tmp_path_factory.mktemp("storyloom-generated")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STORYLOOM_HOME", str(home))
        project = ProjectManager().create("Every collection")
        try:
            ids = _fill(project)
            selection = ",".join(EXPORT_NAMES)
            export = json.loads(dumps_export(build_game_export(project, selection, exported_by="ann")))
            schema = build_schema(project, selection)
        finally:
            project.close()
    yield export, schema, ids


@pytest.mark.slow
def test_generated_project_with_every_collection_validates_under_both(
    generated: tuple[dict, dict, dict[str, str]],
) -> None:
    export, schema, ids = generated
    validators.check_schema(schema)
    assert validators.errors(schema, export) == set()
    assert set(export) == {c.export_key for c in COLLECTIONS} | {"_meta"}
    for c in COLLECTIONS:
        assert export[c.export_key], c.export_key  # every collection has documents
    assert [entry["_id"] for entry in export["_meta"]["attachments"]] == [ids["image"]]
    [actor] = [d for d in export["actors"] if d["_id"] == ids["Actor"]]
    assert actor["content"]["expressions"][0]["attachmentId"] == ids["image"]
    assert {"Variable_hero", "ScenarioOverride_hero", "Map_4x3", "ScriptLine"} <= set(schema["$defs"])


def _where(export: dict, key: str, doc_id: str) -> int:
    return next(i for i, d in enumerate(export[key]) if d["_id"] == doc_id)


def test_generated_project_hand_edits_are_rejected_by_both(generated: tuple[dict, dict, dict[str, str]]) -> None:
    export, schema, ids = generated
    a = _where(export, "actors", ids["Actor"])
    s = _where(export, "scenarios", ids["Scenario"])
    v = _where(export, "variables", ids["Variable"])
    m = _where(export, "maps", ids["Map"])
    edits: list[tuple[Callable[[dict], Any], tuple[Any, ...], str]] = [
        (
            lambda e: e["actors"][a]["content"]["expressions"][0].update(attachmentId=ids["unused image"]),
            ("actors", a, "content", "expressions", 0, "attachmentId"),
            "enum",
        ),
        (
            lambda e: e["_meta"]["attachments"][0].update(_id=ids["unused image"]),
            ("_meta", "attachments", 0, "_id"),
            "enum",
        ),
        (lambda e: e["_meta"].update(exportedAt="yesterday"), ("_meta", "exportedAt"), "format"),
        (
            lambda e: e["scenarios"][s]["content"]["scenario"]["hero"].update(hp="many"),
            ("scenarios", s, "content", "scenario", "hero", "hp"),
            "type",
        ),
        (
            lambda e: e["variables"][v]["content"]["variables"]["stats"].update(str=1.5),
            ("variables", v, "content", "variables", "stats", "str"),
            "type",
        ),
        (
            lambda e: e["maps"][m]["content"]["cells"].update({"4,0": {"type": "floor"}}),
            ("maps", m, "content", "cells"),
            "pattern",
        ),
        (lambda e: e.update(attachments=[]), (), "additionalProperties"),
    ]
    for edit, path, keyword in edits:
        broken = copy.deepcopy(export)
        edit(broken)
        assert validators.errors(schema, broken) == {(path, keyword)}, (path, keyword)
