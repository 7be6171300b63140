"""``scripts/screenshots DIR``: every window rendered offscreen to ``DIR/<name>.png``.

Developer tooling of the repository, not part of the ``storyloom`` package: run from the
checkout's root as ``python -m tools.screenshots`` (what ``scripts/screenshots`` does), so that
``tools`` and ``bench`` (whose pouchdb-server the sync screenshots start) are importable.

Windows register here with :func:`register` (in this package's ``*_shots`` modules, listed in
:data:`SHOT_MODULES`); each function gets a fresh :class:`Workspace` in a temporary
STORYLOOM_HOME (so no real project is touched), fills it with the content it needs, and returns
the widget to render::

    @register("project-manager")
    def _manager(workspace: Workspace, out_dir: Path) -> QWidget: ...

Each window is rendered at 1440x900 in light and dark (``<name>.png``, ``<name>-dark.png``);
``--scale 2`` adds device-pixel-ratio-2 pictures (``<name>@2x.png``). ``--only NAME`` renders
the named windows alone.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

# Offscreen before Qt loads: screenshots never need (or open) a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSize
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import AppOptions, Workspace
from storyloom.gui import theme
from storyloom.gui.application import create_application

Shot = Callable[[Workspace, Path], QWidget]
SIZE = QSize(1440, 900)
#: Modules that register windows when imported (each engineer adds theirs).
SHOT_MODULES = ("tools.screenshots.project_manager_shots", "tools.screenshots.main_window_shots",
                "tools.screenshots.shortcuts_dialog_shots", "tools.screenshots.text_editors_shots",
                "tools.screenshots.problems_panel_shots", "tools.screenshots.settings_editor_shots",
                "tools.screenshots.variable_editors_shots", "tools.screenshots.search_panel_shots",
                "tools.screenshots.attachments_shots", "tools.screenshots.script_completion_shots",
                "tools.screenshots.player_shots", "tools.screenshots.remote_settings_shots",
                "tools.screenshots.boards_shots", "tools.screenshots.dialogue_graph_shots",
                "tools.screenshots.canvas_map_shots",
                "tools.screenshots.sync_locks_shots", "tools.screenshots.revisions_shots",
                "tools.screenshots.print_dialog_shots", "tools.screenshots.everyday_shots",
                "tools.screenshots.graph_panel_shots", "tools.screenshots.actors_shots",
                "tools.screenshots.layout_shots",
                "tools.screenshots.localization_shots")

_REGISTRY: dict[str, Shot] = {}


def register(name: str) -> Callable[[Shot], Shot]:
    """Register ``function(workspace, out_dir) -> QWidget`` as the window ``name``."""

    def decorate(function: Shot) -> Shot:
        if name in _REGISTRY and _REGISTRY[name] is not function:
            raise ValueError(f"a screenshot named {name!r} is registered already")
        _REGISTRY[name] = function
        return function

    return decorate


def registered() -> dict[str, Shot]:
    """Every registered window, after importing the modules that register them."""
    for module in SHOT_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # the module exists but something it imports does not
                raise
    return dict(_REGISTRY)


@contextlib.contextmanager
def temporary_workspace() -> Iterator[Workspace]:
    """A workspace in a new temporary STORYLOOM_HOME (the previous home comes back after)."""
    previous = os.environ.get("STORYLOOM_HOME")
    with tempfile.TemporaryDirectory(prefix="storyloom-shot-") as home:
        os.environ["STORYLOOM_HOME"] = home
        workspace = Workspace(options=AppOptions(username="Ada"))
        try:
            yield workspace
        finally:
            workspace.close()
            if previous is None:
                os.environ.pop("STORYLOOM_HOME", None)
            else:
                os.environ["STORYLOOM_HOME"] = previous


def settle(app: QApplication, rounds: int = 5) -> None:
    """Let layouts, deferred calls and queued signals finish before a picture is taken."""
    for _ in range(rounds):
        app.processEvents()
        app.sendPostedEvents()


def render(widget: QWidget, file: Path, scale: float = 1.0) -> Path:
    """Render ``widget`` (shown at 1440x900) to ``file`` at device pixel ratio ``scale``."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    widget.resize(SIZE)
    widget.show()
    settle(app)
    if scale == 1.0:
        picture = widget.grab()
    else:
        picture = QPixmap(widget.size() * scale)
        picture.setDevicePixelRatio(scale)
        picture.fill(widget.palette().window().color())
        widget.render(picture)
    file.parent.mkdir(parents=True, exist_ok=True)
    if not picture.save(str(file)):
        raise OSError(f"cannot write {file}")
    return file


def take(name: str, shot: Shot, out_dir: Path, *, dark: bool, scale: float = 1.0) -> Path:
    """One window in one variant; returns the PNG written."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, dark=dark)
    suffix = ("-dark" if dark else "") + (f"@{scale:g}x" if scale != 1.0 else "")
    with temporary_workspace() as workspace:
        widget = shot(workspace, out_dir)
        try:
            return render(widget, out_dir / f"{name}{suffix}.png", scale)
        finally:
            close_all(app, widget)


def close_all(app: QApplication, widget: QWidget) -> None:
    """Close the window (and any window it opened: a project's window closes its session)."""
    for window in [widget, *app.topLevelWidgets()]:
        with contextlib.suppress(RuntimeError):
            if window.isVisible():
                window.close()
    widget.deleteLater()
    settle(app)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/screenshots", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", type=Path, help="folder for the PNG files")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="render only this window")
    parser.add_argument("--scale", type=float, action="append", default=[], help="also render at this ratio")
    parser.add_argument("--light-only", action="store_true", help="skip the dark variants")
    args = parser.parse_args(argv)
    app = create_application(["storyloom-screenshots"])
    shots = registered()
    unknown = [name for name in args.only if name not in shots]
    if unknown:
        parser.error(f"unknown window(s) {', '.join(unknown)}; known: {', '.join(sorted(shots))}")
    failures = 0
    for name, shot in sorted(shots.items()):
        if args.only and name not in args.only:
            continue
        for dark in (False,) if args.light_only else (False, True):
            for scale in (1.0, *args.scale):
                try:
                    written = take(name, shot, args.out_dir, dark=dark, scale=scale)
                except Exception as exc:  # one broken window must not hide the others' pictures
                    failures += 1
                    print(f"{name}: FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
                else:
                    print(written)
    app.processEvents()
    return 1 if failures else 0

