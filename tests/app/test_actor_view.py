"""The actor editor's Expressions strip and All lines, Qt-free: the listed expressions with how
many lines use each, the expressions only lines use, the heading, and the rows with their jumps."""

from __future__ import annotations

from storyloom.app.views.actor_view import expression_tiles, line_rows, lines_heading, node_jump_label
from storyloom.project import ActorLine, ActorLines, NodeRef

ACTOR = {"_id": "a", "type": "Actor", "name": "Mara", "content": {"expressions": [
    {"name": "default", "permalink": "storyloom://image/img-default", "_id": "img-default"},
    {"name": "Angry", "permalink": "storyloom://image/img-angry", "_id": "img-angry"},
    {"name": "sad", "_id": "img-sad"},
    {"name": "", "_id": "nameless"},
    "not an entry",
]}}
NODE = NodeRef("d1", "Meeting", "n1", "Greeting")
FOUND = ActorLines("Mara", "a", frozenset({"mara"}), [
    ActorLine("s1", "Intro", 2, "Hello.", "angry", speaker="Mara", nodes=(NODE,)),
    ActorLine("s1", "Intro", 4, "Grr.", "ANGRY", tag="t4", speaker="Mara"),
    ActorLine("s2", "Outro", 1, "Bye.", "wistful", speaker="mara"),
    ActorLine("s2", "Outro", 3, "Plain.", None, speaker="Mara"),
])


def test_tiles_list_the_actor_s_expressions_then_those_only_lines_use() -> None:
    tiles = expression_tiles(ACTOR, FOUND)
    assert [(t.name, t.source, t.used, t.listed) for t in tiles] == [
        ("default", "storyloom://image/img-default", 0, True),
        ("Angry", "storyloom://image/img-angry", 2, True),
        ("sad", "img-sad", 0, True),
        ("wistful", "", 1, False),
    ]
    assert tiles[1].caption == "Angry · 2 lines" and tiles[0].caption == "default"
    assert "no image" in tiles[3].tooltip
    assert [t.name for t in expression_tiles(ACTOR)] == ["default", "Angry", "sad"]  # lines not counted yet


def test_heading_and_rows_with_their_jumps() -> None:
    assert lines_heading(None) == "All lines"
    assert lines_heading(FOUND) == "All lines (4 in 2 documents)"
    assert lines_heading(ActorLines("X", None, frozenset({"x"}))) == "All lines (none yet)"
    rows = line_rows(FOUND)
    assert [(r.document, r.number, r.expression, r.text) for r in rows][:2] == [
        ("Intro", "2", "angry", "Hello."), ("Intro", "4", "ANGRY", "Grr.")]
    assert rows[0].nodes == (NODE,) and "Greeting" in rows[0].tooltip and "Meeting" in rows[0].tooltip
    assert "[#t4]" in rows[1].tooltip and (rows[1].doc_id, rows[1].line) == ("s1", 4)
    assert node_jump_label(NODE) == "Show in the dialogue “Meeting” (node “Greeting”)"
