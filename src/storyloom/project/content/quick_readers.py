"""Quick readers for the common shapes of HJSON and YAML property text (the libraries are slow).

Each returns :data:`NOT_QUICK` when the text is not of the shape it reads; the caller then uses
the library."""

from __future__ import annotations

import re
from typing import Any

from storyloom.project.content.yaml12 import Yaml12Loader

# --------------------------------------------------------------------------------------
# A quick reader for the common shape of HJSON property text: one ``key: value`` per line,
# ``key: {`` / ``key: [`` blocks closed by ``}`` / ``]`` on their own line, list items one per
# line, whole-line ``#`` and ``//`` comments, an optional root ``{ ... }``. It gives exactly
# what hjson-py gives for such text (same value rules, below) and hands anything else
# (quotes, commas, inline comments, multiline strings, odd whitespace...) to hjson-py.

NOT_QUICK = object()
_HJSON_KEY = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_$.\-]*")
# hjson-py's number rule (``hjson.decoder.NUMBER_RE``): a quoteless value that is exactly this
_HJSON_NUMBER = re.compile(r"[\t ]*(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?[\t ]*")
# where hjson-py stops reading a quoteless value before the end of the line
_HJSON_VALUE_STOP = re.compile(r"[,\]}#]|/[/*]")
# whitespace other than space, tab and line breaks (hjson-py and str.strip disagree on it)
_ODD_SPACE = re.compile(r"[^\S \t\n]")


def _quick_hjson_scalar(text: str) -> Any:
    """A quoteless HJSON value that runs to the end of its line, as hjson-py reads it."""
    first = text[0]
    if first in "{}[],:'\"" or _HJSON_VALUE_STOP.search(text):
        return NOT_QUICK
    if text == "null":
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if first == "-" or "0" <= first <= "9":
        match = _HJSON_NUMBER.match(text)
        if match is not None and match.end() == len(text):
            integer, fraction, exponent = match.groups()
            if not (fraction or exponent):
                return int(integer)
            number = float(integer + (fraction or "") + (exponent or ""))
            if number - number != 0.0:  # an infinity: hjson-py's own error is the one to give
                return NOT_QUICK
            return int(number) if int(number) == number and abs(number) < 1e10 else number
    return text


def quick_hjson(text: str) -> Any:
    """``hjson.loads(text)`` for the common shape of property text, or ``NOT_QUICK``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return NOT_QUICK
    if text[:1] == "\ufeff" or _ODD_SPACE.search(text):
        return NOT_QUICK
    root: dict[str, Any] = {}
    stack: list[Any] = [root]
    braced = False  # the root is written { ... }
    seen_content = False
    for line in text.split("\n"):
        line = line.strip(" \t")
        if not line or line[0] == "#" or line[:2] == "//":
            continue
        if not stack:  # text after the closing } of the root
            return NOT_QUICK
        top = stack[-1]
        if line in ("}", "},"):
            if top.__class__ is not dict or (len(stack) == 1 and (not braced or line != "}")):
                return NOT_QUICK
            stack.pop()
            continue
        if line in ("]", "],"):
            if top.__class__ is not list:
                return NOT_QUICK
            stack.pop()
            continue
        if line == "{" and not seen_content:
            braced = seen_content = True
            continue
        seen_content = True
        if top.__class__ is list:
            if line == "{" or line == "[":
                value: Any = {} if line == "{" else []
                top.append(value)
                stack.append(value)
                continue
            value = _quick_hjson_scalar(line)
            if value is NOT_QUICK:
                return NOT_QUICK
            top.append(value)
            continue
        colon = line.find(":")
        if colon <= 0:
            return NOT_QUICK
        key = line[:colon].rstrip(" \t")
        rest = line[colon + 1 :].lstrip(" \t")
        if not rest or _HJSON_KEY.fullmatch(key) is None:
            return NOT_QUICK
        if rest == "{" or rest == "[":
            value = {} if rest == "{" else []
            top[key] = value
            stack.append(value)
            continue
        value = _quick_hjson_scalar(rest)
        if value is NOT_QUICK:
            return NOT_QUICK
        top[key] = value
    if len(stack) != (0 if braced else 1):
        return NOT_QUICK
    return root


# --------------------------------------------------------------------------------------
# A quick reader for the common shape of YAML property text and variables: block mappings
# and block sequences by space indentation, one ``key: value`` or ``- value`` per line,
# single-line plain or quoted scalars, flow sequences of plain scalars (``[a, b]``), ``{}``,
# whole-line comments. Plain scalars are typed by the loader's own resolvers and
# constructors, so the result is exactly ``yaml.load(text, Loader=Yaml12Loader)``
# (then :func:`to_json`); anything else (tabs, anchors, tags, block scalars, multi-line
# scalars, inline comments, ``:`` or ``#`` inside a plain scalar, timestamps, NaN or
# infinities...) goes to PyYAML.

_YAML_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_YAML_STR = "tag:yaml.org,2002:str"
_YAML_MAX_DEPTH = 64


def _yaml_tag(value: str) -> str:
    """The tag PyYAML's resolver gives the plain scalar ``value`` (``Resolver.resolve``)."""
    # First character (None: any) -> [(tag, pattern)], as PyYAML's Resolver keeps them.
    resolvers: dict[str | None, list[tuple[str, re.Pattern[str]]]] = Yaml12Loader.yaml_implicit_resolvers
    for tag, pattern in resolvers.get(value[0] if value else "", ()):
        if pattern.match(value):
            return tag
    for tag, pattern in resolvers.get(None, ()):  # pragma: no cover - no wildcard resolvers
        if pattern.match(value):
            return tag
    return _YAML_STR


def _quick_yaml_plain(text: str, flow: bool) -> Any:
    """A one-line plain scalar (spaces trimmed) as the loader constructs it, or ``NOT_QUICK``."""
    first = text[0]
    if not (first.isalnum() or first == "_" or (first == "-" and text[1:2].isalnum())):
        return NOT_QUICK
    if ":" in text or "#" in text or (flow and ("[" in text or "]" in text or "{" in text or "}" in text)):
        return NOT_QUICK
    tag = _yaml_tag(text)
    if tag == _YAML_STR:
        return text
    if tag not in _QUICK_YAML_TAGS:
        return NOT_QUICK  # timestamps, merge keys...
    value = Yaml12Loader.yaml_constructors[tag](_SCALAR_LOADER, text)
    if value.__class__ is float and value - value != 0.0:
        return NOT_QUICK  # NaN, infinities: PyYAML's path gives the error
    return value


_QUICK_YAML_TAGS = frozenset(
    {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
)


class _ScalarLoader:
    """What the loader's scalar constructors use of the loader, with the scalar's text
    standing for its node."""

    bool_values = Yaml12Loader.bool_values
    inf_value = Yaml12Loader.inf_value
    nan_value = Yaml12Loader.nan_value

    @staticmethod
    def construct_scalar(node: str) -> str:
        return node


_SCALAR_LOADER = _ScalarLoader()


def _quick_yaml_value(text: str) -> Any:
    """The value after ``key: `` or ``- `` (spaces trimmed), or ``NOT_QUICK``."""
    first = text[0]
    if first == '"' or first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != first or first in inner or (first == '"' and "\\" in inner):
            return NOT_QUICK
        return inner  # quoted: always a string, written as is (no escape, no quote inside)
    if first == "[":
        if text == "[]":
            return []
        if text[-1] != "]":
            return NOT_QUICK
        items = []
        for item in text[1:-1].split(","):
            item = item.strip(" ")
            value = _quick_yaml_plain(item, True) if item else NOT_QUICK
            if value is NOT_QUICK:
                return NOT_QUICK
            items.append(value)
        return items
    if text == "{}":
        return {}
    return _quick_yaml_plain(text, False)


def quick_yaml(text: str) -> Any:
    """``yaml.load(text, Loader=Yaml12Loader)`` for the common shape, or ``NOT_QUICK``."""
    if not text.replace("\n", "").isprintable():  # tabs, CR, other line breaks, a BOM...
        return NOT_QUICK
    lines: list[tuple[int, str]] = []  # (indentation, content) of the lines that are not blank
    for line in text.split("\n"):
        body = line.strip(" ")
        if body and body[0] != "#":
            lines.append((len(line) - len(line.lstrip(" ")), body))
    if not lines or lines[0][1][:2] == "- " or lines[0][1] == "-":
        return NOT_QUICK
    value, end = _quick_yaml_block(lines, 0, lines[0][0], 0)
    return value if end == len(lines) else NOT_QUICK


def _quick_yaml_block(lines: list[tuple[int, str]], i: int, indent: int, depth: int) -> tuple[Any, int]:
    """The block mapping or sequence whose lines start at ``lines[i]``, indented ``indent``;
    ``(value, index of the next line)``, or ``(NOT_QUICK, -1)``."""
    if depth > _YAML_MAX_DEPTH:
        return NOT_QUICK, -1
    n = len(lines)
    if lines[i][1][:2] == "- " or lines[i][1] == "-":
        items: list[Any] = []
        while i < n and lines[i][0] == indent and lines[i][1][:2] == "- ":
            text = lines[i][1][2:].lstrip(" ")
            value = _quick_yaml_value(text) if text else NOT_QUICK
            if value is NOT_QUICK:
                return NOT_QUICK, -1
            items.append(value)
            i += 1
        if i < n and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1] == "-")):
            return NOT_QUICK, -1  # a continuation line, an empty item, a deeper line...
        return items, i
    data: dict[str, Any] = {}
    while i < n and lines[i][0] == indent and lines[i][1][:2] != "- " and lines[i][1] != "-":
        body = lines[i][1]
        colon = body.find(": ")
        if colon < 0:
            if body[-1] != ":":
                return NOT_QUICK, -1
            colon = len(body) - 1
        key = body[:colon]
        if _YAML_KEY.fullmatch(key) is None or _yaml_tag(key) != _YAML_STR:
            return NOT_QUICK, -1
        rest = body[colon + 1 :].lstrip(" ")
        i += 1
        if rest:
            if rest[0] == "#":
                return NOT_QUICK, -1
            value = _quick_yaml_value(rest)
        elif i < n and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1][:2] == "- ")):
            value, i = _quick_yaml_block(lines, i, lines[i][0], depth + 1)
        else:
            value = None  # "key:" and nothing under it: null
        if value is NOT_QUICK:
            return NOT_QUICK, -1
        data[key] = value
    if i < n and lines[i][0] >= indent:
        return NOT_QUICK, -1  # a continuation line, a stray "-", a deeper line...
    return data, i
