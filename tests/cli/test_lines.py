"""``storyloom lines PROJECT --actor NAME [--json]``: every line of an actor from the same query as
the actor editor's "All lines", on the real Garden sample."""

from __future__ import annotations

import json

import pytest

from storyloom.cli.main import main
from storyloom.drafft import import_backup
from storyloom.project import ProjectManager
from tests.support.fixtures import DRAFFT_PROJECTS

WOMAN = "133c644d-52c6-4cca-a999-8940e7941880"


@pytest.fixture
def garden() -> str:
    project, _report = import_backup(ProjectManager(username="t"),
                                     DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json", name="Garden")
    project.close()
    return "Garden"


def test_lines_prints_each_line_of_the_actor_then_a_count(garden: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lines", garden, "--actor", "woman"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 15 and out[-1].startswith("14 lines of woman in ") and out[-1].endswith(" of Garden")
    doc_id, rest = out[0].split(" ", 1)
    assert doc_id.count("-") == 4  # the Script's Drafft uuid
    assert rest.startswith('"') and ": " in rest
    number = rest.split('" ', 1)[1].split(":", 1)[0].split(" ")[0]
    assert number.isdigit()


def test_lines_json_has_document_line_text_expression_and_nodes(garden: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lines", garden, "--actor", "Woman", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["actorId"] == WOMAN and report["count"] == len(report["lines"]) == 14
    first = report["lines"][0]
    assert set(first) == {"docId", "docName", "line", "text", "expression", "tag", "speaker", "nodes"}
    assert isinstance(first["line"], int) and first["text"] and first["nodes"][0]["dialogueId"]


def test_lines_of_nobody_exit_1_and_say_so(garden: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lines", garden, "--actor", "Nobody"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["0 lines of Nobody in 0 documents of Garden"]
    assert "no actor and no speaker named 'Nobody'" in captured.err
