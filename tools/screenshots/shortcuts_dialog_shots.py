"""The Keyboard Shortcuts dialog's screenshot: drawn over the main window on the garden sample."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from tools.screenshots import register
from tools.screenshots.main_window_shots import _overlay, _window


@register("keyboard-shortcuts")
def keyboard_shortcuts(workspace: Workspace, out_dir: Path) -> QWidget:
    from storyloom.gui.shortcuts_dialog import ShortcutsDialog, shortcut_groups

    window = _window(workspace)
    dialog = ShortcutsDialog(shortcut_groups(window))
    _overlay(window, dialog, top=48, fit=False)
    dialog.setStyleSheet("#shortcutsDialog { background: palette(window); border: 1px solid palette(mid);"
                         " border-radius: 8px; }")
    return window
