"""Project Settings > Remote Replication and joining, offscreen, against a real pouchdb-server
(TeamCouch: the lock rules work on replicated writes as on CouchDB): the fields checked as typed,
the easy set-up run from the page, the server check's lines, an invitation with its join
instructions, refusals with their cause and what to do, and a second STORYLOOM_HOME joining
the project from the project manager and opening it with its documents."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from storyloom.app import AppOptions, Workspace
from storyloom.app.views.remote_form import ReportLine
from storyloom.gui.remote_dialogs import InviteDialog, JoinDialog
from storyloom.gui.remote_settings_page import RemoteSettingsPage
from storyloom.gui.sidebar import SETTINGS
from storyloom.project.remote_settings import load_remote_settings
from storyloom.sync import RemoteDatabase, push
from storyloom.sync.server_setup import LOCK_DESIGN_ID
from tests.support.couch import unique_db_name
from tests.team.lock_clients import TeamCouch

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def team_couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamCouch]:
    server = TeamCouch(tmp_path_factory.mktemp("team-couch"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(window: Any, team_couch: TeamCouch) -> RemoteSettingsPage:
    team_couch.ensure_running()
    window.sidebar.select(SETTINGS)
    editor = window.tabs.current_editor()
    editor.show_remote_page()
    assert editor.pages.currentWidget() is editor.remote_page
    return editor.remote_page


def fill(qtbot: Any, page: RemoteSettingsPage, *, server: str, database: str, username: str, password: str,
         mode: str = "easy") -> None:
    if not page.enabled.isChecked():
        page.enabled.setChecked(True)
    for edit, text in ((page.server, server), (page.database, database), (page.username, username),
                       (page.password, password)):
        edit.clear()
        qtbot.keyClicks(edit, text)
    page.mode_buttons[mode].setChecked(True)


def wait_idle(qtbot: Any, page: Any) -> None:
    qtbot.waitUntil(lambda: page.task is None, timeout=TIMEOUT_MS)


def lines_by_name(page: RemoteSettingsPage) -> dict[str, ReportLine]:
    return {line.name: line for line in page.report.lines}


def shown_texts(page: RemoteSettingsPage) -> str:
    return " ".join(f"{line.detail} {line.fix}" for line in page.report.lines) + " " + page.banner.label.text()


@pytest.mark.integration
def test_fields_are_checked_as_typed(qtbot: Any, page: RemoteSettingsPage) -> None:
    assert not page.enabled.isChecked() and not page.fields.isEnabled()
    page.enabled.setChecked(True)
    assert page.fields.isEnabled()
    qtbot.keyClicks(page.server, "ftp://couch.example.com")
    message = page.messages["server"]
    assert message.isVisible() and "'ftp://'" in message.text() and "http:// or https://" in message.text()
    page.server.clear()
    qtbot.keyClicks(page.server, "http://couch.example.com")
    assert page.messages["server"].property("level") == "warning" and "use https://" in page.messages["server"].text()
    assert page.database.placeholderText() == "app_v2_garden"
    assert "Left empty: 'app_v2_garden'" in page.messages["database"].text()
    qtbot.keyClicks(page.database, "Garden@Team")
    assert "'@' at position 7 is not allowed" in page.messages["database"].text()
    assert page.database.property("invalid") == "true"
    page.database.clear()
    qtbot.keyClicks(page.database, "GardenTeam")
    assert page.messages["database"].property("level") == "note"
    assert "'GardenTeam' becomes 'gardenteam'" in page.messages["database"].text()
    # An empty field is not an error before Save is tried; then it is.
    assert not page.messages["username"].isVisible()
    assert page.save_button.isEnabled() and page.state.text() == "Unsaved changes"
    assert not page.save()
    assert page.messages["username"].isVisible() and "user name" in page.messages["username"].text()
    assert load_remote_settings(page.session.project.store) is None
    # The mode's sentence and the interval follow the choices.
    page.live.setChecked(True)
    assert not page.interval.isEnabled()
    page.mode_buttons["advanced"].setChecked(True)
    assert not page.invite_button.isEnabled()


@pytest.mark.integration
def test_easy_setup_check_invite_and_join_from_another_home(
    qtbot: Any, window: Any, page: RemoteSettingsPage, team_couch: TeamCouch, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = unique_db_name("garden")
    admin, admin_password = team_couch.admin
    owner, owner_password = "ada-" + db[-6:], "ada-owner-pw"
    fill(qtbot, page, server=team_couch.url, database=db, username=owner, password=owner_password)
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    settings = load_remote_settings(window.session.project.store)
    assert settings is not None and (settings.server, settings.database, settings.username) == (
        team_couch.url, db, owner)
    assert window.session.remote.password() == owner_password
    assert page.password.text() == "" and "kept in the file" in page.messages["password"].text()
    assert window.session.sync.running
    assert page.state.text().startswith("Saved. Syncing with")

    # Drafft teammates: a wrong origin is named and blocks Set up; a right one is turned on by it.
    qtbot.keyClicks(page.cors_origins, "*")
    assert page.cors_error.isVisible() and "every web site" in page.cors_error.text()
    assert not page.setup_button.isEnabled()
    page.cors_origins.clear()
    qtbot.keyClicks(page.cors_origins, "file://")
    assert not page.cors_error.isVisible() and page.setup_button.isEnabled()

    # Set up (easy mode): the owner does not exist yet, so the page asks for a server admin's account.
    page.setup_button.click()
    assert page.task is not None and page.banner.kind == "busy"
    qtbot.waitUntil(lambda: page.admin_dialog is not None and page.admin_dialog.isVisible(), timeout=TIMEOUT_MS)
    dialog = page.admin_dialog
    assert "Set up creates that user when it is absent" in dialog.message.text()
    assert "--admin" not in dialog.message.text() and "never kept" in dialog.findChild(QLabel, "adminNote").text()
    assert not dialog.continue_button.isEnabled()
    qtbot.keyClicks(dialog.fields.name, admin)
    qtbot.keyClicks(dialog.fields.password, admin_password)
    dialog.continue_button.click()
    # Each step listed as it is done: the owner's user, the owners, the database, the project sent.
    qtbot.waitUntil(lambda: page.task is None and page.banner.kind == "success", timeout=TIMEOUT_MS)
    assert [line.name for line in page.report.lines] == [
        "server", "database", "owner", "owners", "members", "lock rules", "replicated writes", "cors",
        "project"]
    assert "Set-up complete" in page.banner.label.text()
    security = team_couch.request("GET", f"/{db}/_security").json()
    assert owner in security["members"]["names"] and owner in security["admins"]["names"]
    assert team_couch.get_doc(db, LOCK_DESIGN_ID).status_code == 200
    assert team_couch.get_doc(db, "ProjectSettings").status_code == 200
    assert page.admin is not None and page.admin.username == admin  # in memory for the invitation
    assert admin_password not in load_remote_settings(window.session.project.store).to_json().values()

    # Check server: a readable list, every line ok or a warning, each in the app's words.
    page.check_button.click()
    wait_idle(qtbot, page)
    lines = lines_by_name(page)
    assert "admin" not in lines and "is the project's owner" in lines["owner"].detail
    for name in ("reachable", "tls", "credentials", "owner", "database", "member", "project", "lock rules",
                 "replicated writes", "require_valid_user"):
        assert lines[name].status == "ok", lines[name]
    assert lines["project"].title == "Project"
    assert any(text in lines["project"].detail for text in ("No project in the database yet", "holds this project"))
    assert not any(line.status == "fail" for line in page.report.lines)
    assert "storyloom remote" not in shown_texts(page) and "--" not in shown_texts(page)
    assert page.report.isVisible() and "Server check of" in page.report.full_text
    page.report.copy()
    assert QApplication.clipboard().text() == page.report.full_text

    # Invite teammate…: an account and membership, the instructions with the password, Copy.
    bob = "bob-" + db[-6:]
    dialog = page.invite()
    assert isinstance(dialog, InviteDialog)
    qtbot.keyClicks(dialog.username, "_bob")
    assert not dialog.invite_button.isEnabled() and "'_'" in dialog.error.text()
    dialog.username.clear()
    qtbot.keyClicks(dialog.username, bob)
    dialog.drafft.setChecked(True)  # bob uses Drafft: what to type there too
    dialog.invite_button.click()
    qtbot.waitUntil(lambda: dialog.invitation is not None, timeout=TIMEOUT_MS)
    invitation = dialog.invitation
    assert invitation is not None and invitation.password
    text = dialog.text.toPlainText()
    assert invitation.password in text and team_couch.db_url(db) in text and bob in text
    assert f"Options > Username: {bob}" in text and f"Database name: {db}" in text
    dialog.copy_button.click()
    assert QApplication.clipboard().text() == text
    session = httpx.get(team_couch.url + "/_session", auth=(bob, invitation.password)).json()
    assert session["userCtx"]["name"] == bob
    dialog.invite_button.click()  # Done

    # A lost invitation: a new password for the same account; the old one stops working.
    again = page.invite()
    qtbot.keyClicks(again.username, bob)
    again.reset.setChecked(True)
    again.invite_button.click()
    qtbot.waitUntil(lambda: again.invitation is not None, timeout=TIMEOUT_MS)
    assert again.invitation.reset and again.invitation.password != invitation.password
    assert "new password" in again.result_label.text()
    assert httpx.get(team_couch.url + "/_session", auth=(bob, invitation.password)).status_code == 401
    invitation = again.invitation
    again.invite_button.click()  # Done

    # Without the admin's account in memory (a new page), the dialog asks for it in place.
    asking = InviteDialog(window.session, page)
    qtbot.addWidget(asking)
    asking.show()
    qtbot.keyClicks(asking.username, "cleo-" + db[-6:])
    asking.invite_button.click()
    qtbot.waitUntil(lambda: asking.task is None and asking.admin_fields.isVisible(), timeout=TIMEOUT_MS)
    assert asking.invitation is None and "server admin's account" in asking.error.text()
    assert not asking.invite_button.isEnabled()
    qtbot.keyClicks(asking.admin_fields.name, admin)
    qtbot.keyClicks(asking.admin_fields.password, admin_password)
    assert asking.invite_button.isEnabled()
    asking.invite_button.click()
    qtbot.waitUntil(lambda: asking.invitation is not None, timeout=TIMEOUT_MS)
    assert asking.invitation.password and asking.admin is not None
    asking.invite_button.click()  # Done

    # The sync service pushed the project; this machine closes it before the other one joins.
    assert window.session.sync.wait_for(lambda s: s.kind == "idle" and s.pending == 0, timeout=60), \
        window.session.sync.state
    expected = {s.id for s in window.session.index.summaries()}
    window.close()

    # Another machine (its own STORYLOOM_HOME) joins from the project manager and opens it.
    home_b = tmp_path / "home-b"
    home_b.mkdir()
    monkeypatch.setenv("STORYLOOM_HOME", str(home_b))
    from storyloom.gui.project_manager import ProjectManagerWindow

    workspace_b = Workspace(home_b / "projects", options=AppOptions(username="bob"))
    manager = ProjectManagerWindow(workspace_b)
    qtbot.addWidget(manager)
    try:
        join = manager.join_from_server()
        assert isinstance(join, JoinDialog)
        assert not join.join_button.isEnabled()
        qtbot.keyClicks(join.url, team_couch.url)
        assert "end with the database name" in join.errors["url"].text()
        join.url.clear()
        qtbot.keyClicks(join.url, team_couch.db_url(db))
        qtbot.keyClicks(join.username, bob)
        qtbot.keyClicks(join.password, "wrong-password")
        join.join_button.click()
        qtbot.waitUntil(lambda: join.task is None and join.refusal is not None, timeout=TIMEOUT_MS)
        assert join.refusal.problem != "internal" and "password" in join.error.text()
        assert workspace_b.manager.list() == []
        join.password.clear()
        qtbot.keyClicks(join.password, invitation.password)
        progress: list[str] = []
        join._moved.moved.connect(lambda done, total: progress.append(f"{done}/{total}"))
        join.join_button.click()
        qtbot.waitUntil(lambda: bool(manager.windows), timeout=TIMEOUT_MS)
        assert progress and progress[-1].split("/")[0] != "0"
        [opened] = manager.windows.values()
        assert opened.session.name == "Garden"
        ids = {s.id for s in opened.session.index.summaries()}
        assert expected <= ids
        clone_settings = load_remote_settings(opened.session.project.store)
        assert clone_settings is not None and (clone_settings.username, clone_settings.database) == (bob, db)
        assert "Joined “Garden”" in manager.banner.label.text()
        opened.close()
    finally:
        for project_window in list(manager.windows.values()):
            project_window.close()
        manager.prepare_to_quit()
        manager.close()
        workspace_b.close()


@pytest.mark.integration
def test_refusals_say_the_cause_and_what_to_do(
    qtbot: Any, window: Any, page: RemoteSettingsPage, team_couch: TeamCouch, tmp_path: Path,
) -> None:
    admin, admin_password = team_couch.admin
    # Wrong password: the check's sign-in line fails with its fix; Set up is refused.
    db = unique_db_name("refused")
    fill(qtbot, page, server=team_couch.url, database=db, username=admin, password="not-the-password")
    assert page.save()
    window.session.sync.stop()  # the status bar's business; here only the page's answers count
    page.check_button.click()
    wait_idle(qtbot, page)
    credentials = lines_by_name(page)["credentials"]
    assert credentials.status == "fail" and "type the user name and password again above" in credentials.fix.lower()
    page.setup_button.click()
    # Not signed in: either a new owner (set-up creates it with an admin's account) or a wrong
    # password; the dialog says both, in the app's words.
    qtbot.waitUntil(lambda: page.admin_dialog is not None and page.admin_dialog.isVisible(), timeout=TIMEOUT_MS)
    message = page.admin_dialog.message.text()
    assert "refuses the user name 'admin'" in message and "check its password above" in message
    assert "storyloom remote" not in message and "--admin" not in message
    page.admin_dialog.reject()
    wait_idle(qtbot, page)

    # Not a member (advanced mode): Set up lists what an admin must do; the check says it too.
    member_db = unique_db_name("members")
    team_couch.create_db(member_db)
    team_couch.set_security(member_db, members=["someone-else"])
    carol = "carol-" + member_db[-6:]
    team_couch.create_user(carol, "carol-pw")
    fill(qtbot, page, server=team_couch.url, database=member_db, username=carol, password="carol-pw",
         mode="advanced")
    page.setup_button.click()  # saves first
    wait_idle(qtbot, page)
    assert load_remote_settings(window.session.project.store).mode == "advanced"
    names = [line.name for line in page.report.lines]
    assert names[:2] == ["missing", "missing"] and names[-1] == "requests"
    assert f"{carol!r} is not a member" in page.report.lines[0].detail
    assert "curl -u ADMIN -X PUT" in page.report.lines[-1].fix and "_security" in page.report.full_text
    page.check_button.click()
    wait_idle(qtbot, page)
    member = lines_by_name(page)["member"]
    assert member.status == "fail" and "not a member" in member.detail.lower()
    assert "ask an admin to add you and keep the other members" in member.fix.lower()

    # Another project's database: the check names the project and the ways out.
    other_db = unique_db_name("other")
    other = window.workspace.manager.create("Somebody Else's Story")
    try:
        with RemoteDatabase(team_couch.db_url(other_db), username=admin, password=admin_password) as remote:
            assert push(other.store, remote).ok
    finally:
        other.close()
    fill(qtbot, page, server=team_couch.url, database=other_db, username=admin, password=admin_password)
    page.check_button.click()
    wait_idle(qtbot, page)
    project = lines_by_name(page)["project"]
    assert project.status == "fail"
    assert "another project, \"Somebody Else's Story\"" in project.detail
    assert "choose another database name" in project.fix.lower() and "Join a project from a server" in project.fix


@pytest.mark.slow
def test_team_menu_opens_the_remote_page(window: Any) -> None:
    action = window.remote_settings_action
    team = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Team")
    assert action in team.actions() and team.actions()[0] is action
    action.trigger()
    editor = window.tabs.current_editor()
    assert editor.pages.currentWidget() is editor.remote_page
    assert isinstance(editor.remote_page, RemoteSettingsPage)


@pytest.mark.integration
def test_a_cancelled_join_keeps_nothing(team_couch: TeamCouch, tmp_path: Path) -> None:
    import threading

    from storyloom.app.clone import CloneError, clone_project

    team_couch.ensure_running()
    db = unique_db_name("cancelled")
    admin, admin_password = team_couch.admin
    source = Workspace(tmp_path / "a" / "projects", options=AppOptions(username="ana"))
    target = Workspace(tmp_path / "b" / "projects", options=AppOptions(username="bob"))
    try:
        with source.manager.create("To Cancel") as project, RemoteDatabase(
                team_couch.db_url(db), username=admin, password=admin_password) as remote:
            assert push(project.store, remote).ok
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(CloneError, match="cancelled, nothing was kept"):
            clone_project(target, team_couch.db_url(db), admin, admin_password, cancel=cancel)
        assert target.manager.list() == []
        result = clone_project(target, team_couch.db_url(db), admin, admin_password, cancel=threading.Event())
        assert result.name == "To Cancel" and [info.name for info in target.manager.list()] == ["To Cancel"]
    finally:
        source.close()
        target.close()
