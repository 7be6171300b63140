"""Partial files: a writer killed midway leaves its temporary file, the next writer in that
folder removes it, and a writer still running keeps its own (real processes, real SIGKILL)."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import storyloom
from storyloom.cli.main import main
from storyloom.output_files import (
    EMPTY_GRACE,
    TEMP_PATTERN,
    AtomicFile,
    OutputExists,
    remove_stale_temps,
    write_chunks,
    writer_alive,
)
from storyloom.project.manager import ProjectManager

pytestmark = pytest.mark.integration  # storyloom CLIs and writers in subprocesses, killed midway

SRC = str(Path(storyloom.__file__).resolve().parent.parent)
TIMEOUT = 120


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "STORYLOOM_HOME": str(home), "PYTHONPATH": SRC}


def temps(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if TEMP_PATTERN.match(p.name))


def big_project(name: str, images: int = 10, size: int = 4 << 20) -> dict[str, bytes]:
    """A project of ``images`` attachments of ``size`` random bytes (a backup of about 1.3 times
    their total: long enough to be killed midway); its attachments' bytes by document id."""
    blobs = {}
    with ProjectManager(username="tester").create(name) as project:
        for index in range(images):
            data = os.urandom(size)
            doc = project.editor.create("Attachment", f"picture {index}", mimeType="application/octet-stream",
                                        _attachments={"blob": {"content_type": "application/octet-stream",
                                                               "data": base64.b64encode(data).decode()}})
            blobs[doc.id] = data
    return blobs


def test_a_killed_backup_leaves_a_partial_file_which_the_next_backup_removes(storyloom_home: Path,
                                                                             tmp_path: Path) -> None:
    blobs = big_project("Big")
    folder = tmp_path / "backups"
    child = subprocess.Popen([sys.executable, "-m", "storyloom", "backup", "Big", "-o", f"{folder}/"],
                             env=env(storyloom_home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + TIMEOUT
        partial: list[Path] = []
        while not partial and child.poll() is None and time.monotonic() < deadline:
            if folder.is_dir():
                partial = [p for p in temps(folder) if p.stat().st_size > 0]
            time.sleep(0.001)
        assert partial, "the backup finished (or failed) before it could be killed"
        child.send_signal(signal.SIGSTOP)  # frozen mid-write, so the kill lands before the rename
        assert temps(folder) == partial and not list(folder.glob("Big-*.json"))
        child.send_signal(signal.SIGKILL)
        assert child.wait(TIMEOUT) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait(TIMEOUT)
    [left] = partial
    left_size = left.stat().st_size  # part of a backup, under a hidden name
    assert left_size > 0 and not list(folder.glob("Big-*.json"))

    # The next backup into that folder removes it, and writes a whole backup.
    assert main(["backup", "Big", "-o", f"{folder}/"]) == 0
    assert temps(folder) == [] and not left.exists()
    [written] = folder.glob("Big-*.json")
    assert written.stat().st_size > left_size
    dump = json.loads(written.read_text(encoding="utf-8"))
    assert {row["id"] for row in dump["rows"]} >= set(blobs)
    with ProjectManager(username="tester").restore(written, "Big again", new_id=True) as restored:
        for doc_id, data in blobs.items():
            assert restored.db.get_attachment(doc_id, "blob") == data


WRITER = """
import sys
from storyloom.output_files import AtomicFile
out = AtomicFile(sys.argv[1])
out.write(b"first half, ")
print(out.temp, flush=True)
sys.stdin.readline()  # until the test says so
out.write(b"second half")
print(out.commit(), flush=True)
"""


def test_a_running_writer_keeps_its_partial_file_through_another_backup(storyloom_home: Path, tmp_path: Path) -> None:
    with ProjectManager(username="tester").create("Small") as project:
        project.editor.create("Item", "Key")
    target = tmp_path / "export.json"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], env=env(storyloom_home),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdin is not None
        temp = Path(writer.stdout.readline().strip())
        assert temp.exists() and TEMP_PATTERN.match(temp.name)
        os.utime(temp, (time.time() - 3600, time.time() - 3600))  # old, too: only its lock keeps it
        # Another process's backup into the same folder runs its cleanup there.
        assert main(["backup", "Small", "-o", str(tmp_path)]) == 0
        assert remove_stale_temps(tmp_path) == []
        assert temp.exists()
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert Path(writer.stdout.readline().strip()) == target
        assert writer.wait(TIMEOUT) == 0
    finally:
        writer.kill()
        writer.wait(TIMEOUT)
    assert target.read_bytes() == b"first half, second half"
    assert temps(tmp_path) == [] and len(list(tmp_path.glob("Small-*.json"))) == 1


def test_which_temporary_files_a_cleanup_removes(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    pid = int(dead.stdout)
    with_data = tmp_path / f".game.json.storyloom-{pid}-0123abcd.tmp"
    with_data.write_bytes(b"half an export")
    empty = tmp_path / f".game.json.storyloom-{pid}-4567cdef.tmp"
    empty.write_bytes(b"")
    others = [tmp_path / ".game.json.abcd1234.tmp", tmp_path / "notes.tmp", tmp_path / "game.json",
              tmp_path / f".x.storyloom-{pid}-zzzzzzzz.tmp"]
    for path in others:
        path.write_text("not a temporary of Storyloom's")
    # An empty one may be a writer's between creating and locking it: kept while it is new.
    assert remove_stale_temps(tmp_path) == [with_data]
    assert empty.exists()
    old = time.time() - EMPTY_GRACE - 5
    os.utime(empty, (old, old))
    assert remove_stale_temps(tmp_path) == [empty]
    assert all(path.exists() for path in others)
    assert remove_stale_temps(tmp_path / "no such folder") == []


def test_the_fallback_liveness_check_of_the_writer_named_in_a_temporary(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert writer_alive(sleeper.pid) and writer_alive(os.getpid())
    finally:
        sleeper.kill()
        sleeper.wait(TIMEOUT)
    assert not writer_alive(sleeper.pid) and not writer_alive(0)


def test_a_file_that_must_not_be_replaced(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    target.write_text("kept")
    with pytest.raises(OutputExists, match="exists already"):
        write_chunks(target, ["new"], replace=False)
    assert target.read_text() == "kept" and temps(tmp_path) == []
    # In a folder the person did not name a file in: the next free number.
    assert write_chunks(target, ["second"], replace=False, numbered=True) == (tmp_path / "b-2.json", 6)
    (tmp_path / "b-3.json").mkdir()
    assert write_chunks(target, ["fourth"], replace=False, numbered=True)[0] == tmp_path / "b-4.json"
    assert target.read_text() == "kept" and (tmp_path / "b-2.json").read_text() == "second"
    # A writer that fails midway leaves nothing.
    with pytest.raises(RuntimeError), AtomicFile(tmp_path / "c.json") as out:
        out.write("half")
        raise RuntimeError("stopped")
    assert not (tmp_path / "c.json").exists() and temps(tmp_path) == []


def test_a_long_name_gets_a_temporary_file_that_fits(tmp_path: Path) -> None:
    target = tmp_path / ("\U0001d11e" * 62 + ".json")  # 253 bytes (67 characters): near the 255 limit
    assert write_chunks(target, ["long"]) == (target, 4)
    assert target.read_text() == "long" and temps(tmp_path) == []
