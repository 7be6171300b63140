"""Export-mapping templates for speech and command lines."""

from __future__ import annotations

import pytest

from storyloom.script import CommandLine, SpeechLine, join_params, parse_script, render_line, render_mapping

SPEECH = '%actor.Say("%speech", "%expression", "%tag")'
COMMAND = 'ExecuteCommand("%command", %params(,))'


def line(text: str):
    (parsed,) = parse_script(text).lines
    return parsed


def test_reference_examples() -> None:
    assert render_mapping(line("[#tag_1234]::Narrator::Hello! [happy]"), SPEECH) == (
        'Narrator.Say("Hello!", "happy", "tag_1234")'
    )
    assert render_mapping(line('<Fade(1, "red")>'), COMMAND) == 'ExecuteCommand("Fade", 1, "red")'


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("%tag|%actor|%speech|%expression|%json", 't1|Old Man|Hi there|sad|{"v":1,"s":"é"}'),
        ("%command|%params|%params(;)", "||"),
        ("%tagged %actors", "t1ged Old Mans"),
        ("100%% %speech%", "100% Hi there%"),
        ("%unknown %", "%unknown %"),
        ("", ""),
        ("%expression%expression", "sadsad"),
    ],
)
def test_speech_variables(template: str, expected: str) -> None:
    speech = line('[#t1]::Old Man:: Hi there [sad] {"v": 1, "s": "é"}')
    assert render_mapping(speech, template) == expected


def test_missing_parts_render_empty() -> None:
    assert render_mapping(line("::A:: hi"), "[%tag][%expression][%json]") == "[][][]"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("%command(%params)", 'Fade(1, "red", [2, 3])'),
        ("%command(%params(,))", 'Fade(1, "red", [2, 3])'),
        ("%params(;)", '1; "red"; [2, 3]'),
        ("%params( | )", '1 | "red" | [2, 3]'),
        ("%params(, )", '1, "red", [2, 3]'),
        ("%params()", '1"red"[2, 3]'),
        ("%params(\n)", '1\n"red"\n[2, 3]'),
        ("%params(,", '1, "red", [2, 3](,'),
        ("%params)", '1, "red", [2, 3])'),
        ("%json", '{"k":true}'),
        ("%speech%actor%tag%expression", ""),
    ],
)
def test_command_variables(template: str, expected: str) -> None:
    command = line('<Fade(1, "red", [2, 3])> {"k": true}')
    assert render_mapping(command, template) == expected


def test_command_without_params() -> None:
    assert render_mapping(line("<FadeIn()>"), COMMAND) == 'ExecuteCommand("FadeIn", )'
    assert render_mapping(line("<FadeIn()>"), "%command[%params]") == "FadeIn[]"


def test_join_params() -> None:
    assert join_params(["a", "b"]) == "a, b"
    assert join_params(["a", "b"], ",") == "a, b"
    assert join_params(["a", "b"], " ,") == "a ,b"
    assert join_params(["a"], ";") == "a"
    assert join_params([], ",") == ""


def test_escape_applies_to_text_values_not_json() -> None:
    speech = line('::Bob:: She said "hi" [happy] {"q": "\\""}')
    escape = lambda s: s.replace('"', '\\"')  # noqa: E731
    assert render_mapping(speech, 'say("%speech") %json', escape=escape) == 'say("She said \\"hi\\"") {"q":"\\""}'
    command = line('<Say("x")>')
    assert render_mapping(command, "%params", escape=escape) == '\\"x\\"'


def test_render_mapping_refuses_other_line_kinds() -> None:
    with pytest.raises(TypeError, match="comment"):
        render_mapping(line("// note"), SPEECH)  # type: ignore[arg-type]


def test_render_line() -> None:
    speech = line("::A:: hi")
    command = line("<Go(1)>")
    assert render_line(speech, "%actor: %speech", COMMAND) == "A: hi"
    assert render_line(command, "%actor: %speech", COMMAND) == 'ExecuteCommand("Go", 1)'
    assert render_line(speech, "", COMMAND) is None
    assert render_line(command, SPEECH, "") is None
    assert render_line(line("plain"), SPEECH, COMMAND) is None
    assert isinstance(speech, SpeechLine) and isinstance(command, CommandLine)
