"""A script as a screenplay: speakers become character cues, expressions parentheticals,
commands and ``@set`` action lines, ``@if``/``@else``/``@endif`` centered branch markers that
name their condition, comments notes. Built from the script parser's typed lines, so a printed
script reads exactly as the game runs it."""

from __future__ import annotations

from storyloom.outputs.model import (
    ACTION,
    BRANCH,
    CHARACTER,
    DIALOGUE,
    NOTE,
    PARENTHETICAL,
    Element,
    Screenplay,
)
from storyloom.script import (
    CommandLine,
    CommentLine,
    ElseLine,
    EndIfLine,
    IfLine,
    ScriptLine,
    SetLine,
    SpeechLine,
    TextLine,
    parse_script,
)

#: A speech without words still prints a dialogue line (a cue must be followed by one).
SILENT = "…"


def screenplay_of(title: str, script: str, doc_id: str = "") -> Screenplay:
    """The screenplay of script text ``script`` (never raises: lines with problems print as the
    parser typed them, unknown directives as action)."""
    play = Screenplay(title, doc_id=doc_id)
    conditions: list[str] = []  # the open @if blocks' conditions, innermost last
    for line in parse_script(script).lines:
        play.elements.extend(_elements(line, conditions))
    return play


def _elements(line: ScriptLine, conditions: list[str]) -> list[Element]:
    depth = len(conditions)
    at = line.line
    if isinstance(line, SpeechLine):
        cue = [Element(CHARACTER, line.actor.strip(), depth, at)]
        if line.expression:
            cue.append(Element(PARENTHETICAL, f"({line.expression.strip()})", depth, at))
        cue.append(Element(DIALOGUE, line.text.strip() or SILENT, depth, at))
        return cue
    if isinstance(line, IfLine):
        conditions.append(line.condition)
        return [Element(BRANCH, f"IF {line.condition}", depth, at)]
    if isinstance(line, ElseLine):
        shown = f"ELSE (not {conditions[-1]})" if conditions else "ELSE"
        return [Element(BRANCH, shown, max(0, depth - 1), at)]
    if isinstance(line, EndIfLine):
        shown = f"END IF ({conditions.pop()})" if conditions else "END IF"
        return [Element(BRANCH, shown, len(conditions), at)]
    if isinstance(line, CommandLine):
        text = f"[{line.name}({', '.join(line.params)})]"
        if line.comment:
            text += f" {line.comment}"
        return [Element(ACTION, text, depth, at)]
    if isinstance(line, SetLine):
        return [Element(ACTION, f"[@set {line.path} {line.operator} {line.value}]", depth, at)]
    if isinstance(line, CommentLine):
        return [Element(NOTE, line.text, depth, at)] if line.text else []
    if isinstance(line, TextLine):
        return [Element(ACTION, line.text.strip(), depth, at)]
    return []  # pragma: no cover - every kind the parser makes is handled above
