"""File > Export without Qt: the collections to tick, the selection, and files equal to what
``storyloom export`` / ``storyloom schema`` write for the same selection (``exportedAt`` aside)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storyloom.app import Workspace
from storyloom.app import export_files as ex
from storyloom.cli.main import main
from storyloom.drafft import import_backup
from tests.support.fixtures import DRAFFT_PROJECTS

GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"


@pytest.fixture
def session(storyloom_home: Path):  # type: ignore[no-untyped-def]
    workspace = Workspace()  # the options the CLI reads too (its user signs _meta.exportedBy)
    project, _report = import_backup(workspace.manager, GARDEN, name="Garden")
    project.close()
    opened = workspace.open_session("Garden")
    yield opened
    opened.close()
    workspace.close()


def _json(path: Path) -> dict:  # type: ignore[type-arg]
    data = json.loads(path.read_text(encoding="utf-8"))
    data.get("_meta", {}).pop("exportedAt", None)
    return data


def test_the_collections_to_tick(session) -> None:  # type: ignore[no-untyped-def]
    choices = {c.export_name: c for c in ex.collection_choices(session.settings(), session.index.summaries())}
    assert list(choices)[:3] == ["ProjectSettings", "GDD", "Scripts"] and len(choices) == 15
    assert (choices["Scripts"].documents, choices["Scenarios"].documents, choices["Quests"].documents) == (9, 5, 0)
    # the garden's export sections leave out the settings, the GDD and Canvas
    assert [n for n, c in choices.items() if not c.default] == ["ProjectSettings", "GDD", "Canvas"]
    assert choices["ProjectSettings"].label == "Project Settings"


def test_the_selection_is_the_cli_argument() -> None:
    defaults = ["Scripts", "Items"]
    assert ex.selection(["Items", "Scripts"], defaults) is None  # the project's sections: no --collections
    assert ex.selection(["items", "GDD", "Scripts"], defaults) == ["GDD", "Scripts", "Items"]
    with pytest.raises(ex.ExportError, match="at least one"):
        ex.selection([], defaults)


def test_the_export_equals_the_cli_export(session, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    steps: list[str] = []
    mine = tmp_path / "app" / "game.json"
    mine.parent.mkdir()
    choices = ex.ExportChoices(output=str(mine), collections=ex.selection(["Scripts", "Variables", "Items"], []),
                               schema_sidecar=True)
    result = ex.export_game_content(session.project, choices, exported_by=session.workspace.user,
                                    progress=steps.append)
    cli = tmp_path / "cli" / "game.json"
    cli.parent.mkdir()
    assert main(["export", "Garden", "--collections", "Scripts,Variables,Items", "-o", str(cli),
                 "--schema-sidecar"]) == 0
    capsys.readouterr()
    assert _json(mine) == _json(cli)
    assert mine.with_name("game.schema.json").read_bytes() == cli.with_name("game.schema.json").read_bytes()
    assert steps == ["Reading the project and building the export…", "Writing game.json…"]
    assert result.collections == ["Scripts", "Items", "Variables"]
    side = mine.with_name("game.schema.json")
    assert result.files == [(str(mine), mine.stat().st_size), (str(side), side.stat().st_size)]
    exported = json.loads(mine.read_text(encoding="utf-8"))
    assert result.documents == sum(1 for key in ("scripts", "variables", "items") for d in exported[key]
                                   if d.get("type") != "Folder")
    assert result.warnings == exported["_meta"]["warnings"] and len(result.warnings) == 3
    assert result.headline() == (f"Exported {result.documents} documents in 3 collections, "
                                 "with its JSON Schema beside it.")
    assert not list(mine.parent.glob(".*.tmp"))


def test_the_default_sections_and_pretty_output_equal_the_cli(session, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mine, cli = tmp_path / "mine.json", tmp_path / "cli.json"
    ex.export_game_content(session.project, ex.ExportChoices(output=str(mine), pretty=True, compat="drafft"),
                           exported_by=session.workspace.user)
    assert main(["export", "Garden", "-o", str(cli), "--pretty", "--compat", "drafft"]) == 0
    capsys.readouterr()
    assert mine.read_text(encoding="utf-8").startswith("{\n  ")
    assert _json(mine) == _json(cli) and _json(mine)["_meta"]["drafftVersion"]


def test_the_schema_equals_the_cli_schema(session, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mine, cli = tmp_path / "mine.schema.json", tmp_path / "cli.schema.json"
    result = ex.export_schema(session.project, ex.ExportChoices(output=str(mine), collections=["Actors", "Grids"]))
    assert main(["schema", "Garden", "--collections", "Actors,Grids", "-o", str(cli)]) == 0
    capsys.readouterr()
    assert mine.read_bytes() == cli.read_bytes()
    assert result.headline() == "Wrote the JSON Schema of 2 collections." and result.warnings == []


def test_a_cancelled_export_writes_nothing(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "game.json"
    asked: list[str] = []

    def cancelled() -> bool:  # the user cancels while the export is being built
        return bool(asked)

    with pytest.raises(ex.ExportCancelled, match="no file was written"):
        ex.export_game_content(session.project, ex.ExportChoices(output=str(out)), exported_by="t",
                               progress=asked.append, cancelled=cancelled)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_where_an_export_cannot_go(tmp_path: Path) -> None:
    with pytest.raises(ex.ExportError, match="Choose the file"):
        ex.check_output("  ")
    # A folder gets the default name inside it (created when the output ends with a separator).
    assert ex.check_output(str(tmp_path), "garden.json") == tmp_path / "garden.json"
    assert ex.check_output(f"{tmp_path / 'new'}/", "garden.json") == tmp_path / "new" / "garden.json"
    assert (tmp_path / "new").is_dir()
    (tmp_path / "taken.json").mkdir()
    with pytest.raises(ex.ExportError, match="is a folder"):
        ex.check_output(f"{tmp_path}/", "taken.json")
    with pytest.raises(ex.ExportError, match="does not exist"):
        ex.check_output(str(tmp_path / "missing" / "game.json"))
    assert ex.check_output(str(tmp_path / "game.json")) == tmp_path / "game.json"
    assert ex.default_output("The Goddess of Fate!", ex.GAME, tmp_path) == str(tmp_path / "the-goddess-of-fate.json")
    assert ex.default_output("", ex.SCHEMA, tmp_path) == str(tmp_path / "project.schema.json")


def test_the_last_choices_are_remembered_per_project(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert ex.load_choices(session.db, ex.GAME) is None
    chosen = ex.ExportChoices(output=str(tmp_path / "g.json"), collections=["Scripts"], schema_sidecar=True,
                              compat="none", pretty=True, locale="fr")
    ex.save_choices(session.editor, ex.GAME, chosen)
    ex.save_choices(session.editor, ex.SCHEMA, ex.ExportChoices(output="s.json"))
    assert ex.load_choices(session.db, ex.GAME) == chosen
    assert ex.load_choices(session.db, ex.SCHEMA) == ex.ExportChoices(output="s.json")
    broken = ex.ExportChoices.from_dict({"output": 3, "collections": ["Weapons"], "compat": "x", "pretty": "yes",
                                         "locale": 4, "allLocales": "yes"})
    assert broken == ex.ExportChoices()
    every = ex.ExportChoices(output="g.json", all_locales=True)
    assert ex.ExportChoices.from_dict(every.to_dict()) == every
    assert not ex.ExportChoices.from_dict({"locale": "fr", "allLocales": True}).all_locales  # one or the other


def test_the_language_choices_and_the_string_tables_names(tmp_path: Path) -> None:
    assert ex.language_choices({}) == [("Source text (en)", None)]
    assert ex.language_choices({"sourceLocale": "de", "targetLocales": ["fr", "pt-BR", "bad_tag"]}) == [
        ("Source text (de)", None), ("fr", "fr"), ("pt-BR", "pt-BR"),
        ("Source text, and a string table per language (fr, pt-BR)", ex.ALL_LOCALES)]
    assert ex.string_table_path(tmp_path / "game.json", "fr") == tmp_path / "game.fr.json"
    assert ex.string_table_path(tmp_path / "Game.JSON", "pt-BR") == tmp_path / "Game.pt-BR.json"
    assert ex.string_table_path(tmp_path / "story", "fr") == tmp_path / "story.fr.json"


def test_string_tables_need_a_file_and_exclude_a_locale(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import io

    with pytest.raises(ex.ExportError, match="beside the export"):
        ex.write_game_export(session.project, io.BytesIO(), all_locales=True)
    with pytest.raises(ex.ExportError, match="not both"):
        ex.write_game_export(session.project, tmp_path / "g.json", all_locales=True, locale="fr")
    assert list(tmp_path.iterdir()) == []
    # a project without target locales: the export alone, no table
    result = ex.write_game_export(session.project, tmp_path / "g.json", collections=["Scripts"], all_locales=True)
    assert [Path(path).name for path, _ in result.files] == ["g.json"] and result.tables == {}


def test_warnings_for_people(session) -> None:  # type: ignore[no-untyped-def]
    warning = {"collection": "Script", "docId": "s1", "field": "content.script", "line": 7, "column": 5,
               "message": "unknown variable path"}
    assert ex.format_warning(warning) == "Script s1 content.script line 7:5: unknown variable path"
    assert ex.describe_warning(warning, {"s1": "Ending Setup"}.get) == (
        "Script “Ending Setup”, content.script, line 7:5", "unknown variable path")
    assert ex.describe_warning({"collection": "Grid", "message": "m"}, lambda _i: None) == ("Grid", "m")
    many = ex.ExportResult(ex.GAME, [], [], warnings=[warning] * (ex.MAX_WARNING_LINES + 3))
    lines = many.warning_lines()
    assert len(lines) == ex.MAX_WARNING_LINES + 1 and lines[-1] == "… and 3 more in the file"
    assert many.warnings_title().startswith(f"{ex.MAX_WARNING_LINES + 3} warnings")
    assert ex.ExportResult(ex.GAME, [], []).warnings_title() == "No warnings."
