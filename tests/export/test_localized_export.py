"""The localized game export (docs/export-format.md, "Localized export"): the translated text in
place, the source where there is none, stale translations exported and counted, on a real store
through the streamed export the CLI, app and API use."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.main import main
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.export.localized import UnknownExportLocale
from storyloom.export.stream import stream_game_export
from storyloom.l10n.translations import write_entry
from storyloom.project import dialogue_option_ids, script_line_ids
from storyloom.project.dialogue_graph import new_node
from storyloom.project.manager import Project, ProjectManager

TEXT = "::Ann:: Good morning.\n<Wait(1)>\n::Bob:: You have ${variables.player.gold} coins.\n::Ann:: Bye.\n"
MAPPINGS = {"speechExportMapping": {"text": "say(%speech)"}, "commandSpeechExportMapping": {"text": ""},
            "interpolateVariablesOnExport": True}


@pytest.fixture
def project() -> Iterator[Project]:
    opened = ProjectManager(username="ana").create("Saga")
    opened.editor.update_settings({"targetLocales": ["fr", "pt-BR"], "exportMappings": MAPPINGS})
    yield opened
    opened.close()


def _setup(project: Project) -> dict[str, Any]:
    editor = project.editor
    editor.create("Variable", "Player", content={"variables": "_sid: player\ngold: 20\n"})
    script_id = editor.create("Script", "Intro", content={"script": TEXT}).id
    ids = script_line_ids(editor.get(script_id))
    choice = new_node("choice", 0, 0)
    choice["data"]["handles"][1]["label"] = "Yes, gladly"
    choice["data"]["handles"][2]["label"] = "No"
    talk_id = editor.create("Dialogue", "Talk", content={"tree": {"nodes": [choice], "edges": []}}).id
    option_ids = dialogue_option_ids(editor.get(talk_id))
    yes = option_ids[f"{choice['id']}/{choice['data']['handles'][1]['id']}"]
    write_entry(editor, "fr", script_id, "Intro", ids[0], "Bonjour.", "Good morning.")
    write_entry(editor, "fr", script_id, "Intro", ids[1], "Tu as ${variables.player.gold} pièces.",
                "You have ${variables.player.gold} coins.")
    # made from an older source: stale, exported all the same and counted to review
    write_entry(editor, "fr", script_id, "Intro", ids[2], "Salut.", "Goodbye.")
    write_entry(editor, "fr", talk_id, "Talk", yes, "Oui, volontiers", "Yes, gladly")
    return {"script": script_id, "talk": talk_id, "ids": ids, "yes": yes}


def _export(project: Project, locale: str | None = None) -> tuple[dict[str, Any], bytes, dict[str, str]]:
    with stream_game_export(project, ["Scripts", "Dialogues", "Variables"], "ana", locale=locale) as export:
        out = io.BytesIO()
        export.write_to(out)
        return json.loads(out.getvalue()), out.getvalue(), export.strings


def _speech(exported: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for line in exported["scripts"][0]["content"]["lines"] if line["type"] == "speech"]


def _labels(exported: dict[str, Any]) -> list[Any]:
    [choice] = exported["dialogues"][0]["content"]["tree"]["nodes"]
    return [handle.get("label") for handle in choice["data"]["handles"][1:]]


def test_translated_lines_are_in_place_and_the_rest_falls_back(project: Project) -> None:
    made = _setup(project)
    exported, _, strings = _export(project, "fr")
    speech = _speech(exported)
    assert [line["text"] for line in speech] == ["Bonjour.", "Tu as 20 pièces.", "Salut."]
    assert [line["mapped"] for line in speech] == ["say(Bonjour.)", "say(Tu as 20 pièces.)", "say(Salut.)"]
    assert [line["lineId"] for line in speech] == made["ids"]
    assert exported["scripts"][0]["content"]["script"] == TEXT  # the raw text stays the writer's
    assert _labels(exported) == ["Oui, volontiers", "No"]
    assert exported["_meta"]["localization"] == {"locale": "fr", "sourceLocale": "en", "lines": 5,
                                                 "translated": 4, "needsReview": 1, "untranslated": 1}
    assert strings[made["yes"]] == "Oui, volontiers" and strings[made["ids"][2]] == "Salut."
    # a locale without translations: every line is the source
    other, _, _ = _export(project, "PT-br")  # tags compare without case
    assert [line["text"] for line in _speech(other)] == ["Good morning.", "You have 20 coins.", "Bye."]
    assert other["_meta"]["localization"]["locale"] == "pt-BR"
    assert other["_meta"]["localization"]["untranslated"] == 5


def _stamped(exported: tuple[dict[str, Any], bytes, dict[str, str]]) -> bytes:
    """The bytes of an export with its ``_meta.exportedAt`` blanked (the one value that moves)."""
    return exported[1].replace(exported[0]["_meta"]["exportedAt"].encode(), b"T")


def test_the_unlocalized_export_is_unchanged(project: Project) -> None:
    """The plain export's bytes: the same whether translations exist or not, the same for the
    source locale, and without ``_meta.localization``."""
    editor = project.editor
    script_id = editor.create("Script", "Intro", content={"script": TEXT}).id
    before = _stamped(_export(project))
    ids = script_line_ids(editor.get(script_id))
    write_entry(editor, "fr", script_id, "Intro", ids[0], "Bonjour.", "Good morning.")
    after = _export(project)
    assert _stamped(after) == before
    assert _stamped(_export(project, "en")) == before
    assert _stamped(_export(project, "EN")) == before
    assert "localization" not in after[0]["_meta"]
    assert _speech(_export(project, "fr")[0])[0]["text"] == "Bonjour."
    assert _stamped(_export(project)) == before  # a localized run left no trace in the memos
    # the list-based export gives the same bytes as the streamed one, localized or not
    for locale in (None, "fr"):
        exported, raw, _ = _export(project, locale)
        built = build_game_export(project, ["Scripts", "Dialogues", "Variables"], "ana", locale=locale)
        built["_meta"]["exportedAt"] = exported["_meta"]["exportedAt"]
        assert dumps_export(built).encode() == raw


def test_counts_and_text_stay_right_across_repeated_exports(project: Project) -> None:
    """The memos never serve another locale's or an older translation's export."""
    made = _setup(project)
    first = _export(project, "fr")[0]
    plain = _export(project)[0]
    second = _export(project, "fr")[0]
    assert first["_meta"]["localization"] == second["_meta"]["localization"]
    assert _speech(first) == _speech(second)
    assert _speech(plain)[0]["text"] == "Good morning."
    write_entry(project.editor, "fr", made["script"], "Intro", made["ids"][2], "Au revoir.", "Bye.")
    third = _export(project, "fr")[0]
    assert _speech(third)[2]["text"] == "Au revoir."
    assert third["_meta"]["localization"]["needsReview"] == 0
    # a translation its file marked to review (a fuzzy PO entry) is exported and counted too
    write_entry(project.editor, "fr", made["script"], "Intro", made["ids"][0], "Bonjour ?", "Good morning.",
                review=True)
    fourth = _export(project, "fr")[0]
    assert _speech(fourth)[0]["text"] == "Bonjour ?" and fourth["_meta"]["localization"]["needsReview"] == 1
    assert _export(project)[0]["scripts"] == plain["scripts"]


def test_an_unknown_locale_is_refused_naming_the_projects_locales(project: Project) -> None:
    with pytest.raises(UnknownExportLocale) as caught:
        stream_game_export(project, locale="de")
    error = caught.value
    assert error.code == "unknown_export_locale"
    assert "'de' is not one of the project's locales (source en; targets fr, pt-BR)" in str(error)
    assert error.fix is not None and error.fix.action == "add_target_locale"


# ------------------------------------------------------------------------------ the command line


@pytest.fixture
def closed_project(project: Project) -> dict[str, Any]:
    """The project set up and closed, for the command line to open."""
    made = _setup(project)
    project.close()
    return made


def test_cli_export_locale(closed_project: dict[str, Any], tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["export", "Saga", "--locale", "fr", "-o", str(out)]) == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert _speech(exported)[0]["text"] == "Bonjour."
    assert exported["_meta"]["localization"]["needsReview"] == 1
    assert "text in fr: 4 of 5 lines translated, 1 to review, 1 in the source language" in capsys.readouterr().err
    assert main(["export", "Saga", "--collections", "Scripts", "--locale", "fr"]) == 0  # to stdout
    assert _speech(json.loads(capsys.readouterr().out))[1]["text"] == "Tu as 20 pièces."


def test_cli_export_unknown_locale_exits_2_naming_the_locales(closed_project: dict[str, Any], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["export", "Saga", "--locale", "de", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'de' is not one of the project's locales (source en; targets fr, pt-BR)" in err
    assert """storyloom doc set Saga ProjectSettings 'targetLocales=["fr","pt-BR","de"]'""" in err
    assert not out.exists() and not list(tmp_path.iterdir())
    assert main(["export", "Saga", "--all-locales"]) == 2
    assert "--all-locales needs -o" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["export", "Saga", "--all-locales", "--locale", "fr", "-o", str(out)])
    assert exited.value.code == 2


def test_cli_export_all_locales_writes_a_string_table_per_locale(closed_project: dict[str, Any], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["export", "Saga", "--all-locales", "-o", str(out)]) == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert "localization" not in exported["_meta"]
    assert _speech(exported)[0]["text"] == "Good morning."  # the export holds the source text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.fr.json", "game.json", "game.pt-BR.json"]
    french = json.loads((tmp_path / "game.fr.json").read_text(encoding="utf-8"))
    ids, yes = closed_project["ids"], closed_project["yes"]
    assert french["strings"] == {ids[0]: "Bonjour.", ids[1]: "Tu as ${variables.player.gold} pièces.",
                                 ids[2]: "Salut.", yes: "Oui, volontiers"}
    assert french["_meta"]["localization"] == {"locale": "fr", "sourceLocale": "en", "lines": 5, "translated": 4,
                                               "needsReview": 1, "untranslated": 1}
    portuguese = json.loads((tmp_path / "game.pt-BR.json").read_text(encoding="utf-8"))
    assert portuguese["strings"] == {} and portuguese["_meta"]["localization"]["untranslated"] == 5
    assert "game.fr.json" in capsys.readouterr().err


def test_the_schema_describes_a_localized_export(project: Project) -> None:
    from storyloom.export.stream import stream_schema
    from tests.export import validators

    _setup(project)
    schema = stream_schema(project, ["Scripts", "Dialogues", "Variables"])
    validators.check_schema(schema)
    for locale in (None, "fr"):
        exported = _export(project, locale)[0]
        assert validators.messages(schema, exported) == []
    broken = _export(project, "fr")[0]
    broken["_meta"]["localization"]["translated"] = "4"
    assert validators.messages(schema, broken) != []
