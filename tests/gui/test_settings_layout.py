"""Project Settings opens at its top, the focus in its first field, and its Lock button sits in
the form's title row (not alone above the pages)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from storyloom.gui.sidebar import SETTINGS


def _settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def _open_settings(window, qtbot):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ProjectSettingsEditor

    window.resize(1380, 700)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    window.sidebar.select(SETTINGS)
    window.open_document(SETTINGS)  # again, when the rail's entry was chosen already
    _settle()
    editor = window.tabs.current_editor()
    assert isinstance(editor, ProjectSettingsEditor)
    return editor


def test_the_settings_open_at_the_top_with_the_name_to_type_in(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open_settings(window, qtbot)
    bar = editor.form_scroll.verticalScrollBar()
    assert bar.maximum() > 0  # the form is longer than the window: it could open scrolled
    assert bar.value() == 0
    editor.setFocus()  # what the tabs do when the tab opens
    _settle()
    assert editor.focusProxy() is editor.name_edit
    assert bar.value() == 0
    editor.interpolate.setFocus()  # the writer worked low in the form, then came back to the tab
    editor.form_scroll.ensureWidgetVisible(editor.interpolate)
    window.tabs.close_current()
    editor = _open_settings(window, qtbot)
    assert editor.form_scroll.verticalScrollBar().value() == 0


def test_the_lock_button_sits_in_the_title_row(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open_settings(window, qtbot)
    parts = window.lock_ui.parts(editor)
    assert parts is not None
    button, _banner = parts
    assert button.isVisible()
    title = editor.form_title
    centre = button.mapTo(editor, button.rect().center())
    top = title.mapTo(editor, title.rect().topLeft())
    assert top.y() <= centre.y() <= top.y() + title.height(), "the Lock button is not beside the title"
    assert button.mapTo(editor, button.rect().topLeft()).x() > top.x() + title.sizeHint().width()
