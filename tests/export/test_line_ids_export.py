"""The exported speech lines carry their stable ``lineId`` (docs/localization.md, docs/export-format.md)."""

from __future__ import annotations

import copy
import json

from storyloom.export.game_export import dumps_export, export_from_docs
from storyloom.export.schema_export import schema_from_docs
from storyloom.script.line_ids import anchor
from tests.export import validators
from tests.export.helpers import doc, settings_doc

TEXT = "::Ann:: Hello.\n// a note\n[#bob_hi]::Bob:: Hi!\n@if true\n::Ann:: How are you?\n@endif\n"


def _export(docs: list[dict]) -> dict:
    return json.loads(dumps_export(export_from_docs(copy.deepcopy(docs), settings_doc(), ["Scripts"])))


def test_speech_lines_carry_their_line_id_and_the_table_stays_in_the_project() -> None:
    table = anchor(None, TEXT, "s1")
    export = _export([doc("Script", "s1", content={"script": TEXT, "lineIds": table})])
    script = export["scripts"][0]
    speech = [line for line in script["content"]["lines"] if line["type"] == "speech"]
    assert [line["lineId"] for line in speech] == [table[0][0], "bob_hi", table[1][0]]
    assert all("lineId" not in line for line in script["content"]["lines"] if line["type"] != "speech")
    assert "lineIds" not in script["content"]


def test_a_stale_or_missing_table_is_anchored_on_read() -> None:
    table = anchor(None, TEXT, "s1")
    edited = "::Cid:: Added by a Drafft teammate.\n" + TEXT
    export = _export([doc("Script", "s1", content={"script": edited, "lineIds": table}),
                      doc("Script", "s2", content={"script": TEXT})])
    by_id = {s["_id"]: s for s in export["scripts"]}
    ids = [line["lineId"] for line in by_id["s1"]["content"]["lines"] if line["type"] == "speech"]
    assert ids[1:] == [table[0][0], "bob_hi", table[1][0]]
    fresh = [line["lineId"] for line in by_id["s2"]["content"]["lines"] if line["type"] == "speech"]
    assert fresh == [anchor(None, TEXT, "s2")[0][0], "bob_hi", anchor(None, TEXT, "s2")[1][0]]
    again = _export([doc("Script", "s2", content={"script": TEXT})])["scripts"][0]["content"]["lines"]
    assert [line.get("lineId") for line in again if line["type"] == "speech"] == fresh


def test_the_schema_requires_a_line_id_on_speech_lines() -> None:
    docs = [doc("Script", "s1", content={"script": TEXT})]
    settings = settings_doc()
    export = json.loads(dumps_export(export_from_docs(copy.deepcopy(docs), settings, ["Scripts"])))
    schema = schema_from_docs(copy.deepcopy(docs), settings, ["Scripts"])
    validators.check_schema(schema)
    assert not validators.errors(schema, export)
    broken = copy.deepcopy(export)
    del broken["scripts"][0]["content"]["lines"][0]["lineId"]
    assert validators.errors(schema, broken)
    leaked = copy.deepcopy(export)
    leaked["scripts"][0]["content"]["lineIds"] = []
    assert validators.errors(schema, leaked)


def test_choice_options_carry_their_line_id_stored_or_derived() -> None:
    from storyloom.project import dialogue_option_ids
    from storyloom.project.dialogue_graph import new_node

    choice = new_node("choice")
    stored = new_node("choice")
    for handle in stored["data"]["handles"]:
        if handle["type"] == "source":
            handle["lineId"] = f"kept_{handle['label'][-1]}"
    dialogue = doc("Dialogue", "d1", content={"tree": {"nodes": [choice, stored], "edges": []}})
    export = json.loads(dumps_export(export_from_docs([copy.deepcopy(dialogue)], settings_doc(), ["Dialogues"])))
    nodes = {n["id"]: n for n in export["dialogues"][0]["content"]["tree"]["nodes"]}
    derived = dialogue_option_ids(dialogue)
    for node in (choice, stored):
        for handle in nodes[node["id"]]["data"]["handles"]:
            if handle["type"] == "source":
                assert handle["lineId"] == derived[f"{node['id']}/{handle['id']}"]
            else:
                assert "lineId" not in handle
    assert sorted(v for v in derived.values() if v.startswith("kept_")) == ["kept_1", "kept_2"]
