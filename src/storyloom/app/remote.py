"""``RemoteAccess``: one project's remote on this machine: its settings, its password, a client.

The settings live in the project store's ``_local`` document (``storyloom.project.remote_settings``),
the password in a :class:`~storyloom.app.secrets.PasswordStore`. The locks, the sync service and
the CLI all reach the server through this one object, so they agree on who the user is: when a
remote is configured, :attr:`RemoteAccess.username` (the authenticated remote user, which the
server's lock rules check) is the lock holder's name.

Settings are read from the store on each access (a ``_local`` read is cheap): ``storyloom remote
set`` run in another process is seen at once.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from storyloom.app.secrets import PASSWORD_ENV, PasswordStore, password_key, resolve_password
from storyloom.errors import Fix, StoryloomError
from storyloom.project import (
    DEFAULT_INTERVAL,
    MODES,
    RemoteSettings,
    RemoteSettingsError,
    clear_remote_settings,
    default_database_name,
    load_remote_settings,
    save_remote_settings,
)
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.urls import check_server_url, check_username, normalize_database_name

if TYPE_CHECKING:
    from storyloom.project import Project


class RemoteNotConfigured(StoryloomError):
    """The project has no (enabled) remote here, or no password for it; the fix sets it."""

    code = "remote_not_configured"
    fixes = ("set_remote", "set_password")


class PasswordMissing(RemoteNotConfigured):
    """A remote is configured but no password is kept for it, and ``STORYLOOM_REMOTE_PASSWORD`` is unset."""

    code = "password_missing"


def build_settings(
    project_name: str,
    *,
    server: str,
    username: str,
    database: str | None = None,
    mode: str = "easy",
    interval: float = DEFAULT_INTERVAL,
    live: bool = False,
) -> tuple[RemoteSettings, list[str]]:
    """Check what a user typed and make the settings: the server URL (scheme, no credentials), the
    database name (``database`` or ``app_v2_<project name>``; uppercase converted), the user name,
    the mode and the interval. Returns the settings and the notes and warnings to show (a name
    converted to lowercase, plain HTTP to another machine). Raises :class:`InvalidRemote` or
    :class:`RemoteSettingsError` with what is wrong."""
    server, warnings = check_server_url(server)
    if database is None:
        name, notes = default_database_name(project_name), []
        notes.append(f"database name not given: using {name!r}")
    else:
        name, notes = normalize_database_name(database)
    if mode not in MODES:
        raise RemoteSettingsError(f"unknown remote mode {mode!r}: use one of {', '.join(MODES)}")
    settings = RemoteSettings(
        enabled=True,
        server=server,
        database=name,
        username=check_username(username),
        mode=mode,
        interval=float(interval),
        live=bool(live),
    )
    return settings, [*notes, *(f"warning: {w}" for w in warnings)]


class RemoteAccess:
    """The remote of ``project`` on this machine; ``passwords`` keeps its password (default: a
    :class:`PasswordStore` in the per-machine config directory)."""

    def __init__(
        self, project: Project, passwords: PasswordStore | None = None, *, client_options: dict[str, Any] | None = None
    ) -> None:
        self.project = project
        self.passwords = passwords if passwords is not None else PasswordStore()
        #: What every client :meth:`open` makes starts from (a front end's choice: the CLI's
        #: lock verbs ask for ``connection="one"``).
        self.client_options = dict(client_options or {})

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> RemoteSettings | None:
        return load_remote_settings(self.project.store)

    @property
    def configured(self) -> bool:
        settings = self.settings
        return settings is not None and settings.enabled

    @property
    def username(self) -> str | None:
        """The remote user name when a remote is configured: the name locks are held under."""
        settings = self.settings
        return settings.username if settings is not None and settings.enabled else None

    def password_key(self, settings: RemoteSettings | None = None) -> str | None:
        settings = settings or self.settings
        if settings is None:
            return None
        return password_key(self.project.id, settings.server, settings.username)

    def password(self) -> str | None:
        """``$STORYLOOM_REMOTE_PASSWORD`` when set, else the password kept for this remote."""
        key = self.password_key()
        if key is None:
            return None
        return resolve_password(self.passwords, key)

    def password_source(self) -> str:
        """Where the password comes from, for ``remote show`` (never the password itself)."""
        key = self.password_key()
        if key is None:
            return "none (no remote configured)"
        if os.environ.get(PASSWORD_ENV) is not None:
            return f"the environment variable {PASSWORD_ENV}"
        where = self.passwords.where(key)
        return f"kept in the {where}" if where else "not kept (set it again with `storyloom remote set`)"

    def save(self, settings: RemoteSettings, password: str | None = None) -> None:
        """Keep ``settings`` (and ``password`` when given). A password kept for another server or
        user of this project is forgotten: it cannot be the right one any more."""
        previous = self.settings
        new_key = self.password_key(settings)
        if previous is not None:
            old_key = self.password_key(previous)
            if old_key != new_key and old_key is not None:
                self.passwords.delete(old_key)
        save_remote_settings(self.project.store, settings)
        if password is not None and new_key is not None:
            self.passwords.set(new_key, password)

    def clear(self) -> bool:
        """Forget the remote settings and the kept password; False when there were none."""
        settings = self.settings
        if settings is None:
            return False
        key = self.password_key(settings)
        if key is not None:
            self.passwords.delete(key)
        clear_remote_settings(self.project.store)
        return True

    # ------------------------------------------------------------------ the server
    def open(self, **client_options: Any) -> RemoteDatabase:
        """A client for the project's remote database with the user's credentials. Raises
        :class:`RemoteNotConfigured` (or :class:`PasswordMissing`) with the fix."""
        settings = self.settings
        project = self.project.name or self.project.id
        if settings is None or not settings.enabled:
            raise RemoteNotConfigured(f"project {self.project.name!r} has no remote on this machine",
                                      fix=Fix("set_remote", project=project))
        password = self.password()
        if password is None:
            raise PasswordMissing(f"no password is kept for {settings.username!r} on {settings.server}",
                                  fix=Fix("set_password", project=project))
        return RemoteDatabase(settings.database_url, username=settings.username, password=password,
                              **{**self.client_options, **client_options})

    def __repr__(self) -> str:
        return f"RemoteAccess({self.project!r})"
