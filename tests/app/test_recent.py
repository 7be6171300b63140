"""Recent projects: newest first, per machine, following renames and deletions, Qt-free."""

from __future__ import annotations

from datetime import UTC, datetime

from storyloom import paths
from storyloom.app.recent import RecentProjects
from storyloom.project.manager import ProjectManager


def test_an_empty_machine_has_no_recent_projects():
    recent = RecentProjects()
    assert recent.entries() == []
    assert recent.last(["anything"]) is None


def test_opening_puts_a_project_first_once_and_the_file_lives_in_the_config_directory():
    recent = RecentProjects()
    recent.record("a", "Alpha", when=datetime(2026, 1, 1, tzinfo=UTC))
    recent.record("b", "Beta")
    recent.record("a", "Alpha")
    assert [(e.id, e.name) for e in recent.entries()] == [("a", "Alpha"), ("b", "Beta")]
    assert recent.file == paths.config_dir() / "recent.json"
    # Another reader (the next start of the app) sees the same list.
    assert [e.id for e in RecentProjects().entries()] == ["a", "b"]
    assert RecentProjects().entries()[0].opened.endswith("Z")


def test_the_list_keeps_the_newest_entries_up_to_its_limit():
    recent = RecentProjects(limit=3)
    for index in range(5):
        recent.record(f"p{index}", f"Project {index}")
    assert [e.id for e in recent.entries()] == ["p4", "p3", "p2"]


def test_reopen_last_skips_projects_that_no_longer_exist():
    manager = ProjectManager()
    kept = manager.create("Kept")
    gone = manager.create("Gone")
    kept.close()
    gone.close()
    recent = RecentProjects()
    recent.record(kept.id, "Kept")
    recent.record(gone.id, "Gone")
    manager.delete(gone.id)
    existing = [info.id for info in manager.list()]
    assert recent.last(existing).id == kept.id
    assert [e.id for e in recent.existing(existing)] == [kept.id]


def test_rename_and_forget_follow_the_projects():
    recent = RecentProjects()
    recent.record("a", "Alpha")
    recent.record("b", "Beta")
    recent.rename("a", "Alpha Prime")
    assert [(e.id, e.name) for e in recent.entries()] == [("b", "Beta"), ("a", "Alpha Prime")]
    recent.forget("b")
    assert [e.id for e in recent.entries()] == ["a"]


def test_a_broken_file_reads_as_empty_and_is_replaced_on_the_next_open():
    recent = RecentProjects()
    recent.file.write_text("{not json", encoding="utf-8")
    assert recent.entries() == []
    recent.file.write_text('{"projects": [{"id": 3}, "x", {"id": "ok", "name": 5}]}', encoding="utf-8")
    assert [(e.id, e.name) for e in recent.entries()] == [("ok", "")]
    recent.record("new", "New")
    assert [e.id for e in recent.entries()] == ["new", "ok"]
