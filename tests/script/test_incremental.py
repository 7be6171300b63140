"""The incremental parse equals parse_script's after any sequence of edits, parses only the
lines an edit touched, and a cancelled parse leaves the previous one to build on."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from storyloom.script import parse_script
from storyloom.script import parser as parser_module
from storyloom.script.incremental import IncrementalParser

KNOWN = {"player": {"_sid": "player", "courage": 5, "gold": 3, "inventory": [{"name": "key"}]}}

# Lines of every kind, with problems of every kind, the @if structure among them.
LINES = [
    "", "   ", "::Woman:: Hello.", "::Woman:: You have ${v.player.gold} gold.", "::Woman:: ${v.player.nope}",
    "[#greet]::Keeper:: Evening. [smiling] {\"a\": 1}", "[#bad tag]::K:: x", ":: :: nobody", "// a comment",
    "@if v.player.courage > 3", "  @if v.player.missing", "@if", "@else", "  @else // why", "@else junk",
    "@endif", "  @endif", "@set v.player.gold += 1", "@set v.player.new = 2", "@set v.player.gold +=",
    "@set = 3", "@unknown thing", "<PlaySound(\"bell\", 0.5)>", "<Wait(1)> {\"x\": } // c", "<Broken(",
    "plain text with ${ unclosed", "${}", "<Cmd(1)> trailing", "::Ana:: ends [sad", "@if v.player.courage >",
]

edits = st.lists(
    st.tuples(st.sampled_from(["insert", "delete", "replace", "type", "join", "split"]),
              st.integers(min_value=0, max_value=10_000), st.sampled_from(LINES),
              st.sampled_from(["a", " ", "}", "@", "[", "${v.player.gold}", "::", ">"])),
    min_size=1, max_size=25)


def _edited(lines: list[str], edit: tuple[str, int, str, str]) -> list[str]:
    kind, at, line, chars = edit
    lines = list(lines)
    index = at % (len(lines) + 1)
    if kind == "insert" or not lines:
        lines.insert(index, line)
        return lines
    index %= len(lines)
    if kind == "delete":
        del lines[index]
    elif kind == "replace":
        lines[index] = line
    elif kind == "type":
        text = lines[index]
        cut = at % (len(text) + 1)
        lines[index] = text[:cut] + chars + text[cut:]
    elif kind == "join" and index + 1 < len(lines):
        lines[index:index + 2] = [lines[index] + lines[index + 1]]
    elif kind == "split":
        text = lines[index]
        cut = at % (len(text) + 1)
        lines[index:index + 1] = [text[:cut], text[cut:]]
    return lines


@settings(max_examples=300, deadline=None)
@given(start=st.lists(st.sampled_from(LINES), max_size=40), steps=edits, known=st.booleans())
def test_every_edit_parses_as_parse_script_does(start: list[str], steps, known: bool) -> None:  # type: ignore[no-untyped-def]
    state = KNOWN if known else None
    parser = IncrementalParser()
    lines = start
    for step in [None, *steps]:
        if step is not None:
            lines = _edited(lines, step)
        text = "\n".join(lines)
        assert parser.parse(text, state) == parse_script(text, state)


def _fresh(text: str, known=None):  # type: ignore[no-untyped-def]
    """parse_script's own parse of ``text`` (not one an incremental parser left for it)."""
    parser_module._remembered.clear()
    return parse_script(text, known)


def test_changed_variables_check_every_path_again() -> None:
    parser = IncrementalParser()
    text = "::A:: ${v.player.gold}\n@set v.player.gold += 1\n"
    assert parser.parse(text, KNOWN) == parse_script(text, KNOWN)
    poorer = {"player": {"_sid": "player"}}
    assert parser.parse(text, poorer) == parse_script(text, poorer)
    assert [p.code for p in parser.parse(text, poorer).problems] == ["unknown-path", "unknown-path"]  # type: ignore[union-attr]


def _long_script(lines: int) -> list[str]:
    rng = random.Random(5)
    return [rng.choice(LINES[2:9]) + f" {number}" for number in range(lines)]


def test_an_edit_parses_only_its_lines(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lines = _long_script(2000)
    parser = IncrementalParser()
    parser.parse("\n".join(lines), KNOWN)
    parsed: list[int] = []
    line = parser_module._ScriptParser.line

    def counting(self, number: int, raw: str) -> None:  # type: ignore[no-untyped-def]
        parsed.append(number)
        line(self, number, raw)

    with monkeypatch.context() as patch:  # (monkeypatch.undo() would undo the suite's home too)
        patch.setattr(parser_module._ScriptParser, "line", counting)
        lines[1000] += " typed"
        typed = parser.parse("\n".join(lines), KNOWN)
        assert parsed == [1001]
        parsed.clear()
        lines.insert(500, "@if v.player.courage")  # a new line: the lines after it move down
        moved = parser.parse("\n".join(lines), KNOWN)
        assert parsed == [501]
    assert moved == _fresh("\n".join(lines), KNOWN)
    del lines[500]
    assert typed == _fresh("\n".join(lines), KNOWN)


def test_a_cancelled_parse_keeps_the_previous_one() -> None:
    lines = _long_script(1000)
    parser = IncrementalParser()
    first = "\n".join(lines)
    parser.parse(first)
    pauses: list[int] = []
    edited = "\n".join(["@else", *lines[1:]])
    moved = "\n".join(["::A:: new first line", *lines])
    assert parser.parse(moved, pause=lambda: pauses.append(1), cancelled=lambda: len(pauses) >= 1) is None
    assert pauses  # the renumbering of the 1,000 lines below paused
    assert parser.parse(edited) == _fresh(edited)
    assert parser.parse(first) == _fresh(first)


def test_what_checks_the_saved_script_reads_the_editors_parse(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = "\n".join(_long_script(1000)) + "\n@if v.player.nope\n"
    parsed = IncrementalParser().parse(text, KNOWN)
    expected = parse_script(text + "\n", KNOWN)  # another text: parsed
    parsed_lines: list[int] = []
    line = parser_module._ScriptParser.line
    monkeypatch.setattr(parser_module._ScriptParser, "line",
                        lambda self, number, raw: parsed_lines.append(number) or line(self, number, raw))
    again = parse_script(text, {"player": dict(KNOWN["player"])})  # equal variables, another object
    assert parsed_lines == [] and again == parsed
    assert again.problems == expected.problems and again.lines == expected.lines
    again.problems.clear()  # the caller's own lists
    assert parse_script(text, KNOWN).problems == expected.problems
    parse_script(text, {"player": {"_sid": "player"}})  # other variables: parsed
    assert parsed_lines
