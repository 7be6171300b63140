"""The Scene editor's rules without Qt: items added, moved, removed and started elsewhere as new
lists (the input never changes), what the playlist shows, the start choices, and the program a
scene plays; the items written through the gate are what the export reads."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.export.game_export import build_game_export
from storyloom.play.player import PlayItem
from storyloom.play.scenes import (
    SceneItemError,
    describe_items,
    insert_item,
    line_choices,
    move_item,
    new_item,
    node_choices,
    remove_item,
    scene_items,
    scene_program,
    set_start,
)
from storyloom.project.sample import create_sample_project

SCRIPT = {"_id": "s1", "type": "Script", "name": "Arrival",
          "content": {"script": "// a comment\n::A:: Hello\n\n@if v.p.x\n  Text\n@endif\n"}}
DIALOGUE = {"_id": "d1", "type": "Dialogue", "name": "Talk", "content": {"tree": {"nodes": [
    {"id": "n2", "type": "base", "position": {"x": 0, "y": 0}, "data": {"label": "Ask", "nodeType": "choice"}},
    {"id": "n1", "type": "base", "position": {"x": 0, "y": 0}, "data": {"label": "Begin", "nodeType": "start"}},
    {"id": "n3", "type": "base", "position": {"x": 0, "y": 0}, "data": {"label": "", "nodeType": "note"}},
], "edges": []}}}
DOCS = {"s1": SCRIPT, "d1": DIALOGUE}


def test_items_are_edited_as_new_lists() -> None:
    items: list[dict] = []
    items = insert_item(items, 0, new_item(SCRIPT))
    items = insert_item(items, 1, new_item(DIALOGUE))
    assert items == [{"docId": "s1", "docType": "Script", "startLine": None, "startNode": None},
                     {"docId": "d1", "docType": "Dialogue", "startLine": None, "startNode": None}]
    moved = move_item(items, 1, 0)
    assert [i["docId"] for i in moved] == ["d1", "s1"] and [i["docId"] for i in items] == ["s1", "d1"]
    started = set_start(moved, 0, "n2")
    started = set_start(started, 1, 4)
    assert started[0]["startNode"] == "n2" and started[1]["startLine"] == 4 and moved[0]["startNode"] is None
    assert set_start(started, 0, None)[0]["startNode"] is None
    assert remove_item(started, 0) == [started[1]]
    with pytest.raises(SceneItemError, match="scripts and dialogues, not a Actor"):
        new_item({"_id": "a", "type": "Actor"})
    with pytest.raises(SceneItemError, match="no item 3"):
        move_item(items, 2, 0)
    with pytest.raises(SceneItemError, match="line number"):
        set_start(items, 0, "n1")
    with pytest.raises(SceneItemError, match="node id"):
        set_start(items, 1, 3)


def test_what_the_playlist_shows() -> None:
    items = [dict(new_item(SCRIPT), startLine=4), dict(new_item(DIALOGUE), startNode="n2"), new_item(DIALOGUE),
             {"docId": "gone", "docType": "Script", "startLine": None, "startNode": None},
             dict(new_item(SCRIPT), startLine=3), dict(new_item(SCRIPT), startLine=40),
             {"docId": "d1", "docType": "Script", "startLine": None, "startNode": None},
             dict(new_item(DIALOGUE), startNode="zz")]
    views = describe_items(items, DOCS.get)
    assert [(v.name, v.start, v.problem) for v in views] == [
        ("Arrival", "from line 4: @if v.p.x", ""),
        ("Talk", "from 'Ask'", ""),
        ("Talk", "from Start", ""),
        ("gone", "", "this document does not exist any more"),
        ("Arrival", "from line 3 (blank or a comment: plays from line 4)", ""),
        ("Arrival", "from line 40", "the script has no line 40 or after it"),
        ("Talk", "", "this is a Dialogue, not a Script"),
        ("Talk", "from a node", "the dialogue has no such node any more"),
    ]


def test_start_choices() -> None:
    assert line_choices(SCRIPT) == [(2, "::A:: Hello"), (4, "@if v.p.x"), (5, "Text"), (6, "@endif")]
    assert node_choices(DIALOGUE) == [("n1", "Begin (start)"), ("n2", "Ask (choice)")]  # notes are not played
    assert scene_items({"content": {"items": [{"docId": "s1", "docType": "Script"}, 3]}}) == [
        {"docId": "s1", "docType": "Script", "startLine": None, "startNode": None}]


def test_a_scene_program() -> None:
    items = [dict(new_item(SCRIPT), startLine=4), dict(new_item(DIALOGUE), startNode="n2"),
             {"docId": "x", "docType": "Actor"}, dict(new_item(SCRIPT), startLine=True)]
    assert scene_program(items) == [PlayItem("s1", "Script", start_line=4),
                                    PlayItem("d1", "Dialogue", start_node="n2"), PlayItem("s1", "Script")]


def test_edited_items_are_saved_as_the_export_reads_them() -> None:
    workspace = Workspace(options=AppOptions(username="tester"))
    with create_sample_project(workspace.manager, "Sample") as project:
        scene = next(d for d in project.editor.documents() if d.get("type") == "Scene")
        items = scene_items(scene)
        items = move_item(items, 2, 0)
        items = set_start(items, 1, 5)
        result = project.editor.patch(scene["_id"], {"content": dict(scene["content"], items=items)},
                                      rev=scene["_rev"])
        assert result.warnings == []
        exported = build_game_export(project)
        scenes = [d for section in exported.values() if isinstance(section, list)
                  for d in section if isinstance(d, dict) and d.get("_id") == scene["_id"]]
        assert scenes and scenes[0]["content"]["items"] == items
    workspace.close()
