"""Expression language of scripts: tokenizer, Pratt parser and evaluator (no Python ``eval``).

See ``docs/scripting.md`` for the grammar, the precedence table and the type rules.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from storyloom.script.lines import SetLine

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

#: Deepest expression tree accepted (nesting and operator chains alike).
MAX_DEPTH = 100
#: Largest integer magnitude, in bits, an operation may produce.
_MAX_INT_BITS = 1024

ASSIGNMENT_OPERATORS = ("=", "+=", "-=", "*=", "/=", "^=")


class ExpressionError(Exception):
    """A syntax or type error in an expression; ``column`` is 1-based within the expression text."""

    def __init__(self, message: str, column: int = 1) -> None:
        super().__init__(message, column)
        self.message = message
        self.column = column

    def __str__(self) -> str:
        return f"{self.message} (column {self.column})"


class UnknownPath(ExpressionError):
    """A variable path that names nothing in the state; ``path`` is the path as resolved."""

    def __init__(self, message: str, column: int = 1, path: str = "") -> None:
        super().__init__(message, column)
        self.path = path


# --------------------------------------------------------------------------- tokens

_OPERATORS = (
    "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "^=",
    "<", ">", "+", "-", "*", "/", "%", "^", "!", "=", "(", ")", "[", "]", ".",
)  # fmt: skip
_OPERATORS_2 = frozenset(op for op in _OPERATORS if len(op) == 2)
_OPERATORS_1 = frozenset(op for op in _OPERATORS if len(op) == 1)
_DIGITS = "0123456789"
# ``\s`` and ``\w`` match exactly ``str.isspace()`` and ``str.isalnum() or "_"``, a run at a time.
_SPACES = re.compile(r"\s*")
_NAME_CHARS = re.compile(r"\w*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


@dataclass(slots=True)
class _Token:
    kind: str  # "num", "str", "name", "op", "eof"
    text: str
    value: Any
    start: int  # 0-based offset
    end: int

    @property
    def column(self) -> int:
        return self.start + 1

    def describe(self) -> str:
        return "end of expression" if self.kind == "eof" else repr(self.text)


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class _Lexer:
    """Produces tokens on demand, so an error late in the text surfaces only when reached."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def next(self) -> _Token:
        text, n = self.text, len(self.text)
        i = self.pos
        if i < n and text[i].isspace():
            i = _SPACES.match(text, i).end()  # type: ignore[union-attr]
        if i >= n:
            self.pos = n
            return _Token("eof", "", None, n, n)
        ch = text[i]
        if ch in _DIGITS:
            return self._number(i)
        if ch in "'\"":
            return self._string(i)
        if ch.isalpha() or ch == "_":
            j = _NAME_CHARS.match(text, i + 1).end()  # type: ignore[union-attr]
            self.pos = j
            name = text[i:j]
            return _Token("name", name, name, i, j)
        # every two-character operator is tried before the one-character ones
        op = text[i : i + 2]
        if op not in _OPERATORS_2:
            op = ch
            if op not in _OPERATORS_1:
                raise ExpressionError(f"unexpected character {ch!r}", i + 1)
        self.pos = i + len(op)
        return _Token("op", op, op, i, self.pos)

    def _number(self, i: int) -> _Token:
        text, n = self.text, len(self.text)
        j = i
        while j < n and text[j] in _DIGITS:
            j += 1
        is_float = False
        if j + 1 < n and text[j] == "." and text[j + 1] in _DIGITS:
            is_float = True
            j += 1
            while j < n and text[j] in _DIGITS:
                j += 1
        if j < n and text[j] in "eE":
            k = j + 1
            if k < n and text[k] in "+-":
                k += 1
            if k < n and text[k] in _DIGITS:
                is_float = True
                j = k
                while j < n and text[j] in _DIGITS:
                    j += 1
        if j < n and _is_name_char(text[j]):
            raise ExpressionError(f"invalid number {text[i : j + 1]!r}", i + 1)
        raw = text[i:j]
        self.pos = j
        if is_float:
            value: int | float = float(raw)
            if not math.isfinite(value):
                raise ExpressionError("number too large", i + 1)
        else:
            if len(raw) > 400:
                raise ExpressionError("number too large", i + 1)
            value = int(raw)
            if value.bit_length() > _MAX_INT_BITS:
                raise ExpressionError("number too large", i + 1)
        return _Token("num", raw, value, i, j)

    def _string(self, i: int) -> _Token:
        text, n = self.text, len(self.text)
        quote = text[i]
        j = i + 1
        out: list[str] = []
        while j < n:
            ch = text[j]
            if ch == "\\" and j + 1 < n:
                nxt = text[j + 1]
                out.append(_ESCAPES.get(nxt, "\\" + nxt))
                j += 2
                continue
            if ch == quote:
                self.pos = j + 1
                return _Token("str", text[i : j + 1], "".join(out), i, j + 1)
            out.append(ch)
            j += 1
        raise ExpressionError("unclosed string", i + 1)


# --------------------------------------------------------------------------- tree


class _Node:
    __slots__ = ("column", "depth")

    def __init__(self, column: int, depth: int) -> None:
        self.column = column
        self.depth = depth

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def children(self) -> Sequence[_Node]:
        return ()


class _Literal(_Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, column: int) -> None:
        super().__init__(column, 1)
        self.value = value

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        return self.value


class _Path(_Node):
    """``variables.<sid>...`` (``from_defaults`` False) or ``defaults.<sid>...``."""

    __slots__ = ("from_defaults", "segments", "text")

    def __init__(self, from_defaults: bool, segments: list[str | _Node], column: int, text: str) -> None:
        depth = 1 + max((s.depth for s in segments if isinstance(s, _Node)), default=0)
        super().__init__(column, depth)
        self.from_defaults = from_defaults
        self.segments = segments  # first one is the state id (a str)
        self.text = text

    def children(self) -> Sequence[_Node]:
        return [s for s in self.segments if isinstance(s, _Node)]

    def keys(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[str | int]:
        """The segments with dynamic indexes evaluated."""
        out: list[str | int] = []
        for seg in self.segments:
            if isinstance(seg, str):
                out.append(seg)
                continue
            value = seg.eval(live, defaults)
            if isinstance(value, str):
                out.append(value)
            elif _is_number(value) and float(value).is_integer():
                out.append(int(value))
            else:
                raise ExpressionError(f"an index must be a number or text, not {type_name(value)}", seg.column)
        return out

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        keys = self.keys(live, defaults)
        if not self.from_defaults:
            found, value, failed_at = _walk(live, keys)
            if found:
                return value
            # only a missing object property falls back to the defaults: live may be a partial
            # state, but a list index or a type that differs in live is live's own answer
            if not (isinstance(value, Mapping) and isinstance(keys[failed_at], str)):
                raise _unknown(self, keys, failed_at)
            live_failed_at = failed_at
        found, value, failed_at = _walk(defaults, keys)
        if found:
            return value
        if not self.from_defaults:
            # report the source that got furthest: its message names the part really missing
            failed_at = max(failed_at, live_failed_at)
        raise _unknown(self, keys, failed_at)


class _Unary(_Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: _Node, column: int) -> None:
        super().__init__(column, operand.depth + 1)
        self.op = op
        self.operand = operand

    def children(self) -> Sequence[_Node]:
        return [self.operand]

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        value = self.operand.eval(live, defaults)
        if self.op == "not":
            return not truthy(value)
        if not _is_number(value):
            raise ExpressionError(f"cannot negate {type_name(value)}", self.column)
        return -value


class _Binary(_Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: _Node, right: _Node, column: int) -> None:
        super().__init__(column, max(left.depth, right.depth) + 1)
        self.op = op
        self.left = left
        self.right = right

    def children(self) -> Sequence[_Node]:
        return [self.left, self.right]

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        op = self.op
        if op == "and":
            return truthy(self.left.eval(live, defaults)) and truthy(self.right.eval(live, defaults))
        if op == "or":
            return truthy(self.left.eval(live, defaults)) or truthy(self.right.eval(live, defaults))
        left = self.left.eval(live, defaults)
        right = self.right.eval(live, defaults)
        if op == "==":
            return _equal(left, right)
        if op == "!=":
            return not _equal(left, right)
        if op in ("<", "<=", ">", ">="):
            return _compare(op, left, right, self.column)
        return _arithmetic(op, left, right, self.column)


# --------------------------------------------------------------------------- parser

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_BINARY_POWER = {
    "or": 10, "||": 10,
    "and": 20, "&&": 20,
    "==": 40, "!=": 40, "<": 40, "<=": 40, ">": 40, ">=": 40,
    "+": 50, "-": 50,
    "*": 60, "/": 60, "%": 60,
    "^": 80,
}  # fmt: skip
_NOT_POWER = 30
_NEGATE_POWER = 70
_CANONICAL = {"||": "or", "&&": "and"}
_ROOTS = {"variables": False, "v": False, "defaults": True, "d": True}
_COLLECTIONS = ("variables", "v")
_LITERALS = {"true": True, "false": False, "null": None}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lexer = _Lexer(text)
        self.tok = self.lexer.next()
        self.nesting = 0

    def advance(self) -> _Token:
        tok = self.tok
        self.tok = self.lexer.next()
        return tok

    def _binding(self, tok: _Token) -> int:
        if tok.kind == "op" or (tok.kind == "name" and tok.text in ("and", "or")):
            return _BINARY_POWER.get(tok.text, 0)
        return 0

    def _check_depth(self, node: _Node) -> _Node:
        if node.depth > MAX_DEPTH:
            raise ExpressionError(f"expression too complex (more than {MAX_DEPTH} levels)", node.column)
        return node

    def expression(self, rbp: int = 0) -> _Node:
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise ExpressionError("expression nested too deeply", self.tok.column)
        try:
            left = self._prefix(self.advance())
            while rbp < self._binding(self.tok):
                left = self._infix(self.advance(), left)
            return left
        finally:
            self.nesting -= 1

    def _prefix(self, tok: _Token) -> _Node:
        if tok.kind in ("num", "str"):
            return _Literal(tok.value, tok.column)
        if tok.kind == "name":
            if tok.text in _LITERALS:
                return _Literal(_LITERALS[tok.text], tok.column)
            if tok.text == "not":
                return self._check_depth(_Unary("not", self.expression(_NOT_POWER), tok.column))
            if tok.text in _ROOTS:
                return self._path(tok)
            raise ExpressionError(
                f"unknown name {tok.text!r}: variable paths start with variables., v. or defaults.variables.",
                tok.column,
            )
        if tok.kind == "op":
            if tok.text == "!":
                return self._check_depth(_Unary("not", self.expression(_NOT_POWER), tok.column))
            if tok.text == "-":
                return self._check_depth(_Unary("-", self.expression(_NEGATE_POWER), tok.column))
            if tok.text == "(":
                inner = self.expression(0)
                self._expect(")", f"to close the parenthesis opened at column {tok.column}")
                return inner
            if tok.text == "=":
                raise ExpressionError("unexpected '=': use == to compare", tok.column)
        if tok.kind == "eof":
            raise ExpressionError("expression expected", tok.column)
        raise ExpressionError(f"unexpected {tok.describe()}", tok.column)

    def _infix(self, tok: _Token, left: _Node) -> _Node:
        op = _CANONICAL.get(tok.text, tok.text)
        power = _BINARY_POWER[tok.text]
        # ^ is right-associative; everything else is left-associative.
        right = self.expression(power - 1 if op == "^" else power)
        node = self._check_depth(_Binary(op, left, right, tok.column))
        if op in _COMPARISONS and self.tok.kind == "op" and self.tok.text in _COMPARISONS:
            raise ExpressionError("comparisons cannot be chained: combine them with and", self.tok.column)
        return node

    def _expect(self, op: str, why: str) -> _Token:
        if self.tok.kind == "op" and self.tok.text == op:
            return self.advance()
        raise ExpressionError(f"expected {op!r} {why}, found {self.tok.describe()}", self.tok.column)

    def _name_after_dot(self) -> str:
        tok = self.tok
        if tok.kind != "name":
            raise ExpressionError(f"a property name must follow '.', found {tok.describe()}", tok.column)
        self.advance()
        return tok.text

    def _path(self, root: _Token) -> _Path:
        if _ROOTS[root.text]:
            # defaults.<collection>.<sid>...: only the variables collection exists today
            if not (self.tok.kind == "op" and self.tok.text == "."):
                raise ExpressionError(f"expected '.variables.' after {root.text!r}", self.tok.column)
            self.advance()
            if not (self.tok.kind == "name" and self.tok.text in _COLLECTIONS):
                raise ExpressionError(
                    f"{root.text}. must be followed by the collection: {root.text}.variables.<sid>...",
                    self.tok.column,
                )
            self.advance()
        if not (self.tok.kind == "op" and self.tok.text == "."):
            raise ExpressionError(f"expected '.' and a state id after {root.text!r}", self.tok.column)
        self.advance()
        segments: list[str | _Node] = [self._name_after_dot()]
        while self.tok.kind == "op" and self.tok.text in (".", "["):
            tok = self.advance()
            if tok.text == ".":
                segments.append(self._name_after_dot())
            else:
                segments.append(self.expression(0))
                self._expect("]", f"to close the index opened at column {tok.column}")
        end = self.lexer.text[: self.tok.start].rstrip()
        text = end[root.start :]
        return self._check_depth(_Path(_ROOTS[root.text], segments, root.column, text))  # type: ignore[return-value]

    def finish(self) -> None:
        if self.tok.kind != "eof":
            if self.tok.kind == "op" and self.tok.text == "=":
                raise ExpressionError("unexpected '=': use == to compare", self.tok.column)
            if self.tok.kind == "op" and self.tok.text in ASSIGNMENT_OPERATORS:
                raise ExpressionError(f"unexpected {self.tok.text!r}: assignments belong in @set", self.tok.column)
            raise ExpressionError(f"unexpected {self.tok.describe()}", self.tok.column)


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

    def __init__(self, text: str, root: _Node) -> None:
        self.text = text
        self._root = root

    def evaluate(self, live: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> Any:
        """The value of the expression against ``live`` (falling back to ``defaults``)."""
        return _run(self._root, live, defaults or {})

    def paths(self) -> list[PathRef]:
        """Every variable path in the expression, in order of appearance."""
        return [_path_ref(node) for node in _iter_nodes(self._root) if isinstance(node, _Path)]

    def __repr__(self) -> str:
        return f"Expression({self.text!r})"


def parse_expression(text: str) -> Expression:
    """Parse ``text``; raise ExpressionError with a 1-based column on bad syntax."""
    try:
        parser = _Parser(text)
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
    _target: _Path = field(repr=False, compare=False)


class SetSyntaxError(ExpressionError):
    """The target or operator of an ``@set`` is malformed (as opposed to its value expression)."""


def parse_set(text: str, directive: bool = True) -> SetStatement:
    """Parse ``<path> <op> <expr>``; with ``directive``, a leading ``@set`` is accepted and skipped.

    Raises SetSyntaxError for a bad target or operator, ExpressionError for a bad value; columns
    count within ``text``.
    """
    offset = 0
    stripped = text.lstrip()
    if directive and stripped.startswith("@set") and (len(stripped) == 4 or not _is_name_char(stripped[4])):
        offset = len(text) - len(stripped) + 4
    body = text[offset:]
    in_value = False
    try:
        parser = _Parser(body)
        tok = parser.tok
        if tok.kind != "name" or tok.text not in _ROOTS:
            raise SetSyntaxError(
                "@set needs a variable path (variables.<sid>.<property>) before the operator",
                tok.column,
            )
        if _ROOTS[tok.text]:
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
    target: _Path, operator: str, value: Any, live: MutableMapping[str, Any], defaults: Mapping[str, Any]
) -> Any:
    keys = _run_keys(target, live, defaults)
    if operator != "=":
        current = _run(target, live, defaults)
        value = _arithmetic(operator[0], current, value, target.column)
    container = _writable_parent(target, keys, live, defaults)
    last = keys[-1]
    in_object = isinstance(container, MutableMapping) and isinstance(last, str)
    in_list = isinstance(container, list) and isinstance(last, int) and 0 <= last < len(container)
    if not (in_object or in_list):
        raise _unknown(target, keys, len(keys) - 1)
    container[last] = value
    return value


def _run_keys(target: _Path, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[str | int]:
    try:
        return target.keys(live, defaults)
    except RecursionError:  # pragma: no cover
        raise ExpressionError("expression nested too deeply", target.column) from None


def _writable_parent(
    target: _Path, keys: list[str | int], live: MutableMapping[str, Any], defaults: Mapping[str, Any]
) -> Any:
    """The live container holding the last key, copying missing parts from the defaults."""
    container: Any = live
    for depth, key in enumerate(keys[:-1]):
        found, child, _ = _walk(container, [key])
        if not found:
            if not (isinstance(container, MutableMapping) and isinstance(key, str)):
                raise _unknown(target, keys, depth)
            found, child, _ = _walk(defaults, keys[: depth + 1])
            if not found:
                raise _unknown(target, keys, depth)
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


def find_interpolations(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, inner)`` for each ``${...}``: ``end`` is past the ``}``, or -1 when unclosed.

    The closing ``}`` is the first one outside a quoted string.
    """
    found: list[tuple[int, int, str]] = []
    i = text.find("${")
    while i >= 0:
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


# --------------------------------------------------------------------------- value rules


def type_name(value: Any) -> str:
    """The script-language name of a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def truthy(value: Any) -> bool:
    """False for false, null, 0, empty text, empty list and empty object; true otherwise."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float, str, list, tuple, Mapping)):
        return bool(value)
    return True


def format_value(value: Any) -> str:
    """How a value prints in ``${...}``: text as is, true/false/null, integral numbers without .0."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if type_name(a) != type_name(b):
        return False
    return bool(a == b)


def _compare(op: str, a: Any, b: Any, column: int) -> bool:
    if not ((_is_number(a) and _is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
        raise ExpressionError(f"cannot compare {type_name(a)} and {type_name(b)} with {op}", column)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "take the remainder of",
          "^": "raise"}  # fmt: skip


def _arithmetic(op: str, a: Any, b: Any, column: int) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not (_is_number(a) and _is_number(b)):
        if op == "^":
            raise ExpressionError(f"cannot raise {type_name(a)} to a power of {type_name(b)}", column)
        raise ExpressionError(f"cannot {_VERBS[op]} {type_name(a)} and {type_name(b)}", column)
    try:
        if op == "+":
            result = a + b
        elif op == "-":
            result = a - b
        elif op == "*":
            result = a * b
        elif op == "/":
            if b == 0:
                raise ExpressionError("division by zero", column)
            exact = isinstance(a, int) and isinstance(b, int) and a % b == 0
            result = a // b if exact else a / b
        elif op == "%":
            if b == 0:
                raise ExpressionError("remainder by zero", column)
            if isinstance(a, int) and isinstance(b, int):
                # sign of the left operand, as in JavaScript, C# and GDScript
                result = abs(a) % abs(b)
                result = -result if a < 0 else result
            else:
                result = math.fmod(a, b)
        else:
            result = _power(a, b, column)
    except OverflowError:
        raise ExpressionError("number too large", column) from None
    except ZeroDivisionError:
        raise ExpressionError("division by zero", column) from None
    except ValueError:
        raise ExpressionError("not a real number", column) from None
    if isinstance(result, int) and result.bit_length() > _MAX_INT_BITS:
        raise ExpressionError("number too large", column)
    if isinstance(result, float) and not math.isfinite(result):
        raise ExpressionError("number too large" if not math.isnan(result) else "not a number", column)
    if isinstance(result, complex):  # pragma: no cover - _power refuses these
        raise ExpressionError("not a real number", column)
    return result


def _power(a: int | float, b: int | float, column: int) -> int | float:
    if isinstance(a, int) and isinstance(b, int) and b >= 0:
        if abs(a) > 1 and abs(a).bit_length() * b > _MAX_INT_BITS + 64:
            raise ExpressionError("number too large", column)
        return a**b
    if a == 0 and b < 0:
        raise ExpressionError("division by zero", column)
    if a < 0 and not float(b).is_integer():
        raise ExpressionError("a negative number to a fractional power is not a real number", column)
    return math.pow(a, b)


# --------------------------------------------------------------------------- helpers


def _walk(root: Any, keys: Sequence[str | int]) -> tuple[bool, Any, int]:
    """(True, value, len(keys)) or (False, the container where it failed, index of the failing key)."""
    current = root
    for index, key in enumerate(keys):
        if isinstance(current, Mapping) and isinstance(key, str):
            if key not in current:
                return False, current, index
            current = current[key]
        elif isinstance(current, (list, tuple)) and isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < len(current):
                return False, current, index
            current = current[key]
        else:
            return False, current, index
    return True, current, len(keys)


def _format_path(node: _Path, keys: Sequence[str | int | None]) -> str:
    parts = ["defaults.variables" if node.from_defaults else "variables"]
    for key in keys:
        if isinstance(key, str) and key.isidentifier():
            parts.append("." + key)
        elif key is None:
            parts.append("[?]")
        else:
            parts.append(f"[{json.dumps(key, ensure_ascii=False)}]")
    return "".join(parts)


def _unknown(node: _Path, keys: Sequence[str | int], failed_at: int) -> UnknownPath:
    path = _format_path(node, keys)
    if failed_at == 0:
        detail = f"no state id {keys[0]!r}"
    else:
        where = _format_path(node, keys[:failed_at])
        key = keys[failed_at] if failed_at < len(keys) else "?"
        detail = f"{where} has no {'index' if isinstance(key, int) else 'property'} {key!r}"
    return UnknownPath(f"unknown variable path {path}: {detail}", node.column, path)


def _path_ref(node: _Path) -> PathRef:
    keys: list[str | int | None] = []
    for seg in node.segments:
        if isinstance(seg, str):
            keys.append(seg)
        elif isinstance(seg, _Literal) and (
            isinstance(seg.value, str) or (_is_number(seg.value) and float(seg.value).is_integer())
        ):
            keys.append(seg.value if isinstance(seg.value, str) else int(seg.value))
        else:
            keys.append(None)
    return PathRef(node.text, node.column, node.from_defaults, tuple(keys))


def _iter_nodes(root: _Node) -> Iterator[_Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))


def _run(root: _Node, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
    try:
        return root.eval(live, defaults)
    except RecursionError:  # pragma: no cover - guarded by MAX_DEPTH
        raise ExpressionError("expression nested too deeply", root.column) from None
