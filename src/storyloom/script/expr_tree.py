"""The expression tree: tokenizer, Pratt parser and the nodes that evaluate themselves.

``storyloom.script.expr`` is the public face; this module holds the syntax.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from storyloom.script.values import (
    MAX_INT_BITS,
    ExpressionError,
    UnknownPath,
    arithmetic,
    compare,
    equal,
    is_number,
    truthy,
    type_name,
    walk,
)

#: Deepest expression tree accepted (nesting and operator chains alike).
MAX_DEPTH = 100

ASSIGNMENT_OPERATORS = ("=", "+=", "-=", "*=", "/=", "^=")


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


def is_name_char(ch: str) -> bool:
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
        if j < n and is_name_char(text[j]):
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
            if value.bit_length() > MAX_INT_BITS:
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


class Node:
    __slots__ = ("column", "depth")

    def __init__(self, column: int, depth: int) -> None:
        self.column = column
        self.depth = depth

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def children(self) -> Sequence[Node]:
        return ()


class Literal(Node):
    __slots__ = ("value",)

    def __init__(self, value: Any, column: int) -> None:
        super().__init__(column, 1)
        self.value = value

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        return self.value


class PathNode(Node):
    """``variables.<sid>...`` (``from_defaults`` False) or ``defaults.<sid>...``."""

    __slots__ = ("from_defaults", "segments", "text")

    def __init__(self, from_defaults: bool, segments: list[str | Node], column: int, text: str) -> None:
        depth = 1 + max((s.depth for s in segments if isinstance(s, Node)), default=0)
        super().__init__(column, depth)
        self.from_defaults = from_defaults
        self.segments = segments  # first one is the state id (a str)
        self.text = text

    def children(self) -> Sequence[Node]:
        return [s for s in self.segments if isinstance(s, Node)]

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
            elif is_number(value) and float(value).is_integer():
                out.append(int(value))
            else:
                raise ExpressionError(f"an index must be a number or text, not {type_name(value)}", seg.column)
        return out

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        keys = self.keys(live, defaults)
        if not self.from_defaults:
            found, value, failed_at = walk(live, keys)
            if found:
                return value
            # only a missing object property falls back to the defaults: live may be a partial
            # state, but a list index or a type that differs in live is live's own answer
            if not (isinstance(value, Mapping) and isinstance(keys[failed_at], str)):
                raise unknown_path(self, keys, failed_at)
            live_failed_at = failed_at
        found, value, failed_at = walk(defaults, keys)
        if found:
            return value
        if not self.from_defaults:
            # report the source that got furthest: its message names the part really missing
            failed_at = max(failed_at, live_failed_at)
        raise unknown_path(self, keys, failed_at)


class _Unary(Node):
    __slots__ = ("op", "operand")

    def __init__(self, op: str, operand: Node, column: int) -> None:
        super().__init__(column, operand.depth + 1)
        self.op = op
        self.operand = operand

    def children(self) -> Sequence[Node]:
        return [self.operand]

    def eval(self, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
        value = self.operand.eval(live, defaults)
        if self.op == "not":
            return not truthy(value)
        if not is_number(value):
            raise ExpressionError(f"cannot negate {type_name(value)}", self.column)
        return -value


class _Binary(Node):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Node, right: Node, column: int) -> None:
        super().__init__(column, max(left.depth, right.depth) + 1)
        self.op = op
        self.left = left
        self.right = right

    def children(self) -> Sequence[Node]:
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
            return equal(left, right)
        if op == "!=":
            return not equal(left, right)
        if op in ("<", "<=", ">", ">="):
            return compare(op, left, right, self.column)
        return arithmetic(op, left, right, self.column)


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
ROOTS = {"variables": False, "v": False, "defaults": True, "d": True}
_COLLECTIONS = ("variables", "v")
_LITERALS = {"true": True, "false": False, "null": None}


class Parser:
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

    def _check_depth(self, node: Node) -> Node:
        if node.depth > MAX_DEPTH:
            raise ExpressionError(f"expression too complex (more than {MAX_DEPTH} levels)", node.column)
        return node

    def expression(self, rbp: int = 0) -> Node:
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

    def _prefix(self, tok: _Token) -> Node:
        if tok.kind in ("num", "str"):
            return Literal(tok.value, tok.column)
        if tok.kind == "name":
            if tok.text in _LITERALS:
                return Literal(_LITERALS[tok.text], tok.column)
            if tok.text == "not":
                return self._check_depth(_Unary("not", self.expression(_NOT_POWER), tok.column))
            if tok.text in ROOTS:
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

    def _infix(self, tok: _Token, left: Node) -> Node:
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

    def _path(self, root: _Token) -> PathNode:
        if ROOTS[root.text]:
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
        segments: list[str | Node] = [self._name_after_dot()]
        while self.tok.kind == "op" and self.tok.text in (".", "["):
            tok = self.advance()
            if tok.text == ".":
                segments.append(self._name_after_dot())
            else:
                segments.append(self.expression(0))
                self._expect("]", f"to close the index opened at column {tok.column}")
        end = self.lexer.text[: self.tok.start].rstrip()
        text = end[root.start :]
        return self._check_depth(PathNode(ROOTS[root.text], segments, root.column, text))  # type: ignore[return-value]

    def finish(self) -> None:
        if self.tok.kind != "eof":
            if self.tok.kind == "op" and self.tok.text == "=":
                raise ExpressionError("unexpected '=': use == to compare", self.tok.column)
            if self.tok.kind == "op" and self.tok.text in ASSIGNMENT_OPERATORS:
                raise ExpressionError(f"unexpected {self.tok.text!r}: assignments belong in @set", self.tok.column)
            raise ExpressionError(f"unexpected {self.tok.describe()}", self.tok.column)


# --------------------------------------------------------------------------- helpers


def _format_path(node: PathNode, keys: Sequence[str | int | None]) -> str:
    parts = ["defaults.variables" if node.from_defaults else "variables"]
    for key in keys:
        if isinstance(key, str) and key.isidentifier():
            parts.append("." + key)
        elif key is None:
            parts.append("[?]")
        else:
            parts.append(f"[{json.dumps(key, ensure_ascii=False)}]")
    return "".join(parts)


def unknown_path(node: PathNode, keys: Sequence[str | int], failed_at: int) -> UnknownPath:
    path = _format_path(node, keys)
    if failed_at == 0:
        detail = f"no state id {keys[0]!r}"
    else:
        where = _format_path(node, keys[:failed_at])
        key = keys[failed_at] if failed_at < len(keys) else "?"
        detail = f"{where} has no {'index' if isinstance(key, int) else 'property'} {key!r}"
    return UnknownPath(f"unknown variable path {path}: {detail}", node.column, path)


def iter_nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))


def run(root: Node, live: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
    try:
        return root.eval(live, defaults)
    except RecursionError:  # pragma: no cover - guarded by MAX_DEPTH
        raise ExpressionError("expression nested too deeply", root.column) from None
