"""Project Settings > Remote Replication without Qt: the fields checked as typed (scheme,
characters with their position, lowercase conversion, the default name), saving as `remote set`
does, the app's words for the domain's fixes, the join instructions and refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app.remote import RemoteAccess, RemoteNotConfigured
from storyloom.app.views import explain
from storyloom.app.views import remote_form as form
from storyloom.cli.explain import say as cli_say
from storyloom.errors import Fix
from storyloom.project.locks import TeamLocks
from storyloom.project.remote_settings import load_remote_settings
from storyloom.sync import AccessDenied, ProjectMismatch
from storyloom.sync.identity import Identity
from storyloom.sync.server_setup import Invitation
from tests.support.couch import free_port


@pytest.fixture
def session(storyloom_home: Path) -> Iterator[object]:
    workspace = Workspace(options=AppOptions(username="ana"))
    workspace.manager.create("The Lighthouse").close()
    opened = workspace.open_session("The Lighthouse")
    yield opened
    opened.close()
    workspace.close()


def values(**changes: object) -> form.RemoteValues:
    base = form.RemoteValues(enabled=True, server="https://couch.example.com", database="", username="ana",
                             password="secret")
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_a_complete_form_makes_the_settings_with_the_default_database() -> None:
    check = form.check_values("The Lighthouse", values())
    assert check.ok and check.blocking() == {}
    assert check.settings is not None
    assert (check.settings.server, check.settings.database, check.settings.username) == (
        "https://couch.example.com", "app_v2_the_lighthouse", "ana")
    assert check.messages["database"] == form.FieldMessage(
        "note", "Left empty: 'app_v2_the_lighthouse', from the project's name.")


def test_the_server_url_scheme_is_named() -> None:
    check = form.check_values("P", values(server="ftp://couch.example.com"))
    message = check.messages["server"]
    assert message.level == "error" and not check.ok
    assert "'ftp://'" in message.text and "http:// or https://" in message.text
    check = form.check_values("P", values(server="couch.example.com"))
    assert "has no scheme" in check.messages["server"].text
    check = form.check_values("P", values(server="http://ana:pw@couch.example.com"))
    text = check.messages["server"].text
    assert "User name and Password fields" in text and "--username" not in text


def test_plain_http_to_another_machine_is_a_warning_not_an_error() -> None:
    check = form.check_values("P", values(server="http://couch.example.com"))
    assert check.ok
    assert check.messages["server"].level == "warning" and "use https://" in check.messages["server"].text


def test_database_characters_are_named_with_their_position_and_uppercase_is_converted() -> None:
    check = form.check_values("P", values(database="team@home"))
    assert not check.ok
    assert check.messages["database"].level == "error"
    assert "'@' at position 5 is not allowed" in check.messages["database"].text
    check = form.check_values("P", values(database="1story"))
    assert "starts with '1' (position 1)" in check.messages["database"].text
    check = form.check_values("P", values(database="MyStory"))
    assert check.ok and check.settings is not None and check.settings.database == "mystory"
    assert check.messages["database"].level == "note"
    assert "converted to lowercase: 'MyStory' becomes 'mystory'" in check.messages["database"].text


def test_user_name_password_and_interval_rules() -> None:
    check = form.check_values("P", values(username="a:b"))
    assert "':' at position 2" in check.messages["username"].text
    check = form.check_values("P", values(username="", password=""))
    assert check.messages["username"].level == "required" and "password" not in check.messages
    check = form.check_values("P", values(password=""), kept=lambda server, user: False)
    assert check.messages["password"] == form.FieldMessage("required", "Type the password of 'ana' on the server.")
    check = form.check_values("P", values(password=""), kept=lambda server, user: (server, user) == (
        "https://couch.example.com", "ana"))
    assert check.ok
    check = form.check_values("P", values(interval=0.5))
    assert check.messages["interval"].level == "error"
    assert form.check_values("P", values(interval=0.5, live=True)).ok  # live: the interval is not used


def test_a_disabled_remote_keeps_its_settings_off() -> None:
    check = form.check_values("P", values(enabled=False, mode="advanced", live=True))
    assert check.settings is not None
    assert (check.settings.enabled, check.settings.mode, check.settings.live) == (False, "advanced", True)
    assert form.values_of(check.settings).mode == "advanced"
    assert form.values_of(None) == form.RemoteValues()


def test_saving_keeps_settings_and_password_and_the_session_follows(session: object) -> None:
    port = free_port()  # nobody listens: the sync service starts and finds the server offline
    check = form.save_values(session, values(server=f"http://127.0.0.1:{port}", database="Lighthouse"))
    assert check.ok
    settings = load_remote_settings(session.project.store)  # type: ignore[attr-defined]
    assert settings is not None and settings.database == "lighthouse" and settings.enabled
    access: RemoteAccess = session.remote  # type: ignore[attr-defined]
    assert access.password() == "secret"
    assert isinstance(session.editor.lock_policy, TeamLocks)  # type: ignore[attr-defined]
    assert session.sync.running  # type: ignore[attr-defined]
    assert form.password_kept(session)(settings.server, "ana")
    assert "kept in the file" in form.password_note(session)
    # Nothing typed in the password field: the kept one stays.
    check = form.save_values(session, values(server=f"http://127.0.0.1:{port}", password="", live=True))
    assert check.ok and access.password() == "secret"
    # A wrong field keeps nothing.
    check = form.save_values(session, values(server="ftp://x", password="other"))
    assert not check.ok and access.password() == "secret"


def test_the_domain_fixes_are_said_in_the_app_s_words() -> None:
    # The fixes the domain raises (once written as command lines the page rewrote) in the page's words.
    cases = {
        Fix("retype_credentials"): "type the user name and password again above, then Save",
        Fix("run_setup"): "press Set up",
        Fix("admin_or_advanced"): "sign in with a server admin's user name and password, or choose Advanced mode",
        Fix("advice", text="x"): "x",
    }
    for fix, expected in cases.items():
        assert explain.fix_words(fix, project="Lighthouse", on_page=True) == expected
    # The project a fix did not name is filled in.
    assert "“Lighthouse”" in explain.fix_words(Fix("use_other_database", other="Big"), project="Lighthouse")


def test_an_unconfigured_remote_says_what_to_do_in_the_app(session: object) -> None:
    with pytest.raises(RemoteNotConfigured) as caught:
        form.run_check(session)
    assert "Save" in str(caught.value)
    with pytest.raises(RemoteNotConfigured) as caught:
        session.remote.open()  # type: ignore[attr-defined]
    assert "storyloom remote set" in cli_say(caught.value)  # the command line's words; the app's:
    assert explain.say(caught.value).endswith("fill in Project Settings > Remote Replication and Save")


def test_join_instructions_carry_url_user_and_the_password_once() -> None:
    url = "https://couch.example.com/app_v2_story"
    made = Invitation("bob", "s3cret", url, True)
    text = form.join_instructions(made, "Story")
    assert "“Story”" in text and url in text and "bob" in text and "s3cret" in text
    assert "Join a project from a server" in text and "storyloom clone" in text
    existing = Invitation("bob", None, url, False)
    assert "already use" in form.join_instructions(existing, "Story")


def test_join_fields_are_checked_as_typed() -> None:
    assert form.check_join_fields("", "", "") == {
        "url": "Type the database's URL, e.g. https://couch.example.com/app_v2_story.",
        "username": "Type your user name on the server (the invitation has it).",
        "password": "Type your password on the server (the invitation has it).",
    }
    assert "end with the database name" in form.check_join_fields("http://h:5984", "bob", "pw")["url"]
    assert "Password field" in form.check_join_fields("http://bob:pw@h/db", "bob", "pw")["url"]
    assert form.check_join_fields("http://h:5984/db", "bob", "pw") == {}
    assert form.check_invitee("") and form.check_invitee("_x") and form.check_invitee("bob") == ""


def test_refusals_name_the_cause_and_what_to_do() -> None:
    mismatch = ProjectMismatch("the remote database 'db' on http://h holds another project, 'Big' (id 1), not 'Small' "
                               "(id 2): syncing would merge the two projects, so nothing was sent or received",
                               remote=Identity("1", "Big"), local=Identity("2", "Small"), db_url="http://h/db")
    refused = explain.explain(mismatch, project="Small", database="db")
    assert refused.problem == "identity"
    assert "holds another project, 'Big'" in refused.cause and "Join a project from a server" in refused.todo
    wrong = explain.explain(AccessDenied("the server rejected the password", action="credentials"), project="P")
    assert wrong.problem == "credentials" and "password" in wrong.todo
    member = explain.explain(AccessDenied("not allowed to read", action="read"), username="mallory", database="db")
    assert member.problem == "membership" and "'mallory'" in member.todo and "'db'" in member.todo
    assert explain.explain(ValueError("boom")).problem == "internal"
