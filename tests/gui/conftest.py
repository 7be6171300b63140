"""GUI tests run offscreen: the platform is chosen before anything imports Qt, and every test
gets a :class:`Workspace` on its own STORYLOOM_HOME (the suite-wide ``storyloom_home``)."""

from __future__ import annotations

import os

# Before PySide6 is imported anywhere (pytest-qt creates the QApplication from this).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QUICK_BACKEND", "software")

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.drafft import import_backup
from tests.gui.support import GARDEN


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


@pytest.fixture
def garden(workspace: Workspace) -> str:
    """The garden sample imported into the workspace; its name."""
    project, _report = import_backup(workspace.manager, GARDEN, name="Garden")
    project.close()
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
