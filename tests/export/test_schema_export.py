"""storyloom.export.schema_export: the JSON Schema of exactly the export, and what it rejects."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from storyloom.export.collections_filter import UnknownCollections
from storyloom.export.game_export import build_game_export, dumps_export, export_from_docs
from storyloom.export.schema_export import build_schema, int_range_pattern, schema_from_docs, sidecar_path
from tests.export import validators
from tests.export.helpers import GARDEN, MemoryProject, doc, fixture_docs, scenario, settings_doc, variable

# -- helpers ---------------------------------------------------------------------------------


def _pair(docs: list[dict], collections: Any = None, **settings: Any) -> tuple[dict, dict]:
    """``(export as JSON-decoded, schema)`` for the same documents and filter."""
    settings_value = settings_doc(**settings)
    export = export_from_docs(copy.deepcopy(docs), settings_value, collections)
    schema = schema_from_docs(copy.deepcopy(docs), settings_value, collections)
    validators.check_schema(schema)
    return json.loads(dumps_export(export)), schema


def _errors(schema: dict, instance: dict) -> set[tuple[tuple[Any, ...], str]]:
    """The errors as ``(path, keyword)``; the same under jsonschema and ajv."""
    return validators.errors(schema, instance)


@pytest.fixture(scope="module")
def garden() -> tuple[dict, dict]:
    project = MemoryProject(fixture_docs(GARDEN))
    export = json.loads(dumps_export(build_game_export(project, None, exported_by="ann")))
    schema = build_schema(project, None)
    validators.check_schema(schema)
    return export, schema


def _index(export: dict, key: str, predicate: Callable[[dict], bool]) -> int:
    return next(i for i, item in enumerate(export[key]) if predicate(item))


# -- structure -------------------------------------------------------------------------------


@pytest.mark.slow
def test_garden_schema_structure(garden: tuple[dict, dict]) -> None:
    export, schema = garden
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(export) and schema["required"][-1] == "_meta"
    assert set(schema["properties"]) == set(export)
    defs = schema["$defs"]
    assert {"BaseDocument", "Variable_player", "Variable_woman", "Variable_world", "ScenarioDiff"} <= set(defs)
    assert defs["Variable_player"]["properties"]["content"]["properties"]["variables"]["properties"]["courage"] == {
        "type": "integer"
    }
    assert defs["Variable_player"]["properties"]["content"]["properties"]["variables"]["properties"]["_sid"] == {
        "const": "player"
    }
    assert defs["ScenarioOverride_woman"]["properties"]["mood"] == {"type": "string"}
    assert defs["ScenarioOverride_woman"]["additionalProperties"] is False
    assert schema["properties"]["_meta"]["properties"]["collections"]["const"] == export["_meta"]["collections"]
    assert _errors(schema, export) == set()


def test_schema_follows_the_same_filter_and_default() -> None:
    docs = [doc("Item", "i1", content={"item": "a: 1"})]
    export, schema = _pair(docs, "Items,GDD")
    assert schema["required"] == ["gdds", "items", "_meta"]
    assert set(schema["properties"]) == {"gdds", "items", "_meta"}
    assert _errors(schema, export) == set()
    _, default_schema = _pair(docs, None, exportSections=["Items"])
    assert default_schema["required"] == ["items", "_meta"]
    with pytest.raises(UnknownCollections):
        schema_from_docs(docs, settings_doc(), "Items,Nope")
    # An export with another selection does not validate.
    other, _ = _pair(docs, "Items")
    assert ((), "required") in _errors(schema, other)


# -- hand-broken exports --------------------------------------------------------------------------


def test_scenario_override_of_the_wrong_type(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    i = _index(export, "scenarios", lambda d: d["name"] == "Courageous Explorer")
    export["scenarios"][i]["content"]["scenario"]["player"]["courage"] = "very"
    assert _errors(schema, export) == {(("scenarios", i, "content", "scenario", "player", "courage"), "type")}


def test_scenario_unknown_state_and_property(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    i = _index(export, "scenarios", lambda d: d["name"] == "Default State")
    diff = export["scenarios"][i]["content"]["scenario"]
    diff["dragon"] = {"anger": 3}
    diff["woman"]["age"] = 40
    assert _errors(schema, export) == {
        (("scenarios", i, "content", "scenario"), "additionalProperties"),
        (("scenarios", i, "content", "scenario", "woman"), "additionalProperties"),
    }


def test_variable_missing_a_property_or_of_another_type(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    i = _index(export, "variables", lambda d: d["content"]["variables"]["_sid"] == "player")
    state = export["variables"][i]["content"]["variables"]
    del state["gold"]
    state["courage"] = "high"
    state["memory_locket_found"] = 1
    assert _errors(schema, export) == {
        (("variables", i, "content", "variables"), "required"),
        (("variables", i, "content", "variables", "courage"), "type"),
        (("variables", i, "content", "variables", "memory_locket_found"), "type"),
    }


def test_variable_with_an_unknown_sid_or_property(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    i = _index(export, "variables", lambda d: d["content"]["variables"]["_sid"] == "world")
    export["variables"][i]["content"]["variables"]["moon"] = "full"
    j = _index(export, "variables", lambda d: d["content"]["variables"]["_sid"] == "woman")
    export["variables"][j]["content"]["variables"]["_sid"] = "ghost"
    assert _errors(schema, export) == {
        (("variables", i, "content", "variables"), "additionalProperties"),
        (("variables", j, "content", "variables", "_sid"), "enum"),
    }


def test_document_missing_its_id(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    del export["scripts"][0]["_id"]
    del export["gdds"][0]["_id"]
    errors = list(Draft202012Validator(schema).iter_errors(export))
    assert _errors(schema, export) == {
        (("scripts", 0), "required"),
        (("gdds", 0), "required"),
    }
    assert all(e.message == "'_id' is a required property" for e in errors)


def test_revision_and_lock_fields_are_rejected(garden: tuple[dict, dict]) -> None:
    export, schema = copy.deepcopy(garden)
    export["items"][0]["_rev"] = "1-abc"
    export["items"][1]["lockedBy"] = "ann"
    export["actors"][0]["_conflicts"] = []
    assert _errors(schema, export) == {
        (("items", 0, "_rev"), "not"),
        (("items", 1, "lockedBy"), "not"),
        (("actors", 0, "_conflicts"), "not"),
    }


def test_attachment_stub_with_data_is_rejected() -> None:
    actor = doc(
        "Actor",
        "a1",
        content={"bio": "", "expressions": [], "properties": ""},
        _attachments={"face.png": {"content_type": "image/png", "data": "iVBORw0KGgo="}},
    )
    project = MemoryProject([settings_doc(), actor])
    export = json.loads(dumps_export(build_game_export(project, "Actors")))
    schema = build_schema(project, "Actors")
    assert _errors(schema, export) == set()
    export["actors"][0]["_attachments"]["face.png"]["data"] = "iVBORw0KGgo="
    export["actors"][0]["_attachments"]["face.png"]["stub"] = False
    assert _errors(schema, export) == {
        (("actors", 0, "_attachments", "face.png", "data"), "not"),
        (("actors", 0, "_attachments", "face.png", "stub"), "const"),
    }


# -- typed collections ----------------------------------------------------------------------------


def test_variables_types_are_inferred_recursively() -> None:
    docs = [
        variable(
            "v1",
            "_sid: hero\nhp: 10\nspeed: 1.5\nname: Ann\nalive: true\nnote: null\n"
            "stats:\n  str: 3\n  tags: [a, b]\ninventory:\n  - name: key\n    qty: 1\n  - name: map\n",
        ),
        doc("Folder", "vf", collection="Variable"),
    ]
    export, schema = _pair(docs, "Variables")
    assert _errors(schema, export) == set()
    state_schema = schema["$defs"]["Variable_hero"]["properties"]["content"]["properties"]["variables"]
    assert state_schema["properties"]["stats"]["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert state_schema["properties"]["inventory"]["items"]["required"] == ["name"]
    assert state_schema["properties"]["note"] == {}
    i = _index(export, "variables", lambda d: d["_id"] == "v1")
    state = export["variables"][i]["content"]["variables"]
    state["stats"]["tags"].append(3)
    state["inventory"].append({"qty": 2})
    state["speed"] = 2  # an integer is a number
    state["note"] = {"anything": True}  # null default: any type
    assert _errors(schema, export) == {
        (("variables", i, "content", "variables", "stats", "tags", 2), "type"),
        (("variables", i, "content", "variables", "inventory", 2), "required"),
    }


def test_unparsed_variables_and_scenarios_are_described_as_text() -> None:
    docs = [
        variable("v1", "_sid: hero\nhp: 10\n"),
        variable("v2", "_sid: [broken\n"),
        scenario("s1", "hero: {\n  hp: 3\n}\n"),
        scenario("s2", "hero: {\n  hp: [\n}\n"),
    ]
    export, schema = _pair(docs, "Variables,Scenarios")
    assert _errors(schema, export) == set()
    assert isinstance(export["variables"][1]["content"]["variables"], str)
    # A parsed variable turned to text does not validate.
    export["variables"][0]["content"]["variables"] = "_sid: hero"
    export["scenarios"][0]["content"]["scenario"] = "hero: {}"
    assert _errors(schema, export) == {
        (("variables", 0, "content", "variables"), "type"),
        (("scenarios", 0, "content", "scenario"), "type"),
    }


def test_scenarios_without_variables_reject_every_override() -> None:
    export, schema = _pair([scenario("s1", "")], "Scenarios")
    assert _errors(schema, export) == set()
    export["scenarios"][0]["content"]["scenario"] = {"hero": {"hp": 1}}
    assert _errors(schema, export) == {(("scenarios", 0, "content", "scenario"), "additionalProperties")}


def _map_docs() -> list[dict]:
    return [
        doc(
            "Map",
            "m1",
            content={
                "width": 12,
                "height": 3,
                "cells": {"11,2": {"type": "floor"}, "0,0": {"type": "wall", "hp": 3}},
                "edges": {"11,2:E": {"type": "door"}},
                "markers": {"spawn": {"x": 0, "y": 2}},
                "editor": {"zoom": 2},
            },
        ),
        doc("Map", "m2", content={"width": 2, "height": 2, "cells": {"1,1": {"type": "floor"}}}),
        doc("Map", "m3", content={"width": 0, "height": 2}),
        doc("Folder", "mf", collection="Map"),
    ]


def test_maps_schema_is_bounded_per_map() -> None:
    export, schema = _pair(_map_docs(), "Maps")
    assert _errors(schema, export) == set()
    assert {"Map_12x3", "Map_2x2", "Map_withoutContent", "MapContent"} <= set(schema["$defs"])
    m1 = _index(export, "maps", lambda d: d["_id"] == "m1")
    m2 = _index(export, "maps", lambda d: d["_id"] == "m2")
    m3 = _index(export, "maps", lambda d: d["_id"] == "m3")
    export["maps"][m1]["content"]["cells"]["12,0"] = {"type": "floor"}  # x out of bounds
    export["maps"][m1]["content"]["markers"]["exit"] = {"x": 3, "y": 3}  # y out of bounds
    export["maps"][m1]["content"]["edges"]["1,1:S"] = {"kind": "wall"}  # no type
    export["maps"][m2]["content"]["cells"]["1,2"] = {"type": "floor"}
    export["maps"][m2]["content"]["editor"] = {"zoom": 1}
    export["maps"][m3]["content"] = {"width": 1, "height": 1, "cells": {}, "edges": {}, "markers": {}, "properties": {}}
    assert _errors(schema, export) == {
        (("maps", m1, "content", "cells"), "pattern"),  # propertyNames
        (("maps", m1, "content", "markers", "exit", "y"), "maximum"),
        (("maps", m1, "content", "edges", "1,1:S"), "required"),
        (("maps", m2, "content", "cells"), "pattern"),
        (("maps", m2, "content"), "additionalProperties"),
        (("maps", m3, "content"), "type"),
    }


@pytest.mark.parametrize("highest", [0, 1, 9, 10, 11, 19, 37, 99, 100, 101, 255, 999, 1000, 1234, 20000])
def test_int_range_pattern(highest: int) -> None:
    pattern = re.compile(f"^{int_range_pattern(highest)}$")
    limit = max(highest * 2 + 20, 120)
    for number in range(limit):
        assert bool(pattern.match(str(number))) == (number <= highest), number
    assert not pattern.match("01") and not pattern.match("-1") and not pattern.match("")


def test_the_example_of_docs_schema_md() -> None:
    docs = [
        variable("v-player", "_sid: player\ncourage: 5\nname: Ann\ninventory:\n  - key\n", name="player"),
        scenario("s-brave", "player: {\n  courage: 8\n}\n", name="Brave"),
        doc(
            "Map",
            "m-cellar",
            "Cellar",
            content={
                "width": 4,
                "height": 3,
                "cells": {"0,0": {"type": "floor"}},
                "edges": {"0,0:N": {"type": "door", "locked": True}},
                "markers": {"spawn": {"x": 1, "y": 2}},
                "editor": {"zoom": 2},
            },
        ),
    ]
    export, schema = _pair(docs, "Variables,Scenarios,Maps")
    assert _errors(schema, export) == set()
    assert schema["$defs"]["Map_4x3"]["properties"]["content"]["properties"]["cells"] == {
        "propertyNames": {"pattern": "^(?:[0-3]),(?:[0-2])$"}
    }
    edits: list[tuple[Callable[[dict], Any], tuple[Any, ...], str]] = [
        (
            lambda e: e["scenarios"][0]["content"]["scenario"]["player"].update(courage="very"),
            ("scenarios", 0, "content", "scenario", "player", "courage"),
            "type",
        ),
        (
            lambda e: e["scenarios"][0]["content"]["scenario"].update(dragon={"anger": 1}),
            ("scenarios", 0, "content", "scenario"),
            "additionalProperties",
        ),
        (
            lambda e: e["variables"][0]["content"]["variables"].pop("courage"),
            ("variables", 0, "content", "variables"),
            "required",
        ),
        (
            lambda e: e["variables"][0]["content"]["variables"].update(courage="high"),
            ("variables", 0, "content", "variables", "courage"),
            "type",
        ),
        (lambda e: e["maps"][0].pop("_id"), ("maps", 0), "required"),
        (lambda e: e["maps"][0].update(_rev="1-abc"), ("maps", 0, "_rev"), "not"),
        (
            lambda e: e["maps"][0]["content"]["cells"].update({"4,0": {"type": "x"}}),
            ("maps", 0, "content", "cells"),
            "pattern",
        ),
        (
            lambda e: e["maps"][0]["content"]["markers"]["spawn"].update(y=3),
            ("maps", 0, "content", "markers", "spawn", "y"),
            "maximum",
        ),
    ]
    for edit, path, keyword in edits:
        broken = copy.deepcopy(export)
        edit(broken)
        assert _errors(schema, broken) == {(path, keyword)}


def test_sidecar_path() -> None:
    assert sidecar_path("out/game.json") == "out/game.schema.json"
    assert sidecar_path("game.JSON") == "game.schema.json"
    assert sidecar_path("game") == "game.schema.json"


def test_attachments_expressions_legacy_fields_and_settings_in_the_schema() -> None:
    image = doc(
        "Attachment",
        "img-1",
        "face",
        collection="Attachment",
        mimeType="image/png",
        content={"notes": ""},
        _attachments={"blob": {"content_type": "image/png", "data": "iVBORw0KGgo="}},
    )
    actor = doc(
        "Actor",
        "a1",
        content={"bio": "", "properties": "", "expressions": [{"name": "default", "permalink": "drafft://image/img-1"}]},
    )
    dialogue = doc("Dialogue", "d1", content={"tree": {"nodes": [], "edges": []}}, graph={"cells": []})
    kanban = doc("Kanban", "k1", content={"columns": []}, data={"lanes": []})
    script = doc("Script", "s1", content={"script": "@set v.a.b = 1"})
    project = MemoryProject([settings_doc(smtpPassword="pw"), image, actor, dialogue, kanban, script])
    selection = "ProjectSettings,Actors,Dialogues,Kanban,Scripts"
    export = json.loads(dumps_export(build_game_export(project, selection)))
    schema = build_schema(project, selection)
    validators.check_schema(schema)
    assert _errors(schema, export) == set()
    assert schema["$defs"]["AttachmentStub"]["required"] == ["stub", "permalink", "url"]
    assert [a["_id"] for a in export["_meta"]["attachments"]] == ["img-1"]

    broken = copy.deepcopy(export)
    del broken["_meta"]["attachments"]
    assert _errors(schema, broken) == {(("_meta",), "required")}

    broken = copy.deepcopy(export)
    broken["attachments"] = broken["_meta"]["attachments"]  # not a top-level key (any more)
    assert _errors(schema, broken) == {((), "additionalProperties")}

    broken = copy.deepcopy(export)
    broken["_meta"]["attachments"][0]["_attachments"]["blob"]["data"] = "iVBORw0KGgo="
    del broken["_meta"]["attachments"][0]["_attachments"]["blob"]["url"]
    broken["actors"][0]["content"]["expressions"][0]["attachmentId"] = "img-404"
    broken["dialogues"][0]["graph"] = {"cells": []}
    broken["kanban"][0]["data"] = {"lanes": []}
    broken["projectSettings"][0]["smtpPassword"] = "pw"
    broken["projectSettings"][0]["remoteUrl"] = "https://couch"
    [set_line] = broken["scripts"][0]["content"]["lines"]
    set_line["expression"] = set_line.pop("value")
    assert _errors(schema, broken) == {
        (("_meta", "attachments", 0, "_attachments", "blob", "data"), "not"),
        (("_meta", "attachments", 0, "_attachments", "blob"), "required"),
        (("actors", 0, "content", "expressions", 0, "attachmentId"), "enum"),
        (("dialogues", 0, "graph"), "not"),
        (("kanban", 0, "data"), "not"),
        (("projectSettings", 0, "smtpPassword"), "not"),
        (("projectSettings", 0, "remoteUrl"), "not"),
        (("scripts", 0, "content", "lines", 0), "required"),
    }
