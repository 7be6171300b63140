"""Easy mode with an owner who is a member: the server admin's account serves set-up and
invitations only and is never kept; the owner syncs as a user of their own, recorded among the
database's admins; set-up pushes the project so a teammate can clone at once; invitations can be
re-issued (--reset-password) and printed as JSON. Real pouchdb-server, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager
from storyloom.project.remote_settings import load_remote_settings
from tests.support.couch import CouchServer, unique_db_name

OWNER_PASSWORD = "owner-pass-7f3a9"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def signs_in(couch: CouchServer, name: str, password: str) -> bool:
    response = httpx.get(f"{couch.url}/_session", auth=(name, password), timeout=10)
    return response.status_code == 200 and (response.json().get("userCtx") or {}).get("name") == name


def security(couch: CouchServer, db: str) -> dict:
    return couch.request("GET", f"/{db}/_security").json()


def files_under(root: Path) -> str:
    text = []
    for path in root.rglob("*"):
        if path.is_file():
            text.append(path.read_bytes().decode("latin-1"))
    return "\n".join(text)


@pytest.fixture
def owned(storyloom_home: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """'Saga' with easy-mode settings naming its owner 'ada-…', who does not exist on the server yet."""
    db = unique_db_name("own")
    owner = "ada-" + db[-6:]
    ProjectManager().create("Saga").close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", OWNER_PASSWORD)
    code, _, err = run(capsys, "remote", "set", "Saga", "--server", couch.url, "--database", db,
                       "--username", owner, "--mode", "easy")
    assert code == 0, err
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD")
    return db, owner


def test_setup_needs_an_admin_for_an_owner_user(owned: tuple[str, str], couch: CouchServer,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db, _owner = owned
    code, _, err = run(capsys, "remote", "setup", "Saga")
    # The owner's account does not exist yet, so the server refuses it: the message says so.
    assert code == 1
    assert "--admin ADMIN" in err and "set-up creates that user when it is absent" in err
    assert couch.request("GET", f"/{db}").status_code == 404


def test_owner_setup_invite_reset_and_clone(owned: tuple[str, str], couch: CouchServer, storyloom_home: Path,
                                            capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    db, owner = owned
    admin_name, admin_password = couch.admin
    monkeypatch.setenv("STORYLOOM_ADMIN_PASSWORD", admin_password)
    code, out, err = run(capsys, "remote", "setup", "Saga", "--admin", admin_name)
    assert code == 0, err
    assert f"created the server user {owner!r}" in out
    assert f"recorded {owner!r} as the project's owner" in out
    assert "pushed the project" in out
    assert f"storyloom remote invite Saga USERNAME --admin {admin_name}" in out
    sec = security(couch, db)
    assert owner in sec["admins"]["names"] and owner in sec["members"]["names"]
    assert signs_in(couch, owner, OWNER_PASSWORD)
    assert couch.get_doc(db, "ProjectSettings").status_code == 200

    # Again: nothing changes on the server.
    seq = couch.db_info(db)["update_seq"]
    code, out, err = run(capsys, "remote", "setup", "Saga", "--admin", admin_name)
    assert code == 0, err
    assert "(nothing needed changing)" in out
    assert "the database holds this project" in out
    assert couch.db_info(db)["update_seq"] == seq

    # Without --admin, the owner (not a server admin) is told what to give.
    code, _, err = run(capsys, "remote", "setup", "Saga")
    assert code == 1 and "--admin ADMIN" in err and "STORYLOOM_ADMIN_PASSWORD" in err

    # The admin's password is kept nowhere; the owner's is, and the settings name the owner.
    assert admin_password not in files_under(storyloom_home)
    with ProjectManager().open("Saga") as project:
        settings = load_remote_settings(project.store)
    assert settings is not None and settings.username == owner and settings.mode == "easy"

    # An invitation as JSON, for scripts; the teammate signs in and clones at once.
    bea = "bea-" + db[-6:]
    code, out, err = run(capsys, "remote", "invite", "Saga", bea, "--admin", admin_name, "--json")
    assert code == 0, err
    invitation = json.loads(out)
    assert set(invitation) == {"username", "password", "server", "database", "join"}
    assert (invitation["username"], invitation["server"], invitation["database"]) == (bea, couch.url, db)
    assert invitation["join"] == f"storyloom clone {couch.db_url(db)} --username {bea}"
    first = invitation["password"]
    assert signs_in(couch, bea, first)
    assert bea in security(couch, db)["members"]["names"] and owner in security(couch, db)["members"]["names"]

    # A lost password is re-issued: the old one stops working.
    code, out, err = run(capsys, "remote", "invite", "Saga", bea, "--admin", admin_name, "--reset-password")
    assert code == 0, err
    second = out.split("hand it over privately): ", 1)[1].split("\n", 1)[0]
    assert second != first and len(second) >= 20
    assert "the old one no longer works" in out
    assert signs_in(couch, bea, second) and not signs_in(couch, bea, first)

    # Bea joins on her machine (another STORYLOOM_HOME) straight after the invitation.
    monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "bea-home"))
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", second)
    code, out, err = run(capsys, "clone", couch.db_url(db), "--username", bea)
    assert code == 0, err
    with ProjectManager().open("Saga") as project:
        joined = load_remote_settings(project.store)
    assert joined is not None and joined.mode == "advanced" and joined.username == bea

    # The owner joining on a second machine keeps easy mode (an owner, not a member).
    monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "ada-laptop"))
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", OWNER_PASSWORD)
    code, out, err = run(capsys, "clone", couch.db_url(db), "--username", owner)
    assert code == 0, err
    with ProjectManager().open("Saga") as project:
        laptop = load_remote_settings(project.store)
    assert laptop is not None and laptop.mode == "easy"


def test_a_wrong_kept_password_for_an_existing_owner_is_named(owned: tuple[str, str], couch: CouchServer,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _db, owner = owned
    couch.create_user(owner, "someone-elses-password")
    monkeypatch.setenv("STORYLOOM_ADMIN_PASSWORD", couch.admin[1])
    code, _, err = run(capsys, "remote", "setup", "Saga", "--admin", couch.admin[0])
    assert code == 1
    assert f"the server user {owner!r} exists, but the password kept on this machine does not sign it in" in err
    assert "--reset-password" in err


def test_clone_of_an_empty_database_says_the_owner_has_not_pushed(storyloom_home: Path, couch: CouchServer,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    db = couch.create_db(unique_db_name("empty"))
    couch.put_doc(db, {"_id": "_design/storyloom", "language": "javascript"})
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    code, _, err = run(capsys, "clone", couch.db_url(db), "--username", couch.admin[0])
    assert code == 1
    assert "is empty: the project's owner has not pushed the project yet" in err
    assert "remote set" not in err


def test_a_project_syncing_as_the_server_admin_keeps_working_and_is_told_once(
        storyloom_home: Path, couch: CouchServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = unique_db_name("legacy")
    ProjectManager().create("Old").close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert run(capsys, "remote", "set", "Old", "--server", couch.url, "--database", db,
               "--username", couch.admin[0])[0] == 0
    code, _, err = run(capsys, "remote", "setup", "Old")
    assert code == 0, err
    assert "syncs as the server admin 'admin'" in err
    assert "storyloom remote setup Old --admin admin" in err and "--username YOURNAME" in err
    code, _, err = run(capsys, "remote", "setup", "Old")
    assert code == 0 and "syncs as the server admin" not in err
    code, _, err = run(capsys, "sync", "Old")
    assert code == 0, err
    assert "syncs as the server admin" not in err


def test_sync_as_the_server_admin_says_once_how_to_move(storyloom_home: Path, couch: CouchServer,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    db = couch.create_db(unique_db_name("legacy"))
    ProjectManager().create("Older").close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert run(capsys, "remote", "set", "Older", "--server", couch.url, "--database", db,
               "--username", couch.admin[0])[0] == 0
    code, _, err = run(capsys, "sync", "Older")
    assert code == 0, err
    assert "note: 'Older' syncs as the server admin 'admin'" in err
    code, _, err = run(capsys, "sync", "Older")
    assert code == 0, err
    assert "syncs as the server admin" not in err
