"""storyloom.export.game_export: keys, transformations, warnings, determinism."""

from __future__ import annotations

import base64
import copy
import datetime as dt
import json
import random

import pytest

from storyloom.export.collections_filter import UnknownCollections
from storyloom.export.game_export import build_game_export, dumps_export, export_from_docs
from storyloom.project.collections import BY_EXPORT_NAME, COLLECTIONS, EXPORT_NAMES
from tests.export.helpers import (
    GAME_EXPORTS,
    GARDEN,
    PROJECTS,
    MemoryProject,
    doc,
    fixture_docs,
    scenario,
    settings_doc,
    variable,
)

NOW = dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.UTC)


def _export(docs: list[dict], collections=None, **settings) -> dict:
    return export_from_docs(copy.deepcopy(docs), settings_doc(**settings), collections, now=NOW)


def _by_id(items: list[dict]) -> dict[str, dict]:
    return {item["_id"]: item for item in items}


def _warnings(export: dict, code: str | None = None) -> list[dict]:
    return [w for w in export["_meta"]["warnings"] if code is None or w["code"] == code]


# -- top level ---------------------------------------------------------------------------------


def test_every_collection_key_and_meta() -> None:
    export = _export([settings_doc()])
    assert list(export) == [c.export_key for c in COLLECTIONS] + ["_meta"]
    assert all(export[c.export_key] == [] for c in COLLECTIONS if c.app_name != "ProjectSettings")
    meta = export["_meta"]
    assert meta["exportedAt"] == "2026-03-01T12:00:00.000Z"
    assert meta["formatVersion"] == 2
    assert meta["collections"] == list(EXPORT_NAMES)
    assert meta["appVersion"]
    assert set(meta) == {
        "exportedAt",
        "exportedBy",
        "appVersion",
        "formatVersion",
        "collections",
        "projectId",
        "projectName",
        "warningCount",
        "warnings",
        "attachments",
    }
    assert meta["attachments"] == []


def test_default_collections_are_the_export_sections() -> None:
    export = _export([], exportSections=["Items", "Scripts"])
    assert [k for k in export if k != "_meta"] == ["scripts", "items"]
    assert export["_meta"]["collections"] == ["Scripts", "Items"]


def test_an_unknown_export_section_is_skipped_with_a_warning() -> None:
    export = _export([], exportSections=["Items", "Hotkeys"])
    assert [k for k in export if k != "_meta"] == ["items"]
    assert [w["field"] for w in _warnings(export, "unknown-export-section")] == ["exportSections"]


@pytest.mark.parametrize("value", ["Scripts,Items", "Scripts, Items", " Scripts , Items ", ["Scripts", " Items"]])
def test_a_filtered_export_holds_exactly_the_collections_asked_for(value: str | list[str]) -> None:
    image = _image("img-1", "face", b"face")
    actor = doc("Actor", "a1", content={"bio": "", "properties": "", "expressions": [{"name": "d", "_id": "img-1"}]})
    docs = [settings_doc(), image, actor, doc("Item", "i1", content={"item": ""}), doc("Script", "s1")]
    export = _export(docs, value)
    assert list(export) == ["scripts", "items", "_meta"]
    assert export["_meta"]["collections"] == ["Scripts", "Items"]
    assert export["_meta"]["attachments"] == []  # the actor referencing the image is not exported


def test_collections_argument_and_errors() -> None:
    export = _export([doc("Item", "i1", content={"item": ""})], "Items")
    assert list(export) == ["items", "_meta"]
    with pytest.raises(UnknownCollections, match="valid collections: ProjectSettings, GDD"):
        _export([], "Items,Weapons")
    with pytest.raises(UnknownCollections):
        _export([], "")


# -- documents ---------------------------------------------------------------------------------


def test_documents_sorted_with_derived_tree_and_stripped_fields() -> None:
    docs = [
        doc("Folder", "f1", "Act 1", collection="Script", children=["stale"], path="stale.path"),
        doc("Script", "s2", parent="f1", sortKey="V", content={"script": ""}, locked=True, lockedBy="ann"),
        doc("Script", "s1", parent="f1", sortKey="F", content={"script": ""}, lockedAt="2026-01-01T00:00:00Z",
            lockBroken={"by": "bo", "holder": "al", "since": None, "at": "2026-01-02T00:00:00Z"}),
        doc("Script", "s0", content={"script": ""}, _conflicts=["2-abc"], _rev="1-abc", _revisions={}),
        doc("Attachment", "a1", collection="Attachment"),
        doc("User", "u1", collection="User"),
        {"_id": "h1", "collection": "Hotkeys", "name": "Ctrl_1"},
    ]
    export = _export(docs, "Scripts")
    scripts = export["scripts"]
    assert [s["_id"] for s in scripts] == ["f1", "s0", "s1", "s2"]
    by_id = _by_id(scripts)
    assert by_id["f1"]["children"] == ["s1", "s2"]
    assert by_id["f1"]["path"] == "f1"
    assert by_id["s1"]["path"] == "f1.s1"
    assert by_id["s0"]["children"] == []
    for item in scripts:
        assert not {"_rev", "locked", "lockedBy", "lockedAt", "lockBroken", "_conflicts", "_revisions"} & set(item)
        assert item["collection"] == "Script"
    assert by_id["s1"]["sortKey"] == "F"


def test_project_settings_lose_local_only_fields() -> None:
    settings = settings_doc(
        remoteDbEnabled=True,
        remoteDbUrl="http://couch:5984",
        remoteDbUsername="admin",
        remoteDbPassword="hunter2",
        remoteDbSyncInterval=1,
        dbName="drafft_x",
    )
    export = export_from_docs([copy.deepcopy(settings)], settings, "ProjectSettings", now=NOW)
    [exported] = export["projectSettings"]
    assert exported["_id"] == "ProjectSettings"
    assert exported["projectName"] == "Test"
    assert "hunter2" not in dumps_export(export)
    assert not [k for k in exported if k.startswith("remoteDb") or k == "dbName"]


def test_attachments_become_stubs_with_a_permalink() -> None:
    data = base64.b64encode(b"\x89PNG fake image").decode()
    actor = doc(
        "Actor",
        "act/1",
        content={"bio": "", "expressions": [], "properties": ""},
        _attachments={"expression default.png": {"content_type": "image/png", "data": data}},
    )
    project = MemoryProject([settings_doc(), actor])
    export = build_game_export(project, "Actors", exported_by="ann")
    [exported] = export["actors"]
    stub = exported["_attachments"]["expression default.png"]
    assert stub["stub"] is True
    assert "data" not in stub
    assert stub["permalink"] == "storyloom://attachment/act%2F1/expression%20default.png"
    assert stub["content_type"] == "image/png"
    assert stub["length"] == len(b"\x89PNG fake image")
    assert stub["digest"].startswith("md5-")
    assert stub["url"] == "/attachments/act%2F1/expression%20default.png"
    assert export["_meta"]["exportedBy"] == "ann"
    assert export["_meta"]["projectId"] == "p-1"


def _image(doc_id: str, name: str, payload: bytes, notes: str | None = None) -> dict:
    content = {"notes": notes} if notes is not None else {"notes": ""}
    return doc(
        "Attachment",
        doc_id,
        name,
        collection="Attachment",
        mimeType="image/png",
        permalink=f"storyloom://image/{doc_id}",
        isClonable=False,
        content=content,
        _attachments={"blob": {"content_type": "image/png", "data": base64.b64encode(payload).decode()}},
    )


def test_referenced_attachment_documents_are_listed_in_meta_and_expressions_point_at_them() -> None:
    actor = doc(
        "Actor",
        "act-1",
        content={
            "bio": "",
            "properties": "",
            "expressions": [
                {"name": "default", "permalink": "drafft://image/img 1"},  # resolved by the permalink
                {"name": "sad", "permalink": "storyloom://image/img-2", "_id": "img-2"},
                {"name": "gone", "permalink": "storyloom://image/missing"},  # dangling: no attachmentId
            ],
        },
    )
    docs = [
        settings_doc(),
        actor,
        _image("img 1", "woman_expression_default", b"one", notes="drawn by Ann"),
        _image("img-2", "woman_expression_sad", b"second"),
        doc("Item", "i1", content={"item": ""}),
    ]
    project = MemoryProject(docs)
    items_only = json.loads(dumps_export(build_game_export(project, "Items")))
    assert set(items_only) == {"items", "_meta"} and items_only["_meta"]["attachments"] == []
    export = json.loads(dumps_export(build_game_export(project, "Actors")))
    assert set(export) == {"actors", "_meta"}
    first, second = export["_meta"]["attachments"]
    assert first == {
        "_id": "img 1",
        "name": "woman_expression_default",
        "mimeType": "image/png",
        "content": {"notes": "drawn by Ann"},
        "_attachments": {
            "blob": {
                "content_type": "image/png",
                "digest": first["_attachments"]["blob"]["digest"],
                "length": 3,
                "revpos": 1,
                "stub": True,
                "permalink": "storyloom://attachment/img%201/blob",
                "url": "/attachments/img%201/blob",
            }
        },
    }
    assert "content" not in second  # empty notes are not listed
    assert second["_attachments"]["blob"]["length"] == len(b"second")
    assert all("data" not in stub for a in export["_meta"]["attachments"] for stub in a["_attachments"].values())
    [exported_actor] = export["actors"]
    expressions = exported_actor["content"]["expressions"]
    assert [e.get("attachmentId") for e in expressions] == ["img 1", "img-2", None]
    assert [e["permalink"] for e in expressions] == [
        "drafft://image/img 1",
        "storyloom://image/img-2",
        "storyloom://image/missing",
    ]
    # Warm (per-revision memo): the same, and the stored actor is untouched.
    again = json.loads(dumps_export(build_game_export(project, "Actors")))
    assert again["actors"] == export["actors"] and again["_meta"]["attachments"] == export["_meta"]["attachments"]
    assert "attachmentId" not in json.dumps(project.store.get("act-1"))


def test_meta_lists_only_the_attachments_the_exported_documents_reference() -> None:
    gdd_text = (
        "# Look\n\n![The garden](storyloom://image/img-gdd) and <img src=\"drafft://image/img%20html\">\n"
        "[not an attachment](storyloom://image/nowhere)"
    )
    expressions = [{"name": "d", "_id": "img-actor"}]
    actor = doc("Actor", "a1", content={"bio": "", "properties": "", "expressions": expressions})
    docs = [
        settings_doc(),
        actor,
        doc("Gdd", "g1", content={"gdd": gdd_text}),
        doc("Folder", "gf", collection="Gdd"),
        _image("img-actor", "actor", b"a"),
        _image("img-gdd", "gdd", b"g"),
        _image("img html", "html", b"h"),
        _image("img-unused", "unused", b"u"),
    ]
    project = MemoryProject(docs)

    def listed(selection: str) -> list[str]:
        export = json.loads(dumps_export(build_game_export(project, selection)))
        assert set(export) == {*(BY_EXPORT_NAME[n].export_key for n in selection.split(",")), "_meta"}
        return [entry["_id"] for entry in export["_meta"]["attachments"]]

    assert listed("Actors") == ["img-actor"]
    assert listed("GDD") == ["img html", "img-gdd"]
    assert listed("GDD,Actors") == ["img html", "img-actor", "img-gdd"]
    assert listed("Items") == []
    entry = json.loads(dumps_export(build_game_export(project, "GDD")))["_meta"]["attachments"][1]
    assert entry["_attachments"]["blob"]["url"] == "/attachments/img-gdd/blob"
    assert entry["_attachments"]["blob"]["permalink"] == "storyloom://attachment/img-gdd/blob"


def test_v1_editor_data_is_not_exported_twice() -> None:
    graph = {"cells": [{"id": "n1", "type": "dialogue.Text"}]}
    lanes = {"lanes": [{"id": "l1", "title": "To do", "cards": []}]}
    docs = [
        doc("Dialogue", "d1", content={"tree": {"nodes": [], "edges": []}}, graph=graph),
        doc("Kanban", "k1", content={"columns": [], "template": None, "settings": {}}, data=lanes),
        doc("Grid", "g1", content={"columns": [], "data": [["a"]]}),  # a grid's own content.data stays
    ]
    project = MemoryProject([settings_doc(), *docs])
    export = build_game_export(project, "Dialogues,Kanban,Grids")
    [dialogue] = export["dialogues"]
    assert "graph" not in dialogue and dialogue["content"]["tree"] == {"nodes": [], "edges": []}
    assert "data" not in export["kanban"][0] and export["kanban"][0]["content"]["columns"] == []
    assert export["grids"][0]["content"]["data"] == [["a"]]
    # kept in the store
    assert project.store.get("d1")["graph"] == graph
    assert project.store.get("k1")["data"] == lanes


def test_project_settings_go_through_public_settings() -> None:
    settings = settings_doc(
        smtpPassword="pw",
        dbName="drafft_x",
        remoteUrl="https://couch.example",
        remoteDbUsername="admin",
        githubToken="t0k",
        clientSecret="s",
        CREDENTIALS={"user": "u"},
        integrations={"discord": {"webhookToken": "w", "channel": "#dev"}},
        projectDescription="kept",
    )
    export = export_from_docs([copy.deepcopy(settings)], settings, "ProjectSettings", now=NOW)
    [exported] = export["projectSettings"]
    text = dumps_export(export)
    for secret in ("pw", "drafft_x", "couch.example", "t0k", '"s"', '"u"', '"w"'):
        assert secret not in text
    assert exported["projectDescription"] == "kept"
    assert exported["integrations"] == {"discord": {"channel": "#dev"}}
    assert exported["exportMappings"] == settings["exportMappings"]


# -- property text -----------------------------------------------------------------------------


def test_property_text_is_parsed_per_editor_language() -> None:
    docs = [
        doc("Item", "i-json", content={"item": '{"a": 1}'}, editorLanguage="json"),
        doc("Item", "i-yaml", content={"item": "a: 1\nb: [x, y]\n"}, editorLanguage="yaml"),
        doc("Item", "i-toml", content={"item": "a = 1\n"}, editorLanguage="toml"),
        doc("Item", "i-text", content={"item": "plain words"}, editorLanguage="text"),
        doc("Item", "i-default", content={"item": "a: 1\n// note\nb: two\n"}),
        doc("Quest", "q", content={"properties": "goal: win", "conditions": "level: 3"}, editorLanguage="yaml"),
        doc("Actor", "a", content={"bio": "# Bio", "expressions": [], "properties": "age: 30"}),
        doc("Misc", "m", content={"properties": "menu: {\n  start: go\n}"}, editorLanguage="hjson"),
        doc("Folder", "items-folder", "Weapons", collection="Item"),
    ]
    export = _export(docs, "Actors,Quests,Items,Misc")
    items = _by_id(export["items"])
    assert items["i-json"]["content"]["item"] == {"a": 1}
    assert items["i-yaml"]["content"]["item"] == {"a": 1, "b": ["x", "y"]}
    assert items["i-toml"]["content"]["item"] == {"a": 1}
    assert items["i-text"]["content"]["item"] == "plain words"
    assert items["i-default"]["content"]["item"] == {"a": 1, "b": "two"}  # project default: hjson
    assert "content" not in items["items-folder"]
    [quest] = export["quests"]
    assert quest["content"] == {"properties": {"goal": "win"}, "conditions": {"level": 3}}
    [actor] = export["actors"]
    assert actor["content"] == {"bio": "# Bio", "expressions": [], "properties": {"age": 30}}
    [misc] = export["misc"]
    assert misc["content"]["properties"] == {"menu": {"start": "go"}}
    assert _warnings(export) == []


def test_property_text_that_does_not_parse_stays_text_with_a_warning() -> None:
    text = "name: Locket\ntags: [a, b\nweight: 2\n"
    docs = [
        doc("Item", "i1", content={"item": text}, editorLanguage="yaml"),
        doc("Quest", "q1", content={"properties": '{"ok": 1}', "conditions": '{"a": }'}, editorLanguage="json"),
        doc("Actor", "a1", content={"properties": "x: 1"}, editorLanguage="xml"),
    ]
    export = _export(docs, "Actors,Quests,Items")
    assert export["items"][0]["content"]["item"] == text
    assert export["quests"][0]["content"]["conditions"] == '{"a": }'
    assert export["actors"][0]["content"]["properties"] == "x: 1"
    warnings = export["_meta"]["warnings"]
    assert [(w["collection"], w["docId"], w["code"], w["field"], w["line"], w["column"]) for w in warnings] == [
        ("Actor", "a1", "unknown-language", "content.properties", None, None),
        ("Quest", "q1", "parse-error", "content.conditions", 1, 7),
        ("Item", "i1", "parse-error", "content.item", 3, 7),
    ]
    assert "left as text" in warnings[2]["message"]


# -- variables, scenarios, maps ------------------------------------------------------------------


def test_variables_export_parsed_state_without_editor_or_simulation_data() -> None:
    player = variable("v1", "_sid: player\ncourage: 5\n")
    player["content"]["live"] = {"courage": 99}  # anything but the source stays in the project
    docs = [
        player,
        variable("v2", "_sid: [broken\n"),
        variable("v3", "_sid: player\n"),
        doc("Folder", "vf", collection="Variable"),
    ]
    export = _export(docs, "Variables")
    items = _by_id(export["variables"])
    assert items["v1"]["content"] == {"variables": {"_sid": "player", "courage": 5}}
    assert items["v2"]["content"] == {"variables": "_sid: [broken\n"}
    assert items["v3"]["content"] == {"variables": "_sid: player\n"}
    assert "content" not in items["vf"]
    assert "99" not in dumps_export(export)
    codes = {(w["docId"], w["code"]) for w in _warnings(export)}
    assert codes == {("v2", "parse-error"), ("v3", "duplicate-sid")}


def test_simulation_state_never_leaks() -> None:
    project = MemoryProject([settings_doc(), variable("v1", "_sid: player\ncourage: 5\n")])
    # a value no timestamp or id can contain by chance
    project.store.put_local({"_id": "_local/live-state", "player": {"courage": 987654321987}})
    project.store.put_local({"_id": "_local/simulator", "scenario": "hero"})
    text = dumps_export(build_game_export(project, None))
    assert "live-state" not in text and "simulator" not in text and "987654321987" not in text


def test_scenarios_export_valid_overrides_and_warn_about_the_rest() -> None:
    docs = [
        variable("v1", "_sid: player\ncourage: 5\nname: Ann\n"),
        scenario("s1", "player: {\n  courage: 8\n  name: 3\n  luck: 1\n}\nvillain: {\n  x: 1\n}\n"),
        scenario("s2", "player: {\n  courage: [\n}\n", editorLanguage="hjson"),
    ]
    export = _export(docs, "Scenarios")
    assert "variables" not in export
    items = _by_id(export["scenarios"])
    assert items["s1"]["content"] == {"scenario": {"player": {"courage": 8}}}
    assert items["s2"]["content"] == {"scenario": "player: {\n  courage: [\n}\n"}
    found = {(w["docId"], w["code"], w["field"], w["line"]) for w in _warnings(export)}
    assert found == {
        ("s1", "type-changed", "content.scenario.player.name", 3),
        ("s1", "unknown-property", "content.scenario.player.luck", 4),
        ("s1", "unknown-state", "content.scenario.villain", 6),
        ("s2", "parse-error", "content.scenario", 3),
    }


def test_maps_export_without_editor_data_and_without_invalid_entries() -> None:
    good = doc(
        "Map",
        "m1",
        content={
            "width": 3,
            "height": 2,
            "cells": {"0,0": {"type": "floor"}, "5,5": {"type": "floor"}},
            "edges": {"2,1:E": {"type": "door", "locked": True}},
            "markers": [{"name": "spawn", "x": 1, "y": 1}],
            "editor": {"zoom": 3, "tool": "bucket", "selection": ["0,0"]},
            "properties": {"music": "calm"},
        },
    )
    bad = doc("Map", "m2", content={"width": 0, "height": 2, "cells": {}})
    export = _export([good, bad], "Maps")
    items = _by_id(export["maps"])
    assert items["m1"]["content"] == {
        "width": 3,
        "height": 2,
        "cells": {"0,0": {"type": "floor"}},
        "edges": {"2,1:E": {"type": "door", "locked": True}},
        "markers": {"spawn": {"x": 1, "y": 1}},
        "properties": {"music": "calm"},
    }
    assert items["m2"]["content"] is None
    found = {(w["docId"], w["code"], w["field"]) for w in _warnings(export)}
    assert found == {("m1", "out-of-bounds", 'content.cells["5,5"]'), ("m2", "bad-dimension", "content.width")}


# -- scripts -----------------------------------------------------------------------------------


def test_scripts_carry_raw_text_and_parsed_lines() -> None:
    text = (
        "// intro\n[#t1]::Ann:: Hello! [happy]\n<FadeIn(1, slow)>\n@if variables.player.courage > 3\nBrave.\n@endif\n"
    )
    docs = [
        variable("v", "_sid: player\ncourage: 5\n"),
        doc("Script", "s1", content={"script": text}, editorMode="lua"),
    ]
    export = _export(
        docs,
        "Scripts",
        exportMappings={
            "speechExportMapping": {"lua": '%actor:say("%speech", "%expression", "%tag")', "text": "X"},
            "commandSpeechExportMapping": {"lua": "run(%command, %params(;))"},
        },
    )
    [script] = export["scripts"]
    assert script["content"]["script"] == text
    lines = script["content"]["lines"]
    assert [line["type"] for line in lines] == ["comment", "speech", "command", "if", "text", "endif"]
    assert lines[1]["mapped"] == 'Ann:say("Hello!", "happy", "t1")'
    assert lines[2]["mapped"] == "run(FadeIn, 1; slow)"
    assert "mapped" not in lines[0] and "mapped" not in lines[3]
    assert _warnings(export) == []


def test_interpolate_variables_on_export() -> None:
    text = (
        "::Ann:: You have ${variables.player.gold} coins, ${ v.player.name }.\n<Give(${variables.player.gold + 1})>\n"
    )
    text += "::Ann:: ${variables.player.nope}\n"
    docs = [variable("v", "_sid: player\ngold: 20\nname: Bo\n"), doc("Script", "s1", content={"script": text})]
    mappings = {
        "speechExportMapping": {"text": "say(%speech)"},
        "commandSpeechExportMapping": {"text": "%command(%params)"},
        "interpolateVariablesOnExport": True,
    }
    export = _export(docs, "Scripts", exportMappings=mappings)
    lines = export["scripts"][0]["content"]["lines"]
    assert lines[0]["text"] == "You have 20 coins, Bo."
    assert lines[0]["mapped"] == "say(You have 20 coins, Bo.)"
    assert lines[1]["params"] == ["21"] and lines[1]["mapped"] == "Give(21)"
    assert lines[2]["text"] == "${variables.player.nope}"
    assert export["scripts"][0]["content"]["script"] == text  # the raw text is never changed
    assert {w["code"] for w in _warnings(export)} == {"script-interpolation", "script-unknown-path"}
    mappings["interpolateVariablesOnExport"] = False
    plain = _export(docs, "Scripts", exportMappings=mappings)
    assert plain["scripts"][0]["content"]["lines"][0]["text"].startswith("You have ${variables.player.gold}")


def test_script_problems_become_warnings() -> None:
    docs = [doc("Script", "s1", content={"script": "@if true\n::Ann:: hi\n"})]
    export = _export(docs, "Scripts")
    warnings = _warnings(export)
    assert warnings and all(w["code"].startswith("script-") for w in warnings)
    assert warnings[0]["field"] == "content.script" and warnings[0]["line"] is not None


def test_mappings_applied_on_the_garden_sample_scripts() -> None:
    docs = fixture_docs(GARDEN)
    settings = next(d for d in docs if d["_id"] == "ProjectSettings")
    settings["exportMappings"]["speechExportMapping"]["text"] = '%actor.Say("%speech", "%expression", "%tag")'
    settings["exportMappings"]["commandSpeechExportMapping"]["text"] = 'ExecuteCommand("%command", %params(,))'
    project = MemoryProject(docs)
    export = build_game_export(project, "Scripts")
    speech = [
        line for s in export["scripts"] for line in s.get("content", {}).get("lines", []) if line["type"] == "speech"
    ]
    commands = [
        line for s in export["scripts"] for line in s.get("content", {}).get("lines", []) if line["type"] == "command"
    ]
    assert len(speech) > 20
    for line in speech:
        assert (
            line["mapped"]
            == f'{line["actor"]}.Say("{line["text"]}", "{line["expression"] or ""}", "{line["tag"] or ""}")'
        )
    for line in commands:
        assert line["mapped"].startswith(f'ExecuteCommand("{line["name"]}", ')


# -- determinism -------------------------------------------------------------------------------


def _strip_time(text: str) -> str:
    data = json.loads(text)
    data["_meta"]["exportedAt"] = "*"
    return json.dumps(data)


def test_same_project_same_bytes_but_for_exported_at() -> None:
    docs = fixture_docs(GARDEN)
    first = MemoryProject(docs)
    a = dumps_export(build_game_export(first, None, exported_by="ann"))
    b = dumps_export(build_game_export(first, None, exported_by="ann"))
    assert a.split('"exportedAt":', 1)[0] == b.split('"exportedAt":', 1)[0]
    assert _strip_time(a) == _strip_time(b)
    # The same documents written in another order, with keys in another order: same bytes.
    shuffled = fixture_docs(GARDEN)
    random.Random(7).shuffle(shuffled)
    shuffled = [dict(reversed(list(d.items()))) for d in shuffled]
    second = MemoryProject(shuffled)
    c = dumps_export(build_game_export(second, None, exported_by="ann"))
    assert a.replace(a[a.index('"exportedAt":') :][:40], "") == c.replace(c[c.index('"exportedAt":') :][:40], "")


def test_dumps_export_is_sorted_compact_utf8_and_refuses_nan() -> None:
    assert dumps_export({"b": 1, "a": {"d": "é", "c": [2, 1]}}) == '{"a":{"c":[2,1],"d":"é"},"b":1}\n'
    assert dumps_export({"b": 1, "a": 2}, indent=2) == '{\n  "a": 2,\n  "b": 1\n}\n'
    with pytest.raises(ValueError):
        dumps_export({"a": float("nan")})


# -- against Drafft's own export -----------------------------------------------------------------


def test_shape_matches_drafft_2_1_4_export_of_the_same_project() -> None:
    real = json.loads((GAME_EXPORTS / "v2.1.4_the_goddess_of_fate.game-export.json").read_text(encoding="utf-8"))
    project = MemoryProject(fixture_docs(PROJECTS / "v2" / "tgof.json"))
    export = build_game_export(project, "Scripts,Dialogues,Actors,Quests,Items,Misc,Grids,Kanban")
    # The same top-level keys: the attachments expressions point at are listed in ``_meta``.
    assert sorted(export) == sorted(real)
    assert {"exportedAt", "exportedBy"} <= set(export["_meta"])
    for key, fields in (("items", ("item",)), ("quests", ("properties", "conditions")), ("actors", ("properties",))):
        ours = _by_id(export[key])
        assert set(ours) == {d["_id"] for d in real[key]}
        for theirs in real[key]:
            for field in fields:
                assert ours[theirs["_id"]]["content"][field] == theirs["content"][field], (key, field)
    parsed = [d["content"]["item"] for d in export["items"]] + [d["content"]["properties"] for d in export["actors"]]
    assert sum(isinstance(value, dict) for value in parsed) >= 10
    assert {d["_id"] for d in export["scripts"]} <= {d["_id"] for d in real["scripts"]}
    # Drafft 2.1.4 still exported _rev and locks; Storyloom never does.
    assert all("_rev" not in d and "locked" not in d for key in ("scripts", "items") for d in export[key])
