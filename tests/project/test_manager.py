from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from storyloom import paths
from storyloom.cli.explain import say as cli_say
from storyloom.project.manager import (
    STORE_FILE,
    BackupError,
    DumpError,
    ProjectExists,
    ProjectManager,
    ProjectNotFound,
)
from storyloom.project.settings import DEFAULT_EXPORT_SECTIONS, DEFAULT_SCREENPLAY
from storyloom.project.validation import ValidationError
from storyloom.store import Database


def test_create_list_open(manager: ProjectManager) -> None:
    project = manager.create("Heist", "A caper")
    assert uuid.UUID(project.id)
    assert project.path == paths.projects_dir() / project.id
    assert (project.path / STORE_FILE).exists() and (project.path / "project.json").exists()
    assert isinstance(project.store, Database)
    settings = project.settings()
    assert settings["projectId"] == project.id
    assert settings["projectName"] == project.name == "Heist"
    assert settings["projectDescription"] == "A caper"
    assert settings["exportSections"] == list(DEFAULT_EXPORT_SECTIONS)
    assert settings["screenPlay"] == DEFAULT_SCREENPLAY
    assert settings["exportMappings"]["interpolateVariablesOnExport"] is False
    assert set(settings["exportMappings"]["speechExportMapping"]) >= {"text", "lua", "gdscript", "gml"}
    assert settings["modifiedBy"] == "tester"
    project.close()
    other = manager.create("Another")
    other.close()
    assert [(p.name, p.id) for p in manager.list()] == [("Another", other.id), ("Heist", project.id)]
    for key in (project.id, "Heist", "heist"):
        with manager.open(key) as opened:
            assert opened.id == project.id and opened.name == "Heist"
    with pytest.raises(ProjectNotFound) as info:
        manager.open("Nope")
    assert "Heist" in str(info.value)


def test_names_are_unique_and_not_empty(manager: ProjectManager) -> None:
    manager.create("Heist").close()
    with pytest.raises(ProjectExists):
        manager.create("HEIST")
    with pytest.raises(Exception, match="empty"):
        manager.create("   ")
    assert manager.unique_name("Heist") == "Heist (2)"
    assert len(manager.list()) == 1


def test_rename(manager: ProjectManager) -> None:
    first = manager.create("One")
    manager.create("Two").close()
    assert manager.rename(first, "Uno") == "Uno"
    assert first.settings()["projectName"] == "Uno"
    assert first.settings()["projectId"] == first.id
    first.close()
    manager.rename("Uno", "First")
    assert sorted(p.name for p in manager.list()) == ["First", "Two"]
    with pytest.raises(ProjectExists):
        manager.rename("First", "two")
    manager.rename("First", "first")  # its own name, another case: allowed
    with manager.open("first") as opened:
        assert opened.name == "first"


def test_delete(manager: ProjectManager) -> None:
    doomed = manager.create("Doomed")
    path = doomed.path
    manager.delete(doomed)
    assert not path.exists()
    kept = manager.create("Kept")
    kept.close()
    manager.delete("Kept")
    assert manager.list() == []
    with pytest.raises(ProjectNotFound):
        manager.delete("Kept")


def _fill(manager: ProjectManager):
    project = manager.create("Source")
    editor = project.editor
    folder = editor.create("Folder", "Act", collection="Script").id
    editor.create("Script", "S1", parent=folder, content={"script": "::A:: hello\n@set x = 1"})
    item = editor.create("Item", "Sword").id
    editor.rename(item, "Sword 2")
    image = editor.create("Attachment", "pic", mimeType="image/png",
                          _attachments={"blob": {"content_type": "image/png", "data": "iVBORw0KGgo="}}).id
    editor.create("Actor", "Ana", content={"expressions": [{"name": "default", "_id": image}]})
    gone = editor.create("Gdd", "Gone").id
    editor.delete(gone)
    project.store.put_local({"_id": "_local/remote", "url": "http://example"})
    return project


def _snapshot(db: Database) -> dict:
    rows = db.all_docs(include_docs=True, attachments=True)["rows"]
    docs = {}
    for row in rows:
        doc = dict(row["doc"])
        for att in (doc.get("_attachments") or {}).values():
            att.pop("revpos", None)
        docs[row["id"]] = doc
    return docs


def test_backup_then_restore_gives_the_same_documents(manager: ProjectManager, tmp_path: Path) -> None:
    source = _fill(manager)
    file = manager.backup(source, tmp_path / "backup.json")
    dump = json.loads(file.read_text())
    assert set(dump) >= {"total_rows", "offset", "rows"}
    assert all(set(row) >= {"id", "key", "value", "doc"} for row in dump["rows"])
    assert all(row["value"]["rev"] == row["doc"]["_rev"] for row in dump["rows"])
    assert not any(row["id"].startswith("_local/") for row in dump["rows"])
    before = _snapshot(source.db)
    source_id = source.id
    # The original still exists: restoring it again needs a copy with a new id.
    with pytest.raises(ProjectExists):
        manager.restore(file)
    manager.delete(source)
    restored = manager.restore(file)
    assert restored.id == source_id and restored.name == "Source"
    assert _snapshot(restored.db) == before  # same documents, same revisions, same attachments
    image = next(d for d in before.values() if d.get("type") == "Attachment")
    assert restored.db.get_attachment(image["_id"], "blob") == bytes.fromhex("89504e470d0a1a0a")
    with pytest.raises(Exception):  # noqa: B017 - local documents are never part of a backup
        restored.db.get_local("_local/remote")
    restored.close()


def test_restore_as_a_copy(manager: ProjectManager, tmp_path: Path) -> None:
    source = _fill(manager)
    file = manager.backup(source.id, tmp_path / "b.json")
    before = _snapshot(source.db)
    copy = manager.restore(file, new_id=True)
    assert copy.id != source.id and copy.name == "Source (2)"
    settings = copy.settings()
    assert settings["projectId"] == copy.id and settings["projectName"] == "Source (2)"
    after = _snapshot(copy.db)
    assert {k: v for k, v in after.items() if k != "ProjectSettings"} == {
        k: v for k, v in before.items() if k != "ProjectSettings"
    }
    named = manager.restore(file, "Named", new_id=True)
    assert named.name == "Named"
    with pytest.raises(ProjectExists):
        manager.restore(file, "named", new_id=True)
    for p in (source, copy, named):
        p.close()


def test_restore_refuses_what_is_not_a_storyloom_backup(manager: ProjectManager, tmp_path: Path) -> None:
    drafft = tmp_path / "drafft.json"
    drafft.write_text(json.dumps({"total_rows": 1, "offset": 0, "rows": [
        {"id": "ProjectSettings", "key": "ProjectSettings", "value": {"rev": "1-a"},
         "doc": {"_id": "ProjectSettings", "_rev": "1-a", "projectName": "X"}}]}))
    with pytest.raises(BackupError) as refused:
        manager.restore(drafft)
    assert "storyloom import" in cli_say(refused.value)  # the fix, as the command line says it
    for content, message in [
        ("not json", "not JSON"),
        ("[1, 2]", "all_docs dump"),
        ('{"rows": []}', "no documents"),
        ('{"total_rows": 3}', "all_docs dump"),
        ('{"rows": [{"id": "a"}]}', "include_docs"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(content)
        with pytest.raises(DumpError, match=message):
            manager.restore(bad)
    with pytest.raises(DumpError, match="no such file"):
        manager.restore(tmp_path / "missing.json")
    assert manager.list() == []
    assert list(paths.projects_dir().iterdir()) == []


def test_restore_with_a_bad_document_creates_nothing(manager: ProjectManager, tmp_path: Path) -> None:
    source = manager.create("Src")
    file = manager.backup(source, tmp_path / "b.json")
    dump = json.loads(file.read_text())
    dump["rows"].append({"id": "x", "key": "x", "value": {"rev": "1-abc"},
                         "doc": {"_id": "x", "_rev": "1-abc", "type": "Script", "name": 5}})
    file.write_text(json.dumps(dump))
    with pytest.raises(BackupError, match="cannot be restored"):
        manager.restore(file, new_id=True)
    assert [p.name for p in manager.list()] == ["Src"]
    source.close()


def test_project_settings_validation_through_the_editor(manager: ProjectManager) -> None:
    with manager.create("P") as project:
        with pytest.raises(ValidationError) as info:
            project.editor.update_settings({"defaultEditorLanguage": "xml"})
        assert info.value.field == "defaultEditorLanguage"


def test_a_project_offers_reads_and_writes_only_through_its_editor(manager: ProjectManager) -> None:
    with manager.create("Gated") as project:
        created = project.editor.create("Item", "Sword")
        assert project.db.get(created.id)["name"] == "Sword"
        assert project.db.changes()["last_seq"] == project.db.info()["update_seq"]
        for write in ("put", "bulk_docs", "remove", "put_local", "remove_local", "set_revs_limit"):
            with pytest.raises(AttributeError, match="written through the project's editor"):
                getattr(project.db, write)
        with pytest.raises(AttributeError):
            _ = project.db.no_such_thing
