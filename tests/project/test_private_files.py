"""Project folders and store files are private to their owner; an import keeps no remote password."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from storyloom.drafft import import_backup
from storyloom.project.manager import META_FILE, STORE_FILE, Project, ProjectManager
from storyloom.store import Database

from .conftest import fixture_path


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def assert_private(project: Project) -> None:
    """The folder is 0700 and every store file (db, -wal, -shm) and project.json are 0600, while
    the project is open."""
    assert mode(project.path) == 0o700
    assert mode(project.path / META_FILE) == 0o600
    project.store.info()  # a read: the -shm file exists for every open WAL database
    files = [project.path / (STORE_FILE + suffix) for suffix in ("", "-wal", "-shm")]
    for file in files:
        assert file.exists(), f"{file.name} missing: the store is not in WAL mode?"
        assert mode(file) == 0o600, f"{file.name} has mode {mode(file):04o}"


@pytest.fixture(autouse=True)
def open_umask():
    """The common umask 022, under which files were created readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_project_is_private(manager: ProjectManager) -> None:
    with manager.create("Private") as project:
        assert_private(project)


def test_an_imported_project_is_private(manager: ProjectManager) -> None:
    project, _ = import_backup(manager, fixture_path("one-bullet"))
    with project:
        assert_private(project)


def test_a_restored_project_is_private(manager: ProjectManager, tmp_path: Path) -> None:
    with manager.create("Source") as source:
        backup = manager.backup(source, tmp_path / "source.json")
    with manager.restore(backup, "Copy", new_id=True) as project:
        assert_private(project)


def test_a_new_store_file_is_private_from_its_creation(tmp_path: Path) -> None:
    path = tmp_path / "bare.sqlite3"
    db = Database(path)
    try:
        db.put({"_id": "a"})
        for suffix in ("", "-wal", "-shm"):
            assert mode(Path(f"{path}{suffix}")) == 0o600
    finally:
        db.close()


def test_an_older_open_project_folder_becomes_private(manager: ProjectManager) -> None:
    with manager.create("Old") as project:
        folder = project.path
    folder.chmod(0o755)  # as projects were made before
    with manager.open("Old"):
        assert mode(folder) == 0o700


def test_an_import_keeps_no_remote_password_anywhere_in_the_store(manager: ProjectManager) -> None:
    source = fixture_path("gof-partial")
    assert b'"remoteDbPassword": "changeme"' in source.read_bytes()
    project, report = import_backup(manager, source)
    with project:
        local = project.store.get_local("_local/drafft-remote")
        assert local["remoteDbUrl"] == "http://localhost:5984" and local["remoteDbUsername"] == "admin"
        assert project.settings()["dbName"]  # the database name stays with the settings
        assert "enter it again" in report.to_text()
        stored = b"".join(p.read_bytes() for p in project.path.iterdir() if p.is_file())
    stored += b"".join(p.read_bytes() for p in project.path.iterdir() if p.is_file())  # after the checkpoint
    assert b"changeme" not in stored and b"remoteDbPassword" not in stored
