"""Project names: refused when they would break a verb or a terminal, with the culprit named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from storyloom.cli.explain import say as cli_say
from storyloom.cli.main import main
from storyloom.drafft import DrafftImportError, import_backup
from storyloom.project.manager import InvalidProjectName, ProjectManager, _write_meta
from storyloom.project.names import MAX_NAME_LENGTH, display_name, name_problem

from .conftest import fixture_dump, fixture_path

# (name, what the message must say)
BAD_NAMES = [
    ("a/b", "'/' at position 2"),
    ("Act\\1", "'\\\\' at position 4"),
    ("..", "cannot be '..'"),
    (".", "cannot be '.'"),
    ("red\x1b[31m", "U+001B at position 4, a control character"),
    ("tab\there", "U+0009 at position 4"),
    ("nul\x00", "U+0000 at position 4"),
    ("del\x7f", "U+007F at position 4"),
    ("c1\x9b", "U+009B at position 3"),
    ("two\nlines", "U+000A at position 4"),
    ("line\u2028sep", "U+2028 (LINE SEPARATOR) at position 5"),
    ("evil\u202egnp.exe", "U+202E (RIGHT-TO-LEFT OVERRIDE) at position 5"),
    ("x" * (MAX_NAME_LENGTH + 1), f"at most {MAX_NAME_LENGTH} characters; this one has {MAX_NAME_LENGTH + 1}"),
    ("", "empty"),
    ("   ", "empty"),
    ("bad\udcff", "not valid UTF-8 text (byte 0xFF at position 4)"),
]
GOOD_NAMES = ["To be continued...", "Ünïcödé 世界 🎲", "a" * MAX_NAME_LENGTH, "v1.2 (final) - draft #3", "..a.."]


@pytest.mark.parametrize(("name", "expected"), BAD_NAMES)
def test_bad_names_are_refused_with_the_reason(name: str, expected: str) -> None:
    problem = name_problem(name)
    assert problem is not None and expected in problem


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_ordinary_names_are_accepted(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(("name", "expected"), BAD_NAMES)
def test_create_and_rename_refuse_bad_names(manager: ProjectManager, name: str, expected: str) -> None:
    with pytest.raises(InvalidProjectName) as info:
        manager.create(name)
    assert expected in str(info.value)
    with manager.create("Fine") as project:
        with pytest.raises(InvalidProjectName) as info:
            manager.rename(project, name)
        assert expected in str(info.value)
        assert project.name == "Fine"
    assert [p.name for p in manager.list()] == ["Fine"]


def test_import_and_restore_refuse_a_bad_name(manager: ProjectManager, tmp_path: Path) -> None:
    with pytest.raises(DrafftImportError, match="'/' at position 2"):
        import_backup(manager, fixture_path("one-bullet"), name="a/b")
    with manager.create("Source") as source:
        backup = manager.backup(source, tmp_path / "source.json")
    with pytest.raises(InvalidProjectName, match=r"U\+001B at position 2"):
        manager.restore(backup, "a\x1b]0;title\x07", new_id=True)
    assert [p.name for p in manager.list()] == ["Source"]


def test_a_backup_whose_own_name_is_bad_asks_for_another(manager: ProjectManager, tmp_path: Path) -> None:
    dump = json.loads(json.dumps(fixture_dump("one-bullet")))
    settings = next(row["doc"] for row in dump["rows"] if row["id"] == "ProjectSettings")
    settings["projectName"] = "Chapter 1/2"
    drafft = tmp_path / "drafft.json"
    drafft.write_text(json.dumps(dump), encoding="utf-8")
    with pytest.raises(DrafftImportError) as refused:
        import_backup(manager, drafft)
    assert re.search(r"'/' at position 10.*--name NAME", cli_say(refused.value))  # the command line's words
    project, _ = import_backup(manager, drafft, name="Chapter 1 of 2")
    project.close()

    with manager.create("Clean") as source:
        backup = manager.backup(source, tmp_path / "clean.json")
    text = backup.read_text(encoding="utf-8").replace('"projectName":"Clean"', '"projectName":"a/b"')
    assert '"a/b"' in text
    backup.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidProjectName) as invalid:
        manager.restore(backup, new_id=True)
    assert re.search(r"'/' at position 2.*--name NAME", cli_say(invalid.value))
    manager.restore(backup, "Restored", new_id=True).close()
    assert sorted(p.name for p in manager.list()) == ["Chapter 1 of 2", "Clean", "Restored"]


def test_the_cli_says_which_character_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "a/b"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("storyloom: error: the project name 'a/b' contains '/' at position 2, a path separator")
    assert main(["new", "ok"]) == 0
    capsys.readouterr()
    assert main(["rename", "ok", "x" * 201]) == 1
    assert "at most 200 characters" in capsys.readouterr().err
    assert main(["import", str(fixture_path("one-bullet")), "--name", ".."]) == 1
    assert "cannot be '..'" in capsys.readouterr().err


def test_list_escapes_control_characters_of_names_made_before_the_rules(
    manager: ProjectManager, capsys: pytest.CaptureFixture[str]
) -> None:
    with manager.create("Legacy") as project:
        folder = project.path
    meta = json.loads((folder / "project.json").read_text(encoding="utf-8"))
    meta["name"] = "Legacy\x1b[2J\u202e"
    _write_meta(folder, meta)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    assert "Legacy\\x1b[2J\\u202e" in out
    assert display_name("plain") == "plain"
