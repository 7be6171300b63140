"""Completion in the script editor: Qt-free rules.

:func:`complete` looks at the line being typed up to the cursor and, from a
:class:`CompletionSource` (the project's actors, the variables' parsed states, the commands the
script uses and the directives the parser knows), offers:

- **actors** at the start of a speech line, after ``::`` (or ``[#tag] ::``): the names of the
  project's Actor documents and of the speakers the script already has;
- **directives** after ``@`` at the start of a line: ``@if``, ``@else``, ``@endif``, ``@set``;
- **commands** after ``<`` at the start of a line: the command names the script and the project
  settings use;
- **variable paths** after ``@set``, ``@if`` and inside ``${...}``: the roots (``variables``,
  ``v``, ``defaults``), then the state ids, then each state's properties, level by level, with
  their type and default.

The answer (:class:`CompletionContext`) says what kind of thing is completed, the ``prefix``
(the characters before the cursor a choice replaces) and the :class:`Candidate` list, each with
the ``insert`` text that replaces the prefix. :func:`auto_trigger` says whether the character
just typed should open the list by itself (:func:`opens_completion` answers from the line alone,
cheaply, before the project's source is asked for) (``::``, ``@``, ``<``, ``.`` in a path, ``${``, the
space after ``@if``/``@set``). :func:`takes_choice` says when Enter or Tab takes the selected choice
(only when it changes what is typed, or the writer moved in the list) and :func:`types_through`
when the key after a choice is already there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from storyloom.script import CommandLine, SpeechLine, type_name

#: The directives the script parser knows (see ``docs/scripting.md``), with what they insert.
DIRECTIVES: tuple[tuple[str, str, str], ...] = (
    ("if", "if ", "start a conditional block: @if <expression>"),
    ("else", "else", "the other branch of the open @if"),
    ("endif", "endif", "close the open @if"),
    ("set", "set ", "change a variable: @set v.<state>.<property> = <value>"),
)
ROOTS: tuple[tuple[str, str], ...] = (
    ("v", "the Live value of a variable (short for variables)"),
    ("variables", "the Live value of a variable"),
    ("defaults", "the authored default of a variable: defaults.variables.<state>..."),
)
ACTOR, DIRECTIVE, COMMAND, PATH = "actor", "directive", "command", "path"
_SPEECH = re.compile(r"^\s*(?:\[#[\w.]*\]\s*)?::([^:]*)$")
_DIRECTIVE = re.compile(r"^\s*@(\w*)$")
_EXPRESSION_LINE = re.compile(r"^\s*@(?:if|set)\s")
_COMMAND = re.compile(r"^\s*<\s*([^\W\d][\w.]*|)$")
_PATH_TOKEN = re.compile(r"[\w.]*$")
_DETAIL_CHARS = 40


@dataclass(frozen=True)
class Candidate:
    """One choice: ``text`` is listed (and matched against the prefix), ``insert`` replaces
    the prefix, ``detail`` says what it is (a property's type and default, ...)."""

    text: str
    insert: str
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class CompletionContext:
    kind: str
    prefix: str
    candidates: tuple[Candidate, ...]

    def matching(self) -> list[Candidate]:
        """The candidates the prefix selects (case-insensitive start), as the popup shows them."""
        wanted = self.prefix.casefold()
        return [c for c in self.candidates if c.text.casefold().startswith(wanted)]


@dataclass
class CompletionSource:
    """What completion offers: actor names, the variables' states (``{_sid: state}``) and
    command names."""

    actors: Sequence[str] = ()
    states: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    commands: Sequence[str] = ()


def source_for(summaries: Iterable[Any], states: Mapping[str, Mapping[str, Any]],
               settings: Mapping[str, Any] | None = None, lines: Iterable[Any] = ()) -> CompletionSource:
    """The completion source of a project: the names of its Actor documents (``summaries``, the
    index's), its ``states``, the commands of the screenplay settings, plus the speakers and
    commands of the script being edited (``lines``, from :func:`storyloom.script.parse_script`)."""
    actors: set[str] = set()
    for summary in summaries:
        if getattr(summary, "type", None) == "Actor" and isinstance(summary.name, str) and summary.name.strip():
            actors.add(summary.name.strip())
    commands: set[str] = set()
    for line in lines:
        if isinstance(line, SpeechLine) and line.actor:
            actors.add(line.actor)
        elif isinstance(line, CommandLine) and line.name:
            commands.add(line.name)
    screenplay = (settings or {}).get("screenPlay")
    if isinstance(screenplay, Mapping):
        for value in screenplay.values():
            if isinstance(value, str) and re.fullmatch(r"[^\W\d][\w.]*", value.strip()):
                commands.add(value.strip())
    return CompletionSource(sorted(actors, key=str.casefold), states, sorted(commands, key=str.casefold))


def complete(line: str, column: int, source: CompletionSource) -> CompletionContext | None:
    """What can be completed at ``column`` (0-based, the cursor) of ``line``; ``None`` when
    nothing (plain text, a comment, the middle of a word that is not completed)."""
    before = line[:column]
    after = line[column:]
    inside = _in_interpolation(before)
    if inside is not None:
        return _paths(inside, source)
    if before.lstrip().startswith("//"):
        return None
    match = _DIRECTIVE.match(before)
    if match:
        return CompletionContext(DIRECTIVE, match.group(1), tuple(
            Candidate(word, insert if not after.strip() else word, DIRECTIVE, detail)
            for word, insert, detail in DIRECTIVES))
    if _EXPRESSION_LINE.match(before):
        return _paths(before, source)
    match = _SPEECH.match(before)
    if match:
        closed = "::" in after
        prefix = match.group(1).lstrip()
        return CompletionContext(ACTOR, prefix, tuple(
            Candidate(name, name if closed else f"{name}:: ", ACTOR, "Actor") for name in source.actors))
    match = _COMMAND.match(before)
    if match:
        opened = after.lstrip().startswith("(")
        return CompletionContext(COMMAND, match.group(1), tuple(
            Candidate(name, name if opened else f"{name}(", COMMAND, "command") for name in source.commands))
    return None


def takes_choice(prefix: str, choice: Candidate | None, *, moved: bool) -> bool:
    """Whether Enter or Tab takes ``choice``: only when the writer moved in the list, or when
    the choice would change what is typed (``prefix``). A directive typed in full (``@else``,
    ``@endif``) followed by Enter is a new line, never a completion that glues the next line on."""
    if choice is None:
        return False
    return moved or choice.insert != prefix


def types_through(inserted: str, typed: str) -> bool:
    """Whether ``typed``, the key pressed right after a choice ``inserted`` its text, is already
    there: a space after ``::Actor:: `` or ``@if `` is not typed a second time."""
    return typed == " " and inserted.endswith(" ")


def opens_completion(line: str, column: int) -> bool:
    """Whether the character just typed (at ``column - 1``) is one that opens the list there:
    ``::`` starting a speech line, ``@`` or ``<`` starting a line, ``.`` in a path after
    ``@if``/``@set`` or in ``${}``, ``${``, the space after ``@if``/``@set``. Reads the line
    only (no project data): the editor asks it on every key before asking for the source."""
    if column <= 0 or column > len(line):
        return False
    typed = line[column - 1]
    before = line[:column]
    if typed == ":":
        return before.endswith("::") and _SPEECH.match(before) is not None
    if typed == "@":
        return _DIRECTIVE.match(before) is not None
    if typed == "<":
        return _COMMAND.match(before) is not None
    if typed == " ":
        return re.fullmatch(r"\s*@(?:if|set) ", before) is not None
    if typed == "{":
        return before.endswith("${")
    if typed == ".":
        return _in_interpolation(before) is not None or (
            _EXPRESSION_LINE.match(before) is not None and not before.lstrip().startswith("//"))
    return False


def auto_trigger(line: str, column: int, source: CompletionSource) -> CompletionContext | None:
    """The context to show at once after the character at ``column - 1`` was typed, when that
    character opens a completion (:func:`opens_completion`) and something fits; else ``None``."""
    if not opens_completion(line, column):
        return None
    context = complete(line, column, source)
    if context is None or not context.matching():
        return None
    if line[column - 1] == "." and context.kind != PATH:
        return None
    return context


def _in_interpolation(before: str) -> str | None:
    """The text after the last unclosed ``${`` before the cursor, or ``None``."""
    start = before.rfind("${")
    if start < 0 or "}" in before[start + 2:]:
        return None
    return before[start + 2:]


def _paths(expression: str, source: CompletionSource) -> CompletionContext | None:
    token = _PATH_TOKEN.search(expression)
    text = token.group() if token else ""
    start = token.start() if token else len(expression)
    if start > 0 and expression[start - 1] in "]\"')":  # after an index: not a plain path
        return None
    parts = text.split(".")
    if len(parts) == 1:
        return CompletionContext(PATH, text, tuple(Candidate(root, f"{root}.", PATH, detail) for root, detail in ROOTS))
    root = parts[0]
    if root in ("defaults", "d"):
        if len(parts) == 2:
            return CompletionContext(PATH, parts[1], (
                Candidate("variables", "variables.", PATH, "the variables' defaults"),
                Candidate("v", "v.", PATH, "the variables' defaults (short)")))
        if parts[1] not in ("variables", "v"):
            return None
        keys = parts[2:]
    elif root in ("variables", "v"):
        keys = parts[1:]
    else:
        return None
    current: Any = source.states
    for key in keys[:-1]:
        if not isinstance(current, Mapping) or key not in current:
            return None
        current = current[key]
    if not isinstance(current, Mapping):
        return None
    top = current is source.states
    candidates = []
    for key, value in current.items():
        if key == "_sid" or not isinstance(key, str):
            continue
        detail = _state_detail(value) if top else _value_detail(value)
        candidates.append(Candidate(key, key, PATH, detail))
    return CompletionContext(PATH, keys[-1], tuple(sorted(candidates, key=lambda c: c.text.casefold())))


def _state_detail(state: Any) -> str:
    count = sum(1 for key in state if key != "_sid") if isinstance(state, Mapping) else 0
    return f"state · {count} {'property' if count == 1 else 'properties'}"


def _value_detail(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"object · {len(value)} {'property' if len(value) == 1 else 'properties'}"
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = str(value)
    if len(shown) > _DETAIL_CHARS:
        shown = shown[:_DETAIL_CHARS - 1] + "…"
    return f"{type_name(value)} = {shown}"
