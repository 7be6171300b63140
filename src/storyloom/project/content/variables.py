"""Variables (``_sid`` states) and Scenarios (diffs over the variables' defaults)."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from storyloom.diagnostics import name_list
from storyloom.project.content.languages import locate_key, parse_detected, plain_json
from storyloom.project.content.problems import SID_PATTERN, ContentError, ContentProblem, content_problem
from storyloom.project.content.schemas import describe_schema, infer_schema, json_type, schema_matches

# --------------------------------------------------------------------------------------
# Variables


def sid_for(name: str, taken: Collection[str] = ()) -> str:
    """A state id for a Variables document called ``name``: its words in lower case joined by
    ``_``, in ASCII letters and digits (``"Player's Bag"`` → ``player_s_bag``), not starting with a
    digit, and not one of ``taken`` (``_2``, ``_3``... added)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    base = re.sub(r"[^a-z0-9]+", "_", ascii_name.casefold()).strip("_") or "state"
    if base[0].isdigit():
        base = f"s_{base}"
    sid, number = base, 1
    while sid in taken:
        number += 1
        sid = f"{base}_{number}"
    return sid


def variables_template(sid: str) -> str:
    """The YAML a new Variables document starts from: its state id, and how a variable is written
    and read, as comments (so the template adds no variable of its own)."""
    return (f"_sid: {sid}\n"
            f"# One variable a line, with its default value. A script reads it as v.{sid}.<name>:\n"
            "# courage: 5\n"
            "# name: Mara\n")


def is_untouched_template(source: object, name: str) -> bool:
    """Whether ``source`` is still the template a Variables document called ``name`` started
    from (its state id derived from that name, ``_2``... included), not a word changed."""
    if not isinstance(source, str):
        return False
    match = re.match(r"_sid: (\w+)\n", source)
    return (match is not None and source == variables_template(match[1])
            and re.fullmatch(re.escape(sid_for(name)) + r"(_\d+)?", match[1]) is not None)


SCENARIO_TEMPLATE = """{
  // What this scenario changes from the variables' defaults, by state id. For example:
  // player: { courage: 8 }
}
"""


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
        state: Any = plain_json(source)
        text = ""
    else:
        text = source if isinstance(source, str) else ""
        if not text.strip():
            raise ContentError("the variables are empty: the first line names the state, e.g. `_sid: player` "
                               "(scripts read its variables as v.player.<name>)", 1, 1)
        state, _ = parse_detected(text, doc.get("editorLanguage"))
    if not isinstance(state, dict):
        raise ContentError(f"variables must be an object of name: value pairs, not {json_type(state)}", 1, 1)
    if "_sid" not in state:
        raise ContentError("the state has no id: add a first line such as `_sid: player` "
                           "(scripts read its variables as v.player.<name>)", 1, 1)
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
                content_problem(
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
        diff: Any = plain_json(source)
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
        problems.append(content_problem(code, message, ".".join(path), line, column, doc_id))

    def walk(override: Mapping[str, Any], default: Mapping[str, Any], path: list[str]) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for key, value in override.items():
            here = [*path, key]
            if key not in default:
                known = name_list(k for k in default if k != "_sid")
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
            if not schema_matches(schema, value):
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
            known = name_list(states, sort=True)
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
        return [content_problem("parse-error", exc.message, "", exc.line, exc.column, doc_id)]
    return check_scenario_diff(diff, states, scenario_source(doc), doc_id)[1]
