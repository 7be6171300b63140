"""Query-string parsing for ``/db-dump``, the way CouchDB parses ``_all_docs`` parameters.

CouchDB reads booleans as ``true``/``false`` (any case), ``limit``/``skip`` as non-negative
integers, and keys (``key``, ``keys``, ``startkey``...) as JSON values: ``?key="abc"`` is the
string ``abc``, ``?startkey=3`` the number 3. A value that does not parse is a 400 whose reason
names the parameter. Unlike CouchDB, an unknown parameter or a parameter given twice is also a
400, so a typo such as ``include_doc=false`` is reported instead of silently ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from storyloom.api.errors import bad_parameter

# The store's document ids are UTF-8 text: these options take ids (JSON strings) only.
ID_OPTIONS: tuple[str, ...] = ("startkey", "start_key", "endkey", "end_key", "key")

BOOLEAN_OPTIONS: tuple[str, ...] = (
    "include_docs",
    "attachments",
    "conflicts",
    "descending",
    "inclusive_end",
    "update_seq",
)
INTEGER_OPTIONS: tuple[str, ...] = ("limit", "skip")
JSON_OPTIONS: tuple[str, ...] = ("startkey", "start_key", "endkey", "end_key", "key", "keys")
ALL_OPTIONS: tuple[str, ...] = BOOLEAN_OPTIONS + INTEGER_OPTIONS + JSON_OPTIONS

# /db-dump differs from _all_docs only in these defaults.
DB_DUMP_DEFAULTS: dict[str, Any] = {"include_docs": True, "attachments": True}

# Bigger values than this mean "everything" anyway; SQLite cannot take them.
_INT_CAP = 2**62
_INT_RE = re.compile(r"[+-]?[0-9]+")
# JSON key options nest at most this deep (`keys` is one level); deeper is a 400, never parsed.
MAX_JSON_DEPTH = 20
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def parse_boolean(name: str, text: str) -> bool:
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise bad_parameter(name, f"expected true or false, got {text!r}")


def parse_non_negative_int(name: str, text: str) -> int:
    if not _INT_RE.fullmatch(text):
        raise bad_parameter(name, f"expected a non-negative integer, got {text!r}")
    value = int(text)
    if value < 0:
        raise bad_parameter(name, f"expected a non-negative integer, got {text!r}")
    return min(value, _INT_CAP)


def json_nesting_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the arrays and objects of the JSON ``text`` nest deeper than ``limit`` levels.

    Brackets inside JSON strings do not count. Checked before ``json.loads``, whose recursion
    fails (RecursionError) on a few thousand levels: the value is refused before it is parsed.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def parse_json_value(name: str, text: str) -> Any:
    if json_nesting_exceeds(text):
        raise bad_parameter(
            name, f"arrays or objects nested deeper than {MAX_JSON_DEPTH} levels; document ids are JSON "
            "strings (`keys` is one array of them)"
        )
    try:
        value = json.loads(text)
    except ValueError:
        raise bad_parameter(
            name, f"expected a JSON value (a document id is a JSON string: {name}=\"my-id\"), got {text!r}"
        ) from None
    if name == "keys" and not isinstance(value, list):
        raise bad_parameter(name, "expected a JSON array of document ids, e.g. keys=[\"a\",\"b\"]")
    if name in ID_OPTIONS and not (value is None or isinstance(value, str)):  # null: as if not given
        raise bad_parameter(
            name, f"expected a JSON string (document ids are strings: {name}=\"my-id\"), got {text!r}"
        )
    bad = _first_non_utf8(value)
    if bad is not None:
        raise bad_parameter(
            name, f"contains {bad!r}, which is not valid Unicode text (a lone surrogate escape such as "
            "\\ud800 cannot be a document id)"
        )
    return value


def _first_non_utf8(value: Any) -> str | None:
    """The first string in ``value`` (at any depth, keys included) that UTF-8 cannot encode.

    ``json.loads`` accepts lone surrogate escapes (``"\\ud800"``); the store cannot encode them.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            for key, member in reversed(item.items()):
                stack.extend((member, key))
    return None


def parse_all_docs_query(items: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Turn query-string pairs into ``Database.all_docs`` keyword arguments (defaults included)."""
    options: dict[str, Any] = dict(DB_DUMP_DEFAULTS)
    seen: set[str] = set()
    for name, text in items:
        if name in seen:
            raise bad_parameter(name, "given more than once")
        seen.add(name)
        if name in BOOLEAN_OPTIONS:
            options[name] = parse_boolean(name, text)
        elif name in INTEGER_OPTIONS:
            options[name] = parse_non_negative_int(name, text)
        elif name in JSON_OPTIONS:
            options[name] = parse_json_value(name, text)
        else:
            raise bad_parameter(name, f"unknown parameter; /db-dump accepts {', '.join(ALL_OPTIONS)}")
    check_combination(options)
    return options


def check_combination(options: dict[str, Any]) -> None:
    """The store's rule on combined options, checked here so it is a 400 with or without a project."""
    if options.get("keys") is not None:
        others = [name for name in ID_OPTIONS if options.get(name) is not None]
        if others:
            raise bad_parameter(
                "keys", f"`keys` is incompatible with `key`, `start_key` and `end_key` (also given: "
                f"{', '.join(others)})"
            )
