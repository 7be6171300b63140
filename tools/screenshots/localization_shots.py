"""The Localization dock's screenshots, on the built-in sample with French and German as its
target locales: some lines translated, one to review (selected: the previous source beside the
new), a lock's refusal; the empty state of a project without target locales; the File menu with
Export Translations… and Import Translations…"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.sample import create_sample_project
from tools.screenshots import SIZE, register, settle


def _sample(workspace: Workspace, locales: list[str]) -> MainWindow:
    project = create_sample_project(workspace.manager)
    if locales:
        project.editor.update_settings({"targetLocales": locales})
    name = project.name
    project.close()
    window = open_project_window(workspace, name)
    window.resize(SIZE)
    window.show()
    return window


def _settle() -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)


def _dock(window: MainWindow) -> None:
    view = window.localization_view
    view.reveal()
    window.resizeDocks([view], [470], Qt.Orientation.Vertical)
    view.wait_until_read()
    _settle()


@register("localization-view")
def localization_view(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _sample(workspace, ["fr", "de", "pt-BR"])
    _dock(window)
    view = window.localization_view
    editor = window.session.editor
    words = ["La lampe de Gullrock est éteinte depuis une nuit et un jour.",
             "Bureau des phares. Je viens pour la lampe.", "Vous êtes en retard.",
             "Le gardien est parti.", "Montez. L'escalier est raide."]
    rows = list(view.model.rows)
    for row, text in zip(rows, words, strict=False):
        view.translate(row, text)
    # the writer edits a translated line: it reads as to review
    target = next(r for r in view.state.all_rows() if r.translation and r.doc_type == "Script" and r.line)
    doc = editor.get(target.document_id)
    doc["content"] = {**doc["content"], "script": doc["content"]["script"].replace(
        target.source, target.source.rstrip(".") + ", and the boats are waiting.", 1)}
    editor.update(doc)
    window.session.wait_for_events()
    _settle()
    window.bridge.flush()
    view.wait_until_read()
    _settle()
    view.select_line(target.line_id)
    window.open_document(target.document_id)
    _settle()
    view.view.setFocus()
    return window


@register("localization-empty")
def localization_empty(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _sample(workspace, [])
    _dock(window)
    return window


@register("localization-file-menu")
def localization_file_menu(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _sample(workspace, ["fr"])
    menu = window.menu("&File")
    menu.setWindowFlags(Qt.WindowType.Widget)  # drawn inside the window: one picture shows both
    menu.setParent(window)
    menu.adjustSize()
    menu.move(QPoint(4, window.menuBar().height()))
    menu.show()
    menu.raise_()
    export = next(a for a in menu.actions() if a.text() == "Export Translations…")
    menu.setActiveAction(export)
    _settle()
    return window


@register("localization-import")
def localization_import(workspace: Workspace, out_dir: Path) -> QWidget:
    """A translator's .po file imported (File ▸ Import Translations…): the report above the lines."""
    import tempfile

    import polib

    window = _sample(workspace, ["fr"])
    _dock(window)
    view = window.localization_view
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lighthouse.fr.po"
        view.export_to(path)
        view.wait_until_read()
        po = polib.pofile(str(path))
        for entry, text in zip(po, ("La lampe de Gullrock est éteinte depuis une nuit et un jour.",
                                    "Bureau des phares. Je viens pour la lampe.", "Vous êtes en retard."),
                               strict=False):
            entry.msgstr = text
        po.append(polib.POEntry(msgctxt="old_0042", msgid="A line cut from the second act", msgstr="Coupée."))
        po.save()
        view.import_from(path)
        view.wait_until_read()
    window.session.wait_for_events()
    _settle()
    window.bridge.flush()
    view.wait_until_read()
    _settle()
    return window


@register("localization-editing")
def localization_editing(workspace: Workspace, out_dir: Path) -> QWidget:
    """A translation typed in place over two lines (Shift+Enter): the editor grows over the rows
    below."""
    window = _sample(workspace, ["fr", "de"])
    _dock(window)
    view = window.localization_view
    view.edit_row(2)
    _settle()
    editor = QApplication.focusWidget()
    if isinstance(editor, QPlainTextEdit):
        editor.setPlainText("Vous êtes en retard.\nLe bateau du matin est déjà reparti.")
        editor.moveCursor(QTextCursor.MoveOperation.End)
    _settle()
    return window
