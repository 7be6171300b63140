"""Every line of an actor (``storyloom.project.actor_lines``): the speaker rule (name or alias,
ignoring case and spaces, the expression apart), the lines' numbers, texts and expressions, the
dialogue nodes that play each line's Script; on the real Garden sample and on the built-in one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.drafft import import_backup
from storyloom.project import actor_lines, speaker_key
from storyloom.project.sample import create_sample_project
from tests.support.fixtures import DRAFFT_PROJECTS


@pytest.fixture
def workspace() -> Iterator[Workspace]:
    ws = Workspace(options=AppOptions(username="ana"))
    yield ws
    ws.close()


@pytest.fixture
def session(workspace: Workspace) -> Iterator[Any]:
    workspace.manager.create("Lines").close()
    with workspace.open_session("Lines") as opened:
        yield opened


def test_speaker_keys_ignore_case_and_spaces() -> None:
    assert speaker_key("  Mara ") == speaker_key("MARA") == "mara"
    assert speaker_key(None) == ""


def test_the_lines_of_an_actor_by_name_or_alias_with_expressions_and_dialogue_nodes(session: Any) -> None:
    editor = session.editor
    mara = editor.create("Actor", "Mara", alias="mv").id
    first = editor.create("Script", "A first", content={"script": (
        "// intro\n"
        "::Mara:: Hello. [angry]\n"
        "::Bo:: Mara says hi.\n"  # her name in another's line: not hers
        "@if v.x\n"
        "  [#m2] :: mara :: Inside a branch. {\"camera\": \"close\"}\n"
        "@endif\n"
        "::MV:: By alias. [sad]\n")}).id
    second = editor.create("Script", "B second", content={"script": "::Mara:: Again.\n"}).id
    editor.create("Script", "C none", content={"script": "::Bo:: Nothing of hers.\n"})
    graph = {"nodes": [
        {"id": "s", "type": "base", "position": {"x": 0, "y": 0},
         "data": {"nodeType": "start", "label": "Start", "handles": [{"id": "o", "type": "source"}]}},
        {"id": "n1", "type": "base", "position": {"x": 100, "y": 0},
         "data": {"nodeType": "script", "label": "Greeting", "scriptId": first,
                  "handles": [{"id": "i", "type": "target"}, {"id": "o", "type": "source"}]}},
    ], "edges": []}
    dialogue = editor.create("Dialogue", "Meeting", content={"tree": graph}).id

    found = actor_lines(session.db, session.index, "mara")
    assert found.actor_id == mara and found.keys == {"mara", "mv"}
    assert [(line.doc_id, line.line, line.text, line.expression) for line in found.lines] == [
        (first, 2, "Hello.", "angry"),
        (first, 5, "Inside a branch.", None),
        (first, 7, "By alias.", "sad"),
        (second, 1, "Again.", None),
    ]
    assert found.lines[1].tag == "m2" and found.documents == 2 and len(found) == 4
    assert [(n.dialogue_id, n.dialogue_name, n.node_id, n.label) for n in found.lines[0].nodes] == [
        (dialogue, "Meeting", "n1", "Greeting")]
    assert found.lines[3].nodes == ()
    assert found.expressions() == {"": 2, "angry": 1, "sad": 1}
    assert found.lines[0].to_dict()["nodes"][0]["nodeId"] == "n1"

    stranger = actor_lines(session.db, session.index, "Nobody")
    assert stranger.actor_id is None and stranger.lines == []


def test_the_garden_sample_lines_of_the_woman(workspace: Workspace) -> None:
    project, _report = import_backup(workspace.manager, DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json",
                                     name="Garden")
    project.close()
    with workspace.open_session("Garden") as session:
        woman = actor_lines(session.db, session.index, "Woman")
        assert woman.actor_id == "133c644d-52c6-4cca-a999-8940e7941880"
        assert len(woman) == 14  # every ::Woman:: line of the sample's scripts
        assert all(line.nodes for line in woman.lines)  # every one is played by a dialogue node
        echo = actor_lines(session.db, session.index, "Memory Echo")  # a speaker without an Actor
        assert echo.actor_id is None and len(echo) == 2


def test_the_built_in_sample_gives_every_actor_lines_with_expressions(workspace: Workspace) -> None:
    create_sample_project(workspace.manager).close()
    with workspace.open_session("The Lighthouse Keeper") as session:
        wren = actor_lines(session.db, session.index, "wren")  # her alias
        assert session.db.get(wren.actor_id)["name"] == "Wren Hale" and len(wren) > 10
        assert {"determined", "neutral", "shocked"} <= set(wren.expressions())



def test_a_second_query_reads_only_what_was_written_since(session: Any) -> None:
    editor = session.editor
    editor.create("Actor", "Mara")
    scripts = [editor.create("Script", f"S{i}", content={"script": f"::Mara:: Line {i}.\n"}).id for i in range(6)]
    first = actor_lines(session.db, session.index, "Mara")
    assert len(first) == 6 and first.read == 7  # the six Scripts and the Actor
    again = actor_lines(session.db, session.index, "Mara")
    assert again.lines == first.lines and again.read == 0
    editor.patch(scripts[2], {"content": {"script": "::Mara:: Changed. [sad]\n::Mara:: Added.\n"}})
    editor.delete(scripts[4])
    later = actor_lines(session.db, session.index, "Mara")
    assert later.read == 1 and len(later) == 6
    assert [(line.text, line.expression) for line in later.lines if line.doc_id == scripts[2]] == [
        ("Changed.", "sad"), ("Added.", None)]
    assert scripts[4] not in {line.doc_id for line in later.lines}
