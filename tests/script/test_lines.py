"""Every line form of the scripting syntax, and its JSON shape."""

from __future__ import annotations

import dataclasses
import json

import pytest

from storyloom.script import (
    CommandLine,
    CommentLine,
    ElseLine,
    EndIfLine,
    IfLine,
    SetLine,
    SpeechLine,
    TextLine,
    parse_script,
)


def one(text: str):
    parsed = parse_script(text)
    assert len(parsed.lines) == 1, parsed.lines
    return parsed.lines[0], parsed.problems


def test_comment() -> None:
    line, problems = one("   // a note  ")
    assert line == CommentLine(1, "a note")
    assert problems == []
    assert line.to_dict() == {"type": "comment", "line": 1, "text": "a note"}


@pytest.mark.parametrize(
    ("text", "actor", "speech", "tag", "expression", "data"),
    [
        ("::Narrator:: Hello!", "Narrator", "Hello!", None, None, None),
        ("::Kenji::Hello.", "Kenji", "Hello.", None, None, None),
        ("::Memory Echo:: You remembered me.", "Memory Echo", "You remembered me.", None, None, None),
        ("::Scorpio:: We need to talk. [serious]", "Scorpio", "We need to talk.", None, "serious", None),
        ("[#tag_1234]::Narrator::Hello! [happy]", "Narrator", "Hello!", "tag_1234", "happy", None),
        ("    [#edger_5Avk] ::Rodney:: Never! [angry]", "Rodney", "Never!", "edger_5Avk", "angry", None),
        ("[#ch1.scene_2.L3]::A:: Hi", "A", "Hi", "ch1.scene_2.L3", None, None),
        ('::A:: Hi [very happy] {"volume": 0.5}', "A", "Hi", None, "very happy", {"volume": 0.5}),
        ('::A:: Hi {"a": {"b": [1, "}"]}}', "A", "Hi", None, None, {"a": {"b": [1, "}"]}}),
        ("::Dr: Who:: Time.", "Dr: Who", "Time.", None, None, None),
        ("::A:: [waving] Hello there!", "A", "[waving] Hello there!", None, None, None),
        ("::A:: [happy]", "A", "", None, "happy", None),
        ("::A::", "A", "", None, None, None),
        ("::A:: Gold: ${v.player.gold}", "A", "Gold: ${v.player.gold}", None, None, None),
        ("::A:: Gold: ${v.player.gold} [sly]", "A", "Gold: ${v.player.gold}", None, "sly", None),
        ("::A:: see [#x] there", "A", "see [#x] there", None, None, None),
    ],
)
def test_speech(text, actor, speech, tag, expression, data) -> None:
    line, problems = one(text)
    assert problems == []
    assert line == SpeechLine(1, actor, speech, tag, expression, data)


def test_speech_to_dict_is_json_ready() -> None:
    line, _ = one('[#t1]::Woman:: Hi [sad] {"k": [1, 2]}')
    d = line.to_dict()
    assert d == {
        "type": "speech",
        "line": 1,
        "actor": "Woman",
        "text": "Hi",
        "tag": "t1",
        "expression": "sad",
        "json": {"k": [1, 2]},
    }
    assert json.loads(json.dumps(d)) == d


def test_speech_with_bad_json_keeps_it_in_the_text() -> None:
    line, problems = one("::A:: Hello {not json}")
    assert line == SpeechLine(1, "A", "Hello {not json}")
    assert [(p.code, p.severity, p.column) for p in problems] == [("bad-json", "warning", 13)]


def test_speech_with_a_json_array_is_not_an_object() -> None:
    line, problems = one("::A:: Hello {[1]}")
    assert line.json is None and line.text == "Hello {[1]}"
    assert problems[0].code == "bad-json"


@pytest.mark.parametrize(
    ("text", "name", "params", "data", "comment"),
    [
        ("<FadeIn()>", "FadeIn", [], None, None),
        ("<FadeOut( )>", "FadeOut", [], None, None),
        ('<Fade(1, "red")>', "Fade", ["1", '"red"'], None, None),
        ("<ChangeLocation(Forest_01)>", "ChangeLocation", ["Forest_01"], None, None),
        ("<ScreenMessage(After some time)>", "ScreenMessage", ["After some time"], None, None),
        ("<Animate(rodney,ponder)>", "Animate", ["rodney", "ponder"], None, None),
        ('<Say("a, b", \'c, d\', [1, 2], {"x": 1, "y": 2}, f(3, 4))>', "Say",
         ['"a, b"', "'c, d'", "[1, 2]", '{"x": 1, "y": 2}', "f(3, 4)"], None, None),
        ('<Say("a \\" ) > b")>', "Say", ['"a \\" ) > b"'], None, None),
        ("<F(a,)>", "F", ["a", ""], None, None),
        ("<Audio.Play(theme)>", "Audio.Play", ["theme"], None, None),
        ("< Wait (5) >", "Wait", ["5"], None, None),
        ('<Shake(2)> {"strength": 3}', "Shake", ["2"], {"strength": 3}, None),
        ('<PlayBackgroundMusic("calm_library")>  // Play calming music', "PlayBackgroundMusic",
         ['"calm_library"'], None, "Play calming music"),
        ('<Shake(2)> {"s": 3} // strong', "Shake", ["2"], {"s": 3}, "strong"),
        ("  <Pause(2)> ", "Pause", ["2"], None, None),
    ],
)  # fmt: skip
def test_command(text, name, params, data, comment) -> None:
    line, problems = one(text)
    assert problems == []
    assert line == CommandLine(1, name, params, data, comment)


def test_command_to_dict() -> None:
    line, _ = one('<Fade(1, "red")> {"a": true}')
    assert line.to_dict() == {
        "type": "command",
        "line": 1,
        "name": "Fade",
        "params": ["1", '"red"'],
        "json": {"a": True},
        "comment": None,
    }


def test_command_with_bad_json_drops_it() -> None:
    line, problems = one("<Shake(2)> {strength: 3}")
    assert line == CommandLine(1, "Shake", ["2"], None)
    assert [(p.code, p.severity, p.column) for p in problems] == [("bad-json", "error", 12)]


def test_control_flow_and_set() -> None:
    parsed = parse_script(
        "@if variables.player.courage >= 7\n"
        "  @set variables.woman.trust_level += 2\n"
        "@else\n"
        '  @set v.woman.mood = "distant"\n'
        "@endif\n"
    )
    assert parsed.problems == []
    assert parsed.lines == [
        IfLine(1, "variables.player.courage >= 7"),
        SetLine(2, "variables.woman.trust_level", "+=", "2"),
        ElseLine(3),
        SetLine(4, "v.woman.mood", "=", '"distant"'),
        EndIfLine(5),
    ]
    assert [line.to_dict() for line in parsed.lines] == [
        {"type": "if", "line": 1, "condition": "variables.player.courage >= 7"},
        {"type": "set", "line": 2, "path": "variables.woman.trust_level", "operator": "+=", "value": "2"},
        {"type": "else", "line": 3},
        {"type": "set", "line": 4, "path": "v.woman.mood", "operator": "=", "value": '"distant"'},
        {"type": "endif", "line": 5},
    ]


@pytest.mark.parametrize("op", ["=", "+=", "-=", "*=", "/=", "^="])
def test_every_set_operator(op: str) -> None:
    line, problems = one(f"@set variables.player.gold {op} 2 * (3 + 1)")
    assert problems == []
    assert line == SetLine(1, "variables.player.gold", op, "2 * (3 + 1)")


def test_set_value_is_not_called_expression() -> None:
    """``expression`` is the speech line's actor expression; an @set's value is ``value``, in the
    spelled-out ``to_dict`` and in the generic one a subclass falls back to."""
    line, _ = one("@set v.player.mood = \"calm\"")
    assert line.value == '"calm"' and line.expression == '"calm"'
    assert line.to_dict() == {"type": "set", "line": 1, "path": "v.player.mood", "operator": "=", "value": '"calm"'}

    class Tagged(SetLine):
        pass

    generic = Tagged(1, "v.player.mood", "=", '"calm"').to_dict()
    assert "expression" not in generic and generic["value"] == '"calm"'


def test_set_without_spaces_and_with_index() -> None:
    line, problems = one("@set v.player.inventory[0].count-=1")
    assert problems == []
    assert line == SetLine(1, "v.player.inventory[0].count", "-=", "1")


def test_if_with_parenthesis_and_trailing_comment_on_endif() -> None:
    parsed = parse_script("@if(v.a.b)\n@else // otherwise\n@endif   // done")
    assert parsed.problems == []
    assert [line.kind for line in parsed.lines] == ["if", "else", "endif"]
    assert parsed.lines[0] == IfLine(1, "(v.a.b)")


def test_text_lines_keep_indentation_and_blank_lines_are_skipped() -> None:
    parsed = parse_script("if player == 'Rodney':\n\n    You can edit here   \n<b>bold</b>\n< 3 hearts\n")
    assert parsed.problems == []
    assert parsed.lines == [
        TextLine(1, "if player == 'Rodney':"),
        TextLine(3, "    You can edit here"),
        TextLine(4, "<b>bold</b>"),
        TextLine(5, "< 3 hearts"),
    ]
    assert parsed.lines[0].to_dict() == {"type": "text", "line": 1, "text": "if player == 'Rodney':"}


def test_line_numbers_count_every_line_and_crlf() -> None:
    parsed = parse_script("// one\r\n\r\n::A:: three\r\n<X()>\r\n")
    assert [(line.line, line.kind) for line in parsed.lines] == [(1, "comment"), (3, "speech"), (4, "command")]
    assert parsed.lines[1].text == "three"


def test_interpolations_are_listed_with_columns() -> None:
    parsed = parse_script('::A:: ${ v.p.name } has ${v.p.gold} gold\n<Give("${v.p.item}")>\n// ${not.checked}')
    assert [(i.line, i.column, i.expression) for i in parsed.interpolations] == [
        (1, 7, "v.p.name"),
        (1, 25, "v.p.gold"),
        (2, 8, "v.p.item"),
    ]


def test_parsed_script_to_dict() -> None:
    parsed = parse_script("::A:: hi\n@endif")
    d = parsed.to_dict()
    assert d["lines"] == [
        {"type": "speech", "line": 1, "actor": "A", "text": "hi", "tag": None, "expression": None, "json": None},
        {"type": "endif", "line": 2},
    ]
    assert d["problems"] == [
        {"line": 2, "column": 1, "code": "endif-without-if", "message": "@endif without an open @if",
         "severity": "error"}
    ]  # fmt: skip
    assert parsed.ok is False
    assert parse_script("::A:: {bad}").ok is True  # a warning only


@pytest.mark.parametrize(
    "kind, args",
    [
        (SpeechLine, (1, "A", "hi")),
        (CommandLine, (1, "Go", [])),
        (CommentLine, (1, "c")),
        (IfLine, (1, "x")),
        (ElseLine, (1,)),
        (EndIfLine, (1,)),
        (SetLine, (1, "v.p.x", "=", "1")),
        (TextLine, (1, "t")),
    ],
)
def test_a_subclass_that_adds_a_field_exports_it(kind, args) -> None:
    extended = dataclasses.make_dataclass("Extended", [("extra", int, dataclasses.field(default=7))], bases=(kind,))
    out = extended(*args).to_dict()
    assert out["extra"] == 7 and out["type"] == kind.kind and out["line"] == 1
    # The line kind itself keeps its spelled-out form, without the extra field.
    assert "extra" not in kind(*args).to_dict()
