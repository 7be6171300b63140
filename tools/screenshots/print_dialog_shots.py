"""File > Print / Export Document… over the project window, with the script open in its tab."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from tools.screenshots import register
from tools.screenshots.main_window_shots import _overlay, _window


@register("print-dialog")
def print_dialog(workspace: Workspace, out_dir: Path) -> QWidget:
    from storyloom.gui.print_dialog import PrintDialog

    window = _window(workspace)
    editor = window.tabs.current_editor()
    dialog = PrintDialog(window.session, editor.doc_id if editor is not None else None, folder=Path.home())
    _overlay(window, dialog)
    dialog.setStyleSheet("#printDialog { background: palette(window); border: 1px solid palette(mid);"
                         " border-radius: 8px; }")
    return window
