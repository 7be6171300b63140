"""Starting and stopping the desktop app.

:func:`create_application` makes the ``QApplication`` with the app's style, palette, fonts and
icon defaults. :func:`run` shows the project manager (or opens a project straight away) and
runs the event loop until the user quits, the last window closes, or SIGINT/SIGTERM arrives.
Quitting by any of these routes closes every open project window first (each saves its pending
edits and closes its session: the API stops and its port is released), then every session the
workspace still holds, so no thread outlives the app.

:class:`QuietCollections` (installed by :func:`run`) keeps Python's full garbage collections
short while the app runs: a full collection traverses every object the open projects hold
(200 to 250 ms with a 10,000-document project and a long script open, the GIL held throughout:
a stall of the GUI thread whichever thread it runs in), so every second what survived is frozen
out of the collector's reach (:class:`storyloom.collector.LongLivedObjects`), and the whole heap
is collected only when nobody waits for the app (it lost the focus, a project window closed).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

import storyloom
from storyloom.app.desktop import display_problem, project_reference
from storyloom.collector import LongLivedObjects
from storyloom.gui import theme

log = logging.getLogger(__name__)

APP_NAME = "Storyloom"
# How often Python gets the interpreter back while Qt's loop runs, so a signal's handler runs
# promptly (Python runs handlers only between bytecodes, never inside Qt's C++ loop).
SIGNAL_POLL_MS = 200
# How often what survived is moved out of the garbage collector's reach: the young generations'
# collection this takes is bounded by the collector's thresholds (a millisecond or two).
SETTLE_MS = 1000


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The app's ``QApplication`` (the existing one if any) with style, palette, fonts and
    icons set up; the palette follows the system's light or dark scheme, also when it changes."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(list(argv or [sys.argv[0]]))
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationVersion(storyloom.__version__)
    app.setDesktopFileName("storyloom")
    app.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont))
    theme.apply_theme(app)
    from storyloom.gui import appearance

    with contextlib.suppress(Exception):  # an old platform without scheme changes keeps its palette
        appearance.connect_system_scheme(app)  # followed while the options' theme is "system"
    from storyloom.gui import icons  # after the theme: icons take its colours

    app.setWindowIcon(icons.icon("app", theme.colors().accent))
    return app


def monospace_font() -> QFont:
    """The system's fixed-width font, for code editors."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def project_windows() -> list[QWidget]:
    """Every open project window (the main windows: top-level widgets with a session)."""
    return [w for w in QApplication.topLevelWidgets() if hasattr(w, "session") and hasattr(w, "closed")]


def close_project_windows() -> None:
    """Close every project window; each saves its pending edits and closes its session."""
    for window in project_windows():
        with contextlib.suppress(Exception):
            window.close()


class QuietCollections(QObject):
    """The app's garbage collection policy (:class:`~storyloom.collector.LongLivedObjects`):
    settled every SETTLE_MS; reclaimed when a project window has closed (its project's objects
    are garbage now), and, at most once a minute, when a document's tab has closed (its editor's
    objects are; the writer is not typing then) or the app stops being the active one.
    :meth:`stop` gives every object back to the collector."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.objects = LongLivedObjects()
        self._windows, self._tabs = _open_projects()
        self.timer = QTimer(self)
        self.timer.setInterval(SETTLE_MS)
        self.timer.timeout.connect(self.tick)
        app.applicationStateChanged.connect(self._state_changed)
        self._stopped = False
        self.timer.start()

    def tick(self) -> None:
        (windows, tabs), (had_windows, had_tabs) = _open_projects(), (self._windows, self._tabs)
        self._windows, self._tabs = windows, tabs
        if windows < had_windows:
            self.objects.reclaim()
        elif not (tabs < had_tabs and self.objects.reclaim(when_due=True)):
            self.objects.settle()

    def _state_changed(self, state: Qt.ApplicationState) -> None:
        if state != Qt.ApplicationState.ApplicationActive:
            self.objects.reclaim(when_due=True)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.timer.stop()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            with contextlib.suppress(RuntimeError):
                app.applicationStateChanged.disconnect(self._state_changed)
        self.objects.release()


def _open_projects() -> tuple[int, int]:
    """How many project windows have their session open (a closed window may stay, hidden), and
    how many documents' tabs they have open."""
    windows = [w for w in project_windows() if not getattr(getattr(w, "session", None), "closed", True)]
    tabs = sum(getattr(getattr(w, "tabs", None), "count", lambda: 0)() for w in windows)
    return len(windows), tabs


class _QuitOnSignal:
    """SIGINT and SIGTERM close the app as the Quit command does; the previous handlers come
    back when the app ends."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.received: int | None = None
        self._previous: dict[int, object] = {}
        # A timer with nothing to do: its timeouts hand the interpreter back to Python.
        self._timer = QTimer()
        self._timer.setInterval(SIGNAL_POLL_MS)
        self._timer.timeout.connect(lambda: None)

    def install(self) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, OSError):  # not the main thread: nothing to install
                self._previous[signum] = signal.signal(signum, self._handle)
        self._timer.start()

    def uninstall(self) -> None:
        self._timer.stop()
        for signum, handler in self._previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signum, handler)  # type: ignore[arg-type]

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        self.received = signum
        # Leave the handler first: the windows close from the event loop, as on Ctrl+Q.
        QTimer.singleShot(0, self.app.quit)


def run(argv: Sequence[str] | None = None, project: str | None = None) -> int:
    """Run the app: the project manager, or straight to ``project``'s window (a project's name, id
    or folder; the manager shows instead, with the reason, when it cannot be opened). Returns the
    exit code: 0 after a quit, SIGINT or SIGTERM."""
    from storyloom.app import AppOptions, OptionsError, Workspace
    from storyloom.gui.project_manager import ProjectManagerWindow

    app = create_application(argv)
    try:
        workspace = Workspace()
    except OptionsError as exc:
        QMessageBox.critical(
            None, APP_NAME,
            f"Storyloom cannot read its options: {exc}.\n\nFix or delete {AppOptions.path()} and start again.",
        )
        return 1
    from storyloom.gui.appearance import apply_appearance

    apply_appearance(workspace.options, app)  # the theme and editor font the writer chose
    if project is not None:
        project = project_reference(project, workspace.manager.root)
    # The manager decides when the app ends (it returns when the last project window closes).
    app.setQuitOnLastWindowClosed(False)
    manager = ProjectManagerWindow(workspace)
    collections = QuietCollections(app)
    signals = _QuitOnSignal(app)
    signals.install()
    manager.last_window_closed.connect(app.quit)
    app.aboutToQuit.connect(manager.prepare_to_quit)
    app.aboutToQuit.connect(close_project_windows)
    try:
        if project is None or not manager.open_project(project):
            manager.show()
        code = app.exec()
    finally:
        signals.uninstall()
        close_project_windows()
        collections.stop()
        with contextlib.suppress(Exception):
            workspace.close()  # any session a window did not close (the safety net)
    return 0 if signals.received is not None else int(code)


# Qt's own command-line options that take a value (QGuiApplication's and QApplication's).
_QT_OPTIONS_WITH_VALUE = frozenset({
    "-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qmljsdebugger", "-style",
    "-stylesheet", "-session", "-qwindowgeometry", "-qwindowicon", "-qwindowtitle", "-display",
    "-geometry", "-title", "-name", "-visual", "-ncols", "-cmap", "-fontengine",
})


def _split_qt_arguments(arguments: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(the launcher's arguments, Qt's)``: Qt's are those with a single dash (and the value
    after one of :data:`_QT_OPTIONS_WITH_VALUE`); ``-h`` is the launcher's."""
    ours: list[str] = []
    qt: list[str] = []
    items = iter(arguments)
    for arg in items:
        if arg.startswith("-") and not arg.startswith("--") and arg not in ("-", "-h"):
            qt.append(arg)
            value = next(items, None) if arg in _QT_OPTIONS_WITH_VALUE else None
            if value is not None:
                qt.append(value)
        else:
            ours.append(arg)
    return ours, qt


def _launcher_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="storyloom-app",
        description="Open the Storyloom desktop app: the project manager, or PROJECT's window straight away. "
                    "Arguments with a single dash are Qt's (-platform offscreen, -style fusion, -reverse...).",
        epilog="The headless verbs (import, export, check, serve, sync...) are the `storyloom` command's.",
    )
    parser.add_argument("--version", action="version", version=f"storyloom {storyloom.__version__}")
    parser.add_argument("project", nargs="?", help="a project's name, id or folder to open")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The installed app's launcher (``storyloom-app``, a GUI script: a desktop entry's
    ``Exec=storyloom-app %f``, a bundle's entry point): ``[PROJECT] [Qt options]``, ``--version``,
    ``--help``. Returns :func:`run`'s exit code, or 1 when there is no display to show the app on;
    ``--version``, ``--help`` and an argument it does not know exit as argparse does (0, 0, 2)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:  # a GUI script on Windows has no console: --help prints nowhere
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (lives as long as the process)
    ours, qt = _split_qt_arguments(sys.argv[1:] if argv is None else argv)
    args = _launcher_parser().parse_args(ours)
    if "-platform" not in qt:  # Qt's own -platform names a display of its own choosing
        problem = display_problem()
        if problem:
            print(f"storyloom-app: error: {problem}", file=sys.stderr)
            return 1
    program = sys.argv[0] if sys.argv and sys.argv[0] else "storyloom-app"
    return run([program, *qt], args.project)
