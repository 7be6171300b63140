"""The dialogue graph's rules without Qt: node shapes, patches and their inverses, valid
connections, problems, copy and paste, script previews, and the layered layout."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from storyloom.project.dialogue_graph import (
    NODE_KINDS,
    ConnectionRefused,
    DialogueGraph,
    graph_problems,
    ports,
    script_preview,
)
from storyloom.project.dialogue_layout import COLUMN_GAP, layered_layout, node_geometry
from storyloom.project.documents import NODE_TYPES
from storyloom.project.validation import check_dialogue


def _graph(*types: str) -> tuple[DialogueGraph, list[str]]:
    graph = DialogueGraph()
    ids = []
    for index, node_type in enumerate(types):
        patch = graph.add_node(node_type, index * 300, 0)
        graph.apply(patch)
        ids.append(graph.added_node_id(patch))
    return graph, ids


def _out(graph: DialogueGraph, node_id: str, index: int = 0) -> str:
    return ports(graph.node(node_id), "source")[index]["id"]


def _in(graph: DialogueGraph, node_id: str) -> str:
    return ports(graph.node(node_id), "target")[0]["id"]


def _link(graph: DialogueGraph, source: str, target: str, index: int = 0) -> None:
    graph.apply(graph.connect(source, _out(graph, source, index), target, _in(graph, target)))


def _dialogue(graph: DialogueGraph) -> dict[str, Any]:
    return {"_id": "d", "type": "Dialogue", "content": {"tree": graph.to_tree()}}


def test_every_node_type_is_made_in_the_stored_shape() -> None:
    assert tuple(NODE_KINDS) == NODE_TYPES
    graph, ids = _graph(*NODE_TYPES)
    assert [p for p in check_dialogue(_dialogue(graph)) if p.is_error] == []
    start, script, choice, condition, switch, event, jump, note, end, ret = (graph.node(i) for i in ids)
    assert start["type"] == "base" and start["data"]["nodeType"] == "start"
    assert [h["type"] for h in start["data"]["handles"]] == ["source"]
    assert [h["label"] for h in ports(choice, "source")] == ["Option 1", "Option 2"]
    assert [h["label"] for h in ports(condition, "source")] == ["True", "False"]
    assert [h["label"] for h in ports(switch, "source")] == ["Case 1", "Default"]
    assert condition["data"]["condition"] == "" and switch["data"]["switch"] == "" and event["data"]["event"] == ""
    assert jump["data"]["jumpTo"] is None and ports(jump, "source") == []
    assert note["data"]["handles"] == [] and script["data"]["scriptId"] is None
    for node in (end, ret):
        assert [h["type"] for h in node["data"]["handles"]] == ["target"]


def test_a_patch_and_its_inverse_restore_the_graph_exactly() -> None:
    graph, (start, script, choice, end) = _graph("start", "script", "choice", "end")
    _link(graph, start, script)
    _link(graph, script, choice)
    _link(graph, choice, end, 1)
    before = json.dumps(graph.to_tree())
    patches = [
        graph.remove([script]),
        graph.move({start: (40, 50), end: (900, 12)}),
        graph.set_data(choice, label="Where now?"),
        graph.set_port(choice, _out(graph, choice), port_script='@set v.player.asked = "logbook"'),
        graph.add_port(choice),
        graph.remove_port(choice, _out(graph, choice, 1)),
    ]
    for patch in patches:
        assert not patch.empty, patch.text
        graph.apply(patch)
        graph.revert(patch)
        assert json.dumps(graph.to_tree()) == before, patch.text
    removal = graph.remove([script])
    graph.apply(removal)
    assert graph.node(script) is None and len(graph.edges) == 1  # both links of the script went with it
    graph.revert(removal)
    assert [n["id"] for n in graph.nodes] == [start, script, choice, end]  # back in its place
    assert json.dumps(graph.to_tree()) == before


def test_connections_go_from_an_output_to_an_input_of_another_node() -> None:
    graph, (start, script, end) = _graph("start", "script", "end")
    assert graph.connection_problem(start, _out(graph, start), script, _in(graph, script)) is None
    assert "ends at an input" in graph.connection_problem(start, _out(graph, start), script, _out(graph, script))
    assert "starts at an output" in graph.connection_problem(script, _in(graph, script), end, _in(graph, end))
    assert "itself" in graph.connection_problem(script, _out(graph, script), script, _in(graph, script))
    assert "no longer exists" in graph.connection_problem(start, "nope", script, _in(graph, script))
    _link(graph, start, script)
    with pytest.raises(ConnectionRefused, match="linked already"):
        graph.connect(start, _out(graph, start), script, _in(graph, script))
    # An output leads to one node: a new link from it replaces the old one.
    patch = graph.connect(start, _out(graph, start), end, _in(graph, end))
    graph.apply(patch)
    assert [(e["source"], e["target"]) for e in graph.edges] == [(start, end)]
    graph.revert(patch)
    assert [(e["source"], e["target"]) for e in graph.edges] == [(start, script)]
    # An input takes any number of links.
    _link(graph, script, end)
    graph.apply(graph.connect(start, _out(graph, start), end, _in(graph, end)))
    assert {e["source"] for e in graph.edges if e["target"] == end} == {script, start}


def test_problems_name_the_node_they_are_on() -> None:
    graph, (script, choice, jump, note, cond) = _graph("script", "choice", "jump", "note", "condition")
    codes = [(p.code, p.node_id) for p in graph_problems(graph)]
    assert ("missing-start", None) in codes
    assert not any(code == "unreachable" for code, _ in codes)  # without a Start, nothing is "unreachable"
    graph.apply(graph.add_node("start", -300, 0))
    start = graph.nodes[-1]["id"]
    _link(graph, start, script)
    _link(graph, script, choice)
    problems = graph_problems(graph, script_exists=lambda _id: False)
    codes = [(p.code, p.node_id) for p in problems]
    assert ("unreachable", jump) in codes and ("unreachable", cond) in codes
    assert ("unreachable", note) not in codes  # notes are never played
    assert ("no-script", script) in codes and ("jump-target", jump) in codes and ("empty-field", cond) in codes
    assert codes.count(("open-output", choice)) == 2
    graph.apply(graph.set_data(script, scriptId="gone"))
    assert ("dangling-script", script) in [(p.code, p.node_id) for p in graph_problems(graph, lambda _id: False)]
    # A jump reaches its target: a node only a jump leads to is reachable.
    _link(graph, choice, jump)
    graph.apply(graph.set_data(jump, jumpTo=cond))
    codes = [(p.code, p.node_id) for p in graph_problems(graph)]
    assert ("unreachable", cond) not in codes and ("jump-target", jump) not in codes
    graph.apply(graph.add_node("start", 0, 900))
    assert ("start-nodes", graph.nodes[-1]["id"]) in [(p.code, p.node_id) for p in graph_problems(graph)]


def test_a_dangling_edge_is_a_problem_on_the_node_that_remains() -> None:
    graph, (start, end) = _graph("start", "end")
    _link(graph, start, end)
    tree = graph.to_tree()
    tree["nodes"] = [n for n in tree["nodes"] if n["id"] != end]
    (problem,) = [p for p in graph_problems(tree) if p.code == "dangling-edge"]
    assert problem.node_id == start and problem.edge_id == tree["edges"][0]["id"]
    # The gate's validation calls the same link a dangling edge.
    assert "dangling-edge" in {p.code for p in check_dialogue({"_id": "d", "type": "Dialogue",
                                                                 "content": {"tree": tree}})}


def test_paste_makes_new_ids_keeps_internal_links_and_follows_jumps() -> None:
    graph, (start, choice, jump, end) = _graph("start", "choice", "jump", "end")
    _link(graph, start, choice)
    _link(graph, choice, jump)
    _link(graph, choice, end, 1)
    graph.apply(graph.set_data(jump, jumpTo=choice))
    payload = json.loads(json.dumps(graph.copy([choice, jump])))  # through the clipboard's text
    assert len(payload["nodes"]) == 2 and len(payload["edges"]) == 1  # only the link between them
    patch, new_ids = graph.paste(payload, (40, 60))
    graph.apply(patch)
    assert len(new_ids) == 2 and not set(new_ids) & {start, choice, jump, end}
    new_choice, new_jump = (graph.node(i) for i in new_ids)
    assert new_choice["position"] == {"x": graph.node(choice)["position"]["x"] + 40, "y": 60}
    assert [h["id"] for h in new_choice["data"]["handles"]] == [h["id"] for h in graph.node(choice)["data"]["handles"]]
    assert new_jump["data"]["jumpTo"] == new_choice["id"]
    (copied,) = [e for e in graph.edges if e["source"] == new_choice["id"]]
    assert copied["target"] == new_jump["id"] and copied["sourceHandle"] == _out(graph, choice)
    assert [p for p in check_dialogue(_dialogue(graph)) if p.is_error] == []
    graph.revert(patch)
    assert len(graph.nodes) == 4 and len(graph.edges) == 3


def test_switch_outputs_are_added_before_default_and_removed_with_their_links() -> None:
    graph, (switch, end) = _graph("switch", "end")
    graph.apply(graph.add_port(switch))
    assert [h["label"] for h in ports(graph.node(switch), "source")] == ["Case 1", "Case 2", "Default"]
    _link(graph, switch, end, 1)
    patch = graph.remove_port(switch, _out(graph, switch, 1))
    graph.apply(patch)
    assert graph.edges == [] and [h["label"] for h in ports(graph.node(switch), "source")] == ["Case 1", "Default"]
    graph.revert(patch)
    assert len(graph.edges) == 1


def test_script_previews_show_what_is_said_by_actor_and_skip_comments() -> None:
    text = "// a comment\n\n[#a1] ::Wren Hale:: Who cut the page? [angry]\n<Shake(2)>\n@set v.x = 1\nmore\n"
    # What is said (speech, narration) first: a command or a @set is no line of the dialogue.
    assert script_preview(text) == ["Wren Hale: Who cut the page?", "more"]
    text = "<CutTo(harbour)>\n<ShowItem(logbook)>\n@if v.x\n::Maud:: Lanterns out!\n@else\n::Wren:: Wait.\n@endif\n"
    assert script_preview(text) == ["Maud: Lanterns out!", "Wren: Wait."]
    # A script of commands only shows them, so the node is not blank.
    assert script_preview("<Shake(2)>\n@set v.x = 1\n") == ["<Shake>", "@set v.x = 1"]
    assert script_preview("::A:: " + "word " * 30, width=20) == ["A: word word word w…"]
    assert script_preview("") == []


def test_geometry_puts_inputs_left_and_outputs_right_one_row_each() -> None:
    graph, (choice,) = _graph("choice")
    node = graph.node(choice)
    geometry = node_geometry(node)
    points = [geometry.ports[h["id"]] for h in node["data"]["handles"]]
    assert points[0][0] == 0 and {x for x, _ in points[1:]} == {geometry.width}
    assert points[1][1] < points[2][1] <= geometry.height


def _sample_like() -> tuple[DialogueGraph, dict[str, str]]:
    graph, ids = _graph("start", "script", "choice", "script", "script", "condition", "jump", "end", "note")
    names = dict(zip(("start", "opens", "choice", "a", "b", "cond", "again", "end", "note"), ids, strict=True))
    _link(graph, names["start"], names["opens"])
    _link(graph, names["opens"], names["choice"])
    _link(graph, names["choice"], names["a"], 0)
    _link(graph, names["choice"], names["b"], 1)
    _link(graph, names["a"], names["cond"])
    _link(graph, names["b"], names["cond"])
    _link(graph, names["cond"], names["end"], 0)
    _link(graph, names["cond"], names["again"], 1)
    graph.apply(graph.set_data(names["again"], jumpTo=names["choice"]))
    return graph, names


def test_the_layout_runs_left_to_right_without_overlaps() -> None:
    graph, names = _sample_like()
    positions = layered_layout(graph)
    assert set(positions) == {n["id"] for n in graph.nodes}
    for edge in graph.edges:
        assert positions[edge["target"]][0] > positions[edge["source"]][0]
    boxes = {i: (*positions[i], *(lambda g: (g.width, g.height))(node_geometry(graph.node(i)))) for i in positions}
    items = list(boxes.values())
    for i, (x, y, w, h) in enumerate(items):
        for x2, y2, w2, h2 in items[i + 1:]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, "two nodes overlap"
    # A choice's options keep their order, top to bottom.
    assert positions[names["a"]][1] < positions[names["b"]][1]
    # A node with one link into it sits level with the port that leads to it (a straight link).
    opens, choice = graph.node(names["opens"]), graph.node(names["choice"])
    out_y = positions[names["opens"]][1] + node_geometry(opens).ports[_out(graph, names["opens"])][1]
    in_y = positions[names["choice"]][1] + node_geometry(choice).ports[_in(graph, names["choice"])][1]
    assert out_y == in_y
    # The lone note sits under the graph; the layout is a pure, repeatable function.
    graph_bottom = max(y + boxes[i][3] for i, (x, y) in positions.items() if i != names["note"])
    assert positions[names["note"]][1] > graph_bottom
    assert layered_layout(graph) == positions
    assert graph.node(names["start"])["position"] == {"x": 0, "y": 0}  # nothing was moved


def test_the_layout_sets_cycles_aside_and_lays_out_each_part() -> None:
    graph, (a, b, c, d, e) = _graph("script", "script", "script", "script", "end")
    _link(graph, a, b)
    _link(graph, b, c)
    _link(graph, c, a)  # a cycle without a Start
    _link(graph, d, e)  # a second part
    positions = layered_layout(graph)
    assert positions[a][0] < positions[b][0] < positions[c][0]
    assert positions[d][1] > max(positions[n][1] for n in (a, b, c))
    assert positions[e][0] - positions[d][0] == node_geometry(graph.node(d)).width + COLUMN_GAP


def test_a_500_node_graph_lays_out_quickly() -> None:
    graph = DialogueGraph()
    previous = None
    for index in range(500):
        node_type = "start" if index == 0 else ("choice" if index % 7 == 0 else "script")
        patch = graph.add_node(node_type, 0, 0)
        graph.apply(patch)
        node_id = graph.added_node_id(patch)
        if previous is not None:
            graph.apply(graph.connect(previous, _out(graph, previous), node_id, _in(graph, node_id)))
            if index % 7 == 1 and index > 7:  # the other option of the choice 7 back
                back = graph.nodes[index - 8]["id"]
                if graph.node(back)["data"]["nodeType"] == "choice":
                    graph.apply(graph.connect(back, _out(graph, back, 1), node_id, _in(graph, node_id)))
        previous = node_id
    started = time.perf_counter()
    positions = layered_layout(graph)
    assert time.perf_counter() - started < 2.0
    assert len(positions) == 500
    problems = graph_problems(graph)
    assert not [p for p in problems if p.code in ("unreachable", "missing-start")]
