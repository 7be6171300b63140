"""Problems that stay readable: bounded messages, the export's capped ``_meta.warnings``, and
``storyloom check PROJECT [--json]`` (every problem; exit 0 when there is none, 1 otherwise)."""

from __future__ import annotations

import json
import re

import pytest
from bench.generate import generate

from storyloom.cli.main import main
from storyloom.diagnostics import LIST_LIMIT, name_list
from storyloom.export.game_export import META_WARNINGS_LIMIT, export_from_docs
from storyloom.project.content import check_scenario_diff
from storyloom.project.manager import ProjectManager

# -- bounded messages ---------------------------------------------------------------------------


def test_name_list_names_at_most_ten_then_says_how_many_more() -> None:
    assert name_list([]) == "none"
    assert name_list(["b", "a"]) == "b, a"
    assert name_list(range(10)) == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"
    assert name_list(range(12)) == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2 more"
    many = {f"s{i:06d}" for i in range(100_000)}
    text = name_list(many, sort=True)
    assert text.startswith("s000000, s000001, ") and text.endswith("s000009 and 99,990 more")
    assert name_list((str(i) for i in range(30)), separator=" > ") == " > ".join(map(str, range(10))) + " and 20 more"


def test_an_unknown_state_message_names_ten_state_ids_not_every_one() -> None:
    states = {f"npc_{i}": {"level": 1} for i in range(5_000)}
    _, problems = check_scenario_diff({"missing": {"level": 2}}, states, "missing: {level: 2}\n", "sc")
    [problem] = problems
    assert problem.code == "unknown-state"
    assert problem.message.endswith(f"and {5_000 - LIST_LIMIT:,} more")
    assert len(problem.message) < 300


def test_an_unknown_property_message_names_ten_properties() -> None:
    state = {"_sid": "npc", **{f"p{i}": 1 for i in range(50)}}
    _, problems = check_scenario_diff({"npc": {"nope": 2}}, {"npc": state}, None, "sc")
    [problem] = problems
    assert problem.code == "unknown-property"
    assert "p0, p1, " in problem.message and problem.message.endswith("and 40 more")


@pytest.mark.slow
def test_messages_of_a_generated_project_stay_short(capsys) -> None:
    """The planted unknown state names ten of the project's state ids, in `check` and in the export."""
    from storyloom.export.game_export import build_game_export

    generated = generate(3_000, plant=3)
    project = ProjectManager(username="t").create("big")
    try:
        generated.fill(project)
        warnings = build_game_export(project)["_meta"]["warnings"]
    finally:
        project.close()
    assert main(["check", "big", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert len(problems) == len(warnings) == generated.planted_total == 3
    for message in [p["message"] for p in problems] + [w["message"] for w in warnings]:
        assert len(message) < 300, message
    assert sum(bool(re.search(r" and [0-9,]+ more", m["message"])) for m in problems + warnings) == 2


# -- the export's _meta -------------------------------------------------------------------------


def _bad_items(count: int) -> list[dict]:
    return [
        {"_id": f"item-{i:05d}", "_rev": "1-a", "type": "Item", "collection": "Item", "name": f"Item {i}",
         "parent": None, "sortKey": "V", "editorLanguage": "yaml", "content": {"item": "tags: [unclosed\n"}}
        for i in range(count)
    ]


def test_meta_carries_the_warning_count_and_the_first_thousand_warnings() -> None:
    export = export_from_docs(_bad_items(META_WARNINGS_LIMIT + 234), {}, ["Items"])
    meta = export["_meta"]
    assert meta["warningCount"] == META_WARNINGS_LIMIT + 234
    assert len(meta["warnings"]) == META_WARNINGS_LIMIT
    assert [w["docId"] for w in meta["warnings"]] == [f"item-{i:05d}" for i in range(META_WARNINGS_LIMIT)]
    assert {w["code"] for w in meta["warnings"]} == {"parse-error"}


def test_meta_of_a_small_export_lists_every_warning() -> None:
    meta = export_from_docs(_bad_items(3), {}, ["Items"])["_meta"]
    assert meta["warningCount"] == 3 and len(meta["warnings"]) == 3
    assert export_from_docs([], {}, ["Items"])["_meta"]["warningCount"] == 0


def test_the_schema_requires_the_count_and_caps_the_list() -> None:
    from storyloom.export.schema_export import build_schema

    project = ProjectManager(username="t").create("schema")
    try:
        meta = build_schema(project, ["Items"])["properties"]["_meta"]
    finally:
        project.close()
    assert "warningCount" in meta["required"]
    assert meta["properties"]["warnings"]["maxItems"] == META_WARNINGS_LIMIT


# -- storyloom check ----------------------------------------------------------------------------


@pytest.fixture
def planted() -> tuple[str, object]:
    generated = generate(1_000, plant=6)
    project = ProjectManager(username="t").create("planted")
    try:
        generated.fill(project)
    finally:
        project.close()
    return "planted", generated


@pytest.mark.slow
def test_check_lists_every_problem_with_where_it_is_and_exits_1(planted, capsys) -> None:
    name, generated = planted
    assert main(["check", name]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == generated.planted_total + 1
    assert lines[-1] == f"6 problems (2 errors, 4 warnings) in 6 of 1,001 documents of {name}"
    by_id = {line.split(" ", 1)[0]: line for line in lines[:-1]}
    assert set(by_id) == {doc_id for ids in generated.planted_ids.values() for doc_id in ids}
    item = by_id[generated.planted_ids["parse-error"][0]]
    assert '(Item "Item ' in item and " content.item:3:1: warning: " in item and item.endswith("[parse-error]")
    script = by_id[generated.planted_ids["script-unknown-path"][0]]
    assert " content.script:" in script and ": error: unknown variable path variables.planted_missing" in script
    scenario = by_id[generated.planted_ids["unknown-state"][0]]
    assert "content.scenario.planted_missing:" in scenario and scenario.endswith("more [unknown-state]")


@pytest.mark.slow
def test_check_json_has_name_collection_field_line_and_column(planted, capsys) -> None:
    name, generated = planted
    assert main(["check", name, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["project"], report["documents"], report["count"]) == (name, 1_001, 6)
    assert (report["errors"], report["warnings"]) == (2, 4)
    item = next(p for p in report["problems"] if p["code"] == "parse-error")
    assert item == {
        "docId": item["docId"], "name": item["name"], "collection": "Item", "type": "Item",
        "field": "content.item", "line": 3, "column": 1, "severity": "warning", "code": "parse-error",
        "message": item["message"],
    }
    assert item["docId"] in generated.planted_ids["parse-error"]
    assert item["name"].startswith("Item ") and "(yaml)" in item["message"]
    assert not item["message"].startswith(("document", "content.item", "line"))


@pytest.mark.slow
def test_check_of_a_clean_project_exits_0(capsys) -> None:
    project = ProjectManager(username="t").create("clean")
    try:
        generate(1_000).fill(project)
    finally:
        project.close()
    assert main(["check", "clean"]) == 0
    assert capsys.readouterr().out == "no problems in 1,001 documents of clean\n"
    assert main(["check", "clean", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["count"], report["problems"]) == (0, [])


def test_check_of_an_unknown_project_is_a_usage_error(capsys) -> None:
    assert main(["check", "nope"]) == 2
    assert "no project named" in capsys.readouterr().err
