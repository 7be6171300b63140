"""The Search dock's screenshot: the garden sample, a query typed, the results grouped by
document under the tabs, and the first hit open in its script with the match selected."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window


@register("search")
def search(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    panel = window.search_panel
    panel.focus_query()
    panel.ensure_built(wait=True)
    panel.query.setText("garden")
    panel.run_search()
    window.resizeDocks([panel], [320], Qt.Orientation.Vertical)
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    hit = next((row for row, group in enumerate(panel.model.groups) if group.doc_type == "Script"), None)
    if hit is not None:
        panel.activate(hit, 0)
        index = panel.model.index(0, 0, panel.model.index(hit, 0))
        panel.view.setCurrentIndex(index)
        panel.view.scrollTo(index)
    return window
