"""The dialogue graph editor, offscreen on the real session and store: a graph built by
interaction (palette clicks, links dragged with the mouse, port scripts typed in place, a jump
target picked from the list), undone and redone, saved, reopened, exported, and its edges
followed in the export; moving, copy and paste, problems on the nodes, script nodes, auto
layout, zoom and the minimap."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from storyloom.export.game_export import build_game_export
from storyloom.gui.editors.dialogue_graph import DialogueGraphEditor
from storyloom.gui.main_window import open_project_window
from storyloom.project.dialogue_graph import ports
from storyloom.project.dialogue_layout import READABLE_ZOOM
from storyloom.project.sample import SAMPLE_NAME, create_sample_project

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys: a second or more a test


@pytest.fixture
def sample_window(qtbot, workspace):  # type: ignore[no-untyped-def]
    create_sample_project(workspace.manager).close()
    win = open_project_window(workspace, SAMPLE_NAME)
    qtbot.addWidget(win)
    win.resize(1440, 900)
    win.show()
    yield win
    if not win.session.closed:
        win.close()


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _new_dialogue(window, qtbot) -> DialogueGraphEditor:  # type: ignore[no-untyped-def]
    folder = _named(window, "Folder", "Interview lines")
    result = window.session.editor.create("Dialogue", "Harbour talk", dialogueScriptFolderID=folder,
                                          content={"tree": {"nodes": [], "edges": []}})
    editor = window.tabs.open(result.id)
    assert isinstance(editor, DialogueGraphEditor)
    qtbot.waitUntil(lambda: editor.view.viewport().width() > 200)
    editor.view.set_zoom(1.0)
    editor.view.centerOn(600, 200)
    return editor


def _view_point(editor: DialogueGraphEditor, scene_point: QPointF) -> QPoint:
    return editor.view.mapFromScene(scene_point)


def _port(editor: DialogueGraphEditor, node_id: str, kind: str, index: int = 0) -> QPointF:
    item = editor.scene.node_items[node_id]
    return item.port_point(ports(item.node, kind)[index]["id"])


def _drag(qtbot, editor: DialogueGraphEditor, start: QPointF, end: QPointF) -> None:  # type: ignore[no-untyped-def]
    viewport = editor.view.viewport()
    a, b = _view_point(editor, start), _view_point(editor, end)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, a + (b - a) * step / 5)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)


def _click_palette(qtbot, editor: DialogueGraphEditor, title: str) -> str:  # type: ignore[no-untyped-def]
    before = set(editor.scene.node_items)
    item = editor.node_palette.findItems(title, Qt.MatchFlag.MatchExactly)[0]
    qtbot.mouseClick(editor.node_palette.viewport(), Qt.MouseButton.LeftButton,
                     pos=editor.node_palette.visualItemRect(item).center())
    (added,) = set(editor.scene.node_items) - before
    return added


def _place(editor: DialogueGraphEditor, node_id: str, x: float, y: float) -> None:
    editor.move_nodes({node_id: (x, y)})


def _follow(dialogue: dict[str, Any], node_id: str, label: str = "Out") -> dict[str, Any]:
    """The node the output ``label`` of ``node_id`` leads to, in an exported dialogue."""
    tree = dialogue["content"]["tree"]
    nodes = {n["id"]: n for n in tree["nodes"]}
    handle = next(h["id"] for h in nodes[node_id]["data"]["handles"] if h["type"] == "source" and h["label"] == label)
    (edge,) = [e for e in tree["edges"] if e["source"] == node_id and e["sourceHandle"] == handle]
    target = nodes[edge["target"]]
    assert edge["targetHandle"] in {h["id"] for h in target["data"]["handles"] if h["type"] == "target"}
    return target


def test_a_graph_built_by_interaction_saves_reopens_and_exports(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = _new_dialogue(window, qtbot)
    start = _click_palette(qtbot, editor, "Start")
    script = _click_palette(qtbot, editor, "Script")
    choice = _click_palette(qtbot, editor, "Choice")
    end = _click_palette(qtbot, editor, "End")
    jump = _click_palette(qtbot, editor, "Jump")
    for node_id, x, y in ((start, 200, 160), (script, 440, 140), (choice, 760, 140), (end, 1080, 120),
                          (jump, 1080, 280)):
        _place(editor, node_id, x, y)
    assert editor.scene.graph.node(script)["position"] == {"x": 440, "y": 140}

    # Links dragged from output to input with the mouse.
    _drag(qtbot, editor, _port(editor, start, "source"), _port(editor, script, "target"))
    _drag(qtbot, editor, _port(editor, script, "source"), _port(editor, choice, "target"))
    _drag(qtbot, editor, _port(editor, choice, "source", 0), _port(editor, end, "target"))
    _drag(qtbot, editor, _port(editor, choice, "source", 1), _port(editor, jump, "target"))
    assert len(editor.scene.graph.edges) == 4 and len(editor.scene.edge_items) == 4
    # Refused as dragged: an output onto an output, a node onto itself.
    _drag(qtbot, editor, _port(editor, script, "source"), _port(editor, choice, "source", 1))
    assert "Not linked" in editor.hint_label.text()
    _drag(qtbot, editor, _port(editor, choice, "source", 0), _port(editor, choice, "target"))
    assert "itself" in editor.hint_label.text()
    assert len(editor.scene.graph.edges) == 4

    # A port script typed in place, a label renamed in place, the jump's target from its list.
    option = ports(editor.scene.graph.node(choice), "source")[0]["id"]
    line = editor.edit_in_place(choice, option)
    qtbot.keyClicks(line, '@set v.player.lastQuestion = "harbour"')
    qtbot.keyClick(line, Qt.Key.Key_Return)
    line = editor.edit_in_place(choice, "label")
    line.selectAll()
    qtbot.keyClicks(line, "Ask about the harbour?")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    editor.scene.select_nodes([jump])
    combo = editor.inspector.fields["jumpTo"]
    combo.setCurrentIndex(combo.findData(choice))
    combo.activated.emit(combo.currentIndex())
    assert editor.scene.graph.node(jump)["data"]["jumpTo"] == choice
    assert editor.scene.node_items[jump].body_text() == ["→ Ask about the harbour?"]

    # Undo and redo walk every step back and forth.
    steps = editor.undo_stack.count()
    assert steps == 5 + 5 + 4 + 3  # five adds, five moves, four links, three edits
    final = editor.scene.graph.to_tree()
    for _ in range(steps):
        editor.undo_stack.undo()
    assert editor.scene.graph.to_tree() == {"nodes": [], "edges": []} and not editor.scene.node_items
    for _ in range(steps):
        editor.undo_stack.redo()
    assert editor.scene.graph.to_tree() == final and len(editor.scene.edge_items) == 4

    # New script from the script node: created in the dialogue's script folder and linked.
    editor.scene.select_nodes([script])
    script_id = editor.new_script_for(script)
    assert script_id and window.session.db.get(script_id)["parent"] == _named(window, "Folder", "Interview lines")
    assert editor.save()
    saved = window.session.db.get(editor.doc_id)
    assert saved["content"]["tree"] == editor.scene.graph.to_tree()

    # Reopened: the same graph.
    doc_id = editor.doc_id
    window.tabs.close_tab(window.tabs.indexOf(editor), ask=False)
    reopened = window.tabs.open(doc_id)
    assert isinstance(reopened, DialogueGraphEditor)
    assert reopened.scene.graph.to_tree() == saved["content"]["tree"]
    assert len(reopened.scene.node_items) == 5 and len(reopened.scene.edge_items) == 4

    # The export carries the document as saved; its edges lead from Start to the end.
    exported = build_game_export(window.session.project, ["Dialogues"])
    (dialogue,) = [d for d in exported["dialogues"] if d["_id"] == doc_id]
    assert dialogue["content"]["tree"] == saved["content"]["tree"]
    first = _follow(dialogue, start)
    assert first["data"]["nodeType"] == "script" and first["data"]["scriptId"] == script_id
    question = _follow(dialogue, first["id"])
    assert question["data"]["label"] == "Ask about the harbour?"
    harbour = next(h for h in question["data"]["handles"] if h["label"] == "Option 1")
    assert harbour["portScript"] == '@set v.player.lastQuestion = "harbour"'
    assert _follow(dialogue, question["id"], "Option 1")["data"]["nodeType"] == "end"
    again = _follow(dialogue, question["id"], "Option 2")
    assert again["data"]["nodeType"] == "jump" and again["data"]["jumpTo"] == question["id"]


def test_moving_copying_pasting_and_deleting_with_mouse_and_keys(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _new_dialogue(sample_window, qtbot)
    start = editor.add_node("start", 100, 100)
    end = editor.add_node("end", 400, 100)
    editor.link(start, ports(editor.scene.graph.node(start), "source")[0]["id"],
                end, ports(editor.scene.graph.node(end), "target")[0]["id"])
    # Drag the End node by its header: it moves (snapped to the grid), one undoable step.
    item = editor.scene.node_items[end]
    header = item.mapToScene(QPointF(60, 14))
    _drag(qtbot, editor, header, header + QPointF(120, 80))
    position = editor.scene.graph.node(end)["position"]
    assert position == {"x": 520, "y": 176}  # on the 8-unit grid
    curve_end = editor.scene.edge_items[editor.scene.graph.edges[0]["id"]].path().elementAt(3)  # the link followed
    assert QPointF(curve_end.x, curve_end.y) == item.port_point(ports(item.node, "target")[0]["id"])
    editor.undo_stack.undo()
    assert editor.scene.graph.node(end)["position"] == {"x": 400, "y": 100} and item.pos() == QPointF(400, 100)
    # Select both (rubber band), copy, paste: two new nodes and their link, selected.
    viewport = editor.view.viewport()
    a = _view_point(editor, QPointF(60, 60))
    b = _view_point(editor, QPointF(640, 240))
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
    qtbot.mouseMove(viewport, (a + b) / 2)
    qtbot.mouseMove(viewport, b)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)
    assert sorted(editor.scene.selected_node_ids()) == sorted([start, end])
    editor.view.setFocus()
    qtbot.keyClick(editor.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor.view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert len(editor.scene.node_items) == 4 and len(editor.scene.edge_items) == 2
    pasted = editor.scene.selected_node_ids()
    assert len(pasted) == 2 and not set(pasted) & {start, end}
    # Delete them with the key; undo brings them back, with their link.
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    assert len(editor.scene.node_items) == 2 and len(editor.scene.edge_items) == 1
    editor.undo_stack.undo()
    assert len(editor.scene.node_items) == 4 and len(editor.scene.edge_items) == 2
    # A link is picked by a click on it and deleted on its own.
    edge_item = editor.scene.edge_items[editor.scene.graph.edges[0]["id"]]
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton,
                     pos=_view_point(editor, edge_item.path().pointAtPercent(0.4)))
    assert editor.scene.selected_edge_ids() == [edge_item.edge_id] and editor.scene.selected_node_ids() == []
    assert edge_item.pen().widthF() == 3.0
    qtbot.keyClick(editor.view, Qt.Key.Key_Delete)
    assert len(editor.scene.edge_items) == 1 and len(editor.scene.node_items) == 4
    assert editor.scene.selected_edge_ids() == []


def test_problems_show_on_the_nodes_and_in_the_inspector(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _new_dialogue(sample_window, qtbot)
    script = editor.add_node("script", 100, 100)
    assert [p.code for p in editor.scene.problems if p.node_id is None] == ["missing-start"]
    assert {p.code for p in editor.scene.node_items[script].problems} == {"no-script", "open-output"}
    assert "links no script" in editor.scene.node_items[script].toolTip()
    start = editor.add_node("start", -200, 100)
    assert "unreachable" in {p.code for p in editor.scene.node_items[script].problems}
    editor.link(start, ports(editor.scene.graph.node(start), "source")[0]["id"],
                script, ports(editor.scene.graph.node(script), "target")[0]["id"])
    assert "unreachable" not in {p.code for p in editor.scene.node_items[script].problems}
    editor.scene.clearSelection()
    listing = editor.inspector.fields["problems"]
    texts = [listing.item(i).text() for i in range(listing.count())]
    assert any(t.startswith("Script: This script node links no script") for t in texts)
    # Clicking a problem selects its node.
    editor.inspector.problem_chosen.emit(script)
    assert editor.scene.selected_node_ids() == [script]
    assert editor.summary_label.text().endswith(f"{len(editor.scene.problems)} problems")


def test_the_sample_dialogue_shows_script_lines_and_port_scripts(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.tabs.open(_named(window, "Dialogue", "The Interview"))
    assert isinstance(editor, DialogueGraphEditor)
    items = {item.node["data"]["label"]: item for item in editor.scene.node_items.values()}
    assert items["Tobias opens"].body_text() == ["Tobias Marsh: Ask what you like. I've nothing t…",
                                                 "Wren Hale: Then you won't mind if I look around."]
    assert items["Enough evidence?"].body_text() == ["if v.player.clues >= 2"]
    assert items["Keep asking"].body_text() == ["→ Where does Wren press?"]
    assert editor.scene.problems == []
    # The inspector shows the choice's options and port scripts; an edit there is one undo step.
    editor.scene.select_nodes([items["Where does Wren press?"].node_id])
    label, script = next(v for k, v in editor.inspector.fields.items() if k.startswith("port:"))
    assert label.text() == "Ask about the logbook" and script.text() == '@set v.player.lastQuestion = "logbook"'
    script.setFocus()
    script.selectAll()
    qtbot.keyClicks(script, "@set v.player.clues += 1")
    qtbot.keyClick(script, Qt.Key.Key_Return)
    handle = ports(items["Where does Wren press?"].node, "source")[0]
    assert handle["portScript"] == "@set v.player.clues += 1"
    editor.undo_stack.undo()
    node = editor.scene.graph.node(items["Where does Wren press?"].node_id)
    assert ports(node, "source")[0]["portScript"] == '@set v.player.lastQuestion = "logbook"'
    # Double-clicking a script node opens its script.
    tobias = items["Tobias opens"]
    qtbot.mouseDClick(editor.view.viewport(), Qt.MouseButton.LeftButton,
                      pos=_view_point(editor, tobias.mapToScene(QPointF(100, 50))))
    assert window.tabs.current_editor().doc_id == tobias.node["data"]["scriptId"]


def test_auto_layout_zoom_fit_and_minimap(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    editor = window.tabs.open(_named(window, "Dialogue", "The Interview"))
    before = editor.scene.graph.to_tree()
    first = editor.scene.graph.nodes[0]["id"]
    editor.move_nodes({first: (3000, 3000)})
    assert editor.auto_layout()
    positions = {n["id"]: n["position"] for n in editor.scene.graph.nodes}
    for edge in editor.scene.graph.edges:
        assert positions[edge["target"]]["x"] > positions[edge["source"]]["x"]
    editor.undo_stack.undo()
    editor.undo_stack.undo()
    assert editor.scene.graph.to_tree() == before
    # Zoom in and out, fit: the graph, too wide to read whole beside the inspector, shows from
    # its start at a zoom that reads (scrolled, not shrunk to unreadable); zoomed out by hand
    # to the whole graph, fit shows all of it.
    editor.view.set_zoom(1.0)
    editor.view.zoom_in()
    assert editor.view.zoom() == pytest.approx(1.25)
    editor.fit()
    assert editor.view.zoom() == pytest.approx(READABLE_ZOOM)
    visible = editor.view.mapToScene(editor.view.viewport().rect()).boundingRect()
    start = next(i for i in editor.scene.node_items.values() if i.node["data"]["nodeType"] == "start")
    assert visible.contains(start.sceneBoundingRect())
    editor.view.fit(min_zoom=0.1)
    visible = editor.view.mapToScene(editor.view.viewport().rect()).boundingRect()
    assert visible.contains(editor.scene.graph_bounds())
    # The minimap moves the view to where it is clicked.
    editor.view.set_zoom(1.0)
    minimap = editor.view.minimap
    minimap.render_picture()
    target = editor.scene.node_items[first].sceneBoundingRect().center()
    bounds = minimap._bounds
    point = QPoint(round((target.x() - bounds.x()) / bounds.width() * minimap.width()),
                   round((target.y() - bounds.y()) / bounds.height() * minimap.height()))
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton, pos=point)
    center = editor.view.mapToScene(editor.view.viewport().rect().center())
    assert abs(center.x() - target.x()) < 20 and abs(center.y() - target.y()) < 20


def test_menus_linked_nodes_keyboard_undo_and_outputs(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _new_dialogue(sample_window, qtbot)
    # The right-click menu on empty space adds any of the ten node types where it was opened.
    menu = editor.context_menu(QPointF(300, 200), None)
    add = next(a for a in menu.actions() if a.text() == "Add node").menu()
    assert [a.text() for a in add.actions()] == ["Start", "Script", "Choice", "Condition", "Switch", "Event",
                                                  "Jump", "Note", "End", "Return"]
    next(a for a in add.actions() if a.text() == "Switch").trigger()
    (switch,) = editor.scene.node_items
    assert editor.scene.graph.node(switch)["position"] == {"x": 300, "y": 200}
    # A link dropped on empty space becomes a new node, already linked: one step.
    default = ports(editor.scene.graph.node(switch), "source")[1]
    assert default["label"] == "Default"
    end = editor.add_linked_node(switch, default["id"], "end", QPointF(700, 300))
    (edge,) = editor.scene.graph.edges
    assert (edge["source"], edge["sourceHandle"], edge["target"]) == (switch, default["id"], end)
    editor.undo_stack.undo()
    assert list(editor.scene.node_items) == [switch] and editor.scene.graph.edges == []
    # Outputs: a case added before Default, renamed in the inspector, removed; Ctrl+Z and
    # Ctrl+Shift+Z on the graph undo and redo.
    editor.scene.select_nodes([switch])
    editor.add_port(switch)
    labels = [h["label"] for h in ports(editor.scene.graph.node(switch), "source")]
    assert labels == ["Case 1", "Case 2", "Default"]
    case2 = ports(editor.scene.graph.node(switch), "source")[1]["id"]
    name, _script = editor.inspector.fields[f"port:{case2}"]
    name.setFocus()
    name.selectAll()
    qtbot.keyClicks(name, "spring")
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert ports(editor.scene.graph.node(switch), "source")[1]["label"] == "spring"
    expression = editor.inspector.fields["switch"]
    expression.setFocus()
    qtbot.keyClicks(expression, "v.island.tide")
    qtbot.keyClick(expression, Qt.Key.Key_Return)
    assert editor.scene.graph.node(switch)["data"]["switch"] == "v.island.tide"
    assert editor.scene.node_items[switch].body_text() == ["switch v.island.tide"]
    editor.view.setFocus()
    qtbot.keyClick(editor.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.scene.graph.node(switch)["data"]["switch"] == ""
    qtbot.keyClick(editor.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert editor.scene.graph.node(switch)["data"]["switch"] == "v.island.tide"
    assert editor.remove_port(switch, case2)
    assert [h["label"] for h in ports(editor.scene.graph.node(switch), "source")] == ["Case 1", "Default"]
    # Everything saves through the gate, as the gate's validation wants it.
    assert editor.save()
    assert sample_window.session.db.get(editor.doc_id)["content"]["tree"] == editor.scene.graph.to_tree()


def test_palette_drop_in_place_port_script_and_search_hits(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QMimeData
    from PySide6.QtGui import QDropEvent

    from storyloom.gui.editors.dialogue_graph.view import NODE_MIME, InlineEdit

    editor = _new_dialogue(sample_window, qtbot)
    # A type dragged from the palette and dropped on the graph lands where it is dropped.
    data = editor.node_palette.mimeData([editor.node_palette.findItems("Choice", Qt.MatchFlag.MatchExactly)[0]])
    assert bytes(data.data(NODE_MIME).data()) == b"choice"
    mime = QMimeData()
    mime.setData(NODE_MIME, data.data(NODE_MIME))
    drop_at = _view_point(editor, QPointF(480, 240))
    event = QDropEvent(QPointF(drop_at), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    editor.view.dropEvent(event)
    (choice,) = editor.scene.node_items
    assert editor.scene.graph.node(choice)["position"] == {"x": 480, "y": 240}
    # Double-clicking an option edits its port script in place; Esc leaves it as it was.
    item = editor.scene.node_items[choice]
    second = ports(item.node, "source")[1]["id"]
    row = item.port_point(second) - QPointF(60, 0)
    qtbot.mouseDClick(editor.view.viewport(), Qt.MouseButton.LeftButton, pos=_view_point(editor, row))
    (typed,) = [w for w in editor.view.viewport().findChildren(InlineEdit) if w.isVisible()]
    assert typed.hasFocus() and "Option 2" in typed.placeholderText()
    qtbot.keyClicks(typed, "@set v.trust.maud += 1")
    qtbot.keyClick(typed, Qt.Key.Key_Return)
    assert ports(editor.scene.graph.node(choice), "source")[1]["portScript"] == "@set v.trust.maud += 1"
    again = editor.edit_in_place(choice, second)
    assert again.text() == "@set v.trust.maud += 1"
    qtbot.keyClicks(again, " and more")
    qtbot.keyClick(again, Qt.Key.Key_Escape)
    assert ports(editor.scene.graph.node(choice), "source")[1]["portScript"] == "@set v.trust.maud += 1"
    # The node's script line shows under the option on the graph (its row grew a line).
    assert item.geometry.height > 0 and item.geometry.ports[second][1] > item.geometry.ports[
        ports(item.node, "source")[0]["id"]][1]
    # A search hit in a node's field (or a problem in an edge) selects it and shows it.
    end = editor.add_node("end", 2400, 1600)
    editor.scene.clearSelection()
    editor.focus_match("content.tree.nodes.1.data.label", 1, 1, 3)
    assert editor.scene.selected_node_ids() == [end]
    visible = editor.view.mapToScene(editor.view.viewport().rect()).boundingRect()
    assert visible.contains(editor.scene.node_items[end].sceneBoundingRect().center())


def test_a_dialogue_locked_by_someone_else_is_read_only(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.locks_ui import set_read_only

    editor = _new_dialogue(sample_window, qtbot)
    start = editor.add_node("start", 100, 100)
    end = editor.add_node("end", 400, 100)
    set_read_only(editor, True)  # what the lock UI calls when another writer holds the lock
    assert editor.add_node("note", 0, 0) == ""
    assert not editor.link(start, ports(editor.scene.graph.node(start), "source")[0]["id"],
                           end, ports(editor.scene.graph.node(end), "target")[0]["id"])
    assert "read-only" in editor.hint_label.text()
    header = editor.scene.node_items[end].mapToScene(QPointF(60, 14))
    _drag(qtbot, editor, header, header + QPointF(100, 100))
    assert editor.scene.graph.node(end)["position"] == {"x": 400, "y": 100}
    assert editor.scene.node_items[end].pos() == QPointF(400, 100)
    editor.undo()
    assert len(editor.scene.node_items) == 2 and not editor.palette_panel.isEnabled()
    set_read_only(editor, False)
    editor.undo()
    assert list(editor.scene.node_items) == [start]
