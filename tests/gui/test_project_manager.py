"""The project manager window, offscreen: every intent reaches the project layer and the window
shows the result (rows, banner, empty state, dialogs)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMainWindow, QMessageBox, QWidget

from storyloom.app.auto_backups import take_backup
from storyloom.app.recent import RecentProjects
from storyloom.errors import StoryloomError
from storyloom.gui.project_manager import DOCUMENTS, NAME, ProjectManagerWindow, relative_time
from storyloom.gui.project_manager_dialogs import AutoBackupsDialog, ImportReportDialog, ProjectNameDialog
from storyloom.project.summary import project_summary
from tests.support.fixtures import DRAFFT_PROJECTS

SMALL_DRAFFT = DRAFFT_PROJECTS / "v1" / "one-bullet.json"


class FakeProjectWindow(QMainWindow):
    """What the manager needs of a main window: ``closed`` and ``session``."""

    closed = Signal()

    def __init__(self, project_id: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.session = object()

    def closeEvent(self, event):
        event.accept()
        self.closed.emit()


class Opener(QObject):
    def __init__(self, fail: Exception | None = None) -> None:
        super().__init__()
        self.calls: list[tuple[object, str]] = []
        self.windows: list[FakeProjectWindow] = []
        self.fail = fail

    def __call__(self, workspace, project, parent=None):
        self.calls.append((workspace, project))
        if self.fail is not None:
            raise self.fail
        window = FakeProjectWindow(project)
        self.windows.append(window)
        return window


@pytest.fixture
def opener():
    made = Opener()
    yield made
    for window in made.windows:
        window.close()
        window.deleteLater()


@pytest.fixture
def window(qtbot, workspace, opener):
    win = ProjectManagerWindow(workspace, opener=opener)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def when_modal(qtbot, handle: Callable[[QWidget], None]) -> list[QWidget]:
    """Run ``handle`` on the next modal dialog once it is shown (a dialog's exec() blocks the
    test until something closes it). Returns a list that holds the dialog once seen."""
    seen: list[QWidget] = []

    def poll() -> None:
        modal = QApplication.activeModalWidget()
        if modal is None or not modal.isVisible():
            QTimer.singleShot(20, poll)
            return
        seen.append(modal)
        handle(modal)

    QTimer.singleShot(0, poll)
    return seen


def names(win: ProjectManagerWindow) -> list[str]:
    return sorted(row.info.name for row in win.model.rows)


def test_an_empty_machine_shows_what_to_do(window):
    assert window.stack.currentWidget() is window.empty
    assert window.empty.title.text() == "No projects yet"
    assert "Ctrl+N" in window.empty.text.text() and "Drafft" in window.empty.text.text()
    assert not window.action_bar.isVisible()
    assert not window.open_action.isEnabled() and not window.delete_action.isEnabled()
    assert window.new_action.isEnabled() and window.import_action.isEnabled()
    assert not window.recent_heading.isVisible()


def test_create_through_the_dialog_lists_the_project_with_its_description(window, workspace, qtbot):
    def fill(dialog):
        assert isinstance(dialog, ProjectNameDialog)
        assert not dialog.accept_button.isEnabled()  # nothing typed yet
        qtbot.keyClicks(dialog.name_edit, "Goddess")
        dialog.description_edit.setPlainText("a story of fate")
        assert dialog.accept_button.isEnabled()
        dialog.accept_button.click()

    when_modal(qtbot, fill)
    window.new_action.trigger()
    info = workspace.manager.find("Goddess")
    assert project_summary(info).description == "a story of fate"
    assert window.stack.currentWidget() is window.table
    assert names(window) == ["Goddess"]
    assert window.selected_id() == info.id
    index = window.proxy.index(0, NAME)
    assert index.data() == "Goddess"
    assert window.proxy.index(0, DOCUMENTS).data() == "0"
    assert window.count_label.text() == "1 project"


def test_the_name_dialog_refuses_a_taken_name_inline(window, workspace, qtbot):
    workspace.manager.create("Goddess").close()
    window.refresh()
    seen = []

    def fill(dialog):
        qtbot.keyClicks(dialog.name_edit, "goddess")
        seen.append((dialog.accept_button.isEnabled(), dialog.error_label.text(), dialog.error_label.isVisible()))
        dialog.reject()

    when_modal(qtbot, fill)
    window.new_action.trigger()
    enabled, error, visible = seen[0]
    assert not enabled and visible
    assert "already exists" in error
    assert names(window) == ["Goddess"]


def test_rename_updates_the_store_the_list_and_the_recent_entry(window, workspace, qtbot):
    project = workspace.manager.create("Draft")
    project.close()
    RecentProjects().record(project.id, "Draft")
    window.refresh(select=project.id)

    def fill(dialog):
        dialog.name_edit.setText("Final")
        dialog.accept_button.click()

    when_modal(qtbot, fill)
    window.rename_action.trigger()
    assert workspace.manager.find(project.id).name == "Final"
    with workspace.manager.open(project.id) as opened:
        assert opened.settings()["projectName"] == "Final"
    assert names(window) == ["Final"]
    assert RecentProjects().entries()[0].name == "Final"


def _click(button_text: str) -> Callable[[QWidget], None]:
    def handle(box):
        assert isinstance(box, QMessageBox)
        for button in box.buttons():
            if button.text().replace("&", "") == button_text:
                button.click()
                return
        raise AssertionError(f"no button {button_text!r} in {[b.text() for b in box.buttons()]}")

    return handle


def test_delete_refused_keeps_the_project(window, workspace, qtbot):
    workspace.manager.create("Keep me").close()
    window.refresh()
    seen = when_modal(qtbot, _click("Cancel"))
    window.delete_action.trigger()
    assert seen and "Keep me" in seen[0].text()
    assert [p.name for p in workspace.manager.list()] == ["Keep me"]
    assert names(window) == ["Keep me"]


def test_delete_confirmed_removes_the_project_and_shows_the_empty_state(window, workspace, qtbot):
    project = workspace.manager.create("Goner")
    project.close()
    RecentProjects().record(project.id, "Goner")
    window.refresh()
    when_modal(qtbot, _click("Delete"))
    window.delete_action.trigger()
    assert workspace.manager.list() == []
    assert not project.path.exists()
    assert window.stack.currentWidget() is window.empty
    assert window.banner.kind == "success" and "Goner" in window.banner.label.text()
    assert RecentProjects().entries() == []


def test_importing_a_drafft_backup_runs_on_a_worker_and_ends_with_the_report(window, workspace, qtbot):
    assert SMALL_DRAFFT.exists(), f"Drafft sample missing: {SMALL_DRAFFT}"
    reports = []

    def close_report(dialog):
        assert isinstance(dialog, ImportReportDialog)
        reports.append((dialog.summary.text(), dialog.details.toPlainText()))
        dialog.buttons.button(QDialogButtonBox.StandardButton.Close).click()

    when_modal(qtbot, close_report)
    window.start_import(SMALL_DRAFFT)
    # While the import runs: a busy banner, and no second long task can start.
    assert window.banner.isVisible() and window.banner.kind == "busy"
    assert window.banner.progress.isVisible()
    assert not window.import_action.isEnabled() and not window.restore_action.isEnabled()
    qtbot.waitUntil(lambda: bool(reports), timeout=60_000)
    assert window.task is None  # the worker thread ended (the window waits for it)
    summary_text, details = reports[0]
    assert "one-bullet.json" in summary_text and "documents imported" in summary_text
    assert "Imported one-bullet.json" in details
    [info] = workspace.manager.list()
    summary = project_summary(info)
    assert summary.documents and summary.documents > 10
    assert window.selected_id() == info.id
    row = window.proxy.mapFromSource(window.model.index(0, DOCUMENTS))
    assert row.data() == f"{summary.documents:,}"
    assert window.import_action.isEnabled()
    assert window.opener.calls == []  # "Close" does not open the project


def test_a_file_that_is_not_a_backup_is_an_inline_error(window, workspace, qtbot, tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text("not json")
    window.start_import(bad)
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)
    assert window.banner.kind == "error"
    assert "notes.json" in window.banner.label.text() and "Traceback" not in window.banner.label.text()
    assert workspace.manager.list() == []


def test_backup_then_restore_offers_a_copy_when_the_project_exists(window, workspace, qtbot, tmp_path):
    project = workspace.manager.create("Saga", "the original")
    project.close()
    window.refresh()
    target = tmp_path / "saga.json"
    window.start_backup(project.id, target)
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)
    assert target.exists() and window.banner.kind == "success"
    window.start_restore(target)
    qtbot.waitUntil(lambda: window.task is None, timeout=30_000)
    assert window.banner.kind == "error" and window.banner.action.text() == "Restore as a copy"
    window.banner.action.click()
    qtbot.waitUntil(lambda: window.task is None and len(workspace.manager.list()) == 2, timeout=30_000)
    assert names(window) == ["Saga", "Saga (2)"]
    assert window.banner.kind == "success" and "Saga (2)" in window.banner.label.text()
    copy = workspace.manager.find("Saga (2)")
    assert copy.id != project.id and project_summary(copy).description == "the original"


def test_double_click_opens_through_the_opener_and_the_list_returns_when_it_closes(window, workspace, qtbot):
    project = workspace.manager.create("Quest log")
    project.close()
    window.refresh()
    index = window.proxy.index(0, NAME)
    rect = window.table.visualRect(index)
    # A real double-click starts with a press (the view opens the item it pressed).
    qtbot.mousePress(window.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(window.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.opener.calls == [(workspace, project.id)]
    assert not window.isVisible()
    assert RecentProjects().entries()[0].id == project.id
    [opened] = window.opener.windows
    assert window.windows == {project.id: opened}
    # Opening again brings the same window forward.
    assert window.open_project("Quest log")
    assert len(window.opener.calls) == 1
    opened.close()
    assert window.isVisible()
    assert window.windows == {}
    # The recent list now offers it, and Ctrl+R reopens it.
    assert window.recent_heading.isVisible()
    window.reopen_action.trigger()
    assert len(window.opener.calls) == 2


def test_enter_opens_the_selected_project(window, workspace, qtbot):
    project = workspace.manager.create("Keyboard")
    project.close()
    window.refresh()
    window.table.setFocus()
    window.table.setCurrentIndex(window.proxy.index(0, NAME))
    qtbot.keyClick(window.table, Qt.Key.Key_Return)
    assert [call[1] for call in window.opener.calls] == [project.id]


def test_an_opener_failure_is_shown_in_the_banner(qtbot, workspace):
    failing = Opener(fail=StoryloomError("project 'Busy' is already open; use its session, or close it first"))
    win = ProjectManagerWindow(workspace, opener=failing)
    qtbot.addWidget(win)
    workspace.manager.create("Busy").close()
    win.refresh()
    win.show()
    assert not win.open_project("Busy")
    assert win.isVisible()
    assert win.banner.kind == "error" and "already open" in win.banner.label.text()
    assert win.windows == {}


def test_the_filter_narrows_the_list(window, workspace):
    for name in ("Alpha", "Beta", "Gamma"):
        workspace.manager.create(name).close()
    window.refresh()
    window.filter_edit.setText("amm")
    assert window.proxy.rowCount() == 1 and window.proxy.index(0, NAME).data() == "Gamma"
    window.filter_edit.clear()
    assert window.proxy.rowCount() == 3


def test_relative_times_read_as_people_say_them():
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert relative_time(now - timedelta(seconds=5), now) == "just now"
    assert relative_time(now - timedelta(minutes=5), now) == "5 minutes ago"
    assert relative_time(None, now) == "—"
    assert "2024" in relative_time(datetime(2024, 1, 2, tzinfo=UTC), now)


def test_the_sample_story_is_one_click_away_and_opens_clean(window, workspace, qtbot):
    assert window.stack.currentWidget() is window.empty  # offered in the empty state too
    window.create_sample()
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    (info,) = workspace.manager.list()
    assert info.name == "The Lighthouse Keeper"
    assert window.selected_id() == info.id
    with workspace.manager.open(info.id) as project:
        assert project.db.info()["doc_count"] > 40
    window.create_sample()  # a second one gets a name of its own
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)
    assert sorted(p.name for p in workspace.manager.list()) == ["The Lighthouse Keeper", "The Lighthouse Keeper (2)"]


def test_an_automatic_backup_restores_in_two_clicks(window, workspace, qtbot):
    now = datetime.now(UTC).replace(microsecond=0)
    with workspace.manager.create("Saga", "the original") as project:
        project.editor.create("Script", "Prologue")
        take_backup(project, 10, now=now - timedelta(hours=2))
        project.editor.create("Script", "Chapter 1")
        newest = take_backup(project, 10, now=now - timedelta(minutes=5))
        project.editor.create("Script", "Written after the backups")
        saga = project.id
    window.refresh(select=saga)

    def restore(dialog) -> None:  # type: ignore[no-untyped-def]
        assert isinstance(dialog, AutoBackupsDialog)
        qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)  # second click: the newest is chosen

    seen = when_modal(qtbot, restore)
    qtbot.mouseClick(window.buttons["auto-backups"], Qt.MouseButton.LeftButton)  # first click
    dialog = seen[0]
    assert dialog.list.topLevelItemCount() == 2 and dialog.list.topLevelItem(0).text(2) == newest.size_text()
    expected = f"Saga (backup {newest.local_time()})"
    qtbot.waitUntil(lambda: window.task is None and len(workspace.manager.list()) == 2, timeout=30_000)
    restored = workspace.manager.find(expected)
    assert restored.id != saga
    assert window.selected_id() == restored.id  # selected once restored
    assert window.banner.kind == "success" and expected in window.banner.label.text()
    with workspace.manager.open(restored.id) as copy:
        names = {s.name for s in copy.editor.index.summaries() if s.type == "Script"}
    assert names == {"Prologue", "Chapter 1"}  # the backup's content, not what was written after


def test_the_automatic_backups_dialog_without_backups_says_what_happens(qtbot):
    dialog = AutoBackupsDialog("Saga", [], 10, lambda backup: "")
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.empty.isVisible() and not dialog.list.isVisible()
    assert dialog.empty.title.text() == "No automatic backups yet"
    assert not dialog.restore_button.isEnabled() and dialog.chosen() is None
    off = AutoBackupsDialog("Saga", [], 0, lambda backup: "")
    qtbot.addWidget(off)
    assert "off" in off.policy.text() and "Options" in off.policy.text()
