"""Screenshots of the document info drawer (``revisions``) and the merge view (``merge-view``),
from a real two-user situation: a pouchdb-server started here (``tools/peers.py``'s
:class:`CouchServer`, stopped when the window closes), Ada's project window (the Drafft garden
sample) and Bob's machine (a store of his own, with his own account on the server). They
replicate through the server; for the merge, both edit the same script without syncing, then
sync, and Ada opens the conflict."""

from __future__ import annotations

import atexit
import copy
import shutil
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow
from storyloom.project.editor import Editor
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull, push
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window

PASSWORDS = {"ada": "ada-secret", "bob": "bob-secret"}


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


class Team:
    """The server, Ada's window and Bob's machine, each with a client of the shared database."""

    def __init__(self, workspace: Workspace) -> None:
        from tools.peers import CouchServer  # the checkout's test server (tools/peers.py)

        self.folder = Path(tempfile.mkdtemp(prefix="storyloom-shot-team-"))
        self.server = CouchServer(self.folder / "server")
        atexit.register(self.stop)
        self.server.start()
        name = self.server.create_db("garden-team")
        for user, password in PASSWORDS.items():
            self.server.create_user(user, password)
        self.server.set_security(name, members=list(PASSWORDS))
        self.window: MainWindow = _window(workspace)
        self.window.closed.connect(self.stop)
        self.ada = RemoteDatabase(self.server.db_url(name), username="ada", password=PASSWORDS["ada"])
        self.bob = RemoteDatabase(self.server.db_url(name), username="bob", password=PASSWORDS["bob"])
        self.bob_db = Database(str(self.folder / "bob.sqlite"))
        self.bob_editor = Editor(self.bob_db, username="Bob")

    @property
    def store(self) -> Any:
        return self.window.session.project.store

    def ada_syncs(self) -> None:
        push(self.store, self.ada)
        pull(self.ada, self.store)
        self.window.session.wait_for_events(5.0)
        _settle()

    def ada_syncs_pull_only(self) -> None:
        pull(self.ada, self.store)
        self.window.session.wait_for_events(5.0)
        _settle()

    def bob_syncs(self) -> None:
        push(self.bob_db, self.bob)
        pull(self.bob, self.bob_db)

    def script(self) -> str:
        editor = self.window.tabs.current_editor()
        assert editor is not None
        return editor.doc_id

    def ada_edits(self, doc_id: str, **fields: Any) -> None:
        editor = self.window.tabs.current_editor()
        if editor is not None:
            editor.stop()
        self.window.session.editor.patch(doc_id, fields)
        self.window.session.wait_for_events(5.0)
        _settle()

    def bob_edits(self, doc_id: str, **fields: Any) -> None:
        doc = copy.deepcopy(self.bob_editor.get(doc_id))
        doc.update(fields)
        self.bob_editor.update(doc)

    def stop(self) -> None:
        for client in (getattr(self, "ada", None), getattr(self, "bob", None)):
            if client is not None:
                client.close()
        if getattr(self, "bob_db", None) is not None:
            self.bob_db.close()
            self.bob_db = None  # type: ignore[assignment]
        self.server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _replace(text: str, old: str, new: str) -> str:
    return text.replace(old, new, 1) if old in text else text + new + "\n"


FIRST = "::Woman:: I knew you would come back. In my heart, I always knew."


@register("revisions")
def revisions(workspace: Workspace, out_dir: Path) -> QWidget:
    team = Team(workspace)
    doc_id = team.script()
    team.ada_syncs()
    team.bob_syncs()
    script = team.window.session.db.get(doc_id)["content"]["script"]
    team.ada_edits(doc_id, content={"script": _replace(script, FIRST, FIRST.replace("I always knew", "I knew"))})
    team.ada_syncs()
    team.bob_syncs()
    bob_doc = team.bob_editor.get(doc_id)
    team.bob_edits(doc_id, content={"script": _replace(bob_doc["content"]["script"], "You unlocked",
                                                       "Look at you. You unlocked")},
                   comments="Bob: warmer opening for the ending.")
    team.bob_syncs()
    team.ada_syncs()
    latest = team.window.session.db.get(doc_id)["content"]["script"].rstrip("\n")
    team.ada_edits(doc_id, name="Reflection (Ending)", color="#d9912a",
                   content={"script": latest + "\n::Narrator:: The garden falls quiet.\n"})
    team.ada_syncs()
    window = team.window
    window.info_drawer.toggleViewAction().trigger()
    window.resizeDocks([window.info_drawer], [420], Qt.Orientation.Horizontal)
    _settle()
    drawer = window.info_drawer
    drawer.revisions.setCurrentRow(min(1, drawer.revisions.count() - 1))  # Bob's revision
    return window


@register("merge-view")
def merge_view(workspace: Workspace, out_dir: Path) -> QWidget:
    team = Team(workspace)
    doc_id = team.script()
    _offline_conflict(team, doc_id)
    window = team.window
    view = window.conflict_marks.open_merge(doc_id)
    if view is None:
        return window
    view.setParent(None)  # the merge view alone, at the window's size
    view.resize(window.size())
    view.show()
    _settle()
    card = next((c for c in view.cards if c.row.path == "content.script"), None)
    if card is not None:
        view.scroll.ensureWidgetVisible(card, 0, 0)
        card.go(0)  # type: ignore[attr-defined]
    return view


class _DropTypingOnClose(QObject):
    """Takes their version before the window closes (after the picture), so that closing asks
    nothing about the text typed for the picture."""

    def __init__(self, editor: Any, parent: QObject) -> None:
        super().__init__(parent)
        self.editor = editor

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and self.editor.dirty:
            self.editor.load_theirs()
        return False


def _offline_conflict(team: Team, doc_id: str) -> None:
    """Ada and Bob edit the same script without syncing, then both sync: a conflict on Ada's side."""
    team.ada_syncs()
    team.bob_syncs()
    script = team.window.session.db.get(doc_id)["content"]["script"]
    team.ada_edits(doc_id, color="#e07833", comments="Ada: trimmed the opening.",
                   content={"script": _replace(_replace(script, FIRST, "::Woman:: You came back. I knew you would."),
                                               "You unlocked", "Today you unlocked")})
    team.bob_edits(doc_id, color="#4c84f0", name="Reflection (Ending, warm)", tags=["ending", "act 3"],
                   content={"script": _replace(_replace(script, FIRST, "::Woman:: There you are. I never stopped "
                                                        "hoping."), "The pendant.", "The pendant, still warm.")})
    team.bob_syncs()
    team.ada_syncs()  # Ada's version reaches the server beside Bob's; Bob's comes back: a conflict
    team.bob_syncs()


@register("conflict-flagged")
def conflict_flagged(workspace: Workspace, out_dir: Path) -> QWidget:
    team = Team(workspace)
    doc_id = team.script()
    _offline_conflict(team, doc_id)
    team.window.explorer.reveal(doc_id)
    return team.window


@register("changed-remotely")
def changed_remotely(workspace: Workspace, out_dir: Path) -> QWidget:
    team = Team(workspace)
    doc_id = team.script()
    team.ada_syncs()
    team.bob_syncs()
    window = team.window
    editor = window.tabs.current_editor()
    text = getattr(editor, "text", None)
    if editor is None or text is None:
        return window
    typed = _replace(text.toPlainText(), "The pendant.", "The pendant. Take it, please.")
    text.setPlainText(typed)  # Ada types; before her autosave, Bob's edit arrives
    editor.stop()
    bob = team.bob_editor.get(doc_id)["content"]["script"]
    team.bob_edits(doc_id, content={"script": _replace(bob, FIRST, "::Woman:: There you are. I never stopped hoping.")})
    team.bob_syncs()
    team.ada_syncs_pull_only()
    window.installEventFilter(_DropTypingOnClose(editor, window))
    dialog = editor.show_changes()
    if dialog is not None:
        from tools.screenshots.main_window_shots import _overlay

        _overlay(window, dialog, top=150, fit=False)  # type: ignore[arg-type]
        dialog.resize(1000, 560)
        dialog.move((window.width() - 1000) // 2, 190)
        dialog.setStyleSheet("#changesDialog { background: palette(window); border: 1px solid palette(mid);"
                             " border-radius: 8px; }")
    return window
