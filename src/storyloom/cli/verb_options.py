"""``storyloom options``: the per-machine app options (the Options dialog, headless).

``storyloom options [--json] [--show-key]`` prints ``username``, ``api.enabled``, ``api.key``
(masked: its first 4 characters and ``…``, unless ``--show-key``), ``api.port``,
``api.answer_cache_mb``, ``backups.keep`` (the automatic backups kept per project; 0: off),
``theme`` (system, light or dark) and ``editor.font`` and ``editor.font_size`` (the font of the
app's text and code editors; empty and 0: the system's monospace font and size).
``storyloom options set NAME VALUE`` sets one of them, checked by
:class:`~storyloom.app.AppOptions`' rules, and saves the options file.

The API key never comes from the command line (``ps`` shows command lines to every user of the
machine, as ``storyloom serve`` says too): ``options set api.key -`` reads it from standard
input, ``options set api.key new`` generates a strong random one.

A desktop app that is running keeps the options it read until it is restarted or its Options
dialog saves them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from storyloom.api.keys import GENERATE_KEY_COMMAND, api_key_problem, generate_api_key
from storyloom.app import AppOptions, OptionsError
from storyloom.app.options import (
    ANSWER_CACHE_EXPECTED,
    BACKUPS_KEEP_EXPECTED,
    EDITOR_FONT_SIZE_EXPECTED,
    MAX_ANSWER_CACHE_MB,
    MAX_BACKUPS_KEEP,
    THEMES,
    check_editor_font_size,
    parse_answer_cache_mb,
    parse_backups_keep,
)
from storyloom.cli.main import CliError

#: The option names of the command line and the ``AppOptions`` field each one sets.
NAMES: dict[str, str] = {
    "username": "username",
    "api.enabled": "api_enabled",
    "api.key": "api_key",
    "api.port": "api_port",
    "api.answer_cache_mb": "api_answer_cache_mb",
    "backups.keep": "auto_backups_keep",
    "theme": "theme",
    "editor.font": "editor_font_family",
    "editor.font_size": "editor_font_size",
}
FIELD_NAMES = {field: name for name, field in NAMES.items()}

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
KEY_FROM_STDIN = "-"
KEY_GENERATE = "new"
MASK_VISIBLE = 4


def mask_key(key: str) -> str:
    """The key as shown: its first characters and an ellipsis; ``""`` when there is none."""
    if not key:
        return ""
    return key[:MASK_VISIBLE] + "…"


# ------------------------------------------------------------------ parsing values
def _username(value: str) -> str:
    name = value.strip()
    if not name:
        raise CliError("username: expected a non-empty name (how your edits are signed), got ''")
    return name


def _enabled(value: str) -> bool:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise CliError(f"api.enabled: expected true or false (also yes/no, on/off, 1/0), got {value!r}")


def _port(value: str) -> int:
    try:
        port = int(value.strip())
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise CliError(f"api.port: expected a port number from 1 to 65535, got {value!r}")
    return port


def _answer_cache_mb(value: str) -> int:
    try:
        return parse_answer_cache_mb(value)
    except OptionsError:
        raise CliError(f"api.answer_cache_mb: expected {ANSWER_CACHE_EXPECTED}, got {value!r}") from None


def _backups_keep(value: str) -> int:
    try:
        return parse_backups_keep(value)
    except OptionsError:
        raise CliError(f"backups.keep: expected {BACKUPS_KEEP_EXPECTED}, got {value!r}") from None


def _theme(value: str) -> str:
    word = value.strip().lower()
    if word not in THEMES:
        raise CliError(f"theme: expected {', '.join(THEMES[:-1])} or {THEMES[-1]}, got {value!r}")
    return word


def _font(value: str) -> str:
    return value.strip()  # empty: the system's monospace font


def _font_size(value: str) -> int:
    try:
        return check_editor_font_size(int(value.strip()))
    except (ValueError, OptionsError):
        raise CliError(f"editor.font_size: expected {EDITOR_FONT_SIZE_EXPECTED}, got {value!r}") from None


def _key(value: str) -> str:
    if value == KEY_GENERATE:
        return generate_api_key()
    if value == KEY_FROM_STDIN:
        key = sys.stdin.readline().strip()
        if not key:
            raise CliError("api.key: standard input held no key; pipe one line holding the key, "
                           f"or use `{GENERATE_KEY_COMMAND}` to generate one")
        problem = api_key_problem(key, "the key read from standard input")
        if problem is not None:
            raise CliError(f"api.key: {problem}")
        return key
    raise CliError(
        f"api.key: expected {KEY_FROM_STDIN!r} (read the key from standard input) or {KEY_GENERATE!r} "
        "(generate a strong random key); a key written on the command line is visible to every user "
        "of this machine (ps)"
    )


PARSERS: dict[str, Callable[[str], Any]] = {
    "username": _username,
    "api.enabled": _enabled,
    "api.key": _key,
    "api.port": _port,
    "api.answer_cache_mb": _answer_cache_mb,
    "backups.keep": _backups_keep,
    "theme": _theme,
    "editor.font": _font,
    "editor.font_size": _font_size,
}


# ------------------------------------------------------------------ the verb
def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "options",
        help="show or set the app options of this machine (username, local API, automatic backups, look)",
        description=(
            "Show the per-machine app options (the API key masked), or set one with "
            "`storyloom options set NAME VALUE`. Names: " + ", ".join(NAMES) + "."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--show-key", action="store_true", help="print the API key in full (it is secret)")
    actions = parser.add_subparsers(dest="options_action", metavar="ACTION")
    setter = actions.add_parser(
        "set",
        help="set one option and save the options file",
        description=(
            "Set one option: username NAME; api.enabled true|false; api.port 1-65535; "
            f"api.answer_cache_mb 0-{MAX_ANSWER_CACHE_MB} (MiB of export answers kept in memory; 0 keeps none); "
            f"api.key {KEY_FROM_STDIN} (read from standard input) or api.key {KEY_GENERATE} (generate one); "
            f"backups.keep 0-{MAX_BACKUPS_KEEP} (automatic backups kept per project; 0 turns them off); "
            f"theme {'|'.join(THEMES)}; editor.font FAMILY ('' for the system's monospace); "
            f"editor.font_size {EDITOR_FONT_SIZE_EXPECTED}."
        ),
    )
    setter.add_argument("name", metavar="NAME", help="one of " + ", ".join(NAMES))
    setter.add_argument("value", metavar="VALUE", help="the new value")
    setter.set_defaults(func=run_set)
    parser.set_defaults(func=run_show)


def load_options() -> AppOptions:
    try:
        return AppOptions.load()
    except OptionsError as exc:
        raise CliError(f"cannot read the app options: {exc} (fix or delete {AppOptions.path()})") from None


def shown(options: AppOptions, show_key: bool = False) -> dict[str, Any]:
    """The options by their command-line names, the key masked unless ``show_key``."""
    values = options.to_dict()
    out = {name: values[field] for name, field in NAMES.items()}
    if not show_key:
        out["api.key"] = mask_key(options.api_key)
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if value != "" else "(none)"


def run_show(args: argparse.Namespace) -> int:
    options = load_options()
    values = shown(options, args.show_key)
    if args.json:
        print(json.dumps(values, indent=2, ensure_ascii=False))
        return 0
    width = max(len(name) for name in values)
    for name, value in values.items():
        print(f"{name:<{width}}  {_text(value)}")
    print(f"\nFile: {AppOptions.path()}")
    return 0


def run_set(args: argparse.Namespace) -> int:
    name = args.name.strip().lower()
    if name not in NAMES:
        raise CliError(f"unknown option {args.name!r}: choose one of " + ", ".join(NAMES))
    value = PARSERS[name](args.value)
    options = load_options()
    had_key = bool(options.api_key)
    setattr(options, NAMES[name], value)
    try:
        options.save()  # validates first: enabling the API with no key generates one
    except OptionsError as exc:
        option = FIELD_NAMES.get(exc.field, exc.field)
        raise CliError(f"{option}: expected {exc.expected}") from None
    shown_value = mask_key(options.api_key) if name == "api.key" else _text(getattr(options, NAMES[name]))
    print(f"{name} = {shown_value}")
    if name == "api.enabled" and options.api_enabled and not had_key:
        print(f"A new API key was generated ({mask_key(options.api_key)}): "
              "see it with `storyloom options --show-key`.")
    if name.startswith("api."):
        print("A desktop app that is open keeps its API settings until it is restarted.")
    elif name == "backups.keep":
        print("A desktop app that is open keeps the number it read until it is restarted.")
    elif name in ("theme", "editor.font", "editor.font_size"):
        print("A desktop app that is open keeps its look until it is restarted (or change it in its Options).")
    return 0
