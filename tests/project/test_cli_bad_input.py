"""The CLI meets bad input with a message, never a traceback, and leaves nothing half-made.

Most cases run ``storyloom`` as a real process: argument decoding (bytes that are not UTF-8) and
a kill midway only happen there.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from storyloom.project.manager import MAX_NESTING, ProjectManager
from storyloom.project.staging import UNFINISHED_MARKER, UnfinishedMarker

from .conftest import fixture_path

pytestmark = pytest.mark.integration  # storyloom CLIs in subprocesses

TIMEOUT = 120


def storyloom(*args: str | bytes, home: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "storyloom", *args],
        capture_output=True, text=True, errors="backslashreplace", timeout=TIMEOUT,
        env={**os.environ, "STORYLOOM_HOME": str(home), "LC_ALL": "C.UTF-8"},
    )
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


def project_folders(home: Path) -> list[Path]:
    root = home / "projects"
    return sorted(root.iterdir()) if root.exists() else []


def deep_value(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = {"next": value}
    return value


def source_backup(home: Path, tmp_path: Path) -> dict:
    assert storyloom("new", "Source", home=home).returncode == 0
    file = tmp_path / "source.json"
    assert storyloom("backup", "Source", "-o", str(file), home=home).returncode == 0
    return json.loads(file.read_text(encoding="utf-8"))


# -- deeply nested JSON -------------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["import", "restore"])
def test_json_nested_beyond_the_parser_is_refused(verb: str, storyloom_home: Path, tmp_path: Path) -> None:
    file = tmp_path / "deep.json"
    file.write_text('{"rows": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    result = storyloom(verb, str(file), home=storyloom_home)
    assert result.returncode == 1
    assert f"storyloom: error: {file}: not a backup: its JSON nests arrays or objects too deeply" in result.stderr
    assert project_folders(storyloom_home) == []


@pytest.mark.parametrize("verb", ["import", "restore"])
def test_a_document_nested_too_deeply_is_refused(verb: str, storyloom_home: Path, tmp_path: Path) -> None:
    """Within what the JSON parser reads, but deeper than copies and encoders can follow."""
    if verb == "import":
        dump = json.loads(fixture_path("one-bullet").read_text(encoding="utf-8"))
    else:
        dump = source_backup(storyloom_home, tmp_path)
    doc = dump["rows"][-1]["doc"]
    doc["deep"] = deep_value(MAX_NESTING + 300)
    file = tmp_path / "deep-doc.json"
    file.write_text(json.dumps(dump), encoding="utf-8")
    folders_before = project_folders(storyloom_home)
    result = storyloom(verb, str(file), *(["--new-id"] if verb == "restore" else []), home=storyloom_home)
    assert result.returncode == 1
    assert f"(document {doc['_id']!r}) nests arrays or objects more than {MAX_NESTING} levels" in result.stderr
    assert project_folders(storyloom_home) == folders_before


def test_a_document_nested_within_the_limit_is_restored(storyloom_home: Path, tmp_path: Path) -> None:
    dump = source_backup(storyloom_home, tmp_path)
    dump["rows"][-1]["doc"]["deep"] = deep_value(MAX_NESTING - 2)
    file = tmp_path / "nested.json"
    file.write_text(json.dumps(dump), encoding="utf-8")
    result = storyloom("restore", str(file), "--new-id", "--name", "Nested", home=storyloom_home)
    assert result.returncode == 0, result.stderr


# -- malformed revisions ----------------------------------------------------------------------


@pytest.mark.parametrize("rev", ["garbage", "0-abc", "-1-abc", "3-", 7, None])
def test_restore_of_a_malformed_rev_is_refused(rev: object, storyloom_home: Path, tmp_path: Path) -> None:
    dump = source_backup(storyloom_home, tmp_path)
    doc = dump["rows"][0]["doc"]
    if rev is None:
        del doc["_rev"]
    else:
        doc["_rev"] = rev
    file = tmp_path / "bad-rev.json"
    file.write_text(json.dumps(dump), encoding="utf-8")
    result = storyloom("restore", str(file), "--new-id", home=storyloom_home)
    assert result.returncode == 1
    what = "has no _rev" if rev is None else f"has a malformed _rev {rev!r}"
    assert f"document {doc['_id']!r} {what}" in result.stderr
    assert "the backup is damaged" in result.stderr
    assert len(project_folders(storyloom_home)) == 1  # only the source


# -- backup -o --------------------------------------------------------------------------------


def test_backup_into_a_folder_writes_a_file_named_after_the_project(storyloom_home: Path, tmp_path: Path) -> None:
    assert storyloom("new", "My Game", home=storyloom_home).returncode == 0
    folder = tmp_path / "backups"
    folder.mkdir()
    result = storyloom("backup", "My Game", "-o", str(folder), home=storyloom_home)
    assert result.returncode == 0, result.stderr
    [written] = list(folder.iterdir())
    assert written.name.startswith("My_Game-") and written.suffix == ".json"
    assert f"to {written}" in result.stdout
    assert json.loads(written.read_text(encoding="utf-8"))["rows"]


def test_backup_into_a_missing_folder_is_a_clear_error(storyloom_home: Path, tmp_path: Path) -> None:
    assert storyloom("new", "Game", home=storyloom_home).returncode == 0
    target = tmp_path / "nowhere" / "game.json"
    result = storyloom("backup", "Game", "-o", str(target), home=storyloom_home)
    assert result.returncode == 1
    assert f"cannot write {target}: the folder {target.parent} does not exist" in result.stderr


def test_export_to_a_folder_writes_the_default_name_inside(storyloom_home: Path, tmp_path: Path) -> None:
    assert storyloom("new", "Game", home=storyloom_home).returncode == 0
    result = storyloom("export", "Game", "-o", str(tmp_path), home=storyloom_home)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))["_meta"]


# -- names that are not UTF-8 -------------------------------------------------------------------


def test_a_project_name_that_is_not_utf8_is_refused(storyloom_home: Path, tmp_path: Path) -> None:
    bad = b"caf\xe9"  # Latin-1, not UTF-8
    expected = "is not valid UTF-8 text (byte 0xE9 at position 4)"
    result = storyloom(b"new", bad, home=storyloom_home)
    assert result.returncode == 1 and expected in result.stderr
    assert storyloom("new", "Good", home=storyloom_home).returncode == 0
    for args in (
        [b"rename", b"Good", bad],
        [b"import", str(fixture_path("one-bullet")).encode(), b"--name", bad],
    ):
        result = storyloom(*args, home=storyloom_home)
        assert result.returncode == 1 and expected in result.stderr, result.stderr
    backup = tmp_path / "good.json"
    assert storyloom("backup", "Good", "-o", str(backup), home=storyloom_home).returncode == 0
    result = storyloom(b"restore", str(backup).encode(), b"--new-id", b"--name", bad, home=storyloom_home)
    assert result.returncode == 1 and expected in result.stderr
    result = storyloom(b"backup", bad, home=storyloom_home)  # a lookup: simply no such project
    assert result.returncode == 1 and "no project named" in result.stderr
    assert [p.name for p in ProjectManager().list()] == ["Good"]


# -- an import killed midway ------------------------------------------------------------------


def big_drafft_backup(file: Path, documents: int) -> None:
    rows = [{"id": "ProjectSettings", "key": "ProjectSettings", "value": {"rev": "1-a"},
             "doc": {"_id": "ProjectSettings", "_rev": "1-a", "projectName": "Big"}}]
    for index in range(documents):
        doc_id = str(uuid.uuid4())
        rows.append({"id": doc_id, "key": doc_id, "value": {"rev": "1-b"}, "doc": {
            "_id": doc_id, "_rev": "1-b", "type": "Script", "collection": "Script", "name": f"Script {index}",
            "parent": None, "content": {"script": f"Line {index}. " + "Hello there. " * 150},
        }})
    file.write_text(json.dumps({"total_rows": len(rows), "offset": 0, "rows": rows}), encoding="utf-8")


def test_an_import_killed_midway_leaves_nothing_listed_and_is_cleaned_up(storyloom_home: Path,
                                                                           tmp_path: Path) -> None:
    backup = tmp_path / "big.json"
    big_drafft_backup(backup, 20_000)  # about 45 MB: a second or more of writing
    child = subprocess.Popen(
        [sys.executable, "-m", "storyloom", "import", str(backup)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "STORYLOOM_HOME": str(storyloom_home)},
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        orphan = None
        while orphan is None and child.poll() is None and time.monotonic() < deadline:
            # Partway: the store holds data, and the project is not complete (no metadata yet).
            for store in (storyloom_home / "projects").glob("*/store.sqlite3*"):
                with contextlib.suppress(FileNotFoundError):
                    if store.stat().st_size > 1_000_000 and not (store.parent / "project.json").exists():
                        orphan = store.parent
            time.sleep(0.005)
        assert orphan is not None, "the import finished (or failed) before it could be killed"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(TIMEOUT)
    assert not (orphan / "project.json").exists(), "the import finished before the kill"
    assert sum(p.stat().st_size for p in orphan.iterdir()) > 1_000_000

    listed = storyloom("list", "--json", home=storyloom_home)  # the next start of a manager
    assert listed.returncode == 0 and json.loads(listed.stdout) == []
    assert not orphan.exists()
    assert project_folders(storyloom_home) == []


def test_a_build_still_running_is_neither_listed_nor_removed(manager: ProjectManager) -> None:
    """A marker held by a build in progress (here: this process) keeps its folder and hides it,
    even once the metadata is written; a marker nobody holds beside the metadata is only stale."""
    with manager.create("Done") as project:
        folder = project.path
    marker = UnfinishedMarker.create(folder)  # as a build between writing project.json and finishing
    try:
        assert ProjectManager().list() == []
        assert (folder / UNFINISHED_MARKER).exists()
    finally:
        marker.release()
    assert [p.name for p in ProjectManager().list()] == ["Done"]  # complete: only the marker goes
    assert not (folder / UNFINISHED_MARKER).exists()


def test_an_unheld_unfinished_folder_is_removed(manager: ProjectManager) -> None:
    folder = manager.root / str(uuid.uuid4())
    folder.mkdir()
    (folder / "store.sqlite3").write_bytes(b"")
    UnfinishedMarker.create(folder).release()  # its process died
    assert ProjectManager().list() == []
    assert not folder.exists()
