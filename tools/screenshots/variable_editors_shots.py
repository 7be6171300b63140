"""Screenshots of the Variable editor (source over the state's table) and the Scenario editor
(its live type check), on the Drafft garden sample."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from storyloom.play.variable_rows import LIVE_STATE_ID
from tools.screenshots import register
from tools.screenshots.text_editors_shots import _open


@register("variables")
def variables(workspace: Workspace, out_dir: object) -> QWidget:
    window = _open(workspace, "Variable", "player")
    window.session.editor.write_local({"_id": LIVE_STATE_ID, "player": {"courage": 7, "gold": 12}})
    editor = window.tabs.current_editor()  # type: ignore[attr-defined]
    if editor is not None and hasattr(editor, "check"):
        editor.check()
    return window


@register("scenario")
def scenario(workspace: Workspace, out_dir: object) -> QWidget:
    window = _open(workspace, "Scenario", "Courageous Explorer")
    editor = window.tabs.current_editor()  # type: ignore[attr-defined]
    if editor is not None and hasattr(editor, "check"):
        text = editor.source.toPlainText().replace("courage: 8", "courage: brave")
        editor.source.setPlainText(text.replace("mood: warm", "mood: warm\n  hat: 1"))
        editor.check()
    return window
