"""Project summaries for the project list: description, document count, last change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storyloom.project.manager import STORE_FILE, ProjectManager
from storyloom.project.summary import project_summary


def test_a_new_project_has_its_description_and_no_documents():
    manager = ProjectManager()
    manager.create("Game", "a sequel").close()
    summary = project_summary(manager.find("Game"))
    assert summary.description == "a sequel"
    assert summary.documents == 0
    assert summary.problem == ""
    assert datetime.now(UTC) - summary.modified < timedelta(minutes=1)


def test_documents_are_counted_and_deleted_ones_are_not():
    manager = ProjectManager()
    with manager.create("Game") as project:
        first = project.editor.create("Script", "Intro")
        project.editor.create("Script", "Outro")
        project.editor.delete(first.id)
    assert project_summary(manager.find("Game")).documents == 1


def test_an_unreadable_store_is_a_problem_not_an_exception():
    manager = ProjectManager()
    manager.create("Game").close()
    info = manager.find("Game")
    (info.path / STORE_FILE).write_bytes(b"not a database at all")
    summary = project_summary(info)
    assert summary.documents is None
    assert "cannot read" in summary.problem
