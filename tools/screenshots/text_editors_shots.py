"""Screenshots of the GDD editor and the Actor property pane, on the Drafft garden sample."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from tools.screenshots import register
from tools.screenshots.main_window_shots import _window


def _open(workspace: Workspace, doc_type: str, name: str | None = None) -> QWidget:
    window = _window(workspace)
    docs = sorted((s for s in window.session.index.summaries() if s.type == doc_type), key=lambda s: s.name or "")
    chosen = next((s for s in docs if s.name == name), docs[0] if docs else None)
    if chosen is not None:
        window.navigate_to("", chosen.id)
    return window


@register("gdd-editor")
def gdd_editor(workspace: Workspace, out_dir: object) -> QWidget:
    return _open(workspace, "Gdd")


@register("property-editor")
def property_editor(workspace: Workspace, out_dir: object) -> QWidget:
    window = _open(workspace, "Actor", "Woman")
    editor = window.tabs.current_editor()  # type: ignore[attr-defined]
    if editor is not None and hasattr(editor, "language"):
        editor.language.setCurrentIndex(editor.language.findData("yaml"))
        editor.properties.setPlainText("name: Woman\nage: 30\nmood: [calm, wistful\n")
        editor.check_properties()
    return window
