from __future__ import annotations

from typing import Any

import pytest

from storyloom.project.dates import is_iso_utc
from storyloom.project.editor import Editor, WriteIntent
from storyloom.project.locks import LockRefused
from storyloom.project.manager import Project
from storyloom.project.tree import derive_tree
from storyloom.project.validation import ValidationError
from storyloom.script.line_ids import fingerprint
from storyloom.store import Conflict, Database, NotFound


def names(project: Project, ids: list[str]) -> list[str]:
    return [project.editor.get(i)["name"] for i in ids]


def children(project: Project, folder_id: str) -> list[str]:
    return names(project, project.editor.tree()[folder_id]["children"])


def test_create_stamps_and_defaults(project: Project) -> None:
    result = project.editor.create("Script", "Intro", content={"script": "::A:: hi"})
    doc = project.editor.get(result.id)
    assert doc["_rev"] == result.rev
    assert doc["content"]["script"] == "::A:: hi"
    assert [fp for _, fp in doc["content"]["lineIds"]] == [fingerprint("::A:: hi")]  # the speech line's id
    assert doc["type"] == doc["collection"] == "Script"
    assert doc["parent"] is None and doc["sortKey"]
    assert doc["modifiedBy"] == doc["createdBy"] == "tester"
    assert is_iso_utc(doc["modified"]) and is_iso_utc(doc["created"])
    assert doc["locked"] is False and doc["lockedBy"] == "nobody"
    assert "children" not in doc and "path" not in doc


def test_update_rename_patch_stamp_modified(project: Project) -> None:
    times = iter(["2030-01-01T00:00:00.000Z", "2030-01-02T00:00:00.000Z", "2030-01-03T00:00:00.000Z",
                  "2030-01-04T00:00:00.000Z"])
    editor = Editor(project.store, "writer", clock=lambda: next(times))
    created = editor.create("Item", "Sword").doc
    assert created["created"] == created["modified"] == "2030-01-01T00:00:00.000Z"
    doc = editor.get(created["_id"])
    doc["content"]["item"] = "damage: 3"
    doc.pop("created")  # an update that omits created keeps it
    updated = editor.update(doc)
    stored = editor.get(created["_id"])
    assert stored["modified"] == "2030-01-02T00:00:00.000Z"
    assert stored["created"] == "2030-01-01T00:00:00.000Z"
    assert stored["content"]["item"] == "damage: 3" and stored["_rev"] == updated.rev
    other = Editor(project.store, lambda: "someone-else", clock=lambda: next(times))
    other.rename(created["_id"], "Great Sword")
    stored = editor.get(created["_id"])
    assert stored["name"] == "Great Sword" and stored["modifiedBy"] == "someone-else"
    editor.patch(created["_id"], {"alias": "gs"})
    assert editor.get(created["_id"])["alias"] == "gs"


def test_update_needs_the_current_rev(project: Project) -> None:
    doc = project.editor.create("Gdd", "Design").doc
    first = project.editor.get(doc["_id"])
    project.editor.rename(doc["_id"], "Design 2")
    with pytest.raises(Conflict):
        project.editor.update(first)
    with pytest.raises(ValidationError) as info:
        project.editor.update({k: v for k, v in first.items() if k != "_rev"})
    assert info.value.field == "_rev"


def test_invalid_writes_are_refused_and_nothing_is_stored(project: Project) -> None:
    before = project.store.info()["doc_count"]
    with pytest.raises(ValidationError) as info:
        project.editor.create("Script", "Bad", content={"script": ["not", "text"]})
    assert info.value.field == "content.script"
    assert project.store.info()["doc_count"] == before
    doc = project.editor.create("Script", "Good").doc
    current = project.editor.get(doc["_id"])
    current["children"] = []
    with pytest.raises(ValidationError) as info:
        project.editor.update(current)
    assert info.value.field == "children"


def test_type_collection_and_project_id_never_change(project: Project) -> None:
    doc = project.editor.create("Script", "S").doc
    current = project.editor.get(doc["_id"])
    current["type"] = current["collection"] = "Gdd"
    current["content"] = {"gdd": ""}
    with pytest.raises(ValidationError) as info:
        project.editor.update(current)
    assert info.value.problem_code == "immutable-field" and info.value.field in ("type", "collection")
    with pytest.raises(ValidationError) as info:
        project.editor.update_settings({"projectId": "11111111-1111-4111-8111-111111111111"})
    assert info.value.field == "projectId"
    project.editor.update_settings({"projectDescription": "new"})
    assert project.settings()["projectDescription"] == "new"
    with pytest.raises(ValidationError):
        project.editor.update_settings({"exportSections": ["Scripts", "Bogus"]})


def test_folders_order_move_and_paths(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "Act 1", collection="Script").id
    a = editor.create("Script", "A", parent=folder).id
    b = editor.create("Script", "B", parent=folder).id
    c = editor.create("Script", "C", parent=folder, before=b).id
    d = editor.create("Script", "D", parent=folder, after=a).id
    assert children(project, folder) == ["A", "D", "C", "B"]
    editor.move(a, folder, after=b)
    assert children(project, folder) == ["D", "C", "B", "A"]
    sub = editor.create("Folder", "Scene 1", collection="Script", parent=folder).id
    editor.move(c, sub)
    tree = editor.tree()
    assert tree[c]["path"] == f"{folder}.{sub}.{c}"
    assert names(project, tree[folder]["children"]) == ["D", "B", "A", "Scene 1"]
    editor.move(d, None)
    assert editor.get(d)["parent"] is None
    assert d in [s["_id"] for s in editor.siblings(None, "Script")]


def test_moves_that_would_break_the_tree_are_refused(project: Project) -> None:
    editor = project.editor
    top = editor.create("Folder", "Top", collection="Script").id
    inner = editor.create("Folder", "Inner", collection="Script", parent=top).id
    script = editor.create("Script", "S", parent=inner).id
    dialogues = editor.create("Folder", "Talks", collection="Dialogue").id
    with pytest.raises(ValidationError) as info:
        editor.move(top, inner)
    assert info.value.problem_code == "parent-cycle" and info.value.field == "parent"
    with pytest.raises(ValidationError) as info:
        editor.move(top, top)
    assert info.value.field == "parent"
    with pytest.raises(ValidationError) as info:
        editor.move(script, dialogues)
    assert info.value.problem_code == "parent-collection"
    with pytest.raises(ValidationError) as info:
        editor.move(script, "missing-folder")
    assert info.value.problem_code == "missing-parent"
    with pytest.raises(ValidationError) as info:
        editor.move(script, top, after="not-a-sibling")
    assert info.value.problem_code == "missing-sibling"
    with pytest.raises(ValidationError):
        editor.move(script, inner, before=script, after=script)


def test_equal_sort_keys_are_rebalanced_on_insert(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "F", collection="Script").id
    one = editor.create("Script", "1", parent=folder, sortKey="V").id
    two = editor.create("Script", "2", parent=folder, sortKey="V").id
    first, second = editor.tree()[folder]["children"]
    new = editor.create("Script", "new", parent=folder, after=first).id
    order = editor.tree()[folder]["children"]
    assert order == [first, new, second]
    keys = [editor.get(i)["sortKey"] for i in order]
    assert keys == sorted(keys) and len(set(keys)) == 3
    assert {one, two} == {first, second}


def test_delete(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "F", collection="Script").id
    inner = editor.create("Folder", "G", collection="Script", parent=folder).id
    leaf = editor.create("Script", "S", parent=inner).id
    with pytest.raises(ValidationError) as info:
        editor.delete(folder)
    assert info.value.problem_code == "folder-not-empty"
    results = editor.delete(folder, recursive=True)
    assert [r.id for r in results] == [leaf, inner, folder]
    assert all(r.intent is WriteIntent.DELETE for r in results)
    for doc_id in (folder, inner, leaf):
        with pytest.raises(NotFound):
            editor.get(doc_id)
    with pytest.raises(ValidationError) as info:
        editor.delete("ProjectSettings")
    assert info.value.problem_code == "forbidden"


def test_warnings_are_returned_not_raised(project: Project) -> None:
    result = project.editor.create("Script", "Orphan", parent="folder-not-written-yet")
    assert [w.code for w in result.warnings] == ["dangling-parent"]
    scene = project.editor.create("Scene", "Opening", content={"items": [{"docId": "nope", "docType": "Script"}]})
    assert [w.code for w in scene.warnings] == ["dangling-scene-item"]


def test_duplicate_variable_sid_is_refused_interactively(project: Project) -> None:
    editor = project.editor
    editor.create("Variable", "player", content={"variables": "_sid: player\ncourage: 5"})
    with pytest.raises(ValidationError) as info:
        editor.create("Variable", "player again", content={"variables": "_sid: player\nluck: 1"})
    assert info.value.problem_code == "duplicate-sid"
    # Bulk intents (import, restore) report it instead: the source already holds both.
    doc = {"_id": "v2", "type": "Variable", "collection": "Variable", "name": "dup", "parent": None,
           "sortKey": "k", "content": {"variables": "_sid: player\nluck: 1"}}
    written, refused = editor.write_many([doc], WriteIntent.IMPORT)
    assert refused == [] and [w.code for w in written[0].warnings] == ["duplicate-sid"]


class RecordingEditor(Editor):
    def __init__(self, db: Database) -> None:
        super().__init__(db, "rec")
        self.seen: list[tuple[str, WriteIntent]] = []

    def _check_write(self, doc: dict[str, Any], intent: WriteIntent, previous: Any, context: Any) -> list:
        self.seen.append((doc.get("_id"), intent))
        return super()._check_write(doc, intent, previous, context)


def test_every_write_passes_the_one_gate(project: Project) -> None:
    editor = RecordingEditor(project.store)
    folder = editor.create("Folder", "F", collection="Script").id
    doc = editor.create("Script", "S").doc
    current = editor.get(doc["_id"])
    editor.update(current)
    editor.patch(doc["_id"], {"alias": "x"})
    editor.rename(doc["_id"], "T")
    editor.move(doc["_id"], folder)
    editor.update_settings({"projectVersion": "2"})
    editor.write_many([{"_id": "i1", "type": "Item", "collection": "Item", "name": "I", "parent": None,
                        "sortKey": "V", "content": {"item": ""}}], WriteIntent.IMPORT)
    editor.delete(doc["_id"])
    intents = [intent for _, intent in editor.seen]
    assert intents == [
        WriteIntent.CREATE, WriteIntent.CREATE, WriteIntent.UPDATE, WriteIntent.UPDATE, WriteIntent.RENAME,
        WriteIntent.MOVE, WriteIntent.UPDATE, WriteIntent.IMPORT, WriteIntent.DELETE,
    ]


def test_the_lock_policy_refuses_a_write_at_the_gate(project: Project) -> None:
    asked: list[tuple[str, str, str]] = []

    class HeldByOthers:
        def check_write(self, doc: dict[str, Any], intent: str, previous: Any, username: str) -> None:
            asked.append((doc["_id"], str(intent), username))
            if previous is not None and previous.get("locked") and previous.get("lockedBy") != username:
                raise LockRefused(doc["_id"], previous["lockedBy"])

    doc = project.editor.create("Script", "S", locked=True, lockedBy="bob").doc
    locked = Editor(project.store, "ana", lock_policy=HeldByOthers())
    with pytest.raises(LockRefused, match="locked by bob"):
        locked.rename(doc["_id"], "mine now")
    with pytest.raises(LockRefused):
        locked.delete(doc["_id"])
    assert asked == [(doc["_id"], "rename", "ana"), (doc["_id"], "delete", "ana")]
    assert project.editor.get(doc["_id"])["name"] == "S"
    assert Editor(project.store, "bob", lock_policy=HeldByOthers()).rename(doc["_id"], "Bob's").doc["name"] == "Bob's"


def test_tree_matches_derive_tree(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "F", collection="Dialogue").id
    talk = editor.create("Dialogue", "Talk", parent=folder).id
    assert editor.tree() == derive_tree(editor.documents())
    assert editor.tree()[folder]["children"] == [talk]


def test_writes_keep_attachments(project: Project) -> None:
    editor = project.editor
    image = editor.create("Attachment", "pic", mimeType="image/png",
                          _attachments={"blob": {"content_type": "image/png", "data": "aGVsbG8="}}).id
    editor.rename(image, "picture")
    editor.patch(image, {"content": {"notes": "a note"}})
    doc = editor.get(image)
    assert doc["name"] == "picture" and doc["content"]["notes"] == "a note"
    assert doc["_attachments"]["blob"]["stub"] is True
    assert project.store.get_attachment(image, "blob") == b"hello"


def test_local_documents_are_written_through_the_gate(project: Project) -> None:
    asked: list[str] = []

    class Recording:
        def check_write(self, doc: dict[str, Any], intent: str, previous: Any, username: str) -> None:
            asked.append(f"{doc['_id']} {intent}")

    editor = Editor(project.store, "ana", lock_policy=Recording())
    result = editor.write_local({"_id": "_local/remote", "url": "https://couch.example"})
    assert result["ok"] and project.store.get_local("_local/remote")["url"] == "https://couch.example"
    assert asked == ["_local/remote import"]
    with pytest.raises(ValidationError, match="_local/"):
        editor.write_local({"_id": "not-local", "x": 1})
    with pytest.raises(NotFound):
        project.store.get("not-local")


def test_two_threads_moving_folders_into_each_other_never_make_a_cycle(project: Project) -> None:
    import threading

    for _ in range(20):
        a = project.editor.create("Folder", "A", collection="Item").id
        b = project.editor.create("Folder", "B", collection="Item").id
        barrier = threading.Barrier(2)
        refused: list[Exception] = []

        def move(child: str, parent: str, barrier: threading.Barrier, refused: list[Exception]) -> None:
            barrier.wait()
            try:
                project.editor.move(child, parent)
            except ValidationError as exc:
                refused.append(exc)

        threads = [threading.Thread(target=move, args=(a, b, barrier, refused)),
                   threading.Thread(target=move, args=(b, a, barrier, refused))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        parents = (project.db.get(a).get("parent"), project.db.get(b).get("parent"))
        assert parents != (b, a), "a folder cycle was written"
        assert len(refused) == 1 and refused[0].problem_code == "parent-cycle"


def test_a_recursive_delete_refused_by_a_lock_deletes_nothing(project: Project) -> None:
    class LockedBy:
        def check_write(self, doc: dict[str, Any], intent: str, previous: Any, username: str) -> None:
            previous = previous or {}
            if previous.get("locked") and previous.get("lockedBy") != username:
                raise LockRefused(doc["_id"], previous["lockedBy"])

    folder = project.editor.create("Folder", "Props", collection="Item").id
    items = [project.editor.create("Item", f"Prop {n}", parent=folder).id for n in range(2)]
    items.append(project.editor.create("Item", "Locked prop", parent=folder, lockedBy="bruno", locked=True).id)
    editor = Editor(project.store, "ana", lock_policy=LockedBy())
    seq = project.db.info()["update_seq"]
    with pytest.raises(LockRefused, match="bruno"):
        editor.delete(folder, recursive=True)
    assert project.db.info()["update_seq"] == seq
    assert all(project.db.get(doc_id)["_id"] == doc_id for doc_id in [folder, *items])
    results = Editor(project.store, "bruno", lock_policy=LockedBy()).delete(folder, recursive=True)
    assert [r.id for r in results][-1] == folder and len(results) == 4


def test_copy_document_copies_every_container_and_keeps_the_values() -> None:
    from storyloom.project.documents import copy_document

    nested = {"a": [1, 2.5, None, True, "x", {"b": [{"c": "d"}]}], "bytes": b"\x00", "t": (1, [2])}
    copied = copy_document(nested)
    assert copied == nested
    assert copied["a"] is not nested["a"] and copied["a"][5] is not nested["a"][5]
    assert copied["a"][5]["b"][0] is not nested["a"][5]["b"][0]
    assert copied["t"] == (1, [2]) and copied["t"][1] is not nested["t"][1]  # other types: deepcopy
    copied["a"][5]["b"][0]["c"] = "changed"
    assert nested["a"][5]["b"][0]["c"] == "d"
