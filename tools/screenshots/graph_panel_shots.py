"""The dialogue graph's side panel, on the built-in sample's interview ("The Lighthouse Keeper"):
a script node's lines being written in the panel (``graph-panel-script``) and a choice's
options with their port scripts, the keyboard on one of them (``graph-panel-choice``). The
tree is folded to give the graph room, as in ``dialogue-graph``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from storyloom.app import Workspace
from storyloom.gui.editors.dialogue_graph import DialogueGraphEditor
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.sample import SAMPLE_NAME, create_sample_project
from tools.screenshots import SIZE, register, settle

DIALOGUE = "The Interview"
SCRIPT_NODE = "Tobias opens"
CHOICE = "Where does Wren press?"


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


def _interview(workspace: Workspace) -> tuple[MainWindow, DialogueGraphEditor]:
    create_sample_project(workspace.manager).close()
    window = open_project_window(workspace, SAMPLE_NAME)
    window.resize(SIZE)
    dialogue = next(s.id for s in window.session.index.summaries() if s.type == "Dialogue" and s.name == DIALOGUE)
    window.navigate_to("", dialogue)
    editor = window.tabs.current_editor()
    assert isinstance(editor, DialogueGraphEditor)
    window.show()
    _settle()
    splitter = window.centralWidget()
    if isinstance(splitter, QSplitter):  # the tree folded away: the graph gets the width
        sizes = splitter.sizes()
        splitter.setSizes([sizes[0], 0, sum(sizes[1:])])
    _settle()
    return window, editor


def _select(editor: DialogueGraphEditor, label: str, zoom: float = 0.8) -> str:
    node = next(i for i, item in editor.scene.node_items.items() if item.node["data"]["label"] == label)
    editor.scene.select_nodes([node])
    editor.view.set_zoom(zoom)
    editor.view.centerOn(editor.scene.node_items[node].sceneBoundingRect().center() + QPointF(200, 40))
    editor.show_zoom()
    _settle()
    return node


@register("graph-panel-script")
def graph_panel_script(workspace: Workspace, out_dir: Path) -> QWidget:
    window, editor = _interview(workspace)
    _select(editor, SCRIPT_NODE)
    writer = editor.inspector.script_writer
    if writer is not None:  # a line being written at the end of the script, the cursor after it
        text = writer.text
        text.setFocus()
        text.moveCursor(QTextCursor.MoveOperation.End)
        text.insertPlainText("::Wren Hale:: Then tell me about the logbook. [curious]\n@if v.player.clues >= 2\n"
                             "::Tobias Marsh:: You've been busy.\n@endif\n::Tobias Marsh:: The log")
        writer.check_problems()
        writer.stop()  # the picture shows the text as typed, before its save
        _settle()
        text.ensureCursorVisible()
    _settle()
    return window


@register("graph-panel-choice")
def graph_panel_choice(workspace: Workspace, out_dir: Path) -> QWidget:
    window, editor = _interview(workspace)
    node = _select(editor, CHOICE, zoom=0.7)
    editor.add_port(node)
    added = [k for k in editor.inspector.fields if k.startswith("port:")][-1][5:]
    editor.remove_port(node, added)  # the footer says how to bring it back
    rows = [v for k, v in editor.inspector.fields.items() if k.startswith("port:")]
    if rows:  # the keyboard on the first option's port script (Tab from its text)
        rows[0][1].setFocus(Qt.FocusReason.TabFocusReason)
        rows[0][1].setCursorPosition(0)
    _settle()
    return window
