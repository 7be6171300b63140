"""Typed content: property text by language, Variables, Scenarios and Maps.

Everything here works on plain document dicts and never touches the store, so the editing
service, the exporter, the API and the desktop app share one implementation of each rule.

- :func:`parse_text` parses property text written in ``json``, ``hjson``, ``yaml``, ``toml``
  or ``text`` to a JSON-compatible value, or raises :class:`ContentError` with a 1-based
  line and column a writer can act on.
- Variables: :func:`parse_variables_doc` turns a Variable document's source
  (``content.variables``) into its state object carrying ``_sid``;
  :func:`check_unique_sids` reports two documents claiming the same ``_sid``.
- Scenarios: :func:`validate_scenario` checks a Scenario's diff (``content.scenario``)
  against the variables' states: unknown state ids, unknown properties, changed types.
- Maps: :func:`validate_map` checks the Map document shape (see ``docs/export-format.md``):
  ``width``, ``height``, ``cells`` keyed ``"x,y"``, ``edges`` keyed ``"x,y:N|E|S|W"``, named
  ``markers``; out-of-bounds keys are errors.

Types are inferred from authored values by :func:`infer_schema` (a JSON Schema fragment); the
scenario checks and the schema export use the same function, so what the editor reports and
what the exported schema rejects never disagree.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import hjson
import yaml

LANGUAGES: tuple[str, ...] = ("json", "hjson", "yaml", "toml", "text")
"""The property languages a document's ``editorLanguage`` may name."""

STRUCTURED_LANGUAGES: tuple[str, ...] = ("json", "hjson", "yaml", "toml")

SID_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""A ``_sid`` must be addressable from scripts as ``variables.<_sid>.<prop>``."""


# --------------------------------------------------------------------------------------
# Errors and problems


class ContentError(ValueError):
    """Content that cannot be used; ``line``/``column`` are 1-based (``None`` when unknown)."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        language: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.language = language
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f"line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
            where += ": "
        return f"{where}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "language": self.language,
        }


@dataclass(frozen=True)
class ContentProblem:
    """One finding about a document's content.

    ``code`` is stable and machine-readable (``parse-error``, ``not-an-object``, ``missing-sid``,
    ``bad-sid``, ``duplicate-sid``, ``unknown-state``, ``unknown-property``, ``type-changed``,
    ``sid-override``, ``bad-dimension``, ``bad-key``, ``out-of-bounds``, ``bad-entry``,
    ``missing-type``, ``duplicate-edge``, ``bad-marker``); ``path`` locates the finding inside
    the content (``player.courage``, ``cells["3,4"]``); ``line``/``column`` point into the
    source text when known (best effort for keys, exact for parse errors).
    """

    code: str
    message: str
    path: str = ""
    line: int | None = None
    column: int | None = None
    doc_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "docId": self.doc_id,
        }

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        if self.line is not None:
            where = f"line {self.line}" + (f", column {self.column}" if self.column else "") + f": {where}"
        return f"{where}{self.message}"


# --------------------------------------------------------------------------------------
# YAML 1.2 core schema (as js-yaml, which Drafft uses): `yes`/`no`/`on`/`off` stay strings,
# no sexagesimal numbers, `0o17` octal.

_YamlBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Yaml12Loader(_YamlBase):  # type: ignore[misc, valid-type]
    pass


_YAML11_TAGS = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _YAML11_TAGS]
    for first, resolvers in _YamlBase.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _yaml12_int(loader: Any, node: Any) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _yaml_json_map(loader: Any, node: Any) -> Any:
    """Mappings with JSON keys (``1`` -> ``"1"``, ``true`` -> ``"true"``) built as they are read,
    so that keys equal in Python (``1`` and ``true``) stay apart, as in JavaScript."""
    data: dict[str, Any] = {}
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        data[_json_key(key)] = loader.construct_object(value_node, deep=False)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _yaml_json_map)


# --------------------------------------------------------------------------------------
# parse_text


def _json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _json_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:
        raise ValueError(f"{text} is too large for a JSON number")
    return value


def _loads(text: str) -> Any:
    """Strict JSON: no NaN, no infinities (not even by overflow)."""
    return json.loads(text, parse_constant=_json_constant, parse_float=_json_float)


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def _strip_comment_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "//")))


def parse_text(text: str, language: str) -> Any:
    """Parse ``text`` written in ``language`` into a JSON-compatible value.

    ``text`` returns the text unchanged. For the structured languages an empty (or
    comment-only) text is ``{}``. YAML is read with the YAML 1.2 core schema (``yes``/``no``
    stay strings, as in Drafft). Dates and times become ISO-8601 strings, binary becomes
    base64; NaN and infinities are refused (JSON cannot hold them). Raises
    :class:`ContentError` with a 1-based line and column on a syntax error.
    """
    try:
        return _parse_text(text, language)
    except _NotJson as exc:
        line, column = locate_key(text, exc.keys)
        raise ContentError(str(exc), line, column, language=(language or "").lower()) from None


def _parse_text(text: str, language: str) -> Any:
    if not isinstance(text, str):
        raise ContentError(f"expected text, got {type(text).__name__}", language=language)
    lang = (language or "").strip().lower()
    if lang == "text":
        return text
    if lang not in STRUCTURED_LANGUAGES:
        raise ContentError(f"unknown language {language!r}; expected one of {', '.join(LANGUAGES)}", language=language)
    if not text.strip():
        return {}
    if lang == "json":
        try:
            value = _loads(text)
        except json.JSONDecodeError as exc:
            raise ContentError(exc.msg, exc.lineno, exc.colno, language=lang) from None
        except ValueError as exc:
            raise ContentError(str(exc), language=lang) from None
        return value  # already plain values
    if lang == "hjson":
        # Valid JSON is valid HJSON: take the fast, exact path first.
        if text.lstrip()[:1] in "{[":
            try:
                return _loads(text)
            except ValueError:
                pass
        value = _quick_hjson(text)
        if value is not _NOT_QUICK:
            return value
        try:
            value = hjson.loads(text)
        except hjson.HjsonDecodeError as exc:
            error = _hjson_root_object_error(text) if exc.msg == "Extra data" else None
            error = error or exc
            raise ContentError(error.msg, error.lineno, error.colno, language=lang) from None
        except (ValueError, IndexError, TypeError) as exc:  # hjson's scanner leaks a few
            raise ContentError(str(exc), language=lang) from None
        return _to_json(value, lang)
    if lang == "yaml":
        value = _quick_yaml(text)
        if value is not _NOT_QUICK:
            return value
        try:
            value = yaml.load(text, Loader=_Yaml12Loader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            message = exc.problem or exc.context or "invalid YAML"
            if exc.context and exc.problem:
                message = f"{exc.problem} ({exc.context})"
            line = mark.line + 1 if mark is not None else None
            column = mark.column + 1 if mark is not None else None
            raise ContentError(message, line, column, language=lang) from None
        except yaml.YAMLError as exc:
            raise ContentError(str(exc), language=lang) from None
        if value is None and not _strip_comment_lines(text):
            return {}
        return _to_json(value, lang)
    # toml
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_POSITION.search(message)
        if match:
            message = message[: match.start()].strip()
            raise ContentError(message, int(match.group(1)), int(match.group(2)), language=lang) from None
        raise ContentError(message, language=lang) from None
    return _to_json(value, lang)


# --------------------------------------------------------------------------------------
# A quick reader for the common shape of HJSON property text: one ``key: value`` per line,
# ``key: {`` / ``key: [`` blocks closed by ``}`` / ``]`` on their own line, list items one per
# line, whole-line ``#`` and ``//`` comments, an optional root ``{ ... }``. It gives exactly
# what hjson-py gives for such text (same value rules, below) and hands anything else
# (quotes, commas, inline comments, multiline strings, odd whitespace...) to hjson-py.

_NOT_QUICK = object()
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
        return _NOT_QUICK
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
                return _NOT_QUICK
            return int(number) if int(number) == number and abs(number) < 1e10 else number
    return text


def _quick_hjson(text: str) -> Any:
    """``hjson.loads(text)`` for the common shape of property text, or ``_NOT_QUICK``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return _NOT_QUICK
    if text[:1] == "\ufeff" or _ODD_SPACE.search(text):
        return _NOT_QUICK
    root: dict[str, Any] = {}
    stack: list[Any] = [root]
    braced = False  # the root is written { ... }
    seen_content = False
    for line in text.split("\n"):
        line = line.strip(" \t")
        if not line or line[0] == "#" or line[:2] == "//":
            continue
        if not stack:  # text after the closing } of the root
            return _NOT_QUICK
        top = stack[-1]
        if line in ("}", "},"):
            if top.__class__ is not dict or (len(stack) == 1 and (not braced or line != "}")):
                return _NOT_QUICK
            stack.pop()
            continue
        if line in ("]", "],"):
            if top.__class__ is not list:
                return _NOT_QUICK
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
            if value is _NOT_QUICK:
                return _NOT_QUICK
            top.append(value)
            continue
        colon = line.find(":")
        if colon <= 0:
            return _NOT_QUICK
        key = line[:colon].rstrip(" \t")
        rest = line[colon + 1 :].lstrip(" \t")
        if not rest or _HJSON_KEY.fullmatch(key) is None:
            return _NOT_QUICK
        if rest == "{" or rest == "[":
            value = {} if rest == "{" else []
            top[key] = value
            stack.append(value)
            continue
        value = _quick_hjson_scalar(rest)
        if value is _NOT_QUICK:
            return _NOT_QUICK
        top[key] = value
    if len(stack) != (0 if braced else 1):
        return _NOT_QUICK
    return root


# --------------------------------------------------------------------------------------
# A quick reader for the common shape of YAML property text and variables: block mappings
# and block sequences by space indentation, one ``key: value`` or ``- value`` per line,
# single-line plain or quoted scalars, flow sequences of plain scalars (``[a, b]``), ``{}``,
# whole-line comments. Plain scalars are typed by the loader's own resolvers and
# constructors, so the result is exactly ``yaml.load(text, Loader=_Yaml12Loader)``
# (then :func:`_to_json`); anything else (tabs, anchors, tags, block scalars, multi-line
# scalars, inline comments, ``:`` or ``#`` inside a plain scalar, timestamps, NaN or
# infinities...) goes to PyYAML.

_YAML_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_YAML_STR = "tag:yaml.org,2002:str"
_YAML_MAX_DEPTH = 64


def _yaml_tag(value: str) -> str:
    """The tag PyYAML's resolver gives the plain scalar ``value`` (``Resolver.resolve``)."""
    resolvers = _Yaml12Loader.yaml_implicit_resolvers
    for tag, pattern in resolvers.get(value[0] if value else "", ()):
        if pattern.match(value):
            return tag
    for tag, pattern in resolvers.get(None, ()):  # pragma: no cover - no wildcard resolvers
        if pattern.match(value):
            return tag
    return _YAML_STR


def _quick_yaml_plain(text: str, flow: bool) -> Any:
    """A one-line plain scalar (spaces trimmed) as the loader constructs it, or ``_NOT_QUICK``."""
    first = text[0]
    if not (first.isalnum() or first == "_" or (first == "-" and text[1:2].isalnum())):
        return _NOT_QUICK
    if ":" in text or "#" in text or (flow and ("[" in text or "]" in text or "{" in text or "}" in text)):
        return _NOT_QUICK
    tag = _yaml_tag(text)
    if tag == _YAML_STR:
        return text
    if tag not in _QUICK_YAML_TAGS:
        return _NOT_QUICK  # timestamps, merge keys...
    value = _Yaml12Loader.yaml_constructors[tag](_SCALAR_LOADER, text)
    if value.__class__ is float and value - value != 0.0:
        return _NOT_QUICK  # NaN, infinities: PyYAML's path gives the error
    return value


_QUICK_YAML_TAGS = frozenset(
    {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
)


class _ScalarLoader:
    """What the loader's scalar constructors use of the loader, with the scalar's text
    standing for its node."""

    bool_values = _Yaml12Loader.bool_values
    inf_value = _Yaml12Loader.inf_value
    nan_value = _Yaml12Loader.nan_value

    @staticmethod
    def construct_scalar(node: str) -> str:
        return node


_SCALAR_LOADER = _ScalarLoader()


def _quick_yaml_value(text: str) -> Any:
    """The value after ``key: `` or ``- `` (spaces trimmed), or ``_NOT_QUICK``."""
    first = text[0]
    if first == '"' or first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != first or first in inner or (first == '"' and "\\" in inner):
            return _NOT_QUICK
        return inner  # quoted: always a string, written as is (no escape, no quote inside)
    if first == "[":
        if text == "[]":
            return []
        if text[-1] != "]":
            return _NOT_QUICK
        items = []
        for item in text[1:-1].split(","):
            item = item.strip(" ")
            value = _quick_yaml_plain(item, True) if item else _NOT_QUICK
            if value is _NOT_QUICK:
                return _NOT_QUICK
            items.append(value)
        return items
    if text == "{}":
        return {}
    return _quick_yaml_plain(text, False)


def _quick_yaml(text: str) -> Any:
    """``yaml.load(text, Loader=_Yaml12Loader)`` for the common shape, or ``_NOT_QUICK``."""
    if not text.replace("\n", "").isprintable():  # tabs, CR, other line breaks, a BOM...
        return _NOT_QUICK
    lines: list[tuple[int, str]] = []  # (indentation, content) of the lines that are not blank
    for line in text.split("\n"):
        body = line.strip(" ")
        if body and body[0] != "#":
            lines.append((len(line) - len(line.lstrip(" ")), body))
    if not lines or lines[0][1][:2] == "- " or lines[0][1] == "-":
        return _NOT_QUICK
    value, end = _quick_yaml_block(lines, 0, lines[0][0], 0)
    return value if end == len(lines) else _NOT_QUICK


def _quick_yaml_block(lines: list[tuple[int, str]], i: int, indent: int, depth: int) -> tuple[Any, int]:
    """The block mapping or sequence whose lines start at ``lines[i]``, indented ``indent``;
    ``(value, index of the next line)``, or ``(_NOT_QUICK, -1)``."""
    if depth > _YAML_MAX_DEPTH:
        return _NOT_QUICK, -1
    n = len(lines)
    if lines[i][1][:2] == "- " or lines[i][1] == "-":
        items: list[Any] = []
        while i < n and lines[i][0] == indent and lines[i][1][:2] == "- ":
            text = lines[i][1][2:].lstrip(" ")
            value = _quick_yaml_value(text) if text else _NOT_QUICK
            if value is _NOT_QUICK:
                return _NOT_QUICK, -1
            items.append(value)
            i += 1
        if i < n and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1] == "-")):
            return _NOT_QUICK, -1  # a continuation line, an empty item, a deeper line...
        return items, i
    data: dict[str, Any] = {}
    while i < n and lines[i][0] == indent and lines[i][1][:2] != "- " and lines[i][1] != "-":
        body = lines[i][1]
        colon = body.find(": ")
        if colon < 0:
            if body[-1] != ":":
                return _NOT_QUICK, -1
            colon = len(body) - 1
        key = body[:colon]
        if _YAML_KEY.fullmatch(key) is None or _yaml_tag(key) != _YAML_STR:
            return _NOT_QUICK, -1
        rest = body[colon + 1 :].lstrip(" ")
        i += 1
        if rest:
            if rest[0] == "#":
                return _NOT_QUICK, -1
            value = _quick_yaml_value(rest)
        elif i < n and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1][:2] == "- ")):
            value, i = _quick_yaml_block(lines, i, lines[i][0], depth + 1)
        else:
            value = None  # "key:" and nothing under it: null
        if value is _NOT_QUICK:
            return _NOT_QUICK, -1
        data[key] = value
    if i < n and lines[i][0] >= indent:
        return _NOT_QUICK, -1  # a continuation line, a stray "-", a deeper line...
    return data, i


def _hjson_root_object_error(text: str) -> Any:
    """The error of reading ``text`` as a brace-less HJSON object.

    hjson-py falls back to reading a single value when the root object fails, then reports
    only "Extra data" after that value's first line; the object's own error is the one a
    writer can act on.
    """
    decoder = hjson.HjsonDecoder()
    start = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    if text[start : start + 1] in ("{", "["):
        return None
    try:
        decoder.scan_object_once(text, start)
    except hjson.HjsonDecodeError as exc:
        return exc
    except Exception:  # pragma: no cover - defensive: keep hjson's own error
        return None
    return None


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, _dt.date | _dt.time):
        return key.isoformat()
    return str(key)


class _NotJson(Exception):
    def __init__(self, message: str, keys: list[str]) -> None:
        super().__init__(message)
        self.keys = keys


_SCALARS = (str, int, bool, type(None))


def _to_json(value: Any, language: str, keys: tuple[str, ...] = ()) -> Any:
    """Convert a parser's output to plain JSON values (dict, list, str, int, float, bool, None).

    Hot path of every export: concrete type checks first, containers rebuilt only as needed.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is float:
        if value - value != 0.0:  # NaN or an infinity
            where = f" at {'.'.join(keys)}" if keys else ""
            raise _NotJson(f"{value!r}{where} cannot be represented in JSON", list(keys))
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = key if type(key) is str else _json_key(key)
            out[name] = item if type(item) in _SCALARS else _to_json(item, language, (*keys, name))
        return out
    if isinstance(value, list | tuple):
        return [item if type(item) in _SCALARS else _to_json(item, language, keys) for item in value]
    if isinstance(value, Mapping):
        return _to_json(dict(value), language, keys)
    if isinstance(value, float):
        return _to_json(float(value), language, keys)
    if isinstance(value, bool | str | int):
        return value
    if isinstance(value, set | frozenset):
        return sorted((_to_json(item, language, keys) for item in value), key=repr)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _plain(value: Any) -> Any:
    """An already-parsed value as plain JSON; :class:`ContentError` if it holds NaN/infinity."""
    try:
        return _to_json(value, "json")
    except _NotJson as exc:
        raise ContentError(str(exc)) from None


def _detect(text: str) -> tuple[str, Any]:
    """``(language, value)`` of the first structured language that reads ``text`` as an object
    or array; ``("text", text)`` when none does."""
    if not text.strip():
        return "yaml", {}
    first = text.lstrip()[:1]
    order = ("json", "yaml", "hjson", "toml") if first in "{[" else ("yaml", "hjson", "toml")
    for lang in order:
        try:
            value = parse_text(text, lang)
        except ContentError:
            continue
        if isinstance(value, dict | list):
            return lang, value
    return "text", text


def detect_language(text: str) -> str:
    """Guess the structured language of ``text``: the first of json, yaml, hjson, toml that
    parses it to an object or array; ``text`` when none does.

    YAML is tried before HJSON because HJSON silently reads an indented YAML block as a
    string; HJSON is next because YAML refuses HJSON's comma-less ``{ ... }`` blocks. (JSON is
    only tried for text starting with a bracket.)
    """
    return _detect(text)[0]


def _likely_language(text: str) -> str:
    """The language whose error message is most useful when no language parses ``text``."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and lines[0][:1] in "{[" and lines[-1][-1:] in "}]" and '":' in text:
        return "json"
    if any(line.endswith(("{", "[")) or line.startswith("//") for line in lines):
        return "hjson"
    if lines and all(("=" in line and ":" not in line.split("=", 1)[0]) or line.startswith("[") for line in lines):
        return "toml"
    return "yaml"


def parse_detected(text: str, language: str | None = None) -> tuple[Any, str]:
    """Parse ``text`` in ``language`` (or the detected one); returns ``(value, language)``."""
    lang = (language or "").strip().lower()
    if lang in STRUCTURED_LANGUAGES:
        return parse_text(text, lang), lang
    detected, value = _detect(text)
    if detected == "text":
        lang = _likely_language(text)
        return parse_text(text, lang), lang  # raises with the most useful position
    return value, detected


# --------------------------------------------------------------------------------------
# Locating a key path in source text (best effort: JSON, HJSON, YAML and TOML write keys at
# the start of a line)


def locate_key(text: str | None, path: Sequence[str]) -> tuple[int | None, int | None]:
    """1-based ``(line, column)`` of the last key of ``path`` in ``text``, searching each key
    after the line of its parent; ``(None, None)`` when not found."""
    if not text or not path:
        return None, None
    lines = text.splitlines()
    start = 0
    found: tuple[int | None, int | None] = (None, None)
    for key in path:
        pattern = re.compile(r"^(\s*(?:\[\s*)?)[\"']?" + re.escape(str(key)) + r"[\"']?\s*(?:[:=\]]|$)")
        for index in range(start, len(lines)):
            match = pattern.match(lines[index])
            if match:
                found = (index + 1, len(match.group(1)) + 1)
                start = index + 1
                break
        else:
            return found if found[0] is not None else (None, None)
    return found


# --------------------------------------------------------------------------------------
# Type inference (shared with the schema export)

_TYPE_KEYS = ("type", "properties", "required", "additionalProperties", "items", "anyOf")


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def infer_schema(value: Any) -> dict[str, Any]:
    """A JSON Schema fragment for the type of an authored default value.

    - ``null`` constrains nothing (``{}``): a variable authored as null may take any value.
    - booleans, strings: their type; integers ``integer``; other numbers ``number`` (which
      also accepts integers): write ``0.0`` to declare a number.
    - objects: every authored property, all required, no others (``additionalProperties:
      false``), each typed recursively.
    - arrays: the merged type of their elements (``{}`` for an empty array).
    """
    kind = json_type(value)
    if kind == "null":
        return {}
    if kind == "object":
        return {
            "type": "object",
            "properties": {key: infer_schema(item) for key, item in value.items()},
            "required": list(value.keys()),
            "additionalProperties": False,
        }
    if kind == "array":
        items: dict[str, Any] | None = None
        for element in value:
            element_schema = infer_schema(element)
            items = element_schema if items is None else merge_schemas(items, element_schema)
        return {"type": "array", "items": items if items is not None else {}}
    return {"type": kind}


def _alternatives(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return list(schema["anyOf"]) if set(schema) == {"anyOf"} else [schema]


def merge_schemas(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The narrowest schema (of :func:`infer_schema`'s vocabulary) accepting both ``a`` and ``b``."""
    if a == b:
        return a
    if a == {} or b == {}:
        return {}
    ta, tb = a.get("type"), b.get("type")
    if ta == tb == "object":
        props_a, props_b = a["properties"], b["properties"]
        properties = dict(props_a)
        for key, schema in props_b.items():
            properties[key] = merge_schemas(properties[key], schema) if key in properties else schema
        required = [key for key in a["required"] if key in b["required"]]
        return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    if ta == tb == "array":
        return {"type": "array", "items": merge_schemas(a["items"], b["items"])}
    if {ta, tb} == {"integer", "number"} and len(a) == len(b) == 1:
        return {"type": "number"}
    options: list[dict[str, Any]] = []
    for option in [*_alternatives(a), *_alternatives(b)]:
        for i, existing in enumerate(options):
            if existing.get("type") == option.get("type") and option.get("type") in ("object", "array"):
                options[i] = merge_schemas(existing, option)
                break
            if existing == option:
                break
        else:
            options.append(option)
    return options[0] if len(options) == 1 else {"anyOf": options}


def partial_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of an override of a value of ``schema``: objects become deep-partial (no
    property required, none unknown); arrays and scalars are replaced whole."""
    if schema.get("type") == "object":
        return {
            "type": "object",
            "properties": {key: partial_schema(sub) for key, sub in schema["properties"].items()},
            "additionalProperties": False,
        }
    return schema


def _matches(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` is valid against a schema of :func:`infer_schema`'s vocabulary."""
    if "anyOf" in schema:
        return any(_matches(option, value) for option in schema["anyOf"])
    expected = schema.get("type")
    if expected is None:
        return True
    actual = json_type(value)
    if expected == "integer":
        if not (actual == "integer" or (actual == "number" and float(value).is_integer())):
            return False
    elif expected == "number":
        if actual not in ("integer", "number"):
            return False
    elif expected != actual:
        return False
    if expected == "object":
        properties = schema.get("properties", {})
        if any(key not in value for key in schema.get("required", ())):
            return False
        for key, item in value.items():
            if key in properties:
                if not _matches(properties[key], item):
                    return False
            elif schema.get("additionalProperties") is False:
                return False
    if expected == "array":
        return all(_matches(schema.get("items", {}), item) for item in value)
    return True


def describe_schema(schema: dict[str, Any]) -> str:
    """A short human name for a schema: ``integer``, ``object``, ``integer or string``, ``any``."""
    if "anyOf" in schema:
        return " or ".join(describe_schema(option) for option in schema["anyOf"])
    if schema.get("type") == "array":
        items = schema.get("items", {})
        return "array" if not items else f"array of {describe_schema(items)}"
    return str(schema.get("type", "any"))


# --------------------------------------------------------------------------------------
# Variables


def _content(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    content = doc.get("content")
    return content if isinstance(content, Mapping) else {}


def variables_source(doc: Mapping[str, Any]) -> str:
    """The Variable document's source text (``content.variables``); ``""`` when absent."""
    source = _content(doc).get("variables")
    return source if isinstance(source, str) else ""


def parse_variables_doc(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The state object of a Variable document, carrying its ``_sid``.

    The source is ``content.variables``, in ``editorLanguage`` when the document names a
    structured language, else the detected one (Drafft writes YAML or HJSON). Raises
    :class:`ContentError` when the text does not parse, is not an object, or lacks a valid
    ``_sid`` (letters, digits and ``_``, not starting with a digit, so that scripts can say
    ``variables.<_sid>.<prop>``).
    """
    content = _content(doc)
    source = content.get("variables")
    if isinstance(source, Mapping):  # already parsed (e.g. an export fed back in)
        state: Any = _plain(source)
        text = ""
    else:
        text = source if isinstance(source, str) else ""
        if not text.strip():
            raise ContentError("the variables source is empty: write at least `_sid: <name>`", 1, 1)
        state, _ = parse_detected(text, doc.get("editorLanguage"))
    if not isinstance(state, dict):
        raise ContentError(f"variables must be an object of name: value pairs, not {json_type(state)}", 1, 1)
    if "_sid" not in state:
        raise ContentError("missing `_sid`: name this state, e.g. `_sid: player`", 1, 1)
    sid = state["_sid"]
    if not isinstance(sid, str) or not SID_PATTERN.match(sid):
        line, column = locate_key(text, ["_sid"])
        raise ContentError(
            f"`_sid` must be a name of letters, digits and _ not starting with a digit, got {sid!r}",
            line or 1,
            column or 1,
        )
    return state


def check_unique_sids(docs: Iterable[Mapping[str, Any]]) -> list[ContentProblem]:
    """A ``duplicate-sid`` problem for every Variable document whose ``_sid`` an earlier
    document (in ``_id`` order) already uses. Documents that do not parse are skipped (their
    parse errors are reported by :func:`parse_variables_doc`)."""
    owners: dict[str, str] = {}
    problems: list[ContentProblem] = []
    for doc in sorted(docs, key=lambda d: str(d.get("_id", ""))):
        try:
            sid = parse_variables_doc(doc)["_sid"]
        except ContentError:
            continue
        doc_id = str(doc.get("_id", ""))
        if sid in owners:
            line, column = locate_key(variables_source(doc), ["_sid"])
            problems.append(
                ContentProblem(
                    "duplicate-sid",
                    f"`_sid` {sid!r} is already used by document {owners[sid]}; rename one of them",
                    "_sid",
                    line,
                    column,
                    doc_id,
                )
            )
        else:
            owners[sid] = doc_id
    return problems


def collect_states(docs: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{_sid: state}`` of the Variable documents that parse; on a duplicate ``_sid`` the
    document first in ``_id`` order wins (see :func:`check_unique_sids`)."""
    states: dict[str, dict[str, Any]] = {}
    for doc in sorted(docs, key=lambda d: str(d.get("_id", ""))):
        try:
            state = parse_variables_doc(doc)
        except ContentError:
            continue
        states.setdefault(state["_sid"], state)
    return states


# --------------------------------------------------------------------------------------
# Scenarios


def scenario_source(doc: Mapping[str, Any]) -> str:
    source = _content(doc).get("scenario")
    return source if isinstance(source, str) else ""


def parse_scenario_doc(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The diff of a Scenario document (``content.scenario``, HJSON in Drafft), an object keyed
    by ``_sid``. Raises :class:`ContentError` when it does not parse or is not an object."""
    source = _content(doc).get("scenario")
    if isinstance(source, Mapping):
        diff: Any = _plain(source)
    else:
        text = source if isinstance(source, str) else ""
        if not text.strip():
            return {}
        diff, _ = parse_detected(text, doc.get("editorLanguage"))
    if not isinstance(diff, dict):
        raise ContentError(f"a scenario must be an object keyed by state id, not {json_type(diff)}", 1, 1)
    return diff


def check_scenario_diff(
    diff: Mapping[str, Any],
    states: Mapping[str, Mapping[str, Any]],
    source: str | None = None,
    doc_id: str | None = None,
) -> tuple[dict[str, Any], list[ContentProblem]]:
    """Check a scenario diff against the states; returns ``(valid part, problems)``.

    The valid part keeps every override that names a known state and property and keeps the
    type of the default; nested objects are partial overrides (checked key by key), arrays
    and scalars replace the default whole and must match its type.
    """
    problems: list[ContentProblem] = []

    def problem(code: str, message: str, path: list[str]) -> None:
        line, column = locate_key(source, path)
        problems.append(ContentProblem(code, message, ".".join(path), line, column, doc_id))

    def walk(override: Mapping[str, Any], default: Mapping[str, Any], path: list[str]) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for key, value in override.items():
            here = [*path, key]
            if key not in default:
                known = ", ".join(k for k in default if k != "_sid") or "none"
                problem(
                    "unknown-property",
                    f"unknown property {'.'.join(here)!r}; {'.'.join(path)} has: {known}",
                    here,
                )
                continue
            default_value = default[key]
            if isinstance(default_value, dict) and isinstance(value, dict):
                kept[key] = walk(value, default_value, here)
                continue
            schema = infer_schema(default_value)
            if not _matches(schema, value):
                problem(
                    "type-changed",
                    f"{'.'.join(here)} is {describe_schema(schema)} in the defaults, "
                    f"the scenario sets {describe_schema(infer_schema(value))} {json.dumps(value)[:60]}",
                    here,
                )
                continue
            kept[key] = value
        return kept

    cleaned: dict[str, Any] = {}
    for sid, override in diff.items():
        if sid not in states:
            known = ", ".join(sorted(states)) or "none"
            problem("unknown-state", f"unknown state id {sid!r}; the variables define: {known}", [sid])
            continue
        if not isinstance(override, dict):
            problem(
                "type-changed",
                f"{sid} must be an object of overrides, not {json_type(override)}",
                [sid],
            )
            continue
        if "_sid" in override:
            problem("sid-override", "a scenario cannot change `_sid`", [sid, "_sid"])
            override = {k: v for k, v in override.items() if k != "_sid"}
        cleaned[sid] = walk(override, states[sid], [sid])
    return cleaned, problems


def validate_scenario(doc: Mapping[str, Any], states: Mapping[str, Mapping[str, Any]]) -> list[ContentProblem]:
    """Problems of a Scenario document against ``states`` (``{_sid: state}``, see
    :func:`collect_states`): a ``parse-error`` (with line and column), ``unknown-state``,
    ``unknown-property``, ``type-changed`` or ``sid-override``. Empty when the scenario is valid."""
    doc_id = doc.get("_id")
    try:
        diff = parse_scenario_doc(doc)
    except ContentError as exc:
        return [ContentProblem("parse-error", exc.message, "", exc.line, exc.column, doc_id)]
    return check_scenario_diff(diff, states, scenario_source(doc), doc_id)[1]


# --------------------------------------------------------------------------------------
# Maps

SIDES: tuple[str, ...] = ("N", "E", "S", "W")
MAP_CONTENT_KEYS: tuple[str, ...] = ("width", "height", "cells", "edges", "markers", "properties")
"""The exported keys of a Map's ``content``; anything else (``content.editor``: viewport,
zoom, tool, palette, layer visibility) is editor-only and never exported."""

MAX_MAP_SIZE = 100_000
CELL_KEY = re.compile(r"^(0|[1-9][0-9]*),(0|[1-9][0-9]*)$")
EDGE_KEY = re.compile(r"^(0|[1-9][0-9]*),(0|[1-9][0-9]*):([NESW])$")
_LOOSE_CELL_KEY = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
_LOOSE_EDGE_KEY = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*:\s*([NESWnesw])\s*$")
_NEIGHBOUR = {"N": (0, -1, "S"), "S": (0, 1, "N"), "E": (1, 0, "W"), "W": (-1, 0, "E")}


def _dimension(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    size = int(value)
    return size if 1 <= size <= MAX_MAP_SIZE else None


def _has_type(entry: Any) -> bool:
    """A valid cell or edge value: an object with a non-empty string ``type``."""
    if not isinstance(entry, dict):
        return False
    entry_type = entry.get("type")
    return isinstance(entry_type, str) and bool(entry_type.strip())


def check_map_content(
    content: Mapping[str, Any], doc_id: str | None = None
) -> tuple[dict[str, Any] | None, list[ContentProblem]]:
    """Check a Map's content; returns ``(exportable content, problems)``.

    The exportable content holds only :data:`MAP_CONTENT_KEYS` and only the valid cells,
    edges and markers; it is ``None`` when the width or height is unusable (no bounds).
    """
    problems: list[ContentProblem] = []

    def problem(code: str, message: str, path: str) -> None:
        problems.append(ContentProblem(code, message, path, doc_id=doc_id))

    width = _dimension(content.get("width"))
    height = _dimension(content.get("height"))
    for name, size in (("width", width), ("height", height)):
        if size is None:
            problem(
                "bad-dimension",
                f"{name} must be a whole number from 1 to {MAX_MAP_SIZE}, got {content.get(name)!r}",
                name,
            )

    def entries(name: str) -> Mapping[str, Any]:
        value = content.get(name, {})
        if value is None:
            return {}
        if not isinstance(value, dict | Mapping):
            problem("bad-entry", f"{name} must be an object keyed by position, not {json_type(value)}", name)
            return {}
        return value

    cells_in, edges_in = entries("cells"), entries("edges")
    raw_markers = content.get("markers", {})
    markers_in: dict[str, Any] = {}
    if isinstance(raw_markers, list):  # also accepted: a list of {name, x, y, ...}
        for index, marker in enumerate(raw_markers):
            name = marker.get("name") if isinstance(marker, Mapping) else None
            if not isinstance(name, str) or not name.strip():
                problem("bad-marker", f"markers[{index}] needs a non-empty `name`", f"markers[{index}]")
            elif name in markers_in:
                problem("bad-marker", f"two markers are named {name!r}; marker names are unique", f"markers[{index}]")
            else:
                markers_in[name] = {k: v for k, v in marker.items() if k != "name"}
    else:
        markers_in = dict(entries("markers"))
    map_properties = content.get("properties", {})
    if map_properties is None:
        map_properties = {}
    if not isinstance(map_properties, Mapping):
        problem("bad-entry", f"properties must be an object, not {json_type(map_properties)}", "properties")
        map_properties = {}
    cells: dict[str, Any] = {}
    edges: dict[str, Any] = {}
    markers: dict[str, Any] = {}

    def in_bounds(x: int, y: int) -> bool:
        return width is not None and height is not None and 0 <= x < width and 0 <= y < height

    def bounds_text() -> str:
        return f"x 0..{(width or 1) - 1}, y 0..{(height or 1) - 1}"

    def check_entry(kind: str, key: str, value: Any) -> bool:
        if _has_type(value):
            return True
        path = f'{kind}["{key}"]'
        if not isinstance(value, dict):
            problem("bad-entry", f"{path} must be an object with a `type`, not {json_type(value)}", path)
        else:
            problem("missing-type", f'{path} needs a `type` (a non-empty string, e.g. "wall")', path)
        return False

    bounded = width is not None and height is not None
    for key in sorted(cells_in):
        value = cells_in[key]
        match = CELL_KEY.match(key)
        if not match:
            loose = _LOOSE_CELL_KEY.match(key)
            if loose and not (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
                problem(
                    "bad-key",
                    f'cell key {key!r} must be written "x,y" without spaces or zeros in front',
                    f'cells["{key}"]',
                )
            elif loose:
                problem("out-of-bounds", f"cell {key!r} is outside the map ({bounds_text()})", f'cells["{key}"]')
            else:
                problem("bad-key", f'cell key {key!r} must be "x,y", e.g. "3,4"', f'cells["{key}"]')
            continue
        x, y = int(match.group(1)), int(match.group(2))
        if bounded and not (0 <= x < width and 0 <= y < height):  # type: ignore[operator]
            problem("out-of-bounds", f"cell {key!r} is outside the map ({bounds_text()})", f'cells["{key}"]')
            continue
        if not _has_type(value):
            check_entry("cells", key, value)  # reports what is wrong
            continue
        cells[key] = value

    seen_edges: dict[tuple[int, int, str], str] = {}
    for key in sorted(edges_in):
        value = edges_in[key]
        match = EDGE_KEY.match(key)
        if not match:
            loose = _LOOSE_EDGE_KEY.match(key)
            if loose and (int(loose.group(1)) < 0 or int(loose.group(2)) < 0):
                problem("out-of-bounds", f"edge {key!r} is outside the map ({bounds_text()})", f'edges["{key}"]')
            else:
                problem("bad-key", f'edge key {key!r} must be "x,y:N|E|S|W", e.g. "3,4:S"', f'edges["{key}"]')
            continue
        x, y, side = int(match.group(1)), int(match.group(2)), match.group(3)
        if bounded and not (0 <= x < width and 0 <= y < height):  # type: ignore[operator]
            problem("out-of-bounds", f"edge {key!r} is outside the map ({bounds_text()})", f'edges["{key}"]')
            continue
        if not _has_type(value):
            check_entry("edges", key, value)  # reports what is wrong
            continue
        dx, dy, opposite = _NEIGHBOUR[side]
        twin = (x + dx, y + dy, opposite)
        if twin in seen_edges:
            problem(
                "duplicate-edge",
                f"edge {key!r} is the same edge as {seen_edges[twin]!r}; keep one of them",
                f'edges["{key}"]',
            )
            continue
        seen_edges[(x, y, side)] = key
        edges[key] = value

    for name in sorted(markers_in):
        value = markers_in[name]
        path = f'markers["{name}"]'
        if not name.strip():
            problem("bad-marker", "a marker needs a non-empty name", path)
            continue
        if not isinstance(value, Mapping):
            problem("bad-marker", f"{path} must be an object with x and y, not {json_type(value)}", path)
            continue
        mx, my = value.get("x"), value.get("y")
        if any(isinstance(v, bool) or not isinstance(v, int) for v in (mx, my)):
            problem("bad-marker", f"{path} needs whole-number x and y, got x={mx!r}, y={my!r}", path)
            continue
        if width is not None and height is not None and not in_bounds(mx, my):  # type: ignore[arg-type]
            problem("out-of-bounds", f"marker {name!r} at {mx},{my} is outside the map ({bounds_text()})", path)
            continue
        markers[name] = value

    if width is None or height is None:
        return None, problems
    exported = {
        "width": width,
        "height": height,
        "cells": cells,
        "edges": edges,
        "markers": markers,
        "properties": dict(map_properties),
    }
    return exported, problems


def validate_map(doc: Mapping[str, Any]) -> list[ContentProblem]:
    """Problems of a Map document's content (empty when valid): ``bad-dimension``,
    ``bad-key``, ``out-of-bounds``, ``bad-entry``, ``missing-type``, ``duplicate-edge``,
    ``bad-marker``. See ``docs/export-format.md`` for the shape."""
    content = doc.get("content")
    if not isinstance(content, Mapping):
        return [
            ContentProblem(
                "bad-entry", "a map's content must be an object with width and height", "", doc_id=doc.get("_id")
            )
        ]
    return check_map_content(content, doc.get("_id"))[1]
