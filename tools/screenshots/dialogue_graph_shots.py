"""The dialogue graph editor's screenshot, on the built-in sample ("The Lighthouse Keeper"):
the interview as Fit shows it (readable, clear of the palette and the minimap, scrolled to the
question), the question's choice selected so the inspector shows its options and their port
scripts (the tree folded to give the graph room)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import open_project_window
from storyloom.project.sample import SAMPLE_NAME, create_sample_project
from tools.screenshots import SIZE, register, settle

DIALOGUE = "The Interview"
CHOICE = "Where does Wren press?"


@register("dialogue-graph")
def dialogue_graph(workspace: Workspace, out_dir: Path) -> QWidget:
    create_sample_project(workspace.manager).close()
    window = open_project_window(workspace, SAMPLE_NAME)
    window.resize(SIZE)
    dialogue = next(s.id for s in window.session.index.summaries() if s.type == "Dialogue" and s.name == DIALOGUE)
    window.navigate_to("", dialogue)
    editor = window.tabs.current_editor()
    window.show()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    splitter = window.centralWidget()
    if isinstance(splitter, QSplitter):  # the tree folded away: the graph gets the width
        sizes = splitter.sizes()
        splitter.setSizes([sizes[0], 0, sum(sizes[1:])])
    if isinstance(app, QApplication):
        settle(app)
    if editor is not None and hasattr(editor, "scene"):
        choice = next(i for i, item in editor.scene.node_items.items() if item.node["data"]["label"] == CHOICE)
        editor.scene.select_nodes([choice])
        editor.fit()  # as Fit shows it: readable, clear of the palette and the minimap
        item = editor.scene.node_items[choice]
        editor.view.reveal(item.sceneBoundingRect())
    return window
