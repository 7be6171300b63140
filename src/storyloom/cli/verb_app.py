"""``storyloom app [PROJECT]``: the desktop app (the project manager, or straight to a project).

``storyloom`` with no verb runs this too. Qt is imported only here, when the app starts, so
the headless verbs and ``storyloom --help`` work on machines without a display or Qt libraries.
The installed app's own launcher, ``storyloom-app``, is :func:`storyloom.gui.application.main`.
"""

from __future__ import annotations

import argparse
import sys

from storyloom.app.desktop import APT_HINT, display_problem
from storyloom.cli.main import CliError


def launch(project: str | None) -> int:
    """Start the app; a clear error when it cannot start here."""
    problem = display_problem()
    if problem:
        raise CliError(problem, code=1)
    try:
        from storyloom.gui.application import run
    except ImportError as exc:
        raise CliError(f"the desktop app cannot start: {exc}; {APT_HINT}", code=1) from None
    return run([sys.argv[0] if sys.argv else "storyloom"], project)


def _app(args: argparse.Namespace) -> int:
    return launch(args.project)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "app", help="open the desktop app (the default when no verb is given)",
        description="Open the desktop app: the project manager, or PROJECT's window straight away.",
    )
    p.add_argument("project", nargs="?", help="a project's name, id or folder to open")
    p.set_defaults(func=_app)
