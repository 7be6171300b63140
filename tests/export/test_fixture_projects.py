"""Every fixture project imports, exports, and its export validates against its own schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from storyloom.export.drafft_import import import_backup
from storyloom.export.game_export import build_game_export, collection_of, dumps_export, read_documents
from storyloom.export.schema_export import build_schema
from storyloom.project.collections import BY_APP_NAME, EXPORT_NAMES
from storyloom.project.manager import ProjectManager
from tests.export.helpers import PROJECT_FILES


def _without_time(text: str) -> dict:
    data = json.loads(text)
    data["_meta"]["exportedAt"] = None
    return data


@pytest.mark.parametrize("path", PROJECT_FILES, ids=[f"{p.parent.name}/{p.name}" for p in PROJECT_FILES])
@pytest.mark.parametrize("selection", ["default", "all"])
def test_fixture_project_exports_and_validates(path: Path, selection: str) -> None:
    project, _ = import_backup(ProjectManager(), path)
    try:
        collections = None if selection == "default" else ",".join(EXPORT_NAMES)
        first = dumps_export(build_game_export(project, collections, exported_by="tester"))
        second = dumps_export(build_game_export(project, collections, exported_by="tester"))
        schema = build_schema(project, collections)
        docs = read_documents(project.db)
    finally:
        project.close()

    Draft202012Validator.check_schema(schema)
    export = json.loads(first)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(schema).iter_errors(export)]
    assert errors == []

    # Deterministic: byte-identical but for _meta.exportedAt.
    assert _without_time(first) == _without_time(second)
    assert first.replace(export["_meta"]["exportedAt"], "") == second.replace(
        json.loads(second)["_meta"]["exportedAt"], ""
    )

    # Every document of an exported collection is there, once, without revision or lock fields.
    keys = {BY_APP_NAME[c].export_key: c for c in BY_APP_NAME}
    exported_ids = {key: [d["_id"] for d in export[key]] for key in export if key != "_meta"}
    for key, ids in exported_ids.items():
        expected = sorted(d["_id"] for d in docs if collection_of(d) == keys[key])
        assert ids == expected, key
        for item in export[key]:
            assert not {"_rev", "locked", "lockedBy", "lockedAt"} & set(item)
            assert isinstance(item["children"], list) and isinstance(item["path"], str)
            for stub in item.get("_attachments", {}).values():
                assert stub["stub"] is True and "data" not in stub
    if selection == "all":
        assert set(export) == {BY_APP_NAME[c].export_key for c in BY_APP_NAME} | {"_meta"}
    assert "remoteDbPassword" not in first
