"""Qt-free rules of the Variable and Scenario editors.

- :func:`variable_rows` flattens a Variable's state into the rows of its table: the property's
  path (``courage``, ``inventory.keys``), its type (the schema type the scenario checks and the
  schema export infer, :func:`storyloom.project.content.infer_schema`), its default and its live
  value when a live state exists (``_local/live-state``, ``{sid: state}``; ``—`` when absent).
- :func:`variables_status` parses a Variable's source as typed (the status under the source).
- :func:`scenario_status` type-checks a Scenario's diff as typed against the variables' states.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.diagnostics import Diagnostic
from storyloom.project.content import (
    ContentError,
    describe_schema,
    infer_schema,
    parse_variables_doc,
    validate_scenario,
)
from storyloom.words import counted

LIVE_STATE_ID = "_local/live-state"
NO_VALUE = "—"
_MISSING = object()
_VALUE_CHARS = 80


@dataclass(frozen=True)
class VariableRow:
    path: str
    type: str
    default: str
    live: str
    depth: int = 0


def format_value(value: Any) -> str:
    """A value as the table shows it: compact JSON, cut at 80 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 1] + "…"


def type_name(value: Any) -> str:
    """The schema type of an authored default: ``integer``, ``array of string``, ``any (null)``."""
    try:
        described = describe_schema(infer_schema(value))
    except TypeError:
        return "unknown"
    return "any (null)" if value is None else described


def _lookup(state: Any, path: list[str]) -> Any:
    for key in path:
        if not isinstance(state, Mapping) or key not in state:
            return _MISSING
        state = state[key]
    return state


def variable_rows(state: Mapping[str, Any], live: Mapping[str, Any] | None = None) -> list[VariableRow]:
    """Every property of ``state`` (``_sid`` excepted), objects followed by their own properties.
    ``live`` is the live state of the same ``_sid`` (``None`` when there is none)."""
    rows: list[VariableRow] = []

    def walk(values: Mapping[str, Any], path: list[str]) -> None:
        for key, value in values.items():
            if not path and key == "_sid":
                continue
            here = [*path, str(key)]
            current = _MISSING if live is None else _lookup(live, here)
            rows.append(VariableRow(".".join(here), type_name(value), format_value(value),
                                    NO_VALUE if current is _MISSING else format_value(current), len(path)))
            if isinstance(value, Mapping):
                walk(value, here)

    walk(state, [])
    return rows


def live_states(doc: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """``{sid: state}`` of a ``_local/live-state`` document: its ``states`` field, or its own
    fields when it has none (``_id``, ``_rev`` aside). Anything else is ignored."""
    if not isinstance(doc, Mapping):
        return {}
    states = doc.get("states")
    body: Mapping[str, Any] = states if isinstance(states, Mapping) else doc
    return {str(sid): dict(state) for sid, state in body.items()
            if not str(sid).startswith("_") and isinstance(state, Mapping)}


def _where(line: int | None, column: int | None) -> str:
    if line is None:
        return ""
    return f"Line {line}, column {column}: " if column is not None else f"Line {line}: "


@dataclass(frozen=True)
class VariablesStatus:
    ok: bool
    message: str
    line: int | None = None
    column: int | None = None
    state: dict[str, Any] | None = None


def variables_status(text: str, language: str | None) -> VariablesStatus:
    """The parse status of a Variable's source as typed: its state, or where it fails."""
    doc = {"content": {"variables": text}, "editorLanguage": language or None}
    try:
        state = parse_variables_doc(doc)
    except ContentError as exc:
        return VariablesStatus(False, _where(exc.line, exc.column) + exc.message, exc.line, exc.column)
    except Exception as exc:  # noqa: BLE001 - a parser's own failure is only a status, never a traceback
        return VariablesStatus(False, str(exc) or type(exc).__name__)
    count = sum(1 for key in state if key != "_sid")
    noun = "property" if count == 1 else "properties"
    return VariablesStatus(True, f"Parses: state {state['_sid']!r}, {count} {noun}", state=state)


@dataclass(frozen=True)
class ScenarioStatus:
    ok: bool
    message: str
    problems: list[Diagnostic] = field(default_factory=list)

    def lines(self) -> list[str]:
        """Each problem as a line of the list under the editor (``Line 3, column 5: ...``)."""
        return [problem_text(p) for p in self.problems]


def problem_text(problem: Diagnostic) -> str:
    return _where(problem.line, problem.column) + problem.message


def scenario_status(text: str, language: str | None, states: Mapping[str, Mapping[str, Any]],
                    doc_id: str | None = None) -> ScenarioStatus:
    """A Scenario's diff as typed, checked against ``states`` (``{_sid: state}``): parse errors,
    unknown states, unknown properties and changed types, each with its line."""
    doc = {"_id": doc_id, "content": {"scenario": text}, "editorLanguage": language or None}
    try:
        problems = sorted(validate_scenario(doc, states), key=lambda p: (p.line or 0, p.column or 0))
    except Exception as exc:  # noqa: BLE001 - a checker's own failure is only a status, never a traceback
        return ScenarioStatus(False, str(exc) or type(exc).__name__)
    if not problems:
        return ScenarioStatus(True, f"Matches the variables ({counted(len(states), 'state')})")
    if problems[0].code == "parse-error":
        return ScenarioStatus(False, problem_text(problems[0]), problems)
    found = counted(len(problems), "problem")
    return ScenarioStatus(False, f"{found} against the variables (the text is saved as typed)", problems)
