"""Line parser for scripts: one typed line per non-blank line, plus problems. Never raises on text."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from storyloom.script.expr import (
    ExpressionError,
    PathRef,
    SetSyntaxError,
    find_interpolations,
    parse_expression,
    parse_set,
)
from storyloom.script.lines import (
    CommandLine,
    CommentLine,
    ElseLine,
    EndIfLine,
    IfLine,
    Interpolation,
    Problem,
    ScriptLine,
    SetLine,
    SpeechLine,
    TextLine,
)

__all__ = ["PROBLEM_CODES", "ParsedScript", "parse_script"]

#: Every problem code the parser emits.
PROBLEM_CODES = (
    "unclosed-if",
    "else-without-if",
    "endif-without-if",
    "duplicate-else",
    "trailing-text",
    "unknown-directive",
    "bad-set",
    "bad-expression",
    "unknown-path",
    "bad-json",
    "bad-command",
    "bad-speech",
    "bad-tag",
)

#: The problems of the ``@if`` structure (:meth:`_ScriptParser.nest`): the only ones a line's
#: text alone does not decide.
STRUCTURE_CODES = frozenset({"unclosed-if", "else-without-if", "endif-without-if", "duplicate-else"})

_TAG_RE = re.compile(r"\[#([\w.]+)\]\s*")
# a trailing ``[expression]``: the text ends with it, so it starts at the text's last "["
_EXPRESSION_RE = re.compile(r"\[(\w[\w .\-]*)\]")
_COMMAND_START_RE = re.compile(r"<\s*([^\W\d][\w.]*)\s*\(")
_DIRECTIVE_RE = re.compile(r"@(\w*)")
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_PARAM_MARKS = re.compile(r"[\"'(\[{]")  # what makes the walk of _split_params other than a split

# Memos of the expression checks, keyed by the expression text (scripts repeat their
# conditions, interpolations and ``@set`` bodies). Only immutable results are kept: an error's
# (message, column) or the expression's variable paths (``PathRef`` is frozen).
_MEMO_LIMIT = 8192
_expression_memo: dict[str, tuple[str | None, int, tuple[PathRef, ...]]] = {}
_set_memo: dict[str, tuple[Any, ...]] = {}


def _check_expression(text: str) -> tuple[str | None, int, tuple[PathRef, ...]]:
    """``(error message or None, error column, paths)`` of ``parse_expression(text)``."""
    found = _expression_memo.get(text)
    if found is None:
        try:
            found = (None, 0, tuple(parse_expression(text).paths()))
        except ExpressionError as exc:
            found = (exc.message, exc.column, ())
        if len(_expression_memo) >= _MEMO_LIMIT:
            _expression_memo.clear()
        _expression_memo[text] = found
    return found


def _check_set(rest: str) -> tuple[Any, ...]:
    """``parse_set(rest, directive=False)`` as plain data: ``("set-syntax", message, column)``,
    ``("expression", message, column)`` or ``("ok", path, operator, value text, value column,
    value paths)``."""
    found = _set_memo.get(rest)
    if found is None:
        try:
            stmt = parse_set(rest, directive=False)
        except SetSyntaxError as exc:
            found = ("set-syntax", exc.message, exc.column)
        except ExpressionError as exc:
            found = ("expression", exc.message, exc.column)
        else:
            found = ("ok", stmt.path, stmt.operator, stmt.value.text, stmt.value_column, tuple(stmt.value.paths()))
        if len(_set_memo) >= _MEMO_LIMIT:
            _set_memo.clear()
        _set_memo[rest] = found
    return found


@dataclass(slots=True)
class ParsedScript:
    """The result of :func:`parse_script`: typed ``lines`` (blank lines skipped) and ``problems``."""

    lines: list[ScriptLine] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    interpolations: list[Interpolation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there is no problem of severity ``error``."""
        return not any(p.severity == "error" for p in self.problems)

    def to_dict(self) -> dict[str, Any]:
        """``{"lines": [...], "problems": [...]}`` for JSON export."""
        return {
            "lines": [line.to_dict() for line in self.lines],
            "problems": [p.to_dict() for p in self.problems],
        }


# The last few parses an editor's incremental parser finished (:func:`remember`), by text: the
# saved script is the one the editor last parsed, and whatever checks it after the save (the
# Problems dock, on the GUI thread) reads that parse instead of parsing 5,000 lines again.
_REMEMBERED_LIMIT = 4
_remembered: dict[str, tuple[Mapping[str, Any] | None, ParsedScript]] = {}


def remember(text: str, known_state: Mapping[str, Any] | None, parsed: ParsedScript) -> None:
    """Keep ``parsed`` (``parse_script(text, known_state)``'s result) for the next
    :func:`parse_script` of the same text and variables (the last few texts are kept)."""
    _remembered.pop(text, None)
    while len(_remembered) >= _REMEMBERED_LIMIT:
        _remembered.pop(next(iter(_remembered)), None)
    _remembered[text] = (known_state, parsed)


def parse_script(text: str, known_state: Mapping[str, Any] | None = None) -> ParsedScript:
    """Parse script ``text`` into typed lines and problems.

    ``known_state`` (``{sid: state object}``, e.g. the authored defaults) turns on the check of
    variable paths: a path it does not contain is an ``unknown-path`` problem.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    found = _remembered.get(text)
    if found is not None and (found[0] is known_state or found[0] == known_state):
        kept = found[1]  # lists of its own: a caller may change them; the lines are never changed
        return ParsedScript(list(kept.lines), list(kept.problems), list(kept.interpolations))
    parser = _ScriptParser(known_state)
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            parser.line(number, raw)
        except RecursionError:  # pragma: no cover - every recursive step is bounded
            parser.problem(number, 1, "bad-expression", "line too deeply nested to read")
    parser.finish()
    return parser.result


class _ScriptParser:
    def __init__(self, known_state: Mapping[str, Any] | None) -> None:
        self.known = known_state
        self.result = ParsedScript()
        self.if_stack: list[tuple[int, int, bool]] = []  # (line, column, has_else)

    # ----------------------------------------------------------------- helpers

    def problem(self, line: int, column: int, code: str, message: str, severity: str = "error") -> None:
        self.result.problems.append(Problem(message, code, severity, line=line, column=max(1, column)))

    def add(self, line: ScriptLine) -> None:
        self.result.lines.append(line)

    def finish(self) -> None:
        self.close_ifs()
        self.result.problems.sort(key=lambda p: (p.line, p.column))

    def nest(self, number: int, column: int, word: str) -> None:
        """The ``@if``/``@else``/``@endif`` of line ``number`` (at ``column``) against the open
        ``@if``s: the only part of a line's parse that depends on the lines before it, and the
        only source of the STRUCTURE_CODES problems."""
        if word == "if":
            self.if_stack.append((number, column, False))
        elif word == "else":
            if not self.if_stack:
                self.problem(number, column, "else-without-if", "@else without an open @if")
            elif self.if_stack[-1][2]:
                first = self.if_stack[-1][0]
                self.problem(number, column, "duplicate-else", f"second @else for the @if of line {first}")
            else:
                line, col, _ = self.if_stack[-1]
                self.if_stack[-1] = (line, col, True)
        elif self.if_stack:
            self.if_stack.pop()
        else:
            self.problem(number, column, "endif-without-if", "@endif without an open @if")

    def close_ifs(self) -> None:
        """The ``@if``s still open at the end of the script."""
        for line, column, _ in self.if_stack:
            self.problem(line, column, "unclosed-if", "@if has no matching @endif")
        self.if_stack.clear()

    def check_paths(self, number: int, base_column: int, paths: Sequence[PathRef], target: bool = False) -> None:
        """``base_column``: the line column of the expression's first character."""
        if self.known is None:
            return
        for ref in paths:
            if _path_exists(self.known, ref.keys):
                continue
            missing = _missing_part(self.known, ref)
            if missing is None:  # pragma: no cover - _path_exists walks the same way
                continue
            column = base_column + ref.column - 1
            if target:
                self.problem(
                    number, column, "unknown-path",
                    f"{ref.text} is not declared in the variables ({missing}); @set will create it",
                    "warning",
                )  # fmt: skip
            else:
                self.problem(number, column, "unknown-path", f"unknown variable path {ref.text}: {missing}")

    def expression(self, number: int, base_column: int, text: str) -> None:
        """Check an expression's syntax and its paths."""
        message, column, paths = _check_expression(text)
        if message is not None:
            self.problem(number, base_column + column - 1, "bad-expression", message)
            return
        if paths and self.known is not None:
            self.check_paths(number, base_column, paths)

    def interpolations(self, number: int, raw: str) -> None:
        if "${" not in raw:
            return
        for start, end, inner in find_interpolations(raw):
            column = start + 1
            if end < 0:
                self.problem(number, column, "bad-expression", "unclosed ${: add a closing }")
                continue
            if not inner.strip():
                self.problem(number, column, "bad-expression", "empty ${}")
                continue
            lead = len(inner) - len(inner.lstrip())
            self.result.interpolations.append(Interpolation(number, column, inner.strip()))
            self.expression(number, start + 3 + lead, inner.strip())

    # ----------------------------------------------------------------- lines

    def line(self, number: int, raw: str) -> None:
        stripped = raw.strip()
        if not stripped:
            return
        # classified by the first character; the indentation is where that character is
        first = stripped[0]
        if first == "/" and stripped.startswith("//"):
            self.result.lines.append(CommentLine(number, stripped[2:].strip()))
        elif first == "@":
            self.directive(number, raw, stripped, raw.find(first))
        elif first == "[" and stripped.startswith("[#"):
            self.tagged(number, raw, stripped, raw.find(first))
        elif first == ":" and stripped.startswith("::"):
            self.speech(number, raw, stripped, raw.find(first), None)
        elif first == "<" and _COMMAND_START_RE.match(stripped):
            self.command(number, raw, stripped, raw.find(first))
        else:
            self.text(number, raw)

    def text(self, number: int, raw: str) -> None:
        self.result.lines.append(TextLine(number, raw.rstrip()))
        if "${" in raw:
            self.interpolations(number, raw)

    def directive(self, number: int, raw: str, stripped: str, indent: int) -> None:
        match = _DIRECTIVE_RE.match(stripped)
        word = match.group(1) if match else ""
        rest = stripped[match.end() if match else 1 :]
        column = indent + 1
        if word == "if":
            condition = rest.strip()
            self.result.lines.append(IfLine(number, condition))
            self.nest(number, column, word)
            if not condition:
                self.problem(number, column + 3, "bad-expression", "@if needs a condition")
            else:
                lead = len(rest) - len(rest.lstrip())
                self.expression(number, column + 3 + lead, condition)
        elif word in ("else", "endif"):
            tail = rest.strip()
            if tail and not tail.startswith("//"):
                lead = len(rest) - len(rest.lstrip())
                self.problem(
                    number, column + len(word) + 1 + lead, "trailing-text",
                    f"unexpected text after @{word} (only a // comment may follow)",
                )  # fmt: skip
            self.result.lines.append(ElseLine(number) if word == "else" else EndIfLine(number))
            self.nest(number, column, word)
        elif word == "set":
            self.set(number, raw, rest, column)
        else:
            shown = f"@{word}" if word else "@"
            self.problem(
                number, column, "unknown-directive",
                f"unknown directive {shown}: expected @if, @else, @endif or @set",
            )  # fmt: skip
            self.text(number, raw)

    def set(self, number: int, raw: str, rest: str, column: int) -> None:
        base = column + 4  # column of the character right after "@set"
        found = _check_set(rest)
        if found[0] == "set-syntax":
            self.problem(number, base + found[2] - 1, "bad-set", found[1])
            self.text(number, raw)
            return
        if found[0] == "expression":
            # target and operator are fine: keep the line typed, report the value
            self.problem(number, base + found[2] - 1, "bad-expression", found[1])
            self.add(_set_line_from_text(number, rest))
            return
        _, path, operator, value_text, value_column, value_paths = found
        self.result.lines.append(SetLine(number, path.text, operator, value_text))
        if self.known is not None:
            # "=" may create a property (a warning); a compound operator reads it first (an error)
            self.check_paths(number, base, [path], target=operator == "=")
            self.check_paths(number, base + value_column - 1, value_paths)

    def tagged(self, number: int, raw: str, stripped: str, indent: int) -> None:
        match = _TAG_RE.match(stripped)
        if not match:
            self.problem(
                number, indent + 1, "bad-tag",
                "a tag is [#name] with letters, digits, _ or . only, followed by ::Actor::",
            )  # fmt: skip
            self.text(number, raw)
            return
        rest = stripped[match.end() :]
        if not rest.startswith("::"):
            self.problem(number, indent + 1, "bad-tag", "a tag must be followed by ::Actor:: and the speech")
            self.text(number, raw)
            return
        self.speech(number, raw, rest, indent + match.end(), match.group(1))

    def speech(self, number: int, raw: str, body: str, offset: int, tag: str | None) -> None:
        """``body`` starts with ``::``; ``offset`` is its 0-based position in ``raw``."""
        close = body.find("::", 2)  # the actor runs to the next "::"
        actor = body[2:close].strip() if close >= 0 else ""
        if not actor:
            self.problem(
                number, offset + 1, "bad-speech",
                "a speech line is ::Actor:: text (the actor name is missing or not closed with ::)",
            )  # fmt: skip
            self.text(number, raw)
            return
        content = body[close + 2 :].rstrip()
        content_offset = offset + close + 2
        # Most speech is plain text: each helper below is called only when its mark is there.
        masked = _mask_interpolations(content) if "${" in content else content
        data: dict[str, Any] | None = None
        start = _trailing_object_start(masked) if masked.endswith("}") else None
        if start is not None:
            loaded, error = _load_object(content[start:])
            if error is None:
                data = loaded
                content = content[:start].rstrip()
                masked = masked[:start].rstrip()
            else:
                self.problem(
                    number, content_offset + start + 1, "bad-json",
                    f"not a JSON object ({error}); it stays part of the text",
                    "warning",
                )  # fmt: skip
        expression = None
        found = _EXPRESSION_RE.fullmatch(masked, masked.rfind("[")) if masked.endswith("]") else None
        if found:
            expression = found.group(1).strip()
            content = content[: found.start()].rstrip()
        self.result.lines.append(SpeechLine(number, actor, content.strip(), tag, expression, data))
        if "${" in raw:
            self.interpolations(number, raw)

    def command(self, number: int, raw: str, stripped: str, indent: int) -> None:
        match = _COMMAND_START_RE.match(stripped)
        assert match is not None
        name = match.group(1)
        params, close, error = _split_params(stripped, match.end())
        if error is not None:
            self.problem(number, indent + error[0] + 1, "bad-command", error[1])
            self.text(number, raw)
            return
        j = close + 1
        while j < len(stripped) and stripped[j].isspace():
            j += 1
        if j >= len(stripped) or stripped[j] != ">":
            self.problem(number, indent + j + 1, "bad-command", "expected > to close the command")
            self.text(number, raw)
            return
        rest_start = j + 1
        rest = stripped[rest_start:]
        lead = len(rest) - len(rest.lstrip())
        rest = rest.strip()
        rest_column = indent + rest_start + lead + 1
        data: dict[str, Any] | None = None
        comment: str | None = None
        if rest.startswith("{"):
            end = _object_end(rest)
            json_text = rest if end is None else rest[: end + 1]
            after = "" if end is None else rest[end + 1 :].strip()
            loaded, err = _load_object(json_text)
            if err is None:
                data = loaded
            else:
                self.problem(number, rest_column, "bad-json", f"not a JSON object ({err}); dropped from the command")
            if after.startswith("//"):
                comment = after[2:].strip()
            elif after:
                self.problem(
                    number, rest_column + len(rest) - len(after), "bad-command",
                    "unexpected text after the command's JSON",
                )  # fmt: skip
        elif rest.startswith("//"):
            comment = rest[2:].strip()
        elif rest:
            self.problem(
                number, rest_column, "bad-command",
                "unexpected text after the command (only {json} and a // comment may follow)",
            )  # fmt: skip
        self.result.lines.append(CommandLine(number, name, params, data, comment))
        if "${" in raw:
            self.interpolations(number, raw)


def _set_line_from_text(number: int, rest: str) -> SetLine:
    """A SetLine for an ``@set`` whose value is malformed, split at its first assignment operator."""
    index, op = _find_operator(rest)
    if index < 0:  # pragma: no cover - parse_set found an operator before failing on the value
        return SetLine(number, rest.strip(), "=", "")
    return SetLine(number, rest[:index].strip(), op, rest[index + len(op) :].strip())


def _find_operator(text: str) -> tuple[int, str]:
    """First assignment operator outside brackets and strings: (index, operator) or (-1, "")."""
    depth = 0
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        pair = text[i : i + 2]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0:
            if pair in ("+=", "-=", "*=", "/=", "^="):
                return i, pair
            if pair in ("==", "!=", "<=", ">="):
                i += 2
                continue
            if ch == "=":
                return i, "="
        i += 1
    return -1, ""


def _path_exists(known: Mapping[str, Any], keys: tuple[str | int | None, ...]) -> bool:
    """:func:`_missing_part` is None: the same walk, without building the message."""
    current: Any = known
    for key in keys:
        if key is None:
            return True
        if (current.__class__ is dict or isinstance(current, Mapping)) and isinstance(key, str):
            if key not in current:
                return False
            current = current[key]
        elif isinstance(current, (list, tuple)) and isinstance(key, int):
            if not 0 <= key < len(current):
                return False
            current = current[key]
        else:
            return False
    return True


def _missing_part(known: Mapping[str, Any], ref: PathRef) -> str | None:
    """None when the path exists in ``known`` (stopping at computed indexes), else what is missing."""
    current: Any = known
    walked = "defaults.variables" if ref.from_defaults else "variables"
    for index, key in enumerate(ref.keys):
        if key is None:
            return None
        if isinstance(current, Mapping) and isinstance(key, str):
            if key not in current:
                if index == 0:
                    return f"no variables with state id {key!r}"
                return f"{walked} has no property {key!r}"
            current = current[key]
            walked += f".{key}" if key.isidentifier() else f"[{json.dumps(key)}]"
        elif isinstance(current, (list, tuple)) and isinstance(key, int):
            if not 0 <= key < len(current):
                return f"{walked} has no index {key}"
            current = current[key]
            walked += f"[{key}]"
        else:
            kind = "index" if isinstance(key, int) else "property"
            return f"{walked} has no {kind} {key!r}"
    return None


def _mask_interpolations(text: str) -> str:
    """``text`` with each closed ``${...}`` replaced by filler of the same length."""
    if "${" not in text:
        return text
    spans = [(s, e) for s, e, _ in find_interpolations(text) if e >= 0]
    if not spans:
        return text
    chars = list(text)
    for s, e in spans:
        chars[s:e] = "\x00" * (e - s)
    return "".join(chars)


def _trailing_object_start(text: str) -> int | None:
    """Start of a top-level ``{...}`` group that ends the (right-stripped) text, if any."""
    if not text.endswith("}"):
        return None
    depth = 0
    start = -1
    last: tuple[int, int] | None = None
    quote = False
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = False
            continue
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                last = (start, i)
        elif ch == '"' and depth > 0:
            quote = True
    if last is not None and last[1] == len(text) - 1:
        return last[0]
    return None


def _object_end(text: str) -> int | None:
    """Index of the ``}`` closing the ``{`` at index 0, or None when it is never closed."""
    depth = 0
    quote = False
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _load_object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{exc.msg} at character {exc.pos + 1}"
    except (RecursionError, ValueError) as exc:
        return None, str(exc) or type(exc).__name__
    if not isinstance(value, dict):
        return None, "expected an object"
    return value, None


def _split_params(text: str, start: int) -> tuple[list[str], int, tuple[int, str] | None]:
    """Split the params after ``(`` at ``start``: (params, index of the closing ``)``, error)."""
    close = text.find(")", start)
    if close >= 0 and _PARAM_MARKS.search(text, start, close) is None:
        # No quote and no bracket before the first ")": it closes the params, commas split them
        # (what the walk below finds, without walking).
        params = [piece.strip() for piece in text[start:close].split(",")]
        return ([] if len(params) == 1 and not params[0] else params), close, None
    params = []
    stack: list[str] = []
    quote = ""
    opened_quote = 0
    piece_start = start
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            opened_quote = i
        elif ch in _OPENERS:
            stack.append(_OPENERS[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif not stack and ch == ")":
            params.append(text[piece_start:i].strip())
            if len(params) == 1 and not params[0]:
                params = []
            return params, i, None
        elif not stack and ch == ",":
            params.append(text[piece_start:i].strip())
            piece_start = i + 1
        i += 1
    if quote:
        return [], -1, (opened_quote, "unclosed string in the command's parameters")
    return [], -1, (start - 1, "the command's ( is never closed")
