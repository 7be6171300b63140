"""A damaged project from the command line: ``check`` names the damage and says what to do,
every other verb says "damaged" (exit 1, never "a bug", exit 70), and ``salvage`` copies what
still reads into a new project."""

from __future__ import annotations

import json

import pytest

from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager

SECRET = "the-lighthouse-keeper-lies"


def _project_with_damage(damage: bool = True) -> None:
    project = ProjectManager(username="t").create("harbour")
    project.store.bulk_docs([{"_id": f"script-{i:02d}", "type": "Script", "name": f"S{i}", "collection": "Script",
                              "content": f"::Mara:: {SECRET} {i:02d}\n"} for i in range(20)])
    path = project.path / "store.sqlite3"
    project.close()
    if damage:
        data = path.read_bytes()
        needle = f"{SECRET} 07".encode()
        assert data.count(needle) == 1
        path.write_bytes(data.replace(needle, needle.replace(b"lies", b"lied")))


def test_check_names_the_damaged_document_and_what_to_do(capsys) -> None:
    _project_with_damage()
    assert main(["check", "harbour"]) == 1
    out = capsys.readouterr().out
    assert "damaged: document 'script-07': revision 1-" in out
    assert "storyloom salvage harbour NEWNAME" in out and "storyloom backups harbour" in out
    assert SECRET not in out
    assert main(["check", "harbour", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["damaged"] == 1
    assert report["damage"][0]["docId"] == "script-07" and report["damage"][0]["attachment"] is None


def test_check_of_a_whole_store_still_lists_problems(capsys) -> None:
    _project_with_damage(damage=False)
    code = main(["check", "harbour"])
    out = capsys.readouterr().out
    assert "damaged" not in out and "documents of harbour" in out
    assert code in (0, 1)


@pytest.mark.parametrize("verb", [["dump", "harbour", "-o", "{tmp}/dump.json"], ["export", "harbour", "-o",
                                  "{tmp}/game.json"], ["doc", "get", "harbour", "script-07"]])
def test_every_verb_says_damaged_not_bug(capsys, tmp_path, verb: list[str]) -> None:
    _project_with_damage()
    code = main([part.format(tmp=tmp_path) for part in verb])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "damaged" in err and "script-07" in err
    assert "bug" not in err and SECRET not in err
    assert "storyloom check harbour" in err


def test_salvage_copies_what_reads_and_lists_the_rest(capsys) -> None:
    _project_with_damage()
    assert main(["salvage", "harbour", "rescued", "-q"]) == 1
    out = capsys.readouterr().out
    assert "script-07" in out and "review it" in out  # decodes: copied, flagged for review
    rescued = ProjectManager(username="t").open("rescued")
    try:
        assert rescued.db.get("script-03")["content"] == f"::Mara:: {SECRET} 03\n"
        original_rev = rescued.db.get("script-03")["_rev"]
        assert original_rev.startswith("1-")  # revision histories are kept
        assert rescued.db.get("script-07")["content"].startswith("::Mara::")
        assert rescued.settings()["projectName"] == "rescued"
        assert rescued.id != ProjectManager(username="t").find("harbour").id
    finally:
        rescued.close()
    assert main(["check", "rescued"]) in (0, 1)
    assert "damaged" not in capsys.readouterr().out


def test_salvage_of_a_whole_project_copies_everything_and_exits_0(capsys) -> None:
    _project_with_damage(damage=False)
    assert main(["salvage", "harbour", "copy", "-q"]) == 0
    assert "salvaged 21 documents" in capsys.readouterr().out
    manager = ProjectManager(username="t")
    source, copy = manager.open("harbour"), manager.open("copy")
    try:
        for i in range(20):
            assert copy.db.get(f"script-{i:02d}") == source.db.get(f"script-{i:02d}")
    finally:
        source.close()
        copy.close()
