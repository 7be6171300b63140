"""The main window's screenshots: a script open in its tab, the Options dialog and Quick Open
(each dialog drawn over the window, where the user sees it), on the Drafft garden sample."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow, open_project_window
from tools.screenshots import SIZE, register, settle

DRAFFT_SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "drafft" / "projects" / "v2" \
    / "the-garden-of-fading-memories.json"
SCRIPT = "Reflection (Ending)"


def _window(workspace: Workspace) -> MainWindow:
    if DRAFFT_SAMPLE.exists():
        from storyloom.drafft import import_backup

        project, _report = import_backup(workspace.manager, DRAFFT_SAMPLE, name="The Garden of Fading Memories")
    else:  # without the shared fixtures: a small project made here
        project = workspace.manager.create("The Garden of Fading Memories")
        project.editor.create("Script", SCRIPT, content={"script": "::Woman:: I knew you would come back.\n"})
    name = project.name
    project.close()
    window = open_project_window(workspace, name)
    window.resize(SIZE)
    script = next((s.id for s in window.session.index.summaries() if s.type == "Script" and s.name == SCRIPT),
                  None) or next(s.id for s in window.session.index.summaries() if s.type == "Script")
    window.navigate_to("", script)
    editor = window.tabs.current_editor()
    if editor is not None:
        editor.focus_line(3)
    return window


def _overlay(window: MainWindow, dialog: QDialog, top: int | None = None, *, fit: bool = True) -> None:
    """Draw ``dialog`` inside the window (a child, not a top-level) so one picture shows both."""
    dialog.setWindowFlags(Qt.WindowType.Widget)
    dialog.setParent(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    dialog.setStyleSheet("#optionsDialog, #quickOpen { background: palette(window); border: 1px solid palette(mid);"
                         " border-radius: 8px; }")
    size = dialog.sizeHint().expandedTo(dialog.minimumSize()) if fit else dialog.size()
    dialog.resize(size)
    y = top if top is not None else (window.height() - size.height()) // 2
    dialog.move(QPoint((window.width() - size.width()) // 2, y))
    dialog.show()
    dialog.raise_()


@register("main-window-script")
def main_window_script(workspace: Workspace, out_dir: Path) -> QWidget:
    return _window(workspace)


@register("options")
def options(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    from storyloom.gui.options_dialog import OptionsDialog

    _overlay(window, OptionsDialog(workspace))
    return window


@register("quick-open")
def quick_open(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    from storyloom.gui.quick_open import QuickOpen

    dialog = QuickOpen(window.session)
    dialog.query.setText("ga")
    _overlay(window, dialog, top=72, fit=False)
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    return window
