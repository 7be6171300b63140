"""Screenshots of the Attachments editor, the export dialog (its form and its summary) and a GDD
page showing an attachment's image, on the Drafft garden sample."""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow
from storyloom.gui.sidebar import ATTACHMENTS
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _overlay, _window

ATTACHMENT = "woman_expression_warm"
IMAGE_LINES = ("\n\n![The Woman, warm](drafft://image/{id})\n\n"
               "*The Woman in the garden: her warm expression, from the attachments.*\n\n"
               "![Concept art](concept_garden_gate)\n")


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


def _attachment(window: MainWindow, name: str) -> str | None:
    found = [s for s in window.session.index.summaries() if s.type == "Attachment"]
    chosen = next((s for s in found if s.name == name), found[0] if found else None)
    return chosen.id if chosen is not None else None


@register("attachments")
def attachments(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    window.sidebar.select(ATTACHMENTS)
    doc_id = _attachment(window, ATTACHMENT)
    if doc_id is not None:
        window.explorer.reveal(doc_id)
        window.open_document(doc_id)
    return window


def _dialog(workspace: Workspace, kind: str = "game", *, locales: bool = False) -> tuple[MainWindow, QWidget]:
    window = _window(workspace)
    from storyloom.gui.export_dialog import ExportDialog

    if locales:  # the Language choice shows when the project has target locales
        window.session.editor.update_settings({"targetLocales": ["fr", "pt-BR"]})
    dialog = ExportDialog(window.session, workspace.user, kind)
    dialog.output.setText(str(Path.home() / "games" / "the-garden-of-fading-memories.json"))
    dialog.sidecar.setChecked(True)
    _overlay(window, dialog, top=64)
    dialog.setStyleSheet("#exportDialog { background: palette(window); border: 1px solid palette(mid);"
                         " border-radius: 8px; }")
    return window, dialog


@register("export-dialog")
def export_dialog(workspace: Workspace, out_dir: Path) -> QWidget:
    window, _dialog_widget = _dialog(workspace, locales=True)
    return window


@register("export-summary")
def export_summary(workspace: Workspace, out_dir: Path) -> QWidget:
    window, dialog = _dialog(workspace)
    folder = Path(tempfile.mkdtemp(prefix="storyloom-shot-export-"))
    dialog.output.setText(str(folder / "the-garden-of-fading-memories.json"))  # type: ignore[attr-defined]
    task = dialog.start()  # type: ignore[attr-defined]
    if task is not None:
        task.wait(60_000)
    _settle()
    dialog.adjustSize()
    return window


@register("gdd")
def gdd(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    page = next((s.id for s in window.session.index.summaries() if s.type == "Gdd"), None)
    image = _attachment(window, ATTACHMENT)
    if page is None or image is None:
        return window
    window.navigate_to("", page)
    editor = window.tabs.current_editor()
    pane = getattr(editor, "pane", None)
    if pane is not None:
        text = pane.text()
        first_break = text.find("\n")
        cut = first_break if first_break >= 0 else len(text)
        pane.set_text(text[:cut] + IMAGE_LINES.format(id=image) + text[cut:])
        _settle()
        pane.render_preview()
    return window
