"""Screenshots of the Canvas editor (``canvas``: the sample's suspect board, a note selected so
the panel shows its markdown and link) and the Map editor (``map``: the sample's island with
its doors and markers, a door selected), on the built-in sample ("The Lighthouse Keeper")."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.sample import SAMPLE_NAME, create_sample_project
from tools.screenshots import SIZE, register, settle


def _open(workspace: Workspace, doc_type: str) -> tuple[MainWindow, QWidget | None]:
    create_sample_project(workspace.manager).close()
    window = open_project_window(workspace, SAMPLE_NAME)
    window.resize(SIZE)
    doc = next(s.id for s in window.session.index.summaries() if s.type == doc_type)
    window.navigate_to("", doc)
    window.show()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    return window, window.tabs.current_editor()


@register("canvas")
def canvas(workspace: Workspace, out_dir: Path) -> QWidget:
    window, editor = _open(workspace, "Canvas")
    if editor is not None and hasattr(editor, "scene"):
        editor.scene.select(["maud"])  # type: ignore[attr-defined]
    return window


@register("map")
def map_editor(workspace: Workspace, out_dir: Path) -> QWidget:
    window, editor = _open(workspace, "Map")
    if editor is not None and hasattr(editor, "select_edge"):
        content = editor.content  # type: ignore[attr-defined]
        door = next(key for key, edge in content["edges"].items() if edge.get("locked"))
        editor.select_edge(door)  # type: ignore[attr-defined]
    return window
