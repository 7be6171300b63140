"""The progress of a clone's first pull: the shared ``storyloom.progress`` events (phase
``clone``) from the library, and the bar of ``storyloom clone`` on a terminal only."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.app import Workspace
from storyloom.app.clone import clone_project
from storyloom.progress import Progress
from storyloom.project.manager import ProjectManager
from storyloom.project.sample import create_sample_project
from storyloom.sync import push
from tests.support.couch import CouchServer, unique_db_name
from tests.sync.helpers import admin_client, run_storyloom


@pytest.fixture
def shared_url(couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The sample project pushed into a fresh database (from its own home), as an admin."""
    monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "home-a"))
    name = couch.create_db(unique_db_name("saga"))
    remote = admin_client(couch, name)
    try:
        with create_sample_project(ProjectManager(), "Saga") as project:
            assert push(project.store, remote).state == "complete"
    finally:
        remote.close()
    return couch.db_url(name)


def test_clone_reports_progress_events(shared_url: str, couch: CouchServer, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "home-b"))
    seen: list[Progress] = []
    with Workspace() as workspace:
        result = clone_project(workspace, shared_url, couch.admin[0], couch.admin[1], progress=seen.append)
    assert seen and {e.phase for e in seen} == {"clone"}
    assert seen[0].total == result.docs_written  # the server's count, known from the start
    assert seen[-1].finished and seen[-1].done == seen[-1].total == result.docs_written
    # Before it, the project index is built (under the same bar), as the clone's last step.
    assert seen[-2].detail == "indexing" and not seen[-2].finished
    assert [e for e in seen if e.finished] == [seen[-1]]


def test_clone_draws_a_bar_on_a_terminal_only(shared_url: str, couch: CouchServer, tmp_path: Path) -> None:
    args = ["clone", shared_url, "--username", couch.admin[0]]
    env = {"STORYLOOM_REMOTE_PASSWORD": couch.admin[1]}
    code, err = run_storyloom([*args, "--name", "On a terminal"], terminal=True,
                              env={**env, "STORYLOOM_HOME": str(tmp_path / "home-c")})
    assert code == 0, err
    assert "Cloning" in err and "100%" in err, err
    code, err = run_storyloom([*args, "--name", "Piped"], terminal=False,
                              env={**env, "STORYLOOM_HOME": str(tmp_path / "home-d")})
    assert code == 0, err
    assert "Cloning" not in err and "%" not in err
