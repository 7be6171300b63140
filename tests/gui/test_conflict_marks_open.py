"""A project window opens without reading every conflict on the GUI thread (issue 28: a big
project opens at once): the first read runs on a worker, its marks appear when it is done, and a
change that arrives meanwhile is followed after it."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt

from storyloom.app import Workspace
from storyloom.app.views import conflict_flags
from storyloom.gui.main_window import open_project_window
from tests.support.two_stores import edit_elsewhere


def _conflicted_script(workspace: Workspace, project: str, tmp_path: Path) -> str:
    """A script of ``project`` left in conflict (another machine's edit of its first revision)."""
    opened = workspace.manager.open(project)
    try:
        doc_id = opened.editor.create("Script", "Quarrel", content={"script": "::Ann:: Hello.\n"}).id
        start = opened.db.get(doc_id)["_rev"]
        opened.editor.patch(doc_id, {"content": {"script": "::Ann:: Hello, mine.\n"}})
        edit_elsewhere(opened.store, doc_id, "bob", tmp_path / "elsewhere", from_rev=start,
                       content_script="::Ann:: Hello, bob's.\n")
    finally:
        opened.close()
    return doc_id


def test_the_first_read_of_conflicts_runs_off_the_gui_thread_and_its_marks_follow(
        qtbot, workspace: Workspace, garden: str, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    doc_id = _conflicted_script(workspace, garden, tmp_path)
    readers: list[threading.Thread] = []
    real = conflict_flags.list_conflicts

    def list_conflicts(db, doc_ids=None):  # type: ignore[no-untyped-def]
        if doc_ids is None:
            readers.append(threading.current_thread())
        return real(db, doc_ids)

    monkeypatch.setattr(conflict_flags, "list_conflicts", list_conflicts)
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    marks = window.conflict_marks
    marks.wait_until_read()
    assert readers and all(reader is not threading.main_thread() for reader in readers)
    flag = marks.flags.flag(doc_id)
    assert flag is not None and flag.kind == "conflict"
    window.explorer.reveal(doc_id)
    assert "In conflict: 2 versions" in window.explorer.model.index_of(doc_id).data(Qt.ItemDataRole.ToolTipRole)
    window.close()


def test_a_change_during_the_first_read_is_followed_after_it(
        qtbot, workspace: Workspace, garden: str, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A conflict that arrives while the first read runs (which did not see it) is flagged once
    the read is done."""
    release = threading.Event()
    real_read = conflict_flags.ConflictFlags.read

    def slow_read(self):  # type: ignore[no-untyped-def]
        found = real_read(self)
        release.wait(10)  # the read has been made; the conflict comes after it
        return found

    monkeypatch.setattr(conflict_flags.ConflictFlags, "read", slow_read)
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    marks = window.conflict_marks
    assert marks.reading
    editor = window.session.editor
    doc_id = editor.create("Script", "Late quarrel", content={"script": "::Ann:: Hi.\n"}).id
    start = window.session.db.get(doc_id)["_rev"]
    editor.patch(doc_id, {"content": {"script": "::Ann:: Hi, mine.\n"}})
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path / "late", from_rev=start,
                   content_script="::Ann:: Hi, bob's.\n")
    qtbot.waitUntil(lambda: bool(marks._waiting), timeout=10000)  # the remote change is held for later
    assert marks.flags.flag(doc_id) is None
    release.set()
    qtbot.waitUntil(lambda: marks.flags.flag(doc_id) is not None, timeout=10000)
    assert not marks.reading
    window.close()
