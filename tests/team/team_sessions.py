"""Team members as the desktop app has them: one workspace per user, each in a home of its own
(its projects folder and its password file), all on one project kept on a pouchdb-server
database with Storyloom's lock rules (``lock_clients.team_database``). The first member makes
the project; the others restore its backup (the same project id and revisions), as a clone would.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from storyloom.app import AppOptions, Workspace
from storyloom.app.remote import RemoteAccess
from storyloom.app.secrets import PasswordStore
from storyloom.app.session import ProjectSession
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.remote_settings import RemoteSettings
from tests.support.couch import CouchServer
from tests.team.lock_clients import PASSWORD

#: Short backoff and timeouts, so offline and back takes seconds in a test.
SYNC_OPTIONS: dict[str, Any] = {"max_backoff": 1.0, "client_options": {"timeout": 5.0}}
PROJECT = "Garden"


def small_project(manager: ProjectManager) -> Project:
    """A project with two scripts and an item."""
    project = manager.create(PROJECT)
    project.editor.create("Script", "Intro", content={"script": "::Woman:: You came back.\n"})
    project.editor.create("Script", "Gate", content={"script": "The gate is open.\n"})
    project.editor.create("Item", "Key", content={"item": "name: Key\n"})
    return project


class Team:
    """Members of one project on ``server``'s database ``db``."""

    def __init__(self, tmp_path: Path, server: CouchServer, db: str, *,
                 make: Callable[[ProjectManager], Project] = small_project, live: bool = True,
                 interval: float = 1.0) -> None:
        self.tmp_path = tmp_path
        self.server = server
        self.db = db
        self.make = make
        self.live = live
        self.interval = interval
        self.backup: Path | None = None
        self.name = PROJECT
        self.workspaces: dict[str, Workspace] = {}
        self.passwords: dict[str, PasswordStore] = {}

    def home(self, user: str) -> Path:
        return self.tmp_path / f"home-{user}"

    def join(self, user: str) -> Workspace:
        """``user``'s workspace with the project on it and its remote set (not opened yet)."""
        home = self.home(user)
        workspace = Workspace(root=home / "projects", options=AppOptions(username=user))
        passwords = PasswordStore(home / "config", backend="file")
        if self.backup is None:
            project = self.make(workspace.manager)
            self.name = project.name
            self.backup = self.tmp_path / "team-backup.json"
            workspace.manager.backup(project, self.backup)
        else:
            project = workspace.manager.restore(self.backup)
        settings = RemoteSettings(enabled=True, server=self.server.url, database=self.db, username=user,
                                  interval=self.interval, live=self.live)
        RemoteAccess(project, passwords).save(settings, PASSWORD)
        project.close()
        self.workspaces[user] = workspace
        self.passwords[user] = passwords
        return workspace

    def session_options(self, user: str) -> dict[str, Any]:
        """What ``open_session`` (or ``open_project_window``) takes for ``user``."""
        return {"poll_interval": 0.05, "passwords": self.passwords[user], "sync_options": SYNC_OPTIONS}

    def open(self, user: str) -> ProjectSession:
        workspace = self.workspaces.get(user) or self.join(user)
        return workspace.open_session(self.name, **self.session_options(user))

    def close(self) -> None:
        for workspace in self.workspaces.values():
            workspace.close()


def wait_until(predicate: Callable[[], Any], timeout: float = 15.0, step: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s")
        time.sleep(step)
