"""Expression language of scripts: parse, evaluate, ``@set`` and ``${}`` interpolation (no Python ``eval``).

The syntax lives in ``expr_tree`` and the value rules in ``values``; this module is the public face.

See ``docs/scripting.md`` for the grammar, the precedence table and the type rules.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.script.expr_tree import (
    ASSIGNMENT_OPERATORS,
    MAX_DEPTH,
    ROOTS,
    Literal,
    Node,
    Parser,
    PathNode,
    is_name_char,
    iter_nodes,
    run,
    unknown_path,
)
from storyloom.script.lines import SetLine
from storyloom.script.values import (
    ExpressionError,
    UnknownPath,
    arithmetic,
    format_value,
    is_number,
    truthy,
    type_name,
    walk,
)

__all__ = [
    "ASSIGNMENT_OPERATORS",
    "MAX_DEPTH",
    "Expression",
    "ExpressionError",
    "PathRef",
    "SetStatement",
    "SetSyntaxError",
    "UnknownPath",
    "apply_set",
    "evaluate",
    "find_interpolations",
    "format_value",
    "interpolate",
    "parse_expression",
    "parse_set",
    "truthy",
    "type_name",
]


# --------------------------------------------------------------------------- public objects


@dataclass(frozen=True, slots=True)
class PathRef:
    """A variable path used in an expression: ``keys`` holds None where an index is computed."""

    text: str
    column: int
    from_defaults: bool
    keys: tuple[str | int | None, ...]


class Expression:
    """A parsed expression; evaluate it as often as needed."""

    __slots__ = ("_root", "text")

    def __init__(self, text: str, root: Node) -> None:
        self.text = text
        self._root = root

    def evaluate(self, live: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> Any:
        """The value of the expression against ``live`` (falling back to ``defaults``)."""
        return run(self._root, live, defaults or {})

    def paths(self) -> list[PathRef]:
        """Every variable path in the expression, in order of appearance."""
        return [_path_ref(node) for node in iter_nodes(self._root) if isinstance(node, PathNode)]

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_expression(text: str) -> Expression:
    """Parse ``text``; raise ExpressionError with a 1-based column on bad syntax."""
    try:
        parser = Parser(text)
        root = parser.expression(0)
        parser.finish()
    except RecursionError:  # pragma: no cover - guarded by MAX_DEPTH, kept as a last resort
        raise ExpressionError("expression nested too deeply", 1) from None
    return Expression(text, root)


@dataclass(frozen=True, slots=True)
class SetStatement:
    """A parsed ``@set`` body: ``path operator value``; columns are 1-based in the parsed text."""

    path: PathRef
    operator: str
    value: Expression
    value_column: int
    _target: PathNode = field(repr=False, compare=False)


class SetSyntaxError(ExpressionError):
    """The target or operator of an ``@set`` is malformed (as opposed to its value expression)."""

    code = "bad_set_syntax"


def parse_set(text: str, directive: bool = True) -> SetStatement:
    """Parse ``<path> <op> <expr>``; with ``directive``, a leading ``@set`` is accepted and skipped.

    Raises SetSyntaxError for a bad target or operator, ExpressionError for a bad value; columns
    count within ``text``.
    """
    offset = 0
    stripped = text.lstrip()
    if directive and stripped.startswith("@set") and (len(stripped) == 4 or not is_name_char(stripped[4])):
        offset = len(text) - len(stripped) + 4
    body = text[offset:]
    in_value = False
    try:
        parser = Parser(body)
        tok = parser.tok
        if tok.kind != "name" or tok.text not in ROOTS:
            raise SetSyntaxError(
                "@set needs a variable path (variables.<sid>.<property>) before the operator",
                tok.column,
            )
        if ROOTS[tok.text]:
            raise SetSyntaxError("cannot assign to defaults: they are the authored values", tok.column)
        parser.advance()
        try:
            target = parser._path(tok)
        except ExpressionError as exc:
            raise SetSyntaxError(exc.message, exc.column) from None
        op_tok = parser.tok
        if not (op_tok.kind == "op" and op_tok.text in ASSIGNMENT_OPERATORS):
            raise SetSyntaxError(
                f"expected an assignment operator (= += -= *= /= ^=), found {op_tok.describe()}",
                op_tok.column,
            )
        in_value = True
        parser.advance()
        if parser.tok.kind == "eof":
            raise SetSyntaxError(f"a value must follow {op_tok.text!r}", parser.tok.column)
        value_start = parser.tok.start
        parser.expression(0)
        parser.finish()
    except SetSyntaxError as exc:
        raise SetSyntaxError(exc.message, exc.column + offset) from None
    except ExpressionError as exc:
        kind = ExpressionError if in_value else SetSyntaxError
        raise kind(exc.message, exc.column + offset) from None
    # the value is parsed again on its own so that its columns count from its first character
    value = parse_expression(body[value_start:].strip())
    return SetStatement(
        path=_shift_ref(_path_ref(target), offset),
        operator=op_tok.text,
        value=value,
        value_column=value_start + 1 + offset,
        _target=target,
    )


def _shift_ref(ref: PathRef, offset: int) -> PathRef:
    return PathRef(ref.text, ref.column + offset, ref.from_defaults, ref.keys)


def evaluate(expr: str | Expression, live: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> Any:
    """Evaluate ``expr`` against ``live`` (``{sid: state}``), falling back to ``defaults``."""
    parsed = expr if isinstance(expr, Expression) else parse_expression(expr)
    return parsed.evaluate(live, defaults)


def apply_set(
    set_line: SetLine | SetStatement | str, live: MutableMapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> Any:
    """Run an ``@set`` (a SetLine, a SetStatement or its text) on ``live``; return the new value.

    A state object missing from ``live`` is first copied from ``defaults``. ``=`` may create a
    missing last property of an existing object; the other operators need a current value.
    Error columns count within the ``@set`` text (for a SetLine: ``"<path> <operator> <expression>"``).
    """
    defaults = defaults or {}
    if isinstance(set_line, SetStatement):
        stmt = set_line
    elif isinstance(set_line, str):
        stmt = parse_set(set_line)
    else:
        stmt = parse_set(f"{set_line.path} {set_line.operator} {set_line.expression}", directive=False)
    try:
        value = stmt.value.evaluate(live, defaults)
    except ExpressionError as exc:
        raise _moved(exc, exc.column + stmt.value_column - 1) from None
    target = stmt._target
    try:
        return _assign(target, stmt.operator, value, live, defaults)
    except ExpressionError as exc:
        raise _moved(exc, exc.column + stmt.path.column - target.column) from None


def _moved(exc: ExpressionError, column: int) -> ExpressionError:
    if isinstance(exc, UnknownPath):
        return UnknownPath(exc.message, column, exc.path)
    return type(exc)(exc.message, column)


def _assign(
    target: PathNode, operator: str, value: Any, live: MutableMapping[str, Any], defaults: Mapping[str, Any]
) -> Any:
    keys = _run_keys(target, live, defaults)
    if operator != "=":
        current = run(target, live, defaults)
        value = arithmetic(operator[0], current, value, target.column)
    container = _writable_parent(target, keys, live, defaults)
    last = keys[-1]
    in_object = isinstance(container, MutableMapping) and isinstance(last, str)
    in_list = isinstance(container, list) and isinstance(last, int) and 0 <= last < len(container)
    if not (in_object or in_list):
        raise unknown_path(target, keys, len(keys) - 1)
    container[last] = value
    return value


def _run_keys(target: PathNode, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[str | int]:
    try:
        return target.keys(live, defaults)
    except RecursionError:  # pragma: no cover
        raise ExpressionError("expression nested too deeply", target.column) from None


def _writable_parent(
    target: PathNode, keys: list[str | int], live: MutableMapping[str, Any], defaults: Mapping[str, Any]
) -> Any:
    """The live container holding the last key, copying missing parts from the defaults."""
    container: Any = live
    for depth, key in enumerate(keys[:-1]):
        found, child, _ = walk(container, [key])
        if not found:
            if not (isinstance(container, MutableMapping) and isinstance(key, str)):
                raise unknown_path(target, keys, depth)
            found, child, _ = walk(defaults, keys[: depth + 1])
            if not found:
                raise unknown_path(target, keys, depth)
            child = copy.deepcopy(child)
            container[key] = child
        container = child
    return container


def interpolate(text: str, live: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> str:
    """Replace every ``${ expr }`` in ``text`` by its formatted value.

    Raises ExpressionError (column 1-based within ``text``) on an unclosed ``${`` or a bad expression.
    """
    out: list[str] = []
    pos = 0
    for start, end, inner in find_interpolations(text):
        out.append(text[pos:start])
        if end < 0:
            raise ExpressionError("unclosed ${: add a closing }", start + 1)
        if not inner.strip():
            raise ExpressionError("empty ${}", start + 1)
        try:
            value = evaluate(inner, live, defaults)
        except UnknownPath as exc:
            raise UnknownPath(exc.message, exc.column + start + 2, exc.path) from None
        except ExpressionError as exc:
            raise ExpressionError(exc.message, exc.column + start + 2) from None
        out.append(format_value(value))
        pos = end
    out.append(text[pos:])
    return "".join(out)


_QUOTES = re.compile("[\"']")


def find_interpolations(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, inner)`` for each ``${...}``: ``end`` is past the ``}``, or -1 when unclosed.

    The closing ``}`` is the first one outside a quoted string.
    """
    found: list[tuple[int, int, str]] = []
    i = text.find("${")
    while i >= 0:
        close = text.find("}", i + 2)
        if close >= 0 and _QUOTES.search(text, i + 2, close) is None:
            # no quote before the first "}": it closes this one (what the walk below finds)
            found.append((i, close + 1, text[i + 2 : close]))
            i = text.find("${", close + 1)
            continue
        j = i + 2
        quote = ""
        n = len(text)
        end = -1
        while j < n:
            ch = text[j]
            if quote:
                if ch == "\\":
                    j += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "}":
                end = j + 1
                break
            j += 1
        if end < 0:
            found.append((i, -1, text[i + 2 :]))
            break
        found.append((i, end, text[i + 2 : end - 1]))
        i = text.find("${", end)
    return found


def _path_ref(node: PathNode) -> PathRef:
    keys: list[str | int | None] = []
    for seg in node.segments:
        if isinstance(seg, str):
            keys.append(seg)
        elif isinstance(seg, Literal) and (
            isinstance(seg.value, str) or (is_number(seg.value) and float(seg.value).is_integer())
        ):
            keys.append(seg.value if isinstance(seg.value, str) else int(seg.value))
        else:
            keys.append(None)
    return PathRef(node.text, node.column, node.from_defaults, tuple(keys))
