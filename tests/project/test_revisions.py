"""The info drawer's rules: the revision list (bodies the store keeps, at most 15, what each
changed), field-level diffs with line diffs of text fields, and restoring an old revision
through the editor gate (a lock held by someone else refuses it)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from storyloom.project.editor import Editor
from storyloom.project.locks import LockRefused, TeamLocks
from storyloom.project.revisions import (
    DiffLine,
    RevisionNotKept,
    diff_documents,
    document_info,
    line_diff,
    list_revisions,
    restore_revision,
    when_text,
)
from storyloom.project.settings import default_settings
from storyloom.store import Conflict, Database

SCRIPT = "".join(f"line {n}\n" for n in range(1, 13))


@pytest.fixture
def editor() -> Editor:
    db = Database(":memory:")
    editor = Editor(db, username="ann")
    editor.create_settings(default_settings("Revisions"))
    return editor


def _edit(editor: Editor, doc_id: str, **content: str) -> str:
    doc = editor.get(doc_id)
    doc["content"].update(content)
    return editor.update(doc).rev


def test_the_list_shows_the_newest_kept_revisions_with_what_each_changed(editor: Editor) -> None:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}).id
    editor.rename(doc_id, "Opening")
    for n in range(20):
        _edit(editor, doc_id, script=SCRIPT + f"extra {n}\n")
    listed = list_revisions(editor.db, doc_id)
    assert len(listed.revisions) == 15
    assert [r.number for r in listed.revisions] == list(range(22, 7, -1))
    assert listed.revisions[0].current and not any(r.current for r in listed.revisions[1:])
    assert all(r.kept and r.author == "ann" for r in listed.revisions)
    assert listed.revisions[0].summary == "Changed Script"
    assert listed.older == 7  # revisions 1-7: five still kept, two without their bodies now
    assert listed.without_body == 2
    short = list_revisions(editor.db, doc_id, limit=25)
    assert [r.number for r in short.revisions][-1] == 3 and short.without_body == 2
    first = list_revisions(Editor(editor.db).db, editor.create("Script", "New").id).revisions
    assert [r.summary for r in first] == ["Created"]


def test_a_rename_and_a_lock_are_summarised_in_words(editor: Editor) -> None:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}).id
    editor.rename(doc_id, "Opening")
    locks = TeamLocks(lambda: "ann", lambda: False)
    editor.lock_policy = locks
    doc = editor.get(doc_id)
    from storyloom.project.editor import WriteIntent

    editor.update(doc | {"locked": True, "lockedBy": "ann", "lockedAt": "2026-01-01T10:00:00.000Z"},
                  intent=WriteIntent.LOCK)
    summaries = [r.summary for r in list_revisions(editor.db, doc_id).revisions]
    assert summaries == ["Locked by ann", "Changed Name", "Created"]


def test_field_diffs_compare_nested_fields_and_diff_text_by_line() -> None:
    old = {"_id": "a", "_rev": "1-x", "type": "Script", "name": "Intro", "color": "red",
           "content": {"script": SCRIPT, "language": "drafft"}, "modified": "t1", "locked": False}
    new = {"_id": "a", "_rev": "2-y", "type": "Script", "name": "Opening",
           "content": {"script": SCRIPT.replace("line 6\n", "line six\n"), "language": "drafft"},
           "tags": ["act 1"], "modified": "t2", "locked": True}
    diffs = {d.path: d for d in diff_documents(old, new)}
    assert set(diffs) == {"name", "content.script", "tags", "color"}  # stamps and lock left out
    assert (diffs["name"].kind, diffs["name"].old, diffs["name"].new) == ("changed", "Intro", "Opening")
    assert (diffs["tags"].kind, diffs["color"].kind) == ("added", "removed")
    script = diffs["content.script"]
    assert script.text and script.label == "Script"
    assert [line for line in script.lines if line.kind in "+-"] == [DiffLine("-", "line 6"), DiffLine("+", "line six")]
    assert script.lines[0] == DiffLine("…", "") and script.lines[1] == DiffLine(" ", "line 3")
    assert script.lines[-1] == DiffLine("…", "")


def test_a_line_diff_of_a_new_text_has_only_additions() -> None:
    assert line_diff("", "a\nb\n") == [DiffLine("+", "a"), DiffLine("+", "b")]
    assert line_diff("same\n", "same\n") == []


def test_restoring_writes_the_old_content_as_a_new_revision(editor: Editor) -> None:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}).id
    first = editor.get(doc_id)["_rev"]
    editor.rename(doc_id, "Opening")
    _edit(editor, doc_id, script="rewritten\n")
    result = restore_revision(editor, doc_id, first)
    doc = editor.get(doc_id)
    assert doc["_rev"] == result.rev and doc["_rev"].startswith("4-")
    assert (doc["name"], doc["content"]["script"]) == ("Intro", SCRIPT)
    assert doc["modifiedBy"] == "ann" and doc["created"] == editor.db.get(doc_id, rev=first)["created"]
    assert diff_documents(editor.db.get(doc_id, rev=first), doc) == []


def test_a_restore_is_refused_by_someone_elses_lock_and_by_a_stale_view(editor: Editor) -> None:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}).id
    first = editor.get(doc_id)["_rev"]
    second = _edit(editor, doc_id, script="new\n")
    from storyloom.project.editor import WriteIntent

    editor.lock_policy = TeamLocks(lambda: "bob", lambda: False)
    doc = editor.get(doc_id)
    editor.update(doc | {"locked": True, "lockedBy": "bob", "lockedAt": "2026-01-01T10:00:00.000Z"},
                  intent=WriteIntent.LOCK)
    editor.lock_policy = TeamLocks(lambda: "ann", lambda: False)
    with pytest.raises(LockRefused) as refused:
        restore_revision(editor, doc_id, first)
    assert refused.value.holder == "bob"
    assert editor.get(doc_id)["content"]["script"] == "new\n"
    editor.lock_policy = TeamLocks(lambda: "bob", lambda: False)
    with pytest.raises(Conflict):
        restore_revision(editor, doc_id, first, based_on=second)  # the lock came after that view
    restored = restore_revision(editor, doc_id, first)
    assert editor.get(doc_id)["lockedBy"] == "bob" and restored.doc["content"]["script"] == SCRIPT


def test_a_revision_without_its_body_cannot_be_restored(editor: Editor) -> None:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}).id
    first = editor.get(doc_id)["_rev"]
    editor.db.set_kept_bodies(2)
    for n in range(3):
        _edit(editor, doc_id, script=f"v{n}\n")
    with pytest.raises(RevisionNotKept, match="no longer kept"):
        restore_revision(editor, doc_id, first)


def test_info_and_times_in_words() -> None:
    now = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    info = document_info({"created": "2026-03-05T11:58:00.000Z", "createdBy": "ann", "modifiedBy": "bob",
                          "modified": "2026-03-05T11:59:40.000Z"})
    assert info.created_text(now) == "2 minutes ago by ann"
    assert info.modified_text(now) == "just now by bob"
    assert document_info({}).created_text(now) == "not recorded"
    assert when_text(None) == "unknown time"
    assert when_text("2025-01-02T10:00:00.000Z", now).startswith("Jan 2, 2025")
