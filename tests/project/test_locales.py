"""Project locales: ``sourceLocale`` and ``targetLocales``, BCP 47 tags (docs/localization.md)."""

from __future__ import annotations

import pytest

from storyloom.project import locale_problem, source_locale, target_locales
from storyloom.project.manager import Project
from storyloom.project.validation import ValidationError


@pytest.mark.parametrize("tag", ["en", "fr", "pt-BR", "zh-Hant", "zh-Hant-TW", "es-419", "de-CH-1996", "sr-Latn",
                                 "EN-us", "x-private", "tlh"])
def test_well_formed_registered_tags_are_locales(tag: str) -> None:
    assert locale_problem(tag) is None


@pytest.mark.parametrize(("tag", "said"), [
    ("en_US", "'en-US'"),  # the underscore of POSIX locales, with the tag to write instead
    ("english", "registry does not know"),  # well formed (5-8 letters), but no such language
    ("fr-FR-x", "not a well-formed"),
    ("en-", "not a well-formed"),
    ("xx", "registry does not know"),
    ("fr-AB", "registry does not know"),
    ("en-Abcd", "registry does not know"),
    ("", "not a language tag"),
    (3, "not a language tag"),
])
def test_a_bad_tag_is_refused_with_the_reason(tag: object, said: str) -> None:
    problem = locale_problem(tag)
    assert problem is not None and said in problem


def test_locales_are_set_through_the_settings_gate(project: Project) -> None:
    editor = project.editor
    assert source_locale(editor.settings()) == "en" and target_locales(editor.settings()) == []
    editor.update_settings({"sourceLocale": "en-GB", "targetLocales": ["fr", "pt-BR", "ja"]})
    assert source_locale(editor.settings()) == "en-GB"
    assert target_locales(editor.settings()) == ["fr", "pt-BR", "ja"]


@pytest.mark.parametrize(("changes", "field", "named"), [
    ({"targetLocales": ["fr", "de_DE"]}, "targetLocales", "de_DE"),
    ({"targetLocales": "fr"}, "targetLocales", "fr"),
    ({"targetLocales": ["fr", "FR"]}, "targetLocales", "FR"),
    ({"targetLocales": ["en"]}, "targetLocales", "en"),  # the source is not a target
    ({"sourceLocale": "english"}, "sourceLocale", "english"),
])
def test_a_bad_locale_setting_is_refused_naming_the_tag_and_a_good_one(
        project: Project, changes: dict, field: str, named: str) -> None:
    before = project.editor.settings()
    with pytest.raises(ValidationError) as caught:
        project.editor.update_settings(changes)
    problem = caught.value.problems[0]
    assert problem.field == field
    assert named in problem.message
    if field == "sourceLocale" or "_" in named or changes.get("targetLocales") == "fr":
        assert '"pt-BR"' in problem.message  # what a good tag looks like
    assert project.editor.settings()["_rev"] == before["_rev"]


def test_the_command_line_sets_locales_and_names_a_bad_tag(project: Project,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from storyloom.cli.main import main

    name = project.name
    project.close()
    code = main(["doc", "set", name, "ProjectSettings", 'targetLocales=["fr","pt-BR"]', "sourceLocale=en-GB"])
    assert code == 0, capsys.readouterr()
    code = main(["doc", "set", name, "ProjectSettings", 'targetLocales=["fr","de_DE"]'])
    err = capsys.readouterr().err
    assert code == 2 and "de_DE" in err and "'de-DE'" in err
    from storyloom.project.manager import ProjectManager

    reopened = ProjectManager(username="tester").open(name)
    try:
        assert target_locales(reopened.editor.settings()) == ["fr", "pt-BR"]
        assert source_locale(reopened.editor.settings()) == "en-GB"
    finally:
        reopened.close()
