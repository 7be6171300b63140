"""Every problem code, with its line and column."""

from __future__ import annotations

import pytest

from storyloom.script import PROBLEM_CODES, SetLine, TextLine, parse_script

KNOWN = {
    "player": {"_sid": "player", "courage": 5, "inventory": [{"name": "key"}], "tags": []},
    "woman": {"_sid": "woman", "mood": "neutral"},
}


def problems(text: str, known=None) -> list[tuple[int, int, str]]:
    return [(p.line, p.column, p.code) for p in parse_script(text, known_state=known).problems]


def test_unclosed_if_reported_at_each_open_if() -> None:
    text = "@if v.a.b\n::A:: hi\n  @if v.a.c\n  @endif\n@if v.a.d\n"
    assert problems(text) == [(1, 1, "unclosed-if"), (5, 1, "unclosed-if")]


def test_else_and_endif_without_if() -> None:
    assert problems("::A:: hi\n  @else\n@endif") == [(2, 3, "else-without-if"), (3, 1, "endif-without-if")]


def test_endif_after_closed_if() -> None:
    assert problems("@if v.a.b\n@endif\n@endif") == [(3, 1, "endif-without-if")]


def test_duplicate_else() -> None:
    assert problems("@if v.a.b\n@else\n@else\n@endif") == [(3, 1, "duplicate-else")]


def test_nested_else_belongs_to_the_inner_if() -> None:
    text = "@if v.a.b\n  @if v.a.c\n  @else\n  @endif\n@else\n@endif"
    assert problems(text) == []


def test_trailing_text_after_else_and_endif() -> None:
    assert problems("@if v.a.b\n@else if v.a.c\n@endif x") == [(2, 7, "trailing-text"), (3, 8, "trailing-text")]


@pytest.mark.parametrize("text", ["@when x", "@IF v.a.b", "@", "@ifx v.a.b", "@sets v.a.b = 1"])
def test_unknown_directive_is_kept_as_text(text: str) -> None:
    parsed = parse_script(text)
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, 1, "unknown-directive")]
    assert parsed.lines == [TextLine(1, text)]


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("@set", 5, "needs a variable path"),
        ("@set 3 = 4", 6, "needs a variable path"),
        ("@set player.courage = 4", 6, "needs a variable path"),
        ("@set defaults.variables.player.courage = 4", 6, "cannot assign to defaults"),
        ("@set variables = 4", 16, "expected '.'"),
        ("@set variables.player.courage 4", 31, "expected an assignment operator"),
        ("@set variables.player.courage == 4", 31, "expected an assignment operator"),
        ("@set variables.player.courage =", 32, "a value must follow '='"),
        ("@set variables.player.courage := 4", 31, "unexpected character ':'"),
        ("@set variables.player.[0] = 4", 23, "a property name must follow '.'"),
        ("@set @set v.a.b = 1", 6, "unexpected character '@'"),
    ],
)
def test_bad_set(text: str, column: int, fragment: str) -> None:
    parsed = parse_script("// first\n" + text)
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(2, column, "bad-set")]
    assert fragment in parsed.problems[0].message
    assert parsed.lines[1] == TextLine(2, text)


def test_bad_expression_in_set_value_keeps_the_set_line() -> None:
    parsed = parse_script("@set variables.player.courage += (1 +")
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, 38, "bad-expression")]
    assert parsed.lines == [SetLine(1, "variables.player.courage", "+=", "(1 +")]


def test_bad_expression_in_set_value_split_at_the_first_operator() -> None:
    parsed = parse_script('@set v.a["x=y"] = 1 = 2')
    assert parsed.lines == [SetLine(1, 'v.a["x=y"]', "=", "1 = 2")]
    assert [(p.column, p.code) for p in parsed.problems] == [(21, "bad-expression")]


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("@if", 4, "needs a condition"),
        ("@if v.a.b ==", 13, "expression expected"),
        ("@if v.a.b = 1", 11, "use == to compare"),
        ("@if 1 < 2 < 3", 11, "cannot be chained"),
        ("@if player == 'x'", 5, "unknown name 'player'"),
        ("@if 'open", 5, "unclosed string"),
        ("   @if (1", 10, "expected ')'"),
        ("@if v.a.b # x", 11, "unexpected character '#'"),
    ],
)
def test_bad_expression_in_if(text: str, column: int, fragment: str) -> None:
    parsed = parse_script(text + "\n@endif")
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, column, "bad-expression")]
    assert fragment in parsed.problems[0].message


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("::A:: Hi ${v.a.b +}", 19, "expression expected"),
        ("::A:: Hi ${v.a.b", 10, "unclosed ${"),
        ("::A:: Hi ${ }", 10, "empty ${}"),
        ("Some text ${1 +* 2}", 16, "unexpected '*'"),
        ("<Say(${bad name})>", 8, "unknown name 'bad'"),
    ],
)
def test_bad_expression_in_interpolation(text: str, column: int, fragment: str) -> None:
    parsed = parse_script(text)
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, column, "bad-expression")]
    assert fragment in parsed.problems[0].message


def test_unknown_path_only_with_known_state() -> None:
    text = (
        "@if variables.player.path == 'direct'\n"  # 1: unknown property (read)
        "@endif\n"
        "::Woman:: ${v.woman.mood} ${v.stranger.name}\n"  # 3: the second is an unknown state id
        "@set variables.player.path = 'x'\n"  # 4: "=" creates it: a warning
        "@set variables.player.gold += 1\n"  # 5: compound reads it: an error
        "@set v.player.courage = defaults.variables.player.nerve\n"  # 6: unknown in the value
        "@if v.player.inventory[0].name == v.player.inventory[1].name\n"  # 7: index 1 out of range
        "@endif\n"
        "@if v.player.inventory[v.player.courage].name and v.player.courage.x\n"  # 9: computed index ok
        "@endif\n"
    )
    assert problems(text) == []
    found = parse_script(text, known_state=KNOWN).problems
    assert [(p.line, p.column, p.code, p.severity) for p in found] == [
        (1, 5, "unknown-path", "error"),
        (3, 29, "unknown-path", "error"),
        (4, 6, "unknown-path", "warning"),
        (5, 6, "unknown-path", "error"),
        (6, 25, "unknown-path", "error"),
        (7, 35, "unknown-path", "error"),
        (9, 51, "unknown-path", "error"),
    ]
    messages = [p.message for p in found]
    assert messages[0] == "unknown variable path variables.player.path: variables.player has no property 'path'"
    assert messages[1] == "unknown variable path v.stranger.name: no variables with state id 'stranger'"
    assert "@set will create it" in messages[2]
    assert messages[5] == (
        "unknown variable path v.player.inventory[1].name: variables.player.inventory has no index 1"
    )
    assert messages[6] == "unknown variable path v.player.courage.x: variables.player.courage has no property 'x'"


@pytest.mark.parametrize(
    ("text", "column", "severity"),
    [
        ("<Shake(2)> {bad}", 12, "error"),
        ('<Shake(2)> {"a": 1', 12, "error"),
        ('<Shake(2)> {"a": [1}', 12, "error"),
        ("::A:: hello {oops}", 13, "warning"),
        ('::A:: hello {"a": 1,}', 13, "warning"),
        ("  ::A:: hello {'a': 1}", 15, "warning"),
    ],
)
def test_bad_json(text: str, column: int, severity: str) -> None:
    found = parse_script(text).problems
    assert [(p.line, p.column, p.code, p.severity) for p in found] == [(1, column, "bad-json", severity)]


def test_text_ending_with_unbalanced_braces_is_not_json() -> None:
    parsed = parse_script('::A:: hello {"a": 1}}x}')
    assert parsed.problems == []
    assert parsed.lines[0].text == 'hello {"a": 1}}x}'


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("<Fade(1, 2>", 6, "( is never closed"),
        ('<Say("unclosed)>', 6, "unclosed string"),
        ("<Fade(1) x", 10, "expected >"),
        ("<Fade(1)", 9, "expected >"),
        ("<Fade(1)> then text", 11, "unexpected text after the command"),
        ('<Fade(1)> {"a": 1} tail', 20, "unexpected text after the command's JSON"),
    ],
)
def test_bad_command(text: str, column: int, fragment: str) -> None:
    found = parse_script(text).problems
    assert [(p.line, p.column, p.code) for p in found] == [(1, column, "bad-command")]
    assert fragment in found[0].message


@pytest.mark.parametrize("text", ["::Narrator hello", ":: :: hello", "::::"])
def test_bad_speech(text: str) -> None:
    parsed = parse_script(text)
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, 1, "bad-speech")]
    assert parsed.lines == [TextLine(1, text)]


@pytest.mark.parametrize("text", ["[#bad tag]::A:: hi", "[#]::A:: hi", "[#ok] hello", "  [#t-1]::A:: hi"])
def test_bad_tag(text: str) -> None:
    parsed = parse_script(text)
    column = len(text) - len(text.lstrip()) + 1
    assert [(p.line, p.column, p.code) for p in parsed.problems] == [(1, column, "bad-tag")]
    assert parsed.lines[0].kind == "text"


def test_every_code_is_covered_here() -> None:
    text = (
        "@if v.a.b\n"  # unclosed-if (nothing closes it)
        "@else x\n"  # trailing-text
        "@else\n"  # duplicate-else
        "@wat\n"  # unknown-directive
        "@set = 1\n"  # bad-set
        "@if (\n@endif\n"  # bad-expression
        "::A:: ${v.a.zzz}\n"  # unknown-path
        "<X()> {bad}\n"  # bad-json
        "<X(>\n"  # bad-command
        "::A hi\n"  # bad-speech
        "[#?]::A:: hi\n"  # bad-tag
    )
    parsed = parse_script(text, known_state={"a": {"b": 1}})
    codes = {p.code for p in parsed.problems}
    parsed2 = parse_script("@else\n@endif")
    codes |= {p.code for p in parsed2.problems}
    assert codes == set(PROBLEM_CODES)


def test_problems_are_sorted_by_line_then_column() -> None:
    found = parse_script("@if v.a.b\n::A:: ${x} ${y}\n@endif\n@endif").problems
    assert [(p.line, p.column) for p in found] == [(2, 9), (2, 14), (4, 1)]
