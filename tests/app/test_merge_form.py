"""The merge view's rules: a conflict made in two stores (the other leaf written with
``bulk_docs(new_edits=False)``, as replication writes it) becomes rows of differing fields with
the right defaults; text both sides changed is line-merged with its conflicting passages
between markers, settled per passage; saving writes the resolution and the conflict is gone.
An editor's unsaved text against a remote change merges the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.app.views.merge_form import (
    EDITED,
    MERGED,
    MergeFormError,
    conflict_blocks,
    conflict_form,
    merge_with_markers,
    settle_block,
    unsaved_form,
)
from storyloom.project.conflicts import list_conflicts
from storyloom.project.editor import Editor
from storyloom.project.settings import default_settings
from storyloom.store import Database
from tests.support.two_stores import edit_elsewhere

SCRIPT = "".join(f"line {n}\n" for n in range(1, 11))


@pytest.fixture
def editor(tmp_path: Path) -> Editor:
    editor = Editor(Database(str(tmp_path / "ann.sqlite")), username="ann")
    editor.create_settings(default_settings("Merge"))
    return editor


def _conflict(editor: Editor, tmp_path: Path, ann_script: str, bob_script: str, **bob: object) -> tuple[str, str]:
    doc_id = editor.create("Script", "Intro", content={"script": SCRIPT}, color="blue").id
    start = editor.get(doc_id)["_rev"]
    doc = editor.get(doc_id)
    doc["content"]["script"] = ann_script
    doc["name"] = "Intro (ann)"
    editor.update(doc)
    bob_rev = edit_elsewhere(editor.db, doc_id, "bob", tmp_path / "bob", from_rev=start,
                             content_script=bob_script, **bob)
    assert [c.doc_id for c in list_conflicts(editor.db)] == [doc_id]
    return doc_id, bob_rev


def test_rows_take_the_side_that_changed_and_merge_text(editor: Editor, tmp_path: Path) -> None:
    doc_id, bob_rev = _conflict(editor, tmp_path, SCRIPT.replace("line 2\n", "line two\n"),
                                SCRIPT.replace("line 8\n", "line eight\n"), color="red")
    conflict = list_conflicts(editor.db)[0]
    form = conflict_form(editor.db, conflict, me="ann")
    assert [s.rev for s in form.sides] == [leaf.rev for leaf in conflict.leaves]
    rows = {row.path: row for row in form.rows}
    assert set(rows) == {"name", "color", "content.script"}
    winner = 0 if form.sides[0].author == "ann" else 1
    bob = 1 - winner
    assert rows["name"].choice == winner and not rows["name"].conflict
    assert rows["color"].choice == bob and rows["color"].values[bob] == "red"
    script = rows["content.script"]
    assert script.text and script.conflict and script.choice == MERGED
    assert script.open_passages() == 0 and "line two" in script.merged and "line eight" in script.merged
    assert form.sides[winner].label.startswith("You") and form.sides[0].label.endswith("(current)")
    merged = form.merged_document()
    assert merged is not None and (merged["name"], merged["color"]) == ("Intro (ann)", "red")

    rev = form.resolve(editor)
    assert list_conflicts(editor.db) == []
    doc = editor.get(doc_id)
    assert doc["_rev"] == rev and "line two" in doc["content"]["script"] and "line eight" in doc["content"]["script"]
    assert bob_rev not in {e["ok"]["_rev"] for e in editor.db.get(doc_id, open_revs="all") if
                           not e["ok"].get("_deleted")}


def test_conflicting_passages_must_be_settled_before_saving(editor: Editor, tmp_path: Path) -> None:
    doc_id, _bob = _conflict(editor, tmp_path, SCRIPT.replace("line 5\n", "line 5 by ann\n"),
                             SCRIPT.replace("line 5\n", "line 5 by bob\n"))
    form = conflict_form(editor.db, list_conflicts(editor.db)[0], me="ann")
    script = form.row("content.script")
    blocks = conflict_blocks(script.merged or "")
    assert len(blocks) == 1 and {blocks[0].ours[0], blocks[0].theirs[0]} == {"line 5 by ann", "line 5 by bob"}
    with pytest.raises(MergeFormError, match=r"1 conflicting passage left \(1 in Script\)"):
        form.merged_document()
    with pytest.raises(MergeFormError):
        form.resolve(editor)
    assert list_conflicts(editor.db) != []
    form.settle("content.script", 0, "both")
    assert script.choice == EDITED and script.open_passages() == 0
    form.resolve(editor)
    text = editor.get(doc_id)["content"]["script"]
    assert "line 5 by ann\nline 5 by bob\n" in text or "line 5 by bob\nline 5 by ann\n" in text
    assert list_conflicts(editor.db) == []


def test_choosing_every_field_of_one_side_takes_that_leaf(editor: Editor, tmp_path: Path) -> None:
    doc_id, bob_rev = _conflict(editor, tmp_path, "ann's\n", "bob's\n")
    form = conflict_form(editor.db, list_conflicts(editor.db)[0], me="ann")
    bob = next(i for i, side in enumerate(form.sides) if side.rev == bob_rev)
    form.choose_all(bob)
    assert form.chosen_side() == bob
    form.resolve(editor)
    doc = editor.get(doc_id)
    assert doc["content"]["script"] == "bob's\n" and doc["modifiedBy"] == "bob"  # the leaf, stamps and all


def test_a_value_typed_by_hand_is_text_or_json(editor: Editor, tmp_path: Path) -> None:
    doc_id, _bob = _conflict(editor, tmp_path, "a\n", "b\n", color="red", tags=["x"])
    form = conflict_form(editor.db, list_conflicts(editor.db)[0])
    form.edit("color", "green")
    with pytest.raises(MergeFormError, match="not a JSON value"):
        form.edit("tags", "[unclosed")
    form.edit("tags", '["x", "y"]')
    form.edit("content.script", "typed\n")
    form.resolve(editor)
    doc = editor.get(doc_id)
    assert (doc["color"], doc["tags"], doc["content"]["script"]) == ("green", ["x", "y"], "typed\n")
    assert doc["modifiedBy"] == "ann"


def test_markers_settle_one_passage_at_a_time() -> None:
    base = "a\nb\nc\nd\ne\nf\ng\n"
    ours = base.replace("b\n", "B1\n").replace("f\n", "F1\n")
    theirs = base.replace("b\n", "B2\n").replace("f\n", "F2\n")
    text = merge_with_markers(base, ours, theirs, "Ann", "Bob")
    blocks = conflict_blocks(text)
    assert [(b.ours, b.theirs, b.ours_label, b.theirs_label) for b in blocks] == [
        (["B1"], ["B2"], "Ann", "Bob"), (["F1"], ["F2"], "Ann", "Bob")]
    text = settle_block(text, 1, "theirs")
    text = settle_block(text, 0, "ours")
    assert text == "a\nB1\nc\nd\ne\nF2\ng\n" and conflict_blocks(text) == []
    assert merge_with_markers(base, ours, base) == ours
    assert conflict_blocks("<<<<<<< half\nno end\n") == []


def test_unsaved_text_merges_with_the_revision_that_arrived() -> None:
    base = {"_id": "s", "_rev": "1-a", "type": "Script", "name": "Intro", "content": {"script": SCRIPT}}
    theirs = {**base, "_rev": "2-b", "name": "Intro (bob)", "modifiedBy": "bob",
              "content": {"script": SCRIPT.replace("line 1\n", "line one\n")}}
    mine = {**base, "content": {"script": SCRIPT.replace("line 9\n", "line nine\n")}}
    form = unsaved_form(base, theirs, mine)
    assert {row.path for row in form.rows} == {"name", "content.script"}
    merged = form.merged_document()
    assert merged is not None and merged["_rev"] == "2-b" and merged["name"] == "Intro (bob)"
    assert "line one" in merged["content"]["script"] and "line nine" in merged["content"]["script"]


def test_flags_follow_remote_changes_and_resolutions(editor: Editor, tmp_path: Path) -> None:
    from storyloom.app.events import DocumentChanged, Origin
    from storyloom.app.views.conflict_flags import ConflictFlags

    flags = ConflictFlags(editor.db)
    flags.rebuild()
    assert flags.flagged() == []
    doc_id, _bob = _conflict(editor, tmp_path, "ann's\n", "bob's\n")
    local = DocumentChanged(doc_id, "x", 1, "Script", False, Origin.LOCAL)
    assert flags.apply([local]) == set()  # a local edit makes no conflict: not even looked at
    assert flags.apply([DocumentChanged(doc_id, "x", 2, "Script", False, Origin.REMOTE)]) == {doc_id}
    flag = flags.flag(doc_id)
    assert flag is not None and flag.kind == "conflict"
    assert "2 versions (ann, bob)" in flag.text or "2 versions (bob, ann)" in flag.text
    form = conflict_form(editor.db, list_conflicts(editor.db)[0])
    form.choose_all(0)
    form.resolve(editor)
    assert flags.apply([local]) == {doc_id} and flags.flag(doc_id) is None
