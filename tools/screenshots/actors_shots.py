"""Screenshots of the actor editor (expression images and All lines) and of the Problems dock
offering "Create actor" for a speaker who is not an actor, on the Drafft garden sample."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


@register("actor-editor")
def actor_editor(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    actor = next((s for s in window.session.index.summaries() if s.type == "Actor" and s.name == "Woman"), None)
    if actor is not None:
        window.navigate_to("", actor.id)
    editor = window.tabs.current_editor()
    lines = getattr(editor, "lines", None)
    if lines is not None:
        lines.wait()
        _settle()
    return window


@register("problems-create-actor")
def problems_create_actor(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    _settle()
    panel = window.problems_panel
    panel.wait_until_checked()
    panel.show()
    window.resizeDocks([panel], [230], Qt.Orientation.Vertical)
    row = next((i for i, p in enumerate(panel.model.rows) if p.fix is not None), None)
    if row is not None:
        panel.view.selectRow(row)
        panel.activate_row(row)
        panel.view.selectRow(row)
        panel.view.scrollTo(panel.model.index(row, 0))
    return window
