"""The Problems dock's screenshot: the garden sample with a broken script added, the dock open
under the tabs and the first problem's script open at its line."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window

BROKEN = "::Woman:: You came back.\n@if v.player.brave\n::Woman:: Then stay.\n@set v.player.courage += \n"


@register("problems-panel")
def problems_panel(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    window.session.editor.create("Script", "Broken Farewell", content={"script": BROKEN})
    window.session.wait_for_events()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    panel = window.problems_panel
    panel.wait_until_checked()
    panel.show()
    window.resizeDocks([panel], [230], Qt.Orientation.Vertical)
    if panel.model.rows:
        panel.view.selectRow(0)
        panel.activate_row(0)
    return window
