"""Automatic backups in a project's window, offscreen: opening it takes one on a worker thread
while the window goes on, an hour of edits takes another, a failure is shown in the status bar
with its cause, Options turns them off, closing leaves no half file. (The project manager's
restore in two clicks is in test_project_manager.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from storyloom.app.auto_backups import backups_dir, list_backups
from storyloom.gui.main_window import open_project_window
from tests.gui.support import first_document

pytestmark = pytest.mark.slow  # waits for backups taken off the GUI thread


def _backup_text(window) -> str:  # type: ignore[no-untyped-def]
    return window.status.backup.label.text() if window.status.backup.isVisible() else ""


def test_opening_a_project_takes_a_backup_off_the_gui_thread(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    project_id = window.session.id
    assert list_backups(project_id) == []  # opening itself wrote nothing: the window comes first
    qtbot.waitUntil(lambda: len(list_backups(project_id)) == 1 and _backup_text(window).startswith("Backed up"),
                    timeout=20_000)
    backup = list_backups(project_id)[0]
    assert backup.path.parent == backups_dir(project_id) and backup.size > 100_000
    assert str(backup.path) in window.status.backup.toolTip()
    assert window.auto_backups.task is None
    # Typing goes on while a backup is written: an hour later, with an edit, the next one starts
    # on its worker and the editor takes keys meanwhile.
    clock = [datetime.now(UTC) + timedelta(hours=1, minutes=1)]
    window.auto_backups.schedule.clock = lambda: clock[0]
    window.open_document(first_document(window, "Script"))
    editor = window.tabs.current_editor()
    editor.text.setFocus()
    window.auto_backups.schedule.changed()
    task = window.auto_backups.check()
    assert task is not None and _backup_text(window) == "Backing up…"  # returned at once, still writing
    qtbot.keyClicks(editor.text, "Typed while backing up")
    assert "Typed while backing up" in editor.text.toPlainText()
    qtbot.waitUntil(lambda: len(list_backups(project_id)) == 2 and window.auto_backups.task is None, timeout=20_000)
    assert _backup_text(window).startswith("Backed up")
    assert window.auto_backups.check() is None  # no more within the hour
    window.close()


def test_a_failure_is_shown_with_its_cause_and_the_app_goes_on(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    project_id = workspace.manager.find(garden).id
    blocked = backups_dir(project_id)
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("a file where the backups' folder belongs")  # the folder cannot be made
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: _backup_text(window).startswith("Backup failed"), timeout=20_000)
    assert _backup_text(window) == "Backup failed: File exists"
    tip = window.status.backup.toolTip()
    assert str(blocked) in tip and "earlier backups are kept" in tip and "tries again" in tip
    assert window.isVisible() and not window.session.closed
    assert window.open_document(first_document(window, "Script"))  # the window goes on
    assert window.auto_backups.check() is None  # not at every check: it tries again a little later
    window.close()


def test_turned_off_in_options_none_is_taken(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    dialog = window.show_options()
    assert dialog.backups_keep.value() == 10 and dialog.backups_keep.specialValueText() == "Off"
    dialog.backups_keep.setValue(0)
    assert dialog.save()
    assert workspace.options.auto_backups_keep == 0
    assert window.auto_backups.check() is None and not window.status.backup.isVisible()
    qtbot.wait(3500)  # past the first check after opening
    assert list_backups(window.session.id) == []
    window.close()


def test_closing_while_a_backup_is_written_leaves_no_half_file(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    project_id = window.session.id
    task = window.auto_backups.check()
    assert task is not None
    with qtbot.waitSignal(window.closed, timeout=20_000):
        window.close()
    assert window.session.closed and task.isFinished()
    folder = backups_dir(project_id)
    leftovers = [p.name for p in folder.iterdir()] if folder.exists() else []
    # Either it was complete before the close, or nothing of it is left.
    assert all(not name.endswith(".tmp") for name in leftovers)
    assert len(list_backups(project_id)) == len(leftovers)
