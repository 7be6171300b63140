"""A project's remote replication settings on this machine: server, database, user, mode, timing.

They are per user, per project and per machine, so they live in the project store's ``_local``
document :data:`REMOTE_SETTINGS_ID`: ``_local`` documents are never replicated, never listed by
``_all_docs`` (so never in ``/db-dump``, an export or a backup) and carry no history. The
password is not here (see ``storyloom.app.secrets``).

Checking what a user typed (the URL's scheme, the database name rule) is the sync layer's job
(``storyloom.sync.urls``); this module only keeps what was accepted. The one rule it owns is the
default database name of a project, :func:`default_database_name`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote

from storyloom.errors import StoryloomError
from storyloom.store import Database, NotFound
from storyloom.store.read_view import ReadView

REMOTE_SETTINGS_ID = "_local/storyloom-remote"
MODES: tuple[str, ...] = ("easy", "advanced")
DEFAULT_INTERVAL = 30.0
DATABASE_PREFIX = "app_v2_"
# CouchDB keeps each database in a file named after it; long names break on some file systems.
MAX_DATABASE_NAME = 200
_DATABASE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_$()+-/")


class RemoteSettingsError(StoryloomError):
    """Remote settings that cannot be kept (an unknown mode, an interval that is not positive)."""

    code = "bad_remote_settings"


@dataclass(frozen=True)
class RemoteSettings:
    """Where and how this machine syncs a project. ``server`` is ``http(s)://host[:port][/prefix]``
    (no database, no credentials); ``interval`` is the pull period in seconds; ``live`` follows
    the server's changes continuously instead."""

    enabled: bool
    server: str
    database: str
    username: str
    mode: str = "easy"
    interval: float = DEFAULT_INTERVAL
    live: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RemoteSettingsError(f"unknown remote mode {self.mode!r}: use one of {', '.join(MODES)}")
        if not isinstance(self.interval, (int, float)) or not math.isfinite(self.interval) or self.interval <= 0:
            raise RemoteSettingsError(f"the sync interval must be a positive number of seconds, not {self.interval!r}")
        for name in ("server", "database", "username"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise RemoteSettingsError(f"the remote settings need a {name}")

    @property
    def database_url(self) -> str:
        """The database's URL: the server, then the name percent-encoded (``a/b`` → ``a%2Fb``)."""
        return f"{self.server.rstrip('/')}/{quote(self.database, safe='')}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def default_database_name(project_name: str) -> str:
    """``app_v2_<project name>`` lowercased, every character outside the database name rule
    (lowercase letters, digits, ``_ $ ( ) + - /``) replaced by ``_``. The prefix starts with a
    letter, so the result is valid whatever the name starts with."""
    lowered = project_name.strip().lower()
    body = "".join(ch if ch in _DATABASE_CHARS else "_" for ch in lowered) or "project"
    return (DATABASE_PREFIX + body)[:MAX_DATABASE_NAME]


def load_remote_settings(store: Database | ReadView) -> RemoteSettings | None:
    """The project's remote settings, or None when none are kept (or the document is unusable:
    written by a newer version or damaged; ``remote set`` writes it again)."""
    try:
        doc = store.get_local(REMOTE_SETTINGS_ID)
    except NotFound:
        return None
    server, database, username = doc.get("server"), doc.get("database"), doc.get("username")
    if not (isinstance(server, str) and isinstance(database, str) and isinstance(username, str)):
        return None  # RemoteSettings refuses them too
    try:
        return RemoteSettings(
            enabled=bool(doc.get("enabled", True)),
            server=server,
            database=database,
            username=username,
            mode=doc.get("mode", "easy"),
            interval=float(doc.get("interval", DEFAULT_INTERVAL)),
            live=bool(doc.get("live", False)),
        )
    except (RemoteSettingsError, TypeError, ValueError):
        return None


def save_remote_settings(store: Database, settings: RemoteSettings) -> None:
    """Keep ``settings`` in the store's ``_local`` document (replacing what was there)."""
    doc: dict[str, Any] = {"_id": REMOTE_SETTINGS_ID, **settings.to_json()}
    try:
        doc["_rev"] = store.get_local(REMOTE_SETTINGS_ID)["_rev"]
    except NotFound:
        pass
    store.put_local(doc)


def clear_remote_settings(store: Database) -> None:
    """Forget the project's remote settings (nothing happens when there are none)."""
    try:
        current = store.get_local(REMOTE_SETTINGS_ID)
    except NotFound:
        return
    store.remove_local(REMOTE_SETTINGS_ID, current["_rev"])
