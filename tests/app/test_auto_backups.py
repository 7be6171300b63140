"""Automatic backups (``storyloom.app.auto_backups``): when one is taken, where, how many are
kept, listing and restoring, on real projects and real files; the clock is moved by hand."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storyloom import paths
from storyloom.app.auto_backups import (
    INTERVAL,
    RETRY_AFTER,
    AutoBackup,
    AutoBackupError,
    AutoBackups,
    BackupCancelled,
    age_text,
    backups_dir,
    day_text,
    list_backups,
    prune,
    restore_backup,
    restored_name,
    status_view,
    take_backup,
    write_backup,
)
from storyloom.project.manager import Project, ProjectManager, read_dump

START = datetime(2026, 11, 27, 21, 0, 0, tzinfo=UTC)


class Clock:
    """The time the schedule reads; a test moves it."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def manager() -> ProjectManager:
    return ProjectManager(username="tester")


@pytest.fixture
def project(manager: ProjectManager):  # type: ignore[no-untyped-def]
    with manager.create("Saga", "the original") as opened:
        opened.editor.create("Script", "Prologue", content={"script": "::Narrator:: Once.\n"})
        yield opened


def _names(project: Project) -> list[str]:
    return [backup.path.name for backup in list_backups(project.id)]


def test_the_first_opening_takes_one_in_the_home_in_the_backup_format(project: Project) -> None:
    clock = Clock()
    backups = AutoBackups(project, clock=clock)
    assert backups.due()
    taken = backups.run_due()
    assert taken is not None and taken.time == START
    assert taken.path == paths.home_dir() / "backups" / project.id / "20261127T210000Z.json"
    assert taken.path.parent == backups_dir(project.id)
    assert taken.size == taken.path.stat().st_size > 0
    rows = read_dump(taken.path)  # what `storyloom backup` writes: an all_docs dump with the documents
    assert {row["doc"]["name"] for row in rows if "name" in row["doc"]} >= {"Prologue"}
    assert not backups.due() and backups.run_due() is None  # one per hour at most
    if os.name == "posix":  # the project's data stays private, as in its own folder
        assert stat.S_IMODE(taken.path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(taken.path.stat().st_mode) == 0o600
    assert sorted(p.name for p in taken.path.parent.iterdir()) == [taken.path.name]  # no temporary file left


def test_a_second_opening_within_the_hour_takes_none(project: Project) -> None:
    clock = Clock()
    AutoBackups(project, clock=clock).run_due()
    clock.advance(minutes=59)
    reopened = AutoBackups(project, clock=clock)
    assert not reopened.due() and reopened.run_due() is None
    clock.advance(minutes=30)  # an hour and a half after the last one, but nothing changed
    assert not reopened.due()
    clock.advance(minutes=1)
    assert AutoBackups(project, clock=clock).due()  # a later opening: the newest is over an hour old
    assert len(list_backups(project.id)) == 1


def test_an_hour_of_edits_takes_another_and_no_edits_take_none(project: Project) -> None:
    clock = Clock()
    backups = AutoBackups(project, clock=clock)
    first = backups.run_due()
    clock.advance(hours=3)
    assert not backups.due()  # three hours open without a change: no new backup
    project.editor.create("Script", "Chapter 1")
    backups.changed()
    second = backups.run_due()
    assert second is not None and second.time == START + timedelta(hours=3)
    clock.advance(minutes=10)
    backups.changed()
    assert not backups.due()  # edits, but within the hour
    assert backups.next_due() == second.time + INTERVAL
    clock.advance(minutes=50)
    third = backups.run_due()
    assert third is not None and third.time == second.time + INTERVAL
    assert [b.time for b in list_backups(project.id)] == [third.time, second.time, first.time]  # type: ignore[union-attr]


def test_an_edit_while_a_backup_is_written_makes_the_next_one_due(project: Project) -> None:
    clock = Clock()
    backups = AutoBackups(project, clock=clock)
    job = backups.start()
    assert job is not None and backups.running and backups.start() is None
    backups.changed()  # not in the snapshot the job reads
    job.run()
    assert not backups.running and backups.last is not None
    clock.advance(hours=1)
    assert backups.due()


def test_pruning_keeps_the_newest_n_and_only_after_the_new_one_is_complete(project: Project) -> None:
    clock = Clock()
    backups = AutoBackups(project, keep=lambda: 3, clock=clock)
    taken = []
    for _ in range(5):
        backup = backups.run_due()
        assert backup is not None
        taken.append(backup)
        clock.advance(hours=1)
        backups.changed()
    assert [b.path for b in list_backups(project.id)] == [b.path for b in reversed(taken[2:])]
    assert not taken[0].path.exists() and not taken[1].path.exists()
    assert prune(project.id, 1) == [taken[3].path, taken[2].path]
    assert _names(project) == [taken[4].path.name]


def test_zero_turns_them_off_and_removes_none(project: Project) -> None:
    clock = Clock()
    keep = [10]
    backups = AutoBackups(project, keep=lambda: keep[0], clock=clock)
    backups.run_due()
    keep[0] = 0
    clock.advance(hours=2)
    backups.changed()
    assert not backups.due() and backups.run_due() is None and backups.next_due() is None
    assert not AutoBackups(project, keep=lambda: 0, clock=clock).due()
    assert prune(project.id, 0) == [] and len(list_backups(project.id)) == 1
    keep[0] = 10  # turned on again: the edits are still waiting for a backup
    assert backups.due()


def test_two_backups_in_one_second_keep_both(project: Project) -> None:
    first = take_backup(project, 10, now=START)
    second = take_backup(project, 10, now=START)
    assert (first.path.name, second.path.name) == ("20261127T210000Z.json", "20261127T210000Z-2.json")
    assert [b.path for b in list_backups(project.id)] == [second.path, first.path]


def test_listing_is_newest_first_with_sizes_and_ignores_other_files(project: Project) -> None:
    older = take_backup(project, 10, now=START)
    project.editor.create("Script", "A much longer script", content={"script": "::Narrator:: Words.\n" * 200})
    newer = take_backup(project, 10, now=START + timedelta(days=1, minutes=5))
    folder = backups_dir(project.id)
    (folder / f".{newer.path.name}.deadbeef.tmp").write_text('{"rows": [')  # a killed app's temporary file
    (folder / "notes.txt").write_text("not a backup")
    listed = list_backups(project.id)
    assert [b.path for b in listed] == [newer.path, older.path]
    assert [b.size for b in listed] == [newer.path.stat().st_size, older.path.stat().st_size]
    assert listed[0].size > listed[1].size
    shown = listed[0].to_json()
    assert set(shown) == {"time", "size", "path"} and shown["path"] == str(newer.path)
    parsed = datetime.fromisoformat(shown["time"])
    assert parsed.utcoffset() is not None and parsed == newer.time
    assert listed[0].local_time() == newer.time.astimezone().strftime("%Y-%m-%d %H:%M")
    assert list_backups("no-such-project") == []


def test_a_temporary_file_a_dead_process_left_is_removed_a_day_later(project: Project) -> None:
    take_backup(project, 10, now=START)
    folder = backups_dir(project.id)
    fresh = folder / ".20261127T220000Z.json.0001.tmp"
    stale = folder / ".20261126T220000Z.json.0002.tmp"
    for file in (fresh, stale):
        file.write_text('{"total_rows": 3, "rows": [')
    day_ago = stale.stat().st_mtime - 2 * 86400
    os.utime(stale, (day_ago, day_ago))
    prune(project.id, 10)
    assert fresh.exists() and not stale.exists()  # one being written now is left alone


def test_a_backup_stopped_midway_leaves_nothing(project: Project) -> None:
    backups = AutoBackups(project, clock=Clock())
    job = backups.start()
    assert job is not None
    with pytest.raises(BackupCancelled):
        job.run(cancelled=lambda: True)
    assert not backups_dir(project.id).exists() or list(backups_dir(project.id).iterdir()) == []
    assert backups.due()  # nothing was kept: still due


FAILING_CHILD = textwrap.dedent("""
    import json, resource, signal, sys
    from datetime import UTC, datetime, timedelta
    from storyloom.app.auto_backups import AutoBackups, AutoBackupError, list_backups
    from storyloom.project.manager import ProjectManager

    now = [datetime(2026, 11, 28, 9, 0, tzinfo=UTC)]
    project = ProjectManager().open(sys.argv[1])
    backups = AutoBackups(project, clock=lambda: now[0])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256, hard))  # the disk is full after 256 bytes
    try:
        backups.run_due()
        outcome = "written"
    except AutoBackupError as exc:
        outcome = {"message": str(exc), "cause": exc.cause}
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    due_now = backups.due()
    now[0] += timedelta(minutes=11)
    print(json.dumps({"outcome": outcome, "due_now": due_now, "due_later": backups.due(),
                      "error": str(backups.last_error)}))
    project.close()
""")


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.integration
def test_a_failing_write_keeps_the_earlier_backups_and_says_why(manager: ProjectManager,
                                                                storyloom_home: Path) -> None:
    with manager.create("Saga") as project:
        project.editor.create("Script", "Prologue", content={"script": "::Narrator:: Once.\n" * 50})
        earlier = take_backup(project, 10, now=START)
        content = earlier.path.read_bytes()
        project_id = project.id
    result = subprocess.run([sys.executable, "-c", FAILING_CHILD, project_id], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "STORYLOOM_HOME": str(storyloom_home)})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["outcome"] != "written"
    assert report["outcome"]["cause"] == os.strerror(27)  # EFBIG: "File too large"
    assert "earlier backups are kept" in report["outcome"]["message"]
    assert str(backups_dir(project_id)) in report["outcome"]["message"]
    assert report["due_now"] is False and report["due_later"] is True  # tried again after RETRY_AFTER
    assert timedelta(minutes=11) > RETRY_AFTER
    assert [b.path for b in list_backups(project_id)] == [earlier.path]
    assert earlier.path.read_bytes() == content
    assert sorted(p.name for p in earlier.path.parent.iterdir()) == [earlier.path.name]  # no temporary file


def test_a_listed_backup_restores_as_a_new_project_with_a_unique_name(manager: ProjectManager,
                                                                     project: Project) -> None:
    backup = write_backup(project, now=START)
    name = restored_name(manager, project.name, backup)
    assert name == f"Saga (backup {backup.local_time()})"
    with restore_backup(manager, backup, name) as restored:
        assert restored.id != project.id and restored.name == name
        assert {s.name for s in restored.editor.index.summaries()} >= {"Prologue"}
    assert restored_name(manager, project.name, backup) == f"Saga (backup {backup.local_time()}) (2)"


@pytest.mark.parametrize(("size", "text"), [(0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"),
                                            (48_213, "47.1 KB"), (4_130_000, "3.9 MB"), (12_000_000_000, "11.2 GB")])
def test_sizes_read_as_the_attachments_editor_says_them(size: int, text: str) -> None:
    backup = AutoBackup(path=Path("/x.json"), time=START, size=size)
    assert backup.size_text() == text


def test_a_backup_dated_after_now_does_not_stop_the_next_ones(project: Project) -> None:
    ahead = [take_backup(project, 2, now=START + timedelta(days=30 + day)) for day in range(2)]  # the clock was wrong
    backups = AutoBackups(project, keep=lambda: 2, clock=Clock())
    assert backups.due()
    taken = backups.run_due()
    assert taken is not None and taken.path.exists()  # the oldest by date, yet the one kept
    assert [b.path for b in list_backups(project.id)] == [ahead[1].path, taken.path]


def test_times_read_as_a_list_of_backups_says_them() -> None:
    now = datetime(2026, 11, 27, 22, 30).astimezone()  # local times: what the person sees
    assert day_text(now - timedelta(minutes=8), now) == f"Today {(now - timedelta(minutes=8)):%H:%M}"
    yesterday = now - timedelta(days=1, hours=2)
    assert day_text(yesterday, now) == f"Yesterday {yesterday:%H:%M}"
    earlier = now - timedelta(days=4)
    assert day_text(earlier, now) == f"{earlier:%a %b} {earlier.day}, {earlier:%H:%M}"
    assert day_text(now - timedelta(days=400), now).startswith(f"{now - timedelta(days=400):%b}")
    assert "2025" in day_text(now - timedelta(days=400), now)
    assert [age_text(now - delta, now) for delta in (timedelta(seconds=30), timedelta(minutes=1),
                                                     timedelta(minutes=59), timedelta(hours=3),
                                                     timedelta(days=1, hours=5), timedelta(days=4))] == [
        "just now", "1 minute ago", "59 minutes ago", "3 hours ago", "1 day ago", "4 days ago"]


def test_the_status_bar_words(project: Project) -> None:
    clock = Clock()
    backups = AutoBackups(project, clock=clock)
    assert not backups.status().visible  # none yet, none being written
    job = backups.start()
    assert job is not None
    writing = backups.status()
    assert writing.visible and writing.text == "Backing up…" and writing.tone == "accent"
    assert "last 10 automatic backups" in writing.tooltip
    backup = job.run()
    done = backups.status()
    assert done.text == f"Backed up {backup.time.astimezone():%H:%M}" and done.tone == "muted"
    assert str(backup.path) in done.tooltip and backup.size_text() in done.tooltip
    assert "Automatic backups…" in done.tooltip
    clock.advance(days=2)
    assert backups.status().text == f"Backed up {backup.time.astimezone():%b} {backup.time.astimezone().day}"
    assert not AutoBackups(project, keep=lambda: 0, clock=clock).status().visible
    error = AutoBackupError("could not write the automatic backup of 'Saga' to /x: No space left on device. "
                            "The earlier backups are kept", "No space left on device")
    failed = status_view(keep=10, running=False, last=backup, error=error, now=clock())
    assert failed.text == "Backup failed: No space left on device" and failed.tone == "danger"
    assert failed.tooltip.startswith("Could not write") and failed.tooltip.endswith("kept.")
