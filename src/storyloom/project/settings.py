"""The ProjectSettings document (``_id: "ProjectSettings"``): one per project, replicated with it.

Drafft's field names are kept (``projectName``, ``exportMappings``, ``screenPlay``, ...) so that
imports are lossless and exports familiar; Storyloom adds ``projectId``, the project's UUID,
which never changes (a remote database belongs to one project: sync compares this id).

Per-machine options (username, API key) are not here: see :mod:`storyloom.app.options`.
Remote replication settings and credentials are not here either: they live in ``_local``
documents of the project's store.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, TypeGuard

from storyloom.project.collections import EXPORT_NAMES, SETTINGS_ID
from storyloom.project.documents import EDITOR_LANGUAGES, EDITOR_MODES

SPEECH_MAPPING = "speechExportMapping"
COMMAND_MAPPING = "commandSpeechExportMapping"
INTERPOLATE = "interpolateVariablesOnExport"
SCREENPLAY_COMMANDS: tuple[str, ...] = ("locationCommand", "fadeInCommand", "fadeOutCommand")

# What a game export contains by default (Drafft's defaults, plus the newer typed collections).
DEFAULT_EXPORT_SECTIONS: tuple[str, ...] = (
    "Scripts", "Dialogues", "Actors", "Quests", "Items", "Variables", "Scenarios", "Scenes",
    "Misc", "Grids", "Kanban", "Maps",
)

# ``exportCompat``: the export compatibility modes a project may ask for (absent or ``null``:
# none, the default). ``"drafft"`` adds what existing Drafft importers check (``_meta.drafftVersion``);
# see ``storyloom.export.compat`` and docs/export-format.md.
EXPORT_COMPAT = "exportCompat"
EXPORT_COMPAT_MODES: tuple[str, ...] = ("drafft",)

# ``requireLockToEdit``: whether an edit of a free document takes its lock first (team
# projects). Absent: on exactly when the project syncs with a remote (see
# :func:`require_lock_to_edit`).
REQUIRE_LOCK = "requireLockToEdit"

# ``staleLockMinutes``: how long a lock must stay idle before a member (not only an owner) may
# break it; the server's lock rules are generated with it (storyloom.sync.lock_rules). Absent:
# 240 minutes, longer than a lunch or a meeting away from a script, shorter than a working day,
# so a lock forgotten in the morning can be broken in the afternoon.
STALE_LOCK = "staleLockMinutes"
DEFAULT_STALE_LOCK_MINUTES = 240
MIN_STALE_LOCK_MINUTES = 1
MAX_STALE_LOCK_MINUTES = 30 * 24 * 60

# ``sourceLocale`` and ``targetLocales``: the language the writers write in and the languages
# the project is translated into (docs/localization.md), as BCP 47 language tags ("en",
# "pt-BR", "zh-Hant"). Absent: the source is English and there is no target yet.
SOURCE_LOCALE = "sourceLocale"
TARGET_LOCALES = "targetLocales"
DEFAULT_SOURCE_LOCALE = "en"
LOCALE_EXAMPLES = '"en", "fr", "pt-BR", "zh-Hant", "es-419"'

# RFC 5646's well-formed syntax (section 2.1) for the language-tag production most tags use:
# language (2-3 letters with up to three extlangs, 4 or 5-8 letters), script, region, variants,
# extensions, private use; or a private-use tag alone. Grandfathered tags ("i-klingon") are
# left to langcodes, which knows them. Checked first: it names what is malformed (an
# underscore, a subtag too long) before the registry is asked whether the subtags exist.
_LANGTAG = re.compile(
    r"(?:(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"
    r"(?:-[A-Za-z]{4})?"
    r"(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
    r"(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?"
    r"|[Xx](?:-[A-Za-z0-9]{1,8})+)"
)

# ``voiceOverPath``: where a game finds a recorded line, relative to its audio folder: a pattern
# of the placeholders {actor}, {lineId}, {locale}, {document} (docs/localization.md, "Voice-over
# recording scripts"). Absent: ``{actor}/{lineId}.ogg``.
VOICE_OVER_PATH = "voiceOverPath"
DEFAULT_VOICE_OVER_PATH = "{actor}/{lineId}.ogg"
VOICE_OVER_PLACEHOLDERS: tuple[str, ...] = ("actor", "lineId", "locale", "document")
# What a file name may not hold on Windows, macOS or Linux (the placeholders' values are made
# safe; the pattern's own text must be).
_NOT_IN_FILE_NAMES = re.compile(r'[<>:"|?*\\\x00-\x1f]')

DEFAULT_SCREENPLAY: dict[str, str] = {
    "locationCommand": "CutTo",
    "fadeInCommand": "FadeIn",
    "fadeOutCommand": "FadeOut",
}

# Fields that Drafft v1 kept in the replicated settings document and that belong to the
# per-machine remote configuration instead (moved to a ``_local`` document on import).
LEGACY_REMOTE_FIELDS: tuple[str, ...] = (
    "remoteDbEnabled", "remoteDbUrl", "remoteDbUsername", "remoteDbPassword", "remoteDbSyncInterval",
)

# Per-machine fields that old settings documents still carry (Drafft 1.x kept the remote
# database, password included, in the replicated settings). They never leave the machine:
# :func:`public_settings` strips them, with anything else that looks like a secret.
LOCAL_ONLY_SETTINGS: frozenset[str] = frozenset(
    {"dbName", "remote", "replication", "apiKey", *LEGACY_REMOTE_FIELDS}
)

# Key names that are never public, wherever they appear in the settings: remote replication
# (``remote...``, ``replication...``), and credentials of any kind.
LOCAL_ONLY_PREFIXES: tuple[str, ...] = ("remote", "replication", "sync")
SECRET_WORDS: tuple[str, ...] = ("password", "passwd", "secret", "token", "credential", "apikey", "api_key")
_SECRET_KEY = re.compile("|".join(SECRET_WORDS), re.IGNORECASE)


def is_local_only_setting(key: str) -> bool:
    """Whether a settings key (at any depth) is per-machine or a credential: one of
    :data:`LOCAL_ONLY_SETTINGS` (``dbName`` in any case), a name starting with ``remote``,
    ``replication`` or ``sync``, or a name containing ``password``, ``passwd``, ``secret``,
    ``token``, ``credential`` or ``apiKey`` (any case)."""
    return (
        key in LOCAL_ONLY_SETTINGS
        or key.lower() == "dbname"
        or key.lower().startswith(LOCAL_ONLY_PREFIXES)
        or _SECRET_KEY.search(key) is not None
    )


def _public(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _public(v) for k, v in value.items() if not (isinstance(k, str) and is_local_only_setting(k))}
    if isinstance(value, list):
        return [_public(item) for item in value]
    return value


def public_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a settings document without what must never leave the machine.

    The one rule for every surface that shows settings (the game export's
    ``projectSettings``, the API's ``/info``): remote replication fields, credentials,
    passwords, tokens and ``dbName`` are dropped, and so is any key, at any depth, that
    :func:`is_local_only_setting` names (e.g. ``smtpPassword``, ``remoteUrl``,
    ``githubToken``). Everything else is copied (nested objects and arrays included).
    """
    public: dict[str, Any] = _public(settings)  # a Mapping gives a dict
    return public


def default_export_mappings() -> dict[str, Any]:
    """Empty speech and command templates for every script language; no interpolation."""
    return {
        SPEECH_MAPPING: {mode: "" for mode in EDITOR_MODES},
        COMMAND_MAPPING: {mode: "" for mode in EDITOR_MODES},
        INTERPOLATE: False,
    }


def default_settings(
    name: str,
    description: str = "",
    *,
    project_id: str | None = None,
    version: str = "1.0",
    default_editor_language: str = "hjson",
) -> dict[str, Any]:
    """A new ProjectSettings document (no ``_rev``, no stamps)."""
    return {
        "_id": SETTINGS_ID,
        "projectId": project_id or new_project_id(),
        "projectName": name,
        "projectDescription": description,
        "projectVersion": version,
        "defaultEditorLanguage": default_editor_language,
        "defaultScriptEditorMode": "text",
        "exportSections": list(DEFAULT_EXPORT_SECTIONS),
        "exportMappings": default_export_mappings(),
        "screenPlay": dict(DEFAULT_SCREENPLAY),
    }


def fill_defaults(settings: dict[str, Any]) -> list[str]:
    """Add every missing settings field (and missing mapping languages) in place, at its default.

    Returns the names of what was added (for an import report). Existing values are kept.
    """
    added: list[str] = []
    defaults = default_settings(str(settings.get("projectName") or "Untitled"))
    for key, value in defaults.items():
        if key in ("_id", "projectId"):
            continue
        if key not in settings:
            settings[key] = copy.deepcopy(value)
            added.append(key)
    mappings = settings.get("exportMappings")
    if isinstance(mappings, dict):
        for key in (SPEECH_MAPPING, COMMAND_MAPPING):
            table = mappings.get(key)
            if table is None:
                mappings[key] = {mode: "" for mode in EDITOR_MODES}
                added.append(f"exportMappings.{key}")
            elif isinstance(table, dict):
                for mode in EDITOR_MODES:
                    if mode not in table:
                        table[mode] = ""
                        added.append(f"exportMappings.{key}.{mode}")
        if INTERPOLATE not in mappings:
            mappings[INTERPOLATE] = False
            added.append(f"exportMappings.{INTERPOLATE}")
    screenplay = settings.get("screenPlay")
    if isinstance(screenplay, dict):
        for key, value in DEFAULT_SCREENPLAY.items():
            if key not in screenplay:
                screenplay[key] = value
                added.append(f"screenPlay.{key}")
    return added


def require_lock_to_edit(settings: Mapping[str, Any], remote_enabled: bool) -> bool:
    """Whether an edit must hold the document's lock: the project's ``requireLockToEdit``
    when set, else on exactly when the project syncs with a remote (``remote_enabled``)."""
    value = settings.get(REQUIRE_LOCK)
    return value if isinstance(value, bool) else remote_enabled


def is_stale_lock_minutes(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a valid ``staleLockMinutes``: a whole number of minutes from 1 to
    43,200 (30 days)."""
    return (isinstance(value, int) and not isinstance(value, bool)
            and MIN_STALE_LOCK_MINUTES <= value <= MAX_STALE_LOCK_MINUTES)


def stale_lock_minutes(settings: Mapping[str, Any]) -> int:
    """The project's stale-lock time in minutes: ``staleLockMinutes`` when valid, else the
    default (240)."""
    value = settings.get(STALE_LOCK)
    return value if is_stale_lock_minutes(value) else DEFAULT_STALE_LOCK_MINUTES


def locale_problem(tag: object) -> str | None:
    """Why ``tag`` is not a usable BCP 47 language tag, or ``None`` when it is one: well formed
    (RFC 5646) and made of subtags the IANA registry holds (checked with ``langcodes``)."""
    if not isinstance(tag, str) or not tag.strip():
        return f"{tag!r} is not a language tag"
    if "_" in tag:
        return f"{tag!r} uses an underscore; BCP 47 separates subtags with hyphens: {tag.replace('_', '-')!r}"
    import langcodes  # loaded only when a project names its locales

    if _LANGTAG.fullmatch(tag) is None and not langcodes.tag_is_valid(tag):
        return f"{tag!r} is not a well-formed language tag"
    if not langcodes.tag_is_valid(tag):
        return f"{tag!r} names a language, script or region the IANA registry does not know"
    return None


def source_locale(settings: Mapping[str, Any]) -> str:
    """The project's source locale: ``sourceLocale`` when it is a valid tag, else ``"en"``."""
    value = settings.get(SOURCE_LOCALE)
    return value if isinstance(value, str) and locale_problem(value) is None else DEFAULT_SOURCE_LOCALE


def target_locales(settings: Mapping[str, Any]) -> list[str]:
    """The project's target locales (the valid tags of ``targetLocales``, in order)."""
    value = settings.get(TARGET_LOCALES)
    if not isinstance(value, list):
        return []
    return [tag for tag in value if isinstance(tag, str) and locale_problem(tag) is None]


def voice_over_path_problem(pattern: object) -> str | None:
    """Why ``pattern`` is not a usable ``voiceOverPath``, or ``None`` when it is one: a relative
    path, folders separated by ``/``, naming ``{lineId}`` (so no two lines share a file), with no
    placeholder but {actor}, {lineId}, {locale}, {document}, and no character a file name may not
    hold."""
    import string

    if not isinstance(pattern, str) or not pattern.strip():
        return "the pattern is empty"
    try:
        parts = list(string.Formatter().parse(pattern))
    except ValueError as error:
        return f"{pattern!r} has an unmatched brace ({error}); write {{{{ or }}}} for a brace itself"
    names: list[str] = []
    for literal, name, spec, conversion in parts:
        bad = _NOT_IN_FILE_NAMES.search(literal)
        if bad is not None:
            return f"{pattern!r} holds {bad.group()!r}, which a file name may not hold"
        if name is None:
            continue
        if spec or conversion:
            return f"{pattern!r} gives {{{name}}} a format or conversion; a placeholder is its name alone"
        if name not in VOICE_OVER_PLACEHOLDERS:
            known = ", ".join(f"{{{n}}}" for n in VOICE_OVER_PLACEHOLDERS)
            return f"{pattern!r} names an unknown placeholder {{{name}}}; the placeholders are {known}"
        names.append(name)
    if "lineId" not in names:
        return f"{pattern!r} does not name {{lineId}}: every line needs a file of its own"
    if pattern.startswith("/") or re.match(r"[A-Za-z]:", pattern):
        return f"{pattern!r} is an absolute path; the path is relative to the game's audio folder"
    if any(segment in ("", ".", "..") for segment in pattern.split("/")):
        return f"{pattern!r} has an empty, '.' or '..' folder"
    return None


def voice_over_path(settings: Mapping[str, Any]) -> str:
    """The project's voice-over file pattern: ``voiceOverPath`` when valid, else
    ``{actor}/{lineId}.ogg``."""
    value = settings.get(VOICE_OVER_PATH)
    return value if isinstance(value, str) and voice_over_path_problem(value) is None else DEFAULT_VOICE_OVER_PATH


def _locale_problems(doc: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    problems: list[tuple[str, str, Any]] = []
    expected = f"a BCP 47 language tag such as {LOCALE_EXAMPLES}"
    source = doc.get(SOURCE_LOCALE, MISSING)
    if source is not MISSING:
        problem = locale_problem(source)
        if problem is not None:
            problems.append((SOURCE_LOCALE, f"{expected} ({problem})", source))
    targets = doc.get(TARGET_LOCALES, MISSING)
    if targets is MISSING:
        return problems
    if not isinstance(targets, list):
        return [*problems, (TARGET_LOCALES, f"a list of BCP 47 language tags such as [{LOCALE_EXAMPLES}]", targets)]
    seen: set[str] = {source.lower()} if isinstance(source, str) else {DEFAULT_SOURCE_LOCALE}
    for tag in targets:
        problem = locale_problem(tag)
        if problem is not None:
            problems.append((TARGET_LOCALES, f"{expected} for every target ({problem})", tag))
        elif tag.lower() in seen:
            problems.append((TARGET_LOCALES, "each target locale once, and not the source locale "
                             f"({tag!r} is named twice or is the source)", tag))
        else:
            seen.add(tag.lower())
    return problems


def new_project_id() -> str:
    """A random UUID, as text."""
    import uuid  # here: uuid loads the platform module, which opening a project never needs

    return str(uuid.uuid4())


#: What :class:`uuid.UUID` reads: 32 hex digits, in hyphen groups or not, braced or as a URN.
_UUID_RE = re.compile(r"(?:urn:uuid:)?(\{)?[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}(?(1)\})")


def is_uuid(value: object) -> TypeGuard[str]:
    """Is ``value`` a UUID's text (checked without loading :mod:`uuid`: every open asks)."""
    return isinstance(value, str) and _UUID_RE.fullmatch(value) is not None


def settings_problems(doc: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """Hard errors of a settings document as ``(field, expected, got)``; empty when valid.

    ``got`` is :data:`MISSING` when the field is absent.
    """
    problems: list[tuple[str, str, Any]] = []

    def need(field: str, ok: bool, expected: str, got: Any) -> None:
        if not ok:
            problems.append((field, expected, got))

    def get(field: str) -> Any:
        return doc.get(field, MISSING)

    need("_id", doc.get("_id") == SETTINGS_ID, f"{SETTINGS_ID!r}", get("_id"))
    need("projectId", is_uuid(doc.get("projectId")), "a UUID (the project id)", get("projectId"))
    name = get("projectName")
    need("projectName", isinstance(name, str) and bool(name.strip()), "a non-empty string", name)
    for field in ("projectDescription", "projectVersion"):
        value = get(field)
        need(field, value is MISSING or isinstance(value, str), "a string", value)
    language = get("defaultEditorLanguage")
    need(
        "defaultEditorLanguage",
        language in EDITOR_LANGUAGES,
        f"one of {', '.join(EDITOR_LANGUAGES)}",
        language,
    )
    mode = get("defaultScriptEditorMode")
    need("defaultScriptEditorMode", mode is MISSING or isinstance(mode, str), "a script editor mode", mode)
    sections = get("exportSections")
    if not isinstance(sections, list) or not all(isinstance(s, str) for s in sections):
        problems.append(("exportSections", "a list of export names", sections))
    else:
        unknown = [s for s in sections if s not in EXPORT_NAMES]
        if unknown:
            problems.append(
                ("exportSections", f"export names among {', '.join(EXPORT_NAMES)}", unknown)
            )
    compat = get(EXPORT_COMPAT)
    need(
        EXPORT_COMPAT,
        compat is MISSING or compat is None or compat in EXPORT_COMPAT_MODES,
        "null (no compatibility mode) or one of: " + ", ".join(f'"{m}"' for m in EXPORT_COMPAT_MODES),
        compat,
    )
    mappings = get("exportMappings")
    if not isinstance(mappings, dict):
        problems.append(("exportMappings", "an object with speech and command templates", mappings))
    else:
        for key in (SPEECH_MAPPING, COMMAND_MAPPING):
            table = mappings.get(key, MISSING)
            if not isinstance(table, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in table.items()
            ):
                problems.append(
                    (f"exportMappings.{key}", "an object of script language: template text", table)
                )
        flag = mappings.get(INTERPOLATE, MISSING)
        need(f"exportMappings.{INTERPOLATE}", flag is MISSING or isinstance(flag, bool), "true or false", flag)
    screenplay = get("screenPlay")
    if not isinstance(screenplay, dict):
        problems.append(("screenPlay", "an object of screenplay command names", screenplay))
    else:
        for key in SCREENPLAY_COMMANDS:
            value = screenplay.get(key, MISSING)
            need(f"screenPlay.{key}", isinstance(value, str), "a command name (a string)", value)
    require_lock = get(REQUIRE_LOCK)
    need(REQUIRE_LOCK, require_lock is MISSING or isinstance(require_lock, bool), "true or false", require_lock)
    stale = get(STALE_LOCK)
    need(STALE_LOCK, stale is MISSING or is_stale_lock_minutes(stale),
         f"a whole number of minutes from {MIN_STALE_LOCK_MINUTES} to {MAX_STALE_LOCK_MINUTES} (30 days)", stale)
    kanban = get("kanban")
    need("kanban", kanban is MISSING or kanban is None or isinstance(kanban, dict), "an object", kanban)
    problems.extend(_locale_problems(doc))
    voice_over = get(VOICE_OVER_PATH)
    if voice_over is not MISSING:
        problem = voice_over_path_problem(voice_over)
        if problem is not None:
            problems.append((VOICE_OVER_PATH, "a relative file path pattern of {actor}, {lineId}, {locale}, {document} "
                             f'such as "{DEFAULT_VOICE_OVER_PATH}" ({problem})', voice_over))
    return problems


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
