"""The CLI's way into the app layer: one :class:`~storyloom.app.Workspace` per command, and the
sessions it opens, with the app layer's errors turned into ``storyloom: error: ...`` lines."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from storyloom.cli.main import CliError

if TYPE_CHECKING:
    from storyloom.app import ProjectSession, Workspace

# The app layer is imported when a verb runs, not when the parser is built: `storyloom --help`
# and a verb's parsing load no project code (tests/test_cli_imports.py).


def open_workspace() -> Workspace:
    """The user's workspace with the saved options (a clear error when the file is broken)."""
    from storyloom.app import AppOptions, OptionsError, Workspace

    try:
        return Workspace()
    except OptionsError as exc:
        raise CliError(f"cannot read the app options: {exc} (fix or delete {AppOptions.path()})") from None


@contextlib.contextmanager
def project_session(
    name_or_id: str, workspace: Workspace | None = None, **session_options: Any
) -> Iterator[ProjectSession]:
    """Open a project by name or id for the length of the block, then close it."""
    from storyloom.project import ProjectError

    workspace = workspace or open_workspace()
    try:
        session = workspace.open_session(name_or_id, **session_options)
    except ProjectError as exc:
        raise CliError(exc) from None
    try:
        yield session
    finally:
        with contextlib.suppress(Exception):
            session.close()
