"""App options: per user, per machine, never replicated (``<config dir>/options.json``).

- ``username``: stamped in ``modifiedBy``/``createdBy`` and lock owners; defaults to the OS user.
- ``api_enabled``, ``api_key``, ``api_port``: the local REST API. Enabling the API with an empty
  key generates a strong random one (:func:`generate_api_key`, ``secrets.token_urlsafe(32)``):
  the API never runs open. A key set by a person (:meth:`AppOptions.set_api_key`) is held to
  :func:`~storyloom.api.keys.api_key_problem`'s rule (16 characters at least). A shorter key
  already in an options file still loads, so that the options can be fixed; the API refuses to
  start with it.
- ``api_answer_cache_mb``: the MiB of export answers the API keeps in memory for an unchanged
  project, to answer repeated ``/game-export`` and ``/schema-export`` requests at once
  (:data:`DEFAULT_ANSWER_CACHE_MB`; 0 keeps none: each request builds and streams its answer).
- ``auto_backups_keep``: how many automatic backups the app keeps per project
  (:data:`DEFAULT_BACKUPS_KEEP`; 0 turns them off); see :mod:`storyloom.app.auto_backups`.
- ``theme``: ``"system"`` (follow the system's light or dark scheme), ``"light"`` or ``"dark"``.
- ``editor_font_family`` and ``editor_font_size``: the font of every text and code editor; an
  empty family is the system's monospace font, a size of 0 its size (points otherwise, from
  :data:`MIN_EDITOR_FONT_SIZE` to :data:`MAX_EDITOR_FONT_SIZE`).

The file is created with mode 0600 (owner only) and replaced atomically (:meth:`AppOptions.save`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from storyloom import paths
from storyloom.api.keys import MIN_API_KEY_LENGTH, api_key_problem, generate_api_key
from storyloom.errors import StoryloomError
from storyloom.output_files import atomic_write
from storyloom.project import os_username

OPTIONS_FILE = "options.json"
DEFAULT_API_PORT = 9001
DEFAULT_ANSWER_CACHE_MB = 64
# A bound beyond this is more memory than a local tool's answers should hold: 4 GiB.
MAX_ANSWER_CACHE_MB = 4096
ANSWER_CACHE_EXPECTED = (
    f"a whole number of MiB from 0 to {MAX_ANSWER_CACHE_MB} (0 keeps no answers: each request builds its export)"
)


class OptionsError(StoryloomError, ValueError):
    """An invalid option value or an unreadable options file; ``field`` names the option."""

    code = "bad_options"

    def __init__(self, field: str, expected: str, got: Any) -> None:
        self.field = field
        self.expected = expected
        super().__init__(f"{field}: expected {expected}, got {got!r}")


class ApiKeyError(OptionsError):
    """An API key the key rule refuses; the message says why and never holds the key."""

    code = "bad_api_key"

    def __init__(self, reason: str) -> None:
        self.field = "api_key"
        self.expected = f"a key of at least {MIN_API_KEY_LENGTH} characters"
        StoryloomError.__init__(self, reason)


def default_username() -> str:
    """The name used when the options name nobody: the OS user."""
    return os_username()


def check_answer_cache_mb(megabytes: object) -> int:
    """``megabytes`` when it is a valid ``api_answer_cache_mb``, else :class:`OptionsError`."""
    if isinstance(megabytes, bool) or not isinstance(megabytes, int) or not 0 <= megabytes <= MAX_ANSWER_CACHE_MB:
        raise OptionsError("api_answer_cache_mb", ANSWER_CACHE_EXPECTED, megabytes)
    return megabytes


def parse_answer_cache_mb(text: str) -> int:
    """``api_answer_cache_mb`` written as text (the command line's); :class:`OptionsError`
    when it is not a whole number in range."""
    try:
        megabytes = int(text.strip())
    except ValueError:
        raise OptionsError("api_answer_cache_mb", ANSWER_CACHE_EXPECTED, text) from None
    return check_answer_cache_mb(megabytes)


DEFAULT_BACKUPS_KEEP = 10
# More than this many copies of a project is a disk filling up, not a safety net.
MAX_BACKUPS_KEEP = 1000
BACKUPS_KEEP_EXPECTED = f"a whole number from 0 to {MAX_BACKUPS_KEEP} (0 turns automatic backups off)"


def check_backups_keep(count: object) -> int:
    """``count`` when it is a valid ``auto_backups_keep``, else :class:`OptionsError`."""
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_BACKUPS_KEEP:
        raise OptionsError("auto_backups_keep", BACKUPS_KEEP_EXPECTED, count)
    return count


def parse_backups_keep(text: str) -> int:
    """``auto_backups_keep`` written as text (the command line's)."""
    try:
        count = int(text.strip())
    except ValueError:
        raise OptionsError("auto_backups_keep", BACKUPS_KEEP_EXPECTED, text) from None
    return check_backups_keep(count)


THEMES = ("system", "light", "dark")
MIN_EDITOR_FONT_SIZE = 6
MAX_EDITOR_FONT_SIZE = 48
EDITOR_FONT_SIZE_EXPECTED = (
    f"0 (the system's size) or a size in points from {MIN_EDITOR_FONT_SIZE} to {MAX_EDITOR_FONT_SIZE}"
)


def check_editor_font_size(size: object) -> int:
    """``size`` when it is a valid ``editor_font_size``, else :class:`OptionsError`."""
    if isinstance(size, bool) or not isinstance(size, int) or not (
            size == 0 or MIN_EDITOR_FONT_SIZE <= size <= MAX_EDITOR_FONT_SIZE):
        raise OptionsError("editor_font_size", EDITOR_FONT_SIZE_EXPECTED, size)
    return size


# The options file holds the API key: only its owner may read it, from the moment it exists.
OPTIONS_FILE_MODE = 0o600


@dataclass
class AppOptions:
    username: str = ""
    api_enabled: bool = False
    api_key: str = ""
    api_port: int = DEFAULT_API_PORT
    api_answer_cache_mb: int = DEFAULT_ANSWER_CACHE_MB
    auto_backups_keep: int = DEFAULT_BACKUPS_KEEP
    theme: str = "system"
    editor_font_family: str = ""
    editor_font_size: int = 0

    def __post_init__(self) -> None:
        if not self.username:
            self.username = default_username()
        self.validate()

    # -- rules -------------------------------------------------------------------------------

    def validate(self) -> None:
        """Check every option; enabling the API with an empty key generates one."""
        if not isinstance(self.username, str) or not self.username.strip():
            raise OptionsError("username", "a non-empty name", self.username)
        if not isinstance(self.api_enabled, bool):
            raise OptionsError("api_enabled", "true or false", self.api_enabled)
        if not isinstance(self.api_key, str):
            raise OptionsError("api_key", "a string", self.api_key)
        if isinstance(self.api_port, bool) or not isinstance(self.api_port, int) or not 1 <= self.api_port <= 65535:
            raise OptionsError("api_port", "a port number from 1 to 65535", self.api_port)
        check_answer_cache_mb(self.api_answer_cache_mb)
        check_backups_keep(self.auto_backups_keep)
        if self.theme not in THEMES:
            raise OptionsError("theme", " or ".join(THEMES), self.theme)
        if not isinstance(self.editor_font_family, str):
            raise OptionsError("editor_font_family", "a font family name (empty: the system's monospace)",
                               self.editor_font_family)
        check_editor_font_size(self.editor_font_size)
        if self.api_enabled and not self.api_key:
            self.api_key = generate_api_key()

    def enable_api(self, enabled: bool = True) -> None:
        self.api_enabled = enabled
        self.validate()

    def set_api_key(self, key: str) -> None:
        """Set the key a person typed (surrounding whitespace dropped): empty, meaning "generate
        one when the API is enabled", or a key :func:`api_key_problem` accepts; else
        :class:`ApiKeyError` and the previous key stays."""
        key = key.strip()
        problem = api_key_problem(key) if key else None
        if problem is not None:
            raise ApiKeyError(problem)
        self.api_key = key

    def regenerate_api_key(self) -> str:
        self.api_key = generate_api_key()
        return self.api_key

    def set_port(self, port: int) -> None:
        self._set_checked("api_port", port)

    def set_answer_cache_mb(self, megabytes: int) -> None:
        self._set_checked("api_answer_cache_mb", megabytes)

    def set_backups_keep(self, count: int) -> None:
        self._set_checked("auto_backups_keep", count)

    def set_theme(self, theme: str) -> None:
        self._set_checked("theme", theme)

    def set_editor_font(self, family: str, size: int) -> None:
        """The editors' font: ``family`` (surrounding spaces dropped; empty for the system's
        monospace) at ``size`` points (0 for the system's size)."""
        previous = self.editor_font_family
        self.editor_font_family = family.strip() if isinstance(family, str) else family
        try:
            self._set_checked("editor_font_size", size)
        except OptionsError:
            self.editor_font_family = previous
            raise

    def _set_checked(self, name: str, value: object) -> None:
        """Set one option; a value :meth:`validate` refuses leaves the previous one in place."""
        previous = getattr(self, name)
        setattr(self, name, value)
        try:
            self.validate()
        except OptionsError:
            setattr(self, name, previous)
            raise

    # -- persistence -------------------------------------------------------------------------

    @staticmethod
    def path() -> Path:
        return paths.config_dir() / OPTIONS_FILE

    @classmethod
    def load(cls) -> AppOptions:
        """The saved options, or the defaults when none were saved."""
        file = cls.path()
        if not file.exists():
            return cls()
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise OptionsError("options file", f"readable JSON at {file}", str(exc)) from None
        if not isinstance(data, dict):
            raise OptionsError("options file", f"a JSON object at {file}", data)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def save(self) -> Path:
        """Validate and write the options atomically; returns the file written.

        The file holds the API key, so it is never readable by others, not even for a moment:
        :func:`storyloom.output_files.atomic_write` writes the text to a new temporary file in the
        same directory, created with mode 0600 (so the mode applies from its creation), flushed
        to disk, which then replaces the options file (``os.replace``: readers see the old file
        or the new one, never half of one). A failure leaves the previous file as it was and no
        temporary file behind.
        """
        self.validate()
        file = self.path()
        atomic_write(file, json.dumps(self.to_dict(), indent=2) + "\n", mode=OPTIONS_FILE_MODE)
        return file

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
