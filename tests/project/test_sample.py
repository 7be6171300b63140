"""The built-in sample project ("The Lighthouse Keeper"): every document is valid, every script
parses, every collection is used, the export is clean and matches its schema, the dialogue graph
is whole, the scenarios keep the variables' types, and ``storyloom new --sample`` works."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from storyloom.cli.main import main
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.export.schema_export import build_schema
from storyloom.project import content
from storyloom.project.checking import MappingContext
from storyloom.project.collections import COLLECTIONS, EXPORT_NAMES, SETTINGS_ID
from storyloom.project.content.schemas import schema_matches
from storyloom.project.manager import ProjectExists, ProjectManager
from storyloom.project.sample import SAMPLE_NAME, SampleError, create_sample_project, png_image, write_sample
from storyloom.project.validation import check_document
from storyloom.script import apply_set, evaluate, parse_script
from tests.export import validators


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The sample project's documents, its game export of every collection and that export's schema."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STORYLOOM_HOME", str(tmp_path_factory.mktemp("storyloom-sample")))
        project = create_sample_project(ProjectManager(username="tester"))
        try:
            rows = project.db.all_docs(include_docs=True)["rows"]
            docs = {row["id"]: row["doc"] for row in rows}
            selection = ",".join(EXPORT_NAMES)
            export = json.loads(dumps_export(build_game_export(project, selection, exported_by="tester")))
            schema = build_schema(project, selection)
            name = project.name
        finally:
            project.close()
    yield {"docs": docs, "export": export, "schema": schema, "name": name}


def _of_type(sample: dict[str, Any], doc_type: str) -> list[dict[str, Any]]:
    return [d for d in sample["docs"].values() if d.get("type") == doc_type]


def _states(sample: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return content.collect_states(_of_type(sample, "Variable"))


def test_the_editor_accepts_every_write_without_a_warning() -> None:
    with ProjectManager(username="tester").create("Plain") as project:
        results = write_sample(project.editor)
        assert len(results) > 40
        assert [(r.id, r.warnings) for r in results if r.warnings] == []


def test_every_document_is_valid_without_warnings(sample: dict[str, Any]) -> None:
    docs = sample["docs"]
    assert sample["name"] == SAMPLE_NAME
    context = MappingContext(docs)
    problems = {doc_id: check_document(doc, context) for doc_id, doc in docs.items()}
    assert {doc_id: [str(p) for p in found] for doc_id, found in problems.items() if found} == {}
    settings = docs[SETTINGS_ID]
    assert settings["exportSections"] == list(EXPORT_NAMES)
    assert settings["exportMappings"]["speechExportMapping"]["text"]
    assert settings["projectDescription"]


def test_every_collection_has_documents_and_some_have_folders(sample: dict[str, Any]) -> None:
    docs = list(sample["docs"].values())
    for collection in COLLECTIONS:
        if collection.app_name == SETTINGS_ID:
            continue
        assert any(d.get("type") == collection.app_name for d in docs), collection.app_name
    folders = {d["collection"] for d in docs if d.get("type") == "Folder"}
    assert {"Script", "Dialogue", "Actor", "Item", "Gdd", "Variable"} <= folders
    nested = [d for d in docs if d.get("type") not in ("Folder", None) and d.get("parent")]
    assert nested and all(sample["docs"][d["parent"]]["collection"] == d["collection"] for d in nested)
    assert any(d.get("isDialogueScriptFolder") for d in docs)


def test_every_script_parses_without_problems(sample: dict[str, Any]) -> None:
    states = _states(sample)
    scripts = _of_type(sample, "Script")
    assert len(scripts) >= 8
    kinds: set[str] = set()
    for script in scripts:
        parsed = parse_script(script["content"]["script"], known_state=states)
        assert parsed.problems == [], (script["name"], parsed.problems)
        kinds |= {line.kind for line in parsed.lines}
        assert all(line.actor in _actor_names(sample) for line in parsed.lines if line.kind == "speech")
    assert kinds == {"speech", "command", "comment", "if", "else", "endif", "set", "text"}
    text = "\n".join(s["content"]["script"] for s in scripts)
    assert "${" in text and "[#" in text


def _actor_names(sample: dict[str, Any]) -> set[str]:
    return {a["name"] for a in _of_type(sample, "Actor")}


def test_the_export_is_clean_and_matches_its_schema_under_both_validators(sample: dict[str, Any]) -> None:
    export, schema = sample["export"], sample["schema"]
    assert export["_meta"]["warnings"] == []
    assert set(export) == {c.export_key for c in COLLECTIONS} | {"_meta"}
    for collection in COLLECTIONS:
        assert export[collection.export_key], collection.export_key
    validators.check_schema(schema)
    assert validators.errors(schema, export) == set()
    # Every expression image and the GDD's picture are listed; each expression resolves.
    images = {d["_id"] for d in _of_type(sample, "Attachment")}
    assert {a["_id"] for a in export["_meta"]["attachments"]} == images
    for actor in export["actors"]:
        for expression in actor.get("content", {}).get("expressions", []):
            assert expression["attachmentId"] in images
    mapped = [line["mapped"] for s in export["scripts"] for line in s.get("content", {}).get("lines", [])
              if "mapped" in line]
    assert any(m.startswith('dialogue.say("Wren Hale"') for m in mapped)
    assert any(m.startswith("commands.CutTo(") for m in mapped)


def test_every_dialogue_is_whole(sample: dict[str, Any]) -> None:
    dialogues = _of_type(sample, "Dialogue")
    assert dialogues
    for dialogue in dialogues:
        tree = dialogue["content"]["tree"]
        nodes = {node["id"]: node for node in tree["nodes"]}
        handles = {node_id: {h["id"]: h["type"] for h in node["data"]["handles"]} for node_id, node in nodes.items()}
        assert {n["data"]["nodeType"] for n in nodes.values()} >= {"start", "script", "choice", "condition",
                                                                    "jump", "end"}
        for edge in tree["edges"]:
            assert handles[edge["source"]][edge["sourceHandle"]] == "source"
            assert handles[edge["target"]][edge["targetHandle"]] == "target"
        following: dict[str, set[str]] = {node_id: set() for node_id in nodes}
        for edge in tree["edges"]:
            following[edge["source"]].add(edge["target"])
        for node_id, node in nodes.items():
            if node["data"]["nodeType"] == "jump":
                assert node["data"]["jumpTo"] in nodes
                following[node_id].add(node["data"]["jumpTo"])
            if node["data"].get("scriptId"):
                assert sample["docs"][node["data"]["scriptId"]]["type"] == "Script"
        [start] = [node_id for node_id, node in nodes.items() if node["data"]["nodeType"] == "start"]
        seen, todo = {start}, [start]
        while todo:
            for nxt in following[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        assert seen == set(nodes), dialogue["name"]
        ends = [node_id for node_id, node in nodes.items() if node["data"]["nodeType"] == "end"]
        assert len(ends) == 2 and all(not following[end] for end in ends)


def _apply(defaults: dict[str, Any], diff: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in diff.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _apply(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def test_each_scenario_keeps_the_types_of_the_defaults(sample: dict[str, Any]) -> None:
    states = _states(sample)
    assert set(states) == {"player", "island", "trust"}
    scenarios = _of_type(sample, "Scenario")
    assert len(scenarios) >= 2
    for scenario in scenarios:
        diff = content.parse_scenario_doc(scenario)
        assert diff and set(diff) <= set(states)
        assert content.validate_scenario(scenario, states) == []
        state = _apply(states, diff)
        for sid, default in states.items():
            assert schema_matches(content.infer_schema(default), state[sid]), (scenario["name"], sid)


def test_the_interview_condition_decides_the_ending(sample: dict[str, Any]) -> None:
    """The condition node reads the variables: false on the defaults, true at the midpoint, and
    the clue scripts' @set lines move the state towards it."""
    states = _states(sample)
    [dialogue] = _of_type(sample, "Dialogue")
    [condition] = [n for n in dialogue["content"]["tree"]["nodes"] if n["data"]["nodeType"] == "condition"]
    expression = condition["data"]["condition"]
    assert evaluate(expression, {}, states) is False
    [midpoint] = [s for s in _of_type(sample, "Scenario") if s["name"].startswith("Midpoint")]
    assert evaluate(expression, content.parse_scenario_doc(midpoint), states) is True
    live: dict[str, Any] = {}
    for script in _of_type(sample, "Script"):
        if script["name"] in ("The logbook", "The wick"):
            for line in parse_script(script["content"]["script"]).lines:
                if line.kind == "set":
                    apply_set(line, live, states)
    assert evaluate(expression, live, states) is True


def test_a_taken_name_creates_nothing_and_the_images_are_pngs() -> None:
    manager = ProjectManager(username="tester")
    create_sample_project(manager).close()
    with pytest.raises(ProjectExists, match="already exists"):
        create_sample_project(manager)
    assert [p.name for p in manager.list()] == [SAMPLE_NAME]
    assert png_image((1, 2, 3)).startswith(b"\x89PNG\r\n\x1a\n")


def test_a_write_with_a_warning_fails_the_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warning is a bug of the sample: the build stops and leaves no project behind."""
    manager = ProjectManager(username="tester")
    # Each fault in a context of its own: monkeypatch.undo() would also undo the suite's
    # STORYLOOM_HOME (the same monkeypatch), and the manager would then list the real home.
    with monkeypatch.context() as patch:
        patch.setattr("storyloom.project.sample_content.PLAYER_VARIABLES", "_sid: [\n")
        with pytest.raises(SampleError, match="written with warnings"):
            create_sample_project(manager)
    # A script problem (the write gate does not parse scripts) fails the build too.
    with monkeypatch.context() as patch:
        patch.setattr("storyloom.project.sample_content.SCRIPT_WICK", "@if v.island.storm\n")
        with pytest.raises(SampleError, match="unclosed-if"):
            create_sample_project(manager)
    assert manager.root.is_relative_to(os.environ["STORYLOOM_HOME"])
    assert manager.list() == []


def test_cli_new_sample_then_export(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "X", "--sample"]) == 0
    out, _ = capsys.readouterr()
    assert "Created project 'X'" in out
    assert main(["export", "X"]) == 0
    out, err = capsys.readouterr()
    export = json.loads(out)
    assert err == ""
    assert export["_meta"]["projectName"] == "X" and export["_meta"]["warnings"] == []
    assert export["_meta"]["collections"] == list(EXPORT_NAMES)
    assert len(export["dialogues"]) == 2 and export["maps"][0]["content"]["markers"]["spawn"]
