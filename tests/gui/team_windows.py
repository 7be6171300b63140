"""Project windows of two teammates in one test: each user has a home of their own (projects,
password file) and opens the same project, kept on a pouchdb-server database with Storyloom's
lock rules (see tests/team/team_sessions.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from storyloom.gui.main_window import MainWindow, open_project_window
from tests.support.couch import CouchServer
from tests.team.lock_clients import team_database
from tests.team.team_sessions import Team

USERS = ["ana", "bob"]


class TeamWindows:
    """``open(user)`` opens the user's project window (sync started, as the app does)."""

    def __init__(self, qtbot: Any, tmp_path: Path, server: CouchServer, **team_options: Any) -> None:
        self.qtbot = qtbot
        self.team = Team(tmp_path, server, team_database(server, USERS), **team_options)
        self.windows: dict[str, MainWindow] = {}

    def open(self, user: str, *, synced: bool = True) -> MainWindow:
        if user not in self.team.workspaces:
            self.team.join(user)
        window = open_project_window(self.team.workspaces[user], self.team.name, **self.team.session_options(user))
        self.qtbot.addWidget(window)
        self.windows[user] = window
        if synced:
            state = lambda: window.sync_status.state  # noqa: E731
            self.qtbot.waitUntil(lambda: state().kind == "idle" and not state().pending, timeout=20_000)
        return window

    def doc_id(self, name: str) -> str:
        window = next(iter(self.windows.values()))
        return next(s.id for s in window.session.index.summaries() if s.name == name)

    def close(self) -> None:
        for window in self.windows.values():
            if not window.session.closed:
                window.close()
        self.team.close()
