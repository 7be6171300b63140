"""Project Settings > Remote Replication, against a real pouchdb-server that this module starts
(``tools/peers.py``'s :class:`CouchServer`, with its pre-seeded admin) and stops when the window
closes: ``remote-settings`` (the settings saved, the easy set-up's steps below),
``server-check`` (the report of a check after the set-up: every line and what it says)
and ``admin-login`` (the server admin's account Set up asks for, used once and never kept)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from storyloom.app.views import remote_form as form
from storyloom.gui.main_window import MainWindow
from storyloom.gui.sidebar import SETTINGS
from tools.screenshots import SIZE, register, settle
from tools.screenshots.main_window_shots import _window

OWNER = "maya-owner"


def _server() -> Any:
    """A pouchdb-server in a temporary folder, stopped (and the folder removed) at the latest
    when the process ends."""
    from tools.peers import CouchServer  # the checkout's test server (tools/peers.py)

    workdir = Path(tempfile.mkdtemp(prefix="storyloom-shot-couch-"))
    server = CouchServer(workdir)

    def stop() -> None:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    atexit.register(stop)
    server.start()
    server.stop_and_clean = stop  # type: ignore[attr-defined]
    return server


def _remote_page(workspace: Workspace) -> tuple[MainWindow, Any, Any]:
    """The garden sample's window on its Remote Replication page, its remote set to a new
    pouchdb-server as its owner 'maya-owner' (easy mode); the server stops when the window closes."""
    server = _server()
    window = _window(workspace)
    window.closed.connect(server.stop_and_clean)
    session = window.session
    values = form.RemoteValues(enabled=True, server=server.url, username=OWNER, password="owner-" + "x" * 12)
    check = form.check_values(session.name, values)
    assert check.settings is not None, check.messages
    session.remote.save(check.settings, values.password)  # kept as Save does, without starting sync
    session.remote_settings_changed()
    window.sidebar.select(SETTINGS)
    editor = window.tabs.current_editor()
    page = editor.remote_page  # type: ignore[union-attr]
    editor.show_remote_page()  # type: ignore[union-attr]
    page.load()
    return window, page, server


def _admin(server: Any) -> form.AdminLogin:
    return form.AdminLogin(*server.admin)


def _scroll_to_report(window: MainWindow, page: Any) -> None:
    window.show()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    page.ensureWidgetVisible(page.report, 0, 24)


@register("remote-settings")
def remote_settings(workspace: Workspace, out_dir: Path) -> QWidget:
    window, page, server = _remote_page(workspace)
    page.report.start("Set-up")
    outcome = form.run_setup(window.session, page.report.add_line, _admin(server))
    page._set_up(outcome)
    page.state.setText("Saved")
    window.session.sync.wait_for(lambda state: state.kind in ("idle", "error"), timeout=60)  # set-up syncs
    return window


@register("server-check")
def server_check(workspace: Workspace, out_dir: Path) -> QWidget:
    window, page, server = _remote_page(workspace)
    form.run_setup(window.session, admin=_admin(server))
    window.session.sync.wait_for(lambda state: state.kind in ("idle", "error"), timeout=60)  # set-up syncs
    page._checked(form.run_check(window.session))
    _scroll_to_report(window, page)
    return window


def _dialog_overlay(window: QWidget, dialog: QWidget, name: str) -> None:
    from tools.screenshots.main_window_shots import _overlay

    _overlay(window, dialog)  # type: ignore[arg-type]
    dialog.setStyleSheet(f"#{name} {{ background: palette(window); border: 1px solid palette(mid); "
                         "border-radius: 8px; }")


@register("invite-teammate")
def invite_teammate(workspace: Workspace, out_dir: Path) -> QWidget:
    from storyloom.gui.remote_dialogs import InviteDialog

    window, _page, server = _remote_page(workspace)
    session = window.session
    form.run_setup(session, admin=_admin(server))
    dialog = InviteDialog(session, admin=_admin(server))
    dialog.username.setText("bea")
    dialog._invited(form.invite_teammate(session, "bea", _admin(server)))
    session.sync.wait_for(lambda state: state.kind in ("idle", "error"), timeout=60)  # set-up syncs
    _dialog_overlay(window, dialog, "inviteDialog")
    return window


@register("admin-login")
def admin_login(workspace: Workspace, out_dir: Path) -> QWidget:
    """Set up pressed by an owner whose user is not on the server yet: the admin's account is asked for."""
    from storyloom.gui.remote_dialogs import AdminLoginDialog

    window, page, server = _remote_page(workspace)
    message = ("The server does not sign in 'maya-owner' yet: with an admin's account, Set up creates that user; "
               "if it exists, check its password above.")
    dialog = AdminLoginDialog("Setting up the server", window, message=message)
    dialog.fields.name.setText(server.admin[0])
    page.banner.show_message("info", "Set up needs a server admin's account: type it in the dialog.")
    _dialog_overlay(window, dialog, "adminLoginDialog")
    return window


@register("join-project")
def join_project(workspace: Workspace, out_dir: Path) -> QWidget:
    """The project manager's Join dialog, filled in as an invitation says, on a project list."""
    from storyloom.gui.project_manager import ProjectManagerWindow
    from storyloom.gui.remote_dialogs import JoinDialog
    from tools.screenshots.project_manager_shots import _no_opener

    for name, description in (("Ashes of Aurora", "Act II rewrite: the lighthouse keeper's choices"),
                              ("Tavern Tales", "Bark and ambient dialogue for the harbour district")):
        workspace.manager.create(name, description).close()
    manager = ProjectManagerWindow(workspace, opener=_no_opener)
    manager.resize(SIZE)
    dialog = JoinDialog(workspace)
    dialog.url.setText("https://couch.example.com/app_v2_the_garden_of_fading_memories")
    dialog.username.setText("maya")
    dialog.password.setText("x" * 24)
    _dialog_overlay(manager, dialog, "joinDialog")
    return manager
