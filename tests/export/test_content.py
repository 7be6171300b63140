"""storyloom.project.content: property text, variables, scenarios, maps."""

from __future__ import annotations

import pytest

from storyloom.project.content import (
    ContentError,
    check_map_content,
    check_unique_sids,
    collect_states,
    detect_language,
    infer_schema,
    locate_key,
    merge_schemas,
    parse_scenario_doc,
    parse_text,
    parse_variables_doc,
    validate_map,
    validate_scenario,
)
from tests.export.helpers import doc, fixture_docs, scenario, variable

# -- parse_text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("json", '{"name": "Locket", "weight": 1.5, "tags": ["a", "b"], "unique": true}'),
        ("hjson", "// a comment\nname: Locket\nweight: 1.5\ntags: [\n  a\n  b\n]\nunique: true\n"),
        ("yaml", "# a comment\nname: Locket\nweight: 1.5\ntags:\n  - a\n  - b\nunique: true\n"),
        ("toml", 'name = "Locket"\nweight = 1.5\ntags = ["a", "b"]\nunique = true\n'),
    ],
)
def test_parse_text_each_language(language: str, text: str) -> None:
    assert parse_text(text, language) == {"name": "Locket", "weight": 1.5, "tags": ["a", "b"], "unique": True}


def test_parse_text_language_is_case_insensitive_and_text_is_kept() -> None:
    assert parse_text('{"a": 1}', "JSON") == {"a": 1}
    assert parse_text("just prose: kept", "text") == "just prose: kept"


@pytest.mark.parametrize("language", ["json", "hjson", "yaml", "toml"])
def test_empty_or_comment_only_text_is_an_empty_object(language: str) -> None:
    assert parse_text("", language) == {}
    assert parse_text("  \n\n", language) == {}
    if language in ("yaml", "toml"):
        assert parse_text("# nothing yet\n", language) == {}
    if language == "hjson":
        assert parse_text("// nothing yet\n", language) == {}


@pytest.mark.parametrize(
    ("language", "text", "line", "column"),
    [
        ("json", '{\n  "a": 1,\n  "b": \n}', 4, 1),
        ("json", '{"a": 1}\n{"b": 2}', 2, 1),
        ("hjson", "a: {\n  b: [1, 2\n}\n", 3, 1),
        ("yaml", "name: Locket\ntags: [a, b\nweight: 2\n", 3, 7),
        ("yaml", "a: 1\n  b: 2\n", 2, 4),
        ("toml", 'name = "Locket"\nweight = \n', 2, 10),
        ("toml", "[a]\nx = 1\n[a]\n", 3, 3),
    ],
)
def test_parse_errors_carry_line_and_column(language: str, text: str, line: int, column: int) -> None:
    with pytest.raises(ContentError) as info:
        parse_text(text, language)
    error = info.value
    assert (error.line, error.column) == (line, column), str(error)
    assert error.language == language
    assert str(error).startswith(f"line {line}, column {column}: ")
    assert error.message


def test_unknown_language_is_an_error_naming_the_valid_ones() -> None:
    with pytest.raises(ContentError, match="json, hjson, yaml, toml, text"):
        parse_text("a: 1", "xml")


def test_yaml_uses_the_1_2_core_schema_like_drafft() -> None:
    value = parse_text("answer: no\nlights: on\nflag: true\nmode: 0o17\nport: 012\nnothing: ~\n", "yaml")
    assert value == {"answer": "no", "lights": "on", "flag": True, "mode": 15, "port": 12, "nothing": None}


def test_dates_become_iso_strings_and_keys_strings() -> None:
    assert parse_text("due: 2026-02-18\n1: one\ntrue: yes\n", "yaml") == {
        "due": "2026-02-18",
        "1": "one",
        "true": "yes",
    }
    assert parse_text("when = 1979-05-27T07:32:00Z\n", "toml") == {"when": "1979-05-27T07:32:00+00:00"}


def test_nan_and_infinity_are_refused_with_their_position() -> None:
    with pytest.raises(ContentError) as info:
        parse_text("a: 1\nstats:\n  speed: .inf\n", "yaml")
    assert "stats.speed" in info.value.message
    assert (info.value.line, info.value.column) == (3, 3)
    with pytest.raises(ContentError):
        parse_text('{"a": NaN}', "json")
    with pytest.raises(ContentError):
        parse_text("a = nan", "toml")


def test_detect_language() -> None:
    assert detect_language('{"_sid": "x"}') == "json"
    assert detect_language("_sid: world\nseason: autumn") == "yaml"
    assert detect_language("player: {\n  courage: 5\n  intuition: 5\n}\n") == "hjson"
    assert detect_language('_sid = "world"\n') == "toml"
    assert detect_language("just some prose") == "text"


def test_locate_key_follows_nesting() -> None:
    text = "player: {\n  courage: 5\n}\nwoman: {\n  courage: 2\n  mood: warm\n}\n"
    assert locate_key(text, ["woman", "courage"]) == (5, 3)
    assert locate_key(text, ["woman", "missing"]) == (4, 1)
    assert locate_key(text, ["nobody"]) == (None, None)


# -- Variables ---------------------------------------------------------------------------


def _garden(doc_type: str) -> list[dict]:
    return [d for d in fixture_docs() if d.get("type") == doc_type]


def test_garden_variables_parse_to_states_with_sid() -> None:
    states = {parse_variables_doc(d)["_sid"]: parse_variables_doc(d) for d in _garden("Variable")}
    assert set(states) == {"player", "woman", "world"}
    assert states["player"]["courage"] == 5
    assert states["player"]["memory_locket_found"] is False
    assert states["world"] == {
        "_sid": "world",
        "time_of_day": "dusk",
        "season": "autumn",
        "weather": "calm",
        "garden_state": "fading",
    }
    assert check_unique_sids(_garden("Variable")) == []


@pytest.mark.parametrize(
    ("source", "language"),
    [
        ('{"_sid": "npc", "hp": 3}', None),
        ('_sid = "npc"\nhp = 3\n', None),
        ("_sid: npc\nhp: 3\n", None),
        ("{\n  _sid: npc\n  hp: 3\n}\n", None),
        ("_sid: npc\nhp: 3\n", "yaml"),
        ('_sid = "npc"\nhp = 3\n', "toml"),
    ],
)
def test_variables_in_every_language(source: str, language: str | None) -> None:
    fields = {"editorLanguage": language} if language else {}
    assert parse_variables_doc(variable("v", source, **fields)) == {"_sid": "npc", "hp": 3}


def test_nested_yaml_variables_are_not_misread_as_hjson_strings() -> None:
    state = parse_variables_doc(variable("v", "_sid: player\nstats:\n  courage: 5\ninventory:\n  - name: key\n"))
    assert state == {"_sid": "player", "stats": {"courage": 5}, "inventory": [{"name": "key"}]}


@pytest.mark.parametrize(
    ("source", "fragment", "line"),
    [
        ("", "empty", 1),
        ("courage: 5\n", "the state has no id: add a first line such as `_sid: player`", 1),
        ("- a\n- b\n", "must be an object", 1),
        ("_sid: 3player\nx: 1\n", "`_sid` must be a name", 1),
        ("x: 1\n_sid: my npc\n", "`_sid` must be a name", 2),
    ],
)
def test_variable_errors(source: str, fragment: str, line: int) -> None:
    with pytest.raises(ContentError, match=fragment) as info:
        parse_variables_doc(variable("v", source))
    assert info.value.line == line


def test_variable_syntax_error_in_declared_language_has_position() -> None:
    with pytest.raises(ContentError) as info:
        parse_variables_doc(variable("v", "_sid: npc\nhp: [1, 2\nmp: 3\n", editorLanguage="yaml"))
    assert info.value.line == 3


def test_duplicate_sids_are_reported_on_the_later_document() -> None:
    docs = [variable("b", "x: 1\n_sid: hero\n"), variable("a", "_sid: hero\n"), variable("c", "_sid: other\n")]
    problems = check_unique_sids(docs)
    assert len(problems) == 1
    problem = problems[0]
    assert (problem.code, problem.doc_id, problem.line) == ("duplicate-sid", "b", 2)
    assert "'hero'" in problem.message and "document a" in problem.message
    assert collect_states(docs)["hero"] == {"_sid": "hero"}


# -- Scenarios ---------------------------------------------------------------------------


@pytest.fixture
def states() -> dict:
    return collect_states(
        [
            variable(
                "v1",
                "_sid: player\ncourage: 5\nspeed: 1.5\nname: Ann\nfound: false\nnote: null\n"
                "stats:\n  hp: 10\n  tags: [a]\ninventory:\n  - {name: key, qty: 1}\n",
            ),
            variable("v2", "_sid: world\nseason: autumn\n"),
        ]
    )


def test_garden_scenarios_are_valid() -> None:
    states = collect_states(_garden("Variable"))
    for item in _garden("Scenario"):
        assert validate_scenario(item, states) == [], item["name"]


def test_a_valid_scenario_has_no_problems(states: dict) -> None:
    source = (
        "player: {\n  courage: 8\n  speed: 2\n  note: [1, 2]\n  stats: {\n    hp: 3\n  }\n"
        '  inventory: [\n    { name: "map", qty: 2 }\n  ]\n}\nworld: {\n  season: winter\n}\n'
    )
    assert validate_scenario(scenario("s", source), states) == []


def test_scenario_problems(states: dict) -> None:
    source = (
        "player: {\n"
        "  courage: high\n"  # 2: type changed
        "  speed: 2\n"  # int for a number: fine
        "  luck: 3\n"  # 4: unknown property
        "  stats: {\n    hp: 1.5\n    mana: 2\n  }\n"  # 6: integer gets a fraction, 7: unknown nested
        "  found: 0\n"  # 9: boolean gets a number
        '  inventory: [{"name": 1}]\n'  # 10: array items typed
        "  _sid: other\n"  # 11
        "}\n"
        "villain: {\n  anger: 3\n}\n"  # 13: unknown state
    )
    problems = validate_scenario(scenario("s", source), states)
    found = {(p.code, p.path, p.line) for p in problems}
    assert found == {
        ("type-changed", "player.courage", 2),
        ("unknown-property", "player.luck", 4),
        ("type-changed", "player.stats.hp", 6),
        ("unknown-property", "player.stats.mana", 7),
        ("type-changed", "player.found", 9),
        ("type-changed", "player.inventory", 10),
        ("sid-override", "player._sid", 11),
        ("unknown-state", "villain", 13),
    }
    by_path = {p.path: p for p in problems}
    assert "integer in the defaults" in by_path["player.courage"].message
    assert "string" in by_path["player.courage"].message
    assert "world" in by_path["villain"].message and "player" in by_path["villain"].message
    assert all(p.doc_id == "s" for p in problems)


def test_scenario_parse_error_is_a_problem_with_position(states: dict) -> None:
    problems = validate_scenario(scenario("s", "player: {\n  courage: [1,\n}\n", editorLanguage="hjson"), states)
    assert [(p.code, p.line) for p in problems] == [("parse-error", 3)]
    assert problems[0].column is not None


def test_scenario_that_is_not_an_object(states: dict) -> None:
    with pytest.raises(ContentError, match="keyed by state id"):
        parse_scenario_doc(scenario("s", "[1, 2]"))
    assert parse_scenario_doc(scenario("s", "")) == {}


# -- type inference -------------------------------------------------------------------------


def test_infer_schema_is_recursive_and_strict() -> None:
    assert infer_schema({"a": 1, "b": [{"x": 1}, {"x": 2.5, "y": "s"}], "c": None}) == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "string"}},
                    "required": ["x"],
                    "additionalProperties": False,
                },
            },
            "c": {},
        },
        "required": ["a", "b", "c"],
        "additionalProperties": False,
    }
    assert merge_schemas({"type": "string"}, {"type": "integer"}) == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }
    assert infer_schema([]) == {"type": "array", "items": {}}


# -- Maps ------------------------------------------------------------------------------------


def _map(**content) -> dict:
    base = {"width": 4, "height": 3, "cells": {}, "edges": {}, "markers": {}}
    base.update(content)
    return doc("Map", "m1", content=base)


def test_a_valid_map() -> None:
    item = _map(
        cells={"0,0": {"type": "floor"}, "3,2": {"type": "water", "depth": 2}},
        edges={"0,0:N": {"type": "wall"}, "3,2:E": {"type": "door", "locked": True}},
        markers={"spawn": {"x": 1, "y": 2, "facing": "N"}},
        editor={"zoom": 2, "tool": "bucket"},
        properties={"tileset": "garden"},
    )
    assert validate_map(item) == []
    exported, problems = check_map_content(item["content"])
    assert problems == []
    assert exported == {
        "width": 4,
        "height": 3,
        "cells": {"0,0": {"type": "floor"}, "3,2": {"type": "water", "depth": 2}},
        "edges": {"0,0:N": {"type": "wall"}, "3,2:E": {"type": "door", "locked": True}},
        "markers": {"spawn": {"x": 1, "y": 2, "facing": "N"}},
        "properties": {"tileset": "garden"},
    }


def test_map_problems() -> None:
    item = _map(
        cells={
            "4,0": {"type": "floor"},  # x out of bounds
            "0,3": {"type": "floor"},  # y out of bounds
            "-1,0": {"type": "floor"},  # negative
            "01,1": {"type": "floor"},  # not canonical
            "a,b": {"type": "floor"},  # malformed
            "1,1": {"kind": "floor"},  # no type
            "2,1": "floor",  # not an object
        },
        edges={
            "1,1:S": {"type": "wall"},
            "1,2:N": {"type": "wall"},  # the same edge as 1,1:S
            "9,9:N": {"type": "wall"},  # out of bounds
            "1,1:X": {"type": "wall"},  # bad side
            "0,0:W": {"type": ""},  # empty type
        },
        markers={"spawn": {"x": 4, "y": 0}, "exit": {"x": "1", "y": 0}, "ok": {"x": 0, "y": 0}},
    )
    found = {(p.code, p.path) for p in validate_map(item)}
    assert found == {
        ("out-of-bounds", 'cells["4,0"]'),
        ("out-of-bounds", 'cells["0,3"]'),
        ("out-of-bounds", 'cells["-1,0"]'),
        ("bad-key", 'cells["01,1"]'),
        ("bad-key", 'cells["a,b"]'),
        ("missing-type", 'cells["1,1"]'),
        ("bad-entry", 'cells["2,1"]'),
        ("duplicate-edge", 'edges["1,2:N"]'),
        ("out-of-bounds", 'edges["9,9:N"]'),
        ("bad-key", 'edges["1,1:X"]'),
        ("missing-type", 'edges["0,0:W"]'),
        ("out-of-bounds", 'markers["spawn"]'),
        ("bad-marker", 'markers["exit"]'),
    }
    exported, _ = check_map_content(item["content"])
    assert exported is not None
    assert exported["cells"] == {}
    assert exported["edges"] == {"1,1:S": {"type": "wall"}}
    assert exported["markers"] == {"ok": {"x": 0, "y": 0}}
    message = next(p.message for p in validate_map(item) if p.path == 'cells["4,0"]')
    assert "x 0..3, y 0..2" in message


@pytest.mark.parametrize("width", [0, -1, 2.5, "4", None, True])
def test_map_dimensions(width: object) -> None:
    problems = validate_map(_map(width=width))
    assert [(p.code, p.path) for p in problems] == [("bad-dimension", "width")]
    assert check_map_content(_map(width=width)["content"])[0] is None


def test_map_markers_as_a_list_and_default_content() -> None:
    item = _map(markers=[{"name": "spawn", "x": 0, "y": 0}, {"name": "spawn", "x": 1, "y": 1}, {"x": 1}])
    assert {(p.code, p.path) for p in validate_map(item)} == {
        ("bad-marker", "markers[1]"),
        ("bad-marker", "markers[2]"),
    }
    assert check_map_content(item["content"])[0]["markers"] == {"spawn": {"x": 0, "y": 0}}
    fresh = doc("Map", "m", content={"width": 16, "height": 16, "cells": {}, "edges": {}, "markers": []})
    assert validate_map(fresh) == []
    assert validate_map(doc("Map", "m", content="nope"))[0].code == "bad-entry"
