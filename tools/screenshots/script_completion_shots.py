"""The script editor's completion list, drawn over the window (the popup is its own top-level
window, which a window's picture does not hold): the garden sample's ending script with
``@if v.player.`` typed and the player's properties offered with their types and defaults."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window


@register("script-completion")
def script_completion(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    window.show()
    editor = window.tabs.current_editor()
    text = getattr(editor, "text", None)
    if text is None or not hasattr(text, "show_completions"):
        return window
    block = text.document().findBlockByNumber(1)
    cursor = QTextCursor(block)
    cursor.insertText("@if v.player.\n")
    cursor.movePosition(QTextCursor.MoveOperation.Left)
    text.setTextCursor(cursor)
    text.setFocus()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    text.show_completions()
    popup = text.completer.popup()
    # Where the popup opens under the cursor (the offscreen screen is smaller than the window,
    # which would push it left).
    where = text.viewport().mapTo(window, text.cursorRect().bottomLeft() + QPoint(-8, 4))
    size = popup.size()
    popup.setWindowFlags(Qt.WindowType.Widget)
    popup.setParent(window)
    popup.setStyleSheet("#completionPopup { border: 1px solid palette(mid); }")
    popup.resize(size)
    popup.move(where)
    popup.show()
    popup.raise_()
    return window
