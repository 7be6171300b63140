"""The settings form saves with the revision it loaded: a change made elsewhere meanwhile shows
a "changed elsewhere" banner over the form (Reload / Overwrite), never loses what was typed, and
Overwrite keeps the other change to the fields the writer did not touch."""

from __future__ import annotations

import pytest

from storyloom.project.collections import SETTINGS_ID


@pytest.fixture
def editor(window):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ProjectSettingsEditor
    from storyloom.gui.sidebar import SETTINGS

    window.sidebar.select(SETTINGS)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ProjectSettingsEditor)
    return editor


def _type_version(editor, text: str) -> None:  # type: ignore[no-untyped-def]
    editor.version.setText(text)
    editor.version.textEdited.emit(text)


def test_a_change_elsewhere_while_typing_shows_the_banner_and_keeps_the_values(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    _type_version(editor, "7.0")
    # another window (or an import, a sync) changes the settings before the form saves
    window.session.editor.update_settings({"projectDescription": "Written in another window"})
    assert not editor.save()
    banner = editor.banner
    assert not banner.isHidden() and banner.kind == "warning"
    assert "changed elsewhere" in banner.label.text()
    assert [b.text() for b in banner.buttons if not b.isHidden()] == ["Reload", "Overwrite"]
    assert editor.version.text() == "7.0" and editor.dirty  # nothing typed is lost
    assert window.session.db.get(SETTINGS_ID).get("projectVersion") != "7.0"
    editor.load_theirs()  # leave the window clean (closing it would ask about the unsaved values)


def test_overwrite_saves_the_changed_fields_over_theirs(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    _type_version(editor, "7.1")
    window.session.editor.update_settings({"projectDescription": "Theirs"})
    assert not editor.save()
    next(b for b in editor.banner.buttons if b.text() == "Overwrite").click()
    stored = window.session.db.get(SETTINGS_ID)
    assert stored["projectVersion"] == "7.1"
    assert stored["projectDescription"] == "Theirs"  # a field the writer did not touch keeps theirs
    assert not editor.dirty and editor.banner.isHidden()


def test_reload_shows_theirs(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    _type_version(editor, "7.2")
    window.session.editor.update_settings({"projectVersion": "8.0"})
    assert not editor.save()
    next(b for b in editor.banner.buttons if b.text() == "Reload").click()
    assert editor.version.text() == "8.0" and not editor.dirty and editor.banner.isHidden()


def test_the_change_arriving_as_an_event_while_typing_asks_too(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    _type_version(editor, "7.3")
    window.session.editor.update_settings({"projectDescription": "Synced in"})
    qtbot.waitUntil(lambda: not editor.banner.isHidden(), timeout=5000)  # the session's event, before any save
    assert "changed elsewhere" in editor.banner.label.text() and editor.version.text() == "7.3"
    editor.load_theirs()
