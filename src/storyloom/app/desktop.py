"""What starting the desktop app asks of this machine and of its argument, without Qt.

Both ways in use it: ``storyloom app [PROJECT]`` (the command line) and ``storyloom-app [PROJECT]``
(the installed app's launcher, :func:`storyloom.gui.application.main`). Qt aborts the whole process
when its platform has no display, so :func:`display_problem` is asked first; a desktop launcher
hands over a path (``Exec=storyloom-app %f``), so :func:`project_reference` turns the path of a
project's folder into the project's id.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

# What the app needs from the system when Qt's own libraries cannot load (Debian's names).
APT_HINT = (
    "install the Qt runtime libraries (Debian/Ubuntu: `scripts/run` installs them, or apt-get install "
    "libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0 libxcb-cursor0 "
    "libxcb-icccm4 libxcb-keysyms1 libxcb-shape0)"
)

# Qt platforms that need no display server.
_HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def display_problem(environ: Mapping[str, str] | None = None) -> str:
    """Why the app cannot show a window here ("" when it can)."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return ""
    if env.get("QT_QPA_PLATFORM", "").startswith(_HEADLESS_PLATFORMS):
        return ""
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return ""
    return ("no display to show the app on (neither DISPLAY nor WAYLAND_DISPLAY is set); run it in a "
            "desktop session, or use the headless verbs (`storyloom --help`)")


def project_reference(argument: str, projects_root: Path) -> str:
    """The name or id to open for ``argument``: the id of the project whose folder (or a file in
    it, such as its ``project.json``) ``argument`` is the path of; otherwise ``argument`` as it is
    (a project's name or id, which the project manager finds or says why not)."""
    path = Path(argument).expanduser()
    if not path.exists():
        return argument
    try:
        relative = path.resolve().relative_to(projects_root.resolve())
    except (OSError, ValueError):  # not under the projects' folder: not one of this machine's projects
        return argument
    return relative.parts[0] if relative.parts else argument
