"""GUI tests run offscreen: the platform is chosen before anything imports Qt, and every test
gets a :class:`Workspace` on its own STORYLOOM_HOME (the suite-wide ``storyloom_home``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# Before PySide6 is imported anywhere (pytest-qt creates the QApplication from this).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QUICK_BACKEND", "software")

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.drafft import import_backup
from storyloom.project import ProjectManager
from tests.gui.support import GARDEN, open_sample_window


@pytest.fixture(scope="session")
def qapp_cls():
    """pytest-qt's application is the app's own (style, palette, icons)."""
    from PySide6.QtWidgets import QApplication

    return QApplication


@pytest.fixture(scope="session")
def qapp(qapp_args, qapp_cls, pytestconfig):
    from storyloom.gui.application import create_application

    return create_application(qapp_args or ["storyloom-tests"])


@pytest.fixture
def workspace(storyloom_home):
    """The user's workspace in the test's STORYLOOM_HOME, with a fixed username."""
    ws = Workspace(storyloom_home / "projects", options=AppOptions(username="tester"))
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def garden_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The garden sample imported once (per test process): its project folder, closed."""
    manager = ProjectManager(tmp_path_factory.mktemp("garden-template"), username="tester")
    project, _report = import_backup(manager, GARDEN, name="Garden")
    project.close()
    return project.path


@pytest.fixture
def garden(workspace: Workspace, garden_folder: Path) -> str:
    """The garden sample in the workspace (a copy of the one import, as its folder is all a
    project is); its name."""
    shutil.copytree(garden_folder, workspace.manager.root / garden_folder.name)
    return "Garden"


@pytest.fixture
def window(qtbot, workspace: Workspace, garden: str):  # type: ignore[no-untyped-def]
    """The garden sample's project window, closed afterwards."""
    from storyloom.gui.main_window import open_project_window

    win = open_project_window(workspace, garden)
    qtbot.addWidget(win)
    yield win
    if not win.session.closed:
        win.close()


@pytest.fixture
def sample_window(qtbot, workspace: Workspace):  # type: ignore[no-untyped-def]
    """The built-in sample's project window at 1440x900, shown, closed afterwards."""
    win = open_sample_window(qtbot, workspace)
    yield win
    if not win.session.closed:
        win.close()


@pytest.fixture(autouse=True)
def earlier_windows_deleted(qapp):  # type: ignore[no-untyped-def]
    """The windows earlier tests closed are deleted before this one starts. pytest-qt closes a
    test's widgets and calls deleteLater, but a deferred deletion waits for an event loop that
    the suite never returns to, so every window stayed alive (about 1,400 widgets each, 8,000
    after a dozen tests) and each theme or style change repolished them all: a test that
    switched the theme took 45 to 55 s in its file. Qt's documented way to carry out the
    pending deletions outside an event loop is below."""
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    yield


STUCK_MODAL_SECONDS = 10.0


@pytest.fixture(autouse=True)
def no_stuck_modal_box(qapp):  # type: ignore[no-untyped-def]
    """A message box nobody answers would block the suite forever (offscreen, no person is
    there): one that stays up for STUCK_MODAL_SECONDS is answered with its destructive choice
    (e.g. Discard, so a closing window closes) or else its escape button, and the test fails
    with the box's text."""
    import time

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    stuck: list[str] = []
    first_seen: dict[int, float] = {}

    def check() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            return
        since = first_seen.setdefault(id(box), time.monotonic())
        if time.monotonic() - since < STUCK_MODAL_SECONDS:
            return
        stuck.append(f"{box.windowTitle()}: {box.text()}")
        destructive = [b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole]
        button = destructive[0] if destructive else (box.escapeButton() or box.defaultButton())
        if button is not None:
            button.click()
        else:
            box.reject()

    timer = QTimer()
    timer.setInterval(500)
    timer.timeout.connect(check)
    timer.start()
    yield
    timer.stop()
    if stuck:
        pytest.fail(f"a message box stayed up with nobody to answer it: {stuck}")
