"""The canvas board's rules, without Qt: nodes, groups with relative positions, edges, and
every step leaving the input alone (the editor keeps both for undo)."""

from __future__ import annotations

import copy

import pytest

from storyloom.project import canvas as cv


def _board() -> dict:
    a = dict(cv.new_note(0, 0, "Lamp"), id="a")
    b = dict(cv.new_note(300, 0, "Keys"), id="b")
    c = dict(cv.new_document_card(0, 200, "doc-1", "Gdd"), id="c")
    return {"nodes": [a, b, c], "edges": [], "viewport": {"x": 0, "y": 0, "zoom": 1}}


def test_new_nodes_have_the_stored_shape() -> None:
    note = cv.new_note(10.4, 20.6, "**Bold**", doc_id="d1")
    assert note["type"] == "note" and note["position"] == {"x": 10, "y": 21}
    assert (note["width"], note["height"]) == cv.DEFAULT_SIZE["note"]
    assert note["data"] == {"text": "**Bold**", "docId": "d1"}
    image = cv.new_image(0, 0, "att", size=cv.image_size(800, 400))
    assert image["data"] == {"docId": "att", "caption": ""} and (image["width"], image["height"]) == (240, 120)
    assert cv.linked_document(image) == "att"


def test_steps_never_change_their_input() -> None:
    board = _board()
    before = copy.deepcopy(board)
    cv.move_nodes(board, {"a": (50, 60)})
    cv.resize_node(board, "a", 400, 300)
    cv.set_data(board, "a", text="x")
    cv.connect(board, "a", "b", "why")
    cv.group(board, ["a", "b"])
    cv.remove(board, ["a"])
    assert board == before


def test_connect_refuses_self_links_duplicates_and_strangers() -> None:
    board, edge_id = cv.connect(_board(), "a", "b", "had the keys")
    assert cv.find_edge(board, edge_id) == {"id": edge_id, "source": "a", "target": "b", "label": "had the keys"}
    for source, target, words in (("a", "a", "two different"), ("a", "b", "already"), ("a", "zz", "on the board")):
        with pytest.raises(cv.CanvasRefused, match=words):
            cv.connect(board, source, target)
    back, _ = cv.connect(board, "b", "a")  # the other way is another edge
    assert len(back["edges"]) == 2
    board = cv.set_edge_label(board, edge_id, "kept the keys")
    assert cv.find_edge(cv.reverse_edge(board, edge_id), edge_id)["source"] == "b"
    gone = cv.remove(board, ["b"])
    assert gone["edges"] == [] and [n["id"] for n in gone["nodes"]] == ["a", "c"]


def test_a_group_frames_its_nodes_and_holds_them_relative() -> None:
    board, group_id = cv.group(_board(), ["a", "b"], "Suspects")
    frame = cv.find_node(board, group_id)
    assert board["nodes"][0] is frame  # a group comes before its nodes
    assert frame["data"] == {"label": "Suspects"}
    assert frame["position"] == {"x": -cv.GROUP_PADDING, "y": -cv.GROUP_PADDING - cv.GROUP_HEADER}
    assert cv.members(board, group_id) == ["a", "b"]
    a = cv.find_node(board, "a")
    assert a["parentId"] == group_id and a["position"] == {"x": 24, "y": 52}
    assert cv.absolute_position(board, "a") == (0, 0)  # nothing moved on screen
    moved = cv.move_nodes(board, {group_id: (100, 100)})
    assert cv.absolute_position(moved, "b") == (100 + 24 + 300, 100 + 52)
    with pytest.raises(cv.CanvasRefused, match="another group"):
        cv.group(board, [group_id, "c"])
    assert cv.canvas_problems(board) == []


def test_moving_a_node_in_or_out_of_a_group() -> None:
    board, group_id = cv.group(_board(), ["a"])
    out = cv.move_nodes(board, {"a": (900, 900)})
    assert "parentId" not in cv.find_node(out, "a") and cv.find_node(out, "a")["position"] == {"x": 900, "y": 900}
    into = cv.move_nodes(board, {"c": (10, 10)})  # c's middle lands in the frame: it joins
    c = cv.find_node(into, "c")
    assert c["parentId"] == group_id and cv.absolute_position(into, "c") == (10, 10)
    assert [n["id"] for n in into["nodes"]].index(group_id) < [n["id"] for n in into["nodes"]].index("c")
    kept = cv.move_nodes(board, {"c": (10, 10)}, regroup=False)
    assert "parentId" not in cv.find_node(kept, "c")


def test_ungrouping_and_deleting_a_group_keep_its_nodes_where_they_are() -> None:
    board, group_id = cv.group(_board(), ["a", "b"])
    board = cv.move_nodes(board, {group_id: (500, 500)})
    where = cv.absolute_position(board, "b")
    for after in (cv.ungroup(board, group_id), cv.remove(board, [group_id])):
        assert cv.find_node(after, group_id) is None
        assert cv.absolute_position(after, "b") == where and "parentId" not in cv.find_node(after, "b")
    both = cv.remove(board, [group_id, "a"])
    assert [n["id"] for n in both["nodes"]] == ["b", "c"]


def test_sizes_have_a_floor_and_groups_grow_to_fit() -> None:
    board = cv.resize_node(_board(), "a", 5, 5)
    assert cv.size_of(cv.find_node(board, "a")) == cv.MIN_SIZE["note"]
    board, group_id = cv.group(board, ["a"])
    board = cv.resize_node(board, "a", 600, 400)
    grown = cv.fit_group(board, group_id)
    assert cv.size_of(cv.find_node(grown, group_id)) == (24 + 600 + 24, 52 + 400 + 24)


def test_set_data_and_bounds() -> None:
    board = cv.set_data(_board(), "a", docId="doc-9", text="Linked")
    assert cv.linked_document(cv.find_node(board, "a")) == "doc-9"
    board = cv.set_data(board, "a", docId=None)
    assert cv.linked_document(cv.find_node(board, "a")) is None
    assert cv.bounds(board) == (0, 0, 520, 260)
    assert cv.bounds({"nodes": []}) is None


def test_problems_of_a_broken_board() -> None:
    board = {"nodes": [{"id": "a", "type": "blob"}, {"id": "a", "type": "note", "parentId": "nope"}],
             "edges": [{"id": "e", "source": "a", "target": "zz"}, {"id": "f", "source": "a", "target": "a"}]}
    problems = cv.canvas_problems(board)
    assert any("two nodes" in p for p in problems) and any("unknown type" in p for p in problems)
    assert any("group that is not" in p for p in problems) and any("target" in p for p in problems)
    assert any("itself" in p for p in problems)
