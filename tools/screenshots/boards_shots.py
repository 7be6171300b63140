"""Screenshots of the Grid editor (``grid``) and the Kanban editor (``kanban``), on the built-in
sample project ("The Lighthouse Keeper")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.sample import create_sample_project
from tools.screenshots import SIZE, register


def open_sample(workspace: Workspace, doc_type: str) -> MainWindow:
    """The sample's window with its first document of ``doc_type`` open."""
    project = create_sample_project(workspace.manager)
    name = project.name
    project.close()
    window = open_project_window(workspace, name)
    window.resize(SIZE)
    doc = next(s for s in window.session.index.summaries() if s.type == doc_type)
    window.navigate_to("", doc.id)
    return window


@register("grid")
def grid(workspace: Workspace, out_dir: object) -> QWidget:
    window = open_sample(workspace, "Grid")
    editor = window.tabs.current_editor()
    if editor is not None and hasattr(editor, "select_cell"):
        editor.sort_by(7, Qt.SortOrder.DescendingOrder)  # type: ignore[attr-defined]  # by date, newest first
        editor.select_cell(1, 1)  # type: ignore[attr-defined]
    return window


@register("kanban")
def kanban(workspace: Workspace, out_dir: object) -> QWidget:
    window = open_sample(workspace, "Kanban")
    splitter = window.centralWidget()  # the explorer dragged narrow: the board takes the room
    if hasattr(splitter, "setSizes"):
        splitter.setSizes([200, 0, 1240])
    editor = window.tabs.current_editor()
    if editor is not None and hasattr(editor, "select_card"):
        content = editor.content  # type: ignore[attr-defined]
        card = content["columns"][1]["cards"][0]
        editor.select_card(card["id"])  # type: ignore[attr-defined]
    return window
