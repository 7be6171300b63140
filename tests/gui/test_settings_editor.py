"""The Project Settings editor on the garden sample: a form whose saves go through the gate."""

from __future__ import annotations

import pytest

from storyloom.project.collections import SETTINGS_ID


@pytest.fixture
def editor(window):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ProjectSettingsEditor
    from storyloom.gui.sidebar import SETTINGS

    window.sidebar.select(SETTINGS)  # the rail's "Project Settings" entry opens the document
    editor = window.tabs.current_editor()
    assert isinstance(editor, ProjectSettingsEditor) and editor.doc_id == SETTINGS_ID
    return editor


def test_the_form_shows_the_settings(window, editor) -> None:  # type: ignore[no-untyped-def]
    stored = window.session.db.get(SETTINGS_ID)
    assert editor.name_edit.text() == stored["projectName"]
    assert editor.description.toPlainText() == stored["projectDescription"]
    assert editor.version.text() == stored["projectVersion"]
    checked = [name for name, box in editor.section_boxes.items() if box.isChecked()]
    assert checked == [s for s in editor.section_boxes if s in stored["exportSections"]]
    assert editor.compat.currentData() is None


def test_toggling_an_export_section_saves_it(window, editor) -> None:  # type: ignore[no-untyped-def]
    box = editor.section_boxes["Canvas"]
    was = box.isChecked()
    box.setChecked(not was)
    assert editor.dirty
    assert editor.save()
    stored = window.session.db.get(SETTINGS_ID)
    assert ("Canvas" in stored["exportSections"]) is (not was)
    assert not editor.dirty and not editor.invalid


def test_compat_mode_and_version_save(window, editor) -> None:  # type: ignore[no-untyped-def]
    editor.compat.setCurrentIndex(editor.compat.findData("drafft"))
    editor.version.setText("2.0")
    editor.version.textEdited.emit("2.0")
    assert editor.save()
    stored = window.session.db.get(SETTINGS_ID)
    assert stored["exportCompat"] == "drafft" and stored["projectVersion"] == "2.0"


def test_a_template_change_updates_the_preview_and_saves(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor.language.setCurrentIndex(editor.language.findData("lua"))
    assert "no template" in editor.preview.text()
    editor.speech_template.setFocus()
    qtbot.keyClicks(editor.speech_template, "%actor:say('%speech')")
    assert "Narrator:say('Hello!')" in editor.preview.text()
    assert editor.save()
    stored = window.session.db.get(SETTINGS_ID)
    assert stored["exportMappings"]["speechExportMapping"]["lua"] == "%actor:say('%speech')"
    editor.language.setCurrentIndex(editor.language.findData("text"))
    assert editor.speech_template.text() == "" and "no template" in editor.preview.text()


def test_an_invalid_value_shows_inline_and_keeps_the_text(window, editor) -> None:  # type: ignore[no-untyped-def]
    before = window.session.db.get(SETTINGS_ID)
    editor.name_edit.setText("   ")
    editor.name_edit.textEdited.emit("   ")
    editor.version.setText("3.0")
    editor.version.textEdited.emit("3.0")
    assert not editor.save()
    assert editor.invalid
    error = editor.errors["projectName"]
    assert not error.isHidden() and "non-empty" in error.text()
    assert editor.name_edit.text() == "   " and editor.version.text() == "3.0"
    assert window.session.db.get(SETTINGS_ID)["_rev"] == before["_rev"]
    editor.name_edit.setText("Garden Renamed")
    editor.name_edit.textEdited.emit("Garden Renamed")
    assert editor.save()
    assert error.isHidden()
    assert window.session.db.get(SETTINGS_ID)["projectName"] == "Garden Renamed"


def test_the_stale_lock_time_shows_the_default_and_saves(window, editor) -> None:  # type: ignore[no-untyped-def]
    stored = window.session.db.get(SETTINGS_ID)
    assert "staleLockMinutes" not in stored and editor.stale_lock.value() == 240
    assert "staleLockMinutes" not in editor.changes()  # the default stays unnamed until changed
    editor.stale_lock.setValue(90)
    assert editor.dirty
    assert editor.save()
    assert window.session.db.get(SETTINGS_ID)["staleLockMinutes"] == 90
    from storyloom.app.locks import project_stale_minutes

    assert project_stale_minutes(window.session.project) == 90


def test_the_voice_over_pattern_shows_the_default_refuses_a_bad_one_and_saves(window, editor, qtbot) -> None:  # type: ignore[no-untyped-def]
    stored = window.session.db.get(SETTINGS_ID)
    assert "voiceOverPath" not in stored and editor.voice_over.text() == "{actor}/{lineId}.ogg"
    assert "voiceOverPath" not in editor.changes()  # the default stays unnamed until changed
    editor.voice_over.selectAll()
    qtbot.keyClicks(editor.voice_over, "{actor}/take.ogg")  # no {lineId}: two lines would share a file
    assert not editor.save()
    error = editor.errors["voiceOverPath"]
    assert not error.isHidden() and "{lineId}" in error.text()
    assert editor.voice_over.text() == "{actor}/take.ogg"
    editor.voice_over.selectAll()
    qtbot.keyClicks(editor.voice_over, "{locale}/{actor}/{lineId}.wav")
    assert editor.save() and error.isHidden()
    assert window.session.db.get(SETTINGS_ID)["voiceOverPath"] == "{locale}/{actor}/{lineId}.wav"
    from storyloom.project import voice_over_path

    assert voice_over_path(window.session.settings()) == "{locale}/{actor}/{lineId}.wav"
