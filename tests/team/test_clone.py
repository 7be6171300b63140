"""Joining by cloning: a project pushed from one STORYLOOM_HOME is cloned into another, with its
id, name, documents, remote settings and password; refusals leave nothing behind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from storyloom.app import Workspace
from storyloom.app.clone import CloneError, clone_project
from storyloom.app.remote import RemoteAccess
from storyloom.app.secrets import PasswordStore
from storyloom.cli.main import main
from storyloom.export.game_export import build_game_export
from storyloom.project.manager import ProjectManager
from storyloom.project.remote_settings import load_remote_settings
from storyloom.project.sample import create_sample_project
from storyloom.sync.server_setup import LOCK_DESIGN_ID
from tests.support.couch import CouchServer, unique_db_name

Home = Callable[[str], Path]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """Switch STORYLOOM_HOME to the named home (one per simulated machine)."""

    def switch(name: str) -> Path:
        path = tmp_path / f"home-{name}"
        path.mkdir(exist_ok=True)
        monkeypatch.setenv("STORYLOOM_HOME", str(path))
        return path

    return switch


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def docs_by_id(store: Any) -> dict[str, str]:
    return {row["id"]: row["value"]["rev"] for row in store.all_docs()["rows"]}


@pytest.fixture
def shared(couch: CouchServer, home: Home, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Home A: the sample project, set up on the server in easy mode, pushed; bob invited."""
    home("a")
    db = unique_db_name("saga")
    with create_sample_project(ProjectManager(), "Saga") as project:
        project_id = project.id
        revs = docs_by_id(project.store)
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert run(capsys, "remote", "set", "Saga", "--server", couch.url, "--database", db, "--username", "admin")[0] == 0
    assert run(capsys, "remote", "setup", "Saga")[0] == 0
    code, _, err = run(capsys, "sync", "Saga", "--remote", couch.db_url(db), "--username", "admin")
    assert code == 0, err
    bob = "bob-" + db[-6:]
    code, out, _ = run(capsys, "remote", "invite", "Saga", bob)
    assert code == 0
    password = out.split("hand it over privately): ", 1)[1].split("\n", 1)[0]
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD")
    return {"db": db, "url": couch.db_url(db), "id": project_id, "revs": revs, "bob": bob, "password": password}


def test_clone_a_project_pushed_from_another_home(shared: dict[str, Any], couch: CouchServer, home: Home,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    b_home = home("b")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", shared["password"])
    code, out, err = run(capsys, "clone", shared["url"], "--username", shared["bob"])
    assert code == 0, err
    assert f"Cloned 'Saga' (id {shared['id']}) from {shared['url']} as '{shared['bob']}' (advanced mode)" in out
    assert "storyloom sync Saga" in out
    assert shared["password"] not in out + err

    [info] = ProjectManager().list()
    assert (info.id, info.name) == (shared["id"], "Saga")
    with ProjectManager().open("Saga") as project:
        revs = docs_by_id(project.store)
        # Every document with its revision, plus the server's lock rules (harmless locally).
        assert {k: v for k, v in revs.items() if k != LOCK_DESIGN_ID} == shared["revs"]
        assert LOCK_DESIGN_ID in revs
        settings = load_remote_settings(project.store)
        assert settings is not None
        assert (settings.server, settings.database, settings.username, settings.mode) == (
            couch.url, shared["db"], shared["bob"], "advanced")
        assert RemoteAccess(project, PasswordStore()).username == shared["bob"]
        export = build_game_export(project)
        assert LOCK_DESIGN_ID not in json.dumps(export)
    password_file = b_home / "config" / "remote-passwords.json"
    assert (password_file.stat().st_mode & 0o777) == 0o600
    assert shared["password"] in password_file.read_text()

    # The clone syncs with the stored settings' database: the identity guard lets it through.
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD")
    code, out, _ = run(capsys, "remote", "show", "Saga")
    assert "kept in the file" in out and shared["password"] not in out
    code, _, err = run(capsys, "remote", "check", "Saga")
    assert code == 0, err
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", shared["password"])
    code, _, err = run(capsys, "sync", "Saga", "--remote", shared["url"], "--username", shared["bob"])
    assert code == 0, err

    # Cloning the same project again on this machine is refused, pointing at the one here.
    code, _, err = run(capsys, "clone", shared["url"], "--username", shared["bob"])
    assert code == 1 and "already on this machine as 'Saga'" in err
    assert len(ProjectManager().list()) == 1


def test_clone_under_another_name(shared: dict[str, Any], home: Home, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home("c")
    ProjectManager().create("Saga").close()  # a project of this machine with the same name
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", shared["password"])
    code, _, err = run(capsys, "clone", shared["url"], "--username", shared["bob"])
    assert code == 1 and "--name NAME" in err
    code, out, err = run(capsys, "clone", shared["url"], "--username", shared["bob"], "--name", "Team Saga")
    assert code == 0, err
    assert "renamed to 'Team Saga'" in out
    with ProjectManager().open("Team Saga") as project:
        assert project.id == shared["id"] and project.name == "Team Saga"
    # Cloning it again points at the one here, with a command that works as typed.
    code, _, err = run(capsys, "clone", shared["url"], "--username", shared["bob"])
    assert code == 1 and "(`storyloom sync 'Team Saga'`)" in err


def test_clone_refusals_leave_nothing_behind(shared: dict[str, Any], couch: CouchServer, home: Home,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    d_home = home("d")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "wrong-password")
    code, _, err = run(capsys, "clone", shared["url"], "--username", shared["bob"])
    assert code == 1 and "refuses the user name" in err

    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    empty = couch.create_db(unique_db_name("empty"))
    couch.put_doc(empty, {"_id": "x", "name": "not a project"})
    code, _, err = run(capsys, "clone", couch.db_url(empty), "--username", "admin")
    assert code == 1 and "holds no Storyloom project" in err
    code, _, err = run(capsys, "clone", couch.db_url(unique_db_name("none")), "--username", "admin")
    assert code == 1 and "does not exist" in err
    drafft = couch.create_db(unique_db_name("drafft"))
    couch.put_doc(drafft, {"_id": "ProjectSettings", "projectName": "Old"})
    code, _, err = run(capsys, "clone", couch.db_url(drafft), "--username", "admin")
    assert code == 1 and "without a Storyloom project id" in err

    code, _, err = run(capsys, "clone", "ftp://host/db", "--username", "admin")
    assert code == 2 and "'ftp://'" in err
    code, _, err = run(capsys, "clone", f"http://admin:{couch.admin[1]}@127.0.0.1:{couch.port}/x", "--username", "a")
    assert code == 2 and "password in the URL" in err and couch.admin[1] not in err

    assert ProjectManager().list() == []
    projects = d_home / "projects"
    assert not projects.exists() or list(projects.iterdir()) == []


def test_clone_project_reports_progress(shared: dict[str, Any], home: Home) -> None:
    home("e")
    seen: list[tuple[int, int | None]] = []
    with Workspace() as workspace:
        result = clone_project(workspace, shared["url"], shared["bob"], shared["password"],
                               on_progress=lambda done, total: seen.append((done, total)))
    assert result.project_id == shared["id"] and result.mode == "advanced"
    # and the lock rules, and the tombstone of set-up's replicated-writes probe
    assert result.docs_written == len(shared["revs"]) + 2
    assert seen and seen[-1][0] == result.docs_written
    assert seen[-1][1] is not None and seen[-1][1] >= result.docs_written
    with pytest.raises(CloneError, match="password in the URL"):
        clone_project(Workspace(), shared["url"].replace("http://", "http://u:p@"), "u", None)
