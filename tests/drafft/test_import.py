"""Drafft import: every sample project imports with nothing lost.

The expected per-type counts below were checked by hand against each fixture (and agree with
the fixtures' README): ``(imported, converted, skipped)`` per source type.
"""

from __future__ import annotations

import base64
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from storyloom.drafft import (
    PASSWORD_NOT_KEPT,
    DrafftImportError,
    ImportReport,
    convert_graph,
    convert_rows,
    import_backup,
)
from storyloom.project.dates import is_iso_utc, normalise_date
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.tree import derive_tree
from storyloom.project.validation import MappingContext, check_document
from storyloom.store import NotFound

from .conftest import FIXTURE_FILES, fixture_docs, fixture_dump, fixture_path

EXPECTED_COUNTS: dict[str, dict[str, tuple[int, int, int]]] = {
    "one-bullet": {
        "Actor": (4, 4, 0), "Dialogue": (1, 1, 0), "Folder (Script)": (4, 0, 0), "Gdd": (3, 3, 0),
        "Hotkeys": (6, 6, 0), "Item": (5, 5, 0), "Kanban": (1, 1, 0), "Misc": (1, 1, 0),
        "ProjectSettings": (1, 1, 0), "Quest": (2, 2, 0), "Script": (11, 11, 0), "_design": (0, 0, 2),
    },
    "gof-v1": {
        "Actor": (6, 6, 0), "Dialogue": (6, 6, 0), "Folder (Dialogue)": (2, 0, 0), "Folder (Script)": (7, 0, 0),
        "Gdd": (1, 1, 0), "Hotkeys": (3, 3, 0), "Item": (5, 5, 0), "ProjectSettings": (1, 1, 0),
        "Quest": (1, 1, 0), "Script": (35, 35, 0), "_design": (0, 0, 1),
    },
    "gof-partial": {
        "Actor": (6, 5, 0), "Attachment": (3, 3, 0), "Dialogue": (6, 6, 0), "Folder (Dialogue)": (2, 0, 0),
        "Folder (Script)": (7, 0, 0), "Gdd": (2, 0, 0), "Item": (5, 5, 0), "ProjectSettings": (1, 1, 0),
        "Quest": (1, 1, 0), "Script": (35, 0, 0), "_design": (0, 0, 1),
    },
    "tgof": {
        "Actor": (6, 5, 0), "Attachment": (3, 3, 0), "Dialogue": (6, 0, 0), "Folder (Dialogue)": (2, 0, 0),
        "Folder (Script)": (7, 0, 0), "Gdd": (2, 0, 0), "Grid": (1, 0, 0), "Item": (5, 0, 0),
        "Kanban": (1, 0, 0), "ProjectSettings": (1, 1, 0), "Quest": (1, 0, 0), "Script": (35, 0, 0),
        "_design": (0, 0, 2),
    },
    "tgof-v1.0.21": {
        "Actor": (6, 5, 0), "Attachment": (3, 3, 0), "Dialogue": (6, 0, 0), "Folder (Dialogue)": (2, 0, 0),
        "Folder (Script)": (7, 0, 0), "Gdd": (2, 0, 0), "Grid": (1, 0, 0), "Item": (5, 0, 0),
        "ProjectSettings": (1, 1, 0), "Quest": (1, 0, 0), "Script": (35, 0, 0), "_design": (0, 0, 2),
    },
    "tgof-v1": {
        "Actor": (6, 5, 0), "Attachment": (3, 3, 0), "Dialogue": (6, 0, 0), "Folder (Dialogue)": (2, 0, 0),
        "Folder (Script)": (7, 0, 0), "Gdd": (2, 0, 0), "Item": (5, 0, 0), "ProjectSettings": (1, 1, 0),
        "Quest": (1, 0, 0), "Script": (35, 0, 0), "_design": (0, 0, 1),
    },
    "garden": {
        "Actor": (4, 0, 0), "Attachment": (9, 0, 0), "Dialogue": (3, 0, 0), "Folder (Script)": (4, 0, 0),
        "Gdd": (1, 0, 0), "Grid": (2, 0, 0), "Item": (2, 0, 0), "Kanban": (1, 0, 0), "ProjectSettings": (1, 1, 0),
        "Scenario": (5, 0, 0), "Script": (9, 0, 0), "User": (1, 0, 0), "Variable": (3, 0, 0), "_design": (0, 0, 1),
    },
}
# Attachments in each file, and the expression images the import turns into Attachment docs.
EXPECTED_ATTACHMENTS = {"one-bullet": (3, 3), "gof-v1": (25, 25), "gof-partial": (28, 25), "tgof": (28, 25),
                        "tgof-v1.0.21": (28, 25), "tgof-v1": (28, 25), "garden": (9, 0)}
# Of those expression images, how many repeat the bytes of an image already imported and so
# point at that Attachment document instead of a copy (one-bullet: Belle's and Rodney's default
# image is Bella's; The Goddess of Fate: Aries' default is the Girl's, Aries' happy is his smiling).
# None repeats an Attachment document of the backup (kenji_expression_default there is another image).
EXPECTED_SHARED_IMAGES = {"one-bullet": 2, "gof-v1": 2, "gof-partial": 2, "tgof": 2, "tgof-v1.0.21": 2,
                          "tgof-v1": 2, "garden": 0}

ALL = list(FIXTURE_FILES)
_IMPORTS: dict[str, tuple[Project, ImportReport]] = {}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory):
    """Each fixture imported once for the module (into a module-wide STORYLOOM_HOME)."""
    home = tmp_path_factory.mktemp("import-home")
    manager = ProjectManager(root=home / "projects", username="importer")

    def get(key: str) -> tuple[Project, ImportReport]:
        if key not in _IMPORTS:
            _IMPORTS[key] = import_backup(manager, fixture_path(key))
        return _IMPORTS[key]

    yield get
    for project, _ in _IMPORTS.values():
        project.close()
    _IMPORTS.clear()


def _contains(big: Any, small: Any) -> bool:
    """``small`` is in ``big``: equal, or (for objects) every key of ``small`` kept in ``big``."""
    if isinstance(small, dict):
        return isinstance(big, dict) and all(k in big and _contains(big[k], v) for k, v in small.items())
    return big == small


def stored_docs(project: Project) -> dict[str, dict[str, Any]]:
    rows = project.store.all_docs(include_docs=True, attachments=True)["rows"]
    return {row["id"]: row["doc"] for row in rows}


@pytest.mark.parametrize("key", ALL)
@pytest.mark.slow
def test_per_type_counts(imported: Any, key: str) -> None:
    _project, report = imported(key)
    counts = {label: (c.imported, c.converted, c.skipped) for label, c in report.counts.items()}
    assert counts == EXPECTED_COUNTS[key]
    dump = fixture_dump(key)
    assert report.rows == len(dump["rows"])  # total_rows is ignored (wrong in two files)
    assert report.imported + report.skipped_count == len(dump["rows"])
    assert all(s.reason for s in report.skipped)
    assert {s.type for s in report.skipped} <= {"_design"}
    assert all("design document" in s.reason for s in report.skipped)
    text = report.to_text()
    for label, (imp, conv, skip) in EXPECTED_COUNTS[key].items():
        assert re.search(rf"^{re.escape(label)}\s+{imp}\s+{conv}\s+{skip}$", text, re.M), label
    for skipped in report.skipped:
        assert skipped.id in text and skipped.reason in text
    assert json.loads(json.dumps(report.to_dict()))["totals"]["imported"] == report.imported


@pytest.mark.parametrize("key", ALL)
def test_nothing_is_lost(imported: Any, key: str) -> None:
    """Every source document is stored under its id, with every field kept (converted fields
    moved to their v2 place), and is a fresh document of the new project."""
    project, report = imported(key)
    stored = stored_docs(project)
    source = fixture_docs(key)
    created = {c.id for c in report.created}
    expected_ids = {i for i in source if not i.startswith("_design/")}
    assert set(stored) == expected_ids | created
    moved = {"children", "path", "_rev", "_attachments", "content", "prefix", "bio", "properties", "conditions",
             "scriptEditorMode", "lockedBy", "locked", "lockedAt"}
    for doc_id in expected_ids:
        original, doc = source[doc_id], stored[doc_id]
        assert doc["_rev"].startswith("1-")  # a fresh document
        if original.get("collection") == "Hotkeys":
            data = json.loads(doc["content"]["properties"])
            assert data == {k: v for k, v in original.items() if k not in ("_id", "_rev", "collection")}
            continue
        for field, value in original.items():
            if field in moved or field in ("modified", "created", "createdAt", "lastModified", "lastModifiedDate"):
                continue
            if doc_id == "ProjectSettings" and (field.startswith("remoteDb") or field in ("projectName",)):
                continue
            assert _contains(doc.get(field), value), (doc_id, field)
        for field in ("bio", "properties", "conditions"):
            if isinstance(original.get(field), str) and field not in doc:
                assert original[field] in json.dumps(doc["content"]) or original[field] in doc["content"].values()
        if isinstance(original.get("content"), str) and original["content"]:
            assert original["content"] in doc["content"].values(), doc_id
        if isinstance(original.get("content"), dict):
            for field, value in original["content"].items():
                if field == "expressions":
                    assert doc["content"]["expressions"][: len(value)] == value
                else:
                    assert doc["content"][field] == value, (doc_id, field)


@pytest.mark.parametrize("key", ALL)
def test_every_imported_document_is_valid(imported: Any, key: str) -> None:
    project, report = imported(key)
    stored = stored_docs(project)
    context = MappingContext(stored)
    for doc in stored.values():
        assert [p for p in check_document(doc, context) if p.is_error] == [], doc["_id"]
    assert report.warnings == []  # every reference resolves in the samples


@pytest.mark.parametrize("key", ALL)
def test_attachments_byte_for_byte(imported: Any, key: str) -> None:
    project, report = imported(key)
    total, moved = EXPECTED_ATTACHMENTS[key]
    seen = 0
    for doc_id, doc in fixture_docs(key).items():
        for name, att in (doc.get("_attachments") or {}).items():
            seen += 1
            target_id, target_name = report.attachment_moves.get((doc_id, name), (doc_id, name))
            assert project.store.get_attachment(target_id, target_name) == base64.b64decode(att["data"]), (doc_id, name)
            stored = project.store.get(target_id)["_attachments"][target_name]
            assert stored["content_type"] == (att.get("content_type") or doc.get("mimeType"))
    assert seen == total
    assert len(report.attachment_moves) == moved
    assert report.attachments == total


@pytest.mark.parametrize("key", ["one-bullet", "gof-v1", "tgof"])
def test_expression_images_become_attachment_documents(imported: Any, key: str) -> None:
    project, report = imported(key)
    source = fixture_docs(key)
    created = {c.id: c.reason for c in report.created if c.type == "Attachment"}
    shared = 0
    for (actor_id, att_name), (image_id, _) in report.attachment_moves.items():
        actor = project.store.get(actor_id)
        assert att_name not in (actor.get("_attachments") or {})
        name = att_name.removeprefix("expression_")
        entry = next(e for e in actor["content"]["expressions"] if e["name"] == name)
        assert entry["_id"] == image_id and entry["permalink"].endswith(f"://image/{image_id}")
        image = project.store.get(image_id)
        assert image["type"] == image["collection"] == "Attachment"
        assert image["mimeType"] == source[actor_id]["_attachments"][att_name]["content_type"]
        actor_name = source[actor_id]["name"]
        if f"actor {actor_name!r} (was its attachment {att_name})" in created.get(image_id, ""):
            assert image["name"] == f"{actor_name.lower()}_expression_{name}"
        else:  # the same bytes as an image imported before: stored once, named after that one
            shared += 1
            assert any(image_id in line and repr(actor_name) in line and att_name in line
                       for line in report.shared_images)
    assert shared == len(report.shared_images) == EXPECTED_SHARED_IMAGES[key]
    assert len(created) == len(report.attachment_moves) - shared


@pytest.mark.parametrize("key", ALL)
def test_identical_expression_images_are_stored_once(imported: Any, key: str) -> None:
    """Every Attachment document holds different bytes (or is a document of the backup): the
    import never adds a copy of an image it already holds."""
    project, report = imported(key)
    source_ids = set(fixture_docs(key))
    seen: dict[tuple[bytes, str], str] = {}
    for doc in stored_docs(project).values():
        if doc.get("type") != "Attachment" or doc["_id"] in source_ids:
            continue
        blob = doc["_attachments"]["blob"]
        key_ = (base64.b64decode(blob["data"]), blob["content_type"])
        assert key_ not in seen, (doc["_id"], seen.get(key_))
        seen[key_] = doc["_id"]
    for doc in stored_docs(project).values():
        if doc.get("type") == "Attachment" and doc["_id"] in source_ids:
            blob = doc["_attachments"]["blob"]
            assert (base64.b64decode(blob["data"]), blob["content_type"]) not in seen
    assert len(seen) == len(report.attachment_moves) - EXPECTED_SHARED_IMAGES[key]


@pytest.mark.parametrize("key", ALL)
def test_dates_are_normalised(imported: Any, key: str) -> None:
    project, report = imported(key)
    stored = stored_docs(project)
    source = fixture_docs(key)
    fields = ("created", "createdAt", "modified", "lastModified", "lastModifiedDate")
    checked = 0
    for doc_id, original in source.items():
        if doc_id.startswith("_design/") or original.get("collection") == "Hotkeys":
            continue
        for field in fields:
            if field in original:
                assert is_iso_utc(stored[doc_id][field]), (doc_id, field)
                assert stored[doc_id][field] == normalise_date(original[field])
                checked += 1
    assert checked > 20
    assert report.dates_normalised > 0


def test_specific_dates() -> None:
    docs = fixture_docs("one-bullet")
    assert docs["0381b5a4-c917-42aa-8919-955d465835f2"]["created"].startswith("Tue Mar 30 2021 20:08:49 GMT-0300")
    assert normalise_date(docs["0381b5a4-c917-42aa-8919-955d465835f2"]["created"]) == "2021-03-30T23:08:49.000Z"


def test_epoch_milliseconds_in_the_garden(imported: Any) -> None:
    project, _ = imported("garden")
    source = fixture_docs("garden")
    epoch = [(i, d["lastModified"]) for i, d in source.items() if isinstance(d.get("lastModified"), int)]
    assert epoch
    for doc_id, millis in epoch:
        assert project.store.get(doc_id)["lastModified"] == normalise_date(millis)


@pytest.mark.parametrize("key", ALL)
def test_children_arrays_become_parent_and_sort_keys(imported: Any, key: str) -> None:
    project, report = imported(key)
    stored = stored_docs(project)
    tree = derive_tree(stored.values())
    folders = 0
    for doc_id, original in fixture_docs(key).items():
        if "children" not in original:
            continue
        ids = [c if isinstance(c, str) else c["_id"] for c in original["children"]]
        assert tree[doc_id]["children"] == ids, doc_id
        folders += bool(ids)
        for child in ids:
            assert stored[child]["parent"] == doc_id
    assert folders == report.folders_converted
    for doc in stored.values():
        assert "children" not in doc and "path" not in doc
        if doc.get("type") == "Folder" or "parent" in doc:
            assert doc["sortKey"]


def test_paths_are_dot_joined_ids(imported: Any) -> None:
    project, _ = imported("garden")
    tree = derive_tree(stored_docs(project).values())
    script = "1771a50a-efa0-4010-8552-4eb689c0687e"  # Dialogues > 3 - Memory Exploration > Reflection
    assert tree[script]["path"] == f"DialogueFolder.3770f908-c988-4e59-8a4f-da9400fcc7ec.{script}"
    assert tree["DialogueFolder"]["path"] == "DialogueFolder"


@pytest.mark.parametrize("key", ALL)
def test_locks_are_released(imported: Any, key: str) -> None:
    project, report = imported(key)
    source = fixture_docs(key)
    for doc in stored_docs(project).values():
        if "locked" in doc or "lockedBy" in doc:
            assert doc["locked"] is False and doc["lockedBy"] == "nobody"
    assert report.locks_released == sum(1 for d in source.values() if d.get("locked") is True)


def test_locks_released_counts(imported: Any) -> None:
    assert imported("one-bullet")[1].locks_released == 3
    assert imported("garden")[1].locks_released == 0


@pytest.mark.parametrize("key", ["tgof", "tgof-v1", "tgof-v1.0.21"])
def test_v1_graph_conversion_matches_drafft_own_migration(key: str) -> None:
    """The v2 samples keep each dialogue's v1 ``graph`` next to Drafft's converted tree."""
    dialogues = [d for d in fixture_docs(key).values() if d.get("type") == "Dialogue"]
    assert len(dialogues) == 6
    for doc in dialogues:
        assert convert_graph(doc["graph"]) == doc["content"]["tree"], doc["_id"]


@pytest.mark.parametrize("key", ["one-bullet", "gof-v1", "gof-partial"])
def test_v1_dialogues_keep_nodes_and_links(imported: Any, key: str) -> None:
    project, _ = imported(key)
    for doc_id, original in fixture_docs(key).items():
        if original.get("type") != "Dialogue":
            continue
        tree = project.store.get(doc_id)["content"]["tree"]
        graph = original["graph"]
        assert len(tree["nodes"]) == len(graph["nodes"]) and len(tree["edges"]) == len(graph["links"])
        assert [n["id"] for n in tree["nodes"]] == [n["id"] for n in graph["nodes"]]
        links = {(lk["source"], lk["sourcePort"], lk["target"], lk["targetPort"]) for lk in graph["links"]}
        assert {(e["source"], e["sourceHandle"], e["target"], e["targetHandle"]) for e in tree["edges"]} == links
        for node, v1 in zip(tree["nodes"], graph["nodes"], strict=True):
            assert node["data"]["nodeType"] == v1["extras"]["type"].lower()
            assert node["data"]["scriptId"] == v1["extras"]["scriptID"]
            assert [h["id"] for h in node["data"]["handles"]] == [p["id"] for p in v1["ports"]]
        assert project.store.get(doc_id)["graph"] == graph  # the v1 graph is kept as it was


def test_v1_shapes_are_converted(imported: Any) -> None:
    project, _ = imported("one-bullet")
    source = fixture_docs("one-bullet")
    script = project.store.get("0381b5a4-c917-42aa-8919-955d465835f2")
    assert script["content"] == {"script": source[script["_id"]]["content"]}
    assert script["editorMode"] == "text" and "scriptEditorMode" not in script
    item = project.store.get("1a926467-529a-474a-a4db-a7ccb4019261")
    assert item["content"] == {"item": source[item["_id"]]["properties"], "notes": source[item["_id"]]["content"]}
    quest = project.store.get("5be4f30e-69f4-4305-a60a-8fcf4fc45e39")
    assert quest["content"]["properties"].startswith("Title: Execute the plan.")
    assert quest["content"]["conditions"] == "KillCamille: true"
    actor = project.store.get("7131db13-670a-4f4c-80ab-03e9b51bf6a2")
    assert actor["content"]["bio"].startswith("<p>Bella is a 24-year-old")
    assert actor["content"]["properties"].startswith("name: BELLE")
    assert "bio" not in actor and "properties" not in actor
    assert actor["age"] == "BELLE" and actor["gender"] == ""  # unknown to v2: kept
    gdd = project.store.get("94c48096-2715-4ec9-b94e-08f1c6aed93c")
    assert gdd["content"]["gdd"].startswith("<p>") and gdd["editor"] == "richText"
    kanban = project.store.get("41bf58e1-4a12-4528-a222-d69e7fe5d843")
    columns = kanban["content"]["columns"]
    assert [c["title"] for c in columns] == ["To Do", "Doing", "Done"]
    assert [len(c["cards"]) for c in columns] == [2, 2, 1]
    assert columns[0]["cards"][1]["tags"] == ["dialogues", "writing"]
    assert kanban["data"] == source[kanban["_id"]]["data"]


def test_hotkeys_become_misc_documents(imported: Any) -> None:
    project, report = imported("one-bullet")
    hotkeys = [i for i, d in fixture_docs("one-bullet").items() if d.get("collection") == "Hotkeys"]
    assert len(hotkeys) == 6
    folder = next(c for c in report.created if c.type == "Folder")
    tree = derive_tree(stored_docs(project).values())
    assert sorted(tree[folder.id]["children"]) == sorted(hotkeys)
    doc = project.store.get("218a1889-2660-4813-8ee4-2f452283baf3")
    assert doc["type"] == doc["collection"] == "Misc" and doc["editorLanguage"] == "json"
    assert json.loads(doc["content"]["properties"])["bindKey"] == {"win": "Ctrl-3", "mac": "Command-3"}
    assert doc["originalCollection"] == "Hotkeys"


def test_settings_get_a_project_id_and_lose_replication_credentials(imported: Any) -> None:
    project, report = imported("one-bullet")
    settings = project.settings()
    assert settings["projectId"] == project.id and uuid.UUID(project.id)
    assert settings["projectName"] == project.name
    assert not any(k.startswith("remoteDb") for k in settings)
    assert settings["dbName"] == "drafft_one_bullet"  # unknown to Storyloom: kept
    local = project.store.get_local("_local/drafft-remote")
    assert local["remoteDbUrl"] == "http://192.168.99.2:5984" and local["remoteDbUsername"] == "admin"
    assert "remoteDbPassword" not in local  # never kept: the user enters it again
    assert report.local_documents == ["_local/drafft-remote"]
    assert report.notices == [PASSWORD_NOT_KEPT]
    assert report.to_dict()["notices"] == [PASSWORD_NOT_KEPT]
    assert "remoteDbPassword) was not kept: enter it again" in report.to_text()
    garden, _ = imported("garden")
    assert garden.settings()["kanban"] == fixture_docs("garden")["ProjectSettings"]["kanban"]
    with pytest.raises(NotFound):
        garden.store.get_local("_local/drafft-remote")


def test_importing_twice_gives_two_projects(manager: ProjectManager) -> None:
    path = fixture_path("one-bullet")
    first, _ = import_backup(manager, path)
    second, report = import_backup(manager, path)
    assert first.id != second.id
    assert first.settings()["projectId"] != second.settings()["projectId"]
    assert second.name == "One Bullet (2)" == report.project_name
    assert len(manager.list()) == 2
    named, _ = import_backup(manager, path, name="Heist")
    assert named.name == "Heist"
    with pytest.raises(DrafftImportError, match="already exists"):
        import_backup(manager, path, name="heist")
    for p in (first, second, named):
        p.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG not text at all", "cannot read"),
        (b"this is not json", "not JSON"),
        (b"[]", "all_docs dump"),
        (b'{"docs": []}', "all_docs dump"),
        (b'{"total_rows": 0, "offset": 0, "rows": []}', "no documents"),
        (b'{"total_rows": 1, "rows": [{"id": "a", "value": {"rev": "1-x"}}]}', "include_docs"),
        (b'{"total_rows": 1, "rows": [{"id": "_design/x", "doc": {"_id": "_design/x"}}]}', "no project documents"),
        (b'{"rows": ["nope"]}', "row 0"),
    ],
)
def test_bad_files_give_a_clear_error_and_create_nothing(
    manager: ProjectManager, tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(DrafftImportError, match=message):
        import_backup(manager, bad)
    assert manager.list() == []
    assert list(manager.root.iterdir()) == []  # no project directory left behind


def test_missing_file(manager: ProjectManager, tmp_path: Path) -> None:
    with pytest.raises(DrafftImportError, match="no such file"):
        import_backup(manager, tmp_path / "nope.json")


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    return {"id": doc["_id"], "key": doc["_id"], "value": {"rev": doc.get("_rev", "1-a")}, "doc": doc}


def test_synthetic_v1_fields_and_odd_rows() -> None:
    rows = [
        _row({"_id": "s1", "_rev": "3-x", "type": "Script", "collection": "Script", "name": "S", "parent": None,
              "prefix": "fox", "content": "::A:: hi", "created": 1738163920874, "locked": True,
              "lockedBy": "bob", "lockedAt": "2025-01-01T00:00:00.000Z", "favourite": True}),
        _row({"_id": "f1", "type": "Folder", "collection": "Script", "name": "F", "parent": None,
              "children": [{"_id": "s3"}, {"_id": "s2"}, {"_id": "ghost"}]}),
        _row({"_id": "s2", "type": "Script", "collection": "Script", "name": "B", "parent": "f1", "content": ""}),
        _row({"_id": "s3", "type": "Script", "collection": "Script", "name": "A", "parent": None, "content": ""}),
        _row({"_id": "x1", "type": "Spaceship", "name": "?"}),
        _row({"_id": "s1", "type": "Script", "name": "duplicate"}),
        {"id": "gone", "key": "gone", "value": {"rev": "2-d", "deleted": True}, "doc": None},
        _row({"_id": "dead", "_deleted": True}),
        _row({"_id": "bad-date", "type": "Item", "collection": "Item", "name": "I", "parent": None,
              "content": {"item": ""}, "modified": "the day after tomorrow"}),
    ]
    conversion = convert_rows(rows, source="synthetic.json", project_id=str(uuid.uuid4()), name="Syn")
    docs = {d["_id"]: d for d in conversion.docs}
    report = conversion.report
    s1 = docs["s1"]
    assert s1["alias"] == "fox" and "prefix" not in s1
    assert s1["content"] == {"script": "::A:: hi"}
    assert s1["created"] == "2025-01-29T15:18:40.874Z"
    assert s1["locked"] is False and s1["lockedBy"] == "nobody" and s1["lockedAt"] is None
    assert s1["favourite"] is True and "_rev" not in s1
    # s3 had no parent but f1 lists it: adopted, in the children array's order.
    assert docs["s3"]["parent"] == "f1"
    assert derive_tree(conversion.docs)["f1"]["children"] == ["s3", "s2"]
    assert docs["bad-date"]["modifiedOriginal"] == "the day after tomorrow" and "modified" not in docs["bad-date"]
    reasons = {s.id: s.reason for s in report.skipped}
    assert "unknown document type" in reasons["x1"]
    assert "same id" in reasons["s1"]
    assert reasons["gone"] == "deleted document" and reasons["dead"] == "deleted document"
    assert any("ghost" in w for w in report.warnings)
    assert any("modifiedOriginal" in w for w in report.warnings)
    assert report.locks_released == 1
    assert docs["ProjectSettings"]["projectName"] == "Syn"
    assert [c.id for c in report.created] == ["ProjectSettings"]
