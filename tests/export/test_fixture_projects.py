"""Every fixture project imports, exports, and its export validates against its own schema."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from storyloom.drafft import import_backup
from storyloom.export.cache import cache_for
from storyloom.export.game_export import build_game_export, collection_of, dumps_export, read_documents
from storyloom.export.schema_export import build_schema
from storyloom.project.collections import BY_APP_NAME, BY_EXPORT_NAME, EXPORT_NAMES
from storyloom.project.documents import permalink_target
from storyloom.project.manager import ProjectManager
from tests.export import validators
from tests.export.helpers import PROJECT_FILES
from tests.support.fixtures import REPO_ROOT

_IDS = [f"{p.parent.name}/{p.name}" for p in PROJECT_FILES]
_EXPORTED_AT = re.compile(r'"exportedAt":"[^"]*"')


def _without_time(text: str) -> str:
    """The serialised export with the value of ``_meta.exportedAt`` blanked (exactly once)."""
    blanked, count = _EXPORTED_AT.subn('"exportedAt":""', text)
    assert count == 1
    return blanked


@pytest.mark.parametrize("path", PROJECT_FILES, ids=_IDS)
@pytest.mark.parametrize("selection", ["default", "all"])
@pytest.mark.slow
def test_fixture_project_exports_and_validates(path: Path, selection: str) -> None:
    project, _ = import_backup(ProjectManager(), path)
    try:
        collections = None if selection == "default" else ",".join(EXPORT_NAMES)
        export_text = dumps_export(build_game_export(project, collections, exported_by="tester"))
        schema = build_schema(project, collections)
        docs = read_documents(project.store)
    finally:
        project.close()

    validators.check_schema(schema)  # jsonschema and ajv (draft 2020-12) both accept it
    export = json.loads(export_text)
    assert validators.messages(schema, export) == []

    # Every document of an exported collection is there, once, without revision or lock fields.
    keys = {BY_APP_NAME[c].export_key: c for c in BY_APP_NAME}
    exported_ids = {key: [d["_id"] for d in export[key]] for key in export if key in keys}
    for key, ids in exported_ids.items():
        expected = sorted(d["_id"] for d in docs if collection_of(d) == keys[key])
        assert ids == expected, key
        for item in export[key]:
            assert not {"_rev", "locked", "lockedBy", "lockedAt"} & set(item)
            assert isinstance(item["children"], list) and isinstance(item["path"], str)
            for stub in item.get("_attachments", {}).values():
                assert stub["stub"] is True and "data" not in stub
    # ... and, in _meta, the Attachment documents the exported actors' expressions point at.
    stored = {d["_id"] for d in docs if d.get("type") == "Attachment"}
    expected: set[str] = set()
    for actor in (d for d in docs if "actors" in export and collection_of(d) == "Actor"):
        for expression in (actor.get("content") or {}).get("expressions", []):
            target = expression.get("_id") if expression.get("_id") in stored else None
            target = target or permalink_target(expression.get("permalink", ""))
            expected |= {target} & stored
    assert [a["_id"] for a in export["_meta"]["attachments"]] == sorted(expected)
    # The top level holds exactly the selected collections and _meta.
    assert set(export) == {BY_EXPORT_NAME[name].export_key for name in export["_meta"]["collections"]} | {"_meta"}
    if selection == "all":
        assert export["_meta"]["collections"] == list(EXPORT_NAMES)
    assert "remoteDbPassword" not in export_text
    # Imported v1 editor data is exported once: as content.tree / content.columns only.
    assert all("graph" not in d for d in export.get("dialogues", []))
    assert all("data" not in d for d in export.get("kanban", []))


# -- attachments: every link in an export resolves ---------------------------------------------

_IMAGE_LINK = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://image/(?P<id>.+)$")
_ATTACHMENT_LINK = re.compile(r"^storyloom://attachment/(?P<id>[^/]+)/(?P<name>[^/]+)$")


def _strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every ``(path, string)`` inside a JSON value (object keys not included)."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _strings(item, f"{path}/{key}")]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _strings(item, f"{path}/{index}")]
    return []


@pytest.mark.parametrize("path", PROJECT_FILES, ids=_IDS)
def test_every_image_and_attachment_link_resolves_to_an_exported_attachment(path: Path) -> None:
    project, _ = import_backup(ProjectManager(), path)
    try:
        export = json.loads(dumps_export(build_game_export(project, ",".join(EXPORT_NAMES), exported_by="tester")))
        stored = {d["_id"]: d for d in read_documents(project.store) if d.get("type") == "Attachment"}
    finally:
        project.close()

    attachments = {entry["_id"]: entry for entry in export["_meta"]["attachments"]}
    assert set(attachments) <= set(stored)
    for doc_id, entry in attachments.items():
        assert entry["name"] == stored[doc_id]["name"] and entry["mimeType"] == stored[doc_id]["mimeType"]
        assert set(entry) <= {"_id", "name", "mimeType", "content", "_attachments"}
        assert set(entry["_attachments"]) == set(stored[doc_id]["_attachments"])
        for name, stub in entry["_attachments"].items():
            assert stub["stub"] is True and "data" not in stub
            assert stub["length"] == stored[doc_id]["_attachments"][name]["length"]
            assert stub["digest"] == stored[doc_id]["_attachments"][name]["digest"]
            assert stub["permalink"] == f"storyloom://attachment/{quote(doc_id, safe='')}/{quote(name, safe='')}"
            assert stub["url"] == f"/attachments/{quote(doc_id, safe='')}/{quote(name, safe='')}"

    links = 0
    body = {key: value for key, value in export.items() if key != "_meta"}
    for where, text in _strings(body):
        image = _IMAGE_LINK.match(text)
        if image:
            links += 1
            assert image["id"] in attachments, f"{where}: {text} points at no exported attachment"
        attachment = _ATTACHMENT_LINK.match(text)
        if attachment:
            links += 1
            doc_id, name = attachment["id"], attachment["name"]
            owners = {item["_id"]: item for items in body.values() for item in items}
            owner = owners.get(unquote(doc_id))
            assert owner is not None and unquote(name) in owner.get("_attachments", {}), f"{where}: {text}"

    expressions = [e for actor in export["actors"] for e in (actor.get("content") or {}).get("expressions", [])]
    for expression in expressions:
        assert expression["attachmentId"] in attachments, expression
        assert _IMAGE_LINK.match(expression["permalink"])["id"] == expression["attachmentId"]
    if stored:
        assert links > 0 and expressions  # the fixtures with images do link them


# -- determinism: cold, warm, and another process with another hash seed --------------------

_SUBPROCESS_EXPORT = """
import sys
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.project.manager import ProjectManager
project = ProjectManager().open(sys.argv[1])
try:
    sys.stdout.buffer.write(dumps_export(build_game_export(project, sys.argv[2] or None, exported_by="tester"))
                            .encode("utf-8"))
finally:
    project.close()
"""


@pytest.mark.parametrize("path", PROJECT_FILES, ids=_IDS)
@pytest.mark.parametrize("selection", ["default", "all"])
@pytest.mark.integration
def test_export_is_byte_identical_cold_warm_and_across_processes(path: Path, selection: str) -> None:
    project, _ = import_backup(ProjectManager(), path)
    collections = "" if selection == "default" else ",".join(EXPORT_NAMES)
    try:
        cache = cache_for(project.db)  # the export reads through the project's read view
        assert cache is not None
        cache.clear()
        cold = dumps_export(build_game_export(project, collections or None, exported_by="tester"))
        hits = cache.hits
        warm = dumps_export(build_game_export(project, collections or None, exported_by="tester"))
        assert cache.hits > hits  # the second export did come from the per-revision memo
        project_id = project.id
    finally:
        project.close()

    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT / "src"), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS_EXPORT, project_id, collections],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    other = result.stdout.decode("utf-8")

    assert _without_time(cold) == _without_time(warm)
    assert _without_time(cold) == _without_time(other)
