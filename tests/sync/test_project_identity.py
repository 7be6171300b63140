"""A sync never merges two projects: a remote database of another project is refused before
anything is written in either direction (issue 8, part 4).

BIG is a real Drafft sample (``one-bullet``) imported as a project and pushed to the test
server; SMALL is a new project with a few documents of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.main import main
from storyloom.drafft import import_backup
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.manager import ProjectManager
from storyloom.store import Database
from storyloom.sync import (
    IdentityDoc,
    ProjectMismatch,
    ReplicationOptions,
    Sync,
    check_remote_identity,
    push,
)
from tests.support.couch import CouchServer
from tests.support.fixtures import DRAFFT_PROJECTS
from tests.sync.helpers import admin_client, remote_ids

PROJECT_IDENTITY = IdentityDoc(doc_id=SETTINGS_ID, id_field="projectId", name_field="projectName")
SMALL_DOCS = [f"small-note-{i}" for i in range(3)]


def _remote_snapshot(couch: CouchServer, db_name: str) -> tuple[Any, list[tuple[str, str]]]:
    rows = couch.all_docs(db_name)["rows"]
    return couch.db_info(db_name)["update_seq"], [(row["id"], row["value"]["rev"]) for row in rows]


def _local_snapshot(db: Database) -> tuple[Any, list[tuple[str, str]]]:
    rows = db.all_docs()["rows"]
    return db.info()["update_seq"], [(row["id"], row["value"]["rev"]) for row in rows]


def _project_snapshot(name: str) -> tuple[Any, list[tuple[str, str]]]:
    with ProjectManager().open(name) as project:
        return _local_snapshot(project.store)


@pytest.fixture
def big(couch: CouchServer) -> dict[str, str]:
    """Project BIG (the one-bullet Drafft sample) pushed into a database of its own."""
    project, _report = import_backup(ProjectManager(), DRAFFT_PROJECTS / "v1" / "one-bullet.json", name="BIG")
    db_name = couch.create_db()
    try:
        with admin_client(couch, db_name) as remote:
            status = push(project.store, remote, identity=PROJECT_IDENTITY)
        assert status.state == "complete" and status.docs_written > 10, status.last_error_message
        return {"id": project.id, "db": db_name}
    finally:
        project.close()


@pytest.fixture
def small() -> str:
    """Project SMALL with a few documents of its own; returns its id."""
    with ProjectManager().create("SMALL") as project:
        for doc_id in SMALL_DOCS:
            project.editor.create("Script", doc_id.replace("-", " "), doc_id=doc_id)
        return project.id


def _sync(couch: CouchServer, db_name: str, *extra: str, project: str = "SMALL") -> list[str]:
    return ["sync", project, "--remote", couch.db_url(db_name), "-u", couch.admin[0], *extra]


def _assert_refusal_message(err: str, big: dict[str, str], small_id: str) -> None:
    assert "holds another project, 'BIG'" in err and big["id"] in err
    assert "'SMALL'" in err and small_id in err
    assert "nothing was sent or received" in err
    assert "with another database" in err and "start from a copy of it" in err
    assert "Traceback" not in err


def _assert_small_intact(small_id: str) -> None:
    with ProjectManager().open("SMALL") as project:
        settings = project.store.get(SETTINGS_ID, conflicts=True)
        assert settings["projectId"] == small_id and settings["projectName"] == "SMALL"
        assert "_conflicts" not in settings


@pytest.mark.parametrize("direction", ["both", "push", "pull"])
def test_sync_with_another_projects_database_is_refused_in_every_direction(
    couch: CouchServer,
    big: dict[str, str],
    small: str,
    direction: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    remote_before = _remote_snapshot(couch, big["db"])
    local_before = _project_snapshot("SMALL")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])

    code = main(_sync(couch, big["db"], "--direction", direction))

    out = capsys.readouterr()
    assert code == 1, out.out + out.err
    _assert_refusal_message(out.err, big, small)
    assert out.err.count("storyloom: error:") == 1
    assert _remote_snapshot(couch, big["db"]) == remote_before  # nothing pushed
    assert _project_snapshot("SMALL") == local_before  # nothing pulled
    _assert_small_intact(small)


def test_refusal_in_json_names_the_other_project(
    couch: CouchServer, big: dict[str, str], small: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    code = main(_sync(couch, big["db"], "--json"))
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["exit_code"] == 1 and data["ok"] is False
    _assert_refusal_message(data["error"], big, small)
    error = data["push"]["last_error"]
    assert error["type"] == "ProjectMismatch"
    assert (error["remote_project_id"], error["remote_project_name"]) == (big["id"], "BIG")
    assert (error["local_project_id"], error["local_project_name"]) == (small, "SMALL")
    assert data["push"]["docs_written"] == 0 and data["pull"]["state"] == "idle"


def test_live_sync_with_another_projects_database_exits_at_once(
    couch: CouchServer, big: dict[str, str], small: str
) -> None:
    remote_before = _remote_snapshot(couch, big["db"])
    local_before = _project_snapshot("SMALL")
    env = dict(os.environ, STORYLOOM_REMOTE_PASSWORD=couch.admin[1])
    # A real process: a live sync that was not refused would follow changes until the timeout.
    done = subprocess.run(
        [sys.executable, "-m", "storyloom", *_sync(couch, big["db"], "--live")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    _assert_refusal_message(done.stderr, big, small)
    assert _remote_snapshot(couch, big["db"]) == remote_before
    assert _project_snapshot("SMALL") == local_before
    _assert_small_intact(small)


def test_live_sync_service_is_refused_in_both_directions(
    couch: CouchServer, big: dict[str, str], small: str
) -> None:
    remote_before = _remote_snapshot(couch, big["db"])
    with ProjectManager().open("SMALL") as project, admin_client(couch, big["db"]) as remote:
        local_before = _local_snapshot(project.store)
        sync = Sync(project.store, remote, ReplicationOptions(live=True, identity=PROJECT_IDENTITY))
        sync.start()
        try:
            status = sync.wait(20)
        finally:
            sync.cancel()
            sync.wait(5)
        assert sync.done
        assert _local_snapshot(project.store) == local_before
    assert status.push.state == status.pull.state == "error"
    for error in (status.push.last_error, status.pull.last_error):
        assert isinstance(error, ProjectMismatch)
        assert (error.remote_id, error.remote_name, error.local_id) == (big["id"], "BIG", small)
        assert not error.retryable
    assert _remote_snapshot(couch, big["db"]) == remote_before


def test_empty_database_then_the_same_project_sync(
    couch: CouchServer, small: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db_name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert main(_sync(couch, db_name)) == 0, capsys.readouterr().err
    assert couch.get_doc(db_name, SETTINGS_ID).json()["projectId"] == small
    assert set(SMALL_DOCS) <= set(remote_ids(couch, db_name))

    # Another machine holds a copy of SMALL (same project id), restored from a backup.
    backup = tmp_path / "small.json"
    ProjectManager().backup("SMALL", backup)
    other_home = ProjectManager(root=tmp_path / "other-machine")
    with other_home.restore(backup) as copy:
        assert copy.id == small
        copy.editor.create("Script", "written on the other machine", doc_id="from-the-copy")
        copy_store = copy.path / "store.sqlite3"
    capsys.readouterr()

    assert main(_sync(couch, db_name, project=str(copy_store))) == 0, capsys.readouterr().err
    assert main(_sync(couch, db_name)) == 0, capsys.readouterr().err
    with ProjectManager().open("SMALL") as project:
        assert project.store.get("from-the-copy")["name"] == "written on the other machine"
    _assert_small_intact(small)


def test_a_database_without_project_settings_syncs(
    couch: CouchServer, small: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A first push that stopped before ProjectSettings went out leaves such a database.
    db_name = couch.create_db()
    couch.put_doc(db_name, {"_id": "left-over", "text": "from an earlier run"})
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert main(_sync(couch, db_name)) == 0, capsys.readouterr().err
    assert couch.get_doc(db_name, SETTINGS_ID).json()["projectId"] == small


def test_an_empty_store_takes_a_copy_of_the_project(
    couch: CouchServer, big: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "empty.sqlite"
    Database(path).close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert main(_sync(couch, big["db"], project=str(path))) == 0, capsys.readouterr().err
    db = Database(path)
    try:
        assert db.get(SETTINGS_ID)["projectId"] == big["id"]
        assert sorted(row["id"] for row in db.all_docs()["rows"]) == sorted(remote_ids(couch, big["db"]))
    finally:
        db.close()


def test_a_store_of_no_project_is_not_merged_into_a_project(
    couch: CouchServer, big: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "loose.sqlite"
    db = Database(path)
    db.put({"_id": "loose-doc"})
    db.close()
    remote_before = _remote_snapshot(couch, big["db"])
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert main(_sync(couch, big["db"], project=str(path))) == 1
    err = capsys.readouterr().err
    assert "holds another project, 'BIG'" in err and "belong to no project" in err
    assert _remote_snapshot(couch, big["db"]) == remote_before
    db = Database(path)
    try:
        assert [row["id"] for row in db.all_docs()["rows"]] == ["loose-doc"]
    finally:
        db.close()


def test_check_remote_identity_reads_both_sides(couch: CouchServer, big: dict[str, str], small: str) -> None:
    empty = couch.create_db()
    with ProjectManager().open("SMALL") as project:
        with admin_client(couch, empty) as remote:
            assert check_remote_identity(project.store, remote, PROJECT_IDENTITY) is None
        with admin_client(couch, big["db"]) as remote, pytest.raises(ProjectMismatch) as caught:
            check_remote_identity(project.store, remote, PROJECT_IDENTITY)
    assert (caught.value.remote_id, caught.value.remote_name) == (big["id"], "BIG")
    assert (caught.value.local_id, caught.value.local_name) == (small, "SMALL")
    assert caught.value.db_url == couch.db_url(big["db"])
    with ProjectManager().open("BIG") as project, admin_client(couch, big["db"]) as remote:
        same = check_remote_identity(project.store, remote, PROJECT_IDENTITY)
    assert same is not None and (same.id, same.name) == (big["id"], "BIG")


def test_a_database_of_a_project_without_id_is_refused(
    couch: CouchServer, small: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Drafft's own databases carry a ProjectSettings document without a projectId.
    db_name = couch.create_db()
    couch.put_doc(db_name, {"_id": SETTINGS_ID, "projectName": "Drafft Story"})
    couch.put_doc(db_name, {"_id": "drafft-doc", "type": "Script", "name": "x"})
    remote_before = _remote_snapshot(couch, db_name)
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert main(_sync(couch, db_name)) == 1
    err = capsys.readouterr().err
    assert "holds another project, 'Drafft Story' (no project id: not made by Storyloom)" in err
    assert "an import of a backup of 'Drafft Story'" in err
    assert _remote_snapshot(couch, db_name) == remote_before
    _assert_small_intact(small)
