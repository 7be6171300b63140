"""Shared helpers of the export tests: fixture paths, document builders, an in-memory project."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from storyloom.store import Database
from tests.support.fixtures import DRAFFT_FIXTURES, DRAFFT_GAME_EXPORTS, DRAFFT_PROJECTS

FIXTURES = DRAFFT_FIXTURES
PROJECTS = DRAFFT_PROJECTS
GAME_EXPORTS = DRAFFT_GAME_EXPORTS
GARDEN = PROJECTS / "v2" / "the-garden-of-fading-memories.json"
PROJECT_FILES = sorted(PROJECTS.glob("*/*.json"))


@cache
def _load_rows(path: Path) -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(path.read_text(encoding="utf-8"))["rows"])


def fixture_docs(path: Path = GARDEN) -> list[dict[str, Any]]:
    """The documents of a fixture dump (design documents left out), fresh copies."""
    return [copy.deepcopy(row["doc"]) for row in _load_rows(path) if not row["id"].startswith("_design/")]


def settings_doc(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "_id": "ProjectSettings",
        "projectName": "Test",
        "defaultEditorLanguage": "hjson",
        "defaultScriptEditorMode": "text",
        "exportMappings": {"speechExportMapping": {"text": ""}, "commandSpeechExportMapping": {"text": ""}},
    }
    doc.update(overrides)
    return doc


def doc(doc_type: str, doc_id: str, name: str | None = None, *, content: Any = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "_id": doc_id,
        "type": doc_type,
        "collection": fields.pop("collection", doc_type),
        "name": name or doc_id,
        "parent": fields.pop("parent", None),
    }
    if content is not None:
        out["content"] = content
    out.update(fields)
    return out


def variable(doc_id: str, source: str, **fields: Any) -> dict[str, Any]:
    return doc("Variable", doc_id, content={"variables": source, "json": "{}"}, **fields)


def scenario(doc_id: str, source: str, **fields: Any) -> dict[str, Any]:
    return doc("Scenario", doc_id, content={"scenario": source, "json": "{}"}, **fields)


class MemoryProject:
    """A stand-in for ``storyloom.project.manager.Project`` over an in-memory store."""

    def __init__(self, docs: list[dict[str, Any]], name: str = "Memory", project_id: str = "p-1") -> None:
        self.store = Database(":memory:")
        self.db = self.store
        self.name = name
        self.id = project_id
        with_revs = [d for d in docs if "_rev" in d]
        without = [d for d in docs if "_rev" not in d]
        if with_revs:
            assert self.db.bulk_docs(copy.deepcopy(with_revs), new_edits=False) == []
        for item in without:
            self.db.put(copy.deepcopy(item))

    def settings(self) -> dict[str, Any]:
        try:
            return self.db.get("ProjectSettings")
        except Exception:
            return {}

    def close(self) -> None:
        self.db.close()
