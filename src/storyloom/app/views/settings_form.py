"""The Project Settings form, without Qt: its sections, choices, preview and patch.

The GUI's settings editor shows what this module computes and sends back what was typed:

- :data:`FORM_SECTIONS`: the form's sections (General, Export) in order;
- :func:`export_section_choices`: the export sections as ``(name, checked)``, in export order;
- :data:`COMPAT_CHOICES`: the ``exportCompat`` modes (none, Drafft);
- :func:`mapping_tables`: the speech and command templates of every script language;
- :func:`mapping_preview`: one sample speech line and one sample command line, rendered through
  :func:`storyloom.script.render_line` (what the game export would hold);
- :func:`locale_texts` and :func:`locales_value`: the source and target locales as typed (the
  targets separated by commas or spaces) and back;
- :func:`settings_patch`: the fields that differ from the stored document, for
  ``editor.update_settings``;
- :func:`field_errors`: a refused save's problems, by the form field that shows them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.project import (
    COMMAND_MAPPING,
    DEFAULT_EXPORT_SECTIONS,
    DEFAULT_SOURCE_LOCALE,
    DEFAULT_VOICE_OVER_PATH,
    EDITOR_MODES,
    EXPORT_COMPAT,
    EXPORT_NAMES,
    INTERPOLATE,
    SOURCE_LOCALE,
    SPEECH_MAPPING,
    STALE_LOCK,
    TARGET_LOCALES,
    VOICE_OVER_PATH,
    stale_lock_minutes,
)
from storyloom.script import CommandLine, SpeechLine, parse_script, render_line

FORM_SECTIONS: tuple[str, ...] = ("General", "Team", "Localization", "Export")

#: ``(label, exportCompat value)``; ``None`` is no compatibility mode (the default).
COMPAT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("None", None),
    ("Drafft (adds _meta.drafftVersion for Drafft importers)", "drafft"),
)

LANGUAGE_LABELS: dict[str, str] = {
    "text": "Plain text", "csharp": "C#", "javascript": "JavaScript", "lua": "Lua", "python": "Python",
    "java": "Java", "markdown": "Markdown", "yarn_spinner": "Yarn Spinner", "gdscript": "GDScript", "gml": "GML",
}

#: The sample lines the mapping preview renders (as a writer would type them in a script).
SAMPLE_SPEECH = "[#tag_1234]::Narrator::Hello! [happy]"
SAMPLE_COMMAND = '<Fade(1, "red")>'
NO_MAPPING = "(no template: the line is exported as written)"

# Form field that shows the problems of each settings field (the first dotted part decides).
_FIELD_OF = {
    "projectName": "projectName", "projectDescription": "projectDescription", "projectVersion": "projectVersion",
    "exportSections": "exportSections", EXPORT_COMPAT: EXPORT_COMPAT, "exportMappings": "exportMappings",
    STALE_LOCK: STALE_LOCK, SOURCE_LOCALE: SOURCE_LOCALE, TARGET_LOCALES: TARGET_LOCALES,
    VOICE_OVER_PATH: VOICE_OVER_PATH,
}


def language_label(mode: str) -> str:
    return LANGUAGE_LABELS.get(mode, mode)


def export_section_choices(settings: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """Every export name in export order, checked when the settings' ``exportSections`` hold
    it (case-insensitively). Without a list, the default sections are checked."""
    sections = settings.get("exportSections")
    if not isinstance(sections, list):
        sections = list(DEFAULT_EXPORT_SECTIONS)
    chosen = {s.lower() for s in sections if isinstance(s, str)}
    return [(name, name.lower() in chosen) for name in EXPORT_NAMES]


def export_sections(checked: Iterable[str]) -> list[str]:
    """The ``exportSections`` value for the checked names: export order, no duplicates."""
    wanted = {name.lower() for name in checked}
    return [name for name in EXPORT_NAMES if name.lower() in wanted]


def compat_value(settings: Mapping[str, Any]) -> str | None:
    value = settings.get(EXPORT_COMPAT)
    return value if isinstance(value, str) else None


@dataclass
class MappingTables:
    """The templates of every script language (missing ones empty) and the interpolation flag."""

    speech: dict[str, str]
    command: dict[str, str]
    interpolate: bool


def mapping_tables(settings: Mapping[str, Any]) -> MappingTables:
    mappings = settings.get("exportMappings")
    mappings = mappings if isinstance(mappings, Mapping) else {}

    def table(key: str) -> dict[str, str]:
        stored = mappings.get(key)
        stored = stored if isinstance(stored, Mapping) else {}
        result = {mode: str(stored.get(mode) or "") for mode in EDITOR_MODES}
        result.update({k: v for k, v in stored.items() if isinstance(k, str) and isinstance(v, str)})
        return result

    return MappingTables(table(SPEECH_MAPPING), table(COMMAND_MAPPING), mappings.get(INTERPOLATE) is True)


def export_mappings_value(base: Mapping[str, Any], tables: MappingTables) -> dict[str, Any]:
    """The ``exportMappings`` object for ``tables``, keeping any other key the stored one had."""
    stored = base.get("exportMappings")
    value = copy.deepcopy(dict(stored)) if isinstance(stored, Mapping) else {}
    value[SPEECH_MAPPING] = dict(tables.speech)
    value[COMMAND_MAPPING] = dict(tables.command)
    value[INTERPOLATE] = tables.interpolate
    return value


@dataclass(frozen=True)
class MappingPreview:
    """The sample lines as written and as a template renders them (:data:`NO_MAPPING` when
    the template is empty)."""

    speech_source: str
    speech: str
    command_source: str
    command: str


def _sample_lines() -> tuple[SpeechLine, CommandLine]:
    lines = parse_script(f"{SAMPLE_SPEECH}\n{SAMPLE_COMMAND}").lines
    speech = next(line for line in lines if isinstance(line, SpeechLine))
    command = next(line for line in lines if isinstance(line, CommandLine))
    return speech, command


def mapping_preview(speech_template: str, command_template: str) -> MappingPreview:
    speech, command = _sample_lines()
    rendered_speech = render_line(speech, speech_template, command_template)
    rendered_command = render_line(command, speech_template, command_template)
    return MappingPreview(
        SAMPLE_SPEECH, NO_MAPPING if rendered_speech is None else rendered_speech,
        SAMPLE_COMMAND, NO_MAPPING if rendered_command is None else rendered_command,
    )


def stale_lock_value(base: Mapping[str, Any], minutes: int) -> dict[str, Any]:
    """``{"staleLockMinutes": minutes}`` for the form's values, or nothing while the project keeps
    the default without naming it (a settings document without the field is left so)."""
    if STALE_LOCK not in base and minutes == stale_lock_minutes(base):
        return {}
    return {STALE_LOCK: minutes}


def locale_texts(settings: Mapping[str, Any]) -> tuple[str, str]:
    """``(source locale, target locales)`` as the form shows them: the stored values as they are
    (an invalid one too, so the writer sees what to fix), the targets joined by ", "."""
    source = settings.get(SOURCE_LOCALE)
    targets = settings.get(TARGET_LOCALES)
    shown = ", ".join(str(tag) for tag in targets) if isinstance(targets, list) else ""
    return (source if isinstance(source, str) else DEFAULT_SOURCE_LOCALE), shown


def locales_value(base: Mapping[str, Any], source: str, targets: str) -> dict[str, Any]:
    """``{"sourceLocale", "targetLocales"}`` for what was typed (the gate checks the tags), or
    nothing while a project that never named its locales keeps the defaults."""
    tags = [tag for tag in re.split(r"[,;\s]+", targets) if tag]
    source = source.strip()
    if SOURCE_LOCALE not in base and TARGET_LOCALES not in base and source == DEFAULT_SOURCE_LOCALE and not tags:
        return {}
    return {SOURCE_LOCALE: source, TARGET_LOCALES: tags}


def voice_over_text(settings: Mapping[str, Any]) -> str:
    """The voice-over file pattern as the form shows it: the stored value as it is (an invalid
    one too, so the writer sees what to fix), else the default."""
    value = settings.get(VOICE_OVER_PATH)
    return value if isinstance(value, str) else DEFAULT_VOICE_OVER_PATH


def voice_over_value(base: Mapping[str, Any], text: str) -> dict[str, Any]:
    """``{"voiceOverPath": pattern}`` for what was typed (the gate checks it; blank is the
    default), or nothing while a project that never named one keeps the default."""
    pattern = text.strip() or DEFAULT_VOICE_OVER_PATH
    if VOICE_OVER_PATH not in base and pattern == DEFAULT_VOICE_OVER_PATH:
        return {}
    return {VOICE_OVER_PATH: pattern}


def settings_patch(base: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``values`` that differ from the stored settings ``base`` (a change made
    elsewhere to any other field is kept)."""
    return {key: copy.deepcopy(value) for key, value in values.items() if base.get(key) != value}


def field_errors(problems: Iterable[Any]) -> tuple[dict[str, str], list[str]]:
    """``({form field: message}, other messages)`` for a refused save's problems (objects with
    ``field`` and ``message``). A field's first problem is the one shown."""
    placed: dict[str, str] = {}
    others: list[str] = []
    for problem in problems:
        field = str(getattr(problem, "field", "") or "")
        message = str(getattr(problem, "message", problem))
        detail = message
        if field and f"{field}: " in message:  # "document 'X': field: expected ..." -> "Expected ..."
            detail = message.split(f"{field}: ", 1)[1]
            detail = detail[:1].upper() + detail[1:]
        target = _FIELD_OF.get(field.split(".", 1)[0])
        if target is None:
            others.append(f"{field}: {detail[:1].lower()}{detail[1:]}" if field else message)
        else:
            placed.setdefault(target, detail)
    return placed, others
