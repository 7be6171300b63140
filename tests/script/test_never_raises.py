"""Property tests: no user text makes the parser, the evaluator or the mappings crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyloom.script import (
    CommandLine,
    ExpressionError,
    SpeechLine,
    apply_set,
    evaluate,
    interpolate,
    parse_script,
    render_mapping,
)

# pieces of the syntax, so that random text often looks almost right
FRAGMENTS = [
    "::", "[#", "]", "[", "{", "}", "${", "(", ")", "<", ">", "@if ", "@else", "@endif", "@set ", "//",
    '"', "'", "\\", ",", ":", "=", "==", "+=", "^", "^=", "-", "*", "/", "%", "!", "&&", "||", "not ",
    "and", "v.", "variables.", "defaults.variables.", "d.v.", "a", "b", "x", "0", "1", "9" * 40, "1e999",
    ".", " ", "\t", "\n", "\r\n", "true", "null", "Actor", "é", "\x00", "\u2028", "[0]", '{"k": 1}',
]  # fmt: skip
syntax_text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
any_text = st.one_of(st.text(max_size=300), syntax_text)

KNOWN = {"a": {"b": [1, {"c": "x"}], "n": 2, "s": "t"}, "x": {"y": True}}


def fresh() -> dict:
    return {"a": {"b": [1, {"c": "x"}], "n": 2, "s": "t"}, "x": {"y": True}}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text, st.booleans())
@pytest.mark.slow
def test_parse_script_never_raises(text: str, with_state: bool) -> None:
    parsed = parse_script(text, known_state=KNOWN if with_state else None)
    numbers = [line.line for line in parsed.lines]
    assert numbers == sorted(numbers)
    assert all(1 <= n <= max(1, len(text.splitlines())) for n in numbers)
    assert all(p.line >= 1 and p.column >= 1 for p in parsed.problems)
    parsed.to_dict()
    for line in parsed.lines:
        if isinstance(line, (SpeechLine, CommandLine)):
            render_mapping(line, "%actor %speech %expression %tag %json %command %params %params(;) %%")


@settings(max_examples=400, deadline=None)
@given(any_text)
@pytest.mark.slow
def test_expressions_raise_only_expression_errors(text: str) -> None:
    for action in (
        lambda: evaluate(text, fresh(), KNOWN),
        lambda: interpolate(text, fresh(), KNOWN),
        lambda: apply_set(text, fresh(), KNOWN),
        lambda: apply_set("@set v.a.n += " + text, fresh(), KNOWN),
    ):
        try:
            action()
        except ExpressionError as exc:
            assert exc.column >= 1
            assert exc.message


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_render_mapping_accepts_any_template(template: str, speech: str) -> None:
    (line,) = parse_script("::A:: x").lines
    render_mapping(line, template)
    parsed = parse_script(f"<Cmd({speech})>")
    for command in parsed.lines:
        if isinstance(command, CommandLine):
            render_mapping(command, template)


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    deep = "(" * 5000 + "1" + ")" * 5000
    text = f"@if {deep}\n@endif\n::A:: ${{{deep}}}\n<X({deep})> {'{' * 5000}\n@set v.a.n = {'-' * 5000}1"
    parsed = parse_script(text)
    assert [(p.line, p.code) for p in parsed.problems] == [
        (1, "bad-expression"),
        (3, "bad-expression"),
        (4, "bad-json"),
        (5, "bad-expression"),
    ]
