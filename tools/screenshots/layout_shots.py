"""Screenshots of the window's layout at work, on the built-in sample: a grid in a narrow
documents' area (its toolbar overflows into a » menu, the sidebars keep their widths), Project
Settings as it opens (at its top, the Lock button beside the title) and an actor whose
properties do not parse (the status line under the text, in full)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QSplitter, QWidget

from storyloom.app import Workspace
from storyloom.gui.sidebar import SETTINGS
from tools.screenshots import register, settle
from tools.screenshots.player_shots import sample_window


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


@register("layout-narrow-grid")
def narrow_grid(workspace: Workspace, out_dir: Path) -> QWidget:
    window = sample_window(workspace)
    window.show()
    splitter = window.centralWidget()
    if isinstance(splitter, QSplitter):  # the writer widened the tree: the grid has 640 px left
        splitter.setSizes([200, 600, 640])
    grid = next(s.id for s in window.session.index.summaries() if s.type == "Grid")
    window.open_document(grid)
    window.problems_panel.show()
    _settle()
    return window


@register("layout-project-settings")
def project_settings_open(workspace: Workspace, out_dir: Path) -> QWidget:
    window = sample_window(workspace)
    window.sidebar.select(SETTINGS)
    return window


@register("layout-actor-error")
def actor_error(workspace: Workspace, out_dir: Path) -> QWidget:
    window = sample_window(workspace)
    actor = next(s.id for s in window.session.index.summaries() if s.type == "Actor")
    editor = window.tabs.open(actor)
    if editor is not None and hasattr(editor, "properties"):
        editor.properties.setPlainText('{\n  age: 61\n  home: "the keeper\'s cottage\n  mood: calm\n}\n')
        editor.check_properties()
        editor.stop()  # no autosave of the broken text while the picture is taken
    return window
