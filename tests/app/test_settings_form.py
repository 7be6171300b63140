"""The Project Settings form's Qt-free logic: sections, choices, preview, patch, field errors."""

from __future__ import annotations

from storyloom.app.views import settings_form as form
from storyloom.project.checking import ValidationError
from storyloom.project.collections import EXPORT_NAMES
from storyloom.project.documents import EDITOR_MODES
from storyloom.project.settings import default_settings


def test_sections_and_compat_choices() -> None:
    assert form.FORM_SECTIONS == ("General", "Team", "Localization", "Export")
    assert [value for _label, value in form.COMPAT_CHOICES] == [None, "drafft"]
    assert form.compat_value({"exportCompat": "drafft"}) == "drafft"
    assert form.compat_value({}) is None


def test_the_stale_lock_time_is_named_only_when_it_differs_or_was_named() -> None:
    assert form.stale_lock_value({}, 240) == {}  # the default, left unnamed
    assert form.stale_lock_value({}, 90) == {"staleLockMinutes": 90}
    assert form.stale_lock_value({"staleLockMinutes": 240}, 240) == {"staleLockMinutes": 240}
    assert form.settings_patch({"staleLockMinutes": 240}, form.stale_lock_value({"staleLockMinutes": 240}, 240)) == {}


def test_export_section_choices_follow_export_order_and_settings() -> None:
    choices = form.export_section_choices({"exportSections": ["items", "Scripts"]})
    assert [name for name, _ in choices] == list(EXPORT_NAMES)
    assert {name for name, checked in choices if checked} == {"Items", "Scripts"}
    defaults = dict(form.export_section_choices({}))
    assert defaults["Scripts"] and not defaults["ProjectSettings"]


def test_export_sections_value_is_ordered_and_deduplicated() -> None:
    assert form.export_sections(["Maps", "Scripts", "scripts"]) == ["Scripts", "Maps"]


def test_mapping_tables_fill_every_language_and_keep_the_rest() -> None:
    settings = default_settings("P")
    settings["exportMappings"]["speechExportMapping"]["lua"] = "say(%actor)"
    settings["exportMappings"]["extra"] = 1
    tables = form.mapping_tables(settings)
    assert set(EDITOR_MODES) <= set(tables.speech) and tables.speech["lua"] == "say(%actor)"
    assert tables.interpolate is False
    tables.command["lua"] = "%command()"
    tables.interpolate = True
    value = form.export_mappings_value(settings, tables)
    assert value["extra"] == 1 and value["commandSpeechExportMapping"]["lua"] == "%command()"
    assert value["interpolateVariablesOnExport"] is True
    assert form.mapping_tables({"exportMappings": "bad"}).speech["text"] == ""


def test_mapping_preview_renders_the_sample_lines() -> None:
    preview = form.mapping_preview('%actor.Say("%speech", "%expression", "%tag")', 'Run("%command", %params(,))')
    assert preview.speech == 'Narrator.Say("Hello!", "happy", "tag_1234")'
    assert preview.command == 'Run("Fade", 1, "red")'
    assert preview.speech_source == form.SAMPLE_SPEECH
    empty = form.mapping_preview("", "")
    assert empty.speech == form.NO_MAPPING and empty.command == form.NO_MAPPING


def test_settings_patch_holds_only_what_changed() -> None:
    base = default_settings("P")
    values = {"projectName": "P", "projectVersion": "2.0", "exportSections": list(base["exportSections"])}
    assert form.settings_patch(base, values) == {"projectVersion": "2.0"}


def test_field_errors_place_problems_under_their_field() -> None:
    from storyloom.project.checking import make_problem

    problems = [
        make_problem("ProjectSettings", "projectName", "a non-empty string", "", "error", "wrong-shape"),
        make_problem("ProjectSettings", "exportMappings.speechExportMapping", "an object", 1, "error", "x"),
        make_problem("ProjectSettings", "screenPlay.fadeInCommand", "a string", 1, "error", "x"),
    ]
    placed, others = form.field_errors(ValidationError(problems).problems)
    assert placed["projectName"].startswith("Expected a non-empty string")
    assert "exportMappings" in placed
    assert len(others) == 1 and "screenPlay" in others[0]


def test_locales_as_typed_and_back() -> None:
    assert form.locale_texts({}) == ("en", "")
    assert form.locale_texts({"sourceLocale": "en-GB", "targetLocales": ["fr", "pt-BR"]}) == ("en-GB", "fr, pt-BR")
    assert form.locales_value({}, "en", " ") == {}  # the defaults, never named: nothing written
    assert form.locales_value({}, " en ", "fr, pt-BR;ja  de") == {
        "sourceLocale": "en", "targetLocales": ["fr", "pt-BR", "ja", "de"]}
    assert form.locales_value({"targetLocales": ["fr"]}, "en", "") == {"sourceLocale": "en", "targetLocales": []}
    placed, _ = form.field_errors([type("P", (), {"field": "targetLocales", "message": "x: targetLocales: bad"})()])
    assert placed == {"targetLocales": "Bad"}


def test_the_voice_over_pattern_as_typed_and_back() -> None:
    assert form.voice_over_text({}) == "{actor}/{lineId}.ogg"
    assert form.voice_over_text({"voiceOverPath": "{actor}"}) == "{actor}"  # shown as stored, to be fixed
    assert form.voice_over_value({}, "{actor}/{lineId}.ogg") == {}  # the default, never named
    assert form.voice_over_value({}, "  ") == {}
    assert form.voice_over_value({}, " vo/{lineId}.wav ") == {"voiceOverPath": "vo/{lineId}.wav"}
    assert form.voice_over_value({"voiceOverPath": "x/{lineId}"}, "") == {"voiceOverPath": "{actor}/{lineId}.ogg"}
    placed, _ = form.field_errors([type("P", (), {"field": "voiceOverPath", "message": "s: voiceOverPath: bad"})()])
    assert placed == {"voiceOverPath": "Bad"}
