"""The ``export``, ``schema`` and ``dump`` verbs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.drafft import import_backup
from storyloom.export import stream
from storyloom.project.manager import ProjectManager
from tests.export import validators
from tests.export.helpers import GARDEN

pytestmark = pytest.mark.slow  # whole exports of the Garden through the CLI


@pytest.fixture
def garden_project() -> str:
    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    project.close()
    return "Garden"


def test_export_with_schema_sidecar(garden_project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["export", garden_project, "-o", str(out), "--schema-sidecar"]) == 0
    export = json.loads(out.read_text(encoding="utf-8"))
    schema = json.loads((tmp_path / "game.schema.json").read_text(encoding="utf-8"))
    validators.check_schema(schema)
    assert validators.messages(schema, export) == []
    assert {"scripts", "variables", "scenarios", "_meta"} <= set(export)
    assert "warning" in capsys.readouterr().err  # the garden's scripts use an unknown variable path
    assert not list(tmp_path.glob(".*.tmp"))


def test_export_collections_to_stdout(garden_project: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", garden_project.upper(), "--collections", "Items, Variables", "--pretty"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("{\n  ")
    export = json.loads(text)
    assert set(export) == {"items", "variables", "_meta"}
    assert export["_meta"]["collections"] == ["Items", "Variables"]


def test_export_errors(garden_project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", garden_project, "--collections", "Items,Weapons"]) == 2
    err = capsys.readouterr().err
    assert "unknown collection 'Weapons'" in err and "Scripts" in err and "Maps" in err
    assert main(["export", garden_project, "--collections", ""]) == 2
    assert "empty collection name" in capsys.readouterr().err
    assert main(["export", garden_project, "--schema-sidecar"]) == 2
    assert "needs -o" in capsys.readouterr().err
    assert main(["export", "No Such Project"]) == 2
    assert "No Such Project" in capsys.readouterr().err
    assert main(["export", garden_project, "-o", str(tmp_path / "missing" / "x.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_schema_verb(garden_project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schema.json"
    assert main(["schema", garden_project, "--collections", "Variables,Scenarios", "-o", str(out)]) == 0
    schema = json.loads(out.read_text(encoding="utf-8"))
    validators.check_schema(schema)
    assert schema["required"] == ["variables", "scenarios", "_meta"]
    assert "Variable_player" in schema["$defs"]
    assert main(["schema", garden_project, "--collections", "Nope"]) == 2
    assert "valid collections" in capsys.readouterr().err


def test_dump_verb(garden_project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump", garden_project]) == 0
    dump = json.loads(capsys.readouterr().out)
    project = ProjectManager().open(garden_project)
    try:
        expected = project.store.all_docs(include_docs=True, attachments=True)
    finally:
        project.close()
    assert dump["rows"] == expected["rows"]
    with_data = [r for r in dump["rows"] if r["doc"].get("_attachments")]
    assert with_data and all("data" in a for r in with_data for a in r["doc"]["_attachments"].values())
    out = tmp_path / "dump.json"
    assert main(["dump", garden_project, "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["rows"] == expected["rows"]


def test_schema_sidecar_and_export_come_from_one_reading(
    garden_project: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit between two readings (here: the player's ``courage`` turned into text, landing
    right after the export's first reading, its light pass) must not make the sidecar describe
    another state than the export beside it."""

    def edit(db) -> None:
        [row] = [r for r in db.all_docs(include_docs=True)["rows"] if "_sid: player" in str(r["doc"])]
        doc = row["doc"]
        assert "courage: 5" in doc["content"]["variables"]
        doc["content"]["variables"] = doc["content"]["variables"].replace("courage: 5", "courage: high")
        db.put(doc)

    stores: list = []
    readings: list[int] = []
    real_open = ProjectManager.open
    real_fields = stream.document_fields

    def open_keeping_store(self, name_or_id):
        project = real_open(self, name_or_id)
        stores.append(project.store)
        return project

    def fields_then_edit(snap, fields):
        rows = list(real_fields(snap, fields))
        readings.append(1)
        if len(readings) == 1:
            edit(stores[0])  # written by the store's writer, outside the export's snapshot
        return iter(rows)

    monkeypatch.setattr(stream, "document_fields", fields_then_edit)
    monkeypatch.setattr(ProjectManager, "open", open_keeping_store)
    out = tmp_path / "game.json"
    assert main(["export", garden_project, "-o", str(out), "--schema-sidecar"]) == 0
    export = json.loads(out.read_text(encoding="utf-8"))
    schema = json.loads((tmp_path / "game.schema.json").read_text(encoding="utf-8"))
    assert readings == [1] and len(stores) == 1
    [player] = [v for v in export["variables"] if v["content"]["variables"].get("_sid") == "player"]
    assert player["content"]["variables"]["courage"] == 5  # the state as first read
    assert validators.messages(schema, export) == []


def test_a_kanban_folder_is_exported_as_a_folder_like_any_collection_s(tmp_path: Path) -> None:
    """Issue 24: a folder of the Kanban collection (made as the sidebar's New Folder makes it) is a
    folder in the export and its schema, never a board: no content, type Folder, as an Item folder."""
    from storyloom.app.views.outline import create_in

    project = ProjectManager(username="t").create("Boards")
    try:
        kanban_folder = create_in(project.editor, "Kanban", None, folder=True).id
        board = create_in(project.editor, "Kanban", kanban_folder).id
        item_folder = create_in(project.editor, "Item", None, folder=True).id
    finally:
        project.close()
    out = tmp_path / "game.json"
    assert main(["export", "Boards", "--collections", "Kanban,Items", "-o", str(out), "--schema-sidecar"]) == 0
    export = json.loads(out.read_text(encoding="utf-8"))
    by_id = {doc["_id"]: doc for doc in export["kanban"] + export["items"]}
    folder, other = by_id[kanban_folder], by_id[item_folder]
    assert folder["type"] == other["type"] == "Folder" and "content" not in folder
    assert set(folder) - {"collection"} == set(other) - {"collection"}
    assert folder["children"] == [board] and by_id[board]["type"] == "Kanban" and "columns" in by_id[board]["content"]
    schema = json.loads((tmp_path / "game.schema.json").read_text(encoding="utf-8"))
    assert validators.messages(schema, export) == []
    # The schema tells a folder from a board, as it does for Variables, Scenarios and Maps: a
    # folder is a KanbanFolder, a board a KanbanDocument whose content holds its columns.
    assert schema["$defs"]["KanbanFolder"]["properties"]["type"] == {"const": "Folder"}
    boardless = {key: value for key, value in by_id[board].items() if key != "content"}
    assert validators.messages(schema, dict(export, kanban=[folder, boardless])) != []
