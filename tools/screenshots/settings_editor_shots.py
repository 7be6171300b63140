"""The Project Settings editor's screenshot, on the Drafft garden sample: C# mapping templates
typed, scrolled down to the Export section and the preview of the sample lines."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from storyloom.gui.sidebar import SETTINGS
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _window


@register("project-settings")
def project_settings(workspace: Workspace, out_dir: object) -> QWidget:
    window = _window(workspace)
    window.sidebar.select(SETTINGS)
    editor = window.tabs.current_editor()
    if editor is not None and hasattr(editor, "speech_template"):
        editor.language.setCurrentIndex(editor.language.findData("csharp"))
        editor.speech_template.setText('%actor.Say("%speech", "%expression", "%tag");')
        editor.command_template.setText('ExecuteCommand("%command", %params(,));')
        editor.speech_template.textEdited.emit(editor.speech_template.text())
        editor.stop()
        window.show()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            settle(app)
        bar = editor.form_scroll.verticalScrollBar()
        bar.setValue(bar.maximum())
    return window


@register("project-settings-locales")
def project_settings_locales(workspace: Workspace, out_dir: object) -> QWidget:
    """The Localization section, with a refused target locale (an underscore) and its message."""
    window = _window(workspace)
    window.sidebar.select(SETTINGS)
    editor = window.tabs.current_editor()
    if editor is not None and hasattr(editor, "target_locales"):
        editor.target_locales.setText("fr, de_DE, pt-BR")
        editor.mark_dirty()
        editor.save()
        editor.stop()
        window.show()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            settle(app)
        editor.form_scroll.ensureWidgetVisible(editor.errors["targetLocales"], 0, 160)
    return window
