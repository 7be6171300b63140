"""Where ``-o`` writes, for every verb that writes a file (backup, export, schema, dump): a folder
gets the verb's default name inside it, a backup never replaces a file without ``--force``, an
export replaces the file it names, and nothing ever replaces a folder.

The verbs run in this process through ``main`` (real files in a temporary folder); the
partial-file tests run ``storyloom`` as real processes, killed with a real SIGKILL.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.output_files import TEMP_PATTERN
from storyloom.project.manager import ProjectManager


@pytest.fixture
def project() -> str:
    with ProjectManager(username="tester").create("The Goddess") as created:
        created.editor.create("Item", "Sword")
    return "The Goddess"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if TEMP_PATTERN.match(p.name) or p.name.endswith(".tmp"))


def backup_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("The_Goddess-*.json"))


def is_backup_of(file: Path, item: str = "Sword") -> bool:
    dump = json.loads(file.read_text(encoding="utf-8"))
    return any(row["doc"].get("name") == item for row in dump["rows"])


# -- backup ------------------------------------------------------------------------------------


def test_backup_into_a_folder_that_does_not_exist_creates_it(project: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "backups" / "nightly"
    code, out, _ = run(capsys, "backup", project, "-o", f"{folder}/")
    assert code == 0
    [name] = backup_names(folder)
    assert name.startswith("The_Goddess-") and str(folder / name) in out
    assert is_backup_of(folder / name)
    # Again at once, maybe within the same second: a second file beside the first, none replaced.
    assert run(capsys, "backup", project, "-o", f"{folder}/")[0] == 0
    assert len(backup_names(folder)) == 2 and temps(folder) == []
    assert all(is_backup_of(folder / name) for name in backup_names(folder))


def test_backup_into_an_existing_folder_named_without_a_slash(project: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    code, out, _ = run(capsys, "backup", project, "-o", str(folder))
    assert code == 0
    [name] = backup_names(folder)
    assert out.strip().endswith(f"{folder / name}") and is_backup_of(folder / name)


def test_backup_refuses_an_existing_file_and_replaces_it_with_force(project: str, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # The README's example where the folder is missing and has no slash: a file named `backups`.
    file = tmp_path / "backups"
    assert run(capsys, "backup", project, "-o", str(file))[0] == 0
    assert file.is_file() and is_backup_of(file)
    with ProjectManager(username="tester").open(project) as opened:
        opened.editor.create("Item", "Shield")
    before = file.read_bytes()
    code, out, err = run(capsys, "backup", project, "-o", str(file))
    assert code == 1 and out == ""
    assert err == (f"storyloom: error: {file} exists already; pass --force to replace it, or choose another "
                   "name\n")
    assert file.read_bytes() == before and temps(tmp_path) == []
    assert run(capsys, "backup", project, "-o", str(file), "--force")[0] == 0
    assert is_backup_of(file, "Shield") and temps(tmp_path) == []


def test_backup_never_replaces_a_folder_and_needs_the_folder_of_a_file(project: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "backup", project, "-o", str(tmp_path / "missing" / "b.json"))
    assert code == 1 and "the folder" in err and "does not exist" in err
    assert not (tmp_path / "missing").exists()
    (tmp_path / "file").write_text("a file")
    code, _, err = run(capsys, "backup", project, "-o", f"{tmp_path / 'file'}/")
    assert code == 1 and "a file has that name" in err
    # --force replaces files, never the folder -o names.
    folder = tmp_path / "kept"
    (folder / "old").mkdir(parents=True)
    assert run(capsys, "backup", project, "-o", str(folder), "--force")[0] == 0
    assert (folder / "old").is_dir() and len(backup_names(folder)) == 1


def test_without_o_the_backup_goes_to_the_current_folder(project: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "backup", project)[0] == 0
    assert run(capsys, "backup", project)[0] == 0
    assert len(backup_names(tmp_path)) == 2


# -- export, schema, dump ----------------------------------------------------------------------


@pytest.mark.parametrize(("verb", "name"), [
    ("export", "the-goddess.json"), ("schema", "the-goddess.schema.json"), ("dump", "the-goddess.dump.json"),
])
def test_o_naming_a_folder_writes_the_default_name_inside(verb: str, name: str, project: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    absent = tmp_path / "build" / "content"
    assert run(capsys, verb, project, "-o", f"{absent}/")[0] == 0
    assert json.loads((absent / name).read_text(encoding="utf-8"))
    present = tmp_path / "present"
    present.mkdir()
    assert run(capsys, verb, project, "-o", str(present))[0] == 0
    assert json.loads((present / name).read_text(encoding="utf-8"))
    # Run again (a build script): the file in the folder is replaced, nothing else appears.
    assert run(capsys, verb, project, "-o", str(present))[0] == 0
    assert sorted(p.name for p in present.iterdir()) == [name]


def test_export_replaces_a_file_it_names_but_never_a_folder(project: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    out.write_text("yesterday's export")
    assert run(capsys, "export", project, "-o", str(out), "--schema-sidecar")[0] == 0
    assert json.loads(out.read_text(encoding="utf-8"))["items"][0]["name"] == "Sword"
    assert json.loads((tmp_path / "game.schema.json").read_text(encoding="utf-8"))["$schema"]
    assert temps(tmp_path) == []
    # A folder where the sidecar goes is never replaced by it.
    (tmp_path / "game.schema.json").unlink()
    (tmp_path / "game.schema.json").mkdir()
    code, _, err = run(capsys, "export", project, "-o", str(out), "--schema-sidecar")
    assert code == 1 and "is a folder" in err
    assert (tmp_path / "game.schema.json").is_dir() and temps(tmp_path) == []
    code, _, err = run(capsys, "schema", project, "-o", str(tmp_path / "no" / "s.json"))
    assert code == 2 and "does not exist" in err


def test_files_written_are_ordinary_files(project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    for verb in ("export", "backup"):
        assert run(capsys, verb, project, "-o", str(tmp_path / f"{verb}.json"))[0] == 0
        assert (tmp_path / f"{verb}.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_the_apps_export_follows_the_same_rules(project: str, tmp_path: Path) -> None:
    from storyloom.app.export_files import ExportChoices, export_game_content, export_schema

    folder = tmp_path / "exports"
    with ProjectManager(username="tester").open(project) as opened:
        game = export_game_content(opened, ExportChoices(output=f"{folder}/", schema_sidecar=True), exported_by="t")
        schema = export_schema(opened, ExportChoices(output=str(folder)))
    assert [name for name, _ in game.files] == [str(folder / "the-goddess.json"),
                                                  str(folder / "the-goddess.schema.json")]
    assert [name for name, _ in schema.files] == [str(folder / "the-goddess.schema.json")]  # replaced
    assert sorted(p.name for p in folder.iterdir()) == ["the-goddess.json", "the-goddess.schema.json"]
