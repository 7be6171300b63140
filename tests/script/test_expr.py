"""The expression evaluator: precedence, types, paths, every error, @set and ${...}."""

from __future__ import annotations

import copy

import pytest

from storyloom.script import (
    ExpressionError,
    SetLine,
    SetSyntaxError,
    UnknownPath,
    apply_set,
    evaluate,
    format_value,
    interpolate,
    parse_expression,
    parse_script,
    parse_set,
    truthy,
)
from storyloom.script.expr import MAX_DEPTH

DEFAULTS = {
    "player": {
        "_sid": "player",
        "courage": 5,
        "gold": 20,
        "name": "Kenji",
        "ratio": 0.5,
        "inventory": [{"name": "key", "count": 1}, {"name": "map", "count": 2}],
        "stats": {"hp": {"max": 10}},
        "odd key": "yes",
        "flags": [],
    },
    "woman": {"_sid": "woman", "mood": "neutral", "trust_level": 4, "remembers": True},
}


@pytest.fixture
def live() -> dict:
    state = copy.deepcopy(DEFAULTS)
    state["player"]["courage"] = 8
    state["woman"]["mood"] = "warm"
    return state


def ev(expr: str, live: dict | None = None):
    return evaluate(expr, live if live is not None else DEFAULTS, DEFAULTS)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("100 / 10 / 5", 2),
        ("2 ^ 3 ^ 2", 512),
        ("(2 ^ 3) ^ 2", 64),
        ("-2 ^ 2", -4),
        ("(-2) ^ 2", 4),
        ("2 ^ -1", 0.5),
        ("2 * 3 ^ 2", 18),
        ("-3 * 2", -6),
        ("- -3", 3),
        ("7 % 3", 1),
        ("-7 % 3", -1),
        ("7 % -3", 1),
        ("7.5 % 2", 1.5),
        ("1 + 6 % 4 * 2", 5),
        ("7 / 2", 3.5),
        ("8 / 2", 4),
        ("1.5e2", 150.0),
        ("1 + 2 == 3", True),
        ("1 + 2 > 2 * 1", True),
        ("1 < 2 == true", "error"),
        ("not 1 == 2", True),
        ("!1 == 2", True),
        ("not true and false", False),
        ("not (true and false)", True),
        ("true or false and false", True),
        ("(true or false) and false", False),
        ("false || true && false", False),
        ("!false && !null", True),
        ("not not 0", False),
        ("1 + not 0 == 1", "error"),
    ],
)
def test_precedence_and_arithmetic(expr: str, value) -> None:
    if value == "error":
        with pytest.raises(ExpressionError):
            ev(expr)
        return
    result = ev(expr)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("'a' + \"b\"", "ab"),
        ("'it\\'s' + \"\\n\"", "it's\n"),
        ("'tab\\there'", "tab\there"),
        ("'keep \\q'", "keep \\q"),
        ("'apple' < 'banana'", True),
        ("'B' < 'a'", True),
        ("'x' >= 'x'", True),
        ("1 == 1.0", True),
        ("1 == '1'", False),
        ("true == 1", False),
        ("0 == false", False),
        ("null == null", True),
        ("null != false", True),
        ("'a' != 'b'", True),
        ("true", True),
        ("false", False),
        ("null", None),
        ("1 and 0", False),
        ("'' or 'x'", True),
    ],
)
def test_types_and_comparisons(expr: str, value) -> None:
    assert ev(expr) == value
    assert type(ev(expr)) is type(value)


def test_and_or_short_circuit_never_touch_the_right_side() -> None:
    assert ev("false and v.nobody.x") is False
    assert ev("true or 1 / 0") is True
    with pytest.raises(UnknownPath):
        ev("true and v.nobody.x")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, False), (False, False), (0, False), (0.0, False), ("", False), ([], False), ({}, False),
     (True, True), (1, True), (-0.5, True), ("0", True), ("false", True), ([0], True), ({"a": None}, True)],
)  # fmt: skip
def test_truthiness(value, expected: bool) -> None:
    assert truthy(value) is expected
    assert evaluate("not not v.x.y", {"x": {"y": value}}) is expected


def test_paths_live_defaults_and_aliases(live: dict) -> None:
    assert ev("variables.player.courage", live) == 8
    assert ev("v.player.courage", live) == 8
    assert ev("defaults.variables.player.courage", live) == 5
    assert ev("defaults.v.player.courage + d.variables.player.courage + d.v.player.courage", live) == 15
    assert ev("v.woman.mood == 'warm' and defaults.variables.woman.mood == 'neutral'", live) is True
    assert ev("v.player.inventory[1].name", live) == "map"
    assert ev("v.player.inventory[0]['count'] + v.player.inventory[1].count", live) == 3
    assert ev("v.player.stats.hp.max", live) == 10
    assert ev("v.player['odd key']", live) == "yes"
    assert ev("v.player.inventory[v.player.courage - 7].name", live) == "map"
    assert ev("v.player.inventory[2 / 2].name", live) == "map"
    assert ev("v.player.flags == defaults.variables.player.flags", live) is True
    assert ev("v.player.stats == defaults.variables.player.stats", live) is True


def test_live_falls_back_to_defaults_for_missing_parts() -> None:
    partial = {"player": {"courage": 9}}
    assert evaluate("v.player.courage", partial, DEFAULTS) == 9
    assert evaluate("v.player.gold", partial, DEFAULTS) == 20
    assert evaluate("v.woman.mood", partial, DEFAULTS) == "neutral"
    assert evaluate("v.player.courage", partial) == 9


def test_only_missing_properties_fall_back_to_defaults() -> None:
    emptied = {"player": {"inventory": [], "stats": 3}}
    with pytest.raises(UnknownPath) as info:
        evaluate("v.player.inventory[0].name", emptied, DEFAULTS)  # an emptied list stays empty
    assert info.value.message.endswith("variables.player.inventory has no index 0")
    with pytest.raises(UnknownPath):
        evaluate("v.player.stats.hp", emptied, DEFAULTS)  # live's own value has no such property
    assert evaluate("v.player.inventory", emptied, DEFAULTS) == []
    assert evaluate("v.player.courage", emptied, DEFAULTS) == 5


def test_keywords_are_allowed_after_a_dot() -> None:
    assert evaluate("v.not.and + v.not.true", {"not": {"and": 1, "true": 2}}) == 3


@pytest.mark.parametrize(
    ("expr", "column", "message"),
    [
        ("", 1, "expression expected"),
        ("1 +", 4, "expression expected"),
        ("(1 + 2", 7, "expected ')' to close the parenthesis opened at column 1, found end of expression"),
        ("1 + 2)", 6, "unexpected ')'"),
        ("v.player.inventory[0", 21, "expected ']' to close the index opened at column 19, found end of expression"),
        ("'open", 1, "unclosed string"),
        ("1 # 2", 3, "unexpected character '#'"),
        ("12abc", 1, "invalid number '12a'"),
        ("player.courage", 1, "unknown name 'player': variable paths start with variables., v. or defaults.variables."),
        ("defaults.player.courage", 10, "defaults. must be followed by the collection: defaults.variables.<sid>..."),
        ("d.courage", 3, "d. must be followed by the collection: d.variables.<sid>..."),
        ("defaults", 9, "expected '.variables.' after 'defaults'"),
        ("defaults.v", 11, "expected '.' and a state id after 'defaults'"),
        ("variables", 10, "expected '.' and a state id after 'variables'"),
        ("v.player.", 10, "a property name must follow '.', found end of expression"),
        ("v.player.3", 10, "a property name must follow '.', found '3'"),
        ("v.a = 1", 5, "unexpected '=': use == to compare"),
        ("= 1", 1, "unexpected '=': use == to compare"),
        ("v.a += 1", 5, "unexpected '+=': assignments belong in @set"),
        ("1 < 2 < 3", 7, "comparisons cannot be chained: combine them with and"),
        ("1 == 1 != 0", 8, "comparisons cannot be chained: combine them with and"),
        ("1 2", 3, "unexpected '2'"),
        ("()", 2, "unexpected ')'"),
        ("(1)[0]", 4, "unexpected '['"),
        ("9" * 500, 1, "number too large"),
        ("1e999", 1, "number too large"),
    ],
)
def test_syntax_errors(expr: str, column: int, message: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse_expression(expr)
    assert (info.value.message, info.value.column) == (message, column)
    assert not isinstance(info.value, UnknownPath)
    assert str(info.value) == f"{message} (column {column})"


def test_nesting_and_complexity_limits() -> None:
    assert ev("(" * (MAX_DEPTH - 1) + "1" + ")" * (MAX_DEPTH - 1)) == 1
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse_expression("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse_expression("-" * 5000 + "1")
    assert ev("+".join(["1"] * MAX_DEPTH)) == MAX_DEPTH
    with pytest.raises(ExpressionError, match="too complex"):
        parse_expression("+".join(["1"] * (MAX_DEPTH + 2)))


@pytest.mark.parametrize(
    ("expr", "column", "message"),
    [
        ("'a' + 1", 5, "cannot add text and number"),
        ("1 + 'a'", 3, "cannot add number and text"),
        ("true + 1", 6, "cannot add boolean and number"),
        ("null + null", 6, "cannot add null and null"),
        ("'a' - 'b'", 5, "cannot subtract text and text"),
        ("v.player.inventory * 2", 20, "cannot multiply list and number"),
        ("v.player.stats / 2", 16, "cannot divide object and number"),
        ("'a' % 2", 5, "cannot take the remainder of text and number"),
        ("'a' ^ 2", 5, "cannot raise text to a power of number"),
        ("-'a'", 1, "cannot negate text"),
        ("-true", 1, "cannot negate boolean"),
        ("'a' < 1", 5, "cannot compare text and number with <"),
        ("null >= 0", 6, "cannot compare null and number with >="),
        ("true > false", 6, "cannot compare boolean and boolean with >"),
        ("1 / 0", 3, "division by zero"),
        ("1.5 / 0.0", 5, "division by zero"),
        ("1 % 0", 3, "remainder by zero"),
        ("0 ^ -1", 3, "division by zero"),
        ("2 ^ 5000", 3, "number too large"),
        ("10.0 ^ 400", 6, "number too large"),
        ("1e300 * 1e300", 7, "number too large"),
        ("(-8) ^ 0.5", 6, "a negative number to a fractional power is not a real number"),
        ("v.player.inventory[true]", 20, "an index must be a number or text, not boolean"),
        ("v.player.inventory[0.5]", 20, "an index must be a number or text, not number"),
    ],
)
def test_type_and_arithmetic_errors(expr: str, column: int, message: str) -> None:
    parse_expression(expr)  # the syntax is fine: these fail only when evaluated
    with pytest.raises(ExpressionError) as info:
        ev(expr)
    assert (info.value.message, info.value.column) == (message, column)
    assert not isinstance(info.value, UnknownPath)


@pytest.mark.parametrize(
    ("expr", "path", "detail"),
    [
        ("v.stranger.name", "variables.stranger.name", "no state id 'stranger'"),
        ("1 + v.player.path", "variables.player.path", "variables.player has no property 'path'"),
        ("v.player.inventory[5].name", "variables.player.inventory[5].name",
         "variables.player.inventory has no index 5"),
        ("v.player.inventory[-1]", "variables.player.inventory[-1]", "variables.player.inventory has no index -1"),
        ("v.player.inventory.name", "variables.player.inventory.name",
         "variables.player.inventory has no property 'name'"),
        ("v.player.courage.x", "variables.player.courage.x", "variables.player.courage has no property 'x'"),
        ("defaults.variables.player.nerve", "defaults.variables.player.nerve",
         "defaults.variables.player has no property 'nerve'"),
        ("v.player['no such']", 'variables.player["no such"]', "variables.player has no property 'no such'"),
    ],
)  # fmt: skip
def test_unknown_paths(expr: str, path: str, detail: str) -> None:
    with pytest.raises(UnknownPath) as info:
        ev(expr)
    assert info.value.path == path
    assert info.value.message == f"unknown variable path {path}: {detail}"
    start = expr.find("v.") if "v." in expr else expr.find("defaults.")
    assert info.value.column == start + 1
    assert isinstance(info.value, ExpressionError)


def test_unknown_path_column_points_at_the_path() -> None:
    with pytest.raises(UnknownPath) as info:
        ev("1 + v.player.path")
    assert info.value.column == 5


def test_defaults_path_ignores_live(live: dict) -> None:
    live["player"]["extra"] = 1
    with pytest.raises(UnknownPath):
        evaluate("defaults.variables.player.extra", live, DEFAULTS)
    assert evaluate("v.player.extra", live, DEFAULTS) == 1


def test_expression_object_reuse_and_paths() -> None:
    expr = parse_expression("v.player.inventory[0].name == defaults.variables.player.inventory[v.player.courage].name")
    assert expr.evaluate({"player": {"inventory": [{"name": "x"}], "courage": 0}}, DEFAULTS) is False
    assert expr.evaluate({"player": {"inventory": [{"name": "key"}], "courage": 0}}, DEFAULTS) is True
    with pytest.raises(UnknownPath):
        expr.evaluate(DEFAULTS, DEFAULTS)  # courage 5: defaults.variables.player.inventory[5] does not exist
    refs = expr.paths()
    assert [(r.text, r.column, r.from_defaults, r.keys) for r in refs] == [
        ("v.player.inventory[0].name", 1, False, ("player", "inventory", 0, "name")),
        ("defaults.variables.player.inventory[v.player.courage].name", 31, True, ("player", "inventory", None, "name")),
        ("v.player.courage", 67, False, ("player", "courage")),
    ]


# ----------------------------------------------------------------------------- @set


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("@set variables.player.gold = 3", ("player", "gold"), 3),
        ("@set variables.player.gold += 5", ("player", "gold"), 25),
        ("@set variables.player.gold -= 5", ("player", "gold"), 15),
        ("@set variables.player.gold *= 2", ("player", "gold"), 40),
        ("@set variables.player.gold /= 8", ("player", "gold"), 2.5),
        ("@set variables.player.gold /= 4", ("player", "gold"), 5),
        ("@set variables.player.gold ^= 2", ("player", "gold"), 400),
        ("@set v.player.name += ' the brave'", ("player", "name"), "Kenji the brave"),
        ("@set v.player.inventory[1].count += v.player.inventory[0].count", ("player", "inventory", 1, "count"), 3),
        (
            "@set v.player.stats.hp.max = defaults.variables.player.stats.hp.max * 2",
            ("player", "stats", "hp", "max"),
            20,
        ),
        ("@set v.woman.remembers = not v.woman.remembers", ("woman", "remembers"), False),
        ("@set v.player['odd key'] = 'no'", ("player", "odd key"), "no"),
        ("  @set v.player.gold=1+1", ("player", "gold"), 2),
        ("v.player.gold = 7", ("player", "gold"), 7),
    ],
)
def test_apply_set_operators(text: str, path: tuple, value) -> None:
    live = copy.deepcopy(DEFAULTS)
    assert apply_set(text, live, DEFAULTS) == value
    node = live
    for key in path:
        node = node[key]
    assert node == value
    assert type(node) is type(value)
    assert DEFAULTS["player"]["gold"] == 20  # defaults are never written


def test_apply_set_accepts_a_parsed_set_line() -> None:
    live = copy.deepcopy(DEFAULTS)
    (line,) = parse_script("@set variables.woman.trust_level += 3").lines
    assert isinstance(line, SetLine)
    assert apply_set(line, live, DEFAULTS) == 7
    assert apply_set(parse_set("@set v.woman.trust_level -= 1"), live, DEFAULTS) == 6
    assert live["woman"]["trust_level"] == 6


def test_apply_set_copies_missing_state_from_defaults() -> None:
    live: dict = {"player": {"courage": 9}}
    assert apply_set("@set v.woman.trust_level += 1", live, DEFAULTS) == 5
    assert live["woman"] == {**DEFAULTS["woman"], "trust_level": 5}
    assert apply_set("@set v.player.stats.hp.max += 1", live, DEFAULTS) == 11
    assert live["player"] == {"courage": 9, "stats": {"hp": {"max": 11}}}
    assert DEFAULTS["player"]["stats"]["hp"]["max"] == 10
    assert apply_set("@set v.player.gold += 1", live, DEFAULTS) == 21
    assert live["player"]["gold"] == 21


def test_apply_set_equals_creates_a_last_property_only() -> None:
    live = copy.deepcopy(DEFAULTS)
    assert apply_set('@set variables.player.path = "direct"', live, DEFAULTS) == "direct"
    assert live["player"]["path"] == "direct"
    assert "path" not in DEFAULTS["player"]
    with pytest.raises(UnknownPath) as info:
        apply_set("@set variables.player.missing.deep = 1", live, DEFAULTS)
    assert info.value.path == "variables.player.missing.deep"
    assert info.value.column == 6
    with pytest.raises(UnknownPath):
        apply_set("@set variables.nobody.x = 1", live, DEFAULTS)
    with pytest.raises(UnknownPath):
        apply_set("@set variables.player.inventory[2] = 1", live, DEFAULTS)
    with pytest.raises(UnknownPath):
        apply_set("@set variables.player.inventory.name = 1", live, DEFAULTS)
    with pytest.raises(UnknownPath):
        apply_set("@set variables.player.courage.x = 1", live, DEFAULTS)


def test_apply_set_errors() -> None:
    live = copy.deepcopy(DEFAULTS)
    with pytest.raises(UnknownPath) as unknown:
        apply_set("@set variables.player.luck += 1", live, DEFAULTS)
    assert (unknown.value.column, unknown.value.path) == (6, "variables.player.luck")
    with pytest.raises(ExpressionError) as typed:
        apply_set("@set variables.player.name -= 1", live, DEFAULTS)
    assert (typed.value.message, typed.value.column) == ("cannot subtract text and number", 6)
    with pytest.raises(ExpressionError) as zero:
        apply_set("@set variables.player.gold /= 0", live, DEFAULTS)
    assert zero.value.message == "division by zero"
    with pytest.raises(ExpressionError) as value_error:
        apply_set("@set variables.player.gold = 1 + 'a'", live, DEFAULTS)
    assert (value_error.value.message, value_error.value.column) == ("cannot add number and text", 32)
    with pytest.raises(SetSyntaxError) as syntax:
        apply_set("@set defaults.variables.player.gold = 1", live, DEFAULTS)
    assert syntax.value.column == 6
    with pytest.raises(ExpressionError) as bad_value:
        apply_set("@set v.player.gold = (", live, DEFAULTS)
    assert not isinstance(bad_value.value, SetSyntaxError)
    assert live == DEFAULTS  # nothing was written by a failed @set


def test_parse_set_parts() -> None:
    stmt = parse_set("@set  v.player.inventory[0].count ^= 1 + 1")
    assert (stmt.path.text, stmt.path.column, stmt.operator, stmt.value.text, stmt.value_column) == (
        "v.player.inventory[0].count",
        7,
        "^=",
        "1 + 1",
        38,
    )
    assert stmt.path.keys == ("player", "inventory", 0, "count")


# ----------------------------------------------------------------------------- ${...}


def test_interpolate(live: dict) -> None:
    text = "${v.player.name} has ${ v.player.gold } gold, ${v.player.ratio * 3} ratio, ${v.player.gold / 4}"
    assert interpolate(text, live, DEFAULTS) == "Kenji has 20 gold, 1.5 ratio, 5"
    assert interpolate("${v.woman.remembers} ${null} ${false}", live, DEFAULTS) == "true null false"
    assert interpolate("${v.player.inventory[0]} ${v.player.flags}", live, DEFAULTS) == ('{"name":"key","count":1} []')
    assert interpolate("${'a}b'} and ${\"}\"}", live) == "a}b and }"
    assert interpolate("no braces, $ {x} and {y} stay", live) == "no braces, $ {x} and {y} stay"
    assert interpolate("", live) == ""
    assert interpolate("${defaults.variables.player.courage}/${v.player.courage}", live, DEFAULTS) == "5/8"


@pytest.mark.parametrize(
    ("text", "column", "message", "kind"),
    [
        ("Hi ${v.player.name", 4, "unclosed ${: add a closing }", ExpressionError),
        ("Hi ${ }", 4, "empty ${}", ExpressionError),
        ("Hi ${1 +}", 9, "expression expected", ExpressionError),
        ("Hi ${'a' + 1}", 10, "cannot add text and number", ExpressionError),
        ("Hi ${v.player.nope}!", 6, "unknown variable path variables.player.nope: "
         "variables.player has no property 'nope'", UnknownPath),
    ],
)  # fmt: skip
def test_interpolate_errors(text: str, column: int, message: str, kind: type) -> None:
    with pytest.raises(kind) as info:
        interpolate(text, DEFAULTS, DEFAULTS)
    assert (info.value.message, info.value.column) == (message, column)


@pytest.mark.parametrize(
    ("value", "text"),
    [("x", "x"), (3, "3"), (3.0, "3"), (-0.25, "-0.25"), (1e20, "1e+20"), (True, "true"), (None, "null"),
     ([1, "a"], '[1,"a"]'), ({"k": [True]}, '{"k":[true]}')],
)  # fmt: skip
def test_format_value(value, text: str) -> None:
    assert format_value(value) == text
