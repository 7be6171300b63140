from __future__ import annotations

import json
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager

from .conftest import fixture_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_new_list_rename_delete(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, "new", "Heist", "--description", "A caper")
    assert code == 0 and "Created project 'Heist'" in out
    code, out, _ = run(capsys, "list")
    assert code == 0 and out.startswith("Heist")
    code, out, _ = run(capsys, "list", "--json")
    listed = json.loads(out)
    assert [p["name"] for p in listed] == ["Heist"]
    code, _, err = run(capsys, "new", "heist")
    assert code == 1 and "already exists" in err
    code, out, _ = run(capsys, "rename", "Heist", "Caper")
    assert code == 0 and "'Caper'" in out
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, _, err = run(capsys, "delete", "Caper")
    assert code == 2 and "--yes" in err
    code, out, _ = run(capsys, "delete", listed[0]["id"], "--yes")
    assert code == 0 and "Deleted" in out
    code, out, _ = run(capsys, "list")
    assert "No projects yet" in out
    code, _, err = run(capsys, "rename", "Ghost", "X")
    assert code == 1 and "no project named" in err


def test_import_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    path = fixture_path("one-bullet")
    code, out, _ = run(capsys, "import", str(path))
    assert code == 0
    assert "as project 'One Bullet'" in out
    assert "Hotkeys" in out and "_design" in out and "design document" in out
    code, out, _ = run(capsys, "import", str(path), "--name", "OB", "--json")
    report = json.loads(out)
    assert report["projectName"] == "OB" and report["counts"]["Script"] == {"imported": 11, "converted": 11,
                                                                              "skipped": 0}
    assert sorted(p.name for p in ProjectManager().list()) == ["OB", "One Bullet"]


def test_import_of_a_non_dump_fails_cleanly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    code, _, err = run(capsys, "import", str(bad))
    assert code == 1 and "storyloom: error:" in err and "not JSON" in err
    assert ProjectManager().list() == []


def test_backup_and_restore(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(capsys, "new", "Src")
    file = tmp_path / "src.json"
    code, out, _ = run(capsys, "backup", "Src", "-o", str(file))
    assert code == 0 and file.exists()
    code, _, err = run(capsys, "restore", str(file))
    assert code == 1 and "already exists" in err
    code, out, _ = run(capsys, "restore", str(file), "--new-id")
    assert code == 0 and "Src (2)" in out
    code, out, _ = run(capsys, "restore", str(file), "--new-id", "--name", "Third")
    assert code == 0 and "'Third'" in out
    assert sorted(p.name for p in ProjectManager().list()) == ["Src", "Src (2)", "Third"]
