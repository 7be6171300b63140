"""Property text by language: :func:`parse_text`, language detection and key location."""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import hjson
import yaml

from storyloom.project.content.problems import LANGUAGES, STRUCTURED_LANGUAGES, ContentError
from storyloom.project.content.quick_readers import NOT_QUICK, quick_hjson, quick_yaml
from storyloom.project.content.yaml12 import Yaml12Loader, json_key

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
    return _PARSERS[lang](text)


def _parse_json(text: str) -> Any:
    try:
        return _loads(text)  # already plain values
    except json.JSONDecodeError as exc:
        raise ContentError(exc.msg, exc.lineno, exc.colno, language="json") from None
    except ValueError as exc:
        raise ContentError(str(exc), language="json") from None


def _parse_hjson(text: str) -> Any:
    # Valid JSON is valid HJSON: take the fast, exact path first.
    if text.lstrip()[:1] in "{[":
        try:
            return _loads(text)
        except ValueError:
            pass
    value = quick_hjson(text)
    if value is not NOT_QUICK:
        return value
    try:
        value = hjson.loads(text)
    except hjson.HjsonDecodeError as exc:
        error = _hjson_root_object_error(text) if exc.msg == "Extra data" else None
        error = error or _hjson_control_character(text, exc) or exc
        raise ContentError(error.msg, error.lineno, error.colno, language="hjson") from None
    except (ValueError, IndexError, TypeError) as exc:  # hjson's scanner leaks a few
        raise ContentError(str(exc), language="hjson") from None
    return to_json(value, "hjson")


def _hjson_control_character(text: str, exc: hjson.HjsonDecodeError) -> hjson.HjsonDecodeError | None:
    """hjson's message for a control character in a quoted string is a bare template
    ("Invalid control character %r at") placed one past the character: say which one, at its
    place (a line break there means the quote was not closed on its line)."""
    if "%r" not in exc.msg or not 0 < exc.pos <= len(text):
        return None
    char = text[exc.pos - 1]
    if char in "\r\n":
        message = "a quoted string runs past the end of its line (close the quote on the line)"
    else:
        message = f"a quoted string holds the control character {char!r} (write it escaped, as {char!r} shows)"
    return hjson.HjsonDecodeError(message, text, exc.pos - 1)


def _parse_yaml(text: str) -> Any:
    value = quick_yaml(text)
    if value is not NOT_QUICK:
        return value
    try:
        value = yaml.load(text, Loader=Yaml12Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem:
            message = f"{exc.problem} ({exc.context})"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise ContentError(message, line, column, language="yaml") from None
    except yaml.YAMLError as exc:
        raise ContentError(str(exc), language="yaml") from None
    if value is None and not _strip_comment_lines(text):
        return {}
    return to_json(value, "yaml")


def _parse_toml(text: str) -> Any:
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_POSITION.search(message)
        if match:
            message = message[: match.start()].strip()
            raise ContentError(message, int(match.group(1)), int(match.group(2)), language="toml") from None
        raise ContentError(message, language="toml") from None
    return to_json(value, "toml")


#: The reader of each structured language (STRUCTURED_LANGUAGES) of non-blank text.
_PARSERS: dict[str, Callable[[str], Any]] = {
    "json": _parse_json,
    "hjson": _parse_hjson,
    "yaml": _parse_yaml,
    "toml": _parse_toml,
}


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
    except Exception:  # noqa: BLE001 - defensive: keep hjson's own error  # pragma: no cover
        return None
    return None


class _NotJson(Exception):
    def __init__(self, message: str, keys: list[str]) -> None:
        super().__init__(message)
        self.keys = keys


_SCALARS = (str, int, bool, type(None))


def to_json(value: Any, language: str, keys: tuple[str, ...] = ()) -> Any:
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
            name = key if type(key) is str else json_key(key)
            out[name] = item if type(item) in _SCALARS else to_json(item, language, (*keys, name))
        return out
    if isinstance(value, list | tuple):
        return [item if type(item) in _SCALARS else to_json(item, language, keys) for item in value]
    if isinstance(value, Mapping):
        return to_json(dict(value), language, keys)
    if isinstance(value, float):
        return to_json(float(value), language, keys)
    if isinstance(value, bool | str | int):
        return value
    if isinstance(value, set | frozenset):
        return sorted((to_json(item, language, keys) for item in value), key=repr)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def plain_json(value: Any) -> Any:
    """An already-parsed value as plain JSON; :class:`ContentError` if it holds NaN/infinity."""
    try:
        return to_json(value, "json")
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
