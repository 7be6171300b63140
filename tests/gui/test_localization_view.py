"""The Localization dock (storyloom.gui.localization_view) on the sample project, in a real
window: progress and filters, a translation typed in place (Enter, Tab), another user's lock,
the review a source edit raises, File ▸ Export/Import Translations with a real .po file, and the
empty state of a project without target locales."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QPlainTextEdit

from storyloom.app import Workspace
from storyloom.app.views import localization as lv
from storyloom.l10n.translations import entries_of, translation_id
from storyloom.project import TeamLocks, WriteIntent, locked_fields
from tests.gui.support import open_sample_window


def _open(qtbot, workspace: Workspace, locales: list[str]):  # type: ignore[no-untyped-def]
    return open_sample_window(qtbot, workspace, {"targetLocales": locales} if locales else None)


@pytest.fixture
def l10n_window(qtbot, workspace: Workspace):  # type: ignore[no-untyped-def]
    win = _open(qtbot, workspace, ["fr", "de"])
    yield win
    if not win.session.closed:
        win.close()


def _view(win):  # type: ignore[no-untyped-def]
    view = win.localization_view
    view.reveal()
    view.wait_until_read()
    return view


def _file_action(win, text: str):  # type: ignore[no-untyped-def]
    return next(a for a in win.menu("&File").actions() if a.text() == text)


def _settle(qtbot, win, view, until) -> None:  # type: ignore[no-untyped-def]
    """Let the session's changes reach the view (the bridge) and its reads finish."""
    def done() -> bool:
        win.session.wait_for_events(0.2)
        win.bridge.flush()
        view.wait_until_read()
        return bool(until())

    qtbot.waitUntil(done, timeout=10_000)


def _editor(view):  # type: ignore[no-untyped-def]
    """The translation editor open now (the closed ones wait for their deletion)."""
    shown = [e for e in view.view.findChildren(QPlainTextEdit, "translationEditor") if e.isVisible()]
    return shown[0] if shown else None


def _type(qtbot, view, at: int, text: str, key=Qt.Key.Key_Return) -> None:  # type: ignore[no-untyped-def]
    view.edit_row(at)
    editor = _editor(view)
    assert editor is not None
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, key)
    # the delegate commits a Return on the event loop's next turn (Qt queues it)
    qtbot.waitUntil(lambda: view.model.data(view.model.index(at, 3)) == text, timeout=3000)


def test_progress_filters_and_a_translation_typed_in_place(qtbot, l10n_window) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    view = win.localization_view
    assert not view.isVisible() and not view.reading  # nothing is read until the view is shown
    entry = next(a for a in win.menu("&View").actions() if a.text() == "Localization")
    assert entry.shortcut().toString() == "Ctrl+Alt+L"
    entry.trigger()
    assert view.isVisible() and view.reading
    assert view.pages.currentWidget() is view.busy_page and not view.bar.isEnabled()  # busy while it reads
    view.wait_until_read()
    assert view.pages.currentWidget() is view.table_page and view.bar.isEnabled()
    lines = view.model.rowCount()
    assert lines > 10
    assert [view.locale_box.itemText(i) for i in range(view.locale_box.count())] == [
        f"fr — 0/{lines} translated", f"de — 0/{lines} translated"]
    assert view.filter_buttons[lv.UNTRANSLATED].text() == f"Untranslated  {lines}"
    assert view.model.headerData(2, Qt.Orientation.Horizontal) == "Source (en)"
    assert view.model.headerData(3, Qt.Orientation.Horizontal) == "Translation (fr)"
    first = view.model.rows[0]

    _type(qtbot, view, 0, "Bonjour.")
    stored = entries_of(win.session.editor.get(translation_id("fr", first.document_id)))
    assert stored[first.line_id].text == "Bonjour." and stored[first.line_id].source == first.source
    assert view.model.data(view.model.index(0, 3)) == "Bonjour."
    assert view.locale_box.itemText(0) == f"fr — 1/{lines} translated"

    # Tab saves and goes on to the next untranslated line, in edit
    view.set_filter(lv.UNTRANSLATED)
    assert view.model.rowCount() == lines - 1
    second, third = view.model.rows[0], view.model.rows[1]
    _type(qtbot, view, 0, "Deux.", Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: _editor(view) is not None)
    assert view.selected_row().line_id == third.line_id
    # the saved row keeps its place until the filter changes: the table does not jump
    assert view.model.rows[0].line_id == second.line_id and view.model.rows[0].state == lv.TRANSLATED
    editor = _editor(view)
    qtbot.keyClicks(editor, "typed then cancelled")
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: view.view.state() != QAbstractItemView.State.EditingState)
    assert third.line_id not in entries_of(win.session.editor.get(translation_id("fr", third.document_id)))
    view.set_filter(lv.UNTRANSLATED)
    assert second.line_id not in [r.line_id for r in view.model.rows]

    view.set_filter(lv.ALL)
    view.select_line(third.line_id)
    view.open_button.click()  # Open Line: its document, at the line
    editor = win.tabs.current_editor()
    assert editor is not None and editor.doc_id == third.document_id
    assert editor.text.textCursor().blockNumber() + 1 == third.line
    view.set_search("bonjour")
    assert [r.line_id for r in view.model.rows] == [first.line_id]
    view.set_search("no such words anywhere")
    assert view.pages.currentWidget() is view.nothing_page
    view.set_search("")
    view.set_locale("de")
    assert view.model.headerData(3, Qt.Orientation.Horizontal) == "Translation (de)"
    assert all(r.translation is None for r in view.model.rows)


def test_another_users_lock_refuses_the_edit_says_who_and_keeps_the_text(qtbot, l10n_window) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    view = _view(win)
    row = view.model.rows[0]
    assert view.translate(row, "Bonjour.").saved
    editor = win.session.editor
    policy = editor.lock_policy
    editor.lock_policy = TeamLocks(lambda: "bea", lambda: True)
    held = editor.get(translation_id("fr", row.document_id))
    editor.update(held | locked_fields("bea", "2026-11-28T10:00:00.000Z"), intent=WriteIntent.LOCK)
    editor.lock_policy = TeamLocks(lambda: "tester", lambda: True)
    try:
        _type(qtbot, view, 0, "Salut.")
    finally:
        editor.lock_policy = policy
    assert view.banner.isVisible() and view.banner.kind == "error"
    assert "bea holds the lock of the fr translation" in view.banner.label.text()
    assert view.model.data(view.model.index(0, 3)) == "Salut."  # the typed text, not lost
    assert "Not saved" in view.model.data(view.model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert entries_of(editor.get(translation_id("fr", row.document_id)))[row.line_id].text == "Bonjour."


def test_a_source_edit_flips_the_row_to_review_and_mark_reviewed_clears_it(qtbot, l10n_window) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    view = _view(win)
    row = next(r for r in view.model.rows if r.doc_type == "Script")
    view.translate(row, "Bonjour.")
    doc = win.session.editor.get(row.document_id)
    doc["content"] = {**doc["content"], "script": doc["content"]["script"].replace(row.source, "A new line.", 1)}
    win.session.editor.update(doc)
    _settle(qtbot, win, view, lambda: any(r.line_id == row.line_id and r.state == lv.REVIEW for r in view.model.rows))
    assert view.locale_box.itemText(0).endswith("1 to review")
    view.set_filter(lv.REVIEW)
    assert [r.line_id for r in view.model.rows] == [row.line_id]
    view.view.setCurrentIndex(view.model.index(0, 3))
    assert view.review_button.isVisible()
    assert view.detail.text() == f"To review: the source changed since the translation.\nWas: {row.source}\n" \
                                 "Now: A new line."
    view.review_button.click()
    assert view.model.rows[0].state == lv.TRANSLATED and not view.review_button.isVisible()
    # a teammate's translation (here: written beside the view) shows when its change arrives
    from storyloom.l10n.translations import write_entry

    other = next(r for r in view.state.all_rows() if r.translation is None)
    write_entry(win.session.editor, "fr", other.document_id, "x", other.line_id, "D'un collègue.", other.source)
    _settle(qtbot, win, view, lambda: any(r.line_id == other.line_id and r.translation == "D'un collègue."
                                          for r in view.state.all_rows()))


def test_export_and_import_translations_from_the_file_menu(qtbot, l10n_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    assert _file_action(win, "Export Translations…").isEnabled()
    assert _file_action(win, "Import Translations…").isEnabled()
    texts = [a.text() for a in win.menu("&File").actions()]
    assert texts.index("Export Translations…") > texts.index("Print / Export Document…")
    assert texts.index("Import Translations…") < texts.index("Close Tab")
    view = _view(win)
    target = tmp_path / "sample.fr.po"
    view.export_to(target)
    view.wait_until_read()
    assert view.banner.kind == "success" and "to sample.fr.po" in view.banner.label.text()
    po = polib.pofile(str(target))
    assert len(po) == view.model.rowCount()
    po[0].msgstr = "Premier."
    po[1].msgstr = "Deuxième."
    po.append(polib.POEntry(msgctxt="gone_1", msgid="A deleted line", msgstr="Disparue."))
    po.save()
    view.import_from(target)
    view.wait_until_read()
    text = view.banner.label.text()
    assert view.banner.kind == "warning"  # a line was refused
    assert text.startswith("fr translations from sample.fr.po: 2 lines stored\n2 new translations")
    assert "gone_1 (“A deleted line”)" in text
    _settle(qtbot, win, view, lambda: view.model.data(view.model.index(0, 3)) == "Premier.")
    assert view.locale_box.itemText(0).startswith("fr — 2/")


def test_a_project_without_target_locales_says_where_to_add_them(qtbot, workspace: Workspace) -> None:  # type: ignore[no-untyped-def]
    win = _open(qtbot, workspace, [])
    try:
        view = _view(win)
        assert view.pages.currentWidget() is view.empty_page
        assert "Project Settings ▸ Localization ▸ Target locales" in view.empty_page.text.text()
        view.settings_button.click()
        editor = win.tabs.editor("ProjectSettings")
        assert editor is not None and win.tabs.current_editor() is editor
        qtbot.waitUntil(lambda: editor.target_locales.hasFocus() or win.focusWidget() is editor.target_locales)
        # the locales typed and saved there: the view reads the lines
        win.session.editor.update_settings({"targetLocales": ["fr"]})
        _settle(qtbot, win, view, lambda: view.pages.currentWidget() is view.table_page)
        assert view.locale_box.itemText(0).startswith("fr — 0/")
    finally:
        win.close()


def test_a_change_arriving_while_a_translation_is_typed_keeps_the_editor_and_its_text(qtbot, l10n_window) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    view = _view(win)
    first = view.model.rows[0]
    view.edit_row(0)
    editor = _editor(view)
    qtbot.keyClicks(editor, "En cours")
    made = win.session.editor.create("Script", "Epilogue", content={"script": "::Narrator:: The end.\n"}).id
    _settle(qtbot, win, view, lambda: any(r.document_id == made for r in view.state.all_rows()))
    assert _editor(view) is editor and editor.toPlainText() == "En cours"  # not closed, nothing lost
    assert view.selected_row().line_id == first.line_id
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(r.document_id == made for r in view.model.rows))  # shown once it closed
    assert entries_of(win.session.editor.get(translation_id("fr", first.document_id)))[first.line_id].text == \
        "En cours"
    assert view.model.rows[0].line_id == first.line_id


def test_shift_enter_breaks_the_line_and_the_editor_grows_to_show_it(qtbot, l10n_window) -> None:  # type: ignore[no-untyped-def]
    win = l10n_window
    view = win.localization_view
    next(a for a in win.menu("&View").actions() if a.text() == "Localization").trigger()
    view.wait_until_read()
    first = view.model.rows[0]
    view.edit_row(0)
    editor = _editor(view)
    assert editor is not None
    one_line = editor.height()
    qtbot.keyClicks(editor, "First line,")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(editor, "second line.")
    assert editor.height() > one_line  # both lines show
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    text = "First line,\nsecond line."
    qtbot.waitUntil(lambda: view.model.data(view.model.index(0, 3), Qt.ItemDataRole.EditRole) == text, timeout=3000)
    stored = entries_of(win.session.editor.get(translation_id("fr", first.document_id)))
    assert stored[first.line_id].text == text
    assert view.model.data(view.model.index(0, 3)) == "First line, ⏎ second line."  # the cell, on one line
    view.edit_row(0)  # opened again, the editor holds both lines
    assert _editor(view).toPlainText() == text
