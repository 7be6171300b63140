"""``storyloom app [PROJECT]``: the desktop app (the project manager, or straight to a project).

``storyloom`` with no verb runs this too. Qt is imported only here, when the app starts, so
the headless verbs and ``storyloom --help`` work on machines without a display or Qt libraries.
"""

from __future__ import annotations

import argparse
import os
import sys

from storyloom.cli.main import CliError

# What the app needs from the system when Qt's own libraries cannot load (Debian's names).
APT_HINT = (
    "install the Qt runtime libraries (Debian/Ubuntu: `scripts/run` installs them, or apt-get install "
    "libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0 libxcb-cursor0 "
    "libxcb-icccm4 libxcb-keysyms1 libxcb-shape0)"
)


def display_problem(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """Why the app cannot show a window here ("" when it can): Qt aborts the whole process when
    its platform has no display, so the CLI checks first and says what to do."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return ""
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal", "vnc", "eglfs", "linuxfb")):
        return ""
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return ""
    return ("no display to show the app on (neither DISPLAY nor WAYLAND_DISPLAY is set); run it in a "
            "desktop session, or use the headless verbs (`storyloom --help`)")


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
    p.add_argument("project", nargs="?", help="a project's name or id to open")
    p.set_defaults(func=_app)
