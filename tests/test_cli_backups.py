"""``storyloom backups PROJECT``: the automatic backups listed (text and JSON), and every listed
file restoring with ``storyloom restore FILE --new-id --name NAME`` (or ``--restore N``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from storyloom.app import AppOptions
from storyloom.app.auto_backups import list_backups, take_backup
from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager

START = datetime(2026, 11, 27, 21, 0, 0, tzinfo=UTC)


@pytest.fixture
def saga() -> str:
    """A project with three automatic backups, an hour apart, each a little larger; its id."""
    manager = ProjectManager()
    with manager.create("Saga") as project:
        for hour in range(3):
            project.editor.create("Script", f"Chapter {hour + 1}", content={"script": "::Narrator:: Hm.\n" * 20})
            take_backup(project, 10, now=START + timedelta(hours=hour))
        return project.id


def test_the_list_is_newest_first_with_local_time_size_and_path(capsys, saga: str) -> None:  # type: ignore[no-untyped-def]
    assert main(["backups", "Saga"]) == 0
    out = capsys.readouterr().out.splitlines()
    backups = list_backups(saga)
    assert out[0] == "Automatic backups of 'Saga', the newest first (the app keeps the last 10):"
    assert len(out) == 1 + 3 + 1 and out[-1] == "Restore one as a new project: storyloom backups Saga --restore N"
    for number, (line, backup) in enumerate(zip(out[1:4], backups, strict=True), start=1):
        assert line.split()[0] == str(number)
        assert backup.local_time() in line and backup.size_text() in line and line.endswith(str(backup.path))
    assert backups[0].time == START + timedelta(hours=2)


def test_json_is_the_documented_array(capsys, saga: str) -> None:  # type: ignore[no-untyped-def]
    assert main(["backups", saga, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [set(row) for row in rows] == [{"time", "size", "path"}] * 3
    assert [row["path"] for row in rows] == [str(b.path) for b in list_backups(saga)]
    times = [datetime.fromisoformat(row["time"]) for row in rows]
    assert all(t.utcoffset() is not None for t in times)  # ISO 8601 with the offset
    assert times == [START + timedelta(hours=h) for h in (2, 1, 0)]
    assert [row["size"] for row in rows] == [b.path.stat().st_size for b in list_backups(saga)]


def test_none_yet_and_turned_off_say_so(capsys) -> None:  # type: ignore[no-untyped-def]
    ProjectManager().create("Empty").close()
    assert main(["backups", "Empty"]) == 0
    assert "No automatic backups of 'Empty' yet (the app keeps the last 10" in capsys.readouterr().out
    assert main(["backups", "Empty", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    AppOptions(username="ada", auto_backups_keep=0).save()
    assert main(["backups", "Empty"]) == 0
    assert "automatic backups are off: `storyloom options set backups.keep 10`" in capsys.readouterr().out


def test_an_unknown_project_exits_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["backups", "Nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storyloom: error: no project named or with id 'Nowhere'") and "Traceback" not in err


def test_every_listed_file_restores_with_storyloom_restore(capsys, saga: str) -> None:  # type: ignore[no-untyped-def]
    assert main(["backups", saga, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    manager = ProjectManager()
    for number, row in enumerate(rows):
        name = f"Saga restored {number}"
        assert main(["restore", row["path"], "--new-id", "--name", name, "--quiet"]) == 0, capsys.readouterr().err
        assert f"Restored project {name!r}" in capsys.readouterr().out
        with manager.open(name) as restored:
            assert restored.id != saga
            chapters = {s.name for s in restored.editor.index.summaries() if s.type == "Script"}
            assert chapters == {f"Chapter {n}" for n in range(1, 4 - number)}  # the newest holds all three


def test_restore_n_or_latest_makes_a_new_project_named_after_the_backup(capsys, saga: str) -> None:  # type: ignore[no-untyped-def]
    newest, _, oldest = list_backups(saga)
    assert main(["backups", "Saga", "--restore", "latest", "--quiet"]) == 0
    expected = f"Saga (backup {newest.local_time()})"
    restored_id = ProjectManager().find(expected).id
    assert capsys.readouterr().out.strip().endswith(f"as project {expected!r} (id {restored_id})")
    assert main(["backups", "Saga", "--restore", "3", "--name", "Saga at first", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["name"] == "Saga at first" and result["backup"]["path"] == str(oldest.path)
    with ProjectManager().open("Saga at first") as restored:
        assert {s.name for s in restored.editor.index.summaries() if s.type == "Script"} == {"Chapter 1"}
    assert main(["backups", "Saga", "--restore", "4"]) == 2
    assert "expected 'latest' or a number from 1 to 3" in capsys.readouterr().err
    assert main(["backups", "Saga", "--name", "X"]) == 2
    assert "--name goes with --restore" in capsys.readouterr().err
