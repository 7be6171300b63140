"""Options: the theme and the editor font apply live, Save keeps them, Cancel puts them back;
the dialog is sections with headings and a list of them, and every earlier option still works."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication, QLabel

from storyloom.app import AppOptions
from storyloom.gui import appearance, theme
from storyloom.gui.editors.code_editor import CodeEditor


@pytest.fixture(autouse=True)
def system_look(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Each test starts and ends with the system's theme and font (the look is app-wide)."""
    appearance.apply_look("system", "", 0, qapp)
    yield
    appearance.apply_look("system", "", 0, qapp)


def _script_editor(window) -> CodeEditor:  # type: ignore[no-untyped-def]
    doc_id = next(s.id for s in window.session.index.summaries() if s.type == "Script")
    window.open_document(doc_id)
    editors = window.tabs.current_editor().findChildren(CodeEditor)
    assert editors
    return editors[0]


def _family() -> str:
    """An installed family other than the system's monospace (offscreen Qt has a few)."""
    system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    return next(f for f in QFontDatabase.families() if f != system)


def test_clicking_dark_applies_the_theme_at_once_and_save_keeps_it(window, qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_options()
    assert not theme.colors().dark
    dark = dialog.findChild(type(dialog.theme_buttons.buttons()[0]), "theme-dark")
    qtbot.mouseClick(dark, Qt.MouseButton.LeftButton)
    assert theme.colors().dark  # before saving: the writer sees the choice
    assert QApplication.palette().base().color().lightness() < 128
    assert "#1c1c20" in window.styleSheet() or theme.DARK.window in window.styleSheet() or \
        theme.DARK.border in window.styleSheet()  # the window's own style sheet follows
    assert dialog.save()
    assert workspace.options.theme == "dark" and AppOptions.load().theme == "dark"
    assert theme.colors().dark


def test_cancel_puts_the_saved_theme_and_font_back(window, qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window)
    before = editor.font().family(), editor.font().pointSize()
    dialog = window.show_options()
    qtbot.mouseClick(dialog.findChild(type(dialog.theme_buttons.buttons()[0]), "theme-light"),
                     Qt.MouseButton.LeftButton)
    dialog.font_size.setValue(20)
    assert editor.font().pointSize() == 20
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert (editor.font().family(), editor.font().pointSize()) == before
    assert workspace.options.theme == "system" and workspace.options.editor_font_size == 0


def test_the_editor_font_applies_to_open_editors_live_and_to_new_ones(window, qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window)
    family = _family()
    dialog = window.show_options()
    dialog.font_family.setCurrentIndex(dialog.font_family.findData(family))
    dialog.font_size.setValue(17)
    assert editor.font().pointSize() == 17 and editor.font().family() == family
    assert dialog.font_sample.font().pointSize() == 17
    # Tab stops follow the new font (four spaces wide).
    assert editor.tabStopDistance() == pytest.approx(editor.fontMetrics().horizontalAdvance(" ") * 4)
    assert dialog.save()
    assert (workspace.options.editor_font_family, workspace.options.editor_font_size) == (family, 17)
    saved = AppOptions.load()
    assert (saved.editor_font_family, saved.editor_font_size) == (family, 17)
    fresh = CodeEditor()
    assert fresh.font().pointSize() == 17 and fresh.font().family() == family
    # "Default size" is the system's size (0 in the options).
    dialog = window.show_options()
    dialog.font_size.setValue(dialog.font_size.minimum())
    assert dialog.font_size.text() == "Default size"
    assert dialog.save() and workspace.options.editor_font_size == 0
    assert editor.font().pointSize() == QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).pointSize()


def test_the_dialog_is_sections_with_headings_and_a_list_of_them(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_options()
    titles = [dialog.nav.item(r).text() for r in range(dialog.nav.count())]
    assert titles == ["Appearance", "You", "Local API", "Backups"]
    for key, section in dialog.sections.items():
        headings = [label.text() for label in section.findChildren(QLabel) if label.property("role") == "heading"]
        assert headings == [section.title], key
        assert not dialog.nav.item(list(dialog.sections).index(key)).icon().isNull()
    # Choosing Backups in the list scrolls its section into view.
    dialog.resize(880, 500)
    qtbot.waitUntil(dialog.isVisible)
    dialog.nav.setCurrentRow(3)
    section = dialog.sections["backups"]
    scroll = dialog.page_scroll.verticalScrollBar().value()
    assert scroll > 0 and scroll == min(section.y(), dialog.page_scroll.verticalScrollBar().maximum())
    # Scrolling back to the top shows Appearance in the list again.
    dialog.page_scroll.verticalScrollBar().setValue(0)
    assert dialog.nav.currentRow() == 0
    dialog.page_scroll.verticalScrollBar().setValue(dialog.sections["api"].y())
    assert dialog.nav.currentItem().text() == "Local API"
    # Every earlier option is still there.
    for name in ("username", "api_enabled", "api_key", "api_port", "answer_cache", "backups_keep"):
        assert getattr(dialog, name).isVisibleTo(dialog), name
    dialog.reject()


def test_a_font_the_computer_lacks_is_kept_and_shown(workspace, window) -> None:  # type: ignore[no-untyped-def]
    workspace.options.editor_font_family = "Nonexistent Mono 9000"
    dialog = window.show_options()
    assert dialog.font_family.currentText() == "Nonexistent Mono 9000 (not installed)"
    assert dialog.chosen_font()[0] == "Nonexistent Mono 9000"
    dialog.reject()


def test_the_system_scheme_is_followed_only_while_the_theme_is_system(qapp) -> None:  # type: ignore[no-untyped-def]
    appearance.apply_look("light", "", 0, qapp)
    appearance.system_scheme_changed(qapp)
    assert not theme.colors().dark and appearance.theme_choice() == "light"
    appearance.apply_look("system", "", 0, qapp)
    appearance.system_scheme_changed(qapp)
    assert theme.colors().dark == theme.system_prefers_dark()


def test_an_open_scripts_colours_follow_the_theme_without_marking_it_unsaved(window, qtbot, qapp) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QTextCharFormat

    text = _script_editor(window)
    editor = window.tabs.current_editor()
    qtbot.wait(50)

    def colours() -> list[str]:
        block = text.document().begin()
        return [QTextCharFormat(r.format).foreground().color().name() for r in block.layout().formats()]

    light = colours()
    appearance.apply_look("dark", "", 0, qapp)
    assert colours() != light and colours()
    qtbot.wait(50)
    assert not editor.dirty
    appearance.apply_look("light", "", 0, qapp)
    assert colours() == light


def test_saved_options_give_the_app_its_look_at_start(qapp) -> None:  # type: ignore[no-untyped-def]
    AppOptions(username="ada", theme="dark", editor_font_size=15).save()
    appearance.apply_appearance(AppOptions.load(), qapp)  # what run() does before the first window
    assert theme.colors().dark and appearance.theme_choice() == "dark"
    assert CodeEditor().font().pointSize() == 15
