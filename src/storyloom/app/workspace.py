"""``Workspace``: what one user has on this machine: the projects, the app options, the identity.

The workspace reads the per-machine options file (nothing below the ``app`` layer does) and
hands what the layers below need to them: the username to the editor, the API options to the
API controller. It opens projects as :class:`~storyloom.app.session.ProjectSession` objects.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from storyloom.app.options import AppOptions, default_username
from storyloom.project import ProjectError, ProjectManager

if TYPE_CHECKING:
    from storyloom.app.session import ProjectSession


class ProjectAlreadyOpen(ProjectError):
    """The project is open in a session of this workspace already."""

    code = "project_already_open"


class Workspace:
    """The projects under ``root`` (default: the data directory) with ``options`` (default: the
    options file, read once; :meth:`save_options` writes them back)."""

    def __init__(self, root: Path | str | None = None, options: AppOptions | None = None) -> None:
        self.options = options if options is not None else AppOptions.load()
        self.manager = ProjectManager(root, username=self.username_now)
        self._sessions: list[ProjectSession] = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the user
    @property
    def user(self) -> str:
        """The name stamped on this user's edits (``modifiedBy``) and held locks."""
        return self.username_now()

    def username_now(self) -> str:
        return self.options.username or default_username()

    def save_options(self) -> None:
        """Write the options file, then let every open session follow the new options."""
        self.options.save()
        for session in self.sessions:
            session.options_changed()

    # ------------------------------------------------------------------ sessions
    @property
    def sessions(self) -> list[ProjectSession]:
        with self._lock:
            return list(self._sessions)

    def open_session(self, name_or_id: str, **session_options: Any) -> ProjectSession:
        """Open a project by name or id (``ProjectNotFound`` and friends when it cannot be).

        A project is open at most once per workspace: two sessions of one project would label
        each other's edits as remote and compete for the API's port."""
        from storyloom.app.session import ProjectSession  # the whole session stack: loaded when a project opens

        info = self.manager.find(name_or_id)
        for open_session in self.sessions:
            if open_session.id == info.id:
                raise ProjectAlreadyOpen(
                    f"project {info.name!r} is already open; use its session, or close it first"
                )
        project = self.manager.open(info.id)
        try:
            session = ProjectSession(self, project, **session_options)
        except BaseException:
            project.close()
            raise
        with self._lock:
            self._sessions.append(session)
        return session

    def close(self) -> None:
        """Close every open session."""
        for session in self.sessions:
            session.close()

    def session_closed(self, session: ProjectSession) -> None:
        """Called by a session as it closes."""
        with self._lock:
            if session in self._sessions:
                self._sessions.remove(session)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
