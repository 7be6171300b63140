"""A writer types while the disk is full (a real tmpfs): the editor says the disk is full, keeps
every character, and saves by itself once space is freed."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.drafft import import_backup
from tests.gui.support import GARDEN, first_document
from tests.support.small_disk import Filler, small_disk

pytestmark = pytest.mark.integration  # a tmpfs mount (root)


def test_the_editor_keeps_the_text_on_a_full_disk_and_saves_when_space_returns(qtbot, tmp_path: Path,
                                                                               monkeypatch) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextCursor

    from storyloom.gui.main_window import open_project_window

    with small_disk(tmp_path / "disk", "48m") as disk:
        monkeypatch.setenv("STORYLOOM_HOME", str(disk / "home"))
        workspace = Workspace(disk / "home" / "projects", options=AppOptions(username="tester"))
        project, _ = import_backup(workspace.manager, GARDEN, name="Garden")
        project.close()
        window = open_project_window(workspace, "Garden")
        qtbot.addWidget(window)
        filler = Filler(disk)
        try:
            doc_id = first_document(window, "Script")
            editor = window.tabs.open(doc_id)
            editor._retry_when_space.setInterval(200)
            qtbot.wait(500)  # the opening's own writes (open tabs, an automatic backup) settle
            filler.fill()
            editor.text.moveCursor(QTextCursor.MoveOperation.End)
            typed = "The tide will not wait for us."
            qtbot.keyClick(editor.text, Qt.Key.Key_Return)
            qtbot.keyClicks(editor.text, typed)
            assert editor.save() is False
            assert "is full" in editor.banner.label.text() and "saves by itself" in editor.banner.label.text()
            assert editor.dirty and editor.text.toPlainText().endswith(typed)
            qtbot.wait(600)  # retries on the full disk keep failing and keep the text
            assert editor.dirty and editor.text.toPlainText().endswith(typed)
            filler.free()
            qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
            assert window.session.db.get(doc_id)["content"]["script"].endswith(typed)
        finally:
            filler.free()
            window.close()
            workspace.close()
