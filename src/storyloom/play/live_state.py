"""The Live state and Scenarios: Qt-free rules of "Load into Live" and "Save Live as scenario".

Three states meet here (see ``../shared/docs/drafft-reference.md``, *State*):

- **Defaults**: the authored variables, one state per Variable document (``{_sid: state}``,
  the index's ``states()``);
- **Live**: the values a play-through (the simulator, a writer testing a branch) reads and
  writes. It starts as the Defaults and is stored per machine in the ``_local/live-state``
  document (``{"states": {_sid: state}, "scenario": <id or null>}``), never replicated and
  never exported;
- **Scenarios**: saved diffs over the Defaults, keyed by ``_sid``.

:func:`scenario_into_live` makes a Live state from a scenario (the Defaults with the scenario's
valid overrides: objects merge key by key, lists and scalars replace); :func:`live_diff` is the
other way (what Live changes of the Defaults, as a scenario diff); :func:`render_scenario` writes
a diff as scenario source in the scenario's language (HJSON in Drafft's style, YAML, JSON or
TOML), checked to read back to the same diff. :func:`read_live` and :func:`write_live` read and
write the ``_local`` document (through the editor gate, with its revision: a Live state changed
meanwhile is a :class:`~storyloom.store.Conflict`, never silently overwritten).
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.play.variable_rows import LIVE_STATE_ID, live_states
from storyloom.project import Editor, WriteIntent
from storyloom.project.content import (
    ContentError,
    ContentProblem,
    check_scenario_diff,
    detect_language,
    dump_yaml12,
    parse_detected,
    parse_text,
)
from storyloom.store import NotFound

_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOML_KEY = re.compile(r"[A-Za-z0-9_-]+")
_QUOTELESS = re.compile(r"[A-Za-z_][A-Za-z0-9_ .\-]*")
_SCENARIO_LANGUAGES = ("hjson", "yaml", "json", "toml")


class ScenarioTextError(StoryloomError):
    """A diff cannot be written in the scenario's language (TOML has no null)."""

    code = "bad_scenario_text"


@dataclass(frozen=True)
class LiveState:
    """The stored Live state: ``states`` (``{_sid: state}``; empty when none was stored),
    ``rev`` of the ``_local`` document (``None`` when there is none) and the id of the
    scenario last loaded into it."""

    states: dict[str, dict[str, Any]]
    rev: str | None = None
    scenario: str | None = None

    @property
    def exists(self) -> bool:
        return self.rev is not None


@dataclass(frozen=True)
class LoadedScenario:
    """What :func:`scenario_into_live` made: the Live ``states``, how many overrides were
    applied, and the ``problems`` of the overrides left out (unknown state or property, a
    changed type)."""

    states: dict[str, dict[str, Any]]
    applied: int
    problems: list[ContentProblem] = field(default_factory=list)


# ---------------------------------------------------------------------------------- reading and writing
def read_live(db: Any) -> LiveState:
    """The project's Live state (``db`` a session's store)."""
    try:
        doc = db.get_local(LIVE_STATE_ID)
    except NotFound:
        return LiveState({})
    scenario = doc.get("scenario")
    return LiveState(live_states(doc), str(doc.get("_rev")) if doc.get("_rev") else "0-0",
                     scenario if isinstance(scenario, str) else None)


def write_live(editor: Editor, states: Mapping[str, Mapping[str, Any]], rev: str | None,
               scenario: str | None = None) -> str:
    """Store ``states`` as the Live state over revision ``rev`` (``None``: there was none);
    returns the new revision. Raises :class:`~storyloom.store.Conflict` when the Live state
    changed since ``rev`` was read."""
    doc: dict[str, Any] = {"_id": LIVE_STATE_ID, "states": copy.deepcopy(dict(states)), "scenario": scenario}
    if rev is not None:
        doc["_rev"] = rev
    return str(editor.write_local(doc, WriteIntent.UPDATE)["rev"])


# ---------------------------------------------------------------------------------- the two directions
def _merge(base: dict[str, Any], overrides: Mapping[str, Any]) -> int:
    applied = 0
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            applied += _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
            applied += 1
    return applied


def scenario_into_live(defaults: Mapping[str, Mapping[str, Any]], text: str, language: str | None,
                       doc_id: str | None = None) -> LoadedScenario:
    """The Live state a scenario's source (as typed) gives: every state at its defaults, with
    the scenario's valid overrides applied. Raises
    :class:`~storyloom.project.content.ContentError` when the text does not parse."""
    diff: Any = {}
    if text.strip():
        diff, _ = parse_detected(text, language or None)
    if not isinstance(diff, dict):
        raise ContentError("a scenario must be an object keyed by state id", 1, 1)
    valid, problems = check_scenario_diff(diff, defaults, text, doc_id)
    states = {sid: copy.deepcopy(dict(state)) for sid, state in defaults.items()}
    applied = sum(_merge(states[sid], overrides) for sid, overrides in valid.items())
    return LoadedScenario(states, applied, problems)


def live_diff(defaults: Mapping[str, Mapping[str, Any]], live: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What ``live`` changes of ``defaults``, as a scenario diff: for each state, the properties
    whose Live value differs (objects compared key by key, lists and scalars whole). Properties
    and states the defaults do not have are left out (a scenario cannot hold them)."""

    def walk(default: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in current.items():
            if key == "_sid" or key not in default:
                continue
            base = default[key]
            if isinstance(base, Mapping) and isinstance(value, Mapping):
                inner = walk(base, value)
                if inner:
                    out[key] = inner
            elif not _same(base, value):
                out[key] = copy.deepcopy(value)
        return out

    diff: dict[str, Any] = {}
    for sid, state in live.items():
        if sid in defaults and isinstance(state, Mapping):
            changed = walk(defaults[sid], state)
            if changed:
                diff[sid] = changed
    return diff


def _same(a: Any, b: Any) -> bool:
    """Equal as the scripting language compares (``true`` is not ``1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


# ---------------------------------------------------------------------------------- writing source
def scenario_language(language: str | None, text: str = "") -> str:
    """The language a scenario's source is written in: its ``editorLanguage`` when structured,
    else the one its current text is in, else HJSON (Drafft's)."""
    if language in _SCENARIO_LANGUAGES:
        return str(language)
    detected = detect_language(text) if text.strip() else "hjson"
    return detected if detected in _SCENARIO_LANGUAGES else "hjson"


def render_scenario(diff: Mapping[str, Any], language: str) -> str:
    """``diff`` as scenario source in ``language`` (``hjson``, ``yaml``, ``json`` or ``toml``),
    read back to check it says the same. Raises :class:`ScenarioTextError` when the language
    cannot hold it."""
    if not diff:
        return ""
    if language not in _SCENARIO_LANGUAGES:
        language = "hjson"
    expected = json.loads(json.dumps(diff))
    # Readable first (letters as typed); escaped when a character would not read back (a
    # control character, a line separator).
    for readable in (True, False):
        text = _render(diff, language, readable)
        try:
            if parse_text(text, language) == expected:
                return text
        except ContentError:
            pass
    raise ScenarioTextError(f"the Live state cannot be written as {language.upper()} exactly; "
                            "choose another language for this scenario")


def _render(diff: Mapping[str, Any], language: str, readable: bool) -> str:
    if language == "json":
        return json.dumps(diff, indent=2, ensure_ascii=not readable) + "\n"
    if language == "yaml":
        return dump_yaml12(dict(diff), allow_unicode=readable)
    if language == "toml":
        return _toml(diff, readable)
    return "".join(_hjson_entry(key, value, 0, readable) for key, value in diff.items())


def _hjson_key(key: str, readable: bool) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=not readable)


def _hjson_value(value: Any, readable: bool) -> str:
    if isinstance(value, str) and _QUOTELESS.fullmatch(value) and value == value.strip() \
            and value not in ("true", "false", "null"):
        return value
    return json.dumps(value, ensure_ascii=not readable)


def _hjson_entry(key: str, value: Any, depth: int, readable: bool) -> str:
    pad = "  " * depth
    if isinstance(value, Mapping) and value:
        inner = "".join(_hjson_entry(k, v, depth + 1, readable) for k, v in value.items())
        return f"{pad}{_hjson_key(key, readable)}: {{\n{inner}{pad}}}\n"
    return f"{pad}{_hjson_key(key, readable)}: {_hjson_value(value, readable)}\n"


def _toml_key(key: str, readable: bool = True) -> str:
    return key if _TOML_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=not readable)


def _toml_value(value: Any, where: str, readable: bool = True) -> str:
    if value is None:
        raise ScenarioTextError(f"TOML has no null ({where}); choose another language for this scenario")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ScenarioTextError(f"{where} is not a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=not readable)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item, where, readable) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k, readable)} = {_toml_value(v, f'{where}.{k}', readable)}"
                               for k, v in value.items()) + "}"
    raise ScenarioTextError(f"{where} cannot be written as TOML")


def _toml(diff: Mapping[str, Any], readable: bool = True) -> str:
    blocks: list[str] = []

    def table(path: list[str], values: Mapping[str, Any]) -> None:
        plain = [(k, v) for k, v in values.items() if not (isinstance(v, Mapping) and v)]
        nested = [(k, v) for k, v in values.items() if isinstance(v, Mapping) and v]
        lines = [f"[{'.'.join(_toml_key(p, readable) for p in path)}]"]
        lines += [f"{_toml_key(k, readable)} = {_toml_value(v, '.'.join([*path, k]), readable)}" for k, v in plain]
        blocks.append("\n".join(lines) + "\n")
        for key, value in nested:
            table([*path, key], value)

    for sid, values in diff.items():
        table([sid], values if isinstance(values, Mapping) else {})
    return "\n".join(blocks)
