"""A full disk, for real (a small tmpfs): a write fails as DiskFull ("the change was not
saved"), everything acknowledged before it stays, and the store works again once space is
freed; the command line says so plainly (exit 1), never "a bug" or "not a Storyloom store"."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager
from storyloom.store import Database, DiskFull
from tests.support.small_disk import Filler, small_disk

pytestmark = pytest.mark.integration  # tmpfs mounts (root)


def test_a_write_on_a_full_disk_is_refused_and_loses_nothing(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "2m") as disk:
        db = Database(disk / "store.sqlite3")
        try:
            written = 0
            with pytest.raises(DiskFull) as caught:
                while True:
                    db.put({"_id": f"line-{written:05d}", "text": "words " * 400})
                    written += 1
            assert written > 10
            message = str(caught.value)
            assert message == (f"the disk holding {disk / 'store.sqlite3'} is full: the change was not saved; "
                               "free space and try again")
            assert caught.value.status == 507
            assert len(db.all_docs()["rows"]) == written  # every acknowledged write is there
            assert db.get("line-00000")["text"].startswith("words")
        finally:
            db.close()
        db = Database(disk / "store.sqlite3")  # reopened on the same full disk
        try:
            assert len(db.all_docs()["rows"]) == written
        finally:
            db.close()


def test_the_cli_says_the_disk_is_full_and_works_again_once_space_is_freed(tmp_path: Path, monkeypatch,
                                                                             capsys) -> None:
    with small_disk(tmp_path / "disk", "8m") as disk:
        monkeypatch.setenv("STORYLOOM_HOME", str(disk / "home"))
        ProjectManager(username="t").create("book").close()
        filler = Filler(disk)
        filler.fill(keep=64 * 1024)  # room to open the store, not for a long text
        long_text = "a sentence the writer typed. " * 20_000
        assert main(["doc", "set", "book", "ProjectSettings", f"description={long_text}"]) == 1
        err = capsys.readouterr().err
        assert "is full" in err and "free space and try again" in err
        assert "bug" not in err and "not a Storyloom store" not in err
        filler.fill()  # not a byte left: a read works, or says the disk is full
        code = main(["doc", "get", "book", "ProjectSettings", "--json"])
        out, err = capsys.readouterr()
        if code == 0:
            assert '"projectName": "book"' in out
        else:
            assert code == 1 and "is full" in err and "nothing was changed" in err
        assert "not a Storyloom store" not in err and "bug" not in err
        filler.fill()  # what the read's closing gave back (its index files)
        assert main(["backup", "book", "-o", str(disk / "book.json")]) == 1
        err = capsys.readouterr().err
        assert "is full" in err and "free space" in err  # the store (its opening) or the backup file
        assert not [p.name for p in disk.iterdir() if p.name.startswith((".book", "book"))]  # no partial backup
        filler.free()
        assert main(["doc", "set", "book", "ProjectSettings", "description=short"]) == 0
        capsys.readouterr()
        assert main(["check", "book"]) == 0
