"""Screenshots of sync and locks from a real two-user situation: a pouchdb-server started here
(``tools.peers.CouchServer``, so the repository's ``tools`` folder must be importable, as it is
under ``scripts/screenshots``) and stopped when the window closes, Ada's project window on the
Drafft garden sample, and her teammate Ben working on the same project from another home.

- ``sync-status``: the sync panel open after Ben's edits arrived and the server went away and
  came back (Ada's edit made offline sent, her lock confirmed);
- ``sync-offline``: the same panel while the server is down (the problem and the next try);
- ``locked-document``: a script Ben holds, open read-only in Ada's window with its banner, the
  tree showing who holds which lock;
- ``my-locks``: the "My locks" dashboard.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import AppOptions, Workspace
from storyloom.app.remote import RemoteAccess
from storyloom.app.secrets import PasswordStore
from storyloom.app.session import ProjectSession
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.remote_settings import RemoteSettings
from tools.screenshots import SIZE, register, settle
from tools.screenshots.main_window_shots import DRAFFT_SAMPLE, _overlay

PROJECT = "The Garden of Fading Memories"
PASSWORDS = {"Ada": "ada-secret-pw", "Ben": "ben-secret-pw"}
SYNC_OPTIONS: dict[str, Any] = {"max_backoff": 1.0, "client_options": {"timeout": 5.0}}
#: Ben's locks, Ada's locks, the lock Ada breaks, what each of them edits.
BEN_LOCKS = ("Reflection (Ending)", "Memory Room")
BEN_BROKEN = "First Meeting"
BEN_EDITS = ("Garden Pendant", "Opening Scene - Choice")
ADA_LOCKS = ("Opening", "Master GDD")
ADA_EDIT = "Ending Setup"
ADA_OFFLINE_EDIT = "Enter the garden"


def _app() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


def wait(predicate: Callable[[], Any], timeout: float = 20.0) -> bool:
    """Let the GUI run until ``predicate()`` holds (False after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        settle(_app(), 2)
        if predicate():
            return True
        time.sleep(0.02)
    return False


def _make_project(manager: ProjectManager) -> Project:
    if DRAFFT_SAMPLE.exists():
        from storyloom.drafft import import_backup

        project, _report = import_backup(manager, DRAFFT_SAMPLE, name=PROJECT)
        return project
    project = manager.create(PROJECT)  # without the shared fixtures: a small project made here
    for name in (*BEN_LOCKS, BEN_BROKEN, *ADA_LOCKS, ADA_EDIT, ADA_OFFLINE_EDIT, BEN_EDITS[1]):
        project.editor.create("Script", name, content={"script": f"::Woman:: {name}.\n"})
    project.editor.create("Item", BEN_EDITS[0], content={"item": "name: Garden Pendant\n"})
    return project


class TeamScene:
    """The server, Ada (the screenshot's workspace) and Ben; :meth:`close` stops them all."""

    def __init__(self, workspace: Workspace) -> None:
        from tools.peers import CouchServer  # the repository's server helper (tests and benchmarks)

        self.workspace = workspace
        self.folder = Path(tempfile.mkdtemp(prefix="storyloom-shot-team-"))
        self.server = CouchServer(self.folder / "couch", persistent=True)
        self.server.start()
        self.db = "app_v2_the_garden_of_fading_memories"
        self.server.create_db(self.db)
        for user, password in PASSWORDS.items():
            self.server.create_user(user, password)
        self.server.set_security(self.db, members=list(PASSWORDS))
        self.ben_workspace: Workspace | None = None
        self.ben: ProjectSession | None = None
        self.window: MainWindow | None = None
        self._closed = False

    def _remote(self, project: Project, user: str, passwords: PasswordStore) -> None:
        settings = RemoteSettings(enabled=True, server=self.server.url, database=self.db, username=user,
                                  interval=2.0, live=True)
        RemoteAccess(project, passwords).save(settings, PASSWORDS[user])

    def open(self) -> MainWindow:
        """Ada's window (her project pushed to the server) and Ben's session on the same project."""
        home = Path(os.environ.get("STORYLOOM_HOME") or self.folder)
        ada_passwords = PasswordStore(home / "config", backend="file")
        project = _make_project(self.workspace.manager)
        backup = self.folder / "garden.json"
        self.workspace.manager.backup(project, backup)
        self._remote(project, "Ada", ada_passwords)
        project.close()
        window = open_project_window(self.workspace, PROJECT, passwords=ada_passwords, sync_options=SYNC_OPTIONS)
        self.window = window
        # The window keeps the scene (a signal holds only a weak reference to a bound method),
        # and closing it stops the server and Ben's session.
        window._team_scene = self  # type: ignore[attr-defined]
        window.closed.connect(lambda: self.close())
        window.resize(SIZE)
        wait(lambda: self.synced(window))
        self.ben_workspace = Workspace(self.folder / "ben" / "projects", options=AppOptions(username="Ben"))
        ben_passwords = PasswordStore(self.folder / "ben" / "config", backend="file")
        ben_project = self.ben_workspace.manager.restore(backup)
        self._remote(ben_project, "Ben", ben_passwords)
        ben_project.close()
        self.ben = self.ben_workspace.open_session(PROJECT, passwords=ben_passwords, sync_options=SYNC_OPTIONS)
        return window

    @staticmethod
    def synced(window: MainWindow) -> bool:
        state = window.sync_status.state
        return state.kind == "idle" and not state.pending

    def doc(self, name: str) -> str:
        assert self.window is not None
        return next(s.id for s in self.window.session.index.summaries() if s.name == name)

    def play(self) -> None:
        """Ben locks and edits; Ada locks, breaks one of Ben's locks, edits (her first edit takes
        the lock)."""
        assert self.window is not None and self.ben is not None
        window, ben = self.window, self.ben
        for name in (*BEN_LOCKS, BEN_BROKEN):
            ben.locks.lock(self.doc(name))
        for name in BEN_EDITS:
            doc_id = self.doc(name)
            doc = ben.db.get(doc_id)
            content = dict(doc.get("content") or {})
            field = "script" if "script" in content else "notes"
            content[field] = str(content.get(field) or "") + "\nBen: tightened the wording here.\n"
            ben.editor.patch(doc_id, {"content": content})
            ben.locks.publish(doc_id)
        wait(lambda: all(window.lock_ui.table.get(self.doc(n)) is not None for n in (*BEN_LOCKS, BEN_BROKEN)))
        for name in ADA_LOCKS:
            window.session.locks.lock(self.doc(name))
        window.session.locks.unlock(self.doc(BEN_BROKEN), break_lock=True)
        wait(lambda: all(window.lock_ui.table.get(self.doc(n)) is not None for n in ADA_LOCKS))
        wait(lambda: self.synced(window))

    def offline_episode(self, *, back: bool = True) -> None:
        """The server goes away while Ada edits (her first edit takes the lock, provisionally),
        and comes back (``back``): her edit is sent and the lock confirmed."""
        assert self.window is not None
        window = self.window
        port = self.server.port
        self.server.stop()
        wait(lambda: window.sync_status.state.kind == "offline", timeout=15)
        doc_id = self.doc(ADA_OFFLINE_EDIT)
        doc = window.session.db.get(doc_id)
        content = dict(doc.get("content") or {})
        content["script"] = str(content.get("script") or "") + "\n::Woman:: The roses remember you.\n"
        window.session.editor.patch(doc_id, {"content": content})
        wait(lambda: window.sync_status.state.pending > 0, timeout=5)
        if back:
            self.server.start(port=port)
            wait(lambda: self.synced(window) and not window.session.locks.provisional(), timeout=30)
        else:
            wait(lambda: window.sync_status.state.next_retry is not None, timeout=5)

    def edit_as_ada(self) -> None:
        """Ada's first edit of a free document takes its lock (provisional until a pull)."""
        assert self.window is not None
        window = self.window
        doc_id = self.doc(ADA_EDIT)
        doc = window.session.db.get(doc_id)
        content = dict(doc.get("content") or {})
        content["script"] = str(content.get("script") or "") + "\n::Narrator:: The gate closes softly.\n"
        window.session.editor.patch(doc_id, {"content": content})
        wait(lambda: window.lock_ui.table.get(doc_id) is not None and self.synced(window))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.window is not None and not self.window.session.closed:
            self.window.close_session()
        if self.ben is not None:
            self.ben.close()
        if self.ben_workspace is not None:
            self.ben_workspace.close()
        self.server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _scene(workspace: Workspace, build: Callable[[TeamScene, MainWindow], QWidget | None]) -> QWidget:
    scene = TeamScene(workspace)
    try:
        window = scene.open()
        scene.play()
        shown = build(scene, window)
    except BaseException:
        with contextlib.suppress(Exception):
            scene.close()
        raise
    settle(_app())
    return shown or window


def _show_panel(scene: TeamScene, window: MainWindow) -> None:
    window.navigate_to("", scene.doc(ADA_OFFLINE_EDIT))
    window.sync_status.toggle_panel()
    window.resizeDocks([window.sync_status.panel], [420], Qt.Orientation.Horizontal)
    window.sync_status.show()


@register("sync-status")
def sync_status(workspace: Workspace, out_dir: Path) -> QWidget:
    def build(scene: TeamScene, window: MainWindow) -> None:
        scene.offline_episode(back=True)
        _show_panel(scene, window)

    return _scene(workspace, build)


@register("sync-offline")
def sync_offline(workspace: Workspace, out_dir: Path) -> QWidget:
    def build(scene: TeamScene, window: MainWindow) -> None:
        scene.offline_episode(back=False)
        _show_panel(scene, window)

    return _scene(workspace, build)


@register("locked-document")
def locked_document(workspace: Workspace, out_dir: Path) -> QWidget:
    def build(scene: TeamScene, window: MainWindow) -> None:
        scene.edit_as_ada()
        doc_id = scene.doc(BEN_LOCKS[0])
        window.navigate_to("", doc_id)
        window.explorer.reveal(doc_id)
        for name in ("Intro", ADA_LOCKS[0]):
            with contextlib.suppress(StopIteration):
                window.tabs.open(scene.doc(name), focus=False)
        window.navigate_to("", doc_id)
        window.explorer.view.expandAll()

    return _scene(workspace, build)


@register("my-locks")
def my_locks(workspace: Workspace, out_dir: Path) -> QWidget:
    def build(scene: TeamScene, window: MainWindow) -> None:
        scene.edit_as_ada()
        window.navigate_to("", scene.doc(ADA_LOCKS[0]))
        from storyloom.gui.locks_dashboard import LocksDashboard

        dialog = LocksDashboard(window.lock_ui)
        wait(lambda: bool(dialog.broken), timeout=10)
        dialog.resize(760, 640)
        _overlay(window, dialog, top=96, fit=False)
        dialog.setStyleSheet("#locksDashboard { background: palette(window); border: 1px solid palette(mid);"
                             " border-radius: 8px; }")

    return _scene(workspace, build)
